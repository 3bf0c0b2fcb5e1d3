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
//!   Linux, a screen reader or WinRT on Windows, AVFoundation on macOS).
//! - [`espeak::EspeakBackend`] (`espeak-ng`): an `espeak-ng` subprocess per utterance, to the
//!   default audio output, or (`espeak-ng@DEVICE`) piped into `aplay -D DEVICE`.
//! - [`wav::WavBackend`] (`wav:DIR`): one WAV file per game, the audio record FIDE D.2.7 allows.
//! - [`transcript::TranscriptBackend`] (`transcript:FILE`): one text line per utterance.
//! - [`NoneBackend`] (`none`): silence.

pub mod espeak;
pub mod transcript;
pub mod tts;
pub mod wav;

use std::collections::VecDeque;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use shakmaty::Color;

use crate::chess::language::Language;
use crate::chess::phrases::number_phrase;
use crate::chess::vocabulary::fill;
pub use crate::table::event::{About, Listener};

/// Whether an utterance may wait its turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Urgency {
    /// Spoken in order; the oldest normal utterance is dropped when a queue overflows.
    Normal,
    /// Interrupts a normal utterance being spoken, jumps the queue and is never dropped.
    Urgent,
}

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
            urgency: Urgency::Normal,
            game: game.into(),
            at_unix_ms,
            about: About::Other,
        }
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

/// The listeners an output serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Listeners {
    pub blind: bool,
    pub opponent: bool,
    pub arbiter: bool,
}

impl Listeners {
    /// Everyone: an output without a prefix.
    pub const ALL: Listeners = Listeners {
        blind: true,
        opponent: true,
        arbiter: true,
    };

    /// Whether an utterance for `listener` goes to this output (one for everyone always does).
    pub fn serves(self, listener: Listener) -> bool {
        match listener {
            Listener::Everyone => true,
            Listener::BlindPlayer => self.blind,
            Listener::Opponent => self.opponent,
            Listener::Arbiter => self.arbiter,
        }
    }

    /// Parses a prefix: `blind`, `opponent`, `arbiter`, joined by `+`.
    pub fn parse(prefix: &str) -> Result<Listeners, String> {
        let mut out = Listeners {
            blind: false,
            opponent: false,
            arbiter: false,
        };
        for name in prefix.split('+').map(str::trim) {
            let slot = match name {
                "blind" => &mut out.blind,
                "opponent" => &mut out.opponent,
                "arbiter" => &mut out.arbiter,
                _ => {
                    return Err(format!(
                        "unknown listener `{name}` in `{prefix}=`: expected blind, opponent or arbiter, joined by +"
                    ));
                }
            };
            if *slot {
                return Err(format!("listener `{name}` is named twice in `{prefix}=`"));
            }
            *slot = true;
        }
        Ok(out)
    }
}

impl fmt::Display for Listeners {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = [
            (self.blind, "blind"),
            (self.opponent, "opponent"),
            (self.arbiter, "arbiter"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, n)| *n)
        .collect();
        f.write_str(&names.join("+"))
    }
}

/// One output of a `--speech` spec: a backend and the listeners it serves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputSpec {
    pub listeners: Listeners,
    pub backend: BackendSpec,
}

impl fmt::Display for OutputSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.listeners == Listeners::ALL {
            write!(f, "{}", self.backend)
        } else {
            write!(f, "{}={}", self.listeners, self.backend)
        }
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

/// Parses a speech rate in words per minute.
pub fn parse_rate(text: &str) -> Result<u32, String> {
    let wpm: u32 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a rate: words per minute, e.g. 175"))?;
    if !RATE_RANGE.contains(&wpm) {
        return Err(format!(
            "rate {wpm} is out of range: {} to {} words per minute",
            RATE_RANGE.start(),
            RATE_RANGE.end()
        ));
    }
    Ok(wpm)
}

/// The languages a speaker knows, for spoken forms and the record's move headings.
#[derive(Debug, Default)]
struct Voicing {
    extra: Vec<Language>,
}

