//! The request vocabulary, declared once: every request's keyword, an example of it, who may
//! send it, who answers it and the function that reads its arguments. `help`'s list, the parser's
//! dispatch, each request's keyword and the role checks (`permissions`) all come from
//! [`REQUESTS`]; tests check that every example parses to its own keyword and answerer, and that
//! `docs/control-protocol.md` lists every keyword under its answerer.

use std::fmt;

use super::arguments::{self as a, Args, Parsed, truncate};
use super::refusal::{ErrorCode, Refusal};
use super::request::{ConnectionRequest, DeskRequest, Request, TableRequest};
use annabella_chess::language::Language;

/// Longest request line accepted; a move in any notation is far shorter.
pub const MAX_LINE_BYTES: usize = 512;

/// Who may send a request (the token's role); a player's side is the table's to check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone, an observer too: the request only reads, or is about the connection.
    Anyone,
    /// Anyone but an observer (the players, the assistant, the arbiter): it changes the game.
    Players,
    /// The arbiter alone: decisions about the clocks and the game.
    Arbiter,
}

/// Who answers a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answerer {
    /// The connection itself (the control session).
    Connection,
    /// The correspondence desk.
    Desk,
    /// The connection's table.
    Table,
}

/// One request, declared.
#[derive(Debug)]
pub struct RequestSpec {
    /// As typed (case does not matter).
    pub keyword: &'static str,
    /// Whole request lines, one for each form it takes; each parses (tested).
    pub examples: &'static [&'static str],
    pub access: Access,
    pub answerer: Answerer,
    /// Reads the rest of the line.
    pub parse: fn(&Args<'_>) -> Parsed,
}

const fn spec(
    keyword: &'static str,
    examples: &'static [&'static str],
    access: Access,
    answerer: Answerer,
    parse: fn(&Args<'_>) -> Parsed,
) -> RequestSpec {
    RequestSpec {
        keyword,
        examples,
        access,
        answerer,
        parse,
    }
}

use Access::{Anyone, Arbiter, Players};
use Answerer::{Connection, Desk, Table};

