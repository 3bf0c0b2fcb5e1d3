//! The durable journal: every record a table accepts is on disk before it is acknowledged.
//!
//! A table's pure state machine is event-sourced: each accepted change is one line of text (the
//! core owns its format; here it is opaque). Restoring a table is reading its lines back in order
//! and replaying them, so this adapter is an ordered, durable log of lines per table and game,
//! plus a heartbeat (for the downtime after a crash) and the PGN archive of finished games.
//!
//! Storage is SQLite (bundled) in `<state_dir>/journal.sqlite3`, in WAL mode with
//! `synchronous=FULL`: a commit returns only after the write-ahead log was fsync'd, so a line
//! that [`Store::append`] acknowledged survives `kill -9` and power loss. [`StoreHandle`] is the
//! async face: one thread owns the [`Store`] and commits every append queued meanwhile in one
//! transaction, so 50 tables writing at once cost one fsync, not fifty. `docs/storage.md` states
//! the guarantees, the file layout, backups and inspection.

use std::collections::HashMap;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;

use rusqlite::{Connection, ErrorCode, OpenFlags, TransactionBehavior, params};
use tokio::sync::oneshot;

use crate::io::store_guard::{Identity, MARK_FILE, Mark, MarkFile, MarkRead, remove_stale_temps};

/// The journal's file name inside the state directory.
pub const JOURNAL_FILE: &str = "journal.sqlite3";
/// The directory of archived games inside the state directory.
pub const GAMES_DIR: &str = "games";
/// The lock file that keeps a second daemon off the same state directory.
pub const LOCK_FILE: &str = "lock";
/// The longest journal line recorded; the core's records are a few hundred bytes.
pub const MAX_LINE_BYTES: usize = 4096;
pub use crate::table::name::MAX_TABLE_NAME_BYTES;
/// The largest PGN archived for one game.
pub const MAX_PGN_BYTES: usize = 1 << 20;
/// The schema this code reads and writes (`PRAGMA user_version`).
pub const SCHEMA_VERSION: i64 = 1;
/// `PRAGMA application_id` of an annabella journal: "anna" in ASCII, so `file(1)` and we can
/// tell it from another program's SQLite database.
pub const APPLICATION_ID: i64 = 0x616E_6E61;
/// A heartbeat is fsync'd when the last synced one is at least this old (or by any append);
/// the others only reach the operating system. See [`Store::heartbeat`].
pub const HEARTBEAT_SYNC_INTERVAL_MS: u64 = 10_000;
/// The write-ahead log is copied into the database by the heartbeat this often, off the path
/// of the appends (SQLite's own automatic checkpoint would stall whichever commit crossed its
/// threshold).
pub const CHECKPOINT_INTERVAL_MS: u64 = 60_000;
/// The most requests [`StoreHandle`]'s thread takes into one round (one transaction).
pub const MAX_GROUP: usize = 1024;

/// SQLite's automatic checkpoint stays as a backstop when no heartbeat runs (pages of 4 KiB).
const WAL_AUTOCHECKPOINT_PAGES: i64 = 10_000;
/// After a checkpoint the write-ahead log is truncated to this size.
const JOURNAL_SIZE_LIMIT_BYTES: i64 = 8 << 20;
/// Table names are cut to this many characters in error messages.
const NAME_IN_ERROR_CHARS: usize = 80;

const SCHEMA: &str = "
CREATE TABLE games (
    table_name TEXT NOT NULL,
    game INTEGER NOT NULL,
    started_unix_ms INTEGER NOT NULL,
    PRIMARY KEY (table_name, game)
) STRICT, WITHOUT ROWID;
CREATE TABLE journal (
    seq INTEGER PRIMARY KEY,
    table_name TEXT NOT NULL,
    game INTEGER NOT NULL,
    at_unix_ms INTEGER NOT NULL,
    line TEXT NOT NULL
) STRICT;
CREATE INDEX journal_by_game ON journal (table_name, game, seq);
CREATE TABLE heartbeat (
    id INTEGER PRIMARY KEY CHECK (id = 0),
    at_unix_ms INTEGER NOT NULL
) STRICT;
";

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
    #[error("the disk holding the journal {path} is full; nothing was recorded: free some space")]
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

/// One recorded line of a table's game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalEntry {
    /// The journal's position: strictly increasing over the whole journal (all tables), so a
    /// table's entries have increasing but not consecutive numbers.
    pub seq: u64,
    /// When the table accepted it (Unix milliseconds, as the caller stamped it).
    pub at_unix_ms: u64,
    /// The record, exactly as appended.
    pub line: String,
}

/// The journal of one state directory, opened by one process at a time.
pub struct Store {
    conn: Connection,
    dir: PathBuf,
    path: PathBuf,
    /// Held (flock) for the store's life: a second daemon on the same directory is refused.
    _lock: File,
    /// The current game of every table with a journal.
    games: HashMap<String, u64>,
    last_heartbeat: Option<u64>,
    /// The stamp of the last heartbeat known to be on disk (fsync'd).
    synced_heartbeat: Option<u64>,
    last_checkpoint: Option<u64>,
    /// Set after an I/O error or a failed pragma: the connection is reopened (and its settings
    /// applied afresh) before the next operation, rather than trusting its state.
    suspect: bool,
    /// The directory, the journal and its log as opened: checked around every write.
    identity: Identity,
    /// The witness of what the journal held after the last commit (see `store_guard`).
    mark: MarkFile,
    marked: Mark,
    /// Once the state directory was found gone, every write is refused with this.
    gone: Option<StoreError>,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.path)
            .field("tables", &self.games.len())
            .field("last_heartbeat", &self.last_heartbeat)
            .finish_non_exhaustive()
    }
}

impl Store {
    /// Opens the journal of `state_dir`, creating the directory (mode 0700) and the database
    /// if they are missing. Refuses a directory another process holds, a file that is not an
    /// annabella journal, a schema it does not know, a damaged database, an empty journal file,
    /// a journal missing beside its write-ahead log or mark, and a journal holding fewer
    /// records than its mark says were recorded. Removes the temporary files of an archive a
    /// crash interrupted.
    pub fn open(state_dir: &Path) -> Result<Store, StoreError> {
        let dir = state_dir.to_path_buf();
        create_private_dir(&dir)?;
        let lock = take_lock(&dir)?;
        let path = dir.join(JOURNAL_FILE);
        let not_writable = |e: io::Error| StoreError::NotWritable {
            path: dir.clone(),
            source: Arc::new(e),
        };
        let wal = wal_path(&path);
        let mark_path = dir.join(MARK_FILE);
        let fresh = match fs::symlink_metadata(&path) {
            Ok(meta) if !meta.is_file() => return Err(StoreError::NotAJournal { path }),
            // A database SQLite never checkpointed can live in its log alone.
            Ok(meta) if meta.len() == 0 && fs::metadata(&wal).map_or(0, |m| m.len()) == 0 => {
                return Err(StoreError::EmptyJournal { path });
            }
            Ok(_) => false,
            Err(_) => {
                if let Some(evidence) = [wal, mark_path]
                    .into_iter()
                    .find(|p| fs::symlink_metadata(p).is_ok())
                {
                    return Err(StoreError::JournalMissing { path, evidence });
                }
                true
            }
        };
        if fresh {
            create_journal(&path)?;
            // SQLite syncs the directory for its journals, not for the database it creates.
            sync_dir(&dir).map_err(not_writable)?;
        }
        let conn = open_connection(&path)?;
        // Reading the header in WAL mode created the log: it is there while the journal is open.
        let identity = Identity::of(&[&dir, &path, &wal_path(&path)]).map_err(not_writable)?;
        let (mark, marked) = check_mark(&conn, &dir, &path, fresh)?;
        let mut store = Store {
            conn,
            dir,
            path,
            _lock: lock,
            games: HashMap::new(),
            last_heartbeat: None,
            synced_heartbeat: None,
            last_checkpoint: None,
            suspect: false,
            identity,
            mark,
            marked,
            gone: None,
        };
        store.load_caches()?;
        // Leftovers only: the games they were for are archived again from the journal.
        let games_dir = store.dir.join(GAMES_DIR);
        match remove_stale_temps(&games_dir) {
            Ok(0) => {}
            Ok(n) => {
                tracing::info!(dir = %games_dir.display(), removed = n, "removed the temporary files of interrupted archives")
            }
            Err(e) => {
                tracing::warn!(dir = %games_dir.display(), error = %e, "cannot remove the temporary files of interrupted archives")
            }
        }
        Ok(store)
    }