impl Voicing {
    /// The language of a code: a configured one first, then a built-in one; the primary subtag
    /// when the full code is unknown ("de-AT" → "de").
    fn language(&self, code: &str) -> Option<&Language> {
        let primary = code.split(['-', '_']).next().unwrap_or(code);
        [code, primary].into_iter().find_map(|c| {
            self.extra
                .iter()
                .find(|l| l.code().eq_ignore_ascii_case(c))
                .or_else(|| {
                    Language::all_builtin()
                        .iter()
                        .find(|l| l.code().eq_ignore_ascii_case(c))
                })
        })
    }

    /// The utterance as a backend gets it: numbered when it records the score, with the
    /// spoken forms when it is voiced.
    fn prepare(&self, u: &Utterance, voiced: bool, records_score: bool) -> Utterance {
        let Some(lang) = self.language(&u.lang) else {
            return u.clone();
        };
        let v = lang.vocabulary();
        let mut out = u.clone();
        if records_score && let About::Move { number, color } = u.about {
            let heading = move_heading(lang, number, color);
            out.text = format!("{heading}: {}", u.text);
        }
        if voiced {
            out.text = v.pronounce(&out.text);
        }
        out
    }
}

/// "Zug zwölf, Weiß": the heading of a move in the audio record, in the language's words.
pub fn move_heading(lang: &Language, number: u32, color: Color) -> String {
    let v = lang.vocabulary();
    fill(
        v.record_move(),
        &[
            ("number", &number_phrase(number, v)),
            ("color", v.color(color)),
        ],
    )
}

/// One backend named in a `--speech` spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BackendSpec {
    /// `tts`: the system voice.
    Tts,
    /// `espeak-ng`: an espeak-ng subprocess, to the default audio output.
    EspeakNg,
    /// `espeak-ng@DEVICE`: espeak-ng's audio played by `aplay -D DEVICE` (an ALSA device such as
    /// `plughw:1,0`, or `pulse`), so each listener can have his own headphones or speaker.
    EspeakNgOn(String),
    /// `wav:DIR`: one WAV record per game in DIR.
    Wav(PathBuf),
    /// `transcript:FILE`: one line per utterance appended to FILE.
    Transcript(PathBuf),
    /// `none`: silence.
    None,
}

impl fmt::Display for BackendSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BackendSpec::Tts => f.write_str("tts"),
            BackendSpec::EspeakNg => f.write_str("espeak-ng"),
            BackendSpec::EspeakNgOn(device) => write!(f, "espeak-ng@{device}"),
            BackendSpec::Wav(dir) => write!(f, "wav:{}", dir.display()),
            BackendSpec::Transcript(file) => write!(f, "transcript:{}", file.display()),
            BackendSpec::None => f.write_str("none"),
        }
    }
}

impl BackendSpec {
    /// Opens the backend: connects to the speech daemon, creates the directory or file. May take a
    /// moment (speech-dispatcher is started on demand), which is why the [`Speaker`] calls it on
    /// the backend's own thread.
    pub fn open(&self, rate_wpm: Option<u32>) -> Result<Box<dyn SpeechBackend>, SpeechError> {
        Ok(match self {
            BackendSpec::Tts => Box::new(tts::TtsBackend::new()?.with_rate(rate_wpm)),
            BackendSpec::EspeakNg => Box::new(espeak::EspeakBackend::new().with_rate(rate_wpm)),
            BackendSpec::EspeakNgOn(device) => Box::new(
                espeak::EspeakBackend::new()
                    .with_rate(rate_wpm)
                    .on_device(device),
            ),
            BackendSpec::Wav(dir) => Box::new(wav::WavBackend::new(dir)?.with_rate(rate_wpm)),
            BackendSpec::Transcript(file) => Box::new(transcript::TranscriptBackend::open(file)?),
            BackendSpec::None => Box::new(NoneBackend),
        })
    }

    /// Whether the backend makes sound or records it (see [`SpeechBackend::voiced`]).
    pub fn voiced(&self) -> bool {
        !matches!(self, BackendSpec::Transcript(_) | BackendSpec::None)
    }
}

const BACKEND_HELP: &str =
    "expected tts, espeak-ng, espeak-ng@DEVICE, wav:DIR, transcript:FILE or none";

