//! Everything checked before a state directory's journal is used: the directory made and
//! locked, the journal file there whole (or created whole), and holding at least what its mark
//! says was recorded. Each refusal names the file and what to do (`docs/storage.md`).

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::io::private_file;

use super::JOURNAL_FILE;
use super::connection::{create_journal, open_connection, wal_path};
use super::dir::{create_private_dir, sync_dir, take_lock};
use super::error::{StoreError, corrupt_or};
use super::identity::Identity;
use super::mark::{MARK_FILE, Mark, MarkFile, MarkRead};
use super::schema::COUNT_RECORDS_AND_GAMES;

/// A journal opened and checked, for the store to keep.
pub(super) struct Opened {
    pub(super) conn: Connection,
    pub(super) dir: PathBuf,
    pub(super) path: PathBuf,
    /// The state directory's lock, held while this is.
    pub(super) lock: File,
    pub(super) identity: Identity,
    pub(super) mark: MarkFile,
    pub(super) marked: Mark,
}

/// Opens the journal of `state_dir`, creating the directory (mode 0700) and the database if
/// they are missing. Refuses a directory another process holds, a file that is not an
/// annabella journal, a schema it does not know, a damaged database, an empty journal file, a
/// journal missing beside its write-ahead log or mark, and a journal holding fewer records than
/// its mark says were recorded.
pub(super) fn open(state_dir: &Path) -> Result<Opened, StoreError> {
    let dir = state_dir.to_path_buf();
    create_private_dir(&dir)?;
    let lock = take_lock(&dir)?;
    let path = dir.join(JOURNAL_FILE);
    let not_writable = StoreError::not_writable(&dir);
    // SQLite opens its files following links: a link (or another user's file) planted as the
    // journal's log or index, or as its mark, is refused before anything opens it (a link as
    // the journal itself is refused by `is_fresh` as not a journal).
    for file in [
        wal_path(&path),
        path.with_file_name(format!("{JOURNAL_FILE}-shm")),
        dir.join(MARK_FILE),
    ] {
        private_file::check_existing(&file).map_err(StoreError::not_writable(&dir))?;
    }
    let fresh = is_fresh(&dir, &path)?;
    if fresh {
        create_journal(&path)?;
        // SQLite syncs the directory for its journals, not for the database it creates.
        sync_dir(&dir).map_err(not_writable)?;
    }
    let conn = open_connection(&path)?;
    private_journal(&path).map_err(not_writable)?;
    // Reading the header in WAL mode created the log: it is there while the journal is open.
    let identity = Identity::of(&[&dir, &path, &wal_path(&path)]).map_err(not_writable)?;
    let (mark, marked) = check_mark(&conn, &dir, &path, fresh)?;
    Ok(Opened {
        conn,
        dir,
        path,
        lock,
        identity,
        mark,
        marked,
    })
}

/// Whether there is no journal yet and one is to be created; refuses a journal file that cannot
/// be one, or one missing while its log or mark shows it was there.
fn is_fresh(dir: &Path, path: &Path) -> Result<bool, StoreError> {
    let wal = wal_path(path);
    match fs::symlink_metadata(path) {
        Ok(meta) if !meta.is_file() => Err(StoreError::NotAJournal {
            path: path.to_path_buf(),
        }),
        // A database SQLite never checkpointed can live in its log alone.
        Ok(meta) if meta.len() == 0 && fs::metadata(&wal).map_or(0, |m| m.len()) == 0 => {
            Err(StoreError::EmptyJournal {
                path: path.to_path_buf(),
            })
        }
        Ok(_) => Ok(false),
        Err(_) => match [wal, dir.join(MARK_FILE)]
            .into_iter()
            .find(|p| fs::symlink_metadata(p).is_ok())
        {
            Some(evidence) => Err(StoreError::JournalMissing {
                path: path.to_path_buf(),
                evidence,
            }),
            None => Ok(true),
        },
    }
}

/// Compares what the journal holds with what its mark says was recorded, then marks what it
/// holds now; returns the open mark.
fn check_mark(
    conn: &Connection,
    dir: &Path,
    path: &Path,
    fresh: bool,
) -> Result<(MarkFile, Mark), StoreError> {
    let have = count(conn).map_err(|e| corrupt_or(path, e, "counting the records"))?;
    let not_writable = StoreError::not_writable(dir);
    let mark_path = dir.join(MARK_FILE);
    match MarkFile::read(dir).map_err(not_writable)? {
        MarkRead::Found(had) if have.last_seq < had.last_seq || have.games < had.games => {
            return Err(StoreError::RecordsLost {
                path: path.to_path_buf(),
                mark: mark_path,
                have_seq: have.last_seq,
                have_games: have.games,
                had_seq: had.last_seq,
                had_games: had.games,
            });
        }
        MarkRead::Found(_) => {}
        // A journal of an annabella before the mark, or a mark moved aside on purpose.
        MarkRead::Missing if !fresh => tracing::warn!(
            journal = %path.display(),
            "the journal has no mark ({MARK_FILE}); one is written now, so that a later loss of records is detected"
        ),
        MarkRead::Missing => {}
        MarkRead::Unreadable => tracing::warn!(
            mark = %mark_path.display(),
            "the journal's mark is unreadable (torn by a power loss?); it is written again from the journal"
        ),
    }
    let mark = MarkFile::open(dir, have).map_err(not_writable)?;
    Ok((mark, have))
}

/// The journal's highest record number and its number of games.
fn count(conn: &Connection) -> rusqlite::Result<Mark> {
    let (seq, games): (i64, i64) =
        conn.query_row(COUNT_RECORDS_AND_GAMES, [], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(Mark {
        last_seq: u64::try_from(seq).unwrap_or(0),
        games: u64::try_from(games).unwrap_or(0),
    })
}

/// The journal and its log are the daemon user's alone (0600), whatever umask created them or
/// an older version left them with.
#[cfg(unix)]
fn private_journal(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for file in [path.to_path_buf(), wal_path(path)] {
        match fs::set_permissions(&file, fs::Permissions::from_mode(0o600)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn private_journal(_path: &Path) -> std::io::Result<()> {
    Ok(())
}
