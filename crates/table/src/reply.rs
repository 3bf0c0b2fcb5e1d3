//! What a table answers to a control request, as typed values, and the one encoder of each into
//! the text after `ok` in the control protocol's reply line (`docs/control-protocol.md`).
//! A refusal is a [`Refusal`] (`error <code> <message>`).

use std::fmt;

use shakmaty::{Bitboard, Board, Color, Role, Square};

use crate::control::{GameTag, Refusal, ok_line};
use crate::reconcile::Side;
use annabella_chess::game::GameResult;
use annabella_chess::scoresheet::format_clock;

/// A table's answer to a request, or why it refused.
pub type Reply = Result<Answer, Refusal>;

/// The reply's line in the control protocol.
pub fn reply_line(reply: &Reply) -> String {
    match reply {
        Ok(answer) => ok_line(&answer.to_string()),
        Err(refusal) => refusal.line(),
    }
}

/// How a board stands with the game, for `status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardSync {
    /// It differs and its player is being guided back.
    Differs,
    /// It still owes a move the table entered (the opponent's, to replicate).
    OwesMove,
    InSync,
}

/// One physical board in `status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardStatus {
    pub connected: bool,
    pub sync: BoardSync,
}

/// `status`: the table at a glance, as `key value` pairs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    pub table: String,
    pub ply: usize,
    pub turn: Color,
    /// The PGN result (`*` while the game runs).
    pub result: &'static str,
    pub peg: BoardStatus,
    /// `None`: the sighted side plays on no e-board (moves come over the control interface).
    pub normal: Option<BoardStatus>,
    pub draw_offer: Option<Color>,
    /// A pawn waiting on the peg board's last rank for its piece.
    pub promotion: Option<(Square, Square)>,
}

/// `view`: everything a page needs to show the table as it is, for a page opened late, reloaded
/// or reconnected; its reply is one JSON object (`docs/control-protocol.md`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageView {
    pub table: String,
    /// The table's language code: the words below are in it.
    pub lang: String,
    pub fen: String,
    pub ply: usize,
    pub turn: &'static str,
    pub peg_side: &'static str,
    pub time_control: String,
    pub white: Option<String>,
    pub black: Option<String>,
    pub last_move: Option<PageMove>,
    /// The PGN result (`*` while the game runs).
    pub result: &'static str,
    pub end: Option<PageEnd>,
    pub peg: PageBoard,
    pub normal: Option<PageBoard>,
    /// The two-sheet procedure (D.2.9) while it is open.
    pub procedure: Option<PageProcedure>,
    pub draw_offer: Option<&'static str>,
    /// A pawn waiting on the peg board's last rank for its piece (`e7e8`).
    pub promotion: Option<String>,
}

/// The last move in the table's letters and words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageMove {
    pub uci: String,
    pub san_local: String,
    pub words: String,
    pub number: u32,
    pub color: &'static str,
}

/// How the game ended, in the table's words ("Weiß gewinnt").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageEnd {
    pub result: &'static str,
    pub words: String,
}

/// One physical board: its link, whether it agrees, and the correction its player is told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageBoard {
    pub connected: bool,
    /// `in-sync`, `differs` or `owes-move`.
    pub sync: &'static str,
    pub guide: Option<String>,
}

/// The two-sheet procedure's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageProcedure {
    /// The takeback proposed to the arbiter: back to this many half-moves.
    pub proposal_plies: Option<usize>,
    pub explain: Vec<String>,
    /// The sheet that lags (`a` or `b`), its player asked to confirm.
    pub lagging: Option<&'static str>,
}

impl PageView {
    /// The reply's JSON object (`docs/control-protocol.md`, `view`).
    pub fn json(&self) -> serde_json::Value {
        use serde_json::json;
        let board =
            |b: &PageBoard| json!({"connected": b.connected, "sync": b.sync, "guide": b.guide});
        json!({
            "table": self.table, "lang": self.lang, "fen": self.fen, "ply": self.ply,
            "turn": self.turn, "peg_side": self.peg_side, "time_control": self.time_control,
            "white": self.white, "black": self.black,
            "last_move": self.last_move.as_ref().map(|m| json!({
                "uci": m.uci, "san_local": m.san_local, "words": m.words,
                "number": m.number, "color": m.color
            })),
            "result": self.result,
            "end": self.end.as_ref().map(|e| json!({"result": e.result, "words": e.words})),
            "peg": board(&self.peg),
            "normal": self.normal.as_ref().map(board),
            "procedure": self.procedure.as_ref().map(|p| json!({
                "proposal_plies": p.proposal_plies, "explain": p.explain, "lagging": p.lagging
            })),
            "draw_offer": self.draw_offer,
            "promotion": self.promotion,
        })
    }
}

