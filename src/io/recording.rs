//! Board recordings with their timing: what a board sent, one line per chunk stamped with the milliseconds since the recording began, written beside a simulated board (`simulate-board --record FILE`) and read back by `replay`.
//!
//! The format is text, so a recording can be read, cut and commented:
//!
//! ```text
//! # annabella board recording: dgt
//! @0 86 00 43 08 09 0a 0c 0b 0a 09 08 …
//! @1220 8e 00 05 0c 00
//! ```
//!
//! A line is `@<ms>` and the bytes in hexadecimal; for a peg board, whose protocol is lines of
//! text, `@<ms> <line>` (the peg protocol's own timed format, `docs/peg-protocol.md` §4). Lines
//! starting with `#` and blank lines are comments. Time never goes back: a stamp lower than the
//! one before is read as the one before.

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::boards::{Millis, Protocol};
use crate::io::simulator::TryCloneDevice;

/// Whether `bytes` look like a timed text recording rather than a board's raw bytes: the first
/// non-blank character is `#` or `@` (a DGT stream starts with a byte above 0x7f, a Millennium
/// one with a letter, a Certabo one with `:`).
pub fn is_text_recording(bytes: &[u8]) -> bool {
    matches!(bytes.trim_ascii_start().first(), Some(b'#' | b'@'))
}

/// One chunk of a recording: when the board sent it and what.
pub type Chunk = (Millis, Vec<u8>);

/// An unreadable line of a recording: its number and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct RecordingError {
    pub line: usize,
    pub problem: RecordingProblem,
}

/// What is wrong with a recording line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordingProblem {
    #[error("a recording line starts with @<ms>: {0:?}")]
    NoTime(String),
    #[error("{0:?} is no number of milliseconds")]
    BadTime(String),
    #[error("{0:?} is no hexadecimal byte")]
    BadByte(String),
}

/// Reads a text recording of a board speaking `protocol` into its chunks. An unreadable line is
/// an error naming its number; nothing after it is guessed at.
pub fn parse(text: &str, protocol: Protocol) -> Result<Vec<Chunk>, RecordingError> {
    let mut chunks = Vec::new();
    let mut last: Millis = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let n = i + 1;
        let at = |problem| RecordingError { line: n, problem };
        let rest = line
            .strip_prefix('@')
            .ok_or_else(|| at(RecordingProblem::NoTime(line.to_owned())))?;
        let (ms, data) = rest.split_once(' ').unwrap_or((rest, ""));
        let ms: Millis = ms
            .parse()
            .map_err(|_| at(RecordingProblem::BadTime(ms.to_owned())))?;
        last = last.max(ms);
        let bytes = if protocol == Protocol::Peg {
            format!("{}\n", data.trim()).into_bytes()
        } else {
            data.split_whitespace()
                .map(|h| {
                    u8::from_str_radix(h, 16)
                        .map_err(|_| at(RecordingProblem::BadByte(h.to_owned())))
                })
                .collect::<Result<Vec<u8>, RecordingError>>()?
        };
        chunks.push((last, bytes));
    }
    Ok(chunks)
}

/// One recording line for `bytes` sent at `ms`.
fn line(protocol: Protocol, ms: Millis, bytes: &[u8]) -> String {
    if protocol == Protocol::Peg {
        String::from_utf8_lossy(bytes)
            .lines()
            .map(|l| format!("@{ms} {l}\n"))
            .collect()
    } else {
        let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
        format!("@{ms} {}\n", hex.join(" "))
    }
}

/// A board's device that also writes everything sent through it to a recording.
pub struct RecordingDevice<D> {
    device: D,
    record: Arc<Mutex<Recorder>>,
}

struct Recorder {
    out: Box<dyn Write + Send>,
    protocol: Protocol,
    started: Instant,
}

impl<D> RecordingDevice<D> {
    /// Wraps `device`, writing the recording to `out` (its header first).
    pub fn new(
        device: D,
        protocol: Protocol,
        mut out: Box<dyn Write + Send>,
    ) -> std::io::Result<RecordingDevice<D>> {
        writeln!(out, "# annabella board recording: {protocol}")?;
        Ok(RecordingDevice {
            device,
            record: Arc::new(Mutex::new(Recorder {
                out,
                protocol,
                started: Instant::now(),
            })),
        })
    }
}

impl<D: Read> Read for RecordingDevice<D> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.device.read(buf)
    }
}

impl<D: Write> Write for RecordingDevice<D> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.device.write(buf)?;
        if n > 0
            && let Ok(mut r) = self.record.lock()
        {
            let ms = r.started.elapsed().as_millis() as Millis;
            let text = line(r.protocol, ms, &buf[..n]);
            // The recording is a by-product: a full disk must not unplug the board.
            let _ = r.out.write_all(text.as_bytes()).and_then(|_| r.out.flush());
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.device.flush()
    }
}

impl<D: TryCloneDevice> TryCloneDevice for RecordingDevice<D> {
    fn try_clone_device(&self) -> anyhow::Result<Self> {
        Ok(RecordingDevice {
            device: self.device.try_clone_device()?,
            record: Arc::clone(&self.record),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_back_as_written() {
        let text = format!(
            "# annabella board recording: dgt\n{}{}\n\n{}",
            line(Protocol::Dgt, 0, &[0x8e, 0x00, 0x05, 0x0c, 0x00]),
            "# a comment",
            line(Protocol::Dgt, 1220, &[0x8e, 0x00, 0x05, 0x1c, 0x07]),
        );
        assert!(is_text_recording(text.as_bytes()));
        assert_eq!(
            parse(&text, Protocol::Dgt).unwrap(),
            [
                (0, vec![0x8e, 0x00, 0x05, 0x0c, 0x00]),
                (1220, vec![0x8e, 0x00, 0x05, 0x1c, 0x07])
            ]
        );
        let peg = line(Protocol::Peg, 80, b"Le2\n");
        assert_eq!(peg, "@80 Le2\n");
        assert_eq!(
            parse(&peg, Protocol::Peg).unwrap(),
            [(80, b"Le2\n".to_vec())]
        );
    }

    #[test]
    fn bad_lines_name_their_number_and_time_never_goes_back() {
        assert_eq!(
            parse("@0 8e\n@x 00", Protocol::Dgt)
                .unwrap_err()
                .to_string(),
            "line 2: \"x\" is no number of milliseconds"
        );
        assert_eq!(
            parse("@0 8e zz", Protocol::Dgt).unwrap_err().to_string(),
            "line 1: \"zz\" is no hexadecimal byte"
        );
        assert!(
            parse("8e 00", Protocol::Dgt)
                .unwrap_err()
                .to_string()
                .starts_with("line 1:")
        );
        assert_eq!(
            parse("@500 8e\n@100 00", Protocol::Dgt).unwrap(),
            [(500, vec![0x8e]), (500, vec![0x00])]
        );
        assert!(!is_text_recording(&[0x86, 0x00, 0x43]));
    }
}
