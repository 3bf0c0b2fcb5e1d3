//! Which outputs a `--speech` spec names, and whom each serves: `blind=espeak-ng@plughw:1,opponent+arbiter=tts,wav:/srv/rec`.

use std::fmt;
use std::path::PathBuf;

use super::{Listener, NoneBackend, SpeechBackend, SpeechError, espeak, transcript, tts, wav};

/// What is wrong with a `--speech` spec (or the configuration's `speech.backends`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpeechSpecError {
    #[error(
        "unknown listener `{name}` in `{prefix}=`: expected blind, opponent or arbiter, joined by +"
    )]
    UnknownListener { name: String, prefix: String },
    #[error("listener `{name}` is named twice in `{prefix}=`")]
    ListenerTwice { name: String, prefix: String },
    #[error("no speech backend given: {BACKEND_HELP} (none means silence)")]
    NoBackend,
    /// The spec, which has two commas in a row or one at an end.
    #[error("empty speech backend in `{0}` (two commas, or a comma at an end)")]
    EmptyBackend(String),
    #[error("unknown speech backend `{0}`: {BACKEND_HELP}")]
    UnknownBackend(String),
    #[error("espeak-ng@ needs an audio device: espeak-ng@DEVICE (DEVICE is empty, see aplay -L)")]
    NoDevice,
    #[error("wav needs a directory: wav:DIR")]
    WavWithoutDir,
    #[error("wav needs a directory: wav:DIR (DIR is empty)")]
    WavEmptyDir,
    #[error("transcript needs a file: transcript:FILE")]
    TranscriptWithoutFile,
    #[error("transcript needs a file: transcript:FILE (FILE is empty)")]
    TranscriptEmptyFile,
    #[error("speech backend `{0}` is listed twice")]
    Twice(BackendSpec),
    #[error("`none` means silence for everyone and takes no listeners")]
    NoneWithListeners,
    #[error("`none` means silence and cannot be combined with other speech backends")]
    NoneCombined,
    /// An output with listeners where only backends are taken.
    #[error("`{0}` names listeners; this setting takes backends only")]
    NamesListeners(Box<OutputSpec>),
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
    pub fn parse(prefix: &str) -> Result<Listeners, SpeechSpecError> {
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
                    return Err(SpeechSpecError::UnknownListener {
                        name: name.to_owned(),
                        prefix: prefix.to_owned(),
                    });
                }
            };
            if *slot {
                return Err(SpeechSpecError::ListenerTwice {
                    name: name.to_owned(),
                    prefix: prefix.to_owned(),
                });
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
            BackendSpec::Tts => tts::open_system_voice(rate_wpm)?,
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
pub fn parse_outputs(spec: &str) -> Result<Vec<OutputSpec>, SpeechSpecError> {
    let mut out: Vec<OutputSpec> = Vec::new();
    if spec.trim().is_empty() {
        return Err(SpeechSpecError::NoBackend);
    }
    for item in spec.split(',').map(str::trim) {
        let head_end = item.find([':', '@']).unwrap_or(item.len());
        let (listeners, backend) = match item[..head_end].find('=') {
            Some(eq) => (Listeners::parse(&item[..eq])?, item[eq + 1..].trim()),
            None => (Listeners::ALL, item),
        };
        let parsed = parse_backend(backend, spec)?;
        if out.iter().any(|o| o.backend == parsed) {
            return Err(SpeechSpecError::Twice(parsed));
        }
        if parsed == BackendSpec::None && listeners != Listeners::ALL {
            return Err(SpeechSpecError::NoneWithListeners);
        }
        out.push(OutputSpec {
            listeners,
            backend: parsed,
        });
    }
    if out.len() > 1 && out.iter().any(|o| o.backend == BackendSpec::None) {
        return Err(SpeechSpecError::NoneCombined);
    }
    Ok(out)
}

/// Parses `BACKEND[,BACKEND…]` without listener prefixes, e.g.
/// `tts,wav:/srv/records,transcript:/tmp/speech.txt`.
///
/// Paths may contain `:` (Windows drive letters) but not `,`. `none` stands alone.
pub fn parse_backends(spec: &str) -> Result<Vec<BackendSpec>, SpeechSpecError> {
    let outputs = parse_outputs(spec)?;
    if let Some(o) = outputs.iter().find(|o| o.listeners != Listeners::ALL) {
        return Err(SpeechSpecError::NamesListeners(Box::new(o.clone())));
    }
    Ok(outputs.into_iter().map(|o| o.backend).collect())
}

/// One backend of a spec, without its prefix.
fn parse_backend(item: &str, spec: &str) -> Result<BackendSpec, SpeechSpecError> {
    Ok(match item.split_once(':') {
        _ if item.is_empty() => {
            return Err(SpeechSpecError::EmptyBackend(spec.to_owned()));
        }
        _ if item.starts_with("espeak-ng@") => {
            let device = item["espeak-ng@".len()..].trim();
            if device.is_empty() {
                return Err(SpeechSpecError::NoDevice);
            }
            BackendSpec::EspeakNgOn(device.to_string())
        }
        None => match item {
            "tts" => BackendSpec::Tts,
            "espeak-ng" => BackendSpec::EspeakNg,
            "none" => BackendSpec::None,
            "wav" => return Err(SpeechSpecError::WavWithoutDir),
            "transcript" => return Err(SpeechSpecError::TranscriptWithoutFile),
            _ => return Err(SpeechSpecError::UnknownBackend(item.to_owned())),
        },
        Some((kind, path)) => {
            let path = path.trim();
            match kind.trim() {
                "wav" if path.is_empty() => {
                    return Err(SpeechSpecError::WavEmptyDir);
                }
                "wav" => BackendSpec::Wav(PathBuf::from(path)),
                "transcript" if path.is_empty() => {
                    return Err(SpeechSpecError::TranscriptEmptyFile);
                }
                "transcript" => BackendSpec::Transcript(PathBuf::from(path)),
                _ => return Err(SpeechSpecError::UnknownBackend(item.to_owned())),
            }
        }
    })
}
