//! The table's journal: every state change a table accepts, as one line of text.
//!
//! The table is event-sourced. A record is written durably before anything it caused is
//! acknowledged or announced, and replaying a table's records through [`Table::restore`]
//! (`crate::state`) rebuilds the game, the scoresheet and the clocks exactly, because the
//! live path and the replay apply the very same records.
//!
//! Each line is an [`Entry`]: the record and the *table time* it was applied at (`<ms> move e2e4
//! peg`). Table time is monotonic (the daemon's monotonic clock, continued across restarts from
//! the last entry), so a replay recomputes every clock reading exactly and a wall clock stepped
//! back or forward never reaches the chess clock. The journal keeps the wall time beside the
//! line, for labels only (the PGN's date, the downtime after a crash). Lines written before
//! table time existed start with the keyword; their journal wall time stands in for it.
//!
//! [`Table::restore`]: crate::state::Table::restore

use std::fmt;
use std::str::FromStr;

use shakmaty::Color;
use shakmaty::uci::{ParseUciMoveError, UciMove};

use annabella_boards::Millis;

use crate::control::{GameTag, Role};
use crate::reconcile::Side;
use annabella_chess::game::GameResult;
use annabella_chess::scoresheet::Recorder;
use annabella_correspondence::day_clock::{Leave, LeaveError};

/// Longest record line: a scoresheet of some 800 half-moves in UCI (the journal keeps lines up
/// to this length too); longer lines in a journal are corrupt.
pub const MAX_RECORD_BYTES: usize = 4096;

/// Why a journal line could not be read. The texts name the offending word, as a line of a
/// corrupt journal is reported to whoever repairs it; a word is kept only as long as the
/// message shows it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("record of {0} bytes; at most {MAX_RECORD_BYTES}")]
    TooLong(usize),
    #[error("table time {0:?} is out of range")]
    TableTime(String),
    #[error("unknown move source {0:?}; peg, normal or a role")]
    Source(String),
    /// The text is the first 12 characters of the word. shakmaty's error carries nothing
    /// (and is not comparable), so the message names it rather than keeping it.
    #[error("{text:?} is no UCI move: {}", ParseUciMoveError)]
    Uci { text: String },
    #[error("expected white or black, not {0:?}")]
    Color(String),
    #[error("begin: chess960 is 0 or 1, not {0:?}")]
    Chess960(String),
    #[error("begin needs chess960, a time control and a FEN")]
    BeginIncomplete,
    #[error("adjust: {0:?} is no number of milliseconds")]
    Adjust(String),
    #[error(transparent)]
    Leave(#[from] LeaveError),
    #[error("result: {0:?} is no result; 1-0, 0-1 or 1/2-1/2")]
    GameResult(String),
    #[error("sheet: side a or b, not {0:?}")]
    Side(String),
    #[error("retract: {0:?} is no number of half-moves")]
    Retract(String),
    #[error("rebase: {0:?} is no number of milliseconds")]
    Rebase(String),
    #[error("tag: {0:?} is no tag; white, black, event, site or round")]
    Tag(String),
    /// A known keyword with the wrong number of words after it.
    #[error("{keyword:?} with {words} word(s) after it is malformed")]
    Malformed { keyword: String, words: usize },
    #[error("empty record")]
    Empty,
    /// The text is the first 40 characters of the keyword.
    #[error("unknown record {0:?}")]
    Unknown(String),
}

/// Where an accepted move came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// The blind player's peg board.
    Peg,
    /// The sighted player's electronic board.
    Normal,
    /// Typed on the control interface by someone in this role.
    Control(Role),
}

impl Source {
    /// Who wrote the move on the scoresheet.
    pub fn recorder(self) -> Recorder {
        match self {
            Source::Peg | Source::Normal => Recorder::Board,
            Source::Control(Role::Player(_)) => Recorder::Player,
            Source::Control(Role::Assistant) => Recorder::Assistant,
            Source::Control(Role::Arbiter | Role::Observer) => Recorder::Arbiter,
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Peg => f.write_str("peg"),
            Source::Normal => f.write_str("normal"),
            Source::Control(role) => write!(f, "{role}"),
        }
    }
}

