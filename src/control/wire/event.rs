//! A table's events on both wires from one list of fields: [`event_fields`] says, for every
//! event, what it carries and how the control protocol's line writes each field; [`event_line`]
//! (`event <kind> …`, `docs/control-protocol.md`) and [`event_json`] (the page's object, fields
//! by name, `docs/web.md`) are both written from it, so the two cannot drift apart.
//!
//! The line's form predates the page and clients match it exactly, so a few fields the page
//! needs have no place on it: they are marked [`Form::PageOnly`], and [`PAGE_ONLY`] lists them,
//! checked by a test.

use shakmaty::{CastlingMode, Color};

use crate::boards::BoardKey;
use crate::chess::scoresheet::format_clock;
use crate::table::control::one_line;
use crate::table::corrections::PieceName;
use crate::table::detector::Conclusion;
use crate::table::event::{BoardId, DeskEvent, MailEvent, ResolutionEvent, TableEvent};

/// One field's value, as both wires carry it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Text(String),
    Int(i64),
    Bool(bool),
    List(Vec<String>),
}

/// How the control line writes a field (the page always has it by name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// The value alone.
    Bare,
    /// A label, then the value: `ply 3`.
    After(&'static str),
    /// The value, then text: `e7e8: choose the new piece`.
    Before(&'static str),
    /// A number with its sign: `+60000`.
    Signed,
    /// A flag as one of two words (an empty word writes nothing).
    Words(&'static str, &'static str),
    /// A list, joined; `empty` when it has no items; after a label when there is one.
    Joined {
        label: Option<&'static str>,
        sep: &'static str,
        empty: &'static str,
    },
    /// Not written: the line's keyword says it (`event peg move e2e4`).
    Kind,
    /// The page's alone (see [`PAGE_ONLY`]).
    PageOnly,
}

/// One field: its name on the page, its value, its form on the line.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: &'static str,
    pub value: Value,
    pub form: Form,
}

/// An event's keyword and fields, in the line's order.
#[derive(Clone, Debug, PartialEq)]
pub struct EventFields {
    pub kind: &'static str,
    pub fields: Vec<Field>,
}

/// The fields the page has and the line does not, by event kind, and why: the line's published
/// form has no place for them (clients match `event move 1 white e2e4 e4 peg` and
/// `event say blind in Ordnung` exactly, and a say line's text runs to its end).
pub const PAGE_ONLY: &[(&str, &str)] = &[
    // The move in the table's letters and words, and its number, for the page's announcement.
    ("move", "san_local"),
    ("move", "words"),
    ("move", "number"),
    // How the page's live region announces the words, and in which language (WCAG 3.1.2).
    ("say", "urgent"),
    ("say", "lang"),
];

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// Builds one event's field list.
struct Fields(Vec<Field>);

impl Fields {
    fn add(mut self, name: &'static str, value: Value, form: Form) -> Fields {
        self.0.push(Field { name, value, form });
        self
    }
    fn text(self, name: &'static str, value: impl Into<String>) -> Fields {
        self.add(name, Value::Text(value.into()), Form::Bare)
    }
    fn labelled(self, name: &'static str, label: &'static str, value: impl Into<String>) -> Fields {
        self.add(name, Value::Text(value.into()), Form::After(label))
    }
    fn int(self, name: &'static str, value: impl TryInto<i64>) -> Fields {
        let value = value.try_into().unwrap_or(i64::MAX);
        self.add(name, Value::Int(value), Form::Bare)
    }
    fn int_after(
        self,
        name: &'static str,
        label: &'static str,
        value: impl TryInto<i64>,
    ) -> Fields {
        let value = value.try_into().unwrap_or(i64::MAX);
        self.add(name, Value::Int(value), Form::After(label))
    }
    fn board(self, board: BoardId) -> Fields {
        self.text("board", board.to_string())
    }
    fn color(self, color: Color) -> Fields {
        self.text("color", color_name(color))
    }
    fn list(self, name: &'static str, items: Vec<String>, form: Form) -> Fields {
        self.add(name, Value::List(items), form)
    }
    fn page_only(self, name: &'static str, value: Value) -> Fields {
        self.add(name, value, Form::PageOnly)
    }
}

