//! Fuzz target: any text as the daemon's TOML configuration: read and validated or refused with
//! an error, never a panic; a configuration that validates writes back to TOML that reads as
//! the same and validates again.
#![no_main]

use std::path::Path;

use annabella::config::RawConfig;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let path = Path::new("fuzz.toml");
    let Ok(raw) = RawConfig::from_toml(text, path) else {
        return;
    };
    if raw.validate().is_err() {
        return;
    }
    let written = toml::to_string(&raw).expect("a configuration writes as TOML");
    let again = RawConfig::from_toml(&written, path)
        .unwrap_or_else(|e| panic!("{text:?} written as {written:?}, refused: {e}"));
    assert_eq!(again, raw, "{text:?} written as {written:?}");
    assert!(again.validate().is_ok(), "{written:?}");
});
