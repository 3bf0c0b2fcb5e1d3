//! The speaker: one thread and one queue per output, so that saying something never waits for a synthesizer, a disk or a daemon; what is cut and what is said again is decided in `queue.rs`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use shakmaty::Color;

use super::queue::SpeechQueue;
use super::score::Scores;
use super::{
    About, BackendSpec, Language, Listener, Listeners, OutputSpec, SpeechBackend, SpeechError,
    SpeechSettings, SpeechSpecError, Urgency, Utterance, parse_outputs, transcript,
};
use crate::chess::phrases::number_phrase;
use crate::chess::vocabulary::fill;

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
    fn prepare(&self, u: &Utterance, backend: BackendTraits) -> Utterance {
        let BackendTraits {
            voiced,
            records_score,
            espeak_phonemes,
        } = backend;
        let Some(lang) = self.language(&u.lang) else {
            return u.clone();
        };
        let v = lang.vocabulary();
        let mut out = u.clone();
        if records_score
            && let About::Move { number, color } | About::Withdrawn { number, color } = u.about
        {
            let heading = move_heading(lang, number, color);
            out.text = if u.cassette {
                // The cassette custom: the move said twice, so that a listener winding the
                // tape is sure of it.
                format!("{heading}: {text}. {heading}: {text}", text = u.text)
            } else {
                format!("{heading}: {}", u.text)
            };
        }
        if voiced {
            out.text = if espeak_phonemes {
                v.pronounce_for_espeak(&out.text)
            } else {
                v.pronounce(&out.text)
            };
        }
        out
    }
}

/// What the text is prepared for: a voice (spoken forms), the score's record (numbered moves),
/// espeak-ng (its phonemes).
#[derive(Debug, Clone, Copy)]
struct BackendTraits {
    voiced: bool,
    records_score: bool,
    espeak_phonemes: bool,
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

/// One output's queue and counters, behind the mutex the worker and the callers share.
struct State {
    queue: SpeechQueue,
    closed: bool,
    dropped: u64,
    /// Clock calls dropped as stale, for tests and logs.
    stale: u64,
    /// A new backend to open before the next utterance: the output moved to another audio
    /// device (`Speaker::set_device`).
    reopen: Option<Opener>,
}

struct Shared {
    name: String,
    /// Whether the backend speaks (see [`SpeechBackend::voiced`]).
    voiced: bool,
    /// The listeners this output serves.
    listeners: Listeners,
    /// The backend as configured, and as moved by `set_device` since; `None` for a backend the
    /// caller built.
    spec: Mutex<Option<BackendSpec>>,
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
        let pushed = s.queue.push(u, Instant::now());
        s.stale += pushed.stale.len() as u64;
        s.dropped += pushed.dropped.len() as u64;
        drop(s);
        self.work.notify_one();
        // Logged outside the lock, so a slow log sink delays only this caller, not the worker.
        for u in pushed.stale {
            tracing::debug!(backend = %self.name, text = %u.text, "stale clock call dropped");
        }
        for u in pushed.dropped {
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

/// Speaks utterances through any number of outputs, each on its own thread, without ever
/// blocking the caller.
pub struct Speaker {
    workers: Vec<Worker>,
    /// The rate outputs are opened with, again when one moves to another device.
    rate_wpm: Option<u32>,
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
                let worker = spawn_worker(
                    spec.backend.to_string(),
                    capacity,
                    spec.backend.voiced(),
                    spec.listeners,
                    Arc::clone(&voicing),
                    Box::new(move || backend.open(rate)),
                );
                *lock(&worker.shared.spec) = Some(spec.backend.clone());
                worker
            })
            .collect();
        Speaker {
            workers,
            rate_wpm: rate,
        }
    }