    /// Refuses a write when the state directory or the journal is no longer the one opened:
    /// a commit there would be recorded in a file nobody will read again.
    fn guard(&mut self) -> Result<(), StoreError> {
        if let Some(gone) = &self.gone {
            return Err(gone.clone());
        }
        match self.identity.check() {
            Ok(()) => Ok(()),
            Err(lost) => {
                let error = StoreError::StateDirGone {
                    dir: self.dir.clone(),
                    what: lost.to_string(),
                };
                if lost.is_certain() {
                    self.gone = Some(error.clone());
                }
                Err(error)
            }
        }
    }

    /// After a commit: if the journal went away meanwhile, the commit is not where anyone will
    /// read it, so it must not be acknowledged. (A path merely unreachable now was checked a
    /// moment before the commit, and the file written is the one opened: that commit stands.)
    fn guard_after(&mut self) -> Result<(), StoreError> {
        match self.identity.check() {
            Err(lost) if lost.is_certain() => {
                let error = StoreError::StateDirGone {
                    dir: self.dir.clone(),
                    what: lost.to_string(),
                };
                self.gone = Some(error.clone());
                Err(error)
            }
            _ => Ok(()),
        }
    }

    /// Marks a commit that added `records` ending at `last_seq` and `games` new games. A failed
    /// write of the mark only leaves it behind the journal, which the check at start allows.
    fn mark_commit(&mut self, last_seq: Option<u64>, games: u64) {
        if let Some(seq) = last_seq {
            self.marked.last_seq = self.marked.last_seq.max(seq);
        }
        self.marked.games += games;
        let _ = self.mark.write(self.marked);
    }

    /// The state directory.
    pub fn state_dir(&self) -> &Path {
        &self.dir
    }

    /// The journal file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one line to the current game of `table` (game 1 if the table is new); the line
    /// is on disk when this returns. Returns its sequence number.
    pub fn append(&mut self, table: &str, at_unix_ms: u64, line: &str) -> Result<u64, StoreError> {
        let seqs = self.append_batch(&[(table, at_unix_ms, line)])?;
        Ok(seqs[0])
    }

    /// Appends several lines in one transaction with one fsync: all of them are recorded or
    /// none. Returns their sequence numbers in order.
    pub fn append_batch(&mut self, items: &[(&str, u64, &str)]) -> Result<Vec<u64>, StoreError> {
        for &(table, at, line) in items {
            check_entry(table, at, line)?;
        }
        if items.is_empty() {
            return Ok(Vec::new());
        }
        self.guard()?;
        self.recover()?;
        let games = &self.games;
        let mut new_tables: Vec<(&str, u64)> = Vec::new();
        let mut seqs = Vec::with_capacity(items.len());
        let result = (|| -> rusqlite::Result<()> {
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            {
                let mut insert = tx.prepare_cached(
                    "INSERT INTO journal (table_name, game, at_unix_ms, line) VALUES (?1, ?2, ?3, ?4)",
                )?;
                let mut start = tx.prepare_cached(
                    "INSERT OR IGNORE INTO games (table_name, game, started_unix_ms) VALUES (?1, ?2, ?3)",
                )?;
                for &(table, at, line) in items {
                    let game = match games.get(table) {
                        Some(&game) => game,
                        None if new_tables.iter().any(|&(t, _)| t == table) => 1,
                        None => {
                            start.execute(params![table, 1, at as i64])?;
                            new_tables.push((table, 1));
                            1
                        }
                    };
                    insert.execute(params![table, game as i64, at as i64, line])?;
                    seqs.push(tx.last_insert_rowid() as u64);
                }
            }
            tx.commit()
        })();
        if let Err(e) = result {
            return Err(self.failed(e, "appending"));
        }
        self.guard_after()?;
        self.mark_commit(seqs.last().copied(), new_tables.len() as u64);
        for (table, game) in new_tables {
            self.games.insert(table.to_owned(), game);
        }
        // The commit synced the whole log, the heartbeat frames before it included.
        self.synced_heartbeat = self.last_heartbeat;
        Ok(seqs)
    }

    /// The lines of the current game of `table`, in the order they were appended; empty for a
    /// table without a journal.
    pub fn load(&self, table: &str) -> Result<Vec<JournalEntry>, StoreError> {
        check_table(table)?;
        match self.games.get(table) {
            Some(&game) => self.load_game(table, game),
            None => Ok(Vec::new()),
        }
    }