/// Parses `[LISTENERS=]BACKEND[,…]`, e.g.
/// `blind=espeak-ng@plughw:1,opponent+arbiter=tts,wav:/srv/records`. LISTENERS are `blind`,
/// `opponent` and `arbiter` joined by `+`; an output without them serves everyone.
///
/// A `=` before the first `:` or `@` starts a prefix, so paths and devices may contain `=`.
pub fn parse_outputs(spec: &str) -> Result<Vec<OutputSpec>, String> {
    let mut out: Vec<OutputSpec> = Vec::new();
    if spec.trim().is_empty() {
        return Err(format!(
            "no speech backend given: {BACKEND_HELP} (none means silence)"
        ));
    }
    for item in spec.split(',').map(str::trim) {
        let head_end = item.find([':', '@']).unwrap_or(item.len());
        let (listeners, backend) = match item[..head_end].find('=') {
            Some(eq) => (Listeners::parse(&item[..eq])?, item[eq + 1..].trim()),
            None => (Listeners::ALL, item),
        };
        let parsed = parse_backend(backend, spec)?;
        if out.iter().any(|o| o.backend == parsed) {
            return Err(format!("speech backend `{parsed}` is listed twice"));
        }
        if parsed == BackendSpec::None && listeners != Listeners::ALL {
            return Err("`none` means silence for everyone and takes no listeners".into());
        }
        out.push(OutputSpec {
            listeners,
            backend: parsed,
        });
    }
    if out.len() > 1 && out.iter().any(|o| o.backend == BackendSpec::None) {
        return Err(
            "`none` means silence and cannot be combined with other speech backends".into(),
        );
    }
    Ok(out)
}

/// Parses `BACKEND[,BACKEND…]` without listener prefixes, e.g.
/// `tts,wav:/srv/records,transcript:/tmp/speech.txt`.
///
/// Paths may contain `:` (Windows drive letters) but not `,`. `none` stands alone.
pub fn parse_backends(spec: &str) -> Result<Vec<BackendSpec>, String> {
    let outputs = parse_outputs(spec)?;
    if let Some(o) = outputs.iter().find(|o| o.listeners != Listeners::ALL) {
        return Err(format!(
            "`{o}` names listeners; this setting takes backends only"
        ));
    }
    Ok(outputs.into_iter().map(|o| o.backend).collect())
}

/// One backend of a spec, without its prefix.
fn parse_backend(item: &str, spec: &str) -> Result<BackendSpec, String> {
    Ok(match item.split_once(':') {
        _ if item.is_empty() => {
            return Err(format!(
                "empty speech backend in `{spec}` (two commas, or a comma at an end)"
            ));
        }
        _ if item.starts_with("espeak-ng@") => {
            let device = item["espeak-ng@".len()..].trim();
            if device.is_empty() {
                return Err("espeak-ng@ needs an audio device: espeak-ng@DEVICE (DEVICE is empty, see aplay -L)".into());
            }
            BackendSpec::EspeakNgOn(device.to_string())
        }
        None => match item {
            "tts" => BackendSpec::Tts,
            "espeak-ng" => BackendSpec::EspeakNg,
            "none" => BackendSpec::None,
            "wav" => return Err("wav needs a directory: wav:DIR".into()),
            "transcript" => return Err("transcript needs a file: transcript:FILE".into()),
            _ => return Err(format!("unknown speech backend `{item}`: {BACKEND_HELP}")),
        },
        Some((kind, path)) => {
            let path = path.trim();
            match kind.trim() {
                "wav" if path.is_empty() => {
                    return Err("wav needs a directory: wav:DIR (DIR is empty)".into());
                }
                "wav" => BackendSpec::Wav(PathBuf::from(path)),
                "transcript" if path.is_empty() => {
                    return Err("transcript needs a file: transcript:FILE (FILE is empty)".into());
                }
                "transcript" => BackendSpec::Transcript(PathBuf::from(path)),
                _ => return Err(format!("unknown speech backend `{item}`: {BACKEND_HELP}")),
            }
        }
    })
}

