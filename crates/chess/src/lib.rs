//! The pure chess core: game model, notations, phrases, scoresheets. No I/O, no clock reads.
//!
//! - [`game`]: a [`game::Game`] on shakmaty with outcome, draw claims and Chess960 starts.
//! - [`language`]: a language's piece letters and spoken vocabulary, from `config/voices/*.toml`.
//! - [`vocabulary`]: the spoken words of a language (the `[words]` table of its file).
//! - [`page_words`]: the web page's own labels in a language (`[words.page]`).
//! - [`lexicon`]: those words indexed for reading back, and the check that none has two meanings.
//! - [`notation`]: one parser and one formatter for every notation (ICCF, telegraph, SAN, LAN,
//!   UCI, spoken), with auto-detection and precise errors.
//! - [`phrases`]: game events, times and corrections turned into pronounceable words.
//! - [`scoresheet`]: the recorded moves with clock readings; PGN, ICCF and Braille exports.
//! - [`pgn`]: PGN import (one or many games, FEN/SetUp/Variant tags honoured).
//! - [`braille`]: North American ASCII Braille (BRF) and Unicode braille cells.
//! - [`ccsnt`]: the ICCF server's `[%ccsnt …]` sent-time stamps in PGN comments.

pub mod braille;
pub mod ccsnt;
pub mod game;
pub mod language;
pub mod lexicon;
pub mod notation;
pub mod page_words;
pub mod pgn;
pub mod phrases;
pub mod ready;
pub mod scoresheet;
mod spoken_forms;
pub mod vocabulary;

/// The English name of a role, for error messages and logs (spoken words come from the
/// language files).
pub fn role_name(role: shakmaty::Role) -> &'static str {
    use shakmaty::Role;
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}