    /// The lines of any game of `table` (earlier games stay for the record and for appeals).
    pub fn load_game(&self, table: &str, game: u64) -> Result<Vec<JournalEntry>, StoreError> {
        check_table(table)?;
        let corrupt = |detail: String| StoreError::Corrupt {
            path: self.path.clone(),
            detail,
        };
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT seq, at_unix_ms, line FROM journal WHERE table_name = ?1 AND game = ?2 ORDER BY seq",
            )
            .map_err(|e| classify(&self.path, e, "reading"))?;
        let rows = stmt
            .query_map(
                params![table, i64::try_from(game).unwrap_or(i64::MAX)],
                |row| {
                    Ok((
                        row.get::<_, i64>(0)?,
                        row.get::<_, i64>(1)?,
                        row.get::<_, String>(2)?,
                    ))
                },
            )
            .map_err(|e| classify(&self.path, e, "reading"))?;
        let mut out = Vec::new();
        for row in rows {
            let (seq, at, line) = row.map_err(|e| match e {
                rusqlite::Error::InvalidColumnType(..)
                | rusqlite::Error::FromSqlConversionFailure(..) => corrupt(format!(
                    "a line of table {table:?} game {game} has the wrong type: {e}"
                )),
                e => classify(&self.path, e, "reading"),
            })?;
            let (Ok(seq), Ok(at)) = (u64::try_from(seq), u64::try_from(at)) else {
                return Err(corrupt(format!(
                    "line {seq} of table {table:?} has a negative number"
                )));
            };
            out.push(JournalEntry {
                seq,
                at_unix_ms: at,
                line,
            });
        }
        Ok(out)
    }

    /// Starts a new game at `table`: [`Store::load`] returns only lines appended from now on,
    /// the earlier games' lines are kept. Durable when it returns. Returns the game's number
    /// (1 for a table without a journal).
    pub fn begin_game(&mut self, table: &str, at_unix_ms: u64) -> Result<u64, StoreError> {
        check_table(table)?;
        check_time(at_unix_ms)?;
        self.guard()?;
        self.recover()?;
        let game = self.games.get(table).map_or(1, |g| g + 1);
        let result = self.conn.execute(
            "INSERT INTO games (table_name, game, started_unix_ms) VALUES (?1, ?2, ?3)",
            params![table, game as i64, at_unix_ms as i64],
        );
        if let Err(e) = result {
            return Err(self.failed(e, "starting a game"));
        }
        self.guard_after()?;
        self.mark_commit(None, 1);
        self.games.insert(table.to_owned(), game);
        self.synced_heartbeat = self.last_heartbeat;
        Ok(game)
    }

    /// Starts the next game of `table` with its first lines, in one transaction: the new game
    /// and its lines are recorded together or not at all. Returns the new game's number.
    pub fn begin_game_with(
        &mut self,
        table: &str,
        lines: &[(u64, &str)],
    ) -> Result<u64, StoreError> {
        check_table(table)?;
        for (at, line) in lines {
            check_entry(table, *at, line)?;
        }
        let started = lines.first().map_or(0, |(at, _)| *at);
        check_time(started)?;
        self.guard()?;
        self.recover()?;
        let game = self.games.get(table).map_or(1, |g| g + 1);
        let result = (|| -> rusqlite::Result<Option<u64>> {
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.execute(
                "INSERT INTO games (table_name, game, started_unix_ms) VALUES (?1, ?2, ?3)",
                params![table, game as i64, started as i64],
            )?;
            let mut last = None;
            {
                let mut insert = tx.prepare_cached(
                    "INSERT INTO journal (table_name, game, at_unix_ms, line) VALUES (?1, ?2, ?3, ?4)",
                )?;
                for (at, line) in lines {
                    insert.execute(params![table, game as i64, *at as i64, line])?;
                    last = Some(tx.last_insert_rowid() as u64);
                }
            }
            tx.commit()?;
            Ok(last)
        })();
        let last = match result {
            Ok(last) => last,
            Err(e) => return Err(self.failed(e, "starting a game")),
        };
        self.guard_after()?;
        self.mark_commit(last, 1);
        self.games.insert(table.to_owned(), game);
        self.synced_heartbeat = self.last_heartbeat;
        Ok(game)
    }

    /// The current game's number at `table`, `None` for a table without a journal.
    pub fn current_game(&self, table: &str) -> Option<u64> {
        self.games.get(table).copied()
    }

    /// The tables that have a journal, sorted by name.
    pub fn tables(&self) -> Vec<String> {
        let mut names: Vec<String> = self.games.keys().cloned().collect();
        names.sort();
        names
    }

    /// Stamps "still alive". After `kill -9` the last stamp is there exactly (the operating
    /// system had it); after a power loss it is at most [`HEARTBEAT_SYNC_INTERVAL_MS`] older
    /// than the last stamp, because only a stamp that much newer than the last synced one (and
    /// every append and new game) is fsync'd. Every [`CHECKPOINT_INTERVAL_MS`] it also copies
    /// the write-ahead log into the database.
    pub fn heartbeat(&mut self, at_unix_ms: u64) -> Result<(), StoreError> {
        check_time(at_unix_ms)?;
        self.guard()?;
        self.recover()?;
        let sync = self
            .synced_heartbeat
            .is_none_or(|s| at_unix_ms < s || at_unix_ms - s >= HEARTBEAT_SYNC_INTERVAL_MS);
        if !sync && let Err(e) = self.conn.pragma_update(None, "synchronous", "NORMAL") {
            return Err(self.failed(e, "setting synchronous=NORMAL"));
        }
        let written = self.conn.execute(
            "INSERT INTO heartbeat (id, at_unix_ms) VALUES (0, ?1) \
             ON CONFLICT (id) DO UPDATE SET at_unix_ms = excluded.at_unix_ms",
            params![at_unix_ms as i64],
        );
        if !sync && let Err(e) = self.conn.pragma_update(None, "synchronous", "FULL") {
            // Appends must never run unsynced: the next operation reopens the connection.
            return Err(self.failed(e, "restoring synchronous=FULL"));
        }
        if let Err(e) = written {
            return Err(self.failed(e, "writing the heartbeat"));
        }
        self.last_heartbeat = Some(at_unix_ms);
        if sync {
            self.synced_heartbeat = Some(at_unix_ms);
        }
        let due = self
            .last_checkpoint
            .is_none_or(|c| at_unix_ms < c || at_unix_ms - c >= CHECKPOINT_INTERVAL_MS);
        if due {
            self.checkpoint()?;
            self.last_checkpoint = Some(at_unix_ms);
        }
        Ok(())
    }

    /// The last heartbeat stamp recorded (see [`Store::heartbeat`] for its precision).
    pub fn last_heartbeat(&self) -> Option<u64> {
        self.last_heartbeat
    }

    /// Copies the write-ahead log into the database file (a passive checkpoint: it never waits
    /// for readers such as a `sqlite3` shell).
    pub fn checkpoint(&mut self) -> Result<(), StoreError> {
        let result = self
            .conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
        result.map_err(|e| self.failed(e, "checkpointing"))
    }

    /// Writes a finished game's PGN durably to `<state_dir>/games/<table>-<game>.pgn` (a temp
    /// file, fsync'd, renamed over any earlier export, the directory fsync'd). A table name that
    /// is not plain `[A-Za-z0-9_-]` has the others replaced by `_` and a hash of the real name
    /// appended, so two tables never share a file.
    pub fn archive_pgn(
        &mut self,
        table: &str,
        game: u64,
        pgn: &str,
    ) -> Result<PathBuf, StoreError> {
        check_table(table)?;
        if pgn.len() > MAX_PGN_BYTES {
            return Err(StoreError::PgnTooLarge {
                table: name_for_error(table),
                game,
                len: pgn.len(),
            });
        }
        self.guard()?;
        let games_dir = self.dir.join(GAMES_DIR);
        let path = archive_path(&self.dir, table, game);
        let name = format!("{}-{game}.pgn", file_stem(table));
        let archive_error = |path: &Path, e: io::Error| StoreError::Archive {
            path: path.to_path_buf(),
            source: Arc::new(e),
        };
        if !games_dir.is_dir() {
            create_dir_0700(&games_dir).map_err(|e| archive_error(&games_dir, e))?;
            sync_dir(&self.dir).map_err(|e| archive_error(&games_dir, e))?;
        }
        let temp = games_dir.join(format!(".{name}.tmp"));
        let write = || -> io::Result<()> {
            let mut file = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&temp)?;
            file.write_all(pgn.as_bytes())?;
            file.sync_all()
        };
        write().map_err(|e| archive_error(&temp, e))?;
        fs::rename(&temp, &path).map_err(|e| archive_error(&path, e))?;
        sync_dir(&games_dir).map_err(|e| archive_error(&games_dir, e))?;
        Ok(path)
    }

    /// Closes the database cleanly: the write-ahead log is checkpointed and removed. Dropping
    /// the store does the same but cannot report an error; nothing acknowledged is lost either
    /// way.
    pub fn close(self) -> Result<(), StoreError> {
        let path = self.path.clone();
        self.conn
            .close()
            .map_err(|(_, e)| classify(&path, e, "closing"))
    }

    /// Reads the caches (current game per table, last heartbeat) from the database.
    fn load_caches(&mut self) -> Result<(), StoreError> {
        let path = &self.path;
        let mut games = HashMap::new();
        {
            let mut stmt = self
                .conn
                .prepare("SELECT table_name, max(game) FROM games GROUP BY table_name")
                .map_err(|e| classify(path, e, "reading the games"))?;
            let rows = stmt
                .query_map([], |row| {
                    Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?))
                })
                .map_err(|e| classify(path, e, "reading the games"))?;
            for row in rows {
                let (table, game) = row.map_err(|e| corrupt_or(path, e, "reading the games"))?;
                let game = u64::try_from(game).map_err(|_| StoreError::Corrupt {
                    path: path.clone(),
                    detail: format!("table {table:?} has game number {game}"),
                })?;
                games.insert(table, game);
            }
        }
        let heartbeat: Option<i64> =
            match self
                .conn
                .query_row("SELECT at_unix_ms FROM heartbeat WHERE id = 0", [], |row| {
                    row.get(0)
                }) {
                Ok(at) => Some(at),
                Err(rusqlite::Error::QueryReturnedNoRows) => None,
                Err(e) => return Err(corrupt_or(path, e, "reading the heartbeat")),
            };
        let heartbeat = heartbeat
            .map(|at| {
                u64::try_from(at).map_err(|_| StoreError::Corrupt {
                    path: path.clone(),
                    detail: format!("the heartbeat is {at}"),
                })
            })
            .transpose()?;
        self.games = games;
        self.last_heartbeat = heartbeat;
        self.synced_heartbeat = heartbeat;
        Ok(())
    }

    /// Maps a failed write and marks the connection for reopening when the failure may have
    /// left it in a doubtful state (an I/O error: after a failed fsync Linux may have dropped
    /// the dirty pages, so only what a fresh connection reads back from the disk is trusted).
    fn failed(&mut self, e: rusqlite::Error, doing: &'static str) -> StoreError {
        let error = classify(&self.path, e, doing);
        if !matches!(error, StoreError::DiskFull { .. }) {
            self.suspect = true;
        }
        error
    }

    /// Reopens a suspect connection before the next operation.
    fn recover(&mut self) -> Result<(), StoreError> {
        if !self.suspect {
            return Ok(());
        }
        let conn = open_connection(&self.path)?;
        self.conn = conn;
        self.load_caches()?;
        self.suspect = false;
        Ok(())
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
    let not_writable = |e: io::Error| StoreError::NotWritable {
        path: dir.to_path_buf(),
        source: Arc::new(e),
    };
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
    let (seq, games): (i64, i64) = conn.query_row(
        "SELECT (SELECT coalesce(max(seq), 0) FROM journal), (SELECT count(*) FROM games)",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    Ok(Mark {
        last_seq: u64::try_from(seq).unwrap_or(0),
        games: u64::try_from(games).unwrap_or(0),
    })
}

/// SQLite's write-ahead log beside `journal`.
fn wal_path(journal: &Path) -> PathBuf {
    let mut name = journal.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

/// Creates an empty journal at `path` whole: built under a temporary name, closed (its log
/// checkpointed into it), synced and renamed, so a crash never leaves a journal file without
/// its schema — an empty file at `path` is never one of ours and is refused.
fn create_journal(path: &Path) -> Result<(), StoreError> {
    let mut name = path.as_os_str().to_owned();
    name.push(".new");
    let temp = PathBuf::from(name);
    for stale in [temp.clone(), wal_path(&temp), {
        let mut shm = temp.as_os_str().to_owned();
        shm.push("-shm");
        PathBuf::from(shm)
    }] {
        match fs::remove_file(&stale) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                return Err(StoreError::NotWritable {
                    path: stale,
                    source: Arc::new(e),
                });
            }
            _ => {}
        }
    }
    let conn = open_connection(&temp)?;
    conn.close()
        .map_err(|(_, e)| classify(&temp, e, "closing the new journal"))?;
    let io_error = |e: io::Error| StoreError::NotWritable {
        path: path.to_path_buf(),
        source: Arc::new(e),
    };
    File::open(&temp)
        .and_then(|f| f.sync_all())
        .map_err(io_error)?;
    fs::rename(&temp, path).map_err(io_error)
}

