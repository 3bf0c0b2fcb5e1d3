//! One control connection's conversation without I/O (`docs/control-protocol.md`): request lines
//! in, what to do out — a reply line, a question for a table, a subscription to its events, or
//! closing. It holds the connection's state (the token's grant, the current table, the language,
//! whether events are on, the rate limit) and is the one place a presented token is checked.
//!
//! No sockets, no tasks, no clock: the time is a parameter. The TCP server and the web page's
//! WebSocket both drive it through [`crate::control::session_driver`], so both speak the protocol
//! alike.

use std::sync::Arc;

use crate::boards::Millis;
use crate::chess::language::Language;
use crate::control::rate_limit::RateLimiter;
use crate::control::wire::reply_line;
use crate::io::lines::Line;
use crate::io::tokens::{Grant, Tokens};
use crate::table::control::{
    self, Command, ErrorCode, KEYWORDS, MAX_LINE_BYTES, Refusal, Role, ok_line, one_line,
};
use crate::table::reply::Reply;

/// Bytes of one overlong line skipped before the connection is closed: a client that sends
/// this much without a line feed is not typing requests.
pub const MAX_SKIPPED_BYTES: usize = 64 * 1024;
/// Requests refused in a row for the rate before the connection is closed.
pub const FLOOD_STRIKES: u32 = 10;
/// Wrong tokens on one connection before it is closed.
pub const MAX_AUTH_FAILURES: u32 = 3;
// The limits are settings, read and validated with the rest of the configuration.
pub use crate::config::ControlSettings;

/// What every connection is told when the daemon stops, before it is closed.
pub const SHUTDOWN_LINE: &str = "event shutdown";

/// The one token check: the grant of a presented token, compared in constant time against
/// every token ([`Tokens::authenticate`]). Sessions and the page's audio route call this;
/// nothing else verifies tokens.
pub fn check_token(tokens: &Tokens, presented: &str) -> Option<Grant> {
    tokens.authenticate(presented)
}

/// Whether `token` may use table `table` of `tables`: its grant, or the reply line a session
/// would give (`error auth wrong token`, or the `table NAME` refusal, which reads alike for an
/// unknown table and a forbidden one).
pub fn authorize(
    tokens: &Tokens,
    tables: &[Arc<str>],
    token: &str,
    table: &str,
) -> Result<Grant, Refusal> {
    let grant = check_token(tokens, token).ok_or_else(wrong_token)?;
    if tables.iter().any(|t| &**t == table) && grant.may_use(table) {
        Ok(grant)
    } else {
        Err(no_such_table(table, tables, &grant))
    }
}

/// The line for a connection beyond the cap, before it is closed.
pub fn too_many_connections(max: usize) -> String {
    Refusal::new(
        ErrorCode::Rate,
        format!("too many connections (at most {max}); try again later"),
    )
    .line()
}

/// The line an unauthenticated connection gets when a newcomer needs its slot.
pub fn displaced() -> String {
    Refusal::new(
        ErrorCode::Rate,
        "every connection is taken and this one had not authenticated; it makes room for a \
         newcomer; connect again and send auth TOKEN at once"
            .to_owned(),
    )
    .line()
}

/// The line a connection gets when its address already holds its share of the slots.
pub fn too_many_from_address(share: usize) -> String {
    Refusal::new(
        ErrorCode::Rate,
        format!(
            "too many connections from your address (at most {share}); close one and try again"
        ),
    )
    .line()
}

/// The line a non-arbiter gets in one of the slots kept for the arbiter.
pub fn kept_for_arbiter(reserve: usize) -> String {
    Refusal::new(
        ErrorCode::Rate,
        format!(
            "the last {reserve} connections are kept for the arbiter and the others are taken; \
             try again later"
        ),
    )
    .line()
}

/// The line an `auth` gets while the daemon refuses tokens for the wrong ones guessed.
pub fn too_many_wrong_tokens() -> String {
    Refusal::new(
        ErrorCode::Rate,
        "too many wrong tokens on this daemon; tokens are checked again in a second",
    )
    .line()
}

/// A table's event as the line a subscriber gets.
pub fn event_line(event: &str) -> String {
    one_line(event)
}

/// What a subscriber that fell behind gets instead of the `missed` events.
pub fn lagged_line(missed: u64) -> String {
    format!("event lagged {missed}")
}

