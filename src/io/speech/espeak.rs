//! The `espeak-ng` backend: one espeak-ng subprocess per utterance, killed to cut it short.
//!
//! A subprocess rather than a library binding: nothing to link, and a crash or hang of the
//! synthesizer stays in the child. The text goes through standard input, never the command line,
//! so text starting with `-` cannot be taken for an option and length limits do not apply.
//!
//! espeak-ng itself plays only to the default audio output. For `espeak-ng@DEVICE` it writes its
//! WAV to standard output (`--stdout`) and `aplay -q -D DEVICE` (alsa-utils) plays it, so the
//! blind player's headphones and the opponent's speaker are two outputs; cutting an utterance
//! short kills both processes.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::{SpeechBackend, SpeechError, Utterance};

/// Runs the espeak-ng program and remembers which voices it has. Shared by the `espeak-ng` and
/// `wav:DIR` backends.
#[derive(Debug)]
pub struct Espeak {
    program: PathBuf,
    /// Language code → the voice to pass with `-v` (`None`: espeak-ng's default voice).
    voices: HashMap<String, Option<String>>,
    /// Words per minute (`-s`); `None`: espeak-ng's default (175).
    rate_wpm: Option<u32>,
}

impl Espeak {
    /// Uses `program` (a name looked up on PATH, or a path).
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Espeak {
            program: program.into(),
            voices: HashMap::new(),
            rate_wpm: None,
        }
    }

    /// Speaks at `rate_wpm` words per minute (`None`: espeak-ng's default).
    pub fn set_rate(&mut self, rate_wpm: Option<u32>) {
        self.rate_wpm = rate_wpm;
    }

    /// The program this runs.
    pub fn program(&self) -> &Path {
        &self.program
    }

    fn command(&self) -> Command {
        Command::new(&self.program)
    }

    fn unavailable(&self, e: &io::Error) -> SpeechError {
        if e.kind() == io::ErrorKind::NotFound {
            SpeechError::Unavailable(format!(
                "{} is not installed (or not on PATH); install espeak-ng (scripts/ensure-deps.sh)",
                self.program.display()
            ))
        } else {
            SpeechError::Unavailable(format!("cannot run {}: {e}", self.program.display()))
        }
    }

    /// The voice for a language code: the code itself when espeak-ng knows it, else its primary
    /// subtag ("pt-XX" → "pt"), else the default voice (logged once per code). espeak-ng exits
    /// with an error on an unknown voice instead of falling back, hence the check.
    pub fn voice_for(&mut self, lang: &str) -> Result<Option<String>, SpeechError> {
        if let Some(v) = self.voices.get(lang) {
            return Ok(v.clone());
        }
        let code: String = lang
            .trim()
            .to_ascii_lowercase()
            .chars()
            .map(|c| if c == '_' { '-' } else { c })
            .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        let mut candidates = vec![code.clone()];
        if let Some((primary, _)) = code.split_once('-') {
            candidates.push(primary.to_string());
        }
        let mut chosen = None;
        for candidate in candidates.into_iter().filter(|c| !c.is_empty()) {
            // -q: synthesize nothing, only load the voice.
            let status = self
                .command()
                .args(["-q", "-v", &candidate, ""])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map_err(|e| self.unavailable(&e))?;
            if status.success() {
                chosen = Some(candidate);
                break;
            }
        }
        if chosen.is_none() {
            tracing::warn!(
                lang,
                "espeak-ng has no voice for this language; using its default voice"
            );
        }
        self.voices.insert(lang.to_string(), chosen.clone());
        Ok(chosen)
    }

    /// A command that reads the utterance's text from standard input, with the right voice.
    pub fn command_for(&mut self, lang: &str) -> Result<Command, SpeechError> {
        let voice = self.voice_for(lang)?;
        let mut cmd = self.command();
        if let Some(v) = voice {
            cmd.args(["-v", &v]);
        }
        if let Some(wpm) = self.rate_wpm {
            cmd.args(["-s", &wpm.to_string()]);
        }
        cmd.arg("--stdin");
        Ok(cmd)
    }

    /// Renders the text to WAV bytes (espeak-ng's `--stdout`), waiting for the result.
    pub fn render_wav(&mut self, text: &str, lang: &str) -> Result<Vec<u8>, SpeechError> {
        let mut cmd = self.command_for(lang)?;
        let mut child = cmd
            .arg("--stdout")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| self.unavailable(&e))?;
        // A few hundred bytes fit in the pipe, so writing before reading cannot deadlock.
        feed(&mut child, text)?;
        let out = child
            .wait_with_output()
            .map_err(|e| SpeechError::Failed(format!("espeak-ng: {e}")))?;
        if !out.status.success() {
            return Err(SpeechError::Failed(format!(
                "espeak-ng exited with {}: {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(out.stdout)
    }
}

/// The text on one line (espeak-ng pauses at line breaks, and a NUL would end it), then EOF.
fn feed(child: &mut Child, text: &str) -> Result<(), SpeechError> {
    let line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .map_err(|e| SpeechError::Failed(format!("espeak-ng did not take the text: {e}")))?;
    }
    Ok(())
}

/// The program that plays espeak-ng's audio on a chosen device.
pub const PLAYER: &str = "aplay";

/// Speaks through an `espeak-ng` child process, to the default audio output or through
/// [`PLAYER`] to a chosen device.
#[derive(Debug)]
pub struct EspeakBackend {
    espeak: Espeak,
    name: String,
    /// The audio device, when not the default one.
    device: Option<String>,
    /// The program playing to `device`.
    player: PathBuf,
    child: Option<Child>,
    /// The player reading the child's audio, when a device is chosen.
    playing: Option<Child>,
}

impl EspeakBackend {
    /// Runs `espeak-ng` from PATH. Never fails: a missing program is reported by the first
    /// utterance, as [`SpeechError::Unavailable`].
    pub fn new() -> Self {
        Self::with_program("espeak-ng")
    }

    /// Runs another program with espeak-ng's command line (a path to a different build, or a
    /// missing one in tests).
    pub fn with_program(program: impl Into<PathBuf>) -> Self {
        EspeakBackend {
            espeak: Espeak::new(program),
            name: "espeak-ng".into(),
            device: None,
            player: PathBuf::from(PLAYER),
            child: None,
            playing: None,
        }
    }

    /// Speaks at `rate_wpm` words per minute (`None`: espeak-ng's default).
    pub fn with_rate(mut self, rate_wpm: Option<u32>) -> Self {
        self.espeak.set_rate(rate_wpm);
        self
    }

    /// Plays to an audio device (`aplay -D DEVICE`) instead of the default output.
    pub fn on_device(mut self, device: impl Into<String>) -> Self {
        let device = device.into();
        self.name = format!("espeak-ng@{device}");
        self.device = Some(device);
        self
    }

    /// Plays to the device with another aplay-compatible program (tests).
    pub fn with_player(mut self, player: impl Into<PathBuf>) -> Self {
        self.player = player.into();
        self
    }

    /// Starts the player reading `audio`, the WAV espeak-ng writes.
    fn start_player(&self, device: &str, audio: Stdio) -> Result<Child, SpeechError> {
        Command::new(&self.player)
            .args(["-q", "-D", device])
            .stdin(audio)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                if e.kind() == io::ErrorKind::NotFound {
                    SpeechError::Unavailable(format!(
                        "{} is not installed (or not on PATH); it plays espeak-ng@{device}: install alsa-utils (scripts/ensure-deps.sh)",
                        self.player.display()
                    ))
                } else {
                    SpeechError::Unavailable(format!("cannot run {}: {e}", self.player.display()))
                }
            })
    }
}