/// Opens (creating if needed) the database and checks it is an annabella journal this code can
/// read, in WAL mode with full sync.
fn open_connection(path: &Path) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn =
        Connection::open_with_flags(path, flags).map_err(|e| classify(path, e, "opening"))?;
    // The first statement reads the header: a file that is not SQLite fails here.
    let app_id: i64 = conn
        .pragma_query_value(None, "application_id", |r| r.get(0))
        .map_err(|e| classify(path, e, "reading the header"))?;
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(|e| classify(path, e, "reading the header"))?;
    let objects: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
        .map_err(|e| classify(path, e, "reading the schema"))?;
    let fresh = objects == 0 && app_id == 0 && version == 0;
    if !fresh {
        if app_id != APPLICATION_ID {
            return Err(StoreError::ForeignDatabase {
                path: path.to_path_buf(),
                found: app_id,
            });
        }
        if version != SCHEMA_VERSION {
            return Err(StoreError::UnsupportedSchema {
                path: path.to_path_buf(),
                found: version,
            });
        }
    }
    let mode: String = conn
        .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
        .map_err(|e| classify(path, e, "setting journal_mode=WAL"))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Corrupt {
            path: path.to_path_buf(),
            detail: format!(
                "journal_mode is {mode}, WAL is needed (is the state directory on a network file system?)"
            ),
        });
    }
    let setting = |name: &'static str, value: i64| {
        conn.pragma_update(None, name, value)
            .map_err(|e| classify(path, e, "applying settings"))
    };
    // FULL = 2: the log is fsync'd at every commit, not only at checkpoints.
    setting("synchronous", 2)?;
    setting("wal_autocheckpoint", WAL_AUTOCHECKPOINT_PAGES)?;
    setting("journal_size_limit", JOURNAL_SIZE_LIMIT_BYTES)?;
    let sync: i64 = conn
        .pragma_query_value(None, "synchronous", |r| r.get(0))
        .map_err(|e| classify(path, e, "applying settings"))?;
    if sync != 2 {
        return Err(StoreError::Corrupt {
            path: path.to_path_buf(),
            detail: format!("synchronous is {sync} after setting FULL (2)"),
        });
    }
    if fresh {
        let create = || -> rusqlite::Result<()> {
            conn.execute_batch(&format!(
                "BEGIN IMMEDIATE; {SCHEMA} PRAGMA application_id = {APPLICATION_ID}; \
                 PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
            ))
        };
        if let Err(e) = create() {
            let _ = conn.execute_batch("ROLLBACK");
            return Err(classify(path, e, "creating the schema"));
        }
    } else {
        let problems = quick_check(&conn).map_err(|e| classify(path, e, "checking"))?;
        if !problems.is_empty() {
            return Err(StoreError::Corrupt {
                path: path.to_path_buf(),
                detail: problems.join("; "),
            });
        }
    }
    Ok(conn)
}

/// `PRAGMA quick_check`: the first few problems, empty when the file is sound. It reads every
/// page once (milliseconds for a journal of megabytes).
fn quick_check(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("PRAGMA quick_check(5)")?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
    let mut problems = Vec::new();
    for row in rows {
        let row = row?;
        if row != "ok" {
            problems.push(row);
        }
    }
    Ok(problems)
}

