//! The state directory, the journal and its write-ahead log as the store opened them, checked
//! around every write: once the directory was removed or replaced while the daemon runs, a
//! commit would go into a file nobody will read again, so it must not be acknowledged.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

/// The state directory, the journal file and its write-ahead log as the store opened them,
/// held open: an inode stays allocated while it is open, so a directory removed and created
/// again can never come back with the same device and inode number, and a removed one shows no
/// links. (SQLite keeps writing to a log or journal removed under it: commits nobody will read.)
#[derive(Debug)]
pub(super) struct Identity {
    held: Vec<(PathBuf, File)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileId {
    dev: u64,
    ino: u64,
}

/// Why the journal is no longer the one the store opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Lost {
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
    pub(super) fn is_certain(&self) -> bool {
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
    pub(super) fn of(paths: &[&Path]) -> io::Result<Identity> {
        let held = paths
            .iter()
            .map(|p| Ok((p.to_path_buf(), open_held(p)?)))
            .collect::<io::Result<_>>()?;
        Ok(Identity { held })
    }

    /// Whether the paths are still the ones taken by [`Identity::of`]: still linked, and still
    /// what their paths name.
    pub(super) fn check(&self) -> Result<(), Lost> {
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
fn open_held(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// Windows opens a directory only with FILE_FLAG_BACKUP_SEMANTICS; std's default sharing
/// (read, write, delete) leaves the paths free to be renamed or removed, as on Unix.
#[cfg(windows)]
fn open_held(path: &Path) -> io::Result<File> {
    use std::os::windows::fs::OpenOptionsExt;
    const FILE_FLAG_BACKUP_SEMANTICS: u32 = 0x0200_0000;
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)
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

// Unix only: on Windows a directory whose journal is held open cannot be removed at all (the
// file's deletion waits for its last handle, so the directory is not empty), and without inode
// numbers a replaced journal is not told (`file_id`).
#[cfg(all(test, unix))]
mod tests {
    use super::*;

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
}
