//! Spoken moves read back ("Springer Gustav eins Felix drei"), so an assistant can type what he heard.

use super::{MoveErrorKind, MoveSpec};
use crate::chess::language::Language;

pub fn parse(text: &str, lang: &Language) -> Result<MoveSpec, MoveErrorKind> {
    let _ = (text, lang);
    todo!("spoken::parse")
}
