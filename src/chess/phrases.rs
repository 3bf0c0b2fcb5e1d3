//! Moves and game events turned into pronounceable words in a language's vocabulary.

use shakmaty::{Chess, Move};

use crate::chess::notation::Style;
use crate::chess::vocabulary::Vocabulary;

/// The spoken form of a legal move of `pos`, with check or mate spoken with it.
pub fn move_phrase(pos: &Chess, m: Move, style: &Style) -> String {
    let _ = (pos, m, style);
    todo!("move_phrase")
}

/// The words a player may say for a promotion piece (queen, rook, bishop, knight).
pub fn promotion_choices(v: &Vocabulary) -> Vec<String> {
    let _ = v;
    Vec::new()
}
