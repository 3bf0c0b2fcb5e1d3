//! Writing the daemon's own files — its state, the games' records, transcripts and audio —
//! without ever following a link or writing into another user's file, with a mode that says who
//! may read them whatever the umask.
//!
//! A path the daemon writes may lie in a directory others can write in (a transcript in
//! `/tmp`, a record folder shared with an arbiter). There a stranger can plant a link named like
//! the file, and a daemon running as root would write through it into any file of the machine,
//! or plant a file of his own that the daemon then appends to and others read. So every file is
//! opened with `O_NOFOLLOW`, new temporary files with `O_EXCL`, and what is found where the
//! daemon writes must be a regular file of the daemon's user; anything else is refused with
//! what it is and the remedy. Directories the daemon makes are 0700, and one it finds must be
//! a directory (not a link to one) of its own user.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Who may read a file the daemon writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// The daemon's user alone (0600): the journal, tokens, marks, queues, the desk's notes.
    Private,
    /// A record of a game (archived PGN, Braille score, resolutions, transcript, WAV): 0600,
    /// or 0640 when the configuration shares records with the daemon user's group
    /// (`records_group_readable`).
    Record,
    /// A file made to be read by other programs under other users (the live broadcast's
    /// `games.pgn`, which the lichess Broadcaster app or DGT's relay software watches): 0644 in
    /// a 0755 folder. It holds only what the broadcast shows the world anyway — the games'
    /// moves, clocks and players' names — never a token or anything private; it is still
    /// written without following a link and only over a file of the daemon's user.
    Published,
}

static RECORDS_GROUP_READABLE: AtomicBool = AtomicBool::new(false);

/// Sets, once at the daemon's start, whether records are readable by the daemon user's group
/// (`records_group_readable = true`: an arbiter's account in that group can read the games,
/// never write them).
pub fn share_records_with_group(yes: bool) {
    RECORDS_GROUP_READABLE.store(yes, Ordering::Relaxed);
}

impl Access {
    /// The file mode this access gives.
    pub fn mode(self) -> u32 {
        if self == Access::Published {
            0o644
        } else if self.group_reads() {
            0o640
        } else {
            0o600
        }
    }

    /// The mode of a directory made for such files.
    pub fn dir_mode(self) -> u32 {
        if self == Access::Published {
            0o755
        } else if self.group_reads() {
            0o750
        } else {
            0o700
        }
    }

    fn group_reads(self) -> bool {
        self == Access::Record && RECORDS_GROUP_READABLE.load(Ordering::Relaxed)
    }
}

/// How an existing file is opened by [`open`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Writes go to the end (a transcript, a log of resolutions).
    Append,
    /// Read and written in place (a WAV record whose header is rewritten, a mark).
    ReadWrite,
}

/// Opens `path`, creating it when missing with `access`'s mode; refuses a link, a special file
/// or a file another user owns. The mode is set again on an existing file, so a file an older
/// version (or a wide umask) left readable by others is made private.
pub fn open(path: &Path, mode: Mode, access: Access) -> io::Result<File> {
    let mut options = OpenOptions::new();
    match mode {
        Mode::Append => options.append(true),
        Mode::ReadWrite => options.read(true).write(true),
    };
    options.create(true);
    no_follow(&mut options, access);
    let file = options.open(path).map_err(|e| explain(path, e))?;
    ours(path, &file)?;
    set_mode(&file, access).map_err(|e| explain(path, e))?;
    Ok(file)
}

/// Replaces `path` by `bytes` whole: a new temporary file beside it (created exclusively,
/// never through a link), synced, renamed over the old one, the directory synced. What is at
/// `path` now must be a regular file of the daemon's user (or nothing): a link or another
/// user's file there is refused rather than replaced, since someone put it there.
pub fn replace(path: &Path, bytes: &[u8], access: Access) -> io::Result<()> {
    replace_whole(path, bytes, access, true)
}

/// [`replace`] without syncing: a reader still sees the old file or the new one whole (the
/// rename is atomic), but a power cut may lose the new one. For a file the daemon makes again
/// at its next start (the broadcast's `games.pgn`), whose syncs would only queue the journal's
/// behind them on the same disk.
pub fn replace_unsynced(path: &Path, bytes: &[u8], access: Access) -> io::Result<()> {
    replace_whole(path, bytes, access, false)
}