/// Queue length per backend when none is given: a few moves' worth of announcements. A longer
/// backlog is stale by the time it would be heard.
pub const DEFAULT_QUEUE_CAPACITY: usize = 16;

/// How often the worker checks whether a subprocess or daemon is still speaking. Urgent
/// utterances wake it at once; this only bounds how late the *next* utterance starts.
const POLL: Duration = Duration::from_millis(5);

/// The longest an utterance may take before the speaker assumes the engine hangs and cuts it
/// short: generous, since a slow voice reads about 10 characters a second.
fn speaking_limit(u: &Utterance) -> Duration {
    Duration::from_secs(5) + Duration::from_millis(150) * u.text.chars().count() as u32
}

type Opener = Box<dyn FnOnce() -> Result<Box<dyn SpeechBackend>, SpeechError> + Send>;

/// An utterance waiting its turn, with when it was queued (to tell a stale clock call).
struct Queued {
    u: Utterance,
    since: Instant,
}

impl Queued {
    /// A clock call whose time has passed since it was made: "vier Sekunden" said with one
    /// second left is wrong, so it is dropped rather than said late.
    fn expired(&self, now: Instant) -> bool {
        match self.u.about {
            About::ClockCall { remaining_ms, .. } => {
                now.saturating_duration_since(self.since) >= Duration::from_millis(remaining_ms)
            }
            _ => false,
        }
    }
}

#[derive(Default)]
struct State {
    queue: VecDeque<Queued>,
    /// The urgency of the utterance being spoken, if any.
    current: Option<Urgency>,
    interrupt: bool,
    closed: bool,
    dropped: u64,
    /// Clock calls dropped as stale, for tests and logs.
    stale: u64,
}

impl State {
    /// Where an urgent utterance (or a cut move said again) goes: behind the urgent ones.
    fn front_of_normal(&self) -> usize {
        self.queue
            .iter()
            .take_while(|q| q.u.urgency == Urgency::Urgent)
            .count()
    }
}

struct Shared {
    name: String,
    capacity: usize,
    /// Whether the backend speaks (see [`SpeechBackend::voiced`]).
    voiced: bool,
    /// The listeners this output serves.
    listeners: Listeners,
    state: Mutex<State>,
    /// Wakes the worker: new work, an interrupt, or shutdown.
    work: Condvar,
    /// Wakes `flush_blocking`: the worker finished an utterance.
    idle: Condvar,
}

impl Shared {
    // A panic elsewhere must not silence speech for good: a poisoned lock is still usable, as
    // the queue it guards is always left consistent.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn enqueue(&self, u: Utterance) {
        let mut s = self.lock();
        if s.closed {
            return;
        }
        let mut stale = Vec::new();
        if let About::ClockCall { color, .. } = u.about {
            // A later call for the same colour makes the waiting ones stale: they are dropped,
            // never said behind it.
            let mut i = 0;
            while i < s.queue.len() {
                if matches!(s.queue[i].u.about, About::ClockCall { color: c, .. } if c == color) {
                    stale.extend(s.queue.remove(i));
                } else {
                    i += 1;
                }
            }
            s.stale += stale.len() as u64;
        }
        let urgency = u.urgency;
        let queued = Queued {
            u,
            since: Instant::now(),
        };
        match urgency {
            Urgency::Urgent => {
                // In front of the normal ones, behind earlier urgent ones: two urgent messages
                // (illegal move, then flag) keep their order.
                let at = s.front_of_normal();
                s.queue.insert(at, queued);
                if s.current == Some(Urgency::Normal) {
                    s.interrupt = true;
                }
            }
            Urgency::Normal => s.queue.push_back(queued),
        }
        // Only normal utterances are ever dropped; a queue of urgent ones may exceed the bound.
        let mut gone = Vec::new();
        while s.queue.len() > self.capacity {
            let Some(i) = s.queue.iter().position(|q| q.u.urgency == Urgency::Normal) else {
                break;
            };
            gone.extend(s.queue.remove(i));
        }
        s.dropped += gone.len() as u64;
        drop(s);
        self.work.notify_one();
        // Logged outside the lock, so a slow log sink delays only this caller, not the worker.
        for q in stale {
            tracing::debug!(backend = %self.name, text = %q.u.text, "stale clock call dropped");
        }
        for q in gone {
            tracing::warn!(
                backend = %self.name,
                listener = %q.u.listener,
                text = %q.u.text,
                "speech queue full: dropped the oldest normal utterance"
            );
        }
    }
}

