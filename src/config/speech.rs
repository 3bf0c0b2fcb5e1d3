//! The configuration's `[speech]` keys validated: the outputs, the rate, the language (built in
//! or a language file read with a bound) and the style of the announcements.

use serde::{Deserialize, Serialize};

use super::{ConfigError, bad};
use crate::chess::language::{Language, LanguageError};
use crate::chess::notation::Verbosity;
use crate::io::speech::{self, OutputSpec};

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawSpeech {
    /// `[LISTENERS=]BACKEND[,…]`: tts, espeak-ng, espeak-ng@DEVICE, wav:DIR, transcript:FILE,
    /// none; LISTENERS are blind, opponent, arbiter joined by `+` (none: everyone).
    pub backends: String,
    /// Words per minute of the voices (espeak-ng `-s`, the tts rate scaled from it), 80 to 450;
    /// unset: each engine's default (espeak-ng: 175).
    pub rate: Option<u32>,
    /// Language of the announcements: a built-in code or a language file's path.
    pub lang: String,
    /// `short` or `long`.
    pub verbosity: String,
    pub name_captured: bool,
    /// Confirm the blind player's own moves aloud.
    pub confirm_own_moves: bool,
    /// The terse style below this many seconds on the blind player's clock (0: never).
    pub terse_below_s: u64,
}

impl Default for RawSpeech {
    fn default() -> RawSpeech {
        RawSpeech {
            backends: "tts".to_owned(),
            rate: None,
            lang: "de".to_owned(),
            verbosity: "short".to_owned(),
            name_captured: false,
            confirm_own_moves: true,
            terse_below_s: 0,
        }
    }
}

/// `[speech]` validated, but for `terse_below_s` (checked with the rest of the file's keys).
pub(super) struct SpeechConfig {
    pub outputs: Vec<OutputSpec>,
    pub rate: Option<u32>,
    pub lang: Language,
    pub verbosity: Verbosity,
}

impl RawSpeech {
    pub(super) fn validate(&self) -> Result<SpeechConfig, ConfigError> {
        let outputs =
            speech::parse_outputs(&self.backends).map_err(|e| bad("speech.backends", e))?;
        let rate = match self.rate {
            Some(wpm) => {
                Some(speech::parse_rate(&wpm.to_string()).map_err(|e| bad("speech.rate", e))?)
            }
            None => None,
        };
        let lang = read_language(&self.lang).map_err(|e| bad("speech.lang", e))?;
        let verbosity = self
            .verbosity
            .parse()
            .map_err(|e| bad("speech.verbosity", e))?;
        Ok(SpeechConfig {
            outputs,
            rate,
            lang,
            verbosity,
        })
    }

    /// The terse style's threshold in milliseconds; `None` for never.
    pub(super) fn terse_below_ms(&self) -> Result<Option<u64>, ConfigError> {
        match self.terse_below_s {
            0 => Ok(None),
            s if s <= 86_400 => Ok(Some(s * 1000)),
            s => Err(bad(
                "speech.terse_below_s",
                format!("{s} s: at most a day (86400), or 0 for never"),
            )),
        }
    }
}

/// Why a language could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LanguageFileError {
    #[error("{path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: more than {limit} bytes; a language file is a few kilobytes")]
    TooLarge { path: String, limit: usize },
    #[error("{path}: not UTF-8 text")]
    NotUtf8 { path: String },
    /// Not a built-in code, or a file that is no language.
    #[error(transparent)]
    Language(#[from] LanguageError),
}

/// A built-in language by its code, or a language file by its path.
pub(super) fn read_language(code_or_path: &str) -> Result<Language, LanguageFileError> {
    if code_or_path.contains('/') || code_or_path.ends_with(".toml") {
        // Read with a bound: a path like /dev/zero must not fill the memory.
        use std::io::Read;
        let path = || code_or_path.to_owned();
        let limit = crate::chess::language::MAX_LANGUAGE_FILE_BYTES;
        let mut bytes = Vec::new();
        crate::io::regular_file::open_regular(std::path::Path::new(code_or_path))
            .and_then(|f| f.take(limit as u64 + 1).read_to_end(&mut bytes))
            .map_err(|source| LanguageFileError::Read {
                path: path(),
                source,
            })?;
        if bytes.len() > limit {
            return Err(LanguageFileError::TooLarge {
                path: path(),
                limit,
            });
        }
        let text =
            String::from_utf8(bytes).map_err(|_| LanguageFileError::NotUtf8 { path: path() })?;
        Ok(Language::from_toml(&text)?)
    } else {
        Ok(Language::builtin(code_or_path).cloned()?)
    }
}