/// What the driver does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Write this line; the conversation goes on.
    Reply(String),
    /// Write this line, then close the connection.
    Close(String),
    /// Ask a table; its answer, fed to [`Session::on_answer`], gives the reply line.
    Ask(Ask),
    /// Forward `table`'s events from now on (and no other table's), then write `reply`.
    Subscribe { table: Arc<str>, reply: String },
}

/// A request for a table, with who asks and in which language.
#[derive(Debug, Clone)]
pub struct Ask {
    pub table: Arc<str>,
    pub role: Role,
    pub lang: &'static Language,
    pub command: Command,
}

/// Languages compare by their code (a language is its built-in words for that code).
impl PartialEq for Ask {
    fn eq(&self, other: &Ask) -> bool {
        self.table == other.table
            && self.role == other.role
            && self.lang.code() == other.lang.code()
            && self.command == other.command
    }
}

impl Eq for Ask {}

/// How a table answered an [`Ask`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The table's reply, typed; [`Session::on_answer`] writes it as the control line.
    Replied(Reply),
    /// No answer within the reply timeout.
    TimedOut,
    /// The table has stopped (or is not running).
    Stopped,
}

/// Something worth the daemon's log; the driver takes it with [`Session::take_notice`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    Authenticated(Role),
    WrongToken,
    /// The connection is closed for flooding.
    Flood,
}

/// One connection's state between requests.
#[derive(Debug, Clone)]
pub struct Session {
    tokens: Tokens,
    /// Every table of the daemon, in configuration order.
    tables: Arc<[Arc<str>]>,
    settings: ControlSettings,
    grant: Option<Grant>,
    table: Option<Arc<str>>,
    lang: &'static Language,
    events: bool,
    rate: RateLimiter,
    strikes: u32,
    auth_failures: u32,
    notice: Option<Notice>,
}

impl Session {
    /// A fresh connection at `now_ms`, not yet authenticated.
    pub fn new(
        tokens: Tokens,
        tables: Arc<[Arc<str>]>,
        settings: ControlSettings,
        now_ms: Millis,
    ) -> Session {
        Session {
            tokens,
            tables,
            grant: None,
            table: None,
            lang: settings.default_lang,
            events: false,
            rate: RateLimiter::new(settings.requests_per_second, settings.burst, now_ms),
            strikes: 0,
            auth_failures: 0,
            notice: None,
            settings,
        }
    }

    /// The authenticated role, if any.
    pub fn role(&self) -> Option<Role> {
        self.grant.as_ref().map(|g| g.role)
    }

    /// The table requests go to.
    pub fn table(&self) -> Option<&str> {
        self.table.as_deref()
    }