impl Default for EspeakBackend {
    fn default() -> Self {
        Self::new()
    }
}

impl SpeechBackend for EspeakBackend {
    fn reads_espeak_phonemes(&self) -> bool {
        true
    }
    fn name(&self) -> &str {
        &self.name
    }

    fn speak(&mut self, u: &Utterance) -> Result<(), SpeechError> {
        self.stop();
        let mut cmd = self.espeak.command_for(&u.lang)?;
        if self.device.is_some() {
            cmd.arg("--stdout").stdout(Stdio::piped());
        } else {
            cmd.stdout(Stdio::null());
        }
        // Standard error is kept for the message when the child fails; audio-device complaints
        // on success are ignored.
        let mut child = cmd
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| self.espeak.unavailable(&e))?;
        if let (Some(device), Some(audio)) = (self.device.clone(), child.stdout.take()) {
            match self.start_player(&device, Stdio::from(audio)) {
                Ok(player) => self.playing = Some(player),
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(e);
                }
            }
        }
        let fed = feed(&mut child, &u.text);
        self.child = Some(child);
        if fed.is_err() {
            self.stop();
        }
        fed
    }

    fn is_speaking(&mut self) -> Result<bool, SpeechError> {
        if self.child.is_none() {
            // espeak-ng is done; the player may still be playing what it wrote.
            return self.player_is_playing();
        }
        let Some(child) = self.child.as_mut() else {
            return Ok(false);
        };
        match child.try_wait() {
            Ok(None) => Ok(true),
            Ok(Some(status)) => {
                // try_wait has reaped the child; only its standard error is still wanted.
                let stderr = child.stderr.take();
                self.child = None;
                if status.success() {
                    return self.player_is_playing();
                }
                let mut err = String::new();
                if let Some(mut e) = stderr {
                    let _ = e.read_to_string(&mut err);
                }
                Err(SpeechError::Failed(format!(
                    "espeak-ng exited with {status}: {}",
                    err.trim()
                )))
            }
            Err(e) => {
                self.stop();
                Err(SpeechError::Failed(format!("espeak-ng: {e}")))
            }
        }
    }

    fn stop(&mut self) {
        for mut child in [self.child.take(), self.playing.take()]
            .into_iter()
            .flatten()
        {
            // Kill fails only when the child has already exited; wait reaps it either way.
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl EspeakBackend {
    /// Whether the player of a chosen device is still playing; its failure is the utterance's.
    fn player_is_playing(&mut self) -> Result<bool, SpeechError> {
        let Some(player) = self.playing.as_mut() else {
            return Ok(false);
        };
        match player.try_wait() {
            Ok(None) => Ok(true),
            Ok(Some(status)) => {
                let stderr = player.stderr.take();
                self.playing = None;
                if status.success() {
                    return Ok(false);
                }
                let mut err = String::new();
                if let Some(mut e) = stderr {
                    let _ = e.read_to_string(&mut err);
                }
                Err(SpeechError::Failed(format!(
                    "{} exited with {status}: {}",
                    self.player.display(),
                    err.trim()
                )))
            }
            Err(e) => {
                self.stop();
                Err(SpeechError::Failed(format!(
                    "{}: {e}",
                    self.player.display()
                )))
            }
        }
    }
}

impl Drop for EspeakBackend {
    fn drop(&mut self) {
        self.stop();
    }
}
