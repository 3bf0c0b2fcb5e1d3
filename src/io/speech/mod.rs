//! Speech output: the backends that turn utterances into sound or records, and the speaker that keeps them off the game's path.
//!
//! The table decides *what* to say (the words come from `crate::chess::phrases`); this module only
//! delivers it. Every backend runs on its own thread behind a small bounded queue, so saying
//! something never waits for a synthesizer, a disk or a daemon. An urgent utterance (flag fall,
//! illegal move) cuts short whatever is being spoken and goes to the front of the queue. A backend
//! whose engine is missing or unreachable is logged once and falls silent; the others, and the
//! game, go on. See `docs/speech.md`.
//!
//! Each output serves some listeners: `blind=espeak-ng@hw:1,opponent+arbiter=tts,wav:/srv/rec`
//! gives the blind player his own headphones, the opponent and the arbiter the system voice, and
//! everyone the audio record (an output without a prefix serves everyone). An utterance for
//! `Everyone` goes to every output, one for a single listener only to the outputs serving him. A
//! voiced output serving two listeners addressed with the same words in one step says them once
//! ([`Speaker::say_step`]); a transcript keeps one line per listener, as it records who was told
//! what. Before synthesis a voiced output applies the language's spoken forms ("Cesar" is said
//! "Zäsar"), so transcripts, events, the page and Braille keep the written words. A move cut off
//! by an urgent utterance is said again right after it; a clock call made stale by a later one
//! for the same colour, or by its own time having run, is dropped rather than said late.
//!
//! Backends, chosen with a spec such as `tts,transcript:/var/log/annabella/speech.txt`:
//! - [`tts::TtsBackend`] (`tts`): the system voice through the `tts` crate (speech-dispatcher on
//!   Linux, WinRT on Windows when no screen reader runs and SAPI fails, AVFoundation on macOS).
//!   On Windows `tts` is first [`screen_reader::ScreenReaderBackend`]: the player's own screen
//!   reader (or SAPI) through Tolk, to speech and braille, never given a rate.
//! - [`espeak::EspeakBackend`] (`espeak-ng`): an `espeak-ng` subprocess per utterance, to the
//!   default audio output, or (`espeak-ng@DEVICE`) piped into `aplay -D DEVICE`.
//! - [`wav::WavBackend`] (`wav:DIR`): one WAV file per game, the audio record FIDE D.2.7 allows:
//!   a score (each move once, withdrawals, the result; `score`), not everything said.
//! - [`transcript::TranscriptBackend`] (`transcript:FILE`): one text line per utterance.
//! - [`NoneBackend`] (`none`): silence.

pub mod devices;
pub mod espeak;
mod outputs;
mod queue;
mod score;
#[cfg(windows)]
pub mod screen_reader;
mod speaker;
pub mod transcript;
pub mod tts;
pub mod wav;

use crate::chess::language::Language;
pub use crate::table::event::{About, Listener};
pub use outputs::{
    BackendSpec, Listeners, OutputSpec, SpeechSpecError, parse_backends, parse_outputs,
};
pub use speaker::{DEFAULT_QUEUE_CAPACITY, Speaker, move_heading};

// One urgency, decided by the table where it decides to say something: `Polite` is spoken in
// order (the oldest polite utterance is dropped when a queue overflows); `Urgent` interrupts a
// polite one being spoken, jumps the queue and is never dropped.
pub use crate::table::event::Urgency;

/// One thing to say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Utterance {
    /// Who it is for.
    pub listener: Listener,
    /// The words, already pronounceable (no "f3", no "12:00").
    pub text: String,
    /// A BCP-47-like language code ("de", "en-GB") that picks the voice.
    pub lang: String,
    /// Normal or urgent.
    pub urgency: Urgency,
    /// The game it belongs to; names the per-game files (the WAV record).
    pub game: String,
    /// When it was said, in Unix milliseconds, stamped by the caller: the adapters below read no
    /// clock for it, so transcripts are reproducible in tests.
    pub at_unix_ms: u64,
    /// What it is about: a move (numbered in the audio record, repeated when cut off), a clock
    /// call (dropped when stale) or anything else.
    pub about: About,
    /// The audio record says a move twice, heading and all (the Braille Chess Association's
    /// cassette custom for correspondence games).
    pub cassette: bool,
}

impl Utterance {
    /// A normal utterance.
    pub fn new(
        listener: Listener,
        text: impl Into<String>,
        lang: impl Into<String>,
        game: impl Into<String>,
        at_unix_ms: u64,
    ) -> Self {
        Utterance {
            listener,
            text: text.into(),
            lang: lang.into(),
            urgency: Urgency::Polite,
            game: game.into(),
            at_unix_ms,
            about: About::Other,
            cassette: false,
        }
    }

