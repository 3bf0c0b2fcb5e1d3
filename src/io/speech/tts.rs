//! The `tts` backend: the system voice through the `tts` crate (speech-dispatcher, a Windows screen reader or WinRT, AVFoundation).
//!
//! The platform engines queue text and speak it later, so `speak` returns at once and the
//! engine's begin/end callbacks tell the speaker when the voice is done. Engines fail in quiet
//! ways (speech-dispatcher without a working audio output accepts text and never speaks it), so
//! an utterance that has not begun after a few seconds is reported as a failure with a hint where
//! to look, and a connection that broke is reopened, at most every few seconds.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use ::tts::{Features, Tts, Voice};

use super::{SpeechBackend, SpeechError, Utterance};

/// How long an engine may take to start speaking an utterance it accepted.
const BEGIN_TIMEOUT: Duration = Duration::from_secs(5);

/// How long opening the engine may take (speech-dispatcher is started on demand: about a second).
const OPEN_TIMEOUT: Duration = Duration::from_secs(10);

/// How often a broken connection is reopened.
const REOPEN_EVERY: Duration = Duration::from_secs(5);

/// Where the current utterance is, as the engine's callbacks report it.
#[derive(Clone, Copy, Debug)]
enum Phase {
    Idle,
    Sent(Instant),
    Speaking,
}

type SharedPhase = Arc<Mutex<Phase>>;

fn set(phase: &SharedPhase, p: Phase) {
    *phase.lock().unwrap_or_else(PoisonError::into_inner) = p;
}

/// The platform's speech engine, as `tts::Tts::default()` chooses it.
pub struct TtsBackend {
    tts: Option<Tts>,
    features: Features,
    /// Whether the begin/end callbacks are installed; without them (a screen reader through
    /// Tolk) the engine queues utterances itself and `is_speaking` asks it, if it can.
    callbacks: bool,
    phase: SharedPhase,
    /// Language code → the voice chosen for it (`None`: the engine's default).
    chosen: HashMap<String, Option<Voice>>,
    current_lang: Option<String>,
    last_open: Instant,
    /// The rate in words per minute, scaled to the engine's rate on every (re)connection.
    rate_wpm: Option<u32>,
}

impl std::fmt::Debug for TtsBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TtsBackend")
            .field("connected", &self.tts.is_some())
            .field("features", &self.features)
            .field("current_lang", &self.current_lang)
            .finish()
    }
}

/// What to tell a user whose system voice cannot be reached.
fn explain(e: &dyn std::fmt::Display) -> String {
    if cfg!(target_os = "linux") {
        format!(
            "speech-dispatcher is not reachable ({e}): is it installed, and does `spd-say hello` speak? \
             (scripts/ensure-deps.sh installs speech-dispatcher and espeak-ng; \
             the espeak-ng backend works without the daemon)"
        )
    } else if cfg!(windows) {
        format!(
            "neither a screen reader nor Windows speech (WinRT) could be opened ({e}); \
             the espeak-ng backend is an alternative"
        )
    } else if cfg!(target_os = "macos") {
        format!("the macOS speech synthesizer (AVFoundation) could not be opened ({e})")
    } else {
        format!("no system speech engine could be opened ({e})")
    }
}

/// Opens the engine on a helper thread and gives up after [`OPEN_TIMEOUT`]: libspeechd waits
/// without a limit for a daemon that accepted the connection but hangs (seen with a
/// speech-dispatcher whose audio output failed). A helper stuck that way is left behind.
fn open_engine() -> Result<Tts, SpeechError> {
    let (tx, rx) = mpsc::channel();
    thread::Builder::new()
        .name("speech tts open".into())
        .spawn(move || {
            let _ = tx.send(Tts::default());
        })
        .map_err(|e| SpeechError::Unavailable(format!("cannot start a thread: {e}")))?;
    match rx.recv_timeout(OPEN_TIMEOUT) {
        Ok(Ok(tts)) => Ok(tts),
        Ok(Err(e)) => Err(SpeechError::Unavailable(explain(&e))),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(SpeechError::Unavailable(explain(&format!(
            "no answer within {} s; the daemon may hang and need a restart",
            OPEN_TIMEOUT.as_secs()
        )))),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(SpeechError::Unavailable(explain(
            &"the engine's binding panicked",
        ))),
    }
}