/// A list written with commas, `-` for none (takebacks, proposals).
fn commas(label: &'static str) -> Form {
    Form::Joined {
        label: Some(label),
        sep: ",",
        empty: "-",
    }
}

/// Corrections written one after another with semicolons.
const CORRECTIONS: Form = Form::Joined {
    label: None,
    sep: "; ",
    empty: "",
};

/// Every event's keyword and fields: the one place an event's wire forms are decided.
pub fn event_fields(event: &TableEvent) -> EventFields {
    let f = Fields(Vec::new());
    let (kind, f) = match event {
        TableEvent::Begin { time_control, fen } => (
            "begin",
            f.text("time_control", time_control.as_str())
                .text("fen", fen.as_str()),
        ),
        TableEvent::Restored { ply, fen } => (
            "restored",
            f.int_after("ply", "ply", *ply).text("fen", fen.as_str()),
        ),
        TableEvent::Resumed {
            downtime_ms,
            charged_ms,
        } => (
            "resumed",
            f.int_after("downtime_ms", "downtime-ms", *downtime_ms)
                .int_after("charged_ms", "charged-ms", *charged_ms),
        ),
        TableEvent::Move {
            ply,
            color,
            uci,
            san,
            source,
            san_local,
            words,
            number,
        } => (
            "move",
            f.int("ply", *ply)
                .color(*color)
                .text("uci", uci.as_str())
                .text("san", san.as_str())
                .text("source", source.to_string())
                .page_only("san_local", Value::Text(san_local.clone()))
                .page_only("words", Value::Text(words.clone()))
                .page_only("number", Value::Int(i64::from(*number))),
        ),
        TableEvent::Say(say) => (
            "say",
            f.text("listener", say.listener.to_string())
                .text("text", say.text.as_str())
                .page_only("urgent", Value::Bool(say.urgency.is_urgent()))
                .page_only("lang", Value::Text(say.lang.to_owned())),
        ),
        TableEvent::BoardError { board, message } => (
            "board-error",
            f.board(*board).text("message", message.as_str()),
        ),
        TableEvent::InSync { board } => ("in-sync", f.board(*board)),
        TableEvent::Detected {
            board,
            conclusion,
            mode,
        } => (
            match board {
                BoardId::Peg => "peg",
                BoardId::Normal => "normal",
            },
            conclusion_fields(
                f.add("board", Value::Text(board.to_string()), Form::Kind),
                conclusion,
                *mode,
            ),
        ),
        TableEvent::TouchMove { board, warning } => (
            "touch-move",
            f.board(*board).text("warning", warning.as_str()),
        ),
        TableEvent::Refused { board, reason } => {
            ("refused", f.board(*board).text("reason", reason.as_str()))
        }
        TableEvent::Guide { board, corrections } => (
            "guide",
            f.board(*board).list(
                "corrections",
                corrections.iter().map(ToString::to_string).collect(),
                CORRECTIONS,
            ),
        ),
        TableEvent::Unverifiable { board } => (
            "unverifiable",
            f.board(*board).text(
                "note",
                "an occupancy board cannot tell which piece stands in a hole",
            ),
        ),
        TableEvent::Link { board, up, detail } => (
            "board",
            f.board(*board)
                .add(
                    "up",
                    Value::Bool(*up),
                    Form::Words("connected", "disconnected"),
                )
                .text("detail", detail.as_str()),
        ),
        TableEvent::Key(key) => (
            "key",
            match key {
                BoardKey::Other(c) => f.text("board", "peg").labelled("key", "unknown", *c),
                known => f.text("board", "peg").text("key", known.name()),
            },
        ),
        TableEvent::End {
            result,
            description,
        } => (
            "end",
            f.text("result", result.pgn())
                .text("description", description.as_str()),
        ),
        TableEvent::DrawOffer { color } => ("draw-offer", f.color(*color)),
        TableEvent::WrongClaim { color, why } => {
            ("wrong-claim", f.color(*color).text("why", why.as_str()))
        }
        TableEvent::Undo { uci } => ("undo", f.text("uci", uci.as_str())),
        TableEvent::ResultOffered { board, result } => (
            "result-offered",
            f.board(*board).text("result", result.pgn()),
        ),
        TableEvent::ClockAdjusted {
            color,
            delta_ms,
            remaining_ms,
        } => (
            "clock-adjusted",
            f.color(*color)
                .add("delta_ms", Value::Int(*delta_ms), Form::Signed)
                .text("remaining", format_clock(*remaining_ms)),
        ),
        TableEvent::Penalty { color, count } => (
            "penalty",
            f.color(*color).int_after("count", "illegal move", *count),
        ),
        TableEvent::ClockRunning { running } => (
            "clock",
            f.add(
                "running",
                Value::Bool(*running),
                Form::Words("resume", "pause"),
            ),
        ),
        TableEvent::Resolution(r) => ("resolution", resolution_fields(f, r)),
        TableEvent::Takeback {
            plies,
            retracted,
            white_ms,
            black_ms,
        } => (
            "takeback",
            f.int("plies", *plies)
                .list("retracted", retracted.clone(), commas("retracted"))
                .labelled("white", "clocks white", format_clock(*white_ms))
                .labelled("black", "black", format_clock(*black_ms)),
        ),
        TableEvent::Explain { line } => ("explain", f.text("text", line.as_str())),
        TableEvent::JournalError { message } => {
            ("journal-error", f.text("message", message.as_str()))
        }
        TableEvent::Recorded { path } => ("recorded", f.text("path", path.as_str())),
        TableEvent::Archived { path } => ("archived", f.text("path", path.as_str())),
        TableEvent::Desk(desk) => ("desk", desk_fields(f, desk)),
        TableEvent::Mail(mail) => ("mail", mail_fields(f, mail)),
    };
    EventFields { kind, fields: f.0 }
}

