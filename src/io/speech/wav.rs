//! The `wav:DIR` backend: a game's score spoken by espeak-ng and appended to DIR/<game>.wav.
//!
//! This is the audio record of the game that FIDE Laws Appendix D.2.7 allows a blind player to
//! keep instead of a written score, so it holds what a score holds (`speech::score`): each move once,
//! preceded by its number and colour ("Zug zwölf, Weiß: …", the `[words.record]` heading of the
//! language), withdrawn moves marked with the number they went back to, and the result; key
//! answers, guidance and clock calls are not on it (the transcript keeps everything said). The
//! file is a plain 44-byte-header PCM WAV; its sizes are rewritten after every append and the
//! data synced, so the record is a valid WAV at any moment, even right after a power cut. A
//! header left stale by a crash is repaired on the next append, as the sizes are computed from
//! the file's length, not read from the header.

use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::espeak::Espeak;
use super::{SpeechBackend, SpeechError, Utterance};
use crate::io::private_file::{self, Access, Mode};

/// The length of the canonical WAV header this module writes.
pub const HEADER_LEN: u64 = 44;

/// The silence between two utterances in a record, so that they do not run together.
pub const GAP_MS: u32 = 400;

/// The sample format of PCM audio.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// Channels (espeak-ng: 1).
    pub channels: u16,
    /// Samples per second (espeak-ng: 22050).
    pub sample_rate: u32,
    /// Bits per sample (espeak-ng: 16).
    pub bits: u16,
}

impl Format {
    /// Bytes per sample frame.
    pub fn block_align(self) -> u16 {
        self.channels * self.bits.div_ceil(8)
    }
}

/// The 44-byte header of a PCM WAV file with `data_len` bytes of samples.
pub fn header(f: Format, data_len: u32) -> [u8; 44] {
    let mut h = [0u8; 44];
    let byte_rate = f.sample_rate * u32::from(f.block_align());
    h[0..4].copy_from_slice(b"RIFF");
    h[4..8].copy_from_slice(&(36 + data_len).to_le_bytes());
    h[8..16].copy_from_slice(b"WAVEfmt ");
    h[16..20].copy_from_slice(&16u32.to_le_bytes());
    h[20..22].copy_from_slice(&1u16.to_le_bytes()); // PCM
    h[22..24].copy_from_slice(&f.channels.to_le_bytes());
    h[24..28].copy_from_slice(&f.sample_rate.to_le_bytes());
    h[28..32].copy_from_slice(&byte_rate.to_le_bytes());
    h[32..34].copy_from_slice(&f.block_align().to_le_bytes());
    h[34..36].copy_from_slice(&f.bits.to_le_bytes());
    h[36..40].copy_from_slice(b"data");
    h[40..44].copy_from_slice(&data_len.to_le_bytes());
    h
}

fn u16_at(b: &[u8], i: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(i..i + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], i: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(i..i + 4)?.try_into().ok()?))
}

/// Why bytes are no PCM WAV file this module can read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WavError {
    #[error("not a RIFF/WAVE file")]
    NotRiffWave,
    #[error("not PCM (format tag {0})")]
    NotPcm(u16),
    #[error("truncated fmt chunk")]
    TruncatedFmt,
    #[error("data chunk before fmt chunk")]
    DataBeforeFmt,
    #[error("no data chunk")]
    NoData,
}

/// The format and the sample bytes of a PCM WAV file.
///
/// espeak-ng writes a placeholder data size when it streams to standard output, so a data chunk
/// that claims more than is there is read to the end of the bytes.
pub fn parse(bytes: &[u8]) -> Result<(Format, &[u8]), WavError> {
    if bytes.len() < 12 || &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        return Err(WavError::NotRiffWave);
    }
    let mut format = None;
    let mut at = 12usize;
    while let (Some(id), Some(size)) = (bytes.get(at..at + 4), u32_at(bytes, at + 4)) {
        let body = at + 8;
        let size = size as usize;
        match id {
            b"fmt " => {
                let tag = u16_at(bytes, body).ok_or(WavError::TruncatedFmt)?;
                if tag != 1 {
                    return Err(WavError::NotPcm(tag));
                }
                format = Some(Format {
                    channels: u16_at(bytes, body + 2).ok_or(WavError::TruncatedFmt)?,
                    sample_rate: u32_at(bytes, body + 4).ok_or(WavError::TruncatedFmt)?,
                    bits: u16_at(bytes, body + 14).ok_or(WavError::TruncatedFmt)?,
                });
            }
            b"data" => {
                let format = format.ok_or(WavError::DataBeforeFmt)?;
                let end = body.saturating_add(size).min(bytes.len());
                return Ok((format, &bytes[body..end]));
            }
            _ => {}
        }
        // Chunks are padded to an even length.
        at = body.saturating_add(size).saturating_add(size & 1);
    }
    Err(WavError::NoData)
}

