//! A table's events on both wires from one list of fields: [`event_fields`] says, for every
//! event, what it carries and how the control protocol's line writes each field; [`event_line`]
//! (`event <kind> …`, `docs/control-protocol.md`) and [`event_json`] (the page's object, fields
//! by name, `docs/web.md`) are both written from it, so the two cannot drift apart.
//!
//! The line's form predates the page and clients match it exactly, so a few fields the page
//! needs have no place on it: they are marked [`Form::PageOnly`], and [`PAGE_ONLY`] lists them,
//! checked by a test.

use super::color_name;
use shakmaty::{CastlingMode, Color};

use crate::boards::BoardKey;
use crate::chess::scoresheet::format_clock;
use crate::control::wire::one_line;
use crate::table::corrections::PieceName;
use crate::table::detector::Conclusion;
use crate::table::event::{About, BoardId, DeskEvent, MailEvent, ResolutionEvent, TableEvent};

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
    // The utterance's identity: the same words to two listeners in one step share it, another
    // utterance in the same words has another, so the page reads each utterance once.
    ("say", "id"),
    // What the words are about (`move`, `clock`, `other`, `desk`): an observer's page reads
    // both sides' moves, not everything said to the blind player.
    ("say", "about"),
];

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
            measured_by,
        } => (
            "resumed",
            f.int_after("downtime_ms", "downtime-ms", *downtime_ms)
                .int_after("charged_ms", "charged-ms", *charged_ms)
                .labelled("measured_by", "by", measured_by.name()),
        ),
        TableEvent::Stalled { stalled_ms } => ("stalled", f.int("stalled_ms", *stalled_ms)),
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
                .page_only("lang", Value::Text(say.lang.to_owned()))
                .page_only("id", Value::Int(i64::try_from(say.id).unwrap_or(i64::MAX)))
                .page_only("about", Value::Text(about_name(say.about).to_owned())),
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

/// What an utterance is about, as the page's `say` object names it.
fn about_name(about: About) -> &'static str {
    match about {
        About::Move { .. } => "move",
        About::ClockCall { .. } => "clock",
        About::TimeAnswer => "time",
        About::Withdrawn { .. } => "withdrawn",
        About::Result => "result",
        About::Other => "other",
        About::Desk => "desk",
    }
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
        MailEvent::Sent { message_id } => f
            .text("what", "sent")
            .text("message_id", message_id.as_str()),
        MailEvent::Undelivered { message_id, why } => f
            .text("what", "undelivered")
            .text("message_id", message_id.as_str())
            .text("why", why.as_str()),
        MailEvent::Bounced { message_id, why } => f
            .text("what", "bounced")
            .text("message_id", message_id.as_str())
            .text("why", why.as_str()),
        MailEvent::Unanswered { message_id, days } => f
            .text("what", "unanswered")
            .text("message_id", message_id.as_str())
            .int("days", *days),
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
mod tests;
