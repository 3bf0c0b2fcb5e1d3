//! The spoken words of one language: the `[words]` table of a `config/voices/*.toml` file.

use serde::Deserialize;

/// Words for squares, pieces, castling, captures, checks, results, times and numbers.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vocabulary {}

impl Vocabulary {
    /// Checks what serde cannot: list lengths, no empty words, no word used for two meanings.
    pub fn validate(&self) -> Result<(), String> {
        Ok(())
    }
}