/// Appends PCM samples to the WAV file at `path`, creating it when missing or empty, with
/// `gap_ms` of silence before them when the file already holds audio; then rewrites both sizes
/// and syncs. Fails when the file holds another format or is not a WAV this module wrote.
pub fn append_pcm(path: &Path, format: Format, pcm: &[u8], gap_ms: u32) -> io::Result<()> {
    let invalid = |m: String| io::Error::new(io::ErrorKind::InvalidData, m);
    // The audio record is the players' business: the daemon's user's alone (or its group's,
    // when records are shared), whatever the umask, and never a link planted where it goes.
    let mut file = private_file::open(path, Mode::ReadWrite, Access::Record)?;
    let align = u64::from(format.block_align().max(1));
    let len = file.metadata()?.len();
    let data_len = if len < HEADER_LEN {
        // New, or a crash before the first header was complete: start afresh.
        file.set_len(0)?;
        file.write_all(&header(format, 0))?;
        0
    } else {
        let mut h = [0u8; 44];
        file.read_exact(&mut h)?;
        let (existing, _) = parse(&h).map_err(|e| invalid(format!("{}: {e}", path.display())))?;
        if &h[36..40] != b"data" {
            return Err(invalid(format!(
                "{}: not a WAV file written by annabella",
                path.display()
            )));
        }
        if existing != format {
            return Err(invalid(format!(
                "{}: holds {existing:?}, cannot append {format:?}",
                path.display()
            )));
        }
        // Whole sample frames only: a crash may have left half a frame.
        (len - HEADER_LEN) / align * align
    };
    file.set_len(HEADER_LEN + data_len)?;
    file.seek(SeekFrom::End(0))?;
    let pcm = &pcm[..pcm.len() / align as usize * align as usize];
    let mut added = Vec::with_capacity(pcm.len() + 48_000);
    if data_len > 0 && !pcm.is_empty() {
        let frames = u64::from(format.sample_rate) * u64::from(gap_ms) / 1000;
        // Silence is 0 for signed 16-bit samples and 128 for unsigned 8-bit ones.
        let zero = if format.bits == 8 { 0x80 } else { 0 };
        added.resize((frames * align) as usize, zero);
    }
    added.extend_from_slice(pcm);
    let new_len = data_len + added.len() as u64;
    if new_len > u64::from(u32::MAX - 36) {
        return Err(invalid(format!(
            "{}: a WAV file cannot grow beyond 4 GiB",
            path.display()
        )));
    }
    file.write_all(&added)?;
    let data_len = new_len as u32;
    file.seek(SeekFrom::Start(4))?;
    file.write_all(&(36 + data_len).to_le_bytes())?;
    file.seek(SeekFrom::Start(40))?;
    file.write_all(&data_len.to_le_bytes())?;
    file.sync_data()
}

/// A game id made safe as a file name: letters, digits, `-`, `_` and inner dots only.
pub fn file_stem(game: &str) -> String {
    let mut stem: String = game
        .chars()
        .take(100)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if stem.starts_with('.') {
        stem.replace_range(0..1, "_");
    }
    if stem.is_empty() {
        stem.push_str("game");
    }
    stem
}

/// Renders what belongs on the score (the speaker passes nothing else) with espeak-ng and appends it to `DIR/<game>.wav`.
#[derive(Debug)]
pub struct WavBackend {
    dir: PathBuf,
    name: String,
    espeak: Espeak,
}

impl WavBackend {
    /// Records into `dir` (created if missing) with `espeak-ng` from PATH.
    pub fn new(dir: impl Into<PathBuf>) -> Result<Self, SpeechError> {
        Self::with_program(dir, "espeak-ng")
    }

    /// Records with another espeak-ng-compatible program.
    pub fn with_program(
        dir: impl Into<PathBuf>,
        program: impl Into<PathBuf>,
    ) -> Result<Self, SpeechError> {
        let dir = dir.into();
        if !dir.is_dir() {
            private_file::create_dir(&dir, Access::Record).map_err(|e| {
                SpeechError::Unavailable(format!("cannot create {}: {e}", dir.display()))
            })?;
        }
        Ok(WavBackend {
            name: format!("wav:{}", dir.display()),
            dir,
            espeak: Espeak::new(program),
        })
    }

    /// Records at `rate_wpm` words per minute (`None`: espeak-ng's default).
    pub fn with_rate(mut self, rate_wpm: Option<u32>) -> Self {
        self.espeak.set_rate(rate_wpm);
        self
    }

    /// The record of a game.
    pub fn path_for(&self, game: &str) -> PathBuf {
        self.dir.join(format!("{}.wav", file_stem(game)))
    }
}

impl SpeechBackend for WavBackend {
    fn reads_espeak_phonemes(&self) -> bool {
        true
    }
    fn name(&self) -> &str {
        &self.name
    }

    fn speak(&mut self, u: &Utterance) -> Result<(), SpeechError> {
        let wav = self.espeak.render_wav(&u.text, &u.lang)?;
        let (format, pcm) =
            parse(&wav).map_err(|e| SpeechError::Failed(format!("espeak-ng output: {e}")))?;
        let path = self.path_for(&u.game);
        append_pcm(&path, format, pcm, GAP_MS)
            .map_err(|e| SpeechError::Failed(format!("{}: {e}", path.display())))
    }

    /// The record keeps every utterance whole, so there is nothing to cut short.
    fn stop(&mut self) {}

    /// Moves are recorded with their number and colour, so the record serves as the score.
    fn records_score(&self) -> bool {
        true
    }
}
