//! Fuzz target: PGN import of arbitrary text never panics or hangs.
#![no_main]

use annabella::chess::pgn;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = pgn::read_games(text);
});
