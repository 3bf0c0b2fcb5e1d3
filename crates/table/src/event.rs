//! What a table tells the world, as typed values: the events subscribers follow, the words it
//! says to each listener with their urgency, and the one encoder of each into the control
//! protocol's `event …` lines (`docs/control-protocol.md`).
//!
//! The page gets the same values through its own encoder in the web adapter (fields by name),
//! and the speech adapter reads [`Urgency`] from the [`Say`] itself: there is one list of what is
//! urgent, and it is here, in the code that decides to say something.

use std::fmt;
use std::str::FromStr;

use shakmaty::Color;

pub use crate::control::one_line;
use crate::corrections::Correction;
use crate::reconcile::Side;
use crate::record::Source;
use annabella_boards::BoardKey;
use annabella_chess::game::GameResult;

/// Who an utterance is meant for. Speech backends and transcripts carry it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Listener {
    /// The blind or visually impaired player at the peg board.
    BlindPlayer,
    /// The sighted opponent (or the assistant relaying for him).
    Opponent,
    /// The arbiter.
    Arbiter,
    /// Everybody at the table.
    Everyone,
}

impl fmt::Display for Listener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Listener::BlindPlayer => "blind",
            Listener::Opponent => "opponent",
            Listener::Arbiter => "arbiter",
            Listener::Everyone => "all",
        })
    }
}

impl FromStr for Listener {
    type Err = String;

    /// The inverse of `Display`, so that transcripts can be read back.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "blind" => Ok(Listener::BlindPlayer),
            "opponent" => Ok(Listener::Opponent),
            "arbiter" => Ok(Listener::Arbiter),
            "all" => Ok(Listener::Everyone),
            _ => Err(format!(
                "unknown listener `{s}`: expected blind, opponent, arbiter or all"
            )),
        }
    }
}

/// Which of the table's two boards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardId {
    /// The blind player's tactile board (occupancy sensors).
    Peg,
    /// The sighted player's electronic board (piece identity), when there is one.
    Normal,
}

impl fmt::Display for BoardId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BoardId::Peg => "peg",
            BoardId::Normal => "normal",
        })
    }
}

/// How an utterance may treat what is being said when it arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Urgency {
    /// Said after what is queued (a move, a confirmation).
    Polite,
    /// Interrupts a long phrase (an illegal position, a flag, a takeback): the speech says it
    /// at once and the page's live region announces it assertively.
    Urgent,
}

impl Urgency {
    pub fn is_urgent(self) -> bool {
        self == Urgency::Urgent
    }
}

/// What an utterance is about, for the outputs that treat some utterances specially: an audio
/// record that numbers the moves, a speech queue that repeats a move cut off by an urgent call
/// and drops a clock call that a later one has made stale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum About {
    /// A move: its number (the full-move number) and who made it.
    Move { number: u32, color: Color },
    /// The talking clock calling `color`'s time by itself.
    ClockCall { color: Color, remaining_ms: u64 },
    /// Anything else: a confirmation, guidance, a result, an answer to a key.
    Other,
}

/// Words for one listener.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Say {
    pub listener: Listener,
    pub text: String,
    pub urgency: Urgency,
    pub about: About,
    /// The language of the words (the table's code, "de"): the page marks each announcement
    /// with it, so a screen reader reads it with the right voice (WCAG 3.1.2).
    pub lang: &'static str,
}

/// How the two-sheet procedure (D.2.9) ended this time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResolutionEvent {
    /// Both sheets agree up to `plies` half-moves.
    Agree { plies: usize },
    /// `side`'s sheet lacks these moves (UCI); they were read out to its player.
    Lagging { side: Side, missing: Vec<String> },
    /// The sheets differ: a takeback to `plies` half-moves is proposed to the arbiter, cutting
    /// these moves (UCI) from each sheet, with the clocks' used time at that move.
    Proposed {
        plies: usize,
        retract_a: Vec<String>,
        retract_b: Vec<String>,
        used_white_ms: u64,
        used_black_ms: u64,
    },
    /// The arbiter rejected the proposal; the game stands.
    Rejected,
}