static AUTH: RequestSpec = spec("auth", &["auth s3cret"], Anyone, Connection, a::auth);
static TABLE: RequestSpec = spec("table", &["table table-1"], Anyone, Connection, a::table);
static TABLES: RequestSpec = spec("tables", &["tables"], Anyone, Connection, a::tables);
static LANG: RequestSpec = spec("lang", &["lang es"], Anyone, Connection, a::lang);
static MOVE: RequestSpec = spec("move", &["move 5254"], Players, Table, a::move_);
static PROMOTE: RequestSpec = spec("promote", &["promote q"], Players, Table, a::promote);
static BOARD: RequestSpec = spec("board", &["board", "board 12"], Anyone, Table, a::board);
static BOARDS: RequestSpec = spec("boards", &["boards"], Anyone, Table, a::boards);
static CLOCK: RequestSpec = spec("clock", &["clock", "clock quiet"], Anyone, Table, a::clock);
static SHEET: RequestSpec = spec("sheet", &["sheet", "sheet a"], Anyone, Table, a::sheet);
static STATUS: RequestSpec = spec("status", &["status"], Anyone, Table, a::status);
static VIEW: RequestSpec = spec("view", &["view"], Anyone, Table, a::view);
static PARSE: RequestSpec = spec("parse", &["parse Sf3"], Anyone, Table, a::parse);
static EXPORT: RequestSpec = spec("export", &["export pgn"], Anyone, Table, a::export);
static FOCUS: RequestSpec = spec("focus", &["focus bca-7"], Players, Desk, a::focus);
static GAMES: RequestSpec = spec("games", &["games"], Anyone, Desk, a::games);
static MAIL: RequestSpec = spec(
    "mail",
    &[
        "mail held",
        "mail accept 3",
        "mail accept",
        "mail retry",
        "mail resend bca-7",
    ],
    Players,
    Desk,
    a::mail,
);
static LEAVE: RequestSpec = spec(
    "leave",
    &["leave white 2026-12-20 2027-01-05"],
    Players,
    Table,
    a::leave,
);
static OFFER_DRAW: RequestSpec = spec("offer-draw", &["offer-draw"], Players, Table, a::offer_draw);
static CLAIM_DRAW: RequestSpec = spec(
    "claim-draw",
    &["claim-draw", "claim-draw Nf3"],
    Players,
    Table,
    a::claim_draw,
);
static RESIGN: RequestSpec = spec("resign", &["resign"], Players, Table, a::resign);
static SEND: RequestSpec = spec("send", &["send"], Players, Table, a::send);
static MESSAGE: RequestSpec = spec("message", &["message"], Anyone, Table, a::message);
static MY_MESSAGE: RequestSpec = spec(
    "my-message",
    &["my-message Thank you for the game"],
    Players,
    Table,
    a::my_message,
);
static COMMENT: RequestSpec = spec(
    "comment",
    &["comment Thanks, a nice opening"],
    Arbiter,
    Table,
    a::comment,
);
static CLAIM_TIME: RequestSpec = spec("claim-time", &["claim-time"], Players, Table, a::claim_time);
static UNDO: RequestSpec = spec("undo", &["undo"], Players, Table, a::undo);
static SEEK: RequestSpec = spec(
    "seek",
    &["seek 15+10", "seek 30+20 rated", "seek cancel"],
    Players,
    Table,
    a::seek,
);
static CHALLENGE: RequestSpec = spec(
    "challenge",
    &["challenge bob 30+20"],
    Players,
    Table,
    a::challenge,
);
static RECORD: RequestSpec = spec(
    "record",
    &["record b 1. e4 e5 2. Nf3"],
    Players,
    Table,
    a::record,
);
static CONFIRM: RequestSpec = spec("confirm", &["confirm a"], Players, Table, a::confirm);
static DISPUTE: RequestSpec = spec("dispute", &["dispute b"], Players, Table, a::dispute);
static RESOLVE: RequestSpec = spec(
    "resolve",
    &["resolve confirm", "resolve override 4", "resolve reject"],
    Arbiter,
    Table,
    a::resolve,
);
static ADJUST: RequestSpec = spec("adjust", &["adjust white +120"], Arbiter, Table, a::adjust);
static PENALTY: RequestSpec = spec("penalty", &["penalty black"], Arbiter, Table, a::penalty);
static RESULT: RequestSpec = spec("result", &["result 1-0"], Arbiter, Table, a::result);
static PAUSE: RequestSpec = spec("pause", &["pause"], Arbiter, Table, a::pause);
static RESUME: RequestSpec = spec("resume", &["resume"], Arbiter, Table, a::resume);
static NEW_GAME: RequestSpec = spec(
    "new-game",
    &[
        "new-game",
        "new-game fen 8/8/8/4k3/8/8/8/4K2R w K - 0 1",
        "new-game game_id BCA-8",
    ],
    Arbiter,
    Table,
    a::new_game,
);
static TAG: RequestSpec = spec("tag", &["tag white Anna Müller"], Players, Table, a::tag);
static AUDIO_DEVICES: RequestSpec = spec(
    "audio-devices",
    &["audio-devices"],
    Players,
    Connection,
    a::audio_devices,
);
static AUDIO_DEVICE: RequestSpec = spec(
    "audio-device",
    &[
        "audio-device blind plughw:CARD=Headphones,DEV=0",
        "audio-device 2 default",
    ],
    Arbiter,
    Connection,
    a::audio_device,
);
static BROADCAST: RequestSpec = spec(
    "broadcast",
    &["broadcast"],
    Arbiter,
    Connection,
    a::broadcast,
);
static EVENTS: RequestSpec = spec("events", &["events"], Anyone, Connection, a::events);
static HELP: RequestSpec = spec("help", &["help"], Anyone, Connection, a::help);
static QUIT: RequestSpec = spec("quit", &["quit"], Anyone, Connection, a::quit);

/// Every request, in the order `help` lists them.
pub static REQUESTS: [&RequestSpec; 46] = [
    &AUTH,
    &TABLE,
    &TABLES,
    &LANG,
    &MOVE,
    &PROMOTE,
    &BOARD,
    &BOARDS,
    &CLOCK,
    &SHEET,
    &STATUS,
    &VIEW,
    &PARSE,
    &EXPORT,
    &FOCUS,
    &GAMES,
    &MAIL,
    &LEAVE,
    &OFFER_DRAW,
    &CLAIM_DRAW,
    &RESIGN,
    &CLAIM_TIME,
    &SEND,
    &MESSAGE,
    &COMMENT,
    &MY_MESSAGE,
    &UNDO,
    &SEEK,
    &CHALLENGE,
    &RECORD,
    &CONFIRM,
    &DISPUTE,
    &RESOLVE,
    &ADJUST,
    &PENALTY,
    &RESULT,
    &PAUSE,
    &RESUME,
    &NEW_GAME,
    &TAG,
    &AUDIO_DEVICES,
    &AUDIO_DEVICE,
    &BROADCAST,
    &EVENTS,
    &HELP,
    &QUIT,
];

