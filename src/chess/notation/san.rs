//! SAN in any language's piece letters, figurines, and the lenient forms people really write.

use shakmaty::{Chess, Move};

use super::{MoveErrorKind, MoveSpec, Style};
use crate::chess::language::Language;

/// Reads SAN (`Nf3`, `Sf3`, `♘f3`, `0-0`, `e8Q`, `exd6 e.p.`) into a spec, without the position.
pub fn parse(text: &str, lang: &Language) -> Result<MoveSpec, MoveErrorKind> {
    let _ = (text, lang);
    todo!("san::parse")
}

/// Writes SAN with check/mate suffix in the style's language letters (or figurines).
pub fn format(pos: &Chess, m: Move, style: &Style) -> String {
    let _ = (pos, m, style);
    todo!("san::format")
}

/// The text without trailing check/mate/annotation marks and en-passant markers (`e.p.`, `ep`).
pub fn strip_suffixes(text: &str) -> &str {
    text
}