    /// Parses a `--speech` spec and builds the speaker.
    pub fn from_spec(spec: &str) -> Result<Speaker, SpeechSpecError> {
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
        Speaker {
            workers,
            rate_wpm: None,
        }
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

    /// Queues on each voiced output the utterances `words` gives for the listeners it serves,
    /// whatever their own listener: the appliance's ready phrase, which tells each player which
    /// ear or speaker is his (`app::ready`). Outputs that only write (a transcript) get nothing.
    pub fn say_on_each_voiced(&self, words: impl Fn(Listeners) -> Vec<Utterance>) {
        for w in self.workers.iter().filter(|w| w.shared.voiced) {
            for u in words(w.shared.listeners) {
                w.shared.enqueue(u);
            }
        }
    }

    /// The outputs, numbered from one as `audio-devices` lists them: whom each serves and its
    /// backend as it is now.
    pub fn outputs(&self) -> Vec<(Listeners, String)> {
        self.workers
            .iter()
            .map(|w| {
                let now = lock(&w.shared.spec).as_ref().map(ToString::to_string);
                (
                    w.shared.listeners,
                    now.unwrap_or_else(|| w.shared.name.clone()),
                )
            })
            .collect()
    }

    /// Moves output `index` (from zero) to the audio device `device` (`default`: espeak-ng's
    /// own output), then queues `words` on it, so that its listener hears where it now is.
    /// Only an espeak-ng output can move; the refusal says why another cannot.
    pub fn set_device(
        &self,
        index: usize,
        device: &str,
        words: Utterance,
    ) -> Result<String, String> {
        let w = self
            .workers
            .get(index)
            .ok_or_else(|| format!("no output {}; there are {}", index + 1, self.workers.len()))?;
        let mut spec = lock(&w.shared.spec);
        match spec.as_ref() {
            Some(BackendSpec::EspeakNg | BackendSpec::EspeakNgOn(_)) => {}
            Some(other) => {
                return Err(format!(
                    "output {} is {other}, which plays through no audio device of its own; \
                     only espeak-ng outputs can move",
                    index + 1
                ));
            }
            None => return Err(format!("output {} cannot move", index + 1)),
        }
        let backend = if device == "default" {
            BackendSpec::EspeakNg
        } else {
            BackendSpec::EspeakNgOn(device.to_owned())
        };
        *spec = Some(backend.clone());
        drop(spec);
        let rate = self.rate_wpm;
        let name = backend.to_string();
        w.shared.lock().reopen = Some(Box::new(move || backend.open(rate)));
        tracing::info!(output = index + 1, backend = %name, "speech output moved to another audio device");
        w.shared.enqueue(words);
        Ok(name)
    }

    /// Waits until every backend has finished everything queued, or until `timeout`. Returns
    /// whether all were drained. For tests and an orderly shutdown.
    pub fn flush_blocking(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        for w in &self.workers {
            let mut s = w.shared.lock();
            while !s.queue.is_idle() {
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
        voiced,
        listeners,
        state: Mutex::new(State {
            queue: SpeechQueue::new(capacity),
            closed: false,
            dropped: 0,
            stale: 0,
            reopen: None,
        }),
        spec: Mutex::new(None),
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

/// Locks a mutex that a panic elsewhere may have poisoned: what it guards is a plain value.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Opens a backend on its worker's thread; one that cannot be opened is logged and stays
/// silent.
fn open_logged(shared: &Shared, open: Opener) -> Option<Box<dyn SpeechBackend>> {
    match guarded(open) {
        Ok(b) => Some(b),
        Err(e) => {
            tracing::warn!(
                backend = %shared.name,
                error = %e,
                "speech backend unavailable: it stays silent, the game and the other backends go on"
            );
            None
        }
    }
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
    let mut backend = open_logged(shared, open);
    let traits = BackendTraits {
        voiced: shared.voiced,
        records_score: backend.as_ref().is_some_and(|b| b.records_score()),
        espeak_phonemes: backend.as_ref().is_some_and(|b| b.reads_espeak_phonemes()),
    };
    // Consecutive failures: the first is a warning, the rest would only repeat it.
    let mut failures = 0u32;
    // What each game's record holds, for an output that records the score.
    let mut scores = Scores::default();
    loop {
        let utterance = {
            let mut s = shared.lock();
            // Whatever was being said has ended (said, cut and queued again, or failed).
            s.queue.done();
            shared.idle.notify_all();
            loop {
                if s.closed {
                    return;
                }
                let (next, expired) = s.queue.next(Instant::now());
                s.stale += expired.len() as u64;
                for u in &expired {
                    tracing::debug!(backend = %shared.name, text = %u.text, "clock call outlived its time: dropped");
                }
                if let Some(u) = next {
                    break u;
                }
                s = shared.work.wait(s).unwrap_or_else(PoisonError::into_inner);
            }
        };
        let reopen = shared.lock().reopen.take();
        if let Some(open) = reopen {
            if let Some(mut old) = backend.take() {
                old.stop();
            }
            backend = open_logged(shared, open);
            failures = 0;
        }
        let Some(b) = backend.as_mut() else {
            continue;
        };
        if traits.records_score && !scores.takes(&utterance.game, utterance.about) {
            continue;
        }
        let prepared = voicing.prepare(&utterance, traits);
        match speak_one(shared, b.as_mut(), &prepared) {
            Ok(spoken) => {
                if failures > 0 {
                    tracing::info!(backend = %shared.name, failures, "speech works again");
                }
                failures = 0;
                if let Spoken::Cut = spoken {
                    // Said again right after what cut it, unless it was a clock call.
                    let mut s = shared.lock();
                    if !s.closed {
                        s.queue.cut(utterance, Instant::now());
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
        let mut s = if s.queue.interrupted() || s.closed {
            s
        } else {
            shared
                .work
                .wait_timeout(s, POLL)
                .unwrap_or_else(PoisonError::into_inner)
                .0
        };
        if s.queue.interrupted() || s.closed {
            let cut = s.queue.interrupted() && !s.closed;
            s.queue.clear_interrupt();
            drop(s);
            // It may have ended by itself since the last look: then it was said whole, and
            // saying it again would be a duplicate.
            if cut && !guarded(|| b.is_speaking())? {
                return Ok(Spoken::Done);
            }
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
