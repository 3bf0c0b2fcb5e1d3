//! The control session's tests: its conversation, line by line, without sockets or a clock.

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
            command: TableRequest::Move { text: "e4".into() },
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
            command: TableRequest::Promote {
                piece: shakmaty::Role::Queen
            },
        })
    );
    assert_eq!(reply(&mut s, "table table-2"), "ok table table-2");
    match send(&mut s, "board") {
        Action::Ask(ask) => {
            assert_eq!(&*ask.table, "table-2");
            assert_eq!(ask.command, TableRequest::Board);
        }
        other => panic!("{other:?}"),
    }
    // Only built-in languages: a network client never makes the daemon read a file.
    assert!(
        reply(&mut s, "lang ../../etc/passwd")
            .starts_with("error syntax no built-in language \"../../etc/passwd\"; one of de, en")
    );
    assert_eq!(s.lang().code(), "de");
}

#[test]
fn desk_requests_are_asked_of_the_desk_and_never_of_a_table() {
    let mut s = authenticated(WHITE);
    assert_eq!(
        send(&mut s, "focus bca-7"),
        Action::AskDesk(Ask {
            table: Arc::from("table-1"),
            role: Role::Player(Color::White),
            lang: Language::english(),
            command: DeskRequest::Focus {
                table: "bca-7".into()
            },
        })
    );
    assert!(matches!(send(&mut s, "games"), Action::AskDesk(_)));
    let mut observer = authenticated(OBSERVER);
    assert!(matches!(send(&mut observer, "games"), Action::AskDesk(_)));
    assert_eq!(
        reply(&mut observer, "focus bca-7"),
        "error forbidden an observer may only read; focus changes the game"
    );
    assert_eq!(
        no_desk(&DeskRequest::Games),
        "error state games is answered by the correspondence desk, and this daemon has no \
         correspondence table"
    );
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
        "error state table table-1 has not answered within 60 s; whether the request was \
         recorded is not known yet: ask sheet or status"
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
        "error rate more than 1 requests a second (bursts of 3); request ignored, slow down".into(),
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
            Action::Ask(_) | Action::AskDesk(_) | Action::Audio(_) | Action::Broadcast => {}
        }
    }
}
