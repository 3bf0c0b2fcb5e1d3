//! The `tts` backend on Windows: the player's own screen reader (JAWS, NVDA, System Access,
//! SuperNova, Window-Eyes, ZoomText) through Tolk, or Windows' SAPI voice when none runs.
//!
//! A blind player on Windows hears his own screen reader, in the voice and at the speed he set
//! in it, and reads the same words on the braille display it drives: Tolk's `output` goes to
//! speech and braille both (the `tts` crate's Tolk backend only speaks, so Tolk is called
//! directly). The configured speech rate is never sent: a screen reader's speed is its user's.
//! Tolk looks for a running screen reader at every call, so one started or restarted while the
//! daemon runs is found without reconnecting.

use std::sync::Arc;

use super::{SpeechBackend, SpeechError, Utterance};

/// Tolk, with the screen reader (or SAPI) it found when opened.
pub struct ScreenReaderBackend {
    tolk: Arc<tolk::Tolk>,
    /// The name Tolk gave the reader it found ("NVDA", "JAWS", "SAPI"), for the log.
    reader: String,
}

impl std::fmt::Debug for ScreenReaderBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScreenReaderBackend")
            .field("reader", &self.reader)
            .finish()
    }
}

impl ScreenReaderBackend {
    /// Loads Tolk and looks for a running screen reader, then SAPI. `None` when neither can
    /// speak (the `tts` crate's WinRT voice is then tried). Must be called on the thread that
    /// speaks: Tolk initialises COM on it.
    pub fn open(rate_wpm: Option<u32>) -> Option<ScreenReaderBackend> {
        let tolk = tolk::Tolk::new();
        // Windows' own voice when the player runs no screen reader (a sighted arbiter's PC).
        tolk.try_sapi(true);
        let reader = tolk.detect_screen_reader()?;
        if !tolk.has_speech() && !tolk.has_braille() {
            return None;
        }
        tracing::info!(
            reader = %reader,
            braille = tolk.has_braille(),
            "speaking through the screen reader"
        );
        if let Some(wpm) = rate_wpm {
            tracing::info!(
                rate_wpm = wpm,
                reader = %reader,
                "the speech rate is left to the screen reader: its user set its speed"
            );
        }
        Some(ScreenReaderBackend { tolk, reader })
    }
}

impl SpeechBackend for ScreenReaderBackend {
    fn name(&self) -> &str {
        "tts"
    }

    fn speak(&mut self, u: &Utterance) -> Result<(), SpeechError> {
        // Tolk takes C strings: a NUL would make the text unsendable.
        let text: String = u
            .text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        // Queued after what the reader is saying (the player's own reading is not cut off);
        // to speech and to the braille display both.
        self.tolk.output(text, false);
        if self.tolk.detect_screen_reader().is_none() {
            return Err(SpeechError::Failed(format!(
                "the screen reader ({}) is no longer running, and Windows' SAPI voice \
                 could not be opened",
                self.reader
            )));
        }
        Ok(())
    }

    fn is_speaking(&mut self) -> Result<bool, SpeechError> {
        // NVDA and JAWS cannot say, and answer false: they queue what they are given.
        Ok(self.tolk.is_speaking())
    }

    fn stop(&mut self) {
        self.tolk.silence();
    }
}