/// Names what went wrong with the journal in the user's terms.
fn classify(path: &Path, e: rusqlite::Error, doing: &'static str) -> StoreError {
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
fn corrupt_or(path: &Path, e: rusqlite::Error, doing: &'static str) -> StoreError {
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

fn name_for_error(name: &str) -> String {
    name.chars().take(NAME_IN_ERROR_CHARS).collect()
}

fn check_table(table: &str) -> Result<(), StoreError> {
    match crate::table::name::TableName::new(table) {
        Ok(_) => Ok(()),
        Err(e) => Err(StoreError::BadTableName {
            name: name_for_error(table),
            problem: e.problem,
        }),
    }
}

fn check_time(at: u64) -> Result<(), StoreError> {
    if i64::try_from(at).is_err() {
        return Err(StoreError::TimeOutOfRange { at });
    }
    Ok(())
}

fn check_entry(table: &str, at: u64, line: &str) -> Result<(), StoreError> {
    check_table(table)?;
    check_time(at)?;
    if line.is_empty() {
        return Err(StoreError::EmptyLine {
            table: table.to_owned(),
        });
    }
    if line.len() > MAX_LINE_BYTES {
        return Err(StoreError::LineTooLong {
            table: table.to_owned(),
            len: line.len(),
        });
    }
    if let Some(at) = line.find(['\n', '\r', '\0']) {
        return Err(StoreError::LineNotOneLine {
            table: table.to_owned(),
            at,
        });
    }
    Ok(())
}

pub use crate::table::name::file_stem;

/// Where [`Store::archive_pgn`] keeps game `game` of `table` in `state_dir`.
pub fn archive_path(state_dir: &Path, table: &str, game: u64) -> PathBuf {
    state_dir
        .join(GAMES_DIR)
        .join(format!("{}-{game}.pgn", file_stem(table)))
}

/// Creates the state directory (and missing parents) readable by its owner only, and makes
/// the new entries durable.
fn create_private_dir(dir: &Path) -> Result<(), StoreError> {
    match fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => return Ok(()),
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
    for created in &missing {
        if let Some(parent) = created.parent().filter(|p| !p.as_os_str().is_empty()) {
            sync_dir(parent).map_err(create_error)?;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn create_dir_0700(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(not(unix))]
fn create_dir_0700(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)
}

/// Makes a directory's entries (a created or renamed file) durable.
#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> io::Result<()> {
    // Windows cannot open a directory as a file; NTFS journals its metadata.
    Ok(())
}

/// Takes the state directory's lock file (flock, released by the kernel when the process
/// ends, `kill -9` included) and writes our process id into it for the error of a second one.
fn take_lock(dir: &Path) -> Result<File, StoreError> {
    let path = dir.join(LOCK_FILE);
    let not_writable = |e: io::Error| StoreError::NotWritable {
        path: dir.to_path_buf(),
        source: Arc::new(e),
    };
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(not_writable)?;
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

/// Counters of a [`StoreHandle`]'s thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StoreStats {
    /// Appends recorded.
    pub appends: u64,
    /// Transactions (each one fsync) that recorded them.
    pub commits: u64,
}

type Reply<T> = oneshot::Sender<Result<T, StoreError>>;

enum Request {
    /// Lines of one table, recorded together or not at all.
    Append {
        table: String,
        lines: Vec<(u64, String)>,
        reply: Reply<Vec<u64>>,
    },
    Load {
        table: String,
        game: Option<u64>,
        reply: Reply<Vec<JournalEntry>>,
    },
    /// The next game of a table with its first lines, in one transaction.
    BeginWith {
        table: String,
        lines: Vec<(u64, String)>,
        reply: Reply<u64>,
    },
    BeginGame {
        table: String,
        at: u64,
        reply: Reply<u64>,
    },
    CurrentGame {
        table: String,
        reply: Reply<Option<u64>>,
    },
    Tables {
        reply: Reply<Vec<String>>,
    },
    Heartbeat {
        at: u64,
        reply: Reply<()>,
    },
    LastHeartbeat {
        reply: Reply<Option<u64>>,
    },
    Archive {
        table: String,
        game: u64,
        pgn: String,
        reply: Reply<PathBuf>,
    },
    Close {
        reply: Reply<()>,
    },
}

#[derive(Default)]
struct Counters {
    appends: AtomicU64,
    commits: AtomicU64,
}

/// The journal for the actors: cheap to clone, every call answered by the one thread that owns
/// the [`Store`]. Appends queued while that thread is busy are committed together (group
/// commit). If a call's future is dropped before it resolves, the line may or may not have been
/// recorded, so the caller must not announce it.
#[derive(Clone)]
pub struct StoreHandle {
    requests: mpsc::Sender<Request>,
    counters: Arc<Counters>,
}

impl fmt::Debug for StoreHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreHandle")
            .field("stats", &self.stats())
            .finish()
    }
}

impl StoreHandle {
    /// Moves the store onto a thread of its own (`annabella-journal`).
    pub fn spawn(store: Store) -> Result<StoreHandle, StoreError> {
        let (requests, receiver) = mpsc::channel();
        let counters = Arc::new(Counters::default());
        let thread_counters = Arc::clone(&counters);
        std::thread::Builder::new()
            .name("annabella-journal".to_owned())
            .spawn(move || serve(store, receiver, &thread_counters))
            .map_err(|e| StoreError::Thread {
                source: Arc::new(e),
            })?;
        Ok(StoreHandle { requests, counters })
    }

    /// Appends a line to `table`'s current game; resolves once it is on disk, with its sequence
    /// number. An error means the line is not recorded: refuse the move, announce nothing.
    pub async fn append(
        &self,
        table: &str,
        at_unix_ms: u64,
        line: &str,
    ) -> Result<u64, StoreError> {
        let seqs = self
            .append_all(table, vec![(at_unix_ms, line.to_owned())])
            .await?;
        Ok(seqs[0])
    }

    /// Appends several lines of `table` as one: all are on disk when this resolves, or none
    /// (a table's step with several records must not be half-recorded). Returns their sequence
    /// numbers in order.
    pub async fn append_all(
        &self,
        table: &str,
        lines: Vec<(u64, String)>,
    ) -> Result<Vec<u64>, StoreError> {
        for (at, line) in &lines {
            check_entry(table, *at, line)?;
        }
        if lines.is_empty() {
            return Ok(Vec::new());
        }
        self.ask(|reply| Request::Append {
            table: table.to_owned(),
            lines,
            reply,
        })
        .await
    }

    /// See [`Store::begin_game_with`].
    pub async fn begin_game_with(
        &self,
        table: &str,
        lines: Vec<(u64, String)>,
    ) -> Result<u64, StoreError> {
        check_table(table)?;
        self.ask(|reply| Request::BeginWith {
            table: table.to_owned(),
            lines,
            reply,
        })
        .await
    }

    /// See [`Store::load`].
    pub async fn load(&self, table: &str) -> Result<Vec<JournalEntry>, StoreError> {
        check_table(table)?;
        self.ask(|reply| Request::Load {
            table: table.to_owned(),
            game: None,
            reply,
        })
        .await
    }

    /// See [`Store::load_game`].
    pub async fn load_game(&self, table: &str, game: u64) -> Result<Vec<JournalEntry>, StoreError> {
        check_table(table)?;
        self.ask(|reply| Request::Load {
            table: table.to_owned(),
            game: Some(game),
            reply,
        })
        .await
    }

    /// See [`Store::begin_game`].
    pub async fn begin_game(&self, table: &str, at_unix_ms: u64) -> Result<u64, StoreError> {
        check_table(table)?;
        self.ask(|reply| Request::BeginGame {
            table: table.to_owned(),
            at: at_unix_ms,
            reply,
        })
        .await
    }

    /// See [`Store::current_game`].
    pub async fn current_game(&self, table: &str) -> Result<Option<u64>, StoreError> {
        self.ask(|reply| Request::CurrentGame {
            table: table.to_owned(),
            reply,
        })
        .await
    }

    /// See [`Store::tables`].
    pub async fn tables(&self) -> Result<Vec<String>, StoreError> {
        self.ask(|reply| Request::Tables { reply }).await
    }

    /// See [`Store::heartbeat`].
    pub async fn heartbeat(&self, at_unix_ms: u64) -> Result<(), StoreError> {
        self.ask(|reply| Request::Heartbeat {
            at: at_unix_ms,
            reply,
        })
        .await
    }

    /// See [`Store::last_heartbeat`].
    pub async fn last_heartbeat(&self) -> Result<Option<u64>, StoreError> {
        self.ask(|reply| Request::LastHeartbeat { reply }).await
    }

    /// See [`Store::archive_pgn`]. The journal thread does the file's fsyncs, so appends queued
    /// meanwhile wait for them (a few milliseconds, once per finished game).
    pub async fn archive_pgn(
        &self,
        table: &str,
        game: u64,
        pgn: &str,
    ) -> Result<PathBuf, StoreError> {
        check_table(table)?;
        self.ask(|reply| Request::Archive {
            table: table.to_owned(),
            game,
            pgn: pgn.to_owned(),
            reply,
        })
        .await
    }

    /// Commits what is queued before this call, closes the database (checkpointing the log)
    /// and ends the thread; later calls on any clone fail with [`StoreError::Closed`].
    pub async fn close(&self) -> Result<(), StoreError> {
        self.ask(|reply| Request::Close { reply }).await
    }

    /// Appends and transactions so far; `appends / commits` is the mean group size.
    pub fn stats(&self) -> StoreStats {
        StoreStats {
            appends: self.counters.appends.load(Ordering::Relaxed),
            commits: self.counters.commits.load(Ordering::Relaxed),
        }
    }

    async fn ask<T>(&self, request: impl FnOnce(Reply<T>) -> Request) -> Result<T, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.requests
            .send(request(reply))
            .map_err(|_| StoreError::Closed)?;
        answer.await.unwrap_or(Err(StoreError::Closed))
    }
}