    /// The connection's language.
    pub fn lang(&self) -> &'static Language {
        self.lang
    }

    /// Whether the connection has asked for events (and their feed is open).
    pub fn events(&self) -> bool {
        self.events
    }

    /// The last thing worth logging, once.
    pub fn take_notice(&mut self) -> Option<Notice> {
        self.notice.take()
    }

    /// One line from the client, read at `now_ms`.
    pub fn on_line(&mut self, line: Line, now_ms: Millis) -> Action {
        if let Some(refused) = self.admit(now_ms) {
            return refused;
        }
        let bytes = match line {
            Line::Text(bytes) => bytes,
            Line::TooLong(n) => {
                return Action::Reply(
                    Refusal::new(
                        ErrorCode::Syntax,
                        format!("line of {n} bytes skipped; at most {MAX_LINE_BYTES}"),
                    )
                    .line(),
                );
            }
            Line::Runaway => {
                return Action::Close(
                    Refusal::new(
                        ErrorCode::Syntax,
                        format!("more than {MAX_SKIPPED_BYTES} bytes without a line feed; closing"),
                    )
                    .line(),
                );
            }
        };
        match control::parse_line_in(&bytes, self.lang) {
            Ok(command) => self.on_command(command),
            Err(refusal) => Action::Reply(refusal.line()),
        }
    }

    /// Input the transport refused before it was a line (a binary WebSocket message, one with
    /// a line break): it counts against the rate like any line, and `refusal` is the reply.
    pub fn on_refused(&mut self, refusal: Refusal, now_ms: Millis) -> Action {
        self.admit(now_ms)
            .unwrap_or_else(|| Action::Reply(refusal.line()))
    }

    /// The reply line for an [`Action::Ask`] to `table`, given how the table answered.
    pub fn on_answer(&self, table: &str, answer: Answer) -> String {
        match answer {
            Answer::Replied(reply) => reply_line(&reply),
            Answer::TimedOut => Refusal::new(
                ErrorCode::State,
                format!(
                    "table {table} did not answer within {} s",
                    self.settings.reply_timeout.as_secs_f32()
                ),
            )
            .line(),
            Answer::Stopped => {
                Refusal::new(ErrorCode::State, format!("table {table} has stopped")).line()
            }
        }
    }

    /// The auth timeout has passed: the closing line, unless the connection authenticated.
    pub fn on_auth_timeout(&self) -> Option<String> {
        self.grant.is_none().then(|| {
            Refusal::new(
                ErrorCode::Auth,
                format!(
                    "no auth within {} s of connecting; closing",
                    self.settings.auth_timeout.as_secs_f32()
                ),
            )
            .line()
        })
    }

    /// The table's event feed has closed (the table stopped): nothing more will come, and a
    /// later `table NAME` does not subscribe.
    pub fn on_events_closed(&mut self) {
        self.events = false;
    }

    /// The rate limit: `None` when the line may be served, else what to do instead.
    fn admit(&mut self, now_ms: Millis) -> Option<Action> {
        if self.rate.take(now_ms) {
            self.strikes = 0;
            return None;
        }
        self.strikes += 1;
        if self.strikes >= FLOOD_STRIKES {
            self.notice = Some(Notice::Flood);
            return Some(Action::Close(
                Refusal::new(ErrorCode::Rate, "flood of requests; closing").line(),
            ));
        }
        Some(Action::Reply(
            Refusal::new(
                ErrorCode::Rate,
                format!(
                    "more than {} requests a second (bursts of {}); request ignored, slow down",
                    self.settings.requests_per_second, self.settings.burst
                ),
            )
            .line(),
        ))
    }

    fn on_command(&mut self, command: Command) -> Action {
        let Some(grant) = self.grant.clone() else {
            return self.before_auth(command);
        };
        match command {
            Command::Auth { .. } => Action::Reply(
                Refusal::new(
                    ErrorCode::State,
                    format!(
                        "already authenticated as {}; connect again for another token",
                        grant.role
                    ),
                )
                .line(),
            ),
            Command::Help => Action::Reply(ok_line(&format!("requests: {KEYWORDS}"))),
            Command::Quit => Action::Close(ok_line("bye")),
            Command::Lang { code } => match Language::builtin(&code) {
                Ok(lang) => {
                    self.lang = lang;
                    Action::Reply(ok_line(&format!("lang {}", lang.code())))
                }
                Err(_) => Action::Reply(
                    Refusal::new(
                        ErrorCode::Syntax,
                        format!(
                            "no built-in language {:?}; one of {}",
                            code.chars().take(40).collect::<String>(),
                            Language::builtin_codes().join(", ")
                        ),
                    )
                    .line(),
                ),
            },
            Command::Tables => {
                let names: Vec<&str> = visible(&self.tables, &grant).map(|t| &**t).collect();
                Action::Reply(ok_line(&names.join(" ")))
            }
            Command::Table { name } => match self.tables.iter().find(|t| &***t == name.as_str()) {
                Some(table) if grant.may_use(table) => {
                    let table = table.clone();
                    let reply = ok_line(&format!("table {table}"));
                    self.table = Some(table.clone());
                    if self.events {
                        Action::Subscribe { table, reply }
                    } else {
                        Action::Reply(reply)
                    }
                }
                _ => Action::Reply(no_such_table(&name, &self.tables, &grant).line()),
            },
            Command::Events => match &self.table {
                Some(table) => {
                    self.events = true;
                    Action::Subscribe {
                        table: table.clone(),
                        reply: ok_line(&format!("events {table}")),
                    }
                }
                None => Action::Reply(no_table()),
            },
            command => {
                if let Err(refusal) = control::permitted_to_role(grant.role, &command) {
                    return Action::Reply(refusal.line());
                }
                match &self.table {
                    Some(table) => Action::Ask(Ask {
                        table: table.clone(),
                        role: grant.role,
                        lang: self.lang,
                        command,
                    }),
                    None => Action::Reply(no_table()),
                }
            }
        }
    }

    fn before_auth(&mut self, command: Command) -> Action {
        match command {
            Command::Help => Action::Reply(ok_line(&format!(
                "requests: {KEYWORDS}; send auth TOKEN first"
            ))),
            Command::Quit => Action::Close(ok_line("bye")),
            Command::Auth { token } => match check_token(&self.tokens, &token) {
                Some(grant) => {
                    self.table = visible(&self.tables, &grant).next().cloned();
                    let reply = match &self.table {
                        Some(table) => format!("{} {table}", grant.role),
                        None => grant.role.to_string(),
                    };
                    self.notice = Some(Notice::Authenticated(grant.role));
                    self.grant = Some(grant);
                    Action::Reply(ok_line(&reply))
                }
                None => {
                    self.auth_failures += 1;
                    self.notice = Some(Notice::WrongToken);
                    if self.auth_failures >= MAX_AUTH_FAILURES {
                        Action::Close(
                            Refusal::new(
                                ErrorCode::Auth,
                                format!("wrong token ({MAX_AUTH_FAILURES} times); closing"),
                            )
                            .line(),
                        )
                    } else {
                        Action::Reply(wrong_token().line())
                    }
                }
            },
            command => Action::Reply(
                Refusal::new(
                    ErrorCode::Auth,
                    format!("{} before auth; send auth TOKEN first", command.keyword()),
                )
                .line(),
            ),
        }
    }
}

