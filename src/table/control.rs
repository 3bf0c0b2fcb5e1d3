//! The control interface's language, without the socket: request lines parsed into commands,
//! roles and what each may do, and the reply lines (`ok …`, `error <code> <message>`).
//!
//! Assistants, arbiters and correspondence players type these lines (with `nc`, or through
//! `annabella send`); a malformed line gets an error reply naming what was wrong, never a crash.

use std::fmt;
use std::str::FromStr;

use shakmaty::Color;

/// Longest request line accepted; a move in any notation is far shorter.
pub const MAX_LINE_BYTES: usize = 512;

/// Who is connected, as the token says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The player of one colour (moves only for his own side).
    Player(Color),
    /// The blind player's assistant (FIDE D.2.10): relays moves of both sides.
    Assistant,
    /// The arbiter: everything, including decisions about the clocks and the game.
    Arbiter,
    /// Reads only.
    Observer,
}

impl FromStr for Role {
    type Err = String;

    fn from_str(s: &str) -> Result<Role, String> {
        match s {
            "white" => Ok(Role::Player(Color::White)),
            "black" => Ok(Role::Player(Color::Black)),
            "assistant" => Ok(Role::Assistant),
            "arbiter" => Ok(Role::Arbiter),
            "observer" => Ok(Role::Observer),
            _ => Err(format!(
                "unknown role {s:?}; white, black, assistant, arbiter or observer"
            )),
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Player(Color::White) => "white",
            Role::Player(Color::Black) => "black",
            Role::Assistant => "assistant",
            Role::Arbiter => "arbiter",
            Role::Observer => "observer",
        })
    }
}

/// One request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Auth {
        token: String,
    },
    /// A move in any notation of the core, read in the connection's language.
    Move {
        text: String,
    },
    Board,
    Clock,
    Sheet,
    Status,
    OfferDraw,
    /// A draw claim, optionally with the move the claimant writes (FIDE 9.2, 9.3).
    ClaimDraw {
        intended: Option<String>,
    },
    Resign,
    /// A slip of the tongue corrected before the opponent's clock started (D.2.8).
    Undo,
    /// Subscribe to everything that happens, one line per event.
    Events,
    /// The connection's language for SAN input and spoken words.
    Lang {
        code: String,
    },
    /// Reads a move without playing it: what the table would understand (a preview).
    Parse {
        text: String,
    },
    /// The game so far in a format: pgn, iccf, braille (Unicode) or brf; the reply carries the
    /// text as one JSON string.
    Export {
        format: String,
    },
    /// The arbiter changes a clock by `delta_ms` (7.1, after an irregularity).
    Adjust {
        color: Color,
        delta_ms: i64,
    },
    /// The arbiter rules that `color` completed an illegal move (7.5.5): the first time the
    /// opponent gets two minutes (one in rapid), the second time `color` loses.
    Penalty {
        color: Color,
    },
    /// The arbiter stops the clocks (6.11.1).
    Pause,
    /// The arbiter restarts them.
    Resume,
    /// The piece for a pending promotion on the peg board (q, r, b, n or the piece's name).
    Promote {
        piece: String,
    },
    /// Talk to this table from now on.
    Table {
        name: String,
    },
    /// The tables this token may see.
    Tables,
    Help,
    Quit,
}

impl Command {
    /// The request's keyword, as typed.
    pub fn keyword(&self) -> &'static str {
        match self {
            Command::Auth { .. } => "auth",
            Command::Move { .. } => "move",
            Command::Board => "board",
            Command::Clock => "clock",
            Command::Sheet => "sheet",
            Command::Status => "status",
            Command::OfferDraw => "offer-draw",
            Command::ClaimDraw { .. } => "claim-draw",
            Command::Resign => "resign",
            Command::Undo => "undo",
            Command::Events => "events",
            Command::Lang { .. } => "lang",
            Command::Adjust { .. } => "adjust",
            Command::Penalty { .. } => "penalty",
            Command::Pause => "pause",
            Command::Resume => "resume",
            Command::Parse { .. } => "parse",
            Command::Export { .. } => "export",
            Command::Promote { .. } => "promote",
            Command::Table { .. } => "table",
            Command::Tables => "tables",
            Command::Help => "help",
            Command::Quit => "quit",
        }
    }

    /// Whether only the arbiter may send this (decisions about the clocks and the game).
    pub fn arbiter_only(&self) -> bool {
        matches!(
            self,
            Command::Adjust { .. } | Command::Penalty { .. } | Command::Pause | Command::Resume
        )
    }

    /// Whether this command only reads (an observer may send it).
    pub fn reads_only(&self) -> bool {
        matches!(
            self,
            Command::Auth { .. }
                | Command::Board
                | Command::Clock
                | Command::Sheet
                | Command::Status
                | Command::Events
                | Command::Lang { .. }
                | Command::Parse { .. }
                | Command::Export { .. }
                | Command::Table { .. }
                | Command::Tables
                | Command::Help
                | Command::Quit
        )
    }
}