impl FromStr for Source {
    type Err = RecordError;

    fn from_str(s: &str) -> Result<Source, RecordError> {
        match s {
            "peg" => Ok(Source::Peg),
            "normal" => Ok(Source::Normal),
            _ => s
                .parse::<Role>()
                .map(Source::Control)
                .map_err(|_| RecordError::Source(s.to_owned())),
        }
    }
}

/// One accepted state change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// A new game: `begin <chess960 0|1> <time control> <start FEN>`. White's clock (or the
    /// side to move's) starts at the record's time.
    Begin {
        chess960: bool,
        time_control: String,
        fen: String,
    },
    /// `move <uci> <source>`: played, written on the scoresheet, the mover's clock pressed.
    /// UCI as the game's castling mode writes it (Chess960: king takes rook).
    Move { uci: UciMove, source: Source },
    /// `undo`: the last move withdrawn (a slip of the tongue, D.2.8); the clocks go back to
    /// the readings before it.
    Undo,
    /// `offer-draw <color>`.
    DrawOffer { color: Color },
    /// `agree-draw`: both sides agreed (5.2.3).
    DrawAgreed,
    /// `claim-draw [<uci>]`: a correct claim (9.2, 9.3), with the move the claimant wrote.
    Claim { intended: Option<UciMove> },
    /// `wrong-claim <color>`: a refused claim; the opponent gets the penalty time (9.5.3).
    WrongClaim { color: Color },
    /// `resign <color>`.
    Resign { color: Color },
    /// `flag <color>`: the flag fell (6.9 decides the result).
    Flag { color: Color },
    /// `adjust <color> <±ms>`: the arbiter changed a clock.
    Adjust { color: Color, delta_ms: i64 },
    /// `penalty <color>`: the arbiter ruled that `color` completed an illegal move (7.5.5):
    /// the first time the opponent gets the penalty time, the second time `color` loses.
    Penalty { color: Color },
    /// `result <1-0|0-1|1/2-1/2>`: the arbiter declared the result (a result shown on the
    /// e-board with DGT's kings gesture, or one he decided).
    Result { result: GameResult },
    /// `pause`: the arbiter stopped the clocks (6.11.1).
    Pause,
    /// `resume`: the arbiter restarted them, or the table did once a new game's boards were
    /// set up (it ends a `hold-set-up` as well as a `pause`).
    Resume,
    /// `hold-set-up`: a new game's clocks stopped by the table until both boards show its
    /// start position (issue 24). Unlike the arbiter's `pause`, the boards being right end it
    /// (with a `resume`); a restart finds the wait again. An arbiter's `pause` meanwhile makes
    /// the stop his.
    HoldForSetUp,
    /// `sheet <a|b> [<uci>…]`: a player's scoresheet entered or corrected (D.2.9); only its
    /// legal moves are kept.
    Sheet { side: Side, moves: Vec<UciMove> },
    /// `retract <plies>`: the moves after `plies` half-moves are taken back (D.2.9, the
    /// sheets differ); both sheets are cut there and the clocks go back to that move.
    Retract { plies: usize },
    /// `tag <white|black|event|site|round> <text…>`: a PGN tag of the game (players' names,
    /// the event); the text is the rest of the line.
    Tag { tag: GameTag, value: String },
    /// `rebase <ms>`: the daemon restarted; the running clock is charged `charged_ms` since its
    /// last press (the time it ran while the daemon was up, plus the downtime only when the
    /// configuration says so) and runs on from the record's time.
    Rebase { charged_ms: u64 },
    /// `day-penalty <color>`: a correspondence game's sender of an illegal or ambiguous move
    /// is charged the days its rules say (BCA: one).
    DayPenalty { color: Color },
    /// `leave <color> <from> <to>`: days of leave in a correspondence game (UTC dates, both
    /// included); the side's days do not run.
    Leave { leave: Leave },
    /// `send`: at a correspondence table with the confirm step, the blind player released his
    /// move (`KS`): every half-move played so far may be mailed.
    Send,
    /// `comment <text…>`: the opponent's free-text comment from his last message, one line of
    /// at most [`MAX_COMMENT_CHARS`] characters, kept so that `KM` reads it after a restart.
    Comment { text: String },
    /// `my-message <plies> <text…>`: the blind player's message for the server, written when
    /// `plies` half-moves were released: it goes with his first call from there
    /// (`annabella_correspondence::server_call::carries_message`). One line, bounded as a
    /// comment.
    MyMessage { plies: usize, text: String },
    /// `claim-time <color>`: `color` claimed the game on time, the other side's days being
    /// over; the arbiter's `result` decides it.
    TimeClaim { color: Color },
    /// `sheets-pending <a|b|-> <plies|-> [<explanation…>]`: where the two-sheet procedure
    /// (D.2.9) stands after a reconciliation or a decision on it — the side whose sheet lags,
    /// waiting for `confirm` or `dispute`, and the takeback proposed to the arbiter (back to
    /// after `plies` half-moves) with why, the explanation's lines joined by ` || `; `- -`
    /// when nothing is pending. Written whenever that changes, so a restart finds the same
    /// procedure open (build it with [`Record::sheets_pending`]).
    SheetsPending {
        lagging: Option<Side>,
        takeback: Option<usize>,
        explanation: Vec<String>,
    },
}

