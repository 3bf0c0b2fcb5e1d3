//! The journal's mark (`journal.mark`): the witness of what the journal held after its last
//! commit, so that records a damaged or cut-short write-ahead log dropped are refused at start,
//! not lost silently.
//!
//! SQLite reads a write-ahead log up to its first frame with a bad checksum and silently
//! ignores the rest, so a log damaged or truncated after a crash loses the last commits without
//! an error, and `PRAGMA quick_check` passes. After every commit that added records or games,
//! the store overwrites the mark in place with the journal's highest record number and its
//! number of games (one small write, no fsync: the journal's own fsync came first, so the mark
//! never claims more than was durable). At start a journal holding fewer than its mark says is
//! refused. `docs/storage.md` says what this catches and what not.

use crate::io::private_file::{self, Access, Mode};
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The mark file's name inside the state directory.
pub const MARK_FILE: &str = "journal.mark";
/// The mark is always this long (padded), so an overwrite in place never leaves a longer tail.
const MARK_LEN: usize = 96;
const MARK_PREFIX: &str = "annabella journal mark v1";

/// What the journal held after the last commit that added to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Mark {
    /// The highest record number (`journal.seq`), 0 when there is none.
    pub(super) last_seq: u64,
    /// The number of games (`games` rows) of all tables.
    pub(super) games: u64,
}

impl Mark {
    fn encode(self) -> [u8; MARK_LEN] {
        let body = format!("seq={} games={}", self.last_seq, self.games);
        let text = format!("{MARK_PREFIX} {body} check={:016x}", fnv1a(body.as_bytes()));
        let mut out = [b' '; MARK_LEN];
        let n = text.len().min(MARK_LEN - 1);
        out[..n].copy_from_slice(&text.as_bytes()[..n]);
        out[MARK_LEN - 1] = b'\n';
        out
    }

    fn decode(text: &str) -> Option<Mark> {
        let rest = text.trim_end().strip_prefix(MARK_PREFIX)?.trim_start();
        let (body, check) = rest.rsplit_once(" check=")?;
        if u64::from_str_radix(check, 16).ok()? != fnv1a(body.as_bytes()) {
            return None;
        }
        let (seq, games) = body.split_once(' ')?;
        Some(Mark {
            last_seq: seq.strip_prefix("seq=")?.parse().ok()?,
            games: games.strip_prefix("games=")?.parse().ok()?,
        })
    }
}

/// FNV-1a, 64 bits: enough to tell a torn or garbled mark from a written one.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// What reading the mark found.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum MarkRead {
    Missing,
    /// There, but not a mark this code wrote whole (torn by a power loss, edited).
    Unreadable,
    Found(Mark),
}

/// The open mark file.
#[derive(Debug)]
pub(super) struct MarkFile {
    file: File,
}

impl MarkFile {
    /// Reads the mark of `dir` without creating it.
    pub(super) fn read(dir: &Path) -> io::Result<MarkRead> {
        let path = dir.join(MARK_FILE);
        let mut text = String::new();
        match File::open(&path) {
            Ok(file) => {
                if file
                    .take(MARK_LEN as u64 * 2)
                    .read_to_string(&mut text)
                    .is_err()
                {
                    return Ok(MarkRead::Unreadable);
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(MarkRead::Missing),
            Err(e) => return Err(e),
        }
        Ok(Mark::decode(&text).map_or(MarkRead::Unreadable, MarkRead::Found))
    }

    /// Opens (creating) the mark of `dir` and writes `mark` into it.
    pub(super) fn open(dir: &Path, mark: Mark) -> io::Result<MarkFile> {
        let path = dir.join(MARK_FILE);
        let file = private_file::open(&path, Mode::ReadWrite, Access::Private)?;
        file.set_len(MARK_LEN as u64)?;
        let mut marked = MarkFile { file };
        marked.write(mark)?;
        marked.file.sync_all()?;
        Ok(marked)
    }

    /// Overwrites the mark in place (one write of a fixed length; not synced, see the module).
    pub(super) fn write(&mut self, mark: Mark) -> io::Result<()> {
        write_at_start(&self.file, &mark.encode())
    }
}

#[cfg(unix)]
fn write_at_start(file: &File, bytes: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.write_all_at(bytes, 0)
}

#[cfg(not(unix))]
fn write_at_start(file: &File, bytes: &[u8]) -> io::Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    let mut file = file;
    file.seek(SeekFrom::Start(0))?;
    file.write_all(bytes)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    #[test]
    fn a_mark_reads_back_and_a_garbled_one_is_told() {
        let mark = Mark {
            last_seq: 1234,
            games: 7,
        };
        let bytes = mark.encode();
        assert_eq!(bytes.len(), MARK_LEN);
        let text = std::str::from_utf8(&bytes).unwrap();
        assert_eq!(Mark::decode(text), Some(mark));
        assert_eq!(Mark::decode(&text.replace("1234", "1235")), None);
        assert_eq!(Mark::decode(""), None);
        assert_eq!(Mark::decode(&"\0".repeat(MARK_LEN)), None);
    }

    #[test]
    fn the_mark_file_is_overwritten_in_place() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(MarkFile::read(dir.path()).unwrap(), MarkRead::Missing);
        let mut file = MarkFile::open(
            dir.path(),
            Mark {
                last_seq: u64::MAX,
                games: u64::MAX,
            },
        )
        .unwrap();
        let small = Mark {
            last_seq: 3,
            games: 1,
        };
        file.write(small).unwrap();
        assert_eq!(MarkFile::read(dir.path()).unwrap(), MarkRead::Found(small));
        fs::write(dir.path().join(MARK_FILE), b"seq=9").unwrap();
        assert_eq!(MarkFile::read(dir.path()).unwrap(), MarkRead::Unreadable);
    }
}
