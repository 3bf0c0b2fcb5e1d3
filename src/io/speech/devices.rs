//! The audio devices a box without a screen can choose from: `aplay -L`'s list, and a speech
//! output moved to one of them (the `audio-devices` and `audio-device` requests,
//! docs/control-protocol.md), after which that output says again whom it is for.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Listener, Listeners, Speaker, Utterance};
use crate::chess::language::Language;
use crate::chess::ready::{ReadyListeners, ready_phrase};

/// The most of `aplay -L`'s output read: a machine with many cards lists a few kilobytes.
const MAX_LISTING_BYTES: u64 = 256 * 1024;
/// The most device names a listing gives.
const MAX_DEVICES: usize = 64;
/// How long `aplay -L` may take before it is given up on.
const LISTING_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest device name taken (ALSA names are short: `plughw:CARD=Headphones,DEV=0`).
const MAX_DEVICE_CHARS: usize = 120;

/// The speaker's outputs as requests see and move them.
pub struct AudioOutputs {
    speaker: Arc<Speaker>,
    /// The daemon's language, for the words an output says after it moved.
    lang: &'static Language,
    /// The program that lists devices: `aplay` (alsa-utils), found on PATH.
    player: PathBuf,
}

impl std::fmt::Debug for AudioOutputs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AudioOutputs")
            .field("outputs", &self.speaker.outputs().len())
            .field("lang", &self.lang.code())
            .field("player", &self.player)
            .finish()
    }
}

impl AudioOutputs {
    pub fn new(speaker: Arc<Speaker>, lang: &'static Language) -> AudioOutputs {
        AudioOutputs {
            speaker,
            lang,
            player: PathBuf::from("aplay"),
        }
    }

    /// `outputs: 1 blind=espeak-ng, 2 opponent+arbiter=espeak-ng@plughw:1; devices: default …`
    /// (blocking: runs `aplay -L`).
    pub fn list(&self) -> String {
        let outputs: Vec<String> = self
            .speaker
            .outputs()
            .iter()
            .enumerate()
            .map(|(i, (listeners, backend))| format!("{} {}", i + 1, named(*listeners, backend)))
            .collect();
        let devices = match self.devices() {
            Ok(names) if names.is_empty() => "none (aplay -L lists none)".to_owned(),
            Ok(names) => names.join(" "),
            Err(why) => format!("unknown ({why})"),
        };
        format!("outputs: {}; devices: {devices}", outputs.join(", "))
    }

    /// Moves the output named by `output` (its number, or `blind`, `opponent`, `arbiter`: the
    /// first output serving that listener) to `device`; the answer names the output as it now
    /// is. The output then says its ready phrase there.
    pub fn choose(&self, output: &str, device: &str, now_ms: u64) -> Result<String, String> {
        if device.is_empty()
            || device.chars().count() > MAX_DEVICE_CHARS
            || device.chars().any(|c| c.is_whitespace() || c.is_control())
        {
            return Err(format!(
                "audio device {:?}: expected a name from audio-devices (at most \
                 {MAX_DEVICE_CHARS} characters, no spaces)",
                device.chars().take(40).collect::<String>()
            ));
        }
        let outputs = self.speaker.outputs();
        let index = match output.parse::<usize>() {
            Ok(n) if (1..=outputs.len()).contains(&n) => n - 1,
            Ok(n) => return Err(format!("no output {n}; there are {}", outputs.len())),
            Err(_) => {
                let listener = match output.to_ascii_lowercase().as_str() {
                    "blind" => Listener::BlindPlayer,
                    "opponent" => Listener::Opponent,
                    "arbiter" => Listener::Arbiter,
                    _ => {
                        return Err(format!(
                            "output {:?}: its number from audio-devices, or blind, opponent or \
                             arbiter",
                            output.chars().take(40).collect::<String>()
                        ));
                    }
                };
                outputs
                    .iter()
                    .position(|(l, _)| l.serves(listener))
                    .ok_or_else(|| format!("no output serves the {output}"))?
            }
        };
        let (listeners, _) = outputs[index];
        let who = ReadyListeners {
            blind: listeners.blind,
            opponent: listeners.opponent,
            arbiter: listeners.arbiter,
        };
        let words = Utterance::new(
            Listener::Everyone,
            ready_phrase(who, self.lang.vocabulary()),
            self.lang.code(),
            "",
            now_ms,
        );
        let backend = self.speaker.set_device(index, device, words)?;
        Ok(format!("{} {}", index + 1, named(listeners, &backend)))
    }

    /// The device names of `aplay -L` (the lines that do not start with a blank; the indented
    /// ones describe them), at most [`MAX_DEVICES`].
    fn devices(&self) -> Result<Vec<String>, String> {
        let mut child = Command::new(&self.player)
            .arg("-L")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", self.player.display()))?;
        // Read on a thread of its own, so that an `aplay` that hangs is killed at the
        // deadline rather than waited on.
        let stdout = child.stdout.take();
        let reader = std::thread::spawn(move || {
            let mut out = Vec::new();
            if let Some(s) = stdout {
                let _ = s.take(MAX_LISTING_BYTES).read_to_end(&mut out);
            }
            out
        });
        let deadline = Instant::now() + LISTING_TIMEOUT;
        loop {
            match child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!("{} -L did not finish", self.player.display()));
                }
            }
        }
        let out = reader.join().unwrap_or_default();
        Ok(String::from_utf8_lossy(&out)
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with(char::is_whitespace))
            .map(|l| l.trim().to_owned())
            .take(MAX_DEVICES)
            .collect())
    }
}

/// An output as a spec names it: `blind=espeak-ng@plughw:1`, or the backend alone when it
/// serves everyone.
fn named(listeners: Listeners, backend: &str) -> String {
    if listeners == Listeners::ALL {
        backend.to_owned()
    } else {
        format!("{listeners}={backend}")
    }
}

/// A request about the audio outputs, as a control session hands it to its driver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AudioAsk {
    /// `audio-devices`.
    List,
    /// `audio-device OUTPUT DEVICE`.
    Choose { output: String, device: String },
}

/// Answers `ask` on a blocking thread (`aplay -L` is a subprocess): the text of the reply, or
/// the reason for a refusal. Without outputs (a daemon embedded without speech) it is refused.
pub async fn answer(
    audio: Option<Arc<AudioOutputs>>,
    ask: AudioAsk,
    now_ms: u64,
) -> Result<String, String> {
    let audio = audio.ok_or_else(|| "this daemon has no speech outputs to move".to_owned())?;
    tokio::task::spawn_blocking(move || match ask {
        AudioAsk::List => Ok(audio.list()),
        AudioAsk::Choose { output, device } => audio
            .choose(&output, &device, now_ms)
            .map(|o| format!("audio-device {o}")),
    })
    .await
    .map_err(|e| format!("the audio request failed: {e}"))?
}