/// Why a request is refused; the code is the reply's second word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorCode {
    /// The line is not a request (unknown keyword, missing argument, too long, not UTF-8).
    Syntax,
    /// No `auth` yet, or a wrong token.
    Auth,
    /// The role may not do this (an observer moving, a player moving the other side).
    Forbidden,
    /// The move names no legal move (illegal, ambiguous, malformed).
    Move,
    /// Not now (game over, not this side's turn, undo after the clock started).
    State,
    /// Too many requests too fast.
    Rate,
}

impl ErrorCode {
    pub fn as_str(&self) -> &'static str {
        match self {
            ErrorCode::Syntax => "syntax",
            ErrorCode::Auth => "auth",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::Move => "move",
            ErrorCode::State => "state",
            ErrorCode::Rate => "rate",
        }
    }
}

/// A refused request: `error <code> <message>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: ErrorCode,
    pub message: String,
}

impl Refusal {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
        }
    }

    /// The reply line, without its line feed; the message never contains one.
    pub fn line(&self) -> String {
        format!("error {} {}", self.code.as_str(), one_line(&self.message))
    }
}

/// A successful reply line: `ok` and what it says.
pub fn ok_line(text: &str) -> String {
    if text.is_empty() {
        "ok".to_owned()
    } else {
        format!("ok {}", one_line(text))
    }
}

/// Replies are one line each: control characters (a newline in a move text echoed back, say)
/// become spaces.
/// `text` with control characters (newlines above all) turned into spaces: one reply line.
pub fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Parses one request line (without its line feed; a trailing CR is ignored).
pub fn parse_line(bytes: &[u8]) -> Result<Command, Refusal> {
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
    let needs = |what: &str| -> Result<String, Refusal> {
        if rest.is_empty() {
            Err(Refusal::new(
                ErrorCode::Syntax,
                format!("{keyword} needs {what}"),
            ))
        } else {
            Ok(rest.to_owned())
        }
    };
    let no_argument = |command: Command| -> Result<Command, Refusal> {
        if rest.is_empty() {
            Ok(command)
        } else {
            Err(Refusal::new(
                ErrorCode::Syntax,
                format!("{keyword} takes no argument, not {rest:?}"),
            ))
        }
    };
    match keyword.to_ascii_lowercase().as_str() {
        "" => Err(Refusal::new(ErrorCode::Syntax, "empty line; try help")),
        "auth" => Ok(Command::Auth {
            token: needs("a token")?,
        }),
        "move" => Ok(Command::Move {
            text: needs("a move in any notation, e.g. move 5254")?,
        }),
        "board" => no_argument(Command::Board),
        "clock" => no_argument(Command::Clock),
        "sheet" => no_argument(Command::Sheet),
        "status" => no_argument(Command::Status),
        "offer-draw" => no_argument(Command::OfferDraw),
        "claim-draw" => Ok(Command::ClaimDraw {
            intended: (!rest.is_empty()).then(|| rest.to_owned()),
        }),
        "resign" => no_argument(Command::Resign),
        "undo" => no_argument(Command::Undo),
        "events" => no_argument(Command::Events),
        "lang" => Ok(Command::Lang {
            code: needs("a language code, e.g. lang es")?,
        }),
        "adjust" => {
            let usage = "adjust needs a colour and seconds, e.g. adjust white +120";
            let mut words = rest.split_whitespace();
            let (Some(c), Some(secs), None) = (words.next(), words.next(), words.next()) else {
                return Err(Refusal::new(ErrorCode::Syntax, usage));
            };
            let color = parse_color(c).ok_or_else(|| Refusal::new(ErrorCode::Syntax, usage))?;
            let seconds: i64 = secs
                .trim_start_matches('+')
                .parse()
                .ok()
                .filter(|s: &i64| s.unsigned_abs() <= 86_400)
                .ok_or_else(|| {
                    Refusal::new(
                        ErrorCode::Syntax,
                        format!("{secs:?} is no number of seconds from -86400 to +86400"),
                    )
                })?;
            Ok(Command::Adjust {
                color,
                delta_ms: seconds * 1000,
            })
        }
        "penalty" => {
            let c = needs("a colour, e.g. penalty black")?;
            let color = parse_color(&c)
                .ok_or_else(|| Refusal::new(ErrorCode::Syntax, format!("{c:?}: white or black")))?;
            Ok(Command::Penalty { color })
        }
        "pause" => no_argument(Command::Pause),
        "resume" => no_argument(Command::Resume),
        "parse" => Ok(Command::Parse {
            text: needs("a move in any notation, e.g. parse Sf3")?,
        }),
        "export" => Ok(Command::Export {
            format: needs("a format: pgn, iccf, braille or brf")?,
        }),
        "promote" => Ok(Command::Promote {
            piece: needs("a piece, e.g. promote q")?,
        }),
        "table" => Ok(Command::Table {
            name: needs("a table name, e.g. table table-1")?,
        }),
        "tables" => no_argument(Command::Tables),
        "help" => no_argument(Command::Help),
        "quit" => no_argument(Command::Quit),
        _ => Err(Refusal::new(
            ErrorCode::Syntax,
            format!(
                "unknown request {:?}; one of auth, move, board, clock, sheet, status, offer-draw, \
                 claim-draw, resign, undo, promote, parse, export, adjust, penalty, pause, resume, \
                 events, lang, table, tables, help, quit",
                truncate(keyword, 40)
            ),
        )),
    }
}

