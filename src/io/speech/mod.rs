//! Speech output: the backends that turn utterances into sound or records, and the speaker that keeps them off the game's path.
//!
//! The table decides *what* to say (the words come from `crate::chess::phrases`); this module only
//! delivers it. Every backend runs on its own thread behind a small bounded queue, so saying
//! something never waits for a synthesizer, a disk or a daemon. An urgent utterance (flag fall,
//! illegal move) cuts short whatever is being spoken and goes to the front of the queue. A backend
//! whose engine is missing or unreachable is logged once and falls silent; the others, and the
//! game, go on. See `docs/speech.md`.
//!
//! Backends, chosen with a spec such as `tts,transcript:/var/log/annabella/speech.txt`:
//! - [`tts::TtsBackend`] (`tts`): the system voice through the `tts` crate (speech-dispatcher on
//!   Linux, a screen reader or WinRT on Windows, AVFoundation on macOS).
//! - [`espeak::EspeakBackend`] (`espeak-ng`): an `espeak-ng` subprocess per utterance.
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

pub use crate::table::event::Listener;

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
        }
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
}

/// One backend named in a `--speech` spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BackendSpec {
    /// `tts`: the system voice.
    Tts,
    /// `espeak-ng`: an espeak-ng subprocess.
    EspeakNg,
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
    pub fn open(&self) -> Result<Box<dyn SpeechBackend>, SpeechError> {
        Ok(match self {
            BackendSpec::Tts => Box::new(tts::TtsBackend::new()?),
            BackendSpec::EspeakNg => Box::new(espeak::EspeakBackend::new()),
            BackendSpec::Wav(dir) => Box::new(wav::WavBackend::new(dir)?),
            BackendSpec::Transcript(file) => Box::new(transcript::TranscriptBackend::open(file)?),
            BackendSpec::None => Box::new(NoneBackend),
        })
    }
}

const BACKEND_HELP: &str = "expected tts, espeak-ng, wav:DIR, transcript:FILE or none";

/// Parses `BACKEND[,BACKEND…]`, e.g. `tts,wav:/srv/records,transcript:/tmp/speech.txt`.
///
/// Paths may contain `:` (Windows drive letters) but not `,`. `none` stands alone.
pub fn parse_backends(spec: &str) -> Result<Vec<BackendSpec>, String> {
    if spec.trim().is_empty() {
        return Err(format!(
            "no speech backend given: {BACKEND_HELP} (none means silence)"
        ));
    }
    let mut out = Vec::new();
    for item in spec.split(',').map(str::trim) {
        let parsed = match item.split_once(':') {
            _ if item.is_empty() => {
                return Err(format!(
                    "empty speech backend in `{spec}` (two commas, or a comma at an end)"
                ));
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
                        return Err(
                            "transcript needs a file: transcript:FILE (FILE is empty)".into()
                        );
                    }
                    "transcript" => BackendSpec::Transcript(PathBuf::from(path)),
                    _ => return Err(format!("unknown speech backend `{item}`: {BACKEND_HELP}")),
                }
            }
        };
        if out.contains(&parsed) {
            return Err(format!("speech backend `{parsed}` is listed twice"));
        }
        out.push(parsed);
    }
    if out.len() > 1 && out.contains(&BackendSpec::None) {
        return Err(
            "`none` means silence and cannot be combined with other speech backends".into(),
        );
    }
    Ok(out)
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

#[derive(Default)]
struct State {
    queue: VecDeque<Utterance>,
    /// The urgency of the utterance being spoken, if any.
    current: Option<Urgency>,
    interrupt: bool,
    closed: bool,
    dropped: u64,
}

