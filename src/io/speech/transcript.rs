//! The `transcript:FILE` backend: one line per utterance, `<unix-ms> <listener> <text>`, appended and flushed.
//!
//! What was said, to whom and when, in a form `grep`, the end-to-end tests and the latency
//! benchmark can read. Each line goes to the file in one write, so a reader never sees half a
//! line and two processes appending to one file do not interleave within a line.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::{Listener, SpeechBackend, SpeechError, Utterance};
use crate::io::private_file::{self, Access, Mode};

/// The transcript line of an utterance, with its newline. Line breaks and other control
/// characters in the text become spaces, so one utterance is always one line.
pub fn line(u: &Utterance) -> String {
    let text: String = u
        .text
        .chars()
        .map(|c| {
            if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
                ' '
            } else {
                c
            }
        })
        .collect();
    format!("{} {} {}\n", u.at_unix_ms, u.listener, text)
}

/// A transcript line read back: time, listener and text. `None` when it is not one.
pub fn parse_line(line: &str) -> Option<(u64, Listener, &str)> {
    let line = line.strip_suffix('\n').unwrap_or(line);
    let (ms, rest) = line.split_once(' ')?;
    let (listener, text) = rest.split_once(' ').unwrap_or((rest, ""));
    Some((ms.parse().ok()?, listener.parse().ok()?, text))
}

/// Appends one line per utterance to a file.
#[derive(Debug)]
pub struct TranscriptBackend {
    file: File,
    name: String,
    path: PathBuf,
}

impl TranscriptBackend {
    /// Opens `path` for appending, creating it and its directory when missing.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, SpeechError> {
        let path = path.as_ref();
        let fail = |e: std::io::Error| {
            SpeechError::Unavailable(format!("cannot open transcript {}: {e}", path.display()))
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
            && !dir.is_dir()
        {
            private_file::create_dir(dir, Access::Record).map_err(fail)?;
        }
        // What was said at a game is the players' business: the daemon's user's alone (or its
        // group's, when records are shared), whatever the umask; and a transcript in a folder
        // others may write in (/tmp) is never a link planted to make the daemon write elsewhere.
        let file = private_file::open(path, Mode::Append, Access::Record).map_err(fail)?;
        Ok(TranscriptBackend {
            file,
            name: format!("transcript:{}", path.display()),
            path: path.to_path_buf(),
        })
    }

    /// The file written to.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl SpeechBackend for TranscriptBackend {
    fn name(&self) -> &str {
        &self.name
    }

    fn speak(&mut self, u: &Utterance) -> Result<(), SpeechError> {
        // An unbuffered file: one write_all per line is the flush.
        self.file
            .write_all(line(u).as_bytes())
            .map_err(|e| SpeechError::Failed(format!("{}: {e}", self.path.display())))
    }

    fn stop(&mut self) {}

    /// A transcript keeps the written words and one line per listener.
    fn voiced(&self) -> bool {
        false
    }
}