    /// The same utterance, recorded in the cassette custom (a move said twice) when `on`.
    pub fn cassette(mut self, on: bool) -> Self {
        self.cassette = on;
        self
    }

    /// The same utterance, saying what it is about.
    pub fn about(mut self, about: About) -> Self {
        self.about = about;
        self
    }

    /// The same utterance, marked urgent.
    pub fn urgent(mut self) -> Self {
        self.urgency = Urgency::Urgent;
        self
    }
}

/// Why a backend could not speak.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpeechError {
    /// The engine is missing or unreachable (not installed, daemon not running, file not
    /// writable). The speaker switches this backend off and logs it once.
    #[error("{0}")]
    Unavailable(String),
    /// This utterance failed; the next one may work.
    #[error("{0}")]
    Failed(String),
}

/// A way of speaking (or recording) utterances. Each backend is owned by one thread of the
/// [`Speaker`], so it needs `Send` but not `Sync`, and its methods take `&mut self`.
///
/// `speak` may return before the utterance has been heard (a subprocess or a daemon plays it);
/// the speaker then polls `is_speaking` before it hands over the next utterance, and calls `stop`
/// when an urgent utterance arrives. Backends that finish inside `speak` keep the default
/// `is_speaking`.
pub trait SpeechBackend: Send {
    /// A short name for logs: `tts`, `espeak-ng`, `wav:DIR`, `transcript:FILE`, `none`.
    fn name(&self) -> &str;
    /// Starts (or performs) the utterance.
    fn speak(&mut self, utterance: &Utterance) -> Result<(), SpeechError>;
    /// Whether the last utterance is still being spoken. An error here counts as a failure of
    /// that utterance.
    fn is_speaking(&mut self) -> Result<bool, SpeechError> {
        Ok(false)
    }
    /// Cuts the current utterance short; does nothing when nothing is being spoken.
    fn stop(&mut self);
    /// Whether this backend makes sound (or records it): it then gets the spoken forms of the
    /// words, and says words addressed to two of its listeners at once only once. A transcript
    /// is not voiced: it keeps the written words and one line per listener.
    fn voiced(&self) -> bool {
        true
    }
    /// Whether this backend keeps the game's audio record, which numbers the moves ("Zug
    /// zwölf, Weiß: …") so that it serves as the score.
    fn records_score(&self) -> bool {
        false
    }
    /// Whether the text goes to espeak-ng, which reads its own phonemes in `[[ ]]`: it then
    /// gets the language's `[words.phonemes]` where a spelling cannot give the stress.
    fn reads_espeak_phonemes(&self) -> bool {
        false
    }
}

/// The `none` backend: says nothing, successfully.
#[derive(Debug, Default)]
pub struct NoneBackend;

impl SpeechBackend for NoneBackend {
    fn name(&self) -> &str {
        "none"
    }
    fn speak(&mut self, _: &Utterance) -> Result<(), SpeechError> {
        Ok(())
    }
    fn stop(&mut self) {}
    fn voiced(&self) -> bool {
        false
    }
}

/// How the voiced outputs speak: the rate, and the languages whose spoken forms and record
/// headings they use.
#[derive(Clone, Debug, Default)]
pub struct SpeechSettings {
    /// Words per minute (espeak-ng `-s`, 175 by default; the tts rate scaled from it); `None`:
    /// each engine's default.
    pub rate_wpm: Option<u32>,
    /// Languages beyond the built-in ones (a configured language file), looked up by the
    /// utterance's language code before the built-in ones.
    pub languages: Vec<Language>,
}

/// The slowest and fastest rates accepted, in words per minute (espeak-ng's own bounds).
pub const RATE_RANGE: std::ops::RangeInclusive<u32> = 80..=450;

/// The rate espeak-ng speaks at by default, which the tts rate is scaled against.
pub const DEFAULT_RATE_WPM: u32 = 175;

/// Why a text is no speech rate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RateError {
    #[error("`{0}` is not a rate: words per minute, e.g. 175")]
    NotANumber(String),
    #[error(
        "rate {wpm} is out of range: {} to {} words per minute",
        RATE_RANGE.start(),
        RATE_RANGE.end()
    )]
    OutOfRange { wpm: u32 },
}

/// Parses a speech rate in words per minute.
pub fn parse_rate(text: &str) -> Result<u32, RateError> {
    let wpm: u32 = text
        .trim()
        .parse()
        .map_err(|_| RateError::NotANumber(text.to_owned()))?;
    if !RATE_RANGE.contains(&wpm) {
        return Err(RateError::OutOfRange { wpm });
    }
    Ok(wpm)
}