fn parse_color(text: &str) -> Option<Color> {
    match text.to_ascii_lowercase().as_str() {
        "white" | "w" => Some(Color::White),
        "black" | "b" => Some(Color::Black),
        _ => None,
    }
}

fn truncate(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

/// Whether `role` may send `command` when `side_to_move` is to move. Moves are further
/// checked by the table (legality); this is only who may ask.
pub fn permitted(role: Role, command: &Command, side_to_move: Color) -> Result<(), Refusal> {
    if command.reads_only() {
        return Ok(());
    }
    if command.arbiter_only() && role != Role::Arbiter {
        return Err(Refusal::new(
            ErrorCode::Forbidden,
            format!("only the arbiter may {}; you are {role}", command.keyword()),
        ));
    }
    match role {
        Role::Observer => Err(Refusal::new(
            ErrorCode::Forbidden,
            format!(
                "an observer may only read; {} changes the game",
                command.keyword()
            ),
        )),
        Role::Arbiter | Role::Assistant => Ok(()),
        Role::Player(color) => match command {
            Command::Move { .. } | Command::Undo if color != side_to_move => Err(Refusal::new(
                ErrorCode::Forbidden,
                format!("you play {color}; it is {side_to_move}'s move"),
            )),
            _ => Ok(()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(line: &str, expected: Result<Command, &str>) {
        let got = parse_line(line.as_bytes()).map_err(|r| r.line());
        match (&got, &expected) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{line:?}"),
            (Err(a), Err(b)) => assert!(a.starts_with(b), "{line:?}: {a} (want {b}…)"),
            _ => panic!("{line:?}: got {got:?}, want {expected:?}"),
        }
    }

    #[test]
    fn requests() {
        check(
            "auth s3cret",
            Ok(Command::Auth {
                token: "s3cret".into(),
            }),
        );
        check(
            "move 5254",
            Ok(Command::Move {
                text: "5254".into(),
            }),
        );
        check(
            "move Springer Felix drei\r",
            Ok(Command::Move {
                text: "Springer Felix drei".into(),
            }),
        );
        check("MOVE e4", Ok(Command::Move { text: "e4".into() }));
        check("  board  ", Ok(Command::Board));
        check("claim-draw", Ok(Command::ClaimDraw { intended: None }));
        check(
            "claim-draw Nf3",
            Ok(Command::ClaimDraw {
                intended: Some("Nf3".into()),
            }),
        );
        check("lang es", Ok(Command::Lang { code: "es".into() }));
        check("events", Ok(Command::Events));
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
        // A reply is always one line.
        assert!(!Refusal::new(ErrorCode::Move, "a\nb").line().contains('\n'));
        assert_eq!(ok_line("e2e4 e4"), "ok e2e4 e4");
    }

    #[test]
    fn who_may_do_what() {
        let mv = Command::Move { text: "e4".into() };
        assert!(permitted(Role::Player(Color::White), &mv, Color::White).is_ok());
        let refused = permitted(Role::Player(Color::Black), &mv, Color::White).unwrap_err();
        assert_eq!(
            refused.line(),
            "error forbidden you play black; it is white's move"
        );
        assert_eq!(
            permitted(Role::Observer, &mv, Color::White)
                .unwrap_err()
                .code,
            ErrorCode::Forbidden
        );
        assert!(permitted(Role::Observer, &Command::Board, Color::White).is_ok());
        assert!(permitted(Role::Assistant, &mv, Color::Black).is_ok());
        assert!(permitted(Role::Arbiter, &Command::Resign, Color::Black).is_ok());
        assert!(permitted(Role::Player(Color::Black), &Command::Resign, Color::White).is_ok());
        assert_eq!("assistant".parse::<Role>(), Ok(Role::Assistant));
        assert!("king".parse::<Role>().is_err());
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