/// How the lines of a takeback proposal's explanation are joined in its record.
const EXPLANATION_JOIN: &str = " || ";

/// Longest explanation a `sheets-pending` record keeps (bytes): the rest is in the table's
/// record of the reconciliation; far below [`MAX_RECORD_BYTES`].
pub const MAX_EXPLANATION_BYTES: usize = 3000;

impl Record {
    /// The two-sheet procedure's pending state as a record that reads back equal: each line of
    /// the explanation with its whitespace folded, no line empty or holding the joiner, and
    /// lines kept while they fit in [`MAX_EXPLANATION_BYTES`].
    pub fn sheets_pending(
        lagging: Option<Side>,
        takeback: Option<usize>,
        explanation: &[String],
    ) -> Record {
        let mut kept = Vec::new();
        let mut bytes = 0;
        if takeback.is_some() {
            for line in explanation {
                let mut line = comment_line(line);
                while line.contains("||") {
                    line = line.replace("||", "|");
                }
                if line.is_empty() {
                    continue;
                }
                bytes += line.len() + EXPLANATION_JOIN.len();
                if bytes > MAX_EXPLANATION_BYTES {
                    break;
                }
                kept.push(line);
            }
        }
        Record::SheetsPending {
            lagging,
            takeback,
            explanation: kept,
        }
    }
}

/// Longest opponent's comment kept (characters); a longer one is cut. Far below
/// [`MAX_RECORD_BYTES`] even in four-byte characters.
pub const MAX_COMMENT_CHARS: usize = 800;

/// A comment as the journal keeps it: whitespace (line breaks too) folded to single spaces,
/// control characters dropped, cut to [`MAX_COMMENT_CHARS`].
pub fn comment_line(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .join(" ")
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_COMMENT_CHARS)
        .collect()
}

fn parse_uci(text: &str) -> Result<UciMove, RecordError> {
    UciMove::from_ascii(text.as_bytes()).map_err(|_| RecordError::Uci {
        text: text.chars().take(12).collect(),
    })
}

/// A record with the table time it was applied at: one journal line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Table time in milliseconds (monotonic; see the module's documentation).
    pub t: Millis,
    pub record: Record,
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.t, self.record)
    }
}

impl Entry {
    /// Reads a journal line; `wall_ms` (the journal's time beside it) is the table time of a
    /// line written before lines carried one.
    pub fn parse(line: &str, wall_ms: u64) -> Result<Entry, RecordError> {
        if line.len() > MAX_RECORD_BYTES {
            return Err(RecordError::TooLong(line.len()));
        }
        let (first, rest) = line.split_once(' ').unwrap_or((line, ""));
        if !first.is_empty() && first.bytes().all(|b| b.is_ascii_digit()) {
            let t = first
                .parse()
                .map_err(|_| RecordError::TableTime(first.to_owned()))?;
            return Ok(Entry {
                t,
                record: rest.parse()?,
            });
        }
        Ok(Entry {
            t: wall_ms,
            record: line.parse()?,
        })
    }
}