fn resolution_fields(f: Fields, r: &ResolutionEvent) -> Fields {
    match r {
        ResolutionEvent::Agree { plies } => f
            .text("verdict", "agree")
            .int_after("plies", "plies", *plies),
        ResolutionEvent::Lagging { side, missing } => f
            .text("verdict", "lagging")
            .text("side", side.to_string())
            .list(
                "missing",
                missing.clone(),
                Form::Joined {
                    label: Some("missing"),
                    sep: ",",
                    empty: "",
                },
            ),
        ResolutionEvent::Proposed {
            plies,
            retract_a,
            retract_b,
            used_white_ms,
            used_black_ms,
        } => f
            .text("verdict", "proposed")
            .int_after("plies", "takeback-to", *plies)
            .list("retract_a", retract_a.clone(), commas("retract-a"))
            .list("retract_b", retract_b.clone(), commas("retract-b"))
            .labelled("used_white", "used-white", format_clock(*used_white_ms))
            .labelled("used_black", "used-black", format_clock(*used_black_ms)),
        ResolutionEvent::Rejected => f.text("verdict", "rejected"),
    }
}

fn desk_fields(f: Fields, desk: &DeskEvent) -> Fields {
    match desk {
        DeskEvent::Focus => f.text("what", "focus"),
        DeskEvent::Away => f.text("what", "away"),
        DeskEvent::Ready => f.text("what", "ready"),
        DeskEvent::Plan { steps } => f.text("what", "plan").int("steps", *steps),
        DeskEvent::SetUp { step, code, words } => f
            .text("what", "set-up")
            .int("step", *step)
            .text("code", code.as_str())
            .text("words", words.as_str()),
    }
}