/// Every request keyword, in the order `help` lists them, separated by commas: written as
/// `{KEYWORDS}`.
#[derive(Debug, Clone, Copy)]
pub struct Keywords;

pub const KEYWORDS: Keywords = Keywords;

impl fmt::Display for Keywords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, spec) in REQUESTS.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(spec.keyword)?;
        }
        Ok(())
    }
}

impl Request {
    /// The request's declaration.
    pub fn spec(&self) -> &'static RequestSpec {
        match self {
            Request::Connection(r) => r.spec(),
            Request::Desk(r) => r.spec(),
            Request::Table(r) => r.spec(),
        }
    }

    /// The request's keyword, as typed.
    pub fn keyword(&self) -> &'static str {
        self.spec().keyword
    }

    /// Who answers it, as its type says.
    pub fn answerer(&self) -> Answerer {
        match self {
            Request::Connection(_) => Answerer::Connection,
            Request::Desk(_) => Answerer::Desk,
            Request::Table(_) => Answerer::Table,
        }
    }
}

impl ConnectionRequest {
    /// The request's declaration.
    pub fn spec(&self) -> &'static RequestSpec {
        match self {
            ConnectionRequest::Auth { .. } => &AUTH,
            ConnectionRequest::Events => &EVENTS,
            ConnectionRequest::Lang { .. } => &LANG,
            ConnectionRequest::Table { .. } => &TABLE,
            ConnectionRequest::Tables => &TABLES,
            ConnectionRequest::AudioDevices => &AUDIO_DEVICES,
            ConnectionRequest::AudioDevice { .. } => &AUDIO_DEVICE,
            ConnectionRequest::Broadcast => &BROADCAST,
            ConnectionRequest::Help => &HELP,
            ConnectionRequest::Quit => &QUIT,
        }
    }

    /// The request's keyword, as typed.
    pub fn keyword(&self) -> &'static str {
        self.spec().keyword
    }
}

impl DeskRequest {
    /// The request's declaration.
    pub fn spec(&self) -> &'static RequestSpec {
        match self {
            DeskRequest::Focus { .. } => &FOCUS,
            DeskRequest::Games => &GAMES,
            DeskRequest::Mail(_) => &MAIL,
        }
    }

    /// The request's keyword, as typed.
    pub fn keyword(&self) -> &'static str {
        self.spec().keyword
    }
}

impl TableRequest {
    /// The request's declaration.
    pub fn spec(&self) -> &'static RequestSpec {
        use TableRequest as T;
        match self {
            T::Move { .. } | T::MailMove { .. } => &MOVE,
            T::Board | T::BoardAt { .. } => &BOARD,
            T::Clock | T::ClockQuiet => &CLOCK,
            T::Sheet | T::SheetOf { .. } => &SHEET,
            T::Status => &STATUS,
            T::OfferDraw => &OFFER_DRAW,
            T::ClaimDraw { .. } => &CLAIM_DRAW,
            T::Resign => &RESIGN,
            T::Undo => &UNDO,
            T::Send => &SEND,
            T::Message => &MESSAGE,
            T::Comment { .. } => &COMMENT,
            T::MyMessage { .. } => &MY_MESSAGE,
            T::ClaimTime => &CLAIM_TIME,
            T::View => &VIEW,
            T::Leave { .. } => &LEAVE,
            T::Promote { .. } => &PROMOTE,
            T::Parse { .. } => &PARSE,
            T::Export { .. } => &EXPORT,
            T::Adjust { .. } => &ADJUST,
            T::Penalty { .. } => &PENALTY,
            T::Result { .. } => &RESULT,
            T::Boards => &BOARDS,
            T::Record { .. } => &RECORD,
            T::Confirm { .. } => &CONFIRM,
            T::Dispute { .. } => &DISPUTE,
            T::Resolve { .. } => &RESOLVE,
            T::NewGame { .. } => &NEW_GAME,
            T::Seek { .. } | T::CancelSeek => &SEEK,
            T::Challenge { .. } => &CHALLENGE,
            T::Tag { .. } => &TAG,
            T::Pause => &PAUSE,
            T::Resume => &RESUME,
        }
    }

    /// The request's keyword, as typed.
    pub fn keyword(&self) -> &'static str {
        self.spec().keyword
    }
}