fn color_word(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn parse_side(s: &str) -> Result<Side, RecordError> {
    match s {
        "a" => Ok(Side::A),
        "b" => Ok(Side::B),
        other => Err(RecordError::Side(other.to_owned())),
    }
}

fn parse_color(s: &str) -> Result<Color, RecordError> {
    match s {
        "white" => Ok(Color::White),
        "black" => Ok(Color::Black),
        _ => Err(RecordError::Color(s.to_owned())),
    }
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Record::Begin {
                chess960,
                time_control,
                fen,
            } => write!(f, "begin {} {time_control} {fen}", u8::from(*chess960)),
            Record::Move { uci, source } => write!(f, "move {uci} {source}"),
            Record::Undo => f.write_str("undo"),
            Record::DrawOffer { color } => write!(f, "offer-draw {}", color_word(*color)),
            Record::DrawAgreed => f.write_str("agree-draw"),
            Record::Claim { intended: None } => f.write_str("claim-draw"),
            Record::Claim { intended: Some(m) } => write!(f, "claim-draw {m}"),
            Record::WrongClaim { color } => write!(f, "wrong-claim {}", color_word(*color)),
            Record::Resign { color } => write!(f, "resign {}", color_word(*color)),
            Record::Flag { color } => write!(f, "flag {}", color_word(*color)),
            Record::Adjust { color, delta_ms } => {
                write!(f, "adjust {} {delta_ms:+}", color_word(*color))
            }
            Record::Penalty { color } => write!(f, "penalty {}", color_word(*color)),
            Record::DayPenalty { color } => write!(f, "day-penalty {}", color_word(*color)),
            Record::Leave { leave } => write!(f, "{leave}"),
            Record::Result { result } => write!(f, "result {}", result.pgn()),
            Record::Pause => f.write_str("pause"),
            Record::Resume => f.write_str("resume"),
            Record::HoldForSetUp => f.write_str("hold-set-up"),
            Record::Sheet { side, moves } => {
                write!(f, "sheet {side}")?;
                for m in moves {
                    write!(f, " {m}")?;
                }
                Ok(())
            }
            Record::Retract { plies } => write!(f, "retract {plies}"),
            Record::Rebase { charged_ms } => write!(f, "rebase {charged_ms}"),
            Record::Tag { tag, value } => write!(f, "tag {tag} {value}"),
            Record::Send => f.write_str("send"),
            Record::Comment { text } => write!(f, "comment {text}"),
            Record::MyMessage { plies, text } => write!(f, "my-message {plies} {text}"),
            Record::TimeClaim { color } => write!(f, "claim-time {}", color_word(*color)),
            Record::SheetsPending {
                lagging,
                takeback,
                explanation,
            } => {
                let lag = lagging.map_or("-", Side::letter);
                write!(f, "sheets-pending {lag} ")?;
                match takeback {
                    Some(plies) => write!(f, "{plies}")?,
                    None => f.write_str("-")?,
                }
                if !explanation.is_empty() {
                    write!(f, " {}", explanation.join(EXPLANATION_JOIN))?;
                }
                Ok(())
            }
        }
    }
}

impl FromStr for Record {
    type Err = RecordError;