struct Shared {
    name: String,
    capacity: usize,
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
        match u.urgency {
            Urgency::Urgent => {
                // In front of the normal ones, behind earlier urgent ones: two urgent messages
                // (illegal move, then flag) keep their order.
                let at = s
                    .queue
                    .iter()
                    .take_while(|q| q.urgency == Urgency::Urgent)
                    .count();
                s.queue.insert(at, u);
                if s.current == Some(Urgency::Normal) {
                    s.interrupt = true;
                }
            }
            Urgency::Normal => s.queue.push_back(u),
        }
        // Only normal utterances are ever dropped; a queue of urgent ones may exceed the bound.
        let mut gone = Vec::new();
        while s.queue.len() > self.capacity {
            let Some(i) = s.queue.iter().position(|q| q.urgency == Urgency::Normal) else {
                break;
            };
            gone.extend(s.queue.remove(i));
        }
        s.dropped += gone.len() as u64;
        drop(s);
        self.work.notify_one();
        // Logged outside the lock, so a slow log sink delays only this caller, not the worker.
        for u in gone {
            tracing::warn!(
                backend = %self.name,
                listener = %u.listener,
                text = %u.text,
                "speech queue full: dropped the oldest normal utterance"
            );
        }
    }
}

struct Worker {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

/// Speaks utterances through any number of backends, each on its own thread, without ever
/// blocking the caller.
pub struct Speaker {
    workers: Vec<Worker>,
}

impl Speaker {
    /// A speaker for the given backends, each opened on its own thread. A backend that cannot be
    /// opened is logged and stays silent.
    pub fn new(specs: &[BackendSpec]) -> Speaker {
        Self::with_capacity(specs, DEFAULT_QUEUE_CAPACITY)
    }

    /// As [`Speaker::new`], with `capacity` queued normal utterances per backend (at least 1).
    pub fn with_capacity(specs: &[BackendSpec], capacity: usize) -> Speaker {
        let workers = specs
            .iter()
            .filter(|s| **s != BackendSpec::None)
            .map(|spec| {
                let opener_spec = spec.clone();
                spawn_worker(
                    spec.to_string(),
                    capacity,
                    Box::new(move || opener_spec.open()),
                )
            })
            .collect();
        Speaker { workers }
    }

    /// Parses a `--speech` spec and builds the speaker.
    pub fn from_spec(spec: &str) -> Result<Speaker, String> {
        Ok(Speaker::new(&parse_backends(spec)?))
    }

    /// A speaker over backends built by the caller (tests, or a backend this module does not
    /// know).
    pub fn from_backends(backends: Vec<Box<dyn SpeechBackend>>, capacity: usize) -> Speaker {
        let workers = backends
            .into_iter()
            .map(|b| {
                let name = b.name().to_string();
                spawn_worker(name, capacity, Box::new(move || Ok(b)))
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

    /// Queues the utterance for every backend and returns at once.
    pub fn say(&self, utterance: Utterance) {
        if let Some((last, rest)) = self.workers.split_last() {
            for w in rest {
                w.shared.enqueue(utterance.clone());
            }
            last.shared.enqueue(utterance);
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

    /// The names of the backends, in the order given.
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

fn spawn_worker(name: String, capacity: usize, open: Opener) -> Worker {
    let shared = Arc::new(Shared {
        name,
        capacity: capacity.max(1),
        state: Mutex::new(State::default()),
        work: Condvar::new(),
        idle: Condvar::new(),
    });
    let for_thread = Arc::clone(&shared);
    let thread = thread::Builder::new()
        .name(format!("speech {}", shared.name))
        .spawn(move || run(&for_thread, open));
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

/// The worker loop of one backend.
fn run(shared: &Shared, open: Opener) {
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
                if let Some(u) = s.queue.pop_front() {
                    s.current = Some(u.urgency);
                    s.interrupt = false;
                    break u;
                }
                s = shared.work.wait(s).unwrap_or_else(PoisonError::into_inner);
            }
        };
        let Some(b) = backend.as_mut() else {
            continue;
        };
        match speak_one(shared, b.as_mut(), &utterance) {
            Ok(()) => {
                if failures > 0 {
                    tracing::info!(backend = %shared.name, failures, "speech works again");
                }
                failures = 0;
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
fn speak_one(shared: &Shared, b: &mut dyn SpeechBackend, u: &Utterance) -> Result<(), SpeechError> {
    guarded(|| b.speak(u))?;
    let started = Instant::now();
    let limit = speaking_limit(u);
    loop {
        if !guarded(|| b.is_speaking())? {
            return Ok(());
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
            s.interrupt = false;
            drop(s);
            guarded(|| {
                b.stop();
                Ok(())
            })?;
            return Ok(());
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