fn mail_fields(f: Fields, mail: &MailEvent) -> Fields {
    match mail {
        MailEvent::Received { ply, summary } => f
            .text("what", "received")
            .int("ply", *ply)
            .text("summary", summary.as_str()),
        MailEvent::Refused { why } => f.text("what", "refused").text("why", why.as_str()),
        MailEvent::Queued { ply, message_id } => f
            .text("what", "queued")
            .int("ply", *ply)
            .text("message_id", message_id.as_str()),
    }
}

/// A detector's conclusion: a keyword (`what`), then its details in English; moves in UCI for
/// `mode` (Chess960: king takes rook).
fn conclusion_fields(f: Fields, c: &Conclusion, mode: CastlingMode) -> Fields {
    match c {
        Conclusion::Touched { square, piece } => f
            .text("what", "touched")
            .text("square", square.to_string())
            .text("piece", PieceName(*piece).to_string()),
        // A touch-move warning goes on a line of its own (`touch-move …`), so that the move
        // line is always exactly `move <uci>`.
        Conclusion::Moved { m, .. } => f
            .text("what", "move")
            .text("uci", m.to_uci(mode).to_string()),
        Conclusion::Replicated { m } => f
            .text("what", "replicated")
            .text("uci", m.to_uci(mode).to_string()),
        Conclusion::PromotionPending { from, to } => f.text("what", "promotion-pending").add(
            "uci",
            Value::Text(format!("{from}{to}")),
            Form::Before(": choose the new piece"),
        ),
        Conclusion::Illegal {
            reason,
            corrections,
        } => f
            .text("what", "illegal")
            .add("reason", Value::Text(reason.to_string()), Form::Before(";"))
            .list(
                "corrections",
                corrections.iter().map(ToString::to_string).collect(),
                CORRECTIONS,
            ),
        Conclusion::Mismatch {
            corrections,
            unverifiable,
        } => f
            .text("what", "mismatch")
            .list(
                "corrections",
                corrections.iter().map(ToString::to_string).collect(),
                CORRECTIONS,
            )
            .add(
                "unverifiable",
                Value::Bool(*unverifiable),
                Form::Words(
                    "(this board senses only occupancy: which piece stands where is not checked)",
                    "",
                ),
            ),
        Conclusion::Takeback { plies } => f.text("what", "takeback").int("plies", *plies),
        Conclusion::InSync => f
            .text("what", "in-sync")
            .text("note", "the board matches the game"),
        Conclusion::Rotated => f
            .text("what", "rotated")
            .text("note", "the board is set up turned; reading it turned"),
        Conclusion::ResultOffered { result } => f
            .text("what", "result-offered")
            .text("result", result.pgn())
            .text(
                "note",
                format!("(both kings on the centre squares: {result}); for the arbiter to confirm"),
            ),
    }
}