/// Parses one request line (without its line feed; a trailing CR is ignored), reading piece
/// names in English; see [`parse_line_in`].
pub fn parse_line(bytes: &[u8]) -> Result<Request, Refusal> {
    parse_line_in(bytes, Language::english())
}

/// Parses one request line; `promote` piece names are read in `lang` (and in English).
pub fn parse_line_in(bytes: &[u8], lang: &Language) -> Result<Request, Refusal> {
    if bytes.len() > MAX_LINE_BYTES {
        return Err(Refusal::new(
            ErrorCode::Syntax,
            format!("line of {} bytes; at most {MAX_LINE_BYTES}", bytes.len()),
        ));
    }
    let line = std::str::from_utf8(bytes).map_err(|e| {
        Refusal::new(
            ErrorCode::Syntax,
            format!("not UTF-8 text (bad byte at offset {})", e.valid_up_to()),
        )
    })?;
    let line = line.trim_end_matches('\r').trim();
    let (keyword, rest) = match line.split_once(char::is_whitespace) {
        Some((k, r)) => (k, r.trim()),
        None => (line, ""),
    };
    if keyword.is_empty() {
        return Err(Refusal::new(ErrorCode::Syntax, "empty line; try help"));
    }
    match REQUESTS
        .iter()
        .find(|spec| spec.keyword.eq_ignore_ascii_case(keyword))
    {
        Some(spec) => (spec.parse)(&Args {
            keyword,
            rest,
            lang,
        }),
        None => Err(Refusal::new(
            ErrorCode::Syntax,
            format!(
                "unknown request {:?}; one of {KEYWORDS}",
                truncate(keyword, 40)
            ),
        )),
    }
}

