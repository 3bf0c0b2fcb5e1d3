//! [`StoreError`]: why the journal could not do what was asked, in the user's terms, and how
//! SQLite's and the file system's errors are turned into it.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::ErrorCode;

use super::schema::{APPLICATION_ID, SCHEMA_VERSION};
use super::{MAX_LINE_BYTES, MAX_PGN_BYTES, MAX_TABLE_NAME_BYTES};

/// Table names are cut to this many characters in error messages.
const NAME_IN_ERROR_CHARS: usize = 80;

/// Why the journal could not do what was asked. Every message names the file or the value and
/// says what would be right. Cloneable, because one failed group commit answers every append
/// in it.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    #[error(
        "cannot create the state directory {path}: {source}; create it yourself or name a writable state_dir in the configuration"
    )]
    CreateDir {
        path: PathBuf,
        #[source]
        source: Arc<io::Error>,
    },
    #[error(
        "the state directory {path} exists but is not a directory; state_dir must name a directory"
    )]
    NotADirectory { path: PathBuf },
    #[error(
        "the state directory {path} is refused: {why}; another user could plant files or links \
         there that the daemon would then write through. Make it the daemon user's own and \
         writable by it alone (chown, chmod 0700), or name another state_dir"
    )]
    NotOurs { path: PathBuf, why: String },
    #[error(
        "cannot write in the state directory {path}: {source}; make it writable by the user annabella runs as, or name another state_dir"
    )]
    NotWritable {
        path: PathBuf,
        #[source]
        source: Arc<io::Error>,
    },
    #[error(
        "the state directory {path} is in use by another annabella ({holder}); stop that one, or give each daemon its own state_dir"
    )]
    Locked { path: PathBuf, holder: String },
    #[error(
        "{path} is not an SQLite database (or its header is damaged); move it aside and restore the state directory from a backup, or start with an empty one (docs/storage.md)"
    )]
    NotAJournal { path: PathBuf },
    #[error(
        "{path} is an SQLite database of another program (application id {found:#x}, annabella's is {APPLICATION_ID:#x}); name a state_dir of annabella's own"
    )]
    ForeignDatabase { path: PathBuf, found: i64 },
    #[error(
        "{path} has journal schema version {found}; this annabella reads version {SCHEMA_VERSION}: run the annabella that wrote it (or a newer one)"
    )]
    UnsupportedSchema { path: PathBuf, found: i64 },
    #[error(
        "the journal {path} is damaged ({detail}); stop annabella, keep a copy of the state directory and recover it as docs/storage.md describes"
    )]
    Corrupt { path: PathBuf, detail: String },
    #[error(
        "the journal {path} is empty (0 bytes, no write-ahead log): it holds no game, so annabella will not start a new one over it; if this state directory has never recorded a game, remove the file; otherwise restore the state directory from a backup (docs/storage.md)"
    )]
    EmptyJournal { path: PathBuf },
    #[error(
        "the journal {path} is missing but {evidence} is there: the journal was removed or moved; put it back (or restore the state directory from a backup); to start afresh on purpose, move {evidence} aside too (docs/storage.md)"
    )]
    JournalMissing { path: PathBuf, evidence: PathBuf },
    #[error(
        "the journal {path} ends at record {have_seq} (games: {have_games}), but {mark} says records up to {had_seq} (games: {had_games}) were recorded: the write-ahead log ({path}-wal) was damaged or cut short and SQLite dropped the last records; restore the state directory from a backup, or, to go on with what is left, move {mark} aside (docs/storage.md)"
    )]
    RecordsLost {
        path: PathBuf,
        mark: PathBuf,
        have_seq: u64,
        have_games: u64,
        had_seq: u64,
        had_games: u64,
    },
    #[error(
        "the state directory {dir} is gone ({what}); nothing was recorded: stop annabella and restore the state directory, its journal is no longer where it was opened"
    )]
    StateDirGone { dir: PathBuf, what: String },
    #[error(
        "the disk holding the journal {path} is full; nothing was recorded: free some space (`df` shows how much is left)"
    )]
    DiskFull { path: PathBuf },
    #[error(
        "the journal {path}: {doing} failed: {source}; nothing was recorded: check the disk (free space, file size limits, the kernel log)"
    )]
    Io {
        path: PathBuf,
        doing: &'static str,
        #[source]
        source: Arc<rusqlite::Error>,
    },
    #[error("the journal {path}: {doing} failed: {source}")]
    Database {
        path: PathBuf,
        doing: &'static str,
        #[source]
        source: Arc<rusqlite::Error>,
    },
    #[error(
        "table name {name:?} {problem}; a table name is 1 to {MAX_TABLE_NAME_BYTES} bytes without spaces or control characters"
    )]
    BadTableName { name: String, problem: &'static str },
    #[error(
        "a journal line of table {table:?} is {len} bytes; at most {MAX_LINE_BYTES} are recorded"
    )]
    LineTooLong { table: String, len: usize },
    #[error(
        "a journal line of table {table:?} has a line break or NUL at byte {at}; a record is one line of text"
    )]
    LineNotOneLine { table: String, at: usize },
    #[error("an empty journal line for table {table:?}; a record is one non-empty line")]
    EmptyLine { table: String },
    #[error("time {at} ms is out of range; Unix milliseconds below 2^63 are expected")]
    TimeOutOfRange { at: u64 },
    #[error(
        "the PGN of table {table:?} game {game} is {len} bytes; at most {MAX_PGN_BYTES} are archived"
    )]
    PgnTooLarge {
        table: String,
        game: u64,
        len: usize,
    },
    #[error("cannot archive the game as {path}: {source}; the journal still holds the game")]
    Archive {
        path: PathBuf,
        #[source]
        source: Arc<io::Error>,
    },
    #[error("the journal thread has stopped, so nothing was recorded; restart annabella")]
    Closed,
    #[error("cannot start the journal thread: {source}")]
    Thread {
        #[source]
        source: Arc<io::Error>,
    },
}