fn open(phase: &SharedPhase) -> Result<(Tts, Features, bool), SpeechError> {
    let tts = open_engine()?;
    let features = tts.supported_features();
    let mut callbacks = false;
    if features.utterance_callbacks {
        let (begin, end, stopped) = (phase.clone(), phase.clone(), phase.clone());
        callbacks = tts
            .on_utterance_begin(Some(Box::new(move |_| set(&begin, Phase::Speaking))))
            .and_then(|()| tts.on_utterance_end(Some(Box::new(move |_| set(&end, Phase::Idle)))))
            .and_then(|()| {
                tts.on_utterance_stop(Some(Box::new(move |_| set(&stopped, Phase::Idle))))
            })
            .is_ok();
    }
    Ok((tts, features, callbacks))
}

/// The best voice for a language code: the exact tag before the primary language alone, and
/// an engine's plain voice ("German") before its variants ("German+Andrea").
fn pick_voice(voices: &[Voice], lang: &str) -> Option<Voice> {
    let want = lang.trim().to_ascii_lowercase().replace('_', "-");
    let primary = want.split('-').next().unwrap_or("");
    let score = |v: &Voice| {
        let tag = v.language();
        let exact = tag.as_str().eq_ignore_ascii_case(&want);
        let same_language = tag.primary_language().eq_ignore_ascii_case(primary);
        let plain = !v.name().contains('+');
        match (exact, same_language, plain) {
            (true, _, true) => 4,
            (true, _, false) => 3,
            (false, true, true) => 2,
            (false, true, false) => 1,
            _ => 0,
        }
    };
    // The first of the best: engines list their main voice first.
    let best = voices.iter().min_by_key(|v| std::cmp::Reverse(score(v)))?;
    (score(best) > 0).then(|| best.clone())
}

/// The system voice at `rate_wpm`: on Windows the player's screen reader (or SAPI) through
/// Tolk, which is never given a rate (`screen_reader`); elsewhere, and on Windows when Tolk
/// finds nothing that speaks, the `tts` crate's engine.
pub fn open_system_voice(rate_wpm: Option<u32>) -> Result<Box<dyn SpeechBackend>, SpeechError> {
    #[cfg(windows)]
    if let Some(reader) = super::screen_reader::ScreenReaderBackend::open(rate_wpm) {
        return Ok(Box::new(reader));
    }
    Ok(Box::new(TtsBackend::new()?.with_rate(rate_wpm)))
}

impl TtsBackend {
    /// Connects to the platform's speech engine (on Linux, speech-dispatcher, which is started
    /// on demand). A clear [`SpeechError::Unavailable`] when it cannot be reached.
    pub fn new() -> Result<Self, SpeechError> {
        let phase = Arc::new(Mutex::new(Phase::Idle));
        let (tts, features, callbacks) = open(&phase)?;
        Ok(TtsBackend {
            tts: Some(tts),
            features,
            callbacks,
            phase,
            chosen: HashMap::new(),
            current_lang: None,
            last_open: Instant::now(),
            rate_wpm: None,
        })
    }

    /// Speaks at `rate_wpm` words per minute (espeak-ng's scale, 175 normal), scaled to the
    /// engine's own rate range; `None` keeps the engine's rate.
    pub fn with_rate(mut self, rate_wpm: Option<u32>) -> Self {
        self.rate_wpm = rate_wpm;
        self.apply_rate();
        self
    }

    fn apply_rate(&mut self) {
        let (Some(wpm), Some(tts)) = (self.rate_wpm, self.tts.as_mut()) else {
            return;
        };
        if !self.features.rate {
            return;
        }
        let normal = tts.normal_rate();
        let rate = (normal * wpm as f32 / super::DEFAULT_RATE_WPM as f32)
            .clamp(tts.min_rate(), tts.max_rate());
        if let Err(e) = tts.set_rate(rate) {
            tracing::debug!(rate, error = %e, "cannot set the speech rate");
        }
    }