fn replace_whole(path: &Path, bytes: &[u8], access: Access, sync: bool) -> io::Result<()> {
    let dir = parent(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.tmp"));
    // A leftover of a write a crash interrupted (or anything planted under the temporary
    // name): unlinking never follows a link.
    match fs::remove_file(&temp) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(explain(&temp, e)),
        _ => {}
    }
    check_existing(path)?;
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    no_follow(&mut options, access);
    let mut file = options.open(&temp).map_err(|e| explain(&temp, e))?;
    let written = set_mode(&file, access)
        .and_then(|()| file.write_all(bytes))
        .and_then(|()| if sync { file.sync_all() } else { Ok(()) });
    if let Err(e) = written {
        let _ = fs::remove_file(&temp);
        return Err(explain(&temp, e));
    }
    drop(file);
    fs::rename(&temp, path).map_err(|e| explain(path, e))?;
    if sync {
        sync_dir(&dir).map_err(|e| explain(&dir, e))?;
    }
    Ok(())
}

/// Makes `dir` (and its missing parents) with mode 0700 (0750 for records shared with the
/// group), and checks that what is there is a directory of the daemon's user, not a link to one.
/// An existing directory keeps the mode its owner gave it (a read-only one stays read-only),
/// but gains the group's reading when records are shared.
pub fn create_dir(dir: &Path, access: Access) -> io::Result<()> {
    let existed = fs::symlink_metadata(dir).is_ok();
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, access.dir_mode());
    builder.create(dir).map_err(|e| explain(dir, e))?;
    let meta = fs::symlink_metadata(dir).map_err(|e| explain(dir, e))?;
    if meta.file_type().is_symlink() {
        return Err(refused(dir, "is a link to a directory"));
    }
    if !meta.is_dir() {
        return Err(refused(dir, "is not a directory"));
    }
    owner_is_us(dir, &meta)?;
    set_dir_mode(dir, access, !existed)
}

/// Sets the mode of a directory of the daemon's own: one it has just `created` gets
/// `access`'s mode exactly (the umask narrows what `mkdir` gives); an existing one keeps its
/// owner's mode and only gains the group's reading (g+rx, never writing) when `access` shares
/// records with the group.
#[cfg(unix)]
pub fn set_dir_mode(dir: &Path, access: Access, created: bool) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = if created {
        access.dir_mode()
    } else {
        let now = fs::metadata(dir)
            .map_err(|e| explain(dir, e))?
            .permissions()
            .mode()
            & 0o7777;
        // A folder the arbiter made for the broadcast keeps exactly the mode he gave it.
        let widen = if access == Access::Published {
            0
        } else {
            access.dir_mode() & 0o050
        };
        let shared = now | widen;
        if shared == now {
            return Ok(());
        }
        shared
    };
    fs::set_permissions(dir, fs::Permissions::from_mode(mode)).map_err(|e| explain(dir, e))
}

#[cfg(not(unix))]
pub fn set_dir_mode(_dir: &Path, _access: Access, _created: bool) -> io::Result<()> {
    Ok(())
}

/// Fails when what is at `path` is something the daemon must not replace: a link, a special
/// file, a directory or another user's file. Nothing there is fine.
pub fn check_existing(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(explain(path, e)),
        Ok(meta) if meta.file_type().is_symlink() => Err(refused(path, "is a link")),
        Ok(meta) if !meta.is_file() => Err(refused(path, "is not a regular file")),
        Ok(meta) => owner_is_us(path, &meta),
    }
}

fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn no_follow(options: &mut OpenOptions, access: Access) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK: a FIFO planted under the name must be refused, not waited on.
        options
            .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
            .mode(access.mode());
    }
    #[cfg(not(unix))]
    let _ = (options, access);
}

/// The open file must be a regular file of the daemon's user.
fn ours(path: &Path, file: &File) -> io::Result<()> {
    let meta = file.metadata().map_err(|e| explain(path, e))?;
    if !meta.is_file() {
        return Err(refused(path, "is not a regular file"));
    }
    owner_is_us(path, &meta)
}

#[cfg(unix)]
fn owner_is_us(path: &Path, meta: &fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let me = nix::unistd::geteuid().as_raw();
    if meta.uid() == me {
        return Ok(());
    }
    Err(refused(
        path,
        &format!(
            "belongs to user {}, not to the daemon's user {me}",
            meta.uid()
        ),
    ))
}

