//! What guards the journal against the losses SQLite itself cannot see: the state directory
//! removed or replaced while the daemon runs, and the last records dropped from a damaged or
//! cut-short write-ahead log.
//!
//! SQLite reads a write-ahead log up to its first frame with a bad checksum and silently
//! ignores the rest, so a log damaged or truncated after a crash loses the last commits without
//! an error, and `PRAGMA quick_check` passes. The mark file (`journal.mark`) is the witness: after
//! every commit that added records or games, the store overwrites it in place with the journal's
//! highest record number and its number of games (one small write, no fsync: the journal's own
//! fsync came first, so the mark never claims more than was durable). At start a journal holding
//! fewer than its mark says is refused. `docs/storage.md` says what this catches and what not.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The mark file's name inside the state directory.
pub const MARK_FILE: &str = "journal.mark";
/// The mark is always this long (padded), so an overwrite in place never leaves a longer tail.
const MARK_LEN: usize = 96;
const MARK_PREFIX: &str = "annabella journal mark v1";

/// What the journal held after the last commit that added to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Mark {
    /// The highest record number (`journal.seq`), 0 when there is none.
    pub last_seq: u64,
    /// The number of games (`games` rows) of all tables.
    pub games: u64,
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
pub enum MarkRead {
    Missing,
    /// There, but not a mark this code wrote whole (torn by a power loss, edited).
    Unreadable,
    Found(Mark),
}

/// The open mark file.
#[derive(Debug)]
pub struct MarkFile {
    path: PathBuf,
    file: File,
}

impl MarkFile {
    /// Reads the mark of `dir` without creating it.
    pub fn read(dir: &Path) -> io::Result<MarkRead> {
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
    pub fn open(dir: &Path, mark: Mark) -> io::Result<MarkFile> {
        let path = dir.join(MARK_FILE);
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)?;
        file.set_len(MARK_LEN as u64)?;
        let mut marked = MarkFile { path, file };
        marked.write(mark)?;
        marked.file.sync_all()?;
        Ok(marked)
    }

    /// Overwrites the mark in place (one write of a fixed length; not synced, see the module).
    pub fn write(&mut self, mark: Mark) -> io::Result<()> {
        write_at_start(&self.file, &mark.encode())
    }

    pub fn path(&self) -> &Path {
        &self.path
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

/// The state directory, the journal file and its write-ahead log as the store opened them,
/// held open: an inode stays allocated while it is open, so a directory removed and created
/// again can never come back with the same device and inode number, and a removed one shows no
/// links. (SQLite keeps writing to a log or journal removed under it: commits nobody will read.)
#[derive(Debug)]
pub struct Identity {
    held: Vec<(PathBuf, File)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileId {
    dev: u64,
    ino: u64,
}

/// Why the journal is no longer the one the store opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lost {
    /// The directory or the journal file is not at its path any more.
    Gone(PathBuf),
    /// Something else is at the path now (removed and created again, or replaced).
    Replaced(PathBuf),
    /// The path cannot be examined (permissions changed, a file system gone away).
    Unreachable(PathBuf, String),
}

impl Lost {
    /// True when the journal file the store writes is certainly not the one at the path, so a
    /// commit into it is recorded nowhere anyone will read.
    pub fn is_certain(&self) -> bool {
        !matches!(self, Lost::Unreachable(..))
    }
}

impl std::fmt::Display for Lost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Lost::Gone(path) => write!(f, "{} was removed", path.display()),
            Lost::Replaced(path) => write!(f, "{} was replaced by another", path.display()),
            Lost::Unreachable(path, why) => {
                write!(f, "{} cannot be reached: {why}", path.display())
            }
        }
    }
}

impl Identity {
    /// Opens `paths` (a directory, files) to keep them as they are now.
    pub fn of(paths: &[&Path]) -> io::Result<Identity> {
        let held = paths
            .iter()
            .map(|p| Ok((p.to_path_buf(), File::open(p)?)))
            .collect::<io::Result<_>>()?;
        Ok(Identity { held })
    }

    /// Whether the paths are still the ones taken by [`Identity::of`]: still linked, and still
    /// what their paths name.
    pub fn check(&self) -> Result<(), Lost> {
        for (path, held) in &self.held {
            let path = path.as_path();
            let held = held
                .metadata()
                .map_err(|e| Lost::Unreachable(path.to_path_buf(), e.to_string()))?;
            if links(&held) == 0 {
                return Err(Lost::Gone(path.to_path_buf()));
            }
            match fs::metadata(path) {
                Ok(meta) if file_id(&meta) == file_id(&held) => {}
                Ok(_) => return Err(Lost::Replaced(path.to_path_buf())),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    return Err(Lost::Gone(path.to_path_buf()));
                }
                Err(e) => return Err(Lost::Unreachable(path.to_path_buf(), e.to_string())),
            }
        }
        Ok(())
    }
}

#[cfg(unix)]
fn file_id(meta: &fs::Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt;
    FileId {
        dev: meta.dev(),
        ino: meta.ino(),
    }
}

#[cfg(unix)]
fn links(meta: &fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.nlink()
}

#[cfg(not(unix))]
fn file_id(_meta: &fs::Metadata) -> FileId {
    // No inode numbers: only a missing path is detected.
    FileId { dev: 0, ino: 0 }
}

#[cfg(not(unix))]
fn links(_meta: &fs::Metadata) -> u64 {
    1
}

/// Removes the temporary files an archive interrupted by a crash left in `games_dir`
/// (`.<name>.pgn.tmp`); returns how many. The games they were for are archived again from the
/// journal at start.
pub fn remove_stale_temps(games_dir: &Path) -> io::Result<usize> {
    let entries = match fs::read_dir(games_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let mut removed = 0;
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') && name.ends_with(".pgn.tmp") && entry.file_type()?.is_file() {
            fs::remove_file(entry.path())?;
            removed += 1;
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn a_directory_removed_or_recreated_is_told_from_the_one_opened() {
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().join("state");
        fs::create_dir(&dir).unwrap();
        let journal = dir.join("j");
        fs::write(&journal, b"x").unwrap();
        let id = Identity::of(&[&dir, &journal]).unwrap();
        assert_eq!(id.check(), Ok(()));
        fs::remove_dir_all(&dir).unwrap();
        assert_eq!(id.check(), Err(Lost::Gone(dir.clone())));
        fs::create_dir(&dir).unwrap();
        fs::write(&journal, b"x").unwrap();
        let again = id.check().unwrap_err();
        assert!(again.is_certain(), "{again}");
        // A journal replaced by another file (a backup copied over it) is told too.
        fs::remove_dir_all(&dir).unwrap();
        fs::create_dir(&dir).unwrap();
        fs::write(&journal, b"x").unwrap();
        let id = Identity::of(&[&dir, &journal]).unwrap();
        fs::write(dir.join("copy"), b"y").unwrap();
        fs::rename(dir.join("copy"), &journal).unwrap();
        // (The file opened lost its last link: it counts as removed.)
        assert_eq!(id.check(), Err(Lost::Gone(journal.clone())));
    }

    #[test]
    fn stale_archive_temps_are_removed_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(".t-1.pgn.tmp"), b"half").unwrap();
        fs::write(dir.path().join("t-1.pgn"), b"whole").unwrap();
        assert_eq!(remove_stale_temps(dir.path()).unwrap(), 1);
        assert!(dir.path().join("t-1.pgn").exists());
        assert_eq!(remove_stale_temps(&dir.path().join("none")).unwrap(), 0);
    }
}
