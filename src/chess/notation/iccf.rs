//! ICCF numeric notation: two digits a square (a1 = 11), a fifth for promotion.

use shakmaty::{CastlingMode, Move};

use super::{MoveErrorKind, MoveSpec};

pub fn looks_like(text: &str) -> bool {
    let _ = text;
    false
}

pub fn parse(text: &str, mode: CastlingMode) -> Result<MoveSpec, MoveErrorKind> {
    let _ = (text, mode);
    todo!()
}

pub fn format(m: Move, mode: CastlingMode) -> String {
    let _ = (m, mode);
    todo!()
}