impl BoardSync {
    pub fn keyword(self) -> &'static str {
        match self {
            BoardSync::Differs => "differs",
            BoardSync::OwesMove => "owes-move",
            BoardSync::InSync => "in-sync",
        }
    }
}

/// `boards`: what each physical board shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Boards {
    pub peg_connected: bool,
    /// The peg board's holes, as its `S` snapshot line writes them.
    pub peg_holes: String,
    /// The pieces the detector believes stand in the peg board's holes.
    pub peg_believed: Board,
    /// The e-board: connected, and the pieces it shows; `None` without one.
    pub normal: Option<(bool, Board)>,
}

/// What the table answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// `move`: played; UCI and SAN in the asker's letters.
    Played {
        uci: String,
        san: String,
    },
    /// `board`: the position.
    Position {
        fen: String,
    },
    /// `clock`: both clocks, the moves played, whose clock runs.
    Clock {
        white_ms: u64,
        black_ms: u64,
        moves: u32,
        running: Option<Color>,
    },
    /// `sheet`, `sheet a|b`: a move list.
    Moves(String),
    Status(Status),
    Boards(Boards),
    DrawOffered {
        by: Color,
    },
    DrawAgreed,
    /// A correct claim, with its reason in words.
    DrawByClaim {
        reason: String,
    },
    Resigned {
        by: Color,
    },
    Withdrawn {
        uci: String,
    },
    /// The arbiter changed `color`'s clock; what is left.
    ClockAdjusted {
        color: Color,
        remaining_ms: u64,
    },
    /// The first illegal move of `by`: the opponent got the penalty time.
    PenaltyTime {
        by: Color,
        opponent_ms: u64,
    },
    /// The second illegal move of `by`: the game is over.
    SecondIllegalMove {
        by: Color,
    },
    /// `result`: the arbiter's result stands; the game is over.
    ResultDeclared {
        result: GameResult,
    },
    ClockRunning {
        running: bool,
    },
    /// `record`: the sheet as kept, what of it was not, and the comparison's verdict.
    SheetRecorded {
        side: Side,
        plies: usize,
        skipped: Option<String>,
        verdict: String,
    },
    SheetConfirmed {
        side: Side,
        verdict: String,
    },
    SheetDisputed {
        side: Side,
        verdict: String,
    },
    TakebackDropped,
    TakenBack {
        plies: usize,
        white_ms: u64,
        black_ms: u64,
    },
    /// `parse`: what the table would understand.
    Parsed {
        uci: String,
        san: String,
        spoken: String,
    },
    /// `export`: the text, sent as one JSON string.
    Export {
        text: String,
    },
    /// `promote`: the pending promotion was played.
    Promoted {
        uci: String,
    },
    /// `promote` before the pawn arrives: kept for the next promotion.
    PromotionChosen {
        piece: Role,
    },
    /// `new-game`: the next game begins at this position.
    NewGame {
        fen: String,
    },
    /// `tag`: the game's tag is set.
    Tagged {
        tag: GameTag,
        value: String,
    },
    /// `view`: the table's whole state for a page (one JSON object).
    View(Box<PageView>),
    /// `penalty` in a correspondence game: `by` is charged days; both sides' totals now.
    DaysCharged {
        by: Color,
        total_days: [u64; 2],
    },
    /// `leave`: the days of leave are kept.
    LeaveTaken {
        leave: String,
    },
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

impl fmt::Display for BoardStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}",
            if self.connected {
                "connected"
            } else {
                "disconnected"
            },
            match self.sync {
                BoardSync::Differs => "differs",
                BoardSync::OwesMove => "owes-move",
                BoardSync::InSync => "in-sync",
            }
        )
    }
}

fn link(connected: bool) -> &'static str {
    if connected {
        "connected"
    } else {
        "disconnected"
    }
}