/// The journal thread: takes everything queued, commits the appends among it together (in
/// arrival order, flushed before any other request so that a later `load` sees them), answers
/// each caller. Ends on `close` or when every handle is gone.
fn serve(mut store: Store, requests: mpsc::Receiver<Request>, counters: &Counters) {
    let mut round = Vec::new();
    let mut appends = Vec::new();
    while let Ok(first) = requests.recv() {
        round.push(first);
        while round.len() < MAX_GROUP {
            match requests.try_recv() {
                Ok(request) => round.push(request),
                Err(_) => break,
            }
        }
        for request in round.drain(..) {
            let other = match request {
                Request::Append {
                    table,
                    lines,
                    reply,
                } => {
                    appends.push((table, lines, reply));
                    continue;
                }
                other => other,
            };
            commit_group(&mut store, &mut appends, counters);
            match other {
                Request::Append { .. } => {}
                Request::Load { table, game, reply } => {
                    let entries = match game {
                        Some(game) => store.load_game(&table, game),
                        None => store.load(&table),
                    };
                    let _ = reply.send(entries);
                }
                Request::BeginGame { table, at, reply } => {
                    let _ = reply.send(store.begin_game(&table, at));
                }
                Request::BeginWith {
                    table,
                    lines,
                    reply,
                } => {
                    let lines: Vec<(u64, &str)> =
                        lines.iter().map(|(at, l)| (*at, l.as_str())).collect();
                    let _ = reply.send(store.begin_game_with(&table, &lines));
                }
                Request::CurrentGame { table, reply } => {
                    let _ = reply.send(Ok(store.current_game(&table)));
                }
                Request::Tables { reply } => {
                    let _ = reply.send(Ok(store.tables()));
                }
                Request::Heartbeat { at, reply } => {
                    let _ = reply.send(store.heartbeat(at));
                }
                Request::LastHeartbeat { reply } => {
                    let _ = reply.send(Ok(store.last_heartbeat()));
                }
                Request::Archive {
                    table,
                    game,
                    pgn,
                    reply,
                } => {
                    let _ = reply.send(store.archive_pgn(&table, game, &pgn));
                }
                Request::Close { reply } => {
                    // Requests queued behind the close see their reply slot dropped: Closed.
                    let _ = reply.send(store.close());
                    return;
                }
            }
        }
        commit_group(&mut store, &mut appends, counters);
    }
}

/// One transaction for every valid append of the group; an invalid one is answered alone, so
/// it cannot fail the others. One request's lines are valid together or refused together.
/// One table's lines waiting for the group's transaction, with who waits for them.
type PendingAppend = (String, Vec<(u64, String)>, Reply<Vec<u64>>);

