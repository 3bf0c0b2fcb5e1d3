//! Fuzz target: a language file of arbitrary text is loaded or refused, never a panic.
#![no_main]

use annabella::chess::language::Language;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = Language::from_toml(text);
});