/// The tables a grant may use, in configuration order.
fn visible<'t>(tables: &'t [Arc<str>], grant: &'t Grant) -> impl Iterator<Item = &'t Arc<str>> {
    tables.iter().filter(|t| grant.may_use(t))
}

fn wrong_token() -> Refusal {
    Refusal::new(ErrorCode::Auth, "wrong token")
}

/// Unknown and not allowed read alike, so a token cannot probe for table names.
fn no_such_table(name: &str, tables: &[Arc<str>], grant: &Grant) -> Refusal {
    Refusal::new(
        ErrorCode::Forbidden,
        format!(
            "no table {:?} for this token; tables: {}",
            name.chars().take(40).collect::<String>(),
            visible(tables, grant)
                .map(|t| &**t)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
}

fn no_table() -> String {
    Refusal::new(
        ErrorCode::State,
        "no table is running for this token; see tables",
    )
    .line()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::tokens::Origin;
    use crate::table::reply::Answer as TableAnswer;
    use shakmaty::Color;

    const WHITE: &str = "white-token-0123456789";
    const OBSERVER: &str = "observer-token-0123456789";
    const ARBITER: &str = "arbiter-token-0123456789";
    /// An assistant token for table-2 only.
    const TABLE_2: &str = "table-2-token-0123456789";
    /// A token for a table that is not running.
    const ELSEWHERE: &str = "elsewhere-token-0123456789";

    fn tokens() -> Tokens {
        let all = |role| Grant { role, tables: None };
        let only = |role, table: &str| Grant {
            role,
            tables: Some(Arc::from(vec![Arc::<str>::from(table)])),
        };
        Tokens::new([
            (WHITE.into(), all(Role::Player(Color::White)), Origin::File),
            (OBSERVER.into(), all(Role::Observer), Origin::File),
            (ARBITER.into(), all(Role::Arbiter), Origin::File),
            (
                TABLE_2.into(),
                only(Role::Assistant, "table-2"),
                Origin::Config,
            ),
            (
                ELSEWHERE.into(),
                only(Role::Arbiter, "table-9"),
                Origin::Config,
            ),
        ])
    }

    fn tables() -> Arc<[Arc<str>]> {
        Arc::from(vec![Arc::<str>::from("table-1"), Arc::from("table-2")])
    }

    fn fast() -> ControlSettings {
        ControlSettings {
            requests_per_second: 1000,
            burst: 1000,
            ..ControlSettings::default()
        }
    }

    fn session() -> Session {
        Session::new(tokens(), tables(), fast(), 0)
    }

    fn send(session: &mut Session, line: &str) -> Action {
        session.on_line(Line::Text(line.as_bytes().to_vec()), 0)
    }

    /// The reply of a request answered by the session itself.
    fn reply(session: &mut Session, line: &str) -> String {
        match send(session, line) {
            Action::Reply(line) => line,
            other => panic!("{line:?}: {other:?}, not a reply"),
        }
    }

    fn authenticated(token: &str) -> Session {
        let mut s = session();
        let r = reply(&mut s, &format!("auth {token}"));
        assert!(r.starts_with("ok "), "{r}");
        s
    }

    #[test]
    fn only_help_quit_and_auth_before_auth() {
        let mut s = session();
        assert_eq!(
            reply(&mut s, "board"),
            "error auth board before auth; send auth TOKEN first"
        );
        assert_eq!(
            reply(&mut s, "events"),
            "error auth events before auth; send auth TOKEN first"
        );
        assert!(reply(&mut s, "help").starts_with("ok requests: auth, table"));
        assert!(reply(&mut s, "help").ends_with("; send auth TOKEN first"));
        assert_eq!(s.role(), None);
        assert_eq!(
            s.on_auth_timeout().as_deref(),
            Some("error auth no auth within 30 s of connecting; closing")
        );
        assert_eq!(send(&mut s, "quit"), Action::Close("ok bye".into()));
    }

    #[test]
    fn the_right_token_gives_its_role_and_first_table() {
        let mut s = session();
        assert_eq!(reply(&mut s, &format!("auth {WHITE}")), "ok white table-1");
        assert_eq!(s.role(), Some(Role::Player(Color::White)));
        assert_eq!(s.table(), Some("table-1"));
        assert_eq!(
            s.take_notice(),
            Some(Notice::Authenticated(Role::Player(Color::White)))
        );
        assert_eq!(s.take_notice(), None);
        assert_eq!(s.on_auth_timeout(), None);
        assert_eq!(
            reply(&mut s, &format!("auth {ARBITER}")),
            "error state already authenticated as white; connect again for another token"
        );
        assert_eq!(s.role(), Some(Role::Player(Color::White)));
        assert_eq!(reply(&mut s, "help"), format!("ok requests: {KEYWORDS}"));

        let mut limited = session();
        assert_eq!(
            reply(&mut limited, &format!("auth {TABLE_2}")),
            "ok assistant table-2"
        );
        // A token for no running table authenticates, with no table to talk to.
        let mut nowhere = session();
        assert_eq!(
            reply(&mut nowhere, &format!("auth {ELSEWHERE}")),
            "ok arbiter"
        );
        assert_eq!(reply(&mut nowhere, "tables"), "ok");
        assert_eq!(
            reply(&mut nowhere, "board"),
            "error state no table is running for this token; see tables"
        );
        assert_eq!(
            reply(&mut nowhere, "events"),
            "error state no table is running for this token; see tables"
        );
    }

    #[test]
    fn three_wrong_tokens_close() {
        let mut s = session();
        assert_eq!(reply(&mut s, "auth guess-1"), "error auth wrong token");
        assert_eq!(s.take_notice(), Some(Notice::WrongToken));
        // A token differing only in its last character is as wrong as any other.
        let near = format!("{}X", &WHITE[..WHITE.len() - 1]);
        assert_eq!(
            reply(&mut s, &format!("auth {near}")),
            "error auth wrong token"
        );
        assert_eq!(
            send(&mut s, "auth guess-3"),
            Action::Close("error auth wrong token (3 times); closing".into())
        );
        assert_eq!(s.role(), None);
    }

    #[test]
    fn game_requests_go_to_the_current_table_with_role_and_language() {
        let mut s = authenticated(WHITE);
        assert_eq!(
            send(&mut s, "move e4"),
            Action::Ask(Ask {
                table: Arc::from("table-1"),
                role: Role::Player(Color::White),
                lang: Language::english(),
                command: Command::Move { text: "e4".into() },
            })
        );
        assert_eq!(reply(&mut s, "lang de"), "ok lang de");
        assert_eq!(s.lang().code(), "de");
        // `promote` piece names are read in the connection's language.
        assert_eq!(
            send(&mut s, "promote Dame"),
            Action::Ask(Ask {
                table: Arc::from("table-1"),
                role: Role::Player(Color::White),
                lang: Language::german(),
                command: Command::Promote {
                    piece: shakmaty::Role::Queen
                },
            })
        );
        assert_eq!(reply(&mut s, "table table-2"), "ok table table-2");
        match send(&mut s, "board") {
            Action::Ask(ask) => {
                assert_eq!(&*ask.table, "table-2");
                assert_eq!(ask.command, Command::Board);
            }
            other => panic!("{other:?}"),
        }
        // Only built-in languages: a network client never makes the daemon read a file.
        assert!(
            reply(&mut s, "lang ../../etc/passwd").starts_with(
                "error syntax no built-in language \"../../etc/passwd\"; one of de, en"
            )
        );
        assert_eq!(s.lang().code(), "de");
    }

    #[test]
    fn the_role_is_checked_before_a_table_sees_the_request() {
        let mut observer = authenticated(OBSERVER);
        assert_eq!(
            reply(&mut observer, "move e4"),
            "error forbidden an observer may only read; move changes the game"
        );
        assert_eq!(
            reply(&mut observer, "resign"),
            "error forbidden an observer may only read; resign changes the game"
        );
        assert!(matches!(send(&mut observer, "board"), Action::Ask(_)));
        assert!(matches!(send(&mut observer, "export pgn"), Action::Ask(_)));
        let mut white = authenticated(WHITE);
        assert_eq!(
            reply(&mut white, "pause"),
            "error forbidden only the arbiter may pause; you are white"
        );
        let mut arbiter = authenticated(ARBITER);
        assert!(matches!(send(&mut arbiter, "pause"), Action::Ask(_)));
    }

    #[test]
    fn tables_are_the_tokens_and_others_read_as_unknown() {
        let mut s = authenticated(ARBITER);
        assert_eq!(reply(&mut s, "tables"), "ok table-1 table-2");
        assert_eq!(
            reply(&mut s, "table table-9"),
            "error forbidden no table \"table-9\" for this token; tables: table-1, table-2"
        );
        assert_eq!(s.table(), Some("table-1"));
        let mut limited = authenticated(TABLE_2);
        assert_eq!(reply(&mut limited, "tables"), "ok table-2");
        assert_eq!(
            reply(&mut limited, "table table-1"),
            "error forbidden no table \"table-1\" for this token; tables: table-2"
        );
        assert_eq!(
            reply(&mut limited, "table table-3"),
            "error forbidden no table \"table-3\" for this token; tables: table-2"
        );
        assert_eq!(limited.table(), Some("table-2"));
    }

    #[test]
    fn events_subscribe_and_follow_the_table() {
        let mut s = authenticated(OBSERVER);
        // Without events, changing tables subscribes to nothing.
        assert_eq!(reply(&mut s, "table table-2"), "ok table table-2");
        assert!(!s.events());
        assert_eq!(
            send(&mut s, "events"),
            Action::Subscribe {
                table: Arc::from("table-2"),
                reply: "ok events table-2".into()
            }
        );
        assert!(s.events());
        assert_eq!(
            send(&mut s, "table table-1"),
            Action::Subscribe {
                table: Arc::from("table-1"),
                reply: "ok table table-1".into()
            }
        );
        // A table's feed closed: a later table change subscribes to nothing.
        s.on_events_closed();
        assert!(!s.events());
        assert_eq!(reply(&mut s, "table table-2"), "ok table table-2");
    }

    #[test]
    fn the_tables_answer_is_one_line_and_silence_is_an_error() {
        let s = authenticated(WHITE);
        assert_eq!(
            s.on_answer(
                "table-1",
                Answer::Replied(Ok(TableAnswer::Moves("e2e4\ne4".into())))
            ),
            "ok e2e4 e4"
        );
        assert_eq!(
            s.on_answer("table-1", Answer::TimedOut),
            "error state table table-1 did not answer within 10 s"
        );
        assert_eq!(
            s.on_answer("table-1", Answer::Stopped),
            "error state table table-1 has stopped"
        );
        assert_eq!(event_line("event say\tone"), "event say one");
        assert_eq!(lagged_line(6), "event lagged 6");
    }

    #[test]
    fn long_lines_bad_bytes_and_garbage_get_error_lines() {
        let mut s = authenticated(WHITE);
        assert_eq!(
            s.on_line(Line::TooLong(600), 0),
            Action::Reply("error syntax line of 600 bytes skipped; at most 512".into())
        );
        assert_eq!(
            s.on_line(Line::Text(b"move \xff\xfe e4".to_vec()), 0),
            Action::Reply("error syntax not UTF-8 text (bad byte at offset 5)".into())
        );
        let garbage = reply(&mut s, "\0\0\x07\x1b[2J\r");
        assert!(
            garbage.starts_with("error syntax unknown request"),
            "{garbage}"
        );
        assert!(!garbage.contains('\x1b'), "{garbage:?}");
        assert_eq!(
            s.on_line(Line::Runaway, 0),
            Action::Close("error syntax more than 65536 bytes without a line feed; closing".into())
        );
        assert_eq!(
            s.on_refused(
                Refusal::new(ErrorCode::Syntax, "binary messages are not requests"),
                0
            ),
            Action::Reply("error syntax binary messages are not requests".into())
        );
        // Before auth the same: the bound and the reply do not depend on the token.
        let mut fresh = session();
        assert_eq!(
            fresh.on_line(Line::TooLong(513), 0),
            Action::Reply("error syntax line of 513 bytes skipped; at most 512".into())
        );
    }

    #[test]
    fn a_flood_is_refused_then_cut_off_and_idle_time_refills() {
        let settings = ControlSettings {
            requests_per_second: 1,
            burst: 3,
            ..ControlSettings::default()
        };
        let mut s = Session::new(tokens(), tables(), settings, 1_000);
        let at = |s: &mut Session, line: &str, now| s.on_line(Line::Text(line.into()), now);
        assert!(
            matches!(at(&mut s, &format!("auth {OBSERVER}"), 1_000), Action::Reply(r) if r.starts_with("ok "))
        );
        assert!(matches!(at(&mut s, "board", 1_000), Action::Ask(_)));
        assert!(matches!(at(&mut s, "board", 1_000), Action::Ask(_)));
        let slow_down = Action::Reply(
            "error rate more than 1 requests a second (bursts of 3); request ignored, slow down"
                .into(),
        );
        assert_eq!(at(&mut s, "board", 1_000), slow_down);
        // A second later one more is served, and the strikes start again.
        assert!(matches!(at(&mut s, "board", 2_000), Action::Ask(_)));
        for _ in 1..FLOOD_STRIKES {
            assert_eq!(at(&mut s, "board", 2_000), slow_down);
        }
        // Refused input counts as well.
        assert_eq!(
            s.on_refused(Refusal::new(ErrorCode::Syntax, "binary"), 2_000),
            Action::Close("error rate flood of requests; closing".into())
        );
        assert_eq!(s.take_notice(), Some(Notice::Flood));
    }

    #[test]
    fn the_audio_routes_check_is_the_sessions() {
        let (tokens, tables) = (tokens(), tables());
        assert_eq!(
            authorize(&tokens, &tables, ARBITER, "table-2").map(|g| g.role),
            Ok(Role::Arbiter)
        );
        assert_eq!(
            authorize(&tokens, &tables, "guess", "table-1")
                .unwrap_err()
                .line(),
            "error auth wrong token"
        );
        assert_eq!(
            authorize(&tokens, &tables, TABLE_2, "table-1")
                .unwrap_err()
                .line(),
            "error forbidden no table \"table-1\" for this token; tables: table-2"
        );
        // A table the token names but the daemon does not run is no table.
        assert_eq!(
            authorize(&tokens, &tables, ELSEWHERE, "table-9")
                .unwrap_err()
                .line(),
            "error forbidden no table \"table-9\" for this token; tables: "
        );
        assert_eq!(
            too_many_connections(2),
            "error rate too many connections (at most 2); try again later"
        );
    }

    #[test]
    fn arbitrary_lines_never_panic_and_always_answer_one_line() {
        let settings = ControlSettings {
            requests_per_second: u32::MAX,
            burst: u32::MAX,
            ..ControlSettings::default()
        };
        let mut s = Session::new(tokens(), tables(), settings, 0);
        assert!(
            s.on_line(Line::Text(format!("auth {ARBITER}").into_bytes()), 0)
                != Action::Reply("error auth wrong token".into())
        );
        assert_eq!(s.role(), Some(Role::Arbiter));
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for len in 0..1500 {
            let bytes: Vec<u8> = (0..len % 700)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    (seed >> 24) as u8
                })
                .collect();
            match s.on_line(Line::Text(bytes), 0) {
                Action::Reply(line) | Action::Close(line) => assert!(!line.contains('\n')),
                Action::Subscribe { reply, .. } => assert!(!reply.contains('\n')),
                Action::Ask(_) => {}
            }
        }
    }
}
