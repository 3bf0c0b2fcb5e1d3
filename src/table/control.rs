//! The control interface's language, without the socket: request lines parsed into commands,
//! roles and what each may do, and the reply lines (`ok …`, `error <code> <message>`).
//!
//! Assistants, arbiters and correspondence players type these lines (with `nc`, or through
//! `annabella send`); a malformed line gets an error reply naming what was wrong, never a crash.

use std::fmt;
use std::str::FromStr;

use shakmaty::Color;

use crate::chess::game::GameResult;
use crate::table::reconcile::Side;

use crate::chess::language::Language;

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
    /// The position after this many half-moves of the game (`board 12`), for a page stepping
    /// through the record.
    BoardAt {
        ply: usize,
    },
    Clock,
    /// Both clocks for a screen (`clock quiet`): never spoken, so a page that refreshes its
    /// clocks does not talk to the blind player.
    ClockQuiet,
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
    /// Select the table this connection talks to.
    Table {
        name: String,
    },
    /// List the tables the connection's token may use.
    Tables,
    /// Turn the correspondence desk's peg board to this table's game.
    Focus {
        table: String,
    },
    /// The correspondence games in words: whose move in each, the messages waiting.
    Games,
    /// The table's whole state as one JSON object, for a page (`PageView`).
    View,
    /// Days of leave in a correspondence game: `leave white 2026-12-20 2027-01-05`.
    Leave {
        color: Color,
        from: String,
        to: String,
    },
    /// The piece for a pending promotion (a pawn on the last rank of a board, waiting).
    Promote {
        piece: shakmaty::Role,
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
    /// The arbiter declares the result (one offered on the e-board with DGT's kings gesture,
    /// or one he decided); the game ends with it.
    Result {
        result: GameResult,
    },
    /// What each physical board shows: the peg board's occupancy and the pieces believed in its
    /// holes, the e-board's pieces.
    Boards,
    /// One player's own scoresheet (a: the blind player's, b: the sighted player's).
    SheetOf {
        side: Side,
    },
    /// Enter or correct a player's scoresheet: the whole sheet as a move list in any notation
    /// (FIDE D.2.9 compares the sheets as moves).
    Record {
        side: Side,
        moves: String,
    },
    /// The lagging player confirms the moves read out to him: they go on his sheet.
    Confirm {
        side: Side,
    },
    /// The lagging player disputes them: the sheets differ.
    Dispute {
        side: Side,
    },
    /// The arbiter decides a proposed resolution: confirm it, or take back to another ply.
    Resolve {
        choice: Resolve,
    },
    /// The arbiter begins the next game at the table once the last one is over: from the
    /// standard position, or from a FEN.
    NewGame {
        fen: Option<String>,
    },
    /// A PGN tag of the current game (`white`, `black`, `event`, `site`, `round`): the players'
    /// names and the event, for the scoresheet.
    Tag {
        tag: GameTag,
        value: String,
    },
    /// The arbiter stops the clocks (6.11.1).
    Pause,
    /// The arbiter restarts them.
    Resume,
    Help,
    Quit,
}