/// Something that happened at a table, for `events` subscribers and the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableEvent {
    /// A new game from this position with this time control.
    Begin {
        time_control: String,
        fen: String,
    },
    /// The table was rebuilt from its journal after a restart.
    Restored {
        ply: usize,
        fen: String,
    },
    /// After a restart the running clock was charged for the time it ran (and the downtime,
    /// when configured).
    Resumed {
        downtime_ms: u64,
        charged_ms: u64,
    },
    /// A move was played into the game (`ply`: the game's half-moves after it; `san` in English
    /// letters).
    Move {
        ply: usize,
        color: Color,
        uci: String,
        san: String,
        source: Source,
        /// The move as the table writes and says it: SAN in its language's letters ("Sf3"),
        /// its words ("Springer Felix drei") and its full-move number (for the page; the
        /// event line keeps the English SAN).
        san_local: String,
        words: String,
        number: u32,
    },
    /// Words said to a listener.
    Say(Say),
    /// A board sent something that could not be decoded, or the board is not at this table.
    BoardError {
        board: BoardId,
        message: String,
    },
    /// A board shows the game again.
    InSync {
        board: BoardId,
    },
    /// What a board's detector concluded, as `Conclusion::describe` writes it.
    Detected {
        board: BoardId,
        description: String,
    },
    /// The blind player broke the touch-move rule (D.2.2) but his move stands.
    TouchMove {
        board: BoardId,
        warning: String,
    },
    /// A move a board showed was not accepted.
    Refused {
        board: BoardId,
        reason: String,
    },
    /// The corrections that bring a board back to the game, first one said.
    Guide {
        board: BoardId,
        corrections: Vec<Correction>,
    },
    /// An occupancy board cannot tell which piece stands in a hole.
    Unverifiable {
        board: BoardId,
    },
    /// A board's link came up or went down.
    Link {
        board: BoardId,
        up: bool,
        detail: String,
    },
    /// A key on the peg board's strip.
    Key(BoardKey),
    /// The game is over.
    End {
        result: GameResult,
        description: String,
    },
    DrawOffer {
        color: Color,
    },
    /// A draw claim was refused; the opponent got the penalty time.
    WrongClaim {
        color: Color,
        why: String,
    },
    /// The last move (UCI) was withdrawn.
    Undo {
        uci: String,
    },
    /// A result shown on a board (DGT's kings gesture), for the arbiter to confirm with
    /// `result`.
    ResultOffered {
        board: BoardId,
        result: GameResult,
    },
    /// The arbiter changed a clock.
    ClockAdjusted {
        color: Color,
        delta_ms: i64,
        remaining_ms: u64,
    },
    /// The arbiter ruled an illegal move (the `count`th of `color`).
    Penalty {
        color: Color,
        count: u32,
    },
    /// The arbiter stopped (`running: false`) or restarted the clocks.
    ClockRunning {
        running: bool,
    },
    /// The two-sheet procedure's verdict.
    Resolution(ResolutionEvent),
    /// A takeback was carried out: back to `plies`, these moves cut, the clocks now.
    Takeback {
        plies: usize,
        retracted: Vec<String>,
        white_ms: u64,
        black_ms: u64,
    },
    /// One line of the reconciliation's explanation.
    Explain {
        line: String,
    },
    /// The journal refused a record: nothing it would have caused happened.
    JournalError {
        message: String,
    },
    /// A resolution was written to the table's record at this path.
    Recorded {
        path: String,
    },
    /// The finished game was archived as PGN at this path.
    Archived {
        path: String,
    },
    /// The correspondence desk: `focus` (the peg board turned to this game), `away` (to
    /// another), `set-up N TEXT` (instruction N of the set-up, in the table's words), `ready`
    /// (the peg board shows the game: it plays it now).
    Desk {
        what: String,
    },
    /// A game message: `received PLY`, `refused WHY`, `queued PLY MESSAGE-ID`.
    Mail {
        what: String,
    },
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn join_or_dash(items: &[String]) -> String {
    if items.is_empty() {
        "-".to_owned()
    } else {
        items.join(",")
    }
}