/// Parses a line meant for a table, for whatever hands lines to a table directly (its tests, a
/// replay); a request the connection or the desk answers is refused, since no table does.
pub fn parse_table_line(bytes: &[u8]) -> Result<TableRequest, Refusal> {
    match parse_line(bytes)? {
        Request::Table(request) => Ok(request),
        Request::Connection(request) => Err(Refusal::new(
            ErrorCode::Syntax,
            format!(
                "{} is answered by the connection, not the table",
                request.keyword()
            ),
        )),
        Request::Desk(request) => Err(Refusal::new(
            ErrorCode::State,
            format!(
                "{} is answered by the correspondence desk, not a table",
                request.keyword()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::request::ConnectionRequest as C;
    use crate::control::request::TableRequest as T;
    use shakmaty::Role as Piece;

    fn check(line: &str, expected: Result<Request, &str>) {
        let got = parse_line(line.as_bytes()).map_err(|r| r.line());
        match (&got, &expected) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{line:?}"),
            (Err(a), Err(b)) => assert!(a.starts_with(b), "{line:?}: {a} (want {b}…)"),
            _ => panic!("{line:?}: got {got:?}, want {expected:?}"),
        }
    }

    fn table(request: TableRequest) -> Result<Request, &'static str> {
        Ok(Request::Table(request))
    }

    #[test]
    fn seek_and_challenge_read_a_control_and_a_user() {
        let c = |s: &str| s.parse().unwrap();
        check(
            "seek 15+10",
            table(T::Seek {
                control: c("15+10"),
                rated: false,
            }),
        );
        check(
            "SEEK 30+20 Rated",
            table(T::Seek {
                control: c("30+20"),
                rated: true,
            }),
        );
        check(
            "challenge bob_2 30+20",
            table(T::Challenge {
                user: "bob_2".into(),
                control: c("30+20"),
            }),
        );
        // The speed is the lichess table's to judge (aloud); only the words are read here.
        assert!(parse_line(b"seek 1+0").is_ok());
        for bad in [
            "seek",
            "seek 15",
            "seek 15+10 often",
            "challenge bob",
            "challenge b 5+3",
        ] {
            check(bad, Err("error syntax"));
        }
        check(
            "challenge bob!x 5+3",
            Err("error syntax challenge: \"bob!x\""),
        );
    }

    fn connection(request: ConnectionRequest) -> Result<Request, &'static str> {
        Ok(Request::Connection(request))
    }

    #[test]
    fn requests() {
        check(
            "auth s3cret",
            connection(C::Auth {
                token: "s3cret".into(),
            }),
        );
        check(
            "move 5254",
            table(T::Move {
                text: "5254".into(),
            }),
        );
        check(
            "move Springer Felix drei\r",
            table(T::Move {
                text: "Springer Felix drei".into(),
            }),
        );
        check("MOVE e4", table(T::Move { text: "e4".into() }));
        check("  board  ", table(T::Board));
        check("board 12", table(T::BoardAt { ply: 12 }));
        check(
            "board e4",
            Err("error syntax board takes a number of half-moves (board 12), not \"e4\""),
        );
        check(
            "board -1",
            Err("error syntax board takes a number of half-moves"),
        );
        check("clock quiet", table(T::ClockQuiet));
        check(
            "clock loud",
            Err("error syntax clock takes nothing or quiet"),
        );
        check("claim-draw", table(T::ClaimDraw { intended: None }));
        check(
            "claim-draw Nf3",
            table(T::ClaimDraw {
                intended: Some("Nf3".into()),
            }),
        );
        check("lang es", connection(C::Lang { code: "es".into() }));
        check("events", connection(C::Events));
        check(
            "export BRF",
            table(T::Export {
                format: crate::control::ExportFormat::Brf,
            }),
        );
        check(
            "export docx",
            Err("error syntax no export format \"docx\"; pgn, iccf, braille or brf"),
        );
    }

    #[test]
    fn new_game_takes_a_game_id_and_mail_its_two_requests() {
        use crate::control::request::{DeskRequest as D, GameTag, MailRequest};
        check(
            "new-game game_id BCA-8",
            table(T::NewGame {
                fen: None,
                game_id: Some("BCA-8".into()),
            }),
        );
        check(
            "new-game game_id ICCF/2#3 fen 8/8/8/4k3/8/8/8/4K2R w K - 0 1",
            table(T::NewGame {
                fen: Some("8/8/8/4k3/8/8/8/4K2R w K - 0 1".into()),
                game_id: Some("ICCF/2#3".into()),
            }),
        );
        check(
            "new-game game_id",
            Err("error syntax new-game [game_id ID]"),
        );
        check(
            "new-game game_id -x",
            Err("error syntax new-game [game_id ID]"),
        );
        check("new-game chess", Err("error syntax new-game [game_id ID]"));
        check("mail retry", Ok(Request::Desk(D::Mail(MailRequest::Retry))));
        check(
            "mail resend bca-7",
            Ok(Request::Desk(D::Mail(MailRequest::Resend {
                table: "bca-7".into(),
            }))),
        );
        check("mail held", Ok(Request::Desk(D::Mail(MailRequest::Held))));
        check(
            "MAIL accept 3",
            Ok(Request::Desk(D::Mail(MailRequest::Accept { id: Some(3) }))),
        );
        check("mail accept 0", Err("error syntax mail accept takes"));
        check(
            "mail accept",
            Ok(Request::Desk(D::Mail(MailRequest::Accept { id: None }))),
        );
        check("mail resend", Err("error syntax mail takes"));
        check("mail send", Err("error syntax mail takes"));
        // The game id is the journal's tag, not one `tag` sets.
        check("tag game_id BCA-9", Err("error syntax tag white|black"));
        assert_eq!(GameTag::parse_recorded("game_id"), Some(GameTag::GameId));
    }

    #[test]
    fn malformed_requests_say_what_is_wrong() {
        check("", Err("error syntax empty line"));
        check("move", Err("error syntax move needs a move"));
        check("auth", Err("error syntax auth needs a token"));
        check("resign now", Err("error syntax resign takes no argument"));
        check("castle", Err("error syntax unknown request \"castle\""));
        check(
            &"x".repeat(MAX_LINE_BYTES + 1),
            Err("error syntax line of 513 bytes"),
        );
        assert!(
            parse_line(b"move \xff\xfe")
                .unwrap_err()
                .line()
                .starts_with("error syntax not UTF-8")
        );
    }

    #[test]
    fn connection_requests_and_promotion() {
        check(
            "table table-2",
            connection(C::Table {
                name: "table-2".into(),
            }),
        );
        check("tables", connection(C::Tables));
        check("broadcast", connection(C::Broadcast));
        check(
            "broadcast now",
            Err("error syntax broadcast takes no argument"),
        );
        check("table", Err("error syntax table needs a table name"));
        check("tables all", Err("error syntax tables takes no argument"));
        check(
            "audio-device opponent hw:CARD=Device,DEV=0",
            connection(C::AudioDevice {
                output: "opponent".into(),
                device: "hw:CARD=Device,DEV=0".into(),
            }),
        );
        check(
            "audio-device blind",
            Err("error syntax audio-device needs an output"),
        );
        check(
            "promote q",
            table(T::Promote {
                piece: Piece::Queen,
            }),
        );
        check(
            "promote N",
            table(T::Promote {
                piece: Piece::Knight,
            }),
        );
        check("promote Rook", table(T::Promote { piece: Piece::Rook }));
        check("promote", Err("error syntax promote needs a piece"));
        check(
            "promote king",
            Err("error syntax a pawn promotes to a queen, rook, bishop or knight, not to a king"),
        );
        check(
            "promote zebra",
            Err("error syntax promote \"zebra\": q, r, b or n"),
        );
        let german = Language::builtin("de").unwrap();
        let spanish = Language::builtin("es").unwrap();
        let promote = |text: &str, lang: &Language| match parse_line_in(text.as_bytes(), lang) {
            Ok(Request::Table(T::Promote { piece })) => Ok(piece),
            other => Err(format!("{other:?}")),
        };
        assert_eq!(promote("promote Dame", german), Ok(Piece::Queen));
        assert_eq!(promote("promote springer", german), Ok(Piece::Knight));
        // The UCI letters hold in every language: Spanish R is a king in SAN, r a rook here.
        assert_eq!(promote("promote r", spanish), Ok(Piece::Rook));
        assert_eq!(promote("promote queen", spanish), Ok(Piece::Queen));
        // German names are not read on an English connection.
        assert!(promote("promote Dame", Language::english()).is_err());
        for line in ["tables", "help", "events", "auth x", "lang de", "quit"] {
            let request = parse_line(line.as_bytes()).unwrap();
            assert_eq!(request.answerer(), Answerer::Connection, "{line}");
        }
        for line in ["focus bca-7", "games"] {
            let request = parse_line(line.as_bytes()).unwrap();
            assert_eq!(request.answerer(), Answerer::Desk, "{line}");
        }
        assert_eq!(T::Board.spec().answerer, Answerer::Table);
        assert_eq!(
            T::Promote {
                piece: Piece::Queen
            }
            .spec()
            .access,
            Access::Players
        );
    }

    /// Each example parses into a request of its own keyword and answerer: the declaration, the
    /// parse function and the request's type agree.
    #[test]
    fn every_example_parses_as_declared() {
        for spec in REQUESTS {
            assert!(!spec.examples.is_empty(), "{}", spec.keyword);
            for example in spec.examples {
                let request = parse_line(example.as_bytes())
                    .unwrap_or_else(|r| panic!("{example:?}: {}", r.line()));
                assert_eq!(request.keyword(), spec.keyword, "{example:?}");
                assert_eq!(request.answerer(), spec.answerer, "{example:?}");
                assert_eq!(request.spec().access, spec.access, "{example:?}");
                let upper = example.replacen(spec.keyword, &spec.keyword.to_uppercase(), 1);
                assert_eq!(parse_line(upper.as_bytes()), Ok(request), "{upper:?}");
            }
        }
    }

    /// `help` names every request the parser accepts, each once; the parser accepts each.
    #[test]
    fn help_names_every_request() {
        let listed = KEYWORDS.to_string();
        let listed: Vec<&str> = listed.split(", ").collect();
        assert_eq!(listed.len(), REQUESTS.len());
        for spec in REQUESTS {
            assert_eq!(
                listed.iter().filter(|k| **k == spec.keyword).count(),
                1,
                "{}",
                spec.keyword
            );
        }
        assert!(listed.contains(&"result"));
        for keyword in listed {
            let refused = parse_line(keyword.as_bytes()).err();
            assert!(
                !refused.is_some_and(|r| r.message.starts_with("unknown request")),
                "{keyword}"
            );
        }
    }

    #[test]
    fn only_table_requests_reach_a_table() {
        assert_eq!(parse_table_line(b"undo"), Ok(T::Undo));
        assert_eq!(
            parse_table_line(b"tables").unwrap_err().line(),
            "error syntax tables is answered by the connection, not the table"
        );
        assert_eq!(
            parse_table_line(b"games").unwrap_err().code,
            ErrorCode::State
        );
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for len in 0..2000 {
            let bytes: Vec<u8> = (0..len % 600)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    (seed >> 32) as u8
                })
                .collect();
            let _ = parse_line(&bytes).map_err(|r| r.line());
        }
    }
}