impl Command {
    /// The request's keyword, as typed.
    pub fn keyword(&self) -> &'static str {
        match self {
            Command::Auth { .. } => "auth",
            Command::Move { .. } => "move",
            Command::Board | Command::BoardAt { .. } => "board",
            Command::Clock | Command::ClockQuiet => "clock",
            Command::Sheet => "sheet",
            Command::Status => "status",
            Command::OfferDraw => "offer-draw",
            Command::ClaimDraw { .. } => "claim-draw",
            Command::Resign => "resign",
            Command::Undo => "undo",
            Command::Events => "events",
            Command::Lang { .. } => "lang",
            Command::Table { .. } => "table",
            Command::Tables => "tables",
            Command::Focus { .. } => "focus",
            Command::Games => "games",
            Command::View => "view",
            Command::Leave { .. } => "leave",
            Command::Promote { .. } => "promote",
            Command::Parse { .. } => "parse",
            Command::Export { .. } => "export",
            Command::Adjust { .. } => "adjust",
            Command::Penalty { .. } => "penalty",
            Command::Result { .. } => "result",
            Command::Boards => "boards",
            Command::SheetOf { .. } => "sheet",
            Command::Record { .. } => "record",
            Command::Confirm { .. } => "confirm",
            Command::Dispute { .. } => "dispute",
            Command::Resolve { .. } => "resolve",
            Command::NewGame { .. } => "new-game",
            Command::Tag { .. } => "tag",
            Command::Pause => "pause",
            Command::Resume => "resume",
            Command::Help => "help",
            Command::Quit => "quit",
        }
    }

    /// Whether only the arbiter may send this (decisions about the clocks and the game).
    pub fn arbiter_only(&self) -> bool {
        matches!(
            self,
            Command::Adjust { .. }
                | Command::Penalty { .. }
                | Command::Result { .. }
                | Command::Pause
                | Command::Resume
                | Command::Resolve { .. }
                | Command::NewGame { .. }
        )
    }

    /// Whether this command only reads (an observer may send it).
    pub fn reads_only(&self) -> bool {
        matches!(
            self,
            Command::Auth { .. }
                | Command::Parse { .. }
                | Command::Export { .. }
                | Command::SheetOf { .. }
                | Command::Boards
                | Command::Board
                | Command::BoardAt { .. }
                | Command::Clock
                | Command::ClockQuiet
                | Command::Sheet
                | Command::Status
                | Command::Events
                | Command::Lang { .. }
                | Command::Table { .. }
                | Command::Tables
                | Command::Games
                | Command::View
                | Command::Help
                | Command::Quit
        )
    }

    /// Whether the correspondence desk answers the request rather than a table.
    pub fn for_desk(&self) -> bool {
        matches!(self, Command::Focus { .. } | Command::Games)
    }

    /// Whether the request is about the connection itself (answered by the control server, never
    /// sent to a table).
    pub fn about_connection(&self) -> bool {
        matches!(
            self,
            Command::Auth { .. }
                | Command::Lang { .. }
                | Command::Events
                | Command::Table { .. }
                | Command::Tables
                | Command::Help
                | Command::Quit
        )
    }
}

/// The longest text of a PGN tag set over the control interface.
pub const MAX_TAG_CHARS: usize = 100;

/// The PGN tags a table's game carries besides those it writes itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GameTag {
    White,
    Black,
    Event,
    Site,
    Round,
}

impl GameTag {
    pub const ALL: [GameTag; 5] = [
        GameTag::White,
        GameTag::Black,
        GameTag::Event,
        GameTag::Site,
        GameTag::Round,
    ];

    pub fn parse(word: &str) -> Option<GameTag> {
        GameTag::ALL
            .into_iter()
            .find(|t| t.keyword().eq_ignore_ascii_case(word))
    }

    /// As the request and the journal write it (`white`).
    pub fn keyword(self) -> &'static str {
        match self {
            GameTag::White => "white",
            GameTag::Black => "black",
            GameTag::Event => "event",
            GameTag::Site => "site",
            GameTag::Round => "round",
        }
    }
}

impl fmt::Display for GameTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.keyword())
    }
}

/// The arbiter's decision on a proposed takeback (D.2.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolve {
    /// As proposed: back to the last move both sheets agree on, clocks as recorded there.
    Confirm,
    /// Back to after this many half-moves instead.
    Override { plies: usize },
    /// No takeback: the proposal is dropped.
    Reject,
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
pub fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Every request keyword, in the order `help` lists them. `result` was parsed but missing here,
/// so `help` never named it (found by the `control_line` fuzz target, which checks that every
/// request the parser accepts is listed).
pub const KEYWORDS: &str = "auth, table, tables, lang, move, promote, board, boards, clock, sheet, \
                            status, view, parse, export, focus, games, leave, offer-draw, claim-draw, resign, undo, record, confirm, \
                            dispute, resolve, adjust, penalty, result, pause, resume, new-game, tag, events, help, quit";

/// Parses one request line (without its line feed; a trailing CR is ignored), reading piece
/// names in English; see [`parse_line_in`].
pub fn parse_line(bytes: &[u8]) -> Result<Command, Refusal> {
    parse_line_in(bytes, Language::english())
}