struct Worker {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

/// Speaks utterances through any number of outputs, each on its own thread, without ever
/// blocking the caller.
pub struct Speaker {
    workers: Vec<Worker>,
}

impl Speaker {
    /// A speaker for the given outputs, each opened on its own thread, with the engines'
    /// default rate and the built-in languages. A backend that cannot be opened is logged and
    /// stays silent.
    pub fn new(specs: &[OutputSpec]) -> Speaker {
        Self::with_settings(specs, SpeechSettings::default(), DEFAULT_QUEUE_CAPACITY)
    }

    /// A speaker for backends that serve everyone.
    pub fn for_everyone(specs: &[BackendSpec]) -> Speaker {
        let outputs: Vec<OutputSpec> = specs
            .iter()
            .map(|b| OutputSpec {
                listeners: Listeners::ALL,
                backend: b.clone(),
            })
            .collect();
        Self::new(&outputs)
    }

    /// As [`Speaker::new`], with settings and `capacity` queued normal utterances per output
    /// (at least 1).
    pub fn with_settings(
        specs: &[OutputSpec],
        settings: SpeechSettings,
        capacity: usize,
    ) -> Speaker {
        let voicing = Arc::new(Voicing {
            extra: settings.languages,
        });
        let rate = settings.rate_wpm;
        let workers = specs
            .iter()
            .filter(|s| s.backend != BackendSpec::None)
            .map(|spec| {
                let backend = spec.backend.clone();
                spawn_worker(
                    spec.backend.to_string(),
                    capacity,
                    spec.backend.voiced(),
                    spec.listeners,
                    Arc::clone(&voicing),
                    Box::new(move || backend.open(rate)),
                )
            })
            .collect();
        Speaker { workers }
    }

    /// Parses a `--speech` spec and builds the speaker.
    pub fn from_spec(spec: &str) -> Result<Speaker, String> {
        Ok(Speaker::new(&parse_outputs(spec)?))
    }

    /// A speaker over backends built by the caller (tests, or a backend this module does not
    /// know), each serving everyone.
    pub fn from_backends(backends: Vec<Box<dyn SpeechBackend>>, capacity: usize) -> Speaker {
        Self::from_outputs(
            backends.into_iter().map(|b| (Listeners::ALL, b)).collect(),
            capacity,
        )
    }

    /// A speaker over backends built by the caller, each serving the listeners given.
    pub fn from_outputs(
        outputs: Vec<(Listeners, Box<dyn SpeechBackend>)>,
        capacity: usize,
    ) -> Speaker {
        let voicing = Arc::new(Voicing::default());
        let workers = outputs
            .into_iter()
            .map(|(listeners, b)| {
                let name = b.name().to_string();
                let voiced = b.voiced();
                spawn_worker(
                    name,
                    capacity,
                    voiced,
                    listeners,
                    Arc::clone(&voicing),
                    Box::new(move || Ok(b)),
                )
            })
            .collect();
        Speaker { workers }
    }

    /// A speaker that only writes a transcript: for tests and benchmarks. The file is opened
    /// here, so a bad path is reported rather than logged.
    pub fn transcript_only(path: impl AsRef<Path>) -> Result<Speaker, SpeechError> {
        let backend = transcript::TranscriptBackend::open(path.as_ref())?;
        Ok(Speaker::from_backends(
            vec![Box::new(backend)],
            DEFAULT_QUEUE_CAPACITY,
        ))
    }

    /// Queues the utterance for every output serving its listener and returns at once.
    pub fn say(&self, utterance: Utterance) {
        self.say_step(vec![utterance]);
    }