impl TableEvent {
    /// The event's keyword, the first word after `event` in its line.
    pub fn kind(&self) -> &'static str {
        match self {
            TableEvent::Begin { .. } => "begin",
            TableEvent::Restored { .. } => "restored",
            TableEvent::Resumed { .. } => "resumed",
            TableEvent::Move { .. } => "move",
            TableEvent::Say(_) => "say",
            TableEvent::BoardError { .. } => "board-error",
            TableEvent::InSync { .. } => "in-sync",
            TableEvent::Detected { board, .. } => match board {
                BoardId::Peg => "peg",
                BoardId::Normal => "normal",
            },
            TableEvent::TouchMove { .. } => "touch-move",
            TableEvent::Refused { .. } => "refused",
            TableEvent::Guide { .. } => "guide",
            TableEvent::Unverifiable { .. } => "unverifiable",
            TableEvent::Link { .. } => "board",
            TableEvent::Key(_) => "key",
            TableEvent::End { .. } => "end",
            TableEvent::DrawOffer { .. } => "draw-offer",
            TableEvent::WrongClaim { .. } => "wrong-claim",
            TableEvent::Undo { .. } => "undo",
            TableEvent::ResultOffered { .. } => "result-offered",
            TableEvent::ClockAdjusted { .. } => "clock-adjusted",
            TableEvent::Penalty { .. } => "penalty",
            TableEvent::ClockRunning { .. } => "clock",
            TableEvent::Resolution(_) => "resolution",
            TableEvent::Takeback { .. } => "takeback",
            TableEvent::Explain { .. } => "explain",
            TableEvent::JournalError { .. } => "journal-error",
            TableEvent::Recorded { .. } => "recorded",
            TableEvent::Archived { .. } => "archived",
            TableEvent::Desk { .. } => "desk",
            TableEvent::Mail { .. } => "mail",
        }
    }

    /// The control protocol's line for this event (`event move 1 white e2e4 e4 peg`), one line
    /// without its line feed. The only place event lines are written.
    pub fn line(&self) -> String {
        let body = match self {
            TableEvent::Begin { time_control, fen } => format!("{time_control} {fen}"),
            TableEvent::Restored { ply, fen } => format!("ply {ply} {fen}"),
            TableEvent::Resumed {
                downtime_ms,
                charged_ms,
            } => format!("downtime-ms {downtime_ms} charged-ms {charged_ms}"),
            TableEvent::Move {
                ply,
                color,
                uci,
                san,
                source,
                ..
            } => format!("{ply} {} {uci} {san} {source}", color_name(*color)),
            TableEvent::Say(say) => format!("{} {}", say.listener, one_line(&say.text)),
            TableEvent::BoardError { board, message } => {
                format!("{board} {}", one_line(message))
            }
            TableEvent::InSync { board } | TableEvent::Unverifiable { board } => {
                let mut s = board.to_string();
                if matches!(self, TableEvent::Unverifiable { .. }) {
                    s.push_str(" an occupancy board cannot tell which piece stands in a hole");
                }
                s
            }
            TableEvent::Detected { description, .. } => one_line(description),
            TableEvent::TouchMove { board, warning } => format!("{board} {}", one_line(warning)),
            TableEvent::Refused { board, reason } => format!("{board} {}", one_line(reason)),
            TableEvent::Guide { board, corrections } => format!(
                "{board} {}",
                corrections
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            TableEvent::Link { board, up, detail } => format!(
                "{board} {} {}",
                if *up { "connected" } else { "disconnected" },
                one_line(detail)
            ),
            TableEvent::Key(key) => match key {
                BoardKey::Other(c) => format!("peg unknown {}", one_line(&c.to_string())),
                known => format!("peg {}", known.name()),
            },
            TableEvent::End {
                result,
                description,
            } => format!("{} {}", result.pgn(), one_line(description)),
            TableEvent::DrawOffer { color } => color_name(*color).to_owned(),
            TableEvent::WrongClaim { color, why } => {
                format!("{} {}", color_name(*color), one_line(why))
            }
            TableEvent::Undo { uci } => uci.clone(),
            TableEvent::ResultOffered { board, result } => format!("{board} {}", result.pgn()),
            TableEvent::ClockAdjusted {
                color,
                delta_ms,
                remaining_ms,
            } => format!(
                "{} {delta_ms:+} {}",
                color_name(*color),
                annabella_chess::scoresheet::format_clock(*remaining_ms)
            ),
            TableEvent::Penalty { color, count } => {
                format!("{} illegal move {count}", color_name(*color))
            }
            TableEvent::ClockRunning { running } => {
                if *running { "resume" } else { "pause" }.to_owned()
            }
            TableEvent::Resolution(r) => match r {
                ResolutionEvent::Agree { plies } => format!("agree plies {plies}"),
                ResolutionEvent::Lagging { side, missing } => {
                    format!("lagging {side} missing {}", missing.join(","))
                }
                ResolutionEvent::Proposed {
                    plies,
                    retract_a,
                    retract_b,
                    used_white_ms,
                    used_black_ms,
                } => format!(
                    "proposed takeback-to {plies} retract-a {} retract-b {} used-white {} \
                     used-black {}",
                    join_or_dash(retract_a),
                    join_or_dash(retract_b),
                    annabella_chess::scoresheet::format_clock(*used_white_ms),
                    annabella_chess::scoresheet::format_clock(*used_black_ms)
                ),
                ResolutionEvent::Rejected => "rejected".to_owned(),
            },
            TableEvent::Takeback {
                plies,
                retracted,
                white_ms,
                black_ms,
            } => format!(
                "{plies} retracted {} clocks white {} black {}",
                join_or_dash(retracted),
                annabella_chess::scoresheet::format_clock(*white_ms),
                annabella_chess::scoresheet::format_clock(*black_ms)
            ),
            TableEvent::Explain { line } => one_line(line),
            TableEvent::JournalError { message } => one_line(message),
            TableEvent::Recorded { path } | TableEvent::Archived { path } => one_line(path),
            TableEvent::Desk { what } | TableEvent::Mail { what } => one_line(what),
        };
        if body.is_empty() {
            format!("event {}", self.kind())
        } else {
            format!("event {} {body}", self.kind())
        }
    }
}