/// Parses one request line; `promote` piece names are read in `lang` (and in English).
pub fn parse_line_in(bytes: &[u8], lang: &Language) -> Result<Command, Refusal> {
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
        "board" if rest.is_empty() => Ok(Command::Board),
        "board" => match rest.parse::<usize>() {
            Ok(ply) => Ok(Command::BoardAt { ply }),
            Err(_) => Err(Refusal::new(
                ErrorCode::Syntax,
                format!("board takes a number of half-moves (board 12), not {rest:?}"),
            )),
        },
        "boards" => no_argument(Command::Boards),
        "clock" => match rest {
            "" => Ok(Command::Clock),
            "quiet" => Ok(Command::ClockQuiet),
            _ => Err(Refusal::new(
                ErrorCode::Syntax,
                format!("clock takes nothing or quiet, not {:?}", truncate(rest, 40)),
            )),
        },
        "sheet" if rest.is_empty() => Ok(Command::Sheet),
        "sheet" => Ok(Command::SheetOf {
            side: parse_side(rest)?,
        }),
        "record" => {
            let (side, moves) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            let side = parse_side(side)?;
            if moves.trim().is_empty() {
                return Err(Refusal::new(
                    ErrorCode::Syntax,
                    "record needs a side and the moves, e.g. record b 1. e4 e5 2. Nf3",
                ));
            }
            Ok(Command::Record {
                side,
                moves: moves.trim().to_owned(),
            })
        }
        "confirm" => Ok(Command::Confirm {
            side: parse_side(&needs("a side: a or b")?)?,
        }),
        "dispute" => Ok(Command::Dispute {
            side: parse_side(&needs("a side: a or b")?)?,
        }),
        "resolve" => {
            let usage = "resolve confirm, resolve reject or resolve override PLIES";
            let mut words = rest.split_whitespace();
            let choice = match (words.next(), words.next(), words.next()) {
                (Some("confirm"), None, None) => Resolve::Confirm,
                (Some("reject"), None, None) => Resolve::Reject,
                (Some("override"), Some(n), None) => Resolve::Override {
                    plies: n.parse().map_err(|_| {
                        Refusal::new(
                            ErrorCode::Syntax,
                            format!("{n:?} is no number of half-moves; {usage}"),
                        )
                    })?,
                },
                _ => return Err(Refusal::new(ErrorCode::Syntax, usage)),
            };
            Ok(Command::Resolve { choice })
        }
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
        "table" => Ok(Command::Table {
            name: needs("a table name, e.g. table table-1")?,
        }),
        "tables" => no_argument(Command::Tables),
        "focus" => Ok(Command::Focus {
            table: needs("a correspondence table's name, e.g. focus bca-7")?,
        }),
        "games" => no_argument(Command::Games),
        "view" => no_argument(Command::View),
        "leave" => {
            let usage =
                "a colour and the first and last day, e.g. leave white 2026-12-20 2027-01-05";
            let text = needs(usage)?;
            let words: Vec<&str> = text.split_whitespace().collect();
            let [c, from, to] = words.as_slice() else {
                return Err(Refusal::new(
                    ErrorCode::Syntax,
                    format!("leave needs {usage}"),
                ));
            };
            let color = parse_color(c)
                .ok_or_else(|| Refusal::new(ErrorCode::Syntax, format!("{c:?}: white or black")))?;
            Ok(Command::Leave {
                color,
                from: (*from).to_owned(),
                to: (*to).to_owned(),
            })
        }
        "promote" => Ok(Command::Promote {
            piece: promotion_piece(&needs("a piece: q, r, b or n")?, lang)?,
        }),
        "parse" => Ok(Command::Parse {
            text: needs("a move in any notation, e.g. parse Sf3")?,
        }),
        "export" => Ok(Command::Export {
            format: needs("a format: pgn, iccf, braille or brf")?,
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
        "result" => {
            let r = needs("a result, e.g. result 1-0")?;
            let result = GameResult::from_pgn(&r).ok_or_else(|| {
                Refusal::new(
                    ErrorCode::Syntax,
                    format!("{r:?} is no result; 1-0, 0-1 or 1/2-1/2"),
                )
            })?;
            Ok(Command::Result { result })
        }
        "new-game" => {
            let mut words = rest.splitn(2, char::is_whitespace);
            match (words.next().filter(|w| !w.is_empty()), words.next()) {
                (None, _) => Ok(Command::NewGame { fen: None }),
                (Some("fen"), Some(fen)) if !fen.trim().is_empty() => Ok(Command::NewGame {
                    fen: Some(fen.trim().to_owned()),
                }),
                _ => Err(Refusal::new(
                    ErrorCode::Syntax,
                    "new-game alone (the standard position) or new-game fen FEN",
                )),
            }
        }
        "tag" => {
            let usage = "tag white|black|event|site|round TEXT, e.g. tag white Anna Müller";
            let mut words = rest.splitn(2, char::is_whitespace);
            let tag = match words.next().and_then(GameTag::parse) {
                Some(tag) => tag,
                None => return Err(Refusal::new(ErrorCode::Syntax, usage)),
            };
            match words.next().map(str::trim).filter(|v| !v.is_empty()) {
                // One space between words, as the journal's line keeps it.
                Some(value) if value.chars().count() <= MAX_TAG_CHARS => Ok(Command::Tag {
                    tag,
                    value: value.split_whitespace().collect::<Vec<_>>().join(" "),
                }),
                Some(_) => Err(Refusal::new(
                    ErrorCode::Syntax,
                    format!("a tag's text is at most {MAX_TAG_CHARS} characters"),
                )),
                None => Err(Refusal::new(ErrorCode::Syntax, usage)),
            }
        }
        "pause" => no_argument(Command::Pause),
        "resume" => no_argument(Command::Resume),
        "help" => no_argument(Command::Help),
        "quit" => no_argument(Command::Quit),
        _ => Err(Refusal::new(
            ErrorCode::Syntax,
            format!(
                "unknown request {:?}; one of {KEYWORDS}",
                truncate(keyword, 40)
            ),
        )),
    }
}

/// The piece a pawn promotes to: the UCI letters `q`, `r`, `b`, `n` (either case, whatever the
/// language: they are the letters of `e7e8q`), or the piece's name in `lang` or in English.
/// Language letters are not read: Spanish `R` (rey) would contradict UCI `r` (rook).
pub fn promotion_piece(text: &str, lang: &Language) -> Result<shakmaty::Role, Refusal> {
    use shakmaty::Role as Piece;
    let word = text.trim().to_lowercase();
    let by_letter = match word.as_str() {
        "q" => Some(Piece::Queen),
        "r" => Some(Piece::Rook),
        "b" => Some(Piece::Bishop),
        "n" => Some(Piece::Knight),
        _ => None,
    };
    let by_name = || {
        Piece::ALL.into_iter().find(|&role| {
            [lang, Language::english()]
                .iter()
                .any(|l| l.vocabulary().piece(role).to_lowercase() == word)
        })
    };
    match by_letter.or_else(by_name) {
        Some(role @ (Piece::Queen | Piece::Rook | Piece::Bishop | Piece::Knight)) => Ok(role),
        Some(role) => Err(Refusal::new(
            ErrorCode::Syntax,
            format!(
                "a pawn promotes to a queen, rook, bishop or knight, not to a {}",
                Language::english().vocabulary().piece(role)
            ),
        )),
        None => Err(Refusal::new(
            ErrorCode::Syntax,
            format!(
                "promote {:?}: q, r, b or n, or the piece's name in {} ({}, {}, {}, {})",
                truncate(text, 40),
                lang.name(),
                lang.vocabulary().piece(Piece::Queen),
                lang.vocabulary().piece(Piece::Rook),
                lang.vocabulary().piece(Piece::Bishop),
                lang.vocabulary().piece(Piece::Knight),
            ),
        )),
    }
}

fn parse_side(text: &str) -> Result<Side, Refusal> {
    match text.trim().to_ascii_lowercase().as_str() {
        "a" => Ok(Side::A),
        "b" => Ok(Side::B),
        other => Err(Refusal::new(
            ErrorCode::Syntax,
            format!(
                "{:?} is no side: a (the blind player's sheet) or b (the sighted player's)",
                truncate(other, 20)
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

/// The part of [`permitted`] that needs no position: an observer may only read. The control
/// server applies it before a request reaches a table.
pub fn permitted_to_role(role: Role, command: &Command) -> Result<(), Refusal> {
    if command.arbiter_only() && role != Role::Arbiter {
        return Err(Refusal::new(
            ErrorCode::Forbidden,
            format!("only the arbiter may {}; you are {role}", command.keyword()),
        ));
    }
    if role == Role::Observer && !command.reads_only() {
        return Err(Refusal::new(
            ErrorCode::Forbidden,
            format!(
                "an observer may only read; {} changes the game",
                command.keyword()
            ),
        ));
    }
    Ok(())
}

/// Whether `role` may send `command` when `side_to_move` is to move. Moves are further
/// checked by the table (legality); this is only who may ask.
///
/// The table applies this when it takes the request (the side to move is its own state, so
/// the check and the move cannot race); the control server applies [`permitted_to_role`] first.
pub fn permitted(role: Role, command: &Command, side_to_move: Color) -> Result<(), Refusal> {
    if command.reads_only() {
        return Ok(());
    }
    permitted_to_role(role, command)?;
    match role {
        Role::Observer | Role::Arbiter | Role::Assistant => Ok(()),
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
        check("board 12", Ok(Command::BoardAt { ply: 12 }));
        check(
            "board e4",
            Err("error syntax board takes a number of half-moves (board 12), not \"e4\""),
        );
        check(
            "board -1",
            Err("error syntax board takes a number of half-moves"),
        );
        check("clock quiet", Ok(Command::ClockQuiet));
        check(
            "clock loud",
            Err("error syntax clock takes nothing or quiet"),
        );
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
    fn connection_requests_and_promotion() {
        check(
            "table table-2",
            Ok(Command::Table {
                name: "table-2".into(),
            }),
        );
        check("tables", Ok(Command::Tables));
        check("table", Err("error syntax table needs a table name"));
        check("tables all", Err("error syntax tables takes no argument"));
        check(
            "promote q",
            Ok(Command::Promote {
                piece: shakmaty::Role::Queen,
            }),
        );
        check(
            "promote N",
            Ok(Command::Promote {
                piece: shakmaty::Role::Knight,
            }),
        );
        check(
            "promote Rook",
            Ok(Command::Promote {
                piece: shakmaty::Role::Rook,
            }),
        );
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
            Ok(Command::Promote { piece }) => Ok(piece),
            other => Err(format!("{other:?}")),
        };
        assert_eq!(promote("promote Dame", german), Ok(shakmaty::Role::Queen));
        assert_eq!(
            promote("promote springer", german),
            Ok(shakmaty::Role::Knight)
        );
        // The UCI letters hold in every language: Spanish R is a king in SAN, r a rook here.
        assert_eq!(promote("promote r", spanish), Ok(shakmaty::Role::Rook));
        assert_eq!(promote("promote queen", spanish), Ok(shakmaty::Role::Queen));
        // German names are not read on an English connection.
        assert!(promote("promote Dame", Language::english()).is_err());
        for c in [
            Command::Tables,
            Command::Help,
            Command::Events,
            Command::Auth { token: "x".into() },
        ] {
            assert!(c.about_connection(), "{c:?}");
        }
        assert!(!Command::Board.about_connection());
        assert!(
            !Command::Promote {
                piece: shakmaty::Role::Queen
            }
            .reads_only()
        );
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
        assert!(permitted_to_role(Role::Observer, &Command::Tables).is_ok());
        assert_eq!(
            permitted_to_role(Role::Observer, &Command::Resign)
                .unwrap_err()
                .line(),
            "error forbidden an observer may only read; resign changes the game"
        );
        assert!(permitted_to_role(Role::Player(Color::Black), &mv).is_ok());
        assert!(permitted(Role::Assistant, &mv, Color::Black).is_ok());
        assert!(permitted(Role::Arbiter, &Command::Resign, Color::Black).is_ok());
        assert!(permitted(Role::Player(Color::Black), &Command::Resign, Color::White).is_ok());
        assert_eq!("assistant".parse::<Role>(), Ok(Role::Assistant));
        assert!("king".parse::<Role>().is_err());
    }

    #[test]
    fn help_names_every_request_the_parser_accepts() {
        // `result` was accepted but missing from `KEYWORDS` (the `control_line` fuzz target
        // found it): one line for every request.
        let lines = [
            "auth t",
            "move e4",
            "board",
            "board 3",
            "clock",
            "clock quiet",
            "sheet",
            "sheet a",
            "status",
            "offer-draw",
            "claim-draw",
            "resign",
            "undo",
            "events",
            "lang de",
            "table t",
            "tables",
            "focus t",
            "games",
            "view",
            "leave white 2026-12-20 2027-01-05",
            "promote q",
            "parse e4",
            "export pgn",
            "adjust white +30",
            "penalty white",
            "result 1-0",
            "boards",
            "record a 1. e4",
            "confirm a",
            "dispute b",
            "resolve confirm",
            "new-game",
            "tag white Max",
            "pause",
            "resume",
            "help",
            "quit",
        ];
        let listed: Vec<&str> = KEYWORDS.split(", ").collect();
        for line in lines {
            let command = parse_line(line.as_bytes()).unwrap_or_else(|e| panic!("{line}: {e:?}"));
            assert!(listed.contains(&command.keyword()), "help lacks {line:?}");
        }
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