#[cfg(not(unix))]
fn owner_is_us(_path: &Path, _meta: &fs::Metadata) -> io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn set_mode(file: &File, access: Access) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    // Set exactly, whatever the umask took away or left.
    file.set_permissions(fs::Permissions::from_mode(access.mode()))
}

#[cfg(not(unix))]
fn set_mode(_file: &File, _access: Access) -> io::Result<()> {
    Ok(())
}

/// Makes a directory's entries (a created, renamed or removed file) durable.
#[cfg(unix)]
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Windows cannot open a directory as a file to sync it; NTFS journals its entries itself.
#[cfg(not(unix))]
pub fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

/// A refusal that says what was found and what to do.
fn refused(path: &Path, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "{} {what}; annabella writes only its own regular files, never through a link or \
             into another user's file (someone may have put it there): remove it, or give the \
             daemon a folder only its user can write in",
            path.display()
        ),
    )
}

/// The system's error, with the path; a link that made the open fail (`O_NOFOLLOW`'s ELOOP, or
/// the kernel's EACCES for a stranger's link in a sticky folder) said as such.
fn explain(path: &Path, e: io::Error) -> io::Error {
    if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return refused(path, "is a link");
    }
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::{PermissionsExt, symlink};

    fn mode_of(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_link_where_a_file_goes_is_refused_and_its_target_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        fs::write(&victim, "precious").unwrap();
        let link = dir.path().join("record.pgn");
        symlink(&victim, &link).unwrap();
        let e = replace(&link, b"x", Access::Record).unwrap_err();
        assert!(e.to_string().contains("is a link"), "{e}");
        assert!(e.to_string().contains("record.pgn"), "{e}");
        let e = open(&link, Mode::Append, Access::Record).unwrap_err();
        assert!(e.to_string().contains("is a link"), "{e}");
        let e = open(&link, Mode::ReadWrite, Access::Record).unwrap_err();
        assert!(e.to_string().contains("is a link"), "{e}");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    }

    #[test]
    fn a_link_planted_under_the_temporary_name_is_removed_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        fs::write(&victim, "precious").unwrap();
        symlink(&victim, dir.path().join(".focus.tmp")).unwrap();
        let path = dir.path().join("focus");
        replace(&path, b"table-1\n", Access::Private).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "table-1\n");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    }

    #[test]
    fn modes_are_exact_whatever_the_umask_left() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.txt");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o666)).unwrap();
        drop(open(&path, Mode::Append, Access::Private).unwrap());
        assert_eq!(mode_of(&path), 0o600);
        let fresh = dir.path().join("new.pgn");
        replace(&fresh, b"1. e4", Access::Record).unwrap();
        assert_eq!(mode_of(&fresh), 0o600);
    }

    #[test]
    fn a_fifo_where_a_file_goes_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("t.txt");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let e = open(&fifo, Mode::Append, Access::Record).unwrap_err();
        assert!(e.to_string().contains("t.txt"), "{e}");
        let e = replace(&fifo, b"x", Access::Record).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }

    #[test]
    fn another_users_file_is_refused_where_root_can_make_one() {
        if !nix::unistd::geteuid().is_root() {
            return; // only root can give a file away; CI runs as root
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("transcript.txt");
        fs::write(&path, "planted").unwrap();
        std::os::unix::fs::chown(&path, Some(65534), Some(65534)).unwrap();
        let e = open(&path, Mode::Append, Access::Record).unwrap_err();
        assert!(e.to_string().contains("belongs to user 65534"), "{e}");
        let e = replace(&path, b"x", Access::Record).unwrap_err();
        assert!(e.to_string().contains("belongs to user 65534"), "{e}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "planted");
    }

    #[test]
    fn a_directory_that_is_a_link_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        fs::create_dir(&real).unwrap();
        let link = dir.path().join("games");
        symlink(&real, &link).unwrap();
        let e = create_dir(&link, Access::Private).unwrap_err();
        assert!(e.to_string().contains("is a link to a directory"), "{e}");
        let made = dir.path().join("a/b");
        create_dir(&made, Access::Private).unwrap();
        assert_eq!(mode_of(&made), 0o700);
    }
}