fn commit_group(store: &mut Store, appends: &mut Vec<PendingAppend>, counters: &Counters) {
    if appends.is_empty() {
        return;
    }
    let mut valid = Vec::with_capacity(appends.len());
    for (table, lines, reply) in appends.drain(..) {
        match lines
            .iter()
            .try_for_each(|(at, line)| check_entry(&table, *at, line))
        {
            Ok(()) => valid.push((table, lines, reply)),
            Err(e) => {
                let _ = reply.send(Err(e));
            }
        }
    }
    if valid.is_empty() {
        return;
    }
    let items: Vec<(&str, u64, &str)> = valid
        .iter()
        .flat_map(|(table, lines, _)| {
            lines
                .iter()
                .map(move |(at, line)| (table.as_str(), *at, line.as_str()))
        })
        .collect();
    let result = store.append_batch(&items);
    drop(items);
    match result {
        Ok(seqs) => {
            counters.commits.fetch_add(1, Ordering::Relaxed);
            counters
                .appends
                .fetch_add(seqs.len() as u64, Ordering::Relaxed);
            let mut seqs = seqs.into_iter();
            for (_, lines, reply) in valid {
                let _ = reply.send(Ok(seqs.by_ref().take(lines.len()).collect()));
            }
        }
        Err(e) => {
            for (.., reply) in valid {
                let _ = reply.send(Err(e.clone()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("state");
        (tmp, dir)
    }

    fn lines(entries: &[JournalEntry]) -> Vec<&str> {
        entries.iter().map(|e| e.line.as_str()).collect()
    }

    #[test]
    fn lines_come_back_in_order_after_a_reopen() {
        let (_tmp, dir) = state();
        let mut store = Store::open(&dir).unwrap();
        assert!(store.load("table-1").unwrap().is_empty());
        let a = store.append("table-1", 1_000, "start standard").unwrap();
        let b = store.append("table-1", 2_000, "move e2e4 ü").unwrap();
        let c = store
            .append("table-1", 3_000, "press white 299000")
            .unwrap();
        assert!(a < b && b < c);
        let expected = vec![
            JournalEntry {
                seq: a,
                at_unix_ms: 1_000,
                line: "start standard".into(),
            },
            JournalEntry {
                seq: b,
                at_unix_ms: 2_000,
                line: "move e2e4 ü".into(),
            },
            JournalEntry {
                seq: c,
                at_unix_ms: 3_000,
                line: "press white 299000".into(),
            },
        ];
        assert_eq!(store.load("table-1").unwrap(), expected);
        drop(store);
        let store = Store::open(&dir).unwrap();
        assert_eq!(store.load("table-1").unwrap(), expected);
        assert_eq!(store.current_game("table-1"), Some(1));
        assert_eq!(store.tables(), vec!["table-1".to_owned()]);
    }

    #[test]
    fn tables_keep_their_own_lines() {
        let (_tmp, dir) = state();
        let mut store = Store::open(&dir).unwrap();
        for i in 0..30u64 {
            let table = ["b", "a", "c"][i as usize % 3];
            store.append(table, i, &format!("{table} {i}")).unwrap();
        }
        let seqs = store
            .append_batch(&[
                ("a", 100, "a batch"),
                ("d", 100, "d batch"),
                ("a", 101, "a two"),
                ("d", 101, "d two"),
            ])
            .unwrap();
        assert_eq!(seqs.len(), 4);
        assert!(seqs.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(store.tables(), vec!["a", "b", "c", "d"]);
        let a = store.load("a").unwrap();
        assert_eq!(a.len(), 12);
        assert_eq!(a[0].line, "a 1");
        assert_eq!(a[9].line, "a 28");
        assert_eq!(lines(&a[10..]), vec!["a batch", "a two"]);
        assert!(a.windows(2).all(|w| w[0].seq < w[1].seq));
        assert_eq!(lines(&store.load("d").unwrap()), vec!["d batch", "d two"]);
        assert_eq!(store.current_game("d"), Some(1));
        assert!(store.load("e").unwrap().is_empty());
        assert_eq!(store.append_batch(&[]).unwrap(), Vec::<u64>::new());
    }

    #[test]
    fn a_new_game_hides_the_old_lines_but_keeps_them() {
        let (_tmp, dir) = state();
        let mut store = Store::open(&dir).unwrap();
        assert_eq!(store.begin_game("fresh", 5).unwrap(), 1);
        assert_eq!(store.tables(), vec!["fresh"]);
        store.append("t", 1, "one").unwrap();
        store.append("t", 2, "two").unwrap();
        assert_eq!(store.begin_game("t", 3).unwrap(), 2);
        assert!(store.load("t").unwrap().is_empty());
        store.append("t", 4, "three").unwrap();
        assert_eq!(lines(&store.load("t").unwrap()), vec!["three"]);
        assert_eq!(lines(&store.load_game("t", 1).unwrap()), vec!["one", "two"]);
        assert_eq!(store.begin_game("t", 5).unwrap(), 3);
        drop(store);
        let store = Store::open(&dir).unwrap();
        assert_eq!(store.current_game("t"), Some(3));
        assert!(store.load("t").unwrap().is_empty());
        assert_eq!(lines(&store.load_game("t", 2).unwrap()), vec!["three"]);
        assert!(store.load_game("t", 99).unwrap().is_empty());
        assert!(store.load_game("t", u64::MAX).unwrap().is_empty());
    }

    #[test]
    fn bad_names_lines_and_times_are_errors_and_nothing_is_written() {
        let (_tmp, dir) = state();
        let mut store = Store::open(&dir).unwrap();
        let long_name = "n".repeat(MAX_TABLE_NAME_BYTES + 1);
        let long_line = "x".repeat(MAX_LINE_BYTES + 1);
        let huge = "y".repeat(10 << 20);
        let cases: Vec<(&str, u64, &str)> = vec![
            ("", 1, "line"),
            (&long_name, 1, "line"),
            ("a\tb", 1, "line"),
            ("t", 1, ""),
            ("t", 1, &long_line),
            ("t", 1, &huge),
            ("t", 1, "two\nlines"),
            ("t", 1, "carriage\rreturn"),
            ("t", 1, "nul\0byte"),
            ("t", u64::MAX, "line"),
        ];
        for (table, at, line) in &cases {
            let e = store.append(table, *at, line).unwrap_err();
            let message = e.to_string();
            assert!(message.len() < 400, "{message}");
            assert!(!message.contains('\n'), "{message}");
        }
        let e = store
            .append_batch(&[("t", 1, "fine"), ("t", 2, "not\nfine")])
            .unwrap_err();
        assert!(matches!(e, StoreError::LineNotOneLine { at: 3, .. }), "{e}");
        assert!(store.load("t").unwrap().is_empty());
        assert!(store.tables().is_empty());
        assert!(store.begin_game(&long_name, 1).is_err());
        assert!(store.load(&long_name).is_err());
        assert!(store.heartbeat(u64::MAX).is_err());
        assert!(matches!(
            store.archive_pgn("t", 1, &huge),
            Err(StoreError::PgnTooLarge { .. })
        ));
        // The limits themselves are accepted.
        let name = "n".repeat(MAX_TABLE_NAME_BYTES);
        let line = "é".repeat(MAX_LINE_BYTES / 2);
        store.append(&name, i64::MAX as u64, &line).unwrap();
        assert_eq!(store.load(&name).unwrap()[0].line, line);
        assert_eq!(store.load(&name).unwrap()[0].at_unix_ms, i64::MAX as u64);
    }

    #[test]
    fn garbage_in_the_journal_file_is_named_not_a_panic() {
        let (_tmp, dir) = state();
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join(JOURNAL_FILE);
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let garbage: Vec<u8> = (0..16_384)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        fs::write(&path, &garbage).unwrap();
        let e = Store::open(&dir).unwrap_err();
        assert!(matches!(e, StoreError::NotAJournal { .. }), "{e}");
        assert!(e.to_string().contains(&path.display().to_string()), "{e}");
        // The file is left as it was, for the user to move aside.
        assert_eq!(fs::read(&path).unwrap(), garbage);
        fs::write(&path, "SQLite format 3\0 but then nothing").unwrap();
        assert!(Store::open(&dir).is_err());
    }

    #[test]
    fn damaged_pages_are_reported_as_damage() {
        let (_tmp, dir) = state();
        let mut store = Store::open(&dir).unwrap();
        for i in 0..2_000u64 {
            store
                .append("t", i, &format!("move {i} {}", "z".repeat(100)))
                .unwrap();
        }
        store.close().unwrap();
        let path = dir.join(JOURNAL_FILE);
        let mut bytes = fs::read(&path).unwrap();
        assert!(bytes.len() > 40_000);
        // Overwrite pages in the middle (the header and schema page stay intact).
        for (i, b) in bytes[8_192..40_000].iter_mut().enumerate() {
            *b = (i * 7 + 3) as u8;
        }
        fs::write(&path, &bytes).unwrap();
        let e = match Store::open(&dir) {
            Err(e) => e,
            Ok(store) => store.load("t").unwrap_err(),
        };
        assert!(matches!(e, StoreError::Corrupt { .. }), "{e}");
        assert!(e.to_string().contains("is damaged"), "{e}");
    }

    #[test]
    fn another_programs_database_and_a_newer_schema_are_refused() {
        let (_tmp, dir) = state();
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join(JOURNAL_FILE);
        let other = Connection::open(&path).unwrap();
        other.execute_batch("CREATE TABLE t (x INTEGER)").unwrap();
        drop(other);
        let e = Store::open(&dir).unwrap_err();
        assert!(
            matches!(e, StoreError::ForeignDatabase { found: 0, .. }),
            "{e}"
        );
        fs::remove_file(&path).unwrap();

        Store::open(&dir).unwrap().close().unwrap();
        let newer = Connection::open(&path).unwrap();
        newer.pragma_update(None, "user_version", 2).unwrap();
        drop(newer);
        let e = Store::open(&dir).unwrap_err();
        assert!(
            matches!(e, StoreError::UnsupportedSchema { found: 2, .. }),
            "{e}"
        );
        assert!(e.to_string().contains("schema version 2"), "{e}");
    }

    #[test]
    fn a_second_daemon_on_the_same_directory_is_refused() {
        let (_tmp, dir) = state();
        let first = Store::open(&dir).unwrap();
        let e = Store::open(&dir).unwrap_err();
        assert!(matches!(e, StoreError::Locked { .. }), "{e}");
        assert!(
            e.to_string()
                .contains(&format!("process {}", std::process::id())),
            "{e}"
        );
        drop(first);
        Store::open(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn created_directories_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let (tmp, _) = state();
        let dir = tmp.path().join("deep/er/state");
        let mut store = Store::open(&dir).unwrap();
        for d in [
            tmp.path().join("deep"),
            tmp.path().join("deep/er"),
            dir.clone(),
        ] {
            let mode = fs::metadata(&d).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "{}", d.display());
        }
        store.archive_pgn("t", 1, "1. e4 *\n").unwrap();
        let mode = fs::metadata(dir.join(GAMES_DIR))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o700);
        // An existing directory keeps the mode its owner gave it.
        drop(store);
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o750)).unwrap();
        Store::open(&dir).unwrap();
        let mode = fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o750);
    }

    #[test]
    fn a_file_where_the_directory_should_be_is_named() {
        let (tmp, _) = state();
        let file = tmp.path().join("file");
        fs::write(&file, "x").unwrap();
        let e = Store::open(&file).unwrap_err();
        assert!(matches!(e, StoreError::NotADirectory { .. }), "{e}");
        let e = Store::open(&file.join("below")).unwrap_err();
        assert!(matches!(e, StoreError::CreateDir { .. }), "{e}");
        assert!(e.to_string().contains("file/below"), "{e}");
        let dir = tmp.path().join("state");
        fs::create_dir_all(dir.join(JOURNAL_FILE)).unwrap();
        let e = Store::open(&dir).unwrap_err();
        assert!(matches!(e, StoreError::NotAJournal { .. }), "{e}");
    }

    /// The env var under which this test binary, re-run as an unprivileged user, checks the
    /// unwritable directory (root writes anywhere, so root cannot check it itself).
    const UNWRITABLE_ENV: &str = "ANNABELLA_STORE_TEST_UNWRITABLE";

    fn check_unwritable(dir: &Path) {
        let e = Store::open(dir).unwrap_err();
        assert!(matches!(e, StoreError::NotWritable { .. }), "{e}");
        let message = e.to_string();
        assert!(message.contains(&dir.display().to_string()), "{message}");
        assert!(message.contains("make it writable"), "{message}");
        let e = Store::open(&dir.join("sub")).unwrap_err();
        assert!(matches!(e, StoreError::CreateDir { .. }), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn an_unwritable_directory_is_named() {
        use std::os::unix::fs::PermissionsExt;
        use std::os::unix::process::CommandExt;
        if let Some(dir) = std::env::var_os(UNWRITABLE_ENV) {
            check_unwritable(Path::new(&dir));
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let dir = tmp.path().join("read-only");
        fs::create_dir(&dir).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o555)).unwrap();
        if File::create(dir.join("probe")).is_err() {
            check_unwritable(&dir);
            return;
        }
        // Privileged: re-run this very test as `nobody`.
        let _ = fs::remove_file(dir.join("probe"));
        let exe = std::env::current_exe().unwrap();
        let output = std::process::Command::new(exe)
            .args([
                "--exact",
                "io::store::tests::an_unwritable_directory_is_named",
            ])
            .arg("--nocapture")
            .env(UNWRITABLE_ENV, &dir)
            .uid(65534)
            .gid(65534)
            .output();
        match output {
            Ok(out) => {
                let stdout = String::from_utf8_lossy(&out.stdout);
                assert!(
                    out.status.success() && stdout.contains("1 passed"),
                    "as nobody: {stdout}\n{}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            Err(e) => eprintln!("skipped: cannot run the test as nobody: {e}"),
        }
    }

    #[test]
    fn heartbeats_are_kept() {
        let (_tmp, dir) = state();
        let mut store = Store::open(&dir).unwrap();
        assert_eq!(store.last_heartbeat(), None);
        for at in (1_000..40_000).step_by(1_000) {
            store.heartbeat(at).unwrap();
        }
        assert_eq!(store.last_heartbeat(), Some(39_000));
        store.append("t", 39_500, "line").unwrap();
        store.heartbeat(40_000).unwrap();
        drop(store);
        let mut store = Store::open(&dir).unwrap();
        assert_eq!(store.last_heartbeat(), Some(40_000));
        // A clock stepped back is recorded as given.
        store.heartbeat(500).unwrap();
        assert_eq!(store.last_heartbeat(), Some(500));
        let sync: i64 = store
            .conn
            .pragma_query_value(None, "synchronous", |r| r.get(0))
            .unwrap();
        assert_eq!(sync, 2, "appends after a heartbeat are fully synced");
    }

    #[test]
    fn a_heartbeat_is_synced_when_the_last_synced_one_is_ten_seconds_old() {
        let (_tmp, dir) = state();
        let mut store = Store::open(&dir).unwrap();
        store.heartbeat(100_000).unwrap();
        assert_eq!(
            store.synced_heartbeat,
            Some(100_000),
            "the first one is synced"
        );
        store.heartbeat(101_000).unwrap();
        store.heartbeat(109_999).unwrap();
        assert_eq!(store.synced_heartbeat, Some(100_000));
        assert_eq!(store.last_heartbeat(), Some(109_999));
        store.heartbeat(110_000).unwrap();
        assert_eq!(store.synced_heartbeat, Some(110_000));
        store.heartbeat(111_000).unwrap();
        store.append("t", 111_500, "a move syncs the log").unwrap();
        assert_eq!(store.synced_heartbeat, Some(111_000));
    }

    #[test]
    fn games_are_archived_under_safe_names() {
        let (_tmp, dir) = state();
        let mut store = Store::open(&dir).unwrap();
        let pgn = "[Event \"Club\"]\n\n1. e4 e5 *\n";
        let path = store.archive_pgn("table-1", 3, pgn).unwrap();
        assert_eq!(path, dir.join("games/table-1-3.pgn"));
        assert_eq!(fs::read_to_string(&path).unwrap(), pgn);
        store.archive_pgn("table-1", 3, "1. d4 *\n").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "1. d4 *\n");
        let odd = store.archive_pgn("../Tisch-ä/", 1, pgn).unwrap();
        assert_eq!(odd.parent().unwrap(), dir.join(GAMES_DIR));
        let name = odd.file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with("___Tisch-__-"), "{name}");
        assert!(name.ends_with("-1.pgn"), "{name}");
        let names: Vec<_> = fs::read_dir(dir.join(GAMES_DIR))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names.len(), 2, "no temp files left: {names:?}");
    }

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
    fn the_handle_can_go_to_any_task_and_the_store_to_its_thread() {
        fn handle<T: Clone + Send + Sync + 'static>() {}
        fn store<T: Send + 'static>() {}
        handle::<StoreHandle>();
        store::<Store>();
        store::<StoreError>();
    }

    #[test]
    fn the_handle_answers_and_closes() {
        let (_tmp, dir) = state();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let handle = StoreHandle::spawn(Store::open(&dir).unwrap()).unwrap();
            let other = handle.clone();
            let a = handle.append("t", 1, "one").await.unwrap();
            let b = other.append("t", 2, "two").await.unwrap();
            assert!(a < b);
            assert!(handle.append("t", 3, "bad\nline").await.is_err());
            assert_eq!(lines(&handle.load("t").await.unwrap()), vec!["one", "two"]);
            assert_eq!(handle.begin_game("t", 4).await.unwrap(), 2);
            assert_eq!(handle.current_game("t").await.unwrap(), Some(2));
            assert!(handle.load("t").await.unwrap().is_empty());
            assert_eq!(
                lines(&handle.load_game("t", 1).await.unwrap()),
                vec!["one", "two"]
            );
            assert_eq!(handle.tables().await.unwrap(), vec!["t"]);
            handle.heartbeat(5).await.unwrap();
            assert_eq!(handle.last_heartbeat().await.unwrap(), Some(5));
            let path = handle.archive_pgn("t", 1, "1. e4 *\n").await.unwrap();
            assert!(path.exists());
            assert_eq!(handle.stats().appends, 2);
            handle.close().await.unwrap();
            assert!(matches!(
                other.append("t", 6, "late").await,
                Err(StoreError::Closed)
            ));
            assert!(matches!(handle.close().await, Err(StoreError::Closed)));
        });
        // Closed cleanly: the log was checkpointed into the database and removed.
        assert!(!dir.join(format!("{JOURNAL_FILE}-wal")).exists());
        let store = Store::open(&dir).unwrap();
        assert_eq!(lines(&store.load_game("t", 1).unwrap()), vec!["one", "two"]);
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// Any table name and any line: recorded exactly as given, or refused with an error
        /// message of one line; never a panic.
        #[test]
        fn any_input_is_recorded_exactly_or_refused(
            table in "\\PC{0,70}|[\\x00-\\x7f]{0,10}",
            line in "\\PC{0,300}|[\\x00-\\x7f]{0,40}|x{4090,4100}",
            at in prop_oneof![any::<u64>(), 0..=i64::MAX as u64],
        ) {
            let tmp = tempfile::tempdir().unwrap();
            let mut store = Store::open(tmp.path()).unwrap();
            match store.append(&table, at, &line) {
                Ok(seq) => {
                    let entries = store.load(&table).unwrap();
                    prop_assert_eq!(entries, vec![JournalEntry { seq, at_unix_ms: at, line }]);
                }
                Err(e) => {
                    let message = e.to_string();
                    prop_assert!(!message.is_empty() && !message.contains('\n'), "{}", message);
                    prop_assert!(store.tables().is_empty());
                }
            }
        }
    }
}
