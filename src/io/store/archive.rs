//! The archive of finished games: each game's PGN written durably to
//! `<state_dir>/games/<table>-<game>.pgn`, under a name safe for any table name, and the
//! temporary files of an archive a crash interrupted removed at start.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::dir::{create_dir_0700, sync_dir};
use super::entry::check_table;
use super::error::{StoreError, name_for_error};
use super::{GAMES_DIR, MAX_PGN_BYTES, file_stem};
use crate::io::private_file::{self, Access};

/// Where [`Store::archive_pgn`](super::Store::archive_pgn) keeps game `game` of `table` in
/// `state_dir`.
pub fn archive_path(state_dir: &Path, table: &str, game: u64) -> PathBuf {
    state_dir.join(GAMES_DIR).join(file_name(table, game))
}

fn file_name(table: &str, game: u64) -> String {
    format!("{}-{game}.pgn", file_stem(table))
}

/// Refuses what is not archived: a bad table name, a PGN over [`MAX_PGN_BYTES`].
pub(super) fn check(table: &str, game: u64, pgn: &str) -> Result<(), StoreError> {
    check_table(table)?;
    if pgn.len() > MAX_PGN_BYTES {
        return Err(StoreError::PgnTooLarge {
            table: name_for_error(table),
            game,
            len: pgn.len(),
        });
    }
    Ok(())
}

/// Writes `pgn` as game `game` of `table` (a temp file, fsync'd, renamed over any earlier
/// export, the directory fsync'd; never through a link); creates `games/` (mode 0700) when missing. The caller has
/// passed it through [`check`].
pub(super) fn write(
    state_dir: &Path,
    table: &str,
    game: u64,
    pgn: &str,
) -> Result<PathBuf, StoreError> {
    let games_dir = state_dir.join(GAMES_DIR);
    let path = archive_path(state_dir, table, game);
    let archive_error = |path: &Path, e: io::Error| StoreError::Archive {
        path: path.to_path_buf(),
        source: Arc::new(e),
    };
    if !games_dir.is_dir() {
        create_dir_0700(&games_dir).map_err(|e| archive_error(&games_dir, e))?;
        sync_dir(state_dir).map_err(|e| archive_error(&games_dir, e))?;
    }
    // Never through a link or into another user's file, 0600 (0640 shared with the group).
    private_file::create_dir(&games_dir, Access::Record)
        .map_err(|e| archive_error(&games_dir, e))?;
    private_file::replace(&path, pgn.as_bytes(), Access::Record)
        .map_err(|e| archive_error(&path, e))?;
    Ok(path)
}

/// Removes what archives a crash interrupted left in `<state_dir>/games/`, saying so in the
/// log; a failure is only logged. Leftovers only: the games they were for are archived again
/// from the journal.
pub(super) fn remove_interrupted(state_dir: &Path) {
    let games_dir = state_dir.join(GAMES_DIR);
    match remove_stale_temps(&games_dir) {
        Ok(0) => {}
        Ok(n) => {
            tracing::info!(dir = %games_dir.display(), removed = n, "removed the temporary files of interrupted archives")
        }
        Err(e) => {
            tracing::warn!(dir = %games_dir.display(), error = %e, "cannot remove the temporary files of interrupted archives")
        }
    }
}

/// Removes the temporary files an archive interrupted by a crash left in `games_dir`
/// (`.<name>.pgn.tmp`); returns how many. The games they were for are archived again from the
/// journal at start.
fn remove_stale_temps(games_dir: &Path) -> io::Result<usize> {
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
    fn file_stems_keep_plain_names_and_separate_the_others() {
        assert_eq!(file_stem("table-1"), "table-1");
        assert_eq!(file_stem("Board_7"), "Board_7");
        assert_ne!(file_stem("a b"), file_stem("a_b"));
        assert_ne!(file_stem("a b"), file_stem("a/b"));
        assert!(file_stem("..").starts_with("__-"));
        assert_eq!(file_stem("a b"), file_stem("a b"), "stable");
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