    fn reconnect(&mut self) -> Result<(), SpeechError> {
        if self.last_open.elapsed() < REOPEN_EVERY {
            return Err(SpeechError::Failed(
                "the system voice is disconnected; reconnecting shortly".into(),
            ));
        }
        self.last_open = Instant::now();
        let (tts, features, callbacks) =
            open(&self.phase).map_err(|e| SpeechError::Failed(e.to_string()))?;
        self.tts = Some(tts);
        self.features = features;
        self.callbacks = callbacks;
        self.current_lang = None;
        self.apply_rate();
        Ok(())
    }

    /// Switches to the voice for `lang` when the language changes. A missing voice is not an
    /// error: the default voice still speaks (logged once per language).
    fn select_voice(&mut self, lang: &str) {
        if self.current_lang.as_deref() == Some(lang) || !self.features.voice {
            return;
        }
        let Some(tts) = self.tts.as_mut() else {
            return;
        };
        let voice = self
            .chosen
            .entry(lang.to_string())
            .or_insert_with(|| {
                // Listed only when a new language appears: speech-dispatcher lists thousands.
                let voices = tts.voices().unwrap_or_default();
                let v = pick_voice(&voices, lang);
                if v.is_none() {
                    tracing::warn!(
                        lang,
                        "no system voice for this language; the default voice speaks"
                    );
                }
                v
            })
            .clone();
        if let Some(v) = voice
            && let Err(e) = tts.set_voice(&v)
        {
            tracing::debug!(lang, voice = %v.name(), error = %e, "cannot switch voice");
        }
        self.current_lang = Some(lang.to_string());
    }
}

impl SpeechBackend for TtsBackend {
    fn name(&self) -> &str {
        "tts"
    }

    fn speak(&mut self, u: &Utterance) -> Result<(), SpeechError> {
        if self.tts.is_none() {
            self.reconnect()?;
        }
        self.select_voice(&u.lang);
        // The engines take C strings: a NUL would be refused (or panic in a binding).
        let text: String = u
            .text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        set(&self.phase, Phase::Sent(Instant::now()));
        let Some(tts) = self.tts.as_mut() else {
            return Err(SpeechError::Failed(
                "the system voice is disconnected".into(),
            ));
        };
        match tts.speak(text, false) {
            Ok(_) => Ok(()),
            Err(e) => {
                // Most likely the daemon went away: reconnect on a later utterance.
                self.tts = None;
                set(&self.phase, Phase::Idle);
                Err(SpeechError::Failed(format!("the system voice failed: {e}")))
            }
        }
    }

    fn is_speaking(&mut self) -> Result<bool, SpeechError> {
        let Some(tts) = self.tts.as_ref() else {
            return Ok(false);
        };
        if self.callbacks {
            let phase = *self.phase.lock().unwrap_or_else(PoisonError::into_inner);
            return match phase {
                Phase::Idle => Ok(false),
                Phase::Speaking => Ok(true),
                Phase::Sent(at) if at.elapsed() < BEGIN_TIMEOUT => Ok(true),
                Phase::Sent(_) => {
                    set(&self.phase, Phase::Idle);
                    Err(SpeechError::Failed(format!(
                        "the system voice accepted the text but did not begin within {} s; \
                         check its audio output (`spd-say hello`, ~/.cache/speech-dispatcher/log)",
                        BEGIN_TIMEOUT.as_secs()
                    )))
                }
            };
        }
        if self.features.is_speaking {
            return tts
                .is_speaking()
                .map_err(|e| SpeechError::Failed(format!("the system voice: {e}")));
        }
        // A screen reader queues utterances itself and cannot say when it is done.
        Ok(false)
    }

    fn stop(&mut self) {
        if let Some(tts) = self.tts.as_mut()
            && self.features.stop
            && let Err(e) = tts.stop()
        {
            tracing::debug!(error = %e, "cannot stop the system voice");
        }
        set(&self.phase, Phase::Idle);
    }
}