impl fmt::Display for TableEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.line())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_the_documented_ones() {
        let say = TableEvent::Say(Say {
            listener: Listener::BlindPlayer,
            text: "Eva vier\nzwei".into(),
            urgency: Urgency::Urgent,
            about: About::Other,
            lang: "de",
        });
        assert_eq!(say.line(), "event say blind Eva vier zwei");
        let takeback = TableEvent::Takeback {
            plies: 2,
            retracted: vec!["g1f3".into(), "b8c6".into()],
            white_ms: 61_000,
            black_ms: 59_000,
        };
        assert_eq!(
            takeback.line(),
            "event takeback 2 retracted g1f3,b8c6 clocks white 0:01:01 black 0:00:59"
        );
        assert_eq!(
            TableEvent::ClockRunning { running: false }.line(),
            "event clock pause"
        );
        assert_eq!(
            TableEvent::Key(BoardKey::Other('Y')).line(),
            "event key peg unknown Y"
        );
        assert_eq!(
            TableEvent::Key(BoardKey::ConfirmSheet).line(),
            "event key peg confirm-sheet"
        );
        assert_eq!(
            TableEvent::Unverifiable {
                board: BoardId::Peg
            }
            .line(),
            "event unverifiable peg an occupancy board cannot tell which piece stands in a hole"
        );
    }
}