impl fmt::Display for Answer {
    /// The reply's text after `ok`: the one place reply texts are written.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Played { uci, san } => write!(f, "{uci} {san}"),
            Answer::Position { fen } => f.write_str(fen),
            Answer::Clock {
                white_ms,
                black_ms,
                moves,
                running,
            } => write!(
                f,
                "white {} black {} moves {moves} running {}",
                format_clock(*white_ms),
                format_clock(*black_ms),
                running.map_or("none", color_name)
            ),
            Answer::Moves(text) => f.write_str(text),
            Answer::Status(s) => {
                write!(
                    f,
                    "table {} ply {} turn {} result {} peg {} normal ",
                    s.table,
                    s.ply,
                    color_name(s.turn),
                    s.result,
                    s.peg
                )?;
                match &s.normal {
                    Some(b) => write!(f, "{b}")?,
                    None => f.write_str("virtual")?,
                }
                write!(
                    f,
                    " draw-offer {} promotion ",
                    s.draw_offer.map_or("none", color_name)
                )?;
                match s.promotion {
                    Some((from, to)) => write!(f, "{from}{to}"),
                    None => f.write_str("none"),
                }
            }
            Answer::Boards(b) => {
                write!(
                    f,
                    "peg {} {} {} normal ",
                    link(b.peg_connected),
                    b.peg_holes,
                    b.peg_believed
                )?;
                match &b.normal {
                    None => f.write_str("virtual"),
                    Some((connected, board)) => write!(f, "{} {board}", link(*connected)),
                }
            }
            Answer::DrawOffered { by } => write!(f, "{} offers a draw", color_name(*by)),
            Answer::DrawAgreed => f.write_str("draw agreed"),
            Answer::DrawByClaim { reason } => write!(f, "draw by {reason}"),
            Answer::Resigned { by } => write!(f, "{} resigns", color_name(*by)),
            Answer::Withdrawn { uci } => write!(f, "withdrawn {uci}"),
            Answer::ClockAdjusted {
                color,
                remaining_ms,
            } => write!(f, "{} {}", color_name(*color), format_clock(*remaining_ms)),
            Answer::PenaltyTime { by, opponent_ms } => write!(
                f,
                "{} gets the penalty time; {} left",
                color_name(!*by),
                format_clock(*opponent_ms)
            ),
            Answer::ResultDeclared { result } => write!(f, "result {}", result.pgn()),
            Answer::SecondIllegalMove { by } => write!(
                f,
                "second illegal move by {}: the game is over",
                color_name(*by)
            ),
            Answer::ClockRunning { running } => f.write_str(if *running {
                "clock running"
            } else {
                "clock paused"
            }),
            Answer::SheetRecorded {
                side,
                plies,
                skipped,
                verdict,
            } => {
                write!(f, "sheet {side}: {plies} half-moves")?;
                if let Some(skipped) = skipped {
                    write!(f, "; {skipped}")?;
                }
                write!(f, "; {verdict}")
            }
            Answer::SheetConfirmed { side, verdict } => {
                write!(f, "sheet {side} confirmed; {verdict}")
            }
            Answer::SheetDisputed { side, verdict } => {
                write!(f, "sheet {side} disputed; {verdict}")
            }
            Answer::TakebackDropped => f.write_str("the proposed takeback is dropped"),
            Answer::TakenBack {
                plies,
                white_ms,
                black_ms,
            } => write!(
                f,
                "back to {plies} half-moves; white {} black {}",
                format_clock(*white_ms),
                format_clock(*black_ms)
            ),
            Answer::Parsed { uci, san, spoken } => write!(f, "{uci} {san} {spoken}"),
            Answer::Export { text } => f.write_str(&json_string(text)),
            Answer::Promoted { uci } => f.write_str(uci),
            Answer::NewGame { fen } => write!(f, "new game {fen}"),
            Answer::Tagged { tag, value } => write!(f, "{tag} {value}"),
            Answer::DaysCharged { by, total_days } => write!(
                f,
                "{} is charged the penalty days; days used white {} black {}",
                color_name(*by),
                total_days[0],
                total_days[1]
            ),
            Answer::LeaveTaken { leave } => f.write_str(leave),
            Answer::View(view) => write!(f, "{}", view.json()),
            Answer::PromotionChosen { piece } => write!(
                f,
                "{} chosen for the next promotion",
                annabella_chess::role_name(*piece)
            ),
        }
    }
}

/// `text` as one JSON string literal: an export fits on one reply line.
fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The peg board's holes as its snapshot line (`S…`), for `boards`.
pub fn holes(occupancy: Bitboard) -> String {
    annabella_boards::peg::encode(&annabella_boards::SensorEvent::Occupancy(occupancy))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_read_as_documented() {
        let status = Answer::Status(Status {
            table: "table-1".into(),
            ply: 3,
            turn: Color::Black,
            result: "*",
            peg: BoardStatus {
                connected: true,
                sync: BoardSync::OwesMove,
            },
            normal: None,
            draw_offer: Some(Color::White),
            promotion: None,
        });
        assert_eq!(
            status.to_string(),
            "table table-1 ply 3 turn black result * peg connected owes-move normal virtual \
             draw-offer white promotion none"
        );
        assert_eq!(
            reply_line(&Ok(Answer::Export {
                text: "1. e4 \"x\"\n".into()
            })),
            "ok \"1. e4 \\\"x\\\"\\n\""
        );
        assert_eq!(
            Answer::PenaltyTime {
                by: Color::White,
                opponent_ms: 61_000
            }
            .to_string(),
            "black gets the penalty time; 0:01:01 left"
        );
    }
}
