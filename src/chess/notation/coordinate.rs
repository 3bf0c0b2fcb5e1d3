//! Long algebraic notation (`e2-e4`, `Ng1-f3`, `Cg1f3`, `e5xd6`) and UCI (`e2e4`, `e7e8q`).

use shakmaty::{CastlingMode, Chess, Move};

use super::{MoveErrorKind, MoveSpec, Style};
use crate::chess::language::Language;

pub fn looks_like_uci(text: &str) -> bool {
    let _ = text;
    false
}

pub fn looks_like_lan(text: &str) -> bool {
    let _ = text;
    false
}

pub fn parse_lan(text: &str, lang: &Language) -> Result<MoveSpec, MoveErrorKind> {
    let _ = (text, lang);
    todo!("parse_lan")
}

pub fn parse_uci(text: &str) -> Result<MoveSpec, MoveErrorKind> {
    let _ = text;
    todo!("parse_uci")
}

pub fn format_lan(pos: &Chess, m: Move, style: &Style) -> String {
    let _ = (pos, m, style);
    todo!("format_lan")
}

/// UCI; in Chess960 castling is king-takes-rook (`UCI_Chess960`).
pub fn format_uci(m: Move, mode: CastlingMode) -> String {
    let _ = (m, mode);
    todo!("format_uci")
}
