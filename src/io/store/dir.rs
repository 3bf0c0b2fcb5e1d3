//! The state directory: created readable by its owner only, its new entries made durable, and
//! locked so that a second daemon on the same directory is refused rather than writing the same
//! journal.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::LOCK_FILE;
use super::error::StoreError;
use crate::io::private_file::{Access, set_dir_mode};

/// Creates the state directory (and missing parents) readable by its owner only, and makes
/// the new entries durable.
pub(super) fn create_private_dir(dir: &Path) -> Result<(), StoreError> {
    // The state directory holds the games' records: made 0700, or 0750 when they are shared
    // with the group (its journal and tokens stay 0600 inside); an existing one keeps its
    // owner's mode, gaining only the group's reading when records are shared.
    let set_mode = |e| StoreError::NotWritable {
        path: dir.to_path_buf(),
        source: Arc::new(e),
    };
    match fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {
            ours(dir, &meta)?;
            return set_dir_mode(dir, Access::Record, false).map_err(set_mode);
        }
        Ok(_) => {
            return Err(StoreError::NotADirectory {
                path: dir.to_path_buf(),
            });
        }
        Err(_) => {}
    }
    let missing: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
        .map(Path::to_path_buf)
        .collect();
    let create_error = |e: io::Error| StoreError::CreateDir {
        path: dir.to_path_buf(),
        source: Arc::new(e),
    };
    create_dir_0700(dir).map_err(create_error)?;
    set_dir_mode(dir, Access::Record, true).map_err(create_error)?;
    for created in &missing {
        if let Some(parent) = created.parent().filter(|p| !p.as_os_str().is_empty()) {
            sync_dir(parent).map_err(create_error)?;
        }
    }
    Ok(())
}

/// An existing state directory must be the daemon user's and writable by nobody else: a
/// directory another user owns or may write in could hold a planted `lock`, `tokens.toml` or
/// a link where the daemon writes.
#[cfg(unix)]
fn ours(dir: &Path, meta: &fs::Metadata) -> Result<(), StoreError> {
    use std::os::unix::fs::MetadataExt;
    let refuse = |why: String| {
        Err(StoreError::NotOurs {
            path: dir.to_path_buf(),
            why,
        })
    };
    let me = nix::unistd::geteuid().as_raw();
    if meta.uid() != me {
        return refuse(format!("it belongs to user {}, not {me}", meta.uid()));
    }
    if meta.mode() & 0o022 != 0 {
        return refuse(format!(
            "others may write in it (mode {:o})",
            meta.mode() & 0o7777
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn ours(_dir: &Path, _meta: &fs::Metadata) -> Result<(), StoreError> {
    Ok(())
}

#[cfg(unix)]
pub(super) fn create_dir_0700(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(not(unix))]
pub(super) fn create_dir_0700(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)
}

/// Makes a directory's entries (a created or renamed file) durable.
#[cfg(unix)]
pub(super) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
pub(super) fn sync_dir(_dir: &Path) -> io::Result<()> {
    // Windows cannot open a directory as a file; NTFS journals its metadata.
    Ok(())
}

/// Takes the state directory's lock file (flock, released by the kernel when the process
/// ends, `kill -9` included) and writes our process id into it for the error of a second one.
pub(super) fn take_lock(dir: &Path) -> Result<File, StoreError> {
    let path = dir.join(LOCK_FILE);
    let not_writable = StoreError::not_writable(dir);
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // A link planted where the lock goes is refused, never written through.
        options.custom_flags(nix::libc::O_NOFOLLOW).mode(0o600);
    }
    let mut file = options.open(&path).map_err(not_writable)?;
    // A lock held for an instant is no other daemon: a process this one forks (a test's
    // child, a helper) holds a copy of the descriptor until it execs. Asked again for a
    // moment before the directory is called in use.
    let mut attempt = 0;
    let locked = loop {
        match file.try_lock() {
            Err(fs::TryLockError::WouldBlock) if attempt < 20 => {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            other => break other,
        }
    };
    match locked {
        Ok(()) => {}
        Err(fs::TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = Read::by_ref(&mut file).take(32).read_to_string(&mut holder);
            let holder = match holder.trim() {
                "" => "process unknown".to_owned(),
                pid => format!("process {pid}"),
            };
            return Err(StoreError::Locked {
                path: dir.to_path_buf(),
                holder,
            });
        }
        Err(fs::TryLockError::Error(e)) => return Err(not_writable(e)),
    }
    file.set_len(0).map_err(not_writable)?;
    write!(file, "{}", std::process::id()).map_err(not_writable)?;
    Ok(file)
}