    fn from_str(line: &str) -> Result<Record, RecordError> {
        if line.len() > MAX_RECORD_BYTES {
            return Err(RecordError::TooLong(line.len()));
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["begin", chess960, tc, fen @ ..] if !fen.is_empty() => Ok(Record::Begin {
                chess960: match *chess960 {
                    "0" => false,
                    "1" => true,
                    other => return Err(RecordError::Chess960((*other).to_owned())),
                },
                time_control: (*tc).to_owned(),
                fen: fen.join(" "),
            }),
            ["move", uci, source] => Ok(Record::Move {
                uci: parse_uci(uci)?,
                source: source.parse()?,
            }),
            ["undo"] => Ok(Record::Undo),
            ["send"] => Ok(Record::Send),
            ["comment", text @ ..] => Ok(Record::Comment {
                text: comment_line(&text.join(" ")),
            }),
            ["my-message", plies, text @ ..] if !text.is_empty() => Ok(Record::MyMessage {
                plies: plies.parse().map_err(|_| RecordError::Malformed {
                    keyword: "my-message".to_owned(),
                    words: text.len() + 1,
                })?,
                text: comment_line(&text.join(" ")),
            }),
            ["claim-time", c] => Ok(Record::TimeClaim {
                color: parse_color(c)?,
            }),
            ["offer-draw", c] => Ok(Record::DrawOffer {
                color: parse_color(c)?,
            }),
            ["agree-draw"] => Ok(Record::DrawAgreed),
            ["claim-draw"] => Ok(Record::Claim { intended: None }),
            ["claim-draw", m] => Ok(Record::Claim {
                intended: Some(parse_uci(m)?),
            }),
            ["wrong-claim", c] => Ok(Record::WrongClaim {
                color: parse_color(c)?,
            }),
            ["resign", c] => Ok(Record::Resign {
                color: parse_color(c)?,
            }),
            ["flag", c] => Ok(Record::Flag {
                color: parse_color(c)?,
            }),
            ["adjust", c, delta] => Ok(Record::Adjust {
                color: parse_color(c)?,
                delta_ms: delta
                    .parse()
                    .map_err(|_| RecordError::Adjust((*delta).to_owned()))?,
            }),
            ["penalty", c] => Ok(Record::Penalty {
                color: parse_color(c)?,
            }),
            ["day-penalty", c] => Ok(Record::DayPenalty {
                color: parse_color(c)?,
            }),
            ["leave", ..] => line
                .parse::<Leave>()
                .map(|leave| Record::Leave { leave })
                .map_err(RecordError::from),
            ["result", r] => Ok(Record::Result {
                result: GameResult::from_pgn(r)
                    .ok_or_else(|| RecordError::GameResult((*r).to_owned()))?,
            }),
            ["pause"] => Ok(Record::Pause),
            ["resume"] => Ok(Record::Resume),
            ["hold-set-up"] => Ok(Record::HoldForSetUp),
            ["sheets-pending", lag, plies, text @ ..] => Ok(Record::SheetsPending {
                lagging: match *lag {
                    "-" => None,
                    side => Some(parse_side(side)?),
                },
                takeback: match *plies {
                    "-" => None,
                    n => Some(n.parse().map_err(|_| RecordError::Retract(n.to_owned()))?),
                },
                explanation: match text {
                    [] => Vec::new(),
                    words => words
                        .join(" ")
                        .split(EXPLANATION_JOIN)
                        .map(str::to_owned)
                        .collect(),
                },
            }),
            ["sheet", side, moves @ ..] => Ok(Record::Sheet {
                side: parse_side(side)?,
                moves: moves
                    .iter()
                    .map(|m| parse_uci(m))
                    .collect::<Result<_, _>>()?,
            }),
            ["retract", n] => Ok(Record::Retract {
                plies: n
                    .parse()
                    .map_err(|_| RecordError::Retract((*n).to_owned()))?,
            }),
            ["rebase", ms] => Ok(Record::Rebase {
                charged_ms: ms
                    .parse()
                    .map_err(|_| RecordError::Rebase((*ms).to_owned()))?,
            }),
            ["tag", tag, value @ ..] if !value.is_empty() => Ok(Record::Tag {
                tag: GameTag::parse_recorded(tag)
                    .ok_or_else(|| RecordError::Tag((*tag).to_owned()))?,
                // Words are joined by one space, as the tag was written (one line, trimmed).
                value: value.join(" "),
            }),
            ["begin", ..] => Err(RecordError::BeginIncomplete),
            [
                kw @ ("move" | "undo" | "offer-draw" | "agree-draw" | "claim-draw" | "wrong-claim"
                | "resign" | "flag" | "adjust" | "penalty" | "result" | "pause" | "resume"
                | "hold-set-up" | "sheet" | "retract" | "rebase" | "tag" | "send"
                | "claim-time" | "sheets-pending" | "my-message"),
                rest @ ..,
            ] => Err(RecordError::Malformed {
                keyword: (*kw).to_owned(),
                words: rest.len(),
            }),
            [] => Err(RecordError::Empty),
            [other, ..] => Err(RecordError::Unknown(other.chars().take(40).collect())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uci(text: &str) -> UciMove {
        UciMove::from_ascii(text.as_bytes()).unwrap()
    }

    #[test]
    fn entries_carry_table_time_and_old_lines_take_the_wall_time() {
        let e = Entry {
            t: 1234,
            record: Record::Undo,
        };
        assert_eq!(e.to_string(), "1234 undo");
        assert_eq!(Entry::parse("1234 undo", 99), Ok(e));
        assert_eq!(
            Entry::parse("undo", 99),
            Ok(Entry {
                t: 99,
                record: Record::Undo
            })
        );
        assert!(
            Entry::parse("99999999999999999999999 undo", 0)
                .unwrap_err()
                .to_string()
                .contains("out of range")
        );
        assert!(
            Entry::parse("12 jump", 0)
                .unwrap_err()
                .to_string()
                .contains("unknown record")
        );
        assert!(
            Entry::parse("move e2e9 peg", 0)
                .unwrap_err()
                .to_string()
                .contains("no UCI move")
        );
    }

    #[test]
    fn every_record_reads_back() {
        let records = [
            Record::Begin {
                chess960: false,
                time_control: "40/5400+30:1800+30".into(),
                fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            },
            Record::Move {
                uci: uci("e2e4"),
                source: Source::Peg,
            },
            Record::Move {
                uci: uci("e7e8q"),
                source: Source::Control(Role::Player(Color::Black)),
            },
            Record::Move {
                uci: uci("g8f6"),
                source: Source::Control(Role::Assistant),
            },
            Record::Undo,
            Record::DrawOffer {
                color: Color::White,
            },
            Record::DrawAgreed,
            Record::MyMessage {
                plies: 7,
                text: "Thank you for the game".into(),
            },
            Record::Claim { intended: None },
            Record::Claim {
                intended: Some(uci("g1f3")),
            },
            Record::WrongClaim {
                color: Color::Black,
            },
            Record::Resign {
                color: Color::Black,
            },
            Record::Flag {
                color: Color::White,
            },
            Record::Adjust {
                color: Color::White,
                delta_ms: -120_000,
            },
            Record::Adjust {
                color: Color::Black,
                delta_ms: 120_000,
            },
            Record::Penalty {
                color: Color::Black,
            },
            Record::DayPenalty {
                color: Color::White,
            },
            Record::Leave {
                leave: "leave black 2026-12-20 2027-01-05".parse().unwrap(),
            },
            Record::Result {
                result: GameResult::Draw,
            },
            Record::Pause,
            Record::Resume,
            Record::HoldForSetUp,
            Record::Sheet {
                side: Side::B,
                moves: vec![uci("e2e4"), uci("e7e5")],
            },
            Record::Sheet {
                side: Side::A,
                moves: vec![],
            },
            Record::Retract { plies: 3 },
            Record::Rebase { charged_ms: 5 },
            Record::Tag {
                tag: GameTag::White,
                value: "Anna Müller".into(),
            },
            Record::sheets_pending(None, None, &[]),
            Record::sheets_pending(Some(Side::A), None, &[]),
            Record::sheets_pending(
                Some(Side::B),
                Some(12),
                &[
                    "Sheet a has 7.Nf3, sheet b 7.Bc4:  the sheets differ.".into(),
                    String::new(),
                    "Both boards || show 7.Bc4.".into(),
                ],
            ),
            Record::sheets_pending(None, Some(0), &["x".repeat(2000), "y".repeat(2000)]),
        ];
        for r in records {
            let line = r.to_string();
            assert!(!line.contains('\n'));
            assert_eq!(line.parse::<Record>(), Ok(r), "{line}");
        }
    }

    #[test]
    fn a_pending_procedure_keeps_its_explanation_line_by_line() {
        let r = Record::sheets_pending(
            None,
            Some(3),
            &[
                "a  b".into(),
                String::new(),
                "c || d".into(),
                "e ||| f".into(),
            ],
        );
        assert_eq!(r.to_string(), "sheets-pending - 3 a b || c | d || e | f");
        assert_eq!(r.to_string().parse::<Record>(), Ok(r.clone()));
        let Record::SheetsPending { explanation, .. } = r else {
            unreachable!()
        };
        assert_eq!(explanation, ["a b", "c | d", "e | f"]);
        // Without a takeback there is nothing to explain; a long explanation is cut by lines.
        let lag = Record::sheets_pending(Some(Side::A), None, &["why".into()]);
        assert_eq!(lag.to_string(), "sheets-pending a -");
        let lines: Vec<String> = ["a", "c", "d", "e", "f"]
            .iter()
            .map(|l| l.repeat(700))
            .collect();
        let long = Record::sheets_pending(None, Some(0), &lines).to_string();
        assert!(long.len() < MAX_RECORD_BYTES - 40);
        assert!(long.contains(&"e".repeat(700)) && !long.contains('f'));
    }

    #[test]
    fn corrupt_lines_are_errors_that_say_why() {
        for (line, want) in [
            ("", "empty record"),
            ("jump e2e4", "unknown record \"jump\""),
            ("move e2e4", "\"move\" with 1 word(s) after it is malformed"),
            ("undo now", "\"undo\" with 1 word(s) after it is malformed"),
            ("flag green", "expected white or black"),
            ("adjust white lots", "no number of milliseconds"),
            (
                "begin 2 300 8/8/8/8/8/8/8/8 w - - 0 1",
                "chess960 is 0 or 1",
            ),
            ("begin 0", "begin needs"),
            ("move e2e4 ghost", "unknown move source"),
        ] {
            let err = line.parse::<Record>().unwrap_err().to_string();
            assert!(err.contains(want), "{line:?}: {err}");
        }
        assert!("x".repeat(MAX_RECORD_BYTES + 1).parse::<Record>().is_err());
    }

    #[test]
    fn record_errors_read_as_before() {
        let e = |line: &str| line.parse::<Record>().unwrap_err().to_string();
        for (line, want) in [
            ("", "empty record"),
            (
                &"k".repeat(50),
                &format!("unknown record \"{}\"", "k".repeat(40)),
            ),
            ("move e2e4", "\"move\" with 1 word(s) after it is malformed"),
            (
                "move e2e4 ghost",
                "unknown move source \"ghost\"; peg, normal or a role",
            ),
            ("move e2e9 peg", "\"e2e9\" is no UCI move: invalid uci"),
            (
                "sheet a e2e4 abcdefghijklmnop",
                "\"abcdefghijkl\" is no UCI move: invalid uci",
            ),
            ("flag green", "expected white or black, not \"green\""),
            ("begin 2 300 8/8", "begin: chess960 is 0 or 1, not \"2\""),
            ("begin 0", "begin needs chess960, a time control and a FEN"),
            (
                "adjust white lots",
                "adjust: \"lots\" is no number of milliseconds",
            ),
            (
                "result 2-0",
                "result: \"2-0\" is no result; 1-0, 0-1 or 1/2-1/2",
            ),
            ("sheet c", "sheet: side a or b, not \"c\""),
            ("sheets-pending c -", "sheet: side a or b, not \"c\""),
            (
                "sheets-pending - x",
                "retract: \"x\" is no number of half-moves",
            ),
            (
                "sheets-pending a",
                "\"sheets-pending\" with 1 word(s) after it is malformed",
            ),
            ("retract x", "retract: \"x\" is no number of half-moves"),
            ("rebase x", "rebase: \"x\" is no number of milliseconds"),
            (
                "tag colour x",
                "tag: \"colour\" is no tag; white, black, event, site or round",
            ),
        ] {
            assert_eq!(e(line), want, "{line:?}");
        }
        assert_eq!(
            e("leave black someday"),
            "leave black someday"
                .parse::<Leave>()
                .unwrap_err()
                .to_string()
        );
        assert_eq!(
            e(&"x".repeat(MAX_RECORD_BYTES + 1)),
            "record of 4097 bytes; at most 4096"
        );
        assert_eq!(
            Entry::parse("99999999999999999999999 undo", 0)
                .unwrap_err()
                .to_string(),
            "table time \"99999999999999999999999\" is out of range"
        );
    }
}