    /// Queues the utterances of one step of the table, in order, for the outputs serving their
    /// listeners, and returns at once. A voiced output gets the same words only once per step
    /// (the blind player's move confirmed to him and announced to the opponent is one
    /// utterance on a shared loudspeaker); the first keeps its place, and takes the urgency and
    /// what it is about from a later copy that is urgent or names a move.
    pub fn say_step(&self, utterances: Vec<Utterance>) {
        for w in &self.workers {
            let mut mine: Vec<Utterance> = Vec::new();
            for u in utterances
                .iter()
                .filter(|u| w.shared.listeners.serves(u.listener))
            {
                if w.shared.voiced
                    && let Some(first) = mine.iter_mut().find(|m| m.text == u.text)
                {
                    if u.urgency == Urgency::Urgent {
                        first.urgency = Urgency::Urgent;
                    }
                    if first.about == About::Other {
                        first.about = u.about;
                    }
                    if first.listener != u.listener {
                        first.listener = Listener::Everyone;
                    }
                    continue;
                }
                mine.push(u.clone());
            }
            for u in mine {
                w.shared.enqueue(u);
            }
        }
    }

    /// Waits until every backend has finished everything queued, or until `timeout`. Returns
    /// whether all were drained. For tests and an orderly shutdown.
    pub fn flush_blocking(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        for w in &self.workers {
            let mut s = w.shared.lock();
            while !(s.queue.is_empty() && s.current.is_none()) {
                let now = Instant::now();
                if now >= deadline {
                    return false;
                }
                s = w
                    .shared
                    .idle
                    .wait_timeout(s, deadline - now)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            }
        }
        true
    }

    /// How many normal utterances the backends' full queues have dropped, summed over backends.
    pub fn dropped(&self) -> u64 {
        self.workers.iter().map(|w| w.shared.lock().dropped).sum()
    }

    /// How many clock calls were dropped as stale, summed over outputs.
    pub fn stale_dropped(&self) -> u64 {
        self.workers.iter().map(|w| w.shared.lock().stale).sum()
    }

    /// The names of the outputs, in the order given, with their listeners when not everyone.
    pub fn backend_names(&self) -> Vec<String> {
        self.workers.iter().map(|w| w.shared.name.clone()).collect()
    }
}

impl Drop for Speaker {
    /// Discards what is still queued, stops what is being spoken (an espeak-ng child must not
    /// outlive the daemon) and gives the threads a moment to finish; a thread stuck in an engine
    /// is left behind rather than hanging the shutdown.
    fn drop(&mut self) {
        for w in &self.workers {
            let mut s = w.shared.lock();
            s.closed = true;
            s.queue.clear();
            drop(s);
            w.shared.work.notify_all();
        }
        let deadline = Instant::now() + Duration::from_millis(500);
        for w in &mut self.workers {
            if let Some(t) = w.thread.take() {
                while !t.is_finished() && Instant::now() < deadline {
                    thread::sleep(Duration::from_millis(1));
                }
                if t.is_finished() {
                    let _ = t.join();
                }
            }
        }
    }
}

fn spawn_worker(
    name: String,
    capacity: usize,
    voiced: bool,
    listeners: Listeners,
    voicing: Arc<Voicing>,
    open: Opener,
) -> Worker {
    let name = if listeners == Listeners::ALL {
        name
    } else {
        format!("{listeners}={name}")
    };
    let shared = Arc::new(Shared {
        name,
        capacity: capacity.max(1),
        voiced,
        listeners,
        state: Mutex::new(State::default()),
        work: Condvar::new(),
        idle: Condvar::new(),
    });
    let for_thread = Arc::clone(&shared);
    let thread = thread::Builder::new()
        .name(format!("speech {}", shared.name))
        .spawn(move || run(&for_thread, &voicing, open));
    let thread = match thread {
        Ok(t) => Some(t),
        Err(e) => {
            // Without a thread this backend cannot work; the queue must still not grow or
            // make flush_blocking wait, so it is closed.
            tracing::warn!(backend = %shared.name, error = %e, "cannot start the speech thread");
            shared.lock().closed = true;
            None
        }
    };
    Worker { shared, thread }
}

/// Runs a backend call, turning a panic inside an engine binding into an error: a broken engine
/// must not take the speaker down.
fn guarded<T>(f: impl FnOnce() -> Result<T, SpeechError>) -> Result<T, SpeechError> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(SpeechError::Unavailable(
            "the speech engine panicked".into(),
        ))
    })
}

