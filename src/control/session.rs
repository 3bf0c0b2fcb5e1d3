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
use crate::control::wire::{RefusalLine, ok_line, one_line, reply_line};
use crate::io::lines::Line;
use crate::io::speech::devices::AudioAsk;
use crate::io::tokens::{Grant, Tokens};
use crate::table::control::{
    self, ConnectionRequest, DeskRequest, ErrorCode, KEYWORDS, MAX_LINE_BYTES, Refusal, Request,
    RequestSpec, Role, TableRequest,
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

/// The line an observer gets in one of the slots kept for the players, the assistant and the
/// arbiter.
pub fn kept_for_players(reserve: usize) -> String {
    Refusal::new(
        ErrorCode::Rate,
        format!(
            "the last {reserve} connections are kept for the players, the assistant and the \
             arbiter, and the others are taken; try again later"
        ),
    )
    .line()
}

/// The refusal of a wrong token past the daemon's budget of wrong tokens (its connection is
/// closed); a right token is accepted all the same.
pub fn too_many_wrong_tokens_refusal() -> Refusal {
    Refusal::new(
        ErrorCode::Rate,
        "too many wrong tokens on this daemon; this one was wrong too; closing",
    )
}

/// [`too_many_wrong_tokens_refusal`] as its line.
pub fn too_many_wrong_tokens() -> String {
    too_many_wrong_tokens_refusal().line()
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
    /// Ask the correspondence desk, the same way (or, when the daemon has none, reply
    /// [`no_desk`]).
    AskDesk(Ask<DeskRequest>),
    /// Forward `table`'s events from now on (and no other table's), then write `reply`.
    Subscribe { table: Arc<str>, reply: String },
    /// List the audio devices or move a speech output (the driver runs `aplay -L`).
    Audio(AudioAsk),
    /// Say the live broadcast's state (the driver reads it from the hub).
    Broadcast,
}

/// A request for a table (or, as `Ask<DeskRequest>`, for the desk), with who asks, in which
/// language, and the connection's table.
#[derive(Debug, Clone)]
pub struct Ask<R = TableRequest> {
    pub table: Arc<str>,
    pub role: Role,
    pub lang: &'static Language,
    pub command: R,
}

/// Languages compare by their code (a language is its built-in words for that code).
impl<R: PartialEq> PartialEq for Ask<R> {
    fn eq(&self, other: &Ask<R>) -> bool {
        self.table == other.table
            && self.role == other.role
            && self.lang.code() == other.lang.code()
            && self.command == other.command
    }
}

impl<R: Eq> Eq for Ask<R> {}

/// How a table answered an [`Ask`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The table's reply, typed; [`Session::on_answer`] writes it as the control line.
    Replied(Reply),
    /// No answer within `hub::patience` (six reply timeouts): the outcome is not known yet.
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
    /// The connection is closed: it spoke HTTP (a page on another origin, a proxy).
    Http,
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
    /// The tables as they are now: a server's game added while the daemon runs is reached by
    /// the connections already open too.
    pub fn set_tables(&mut self, tables: Arc<[Arc<str>]>) {
        self.tables = tables;
    }

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
        if looks_like_http(&bytes) {
            // A browser's page on another origin can POST to this port: its header lines are
            // not requests, and its body must never run. Nothing more is read.
            self.notice = Some(Notice::Http);
            return Action::Close(
                Refusal::new(
                    ErrorCode::Syntax,
                    "this is annabella's control port, not HTTP; closing",
                )
                .line(),
            );
        }
        match control::parse_line_in(&bytes, self.lang) {
            Ok(request) => self.on_request(request),
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
            // Not "failed": the table may still record it (a slow journal write).
            Answer::TimedOut => Refusal::new(
                ErrorCode::State,
                format!(
                    "table {table} has not answered within {} s; whether the request was \
                     recorded is not known yet: ask sheet or status",
                    super::hub::patience(self.settings.reply_timeout).as_secs_f32()
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

    /// A parsed line: the connection answers its own requests and sends the others on, as their
    /// type says.
    fn on_request(&mut self, request: Request) -> Action {
        let Some(grant) = self.grant.clone() else {
            return self.before_auth(request);
        };
        match request {
            Request::Connection(request) => self.on_connection(request, &grant),
            Request::Desk(command) => match self.forward(&grant, command.spec(), command) {
                Ok(ask) => Action::AskDesk(ask),
                Err(refused) => refused,
            },
            Request::Table(command) => match self.forward(&grant, command.spec(), command) {
                Ok(ask) => Action::Ask(ask),
                Err(refused) => refused,
            },
        }
    }

    /// A request for the connection's table or the desk, once the role may send it and there
    /// is a table.
    fn forward<R>(&self, grant: &Grant, spec: &RequestSpec, command: R) -> Result<Ask<R>, Action> {
        if let Err(refusal) = control::permitted_to_role(grant.role, spec) {
            return Err(Action::Reply(refusal.line()));
        }
        match &self.table {
            Some(table) => Ok(Ask {
                table: table.clone(),
                role: grant.role,
                lang: self.lang,
                command,
            }),
            None => Err(Action::Reply(no_table())),
        }
    }

    /// The requests the connection answers itself, once authenticated.
    fn on_connection(&mut self, request: ConnectionRequest, grant: &Grant) -> Action {
        match request {
            ConnectionRequest::Auth { .. } => Action::Reply(
                Refusal::new(
                    ErrorCode::State,
                    format!(
                        "already authenticated as {}; connect again for another token",
                        grant.role
                    ),
                )
                .line(),
            ),
            ConnectionRequest::Help => Action::Reply(ok_line(&format!("requests: {KEYWORDS}"))),
            ConnectionRequest::AudioDevices | ConnectionRequest::AudioDevice { .. } => {
                if let Err(refusal) = control::permitted_to_role(grant.role, request.spec()) {
                    return Action::Reply(refusal.line());
                }
                Action::Audio(match request {
                    ConnectionRequest::AudioDevice { output, device } => {
                        AudioAsk::Choose { output, device }
                    }
                    _ => AudioAsk::List,
                })
            }
            ConnectionRequest::Broadcast => {
                match control::permitted_to_role(grant.role, request.spec()) {
                    Ok(()) => Action::Broadcast,
                    Err(refusal) => Action::Reply(refusal.line()),
                }
            }
            ConnectionRequest::Quit => Action::Close(ok_line("bye")),
            ConnectionRequest::Lang { code } => match Language::builtin(&code) {
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
            ConnectionRequest::Tables => {
                let names: Vec<&str> = visible(&self.tables, grant).map(|t| &**t).collect();
                Action::Reply(ok_line(&names.join(" ")))
            }
            ConnectionRequest::Table { name } => {
                match self.tables.iter().find(|t| &***t == name.as_str()) {
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
                    _ => Action::Reply(no_such_table(&name, &self.tables, grant).line()),
                }
            }
            ConnectionRequest::Events => match &self.table {
                Some(table) => {
                    self.events = true;
                    Action::Subscribe {
                        table: table.clone(),
                        reply: ok_line(&format!("events {table}")),
                    }
                }
                None => Action::Reply(no_table()),
            },
        }
    }

    fn before_auth(&mut self, request: Request) -> Action {
        match request {
            Request::Connection(ConnectionRequest::Help) => Action::Reply(ok_line(&format!(
                "requests: {KEYWORDS}; send auth TOKEN first"
            ))),
            Request::Connection(ConnectionRequest::Quit) => Action::Close(ok_line("bye")),
            Request::Connection(ConnectionRequest::Auth { token }) => {
                match check_token(&self.tokens, &token) {
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
                }
            }
            request => Action::Reply(
                Refusal::new(
                    ErrorCode::Auth,
                    format!("{} before auth; send auth TOKEN first", request.keyword()),
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

/// The reply to a desk request when the daemon runs no correspondence desk.
pub fn no_desk(command: &DeskRequest) -> String {
    Refusal::new(
        ErrorCode::State,
        format!(
            "{} is answered by the correspondence desk, and this daemon has no correspondence \
             table",
            command.keyword()
        ),
    )
    .line()
}

fn no_table() -> String {
    Refusal::new(
        ErrorCode::State,
        "no table is running for this token; see tables",
    )
    .line()
}

#[cfg(test)]
mod tests;

/// An HTTP request line (`POST / HTTP/1.1`) or header line (`Host: …`): no control request's
/// first word ends with a colon, and none is followed by an HTTP version.
fn looks_like_http(line: &[u8]) -> bool {
    let text = String::from_utf8_lossy(line);
    let mut words = text.split_whitespace();
    let Some(first) = words.next() else {
        return false;
    };
    if first.len() > 1
        && first.ends_with(':')
        && first[..first.len() - 1]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        return true;
    }
    const METHODS: [&str; 9] = [
        "GET", "POST", "PUT", "HEAD", "OPTIONS", "DELETE", "PATCH", "CONNECT", "TRACE",
    ];
    METHODS.contains(&first) && text.split_whitespace().any(|w| w.starts_with("HTTP/"))
}

#[cfg(test)]
mod http_tests {
    use super::looks_like_http;

    #[test]
    fn http_lines_are_told_from_requests() {
        for http in [
            &b"POST / HTTP/1.1"[..],
            b"GET /?token=x HTTP/1.0",
            b"Host: 127.0.0.1:7070",
            b"Origin: http://evil.example",
            b"Content-Type: text/plain",
            b"content-length: 30",
        ] {
            assert!(looks_like_http(http), "{}", String::from_utf8_lossy(http));
        }
        for request in [
            &b"auth s3cret"[..],
            b"tag event Club: final",
            b"move e4",
            b"get",
            b"",
            b"help",
        ] {
            assert!(
                !looks_like_http(request),
                "{}",
                String::from_utf8_lossy(request)
            );
        }
    }
}
