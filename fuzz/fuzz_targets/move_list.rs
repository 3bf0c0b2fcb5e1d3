//! Fuzz target: splitting arbitrary text into games and move tokens never panics.
#![no_main]

use annabella::chess::notation::movelist;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = movelist::split_games(text, false);
    let _ = movelist::split_games(text, true);
});