impl StoreError {
    /// For `map_err`: an I/O error where `path` (the state directory or a file in it) had to be
    /// written.
    pub(super) fn not_writable(path: &Path) -> impl Fn(io::Error) -> StoreError + Copy + '_ {
        // A full disk is no matter of permissions: said as what it is.
        move |e| match e.kind() {
            io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded => StoreError::DiskFull {
                path: path.to_path_buf(),
            },
            _ => StoreError::NotWritable {
                path: path.to_path_buf(),
                source: Arc::new(e),
            },
        }
    }
}

/// Names what went wrong with the journal in the user's terms.
pub(super) fn classify(path: &Path, e: rusqlite::Error, doing: &'static str) -> StoreError {
    let path = path.to_path_buf();
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => StoreError::NotAJournal { path },
        Some(ErrorCode::DatabaseCorrupt) => StoreError::Corrupt {
            path,
            detail: e.to_string(),
        },
        Some(ErrorCode::DiskFull) => StoreError::DiskFull { path },
        Some(ErrorCode::SystemIoFailure) => StoreError::Io {
            path,
            doing,
            source: Arc::new(e),
        },
        Some(ErrorCode::CannotOpen | ErrorCode::ReadOnly | ErrorCode::PermissionDenied) => {
            StoreError::NotWritable {
                path,
                source: Arc::new(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    e.to_string(),
                )),
            }
        }
        _ => StoreError::Database {
            path,
            doing,
            source: Arc::new(e),
        },
    }
}

/// A value of the wrong type read back means the file was changed behind our back.
pub(super) fn corrupt_or(path: &Path, e: rusqlite::Error, doing: &'static str) -> StoreError {
    match e {
        rusqlite::Error::InvalidColumnType(..) | rusqlite::Error::FromSqlConversionFailure(..) => {
            StoreError::Corrupt {
                path: path.to_path_buf(),
                detail: format!("{doing}: {e}"),
            }
        }
        e => classify(path, e, doing),
    }
}

/// A table name as an error message shows it: cut short, since it came from outside.
pub(super) fn name_for_error(name: &str) -> String {
    name.chars().take(NAME_IN_ERROR_CHARS).collect()
}
