//! The two wires a table's typed values travel on, and the one encoder of each: the control
//! protocol's lines (TCP and the page alike: replies and `event …` lines) and the page's JSON
//! (the `view` object and each event's fields by name). The core builds neither.
//!
//! - [`event`]: every event's fields, once, and from them its line and its page object.
//! - [`reply`]: a reply as its line, `ok <answer>` or `error <code> <message>`.
//! - [`page`]: the page's JSON for the `view` reply.

pub mod event;
pub mod page;
pub mod reply;

pub use event::{conclusion_text, event_fields, event_json, event_line};
pub use page::view_json;
pub use reply::{RefusalLine, answer_text, ok_line, one_line, reply_line};

/// A colour as both wires write it.
fn color_name(color: shakmaty::Color) -> &'static str {
    match color {
        shakmaty::Color::White => "white",
        shakmaty::Color::Black => "black",
    }
}