/// A field as the line writes it; `None` when the line has no place for it.
fn line_part(field: &Field) -> Option<String> {
    let text = |v: &Value| match v {
        Value::Text(s) => one_line(s),
        Value::Int(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::List(items) => one_line(&items.join(",")),
    };
    match field.form {
        Form::Bare => Some(text(&field.value)),
        Form::After(label) => Some(format!("{label} {}", text(&field.value))),
        Form::Before(after) => Some(format!("{}{after}", text(&field.value))),
        Form::Signed => match field.value {
            Value::Int(n) => Some(format!("{n:+}")),
            ref other => Some(text(other)),
        },
        Form::Words(yes, no) => {
            let word = if field.value == Value::Bool(true) {
                yes
            } else {
                no
            };
            (!word.is_empty()).then(|| word.to_owned())
        }
        Form::Joined { label, sep, empty } => {
            let joined = match &field.value {
                Value::List(items) if items.is_empty() => empty.to_owned(),
                Value::List(items) => one_line(&items.join(sep)),
                other => text(other),
            };
            Some(match label {
                Some(label) => format!("{label} {joined}"),
                None => joined,
            })
        }
        Form::Kind | Form::PageOnly => None,
    }
}

/// The event's control line: `event <kind> <fields>`.
pub fn event_line(event: &TableEvent) -> String {
    let EventFields { kind, fields } = event_fields(event);
    let mut line = format!("event {kind}");
    for part in fields.iter().filter_map(line_part) {
        line.push(' ');
        line.push_str(&part);
    }
    line
}

/// A conclusion as one line of English (`move e2e4`, `illegal …; move the white knight from g3
/// to g1`): the detail of a detection event, as `watch` and `replay` print it.
pub fn conclusion_text(c: &Conclusion, mode: CastlingMode) -> String {
    let fields = conclusion_fields(Fields(Vec::new()), c, mode).0;
    fields
        .iter()
        .filter_map(line_part)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The page's object for an event: `event` (the kind), `line` (the control line) and every
/// field by name.
pub fn event_json(event: &TableEvent) -> serde_json::Value {
    let EventFields { kind, fields } = event_fields(event);
    let mut object = serde_json::Map::new();
    for field in &fields {
        let value = match &field.value {
            Value::Text(s) => serde_json::Value::from(s.as_str()),
            Value::Int(n) => serde_json::Value::from(*n),
            Value::Bool(b) => serde_json::Value::from(*b),
            Value::List(items) => serde_json::Value::from(items.clone()),
        };
        object.insert(field.name.to_owned(), value);
    }
    object.insert("event".to_owned(), serde_json::Value::from(kind));
    object.insert(
        "line".to_owned(),
        serde_json::Value::from(event_line(event)),
    );
    serde_json::Value::Object(object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::game::GameResult;
    use crate::table::corrections::Correction;
    use crate::table::detector::IllegalReason;
    use crate::table::event::{About, Listener, Say, Urgency};
    use crate::table::reconcile::Side;
    use crate::table::record::Source;
    use shakmaty::{Move, Role, Square};

    /// Which variant an event is. The match has no wildcard: a new kind of event does not
    /// compile until it is given a number here and a sample in [`samples`].
    fn variant(e: &TableEvent) -> usize {
        match e {
            TableEvent::Begin { .. } => 0,
            TableEvent::Restored { .. } => 1,
            TableEvent::Resumed { .. } => 2,
            TableEvent::Move { .. } => 3,
            TableEvent::Say(_) => 4,
            TableEvent::BoardError { .. } => 5,
            TableEvent::InSync { .. } => 6,
            TableEvent::Detected { .. } => 7,
            TableEvent::TouchMove { .. } => 8,
            TableEvent::Refused { .. } => 9,
            TableEvent::Guide { .. } => 10,
            TableEvent::Unverifiable { .. } => 11,
            TableEvent::Link { .. } => 12,
            TableEvent::Key(_) => 13,
            TableEvent::End { .. } => 14,
            TableEvent::DrawOffer { .. } => 15,
            TableEvent::WrongClaim { .. } => 16,
            TableEvent::Undo { .. } => 17,
            TableEvent::ResultOffered { .. } => 18,
            TableEvent::ClockAdjusted { .. } => 19,
            TableEvent::Penalty { .. } => 20,
            TableEvent::ClockRunning { .. } => 21,
            TableEvent::Resolution(_) => 22,
            TableEvent::Takeback { .. } => 23,
            TableEvent::Explain { .. } => 24,
            TableEvent::JournalError { .. } => 25,
            TableEvent::Recorded { .. } => 26,
            TableEvent::Archived { .. } => 27,
            TableEvent::Desk(_) => 28,
            TableEvent::Mail(_) => 29,
        }
    }
    const VARIANTS: usize = 30;

    fn detected(conclusion: Conclusion) -> TableEvent {
        TableEvent::Detected {
            board: BoardId::Peg,
            conclusion,
            mode: CastlingMode::Standard,
        }
    }

    /// At least one event of every kind, with every inner variant (conclusions, verdicts, the
    /// desk's and the mail's), and the line each must have (`docs/control-protocol.md`).
    fn samples() -> Vec<(TableEvent, &'static str)> {
        let knight = Color::White.knight();
        let g1f3 = Move::Normal {
            role: Role::Knight,
            from: Square::G1,
            capture: None,
            to: Square::F3,
            promotion: None,
        };
        let back = Correction::Move {
            piece: Some(knight),
            from: Square::G3,
            to: Square::G1,
        };
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        vec![
            (
                TableEvent::Begin {
                    time_control: "90+30".into(),
                    fen: start.into(),
                },
                "event begin 90+30 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            ),
            (
                TableEvent::Restored {
                    ply: 2,
                    fen: "8/8/8/8/8/8/8/K6k w - - 0 1".into(),
                },
                "event restored ply 2 8/8/8/8/8/8/8/K6k w - - 0 1",
            ),
            (
                TableEvent::Resumed {
                    downtime_ms: 5000,
                    charged_ms: 1200,
                },
                "event resumed downtime-ms 5000 charged-ms 1200",
            ),
            (
                TableEvent::Move {
                    ply: 1,
                    color: Color::White,
                    uci: "e2e4".into(),
                    san: "e4".into(),
                    source: Source::Peg,
                    san_local: "e4".into(),
                    words: "Eva vier".into(),
                    number: 1,
                },
                "event move 1 white e2e4 e4 peg",
            ),
            (
                TableEvent::Say(Say {
                    listener: Listener::BlindPlayer,
                    text: "Eva vier\nzwei".into(),
                    urgency: Urgency::Urgent,
                    about: About::Other,
                    lang: "de",
                }),
                "event say blind Eva vier zwei",
            ),
            (
                TableEvent::BoardError {
                    board: BoardId::Peg,
                    message: "line 3: bad".into(),
                },
                "event board-error peg line 3: bad",
            ),
            (
                TableEvent::InSync {
                    board: BoardId::Normal,
                },
                "event in-sync normal",
            ),
            (
                detected(Conclusion::Touched {
                    square: Square::G1,
                    piece: knight,
                }),
                "event peg touched g1 white knight",
            ),
            (
                detected(Conclusion::Moved {
                    m: g1f3,
                    warning: None,
                }),
                "event peg move g1f3",
            ),
            (
                detected(Conclusion::Replicated { m: g1f3 }),
                "event peg replicated g1f3",
            ),
            (
                detected(Conclusion::PromotionPending {
                    from: Square::E7,
                    to: Square::E8,
                }),
                "event peg promotion-pending e7e8: choose the new piece",
            ),
            (
                detected(Conclusion::Illegal {
                    reason: IllegalReason::CannotMoveThatWay {
                        piece: knight,
                        from: Square::G1,
                        to: Square::G3,
                    },
                    corrections: vec![back],
                }),
                "event peg illegal the white knight cannot move from g1 to g3; move the white \
                 knight from g3 to g1",
            ),
            (
                detected(Conclusion::Mismatch {
                    corrections: vec![back, back],
                    unverifiable: true,
                }),
                "event peg mismatch move the white knight from g3 to g1; move the white knight \
                 from g3 to g1 (this board senses only occupancy: which piece stands where is \
                 not checked)",
            ),
            (
                detected(Conclusion::Mismatch {
                    corrections: vec![back],
                    unverifiable: false,
                }),
                "event peg mismatch move the white knight from g3 to g1",
            ),
            (
                detected(Conclusion::Takeback { plies: 2 }),
                "event peg takeback 2",
            ),
            (
                detected(Conclusion::InSync),
                "event peg in-sync the board matches the game",
            ),
            (
                detected(Conclusion::Rotated),
                "event peg rotated the board is set up turned; reading it turned",
            ),
            (
                detected(Conclusion::ResultOffered {
                    result: GameResult::Draw,
                }),
                "event peg result-offered 1/2-1/2 (both kings on the centre squares: draw); for \
                 the arbiter to confirm",
            ),
            (
                TableEvent::TouchMove {
                    board: BoardId::Peg,
                    warning: "the rook was touched".into(),
                },
                "event touch-move peg the rook was touched",
            ),
            (
                TableEvent::Refused {
                    board: BoardId::Peg,
                    reason: "not your move".into(),
                },
                "event refused peg not your move",
            ),
            (
                TableEvent::Guide {
                    board: BoardId::Peg,
                    corrections: vec![back, back],
                },
                "event guide peg move the white knight from g3 to g1; move the white knight from \
                 g3 to g1",
            ),
            (
                TableEvent::Unverifiable {
                    board: BoardId::Peg,
                },
                "event unverifiable peg an occupancy board cannot tell which piece stands in a hole",
            ),
            (
                TableEvent::Link {
                    board: BoardId::Normal,
                    up: false,
                    detail: "/dev/ttyUSB0 gone".into(),
                },
                "event board normal disconnected /dev/ttyUSB0 gone",
            ),
            (
                TableEvent::Key(BoardKey::Other('Y')),
                "event key peg unknown Y",
            ),
            (
                TableEvent::Key(BoardKey::ConfirmSheet),
                "event key peg confirm-sheet",
            ),
            (
                TableEvent::End {
                    result: GameResult::WhiteWins,
                    description: "black resigns".into(),
                },
                "event end 1-0 black resigns",
            ),
            (
                TableEvent::DrawOffer {
                    color: Color::Black,
                },
                "event draw-offer black",
            ),
            (
                TableEvent::WrongClaim {
                    color: Color::White,
                    why: "no threefold".into(),
                },
                "event wrong-claim white no threefold",
            ),
            (TableEvent::Undo { uci: "e7e6".into() }, "event undo e7e6"),
            (
                TableEvent::ResultOffered {
                    board: BoardId::Normal,
                    result: GameResult::BlackWins,
                },
                "event result-offered normal 0-1",
            ),
            (
                TableEvent::ClockAdjusted {
                    color: Color::White,
                    delta_ms: 60_000,
                    remaining_ms: 61_000,
                },
                "event clock-adjusted white +60000 0:01:01",
            ),
            (
                TableEvent::Penalty {
                    color: Color::Black,
                    count: 1,
                },
                "event penalty black illegal move 1",
            ),
            (
                TableEvent::ClockRunning { running: false },
                "event clock pause",
            ),
            (
                TableEvent::Resolution(ResolutionEvent::Agree { plies: 4 }),
                "event resolution agree plies 4",
            ),
            (
                TableEvent::Resolution(ResolutionEvent::Lagging {
                    side: Side::B,
                    missing: vec!["g1f3".into(), "b8c6".into()],
                }),
                "event resolution lagging b missing g1f3,b8c6",
            ),
            (
                TableEvent::Resolution(ResolutionEvent::Proposed {
                    plies: 2,
                    retract_a: vec!["g1f3".into()],
                    retract_b: vec![],
                    used_white_ms: 61_000,
                    used_black_ms: 0,
                }),
                "event resolution proposed takeback-to 2 retract-a g1f3 retract-b - used-white \
                 0:01:01 used-black 0:00:00",
            ),
            (
                TableEvent::Resolution(ResolutionEvent::Rejected),
                "event resolution rejected",
            ),
            (
                TableEvent::Takeback {
                    plies: 2,
                    retracted: vec!["g1f3".into(), "b8c6".into()],
                    white_ms: 61_000,
                    black_ms: 59_000,
                },
                "event takeback 2 retracted g1f3,b8c6 clocks white 0:01:01 black 0:00:59",
            ),
            (
                TableEvent::Explain {
                    line: "sheet a: 4 moves".into(),
                },
                "event explain sheet a: 4 moves",
            ),
            (
                TableEvent::JournalError {
                    message: "disk full".into(),
                },
                "event journal-error disk full",
            ),
            (
                TableEvent::Recorded {
                    path: "/var/lib/annabella/games/t-1.wav".into(),
                },
                "event recorded /var/lib/annabella/games/t-1.wav",
            ),
            (
                TableEvent::Archived {
                    path: "/var/lib/annabella/games/t-1.pgn".into(),
                },
                "event archived /var/lib/annabella/games/t-1.pgn",
            ),
            (TableEvent::Desk(DeskEvent::Focus), "event desk focus"),
            (TableEvent::Desk(DeskEvent::Away), "event desk away"),
            (TableEvent::Desk(DeskEvent::Ready), "event desk ready"),
            (
                TableEvent::Desk(DeskEvent::Plan { steps: 3 }),
                "event desk plan 3",
            ),
            (
                TableEvent::Desk(DeskEvent::SetUp {
                    step: 1,
                    code: "move:Ng1:f3".into(),
                    words: "Springer von Gustav eins nach Felix drei".into(),
                }),
                "event desk set-up 1 move:Ng1:f3 Springer von Gustav eins nach Felix drei",
            ),
            (
                TableEvent::Mail(MailEvent::Received {
                    ply: 4,
                    summary: "Zug zwei, Schwarz".into(),
                }),
                "event mail received 4 Zug zwei, Schwarz",
            ),
            (
                TableEvent::Mail(MailEvent::Refused {
                    why: "the record differs".into(),
                }),
                "event mail refused the record differs",
            ),
            (
                TableEvent::Mail(MailEvent::Queued {
                    ply: 3,
                    message_id: "<a@b>".into(),
                }),
                "event mail queued 3 <a@b>",
            ),
        ]
    }

    #[test]
    fn every_kind_of_event_has_a_sample() {
        let mut seen = [false; VARIANTS];
        for (event, _) in samples() {
            seen[variant(&event)] = true;
        }
        let missing: Vec<usize> = (0..VARIANTS).filter(|&i| !seen[i]).collect();
        assert!(missing.is_empty(), "variants without a sample: {missing:?}");
    }

    #[test]
    fn lines_are_the_documented_ones() {
        for (event, line) in samples() {
            assert_eq!(event_line(&event), line, "{event:?}");
        }
    }

    /// Both wires carry the same fields: the page's object has exactly the event's fields (and
    /// its kind and line), each with the field's value; every field but the declared page-only
    /// ones is on the line; the page-only ones are exactly [`PAGE_ONLY`].
    #[test]
    fn each_event_kind_carries_the_same_fields_on_both_wires() {
        let mut page_only = std::collections::BTreeSet::new();
        for (event, _) in samples() {
            let EventFields { kind, fields } = event_fields(&event);
            let line = event_line(&event);
            let json = event_json(&event);
            let object = json.as_object().expect("an object");
            assert_eq!(object["event"], kind);
            assert_eq!(object["line"], line.as_str());
            let mut names: Vec<&str> = fields.iter().map(|f| f.name).collect();
            names.extend(["event", "line"]);
            names.sort_unstable();
            let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
            keys.sort_unstable();
            assert_eq!(keys, names, "{kind}: the page's names are the fields'");
            for field in &fields {
                let on_page = &object[field.name];
                let (text, expected) = match &field.value {
                    Value::Text(s) => (one_line(s), serde_json::Value::from(s.as_str())),
                    Value::Int(n) => (n.unsigned_abs().to_string(), serde_json::Value::from(*n)),
                    Value::Bool(b) => (String::new(), serde_json::Value::from(*b)),
                    Value::List(items) => {
                        let text = items.first().cloned().unwrap_or_default();
                        (text, serde_json::Value::from(items.clone()))
                    }
                };
                assert_eq!(on_page, &expected, "{kind}.{}", field.name);
                match field.form {
                    Form::PageOnly => {
                        page_only.insert((kind, field.name));
                    }
                    Form::Kind => assert_eq!(field.value, Value::Text(kind.to_owned())),
                    // A flag is on the line as its word, checked by the documented lines.
                    Form::Words(..) => {}
                    _ => assert!(
                        line.contains(&text),
                        "{kind}.{} = {text:?} is not on the line {line:?}",
                        field.name
                    ),
                }
            }
        }
        let declared: std::collections::BTreeSet<(&str, &str)> =
            PAGE_ONLY.iter().copied().collect();
        assert_eq!(
            page_only, declared,
            "the page-only fields are the declared ones"
        );
    }
}