/// How an utterance ended.
enum Spoken {
    /// Said to the end (or given up on: a failure is reported separately).
    Done,
    /// Cut short by an urgent utterance.
    Cut,
}

/// The worker loop of one backend.
fn run(shared: &Shared, voicing: &Voicing, open: Opener) {
    let mut backend = match guarded(open) {
        Ok(b) => Some(b),
        Err(e) => {
            tracing::warn!(
                backend = %shared.name,
                error = %e,
                "speech backend unavailable: it stays silent, the game and the other backends go on"
            );
            None
        }
    };
    let records_score = backend.as_ref().is_some_and(|b| b.records_score());
    // Consecutive failures: the first is a warning, the rest would only repeat it.
    let mut failures = 0u32;
    loop {
        let utterance = {
            let mut s = shared.lock();
            s.current = None;
            shared.idle.notify_all();
            loop {
                if s.closed {
                    return;
                }
                if let Some(q) = s.queue.pop_front() {
                    if q.expired(Instant::now()) {
                        s.stale += 1;
                        tracing::debug!(backend = %shared.name, text = %q.u.text, "clock call outlived its time: dropped");
                        continue;
                    }
                    s.current = Some(q.u.urgency);
                    s.interrupt = false;
                    break q.u;
                }
                s = shared.work.wait(s).unwrap_or_else(PoisonError::into_inner);
            }
        };
        let Some(b) = backend.as_mut() else {
            continue;
        };
        let prepared = voicing.prepare(&utterance, shared.voiced, records_score);
        match speak_one(shared, b.as_mut(), &prepared) {
            Ok(spoken) => {
                if failures > 0 {
                    tracing::info!(backend = %shared.name, failures, "speech works again");
                }
                failures = 0;
                if let (Spoken::Cut, About::Move { .. }) = (spoken, utterance.about) {
                    // A move is never lost: said again right after the urgent utterance(s)
                    // that cut it off.
                    let mut s = shared.lock();
                    if !s.closed {
                        let at = s.front_of_normal();
                        s.queue.insert(
                            at,
                            Queued {
                                u: utterance,
                                since: Instant::now(),
                            },
                        );
                    }
                }
            }
            Err(SpeechError::Unavailable(e)) => {
                tracing::warn!(
                    backend = %shared.name,
                    error = %e,
                    "speech engine unavailable: this backend falls silent, the game and the other backends go on"
                );
                backend = None;
            }
            Err(SpeechError::Failed(e)) => {
                if failures == 0 {
                    tracing::warn!(backend = %shared.name, error = %e, text = %utterance.text, "speech failed; the game goes on");
                } else {
                    tracing::debug!(backend = %shared.name, error = %e, text = %utterance.text, "speech failed again");
                }
                failures = failures.saturating_add(1);
            }
        }
    }
}

/// Speaks one utterance and waits, interruptibly, until it has been spoken.
fn speak_one(
    shared: &Shared,
    b: &mut dyn SpeechBackend,
    u: &Utterance,
) -> Result<Spoken, SpeechError> {
    guarded(|| b.speak(u))?;
    let started = Instant::now();
    let limit = speaking_limit(u);
    loop {
        if !guarded(|| b.is_speaking())? {
            return Ok(Spoken::Done);
        }
        let s = shared.lock();
        let mut s = if s.interrupt || s.closed {
            s
        } else {
            shared
                .work
                .wait_timeout(s, POLL)
                .unwrap_or_else(PoisonError::into_inner)
                .0
        };
        if s.interrupt || s.closed {
            let cut = s.interrupt && !s.closed;
            s.interrupt = false;
            drop(s);
            guarded(|| {
                b.stop();
                Ok(())
            })?;
            return Ok(if cut { Spoken::Cut } else { Spoken::Done });
        }
        drop(s);
        if started.elapsed() > limit {
            guarded(|| {
                b.stop();
                Ok(())
            })?;
            return Err(SpeechError::Failed(format!(
                "still speaking after {} s; cut short (is the engine hanging?)",
                limit.as_secs()
            )));
        }
    }
}
