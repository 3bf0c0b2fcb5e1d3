//! [`Store`]: the journal of one state directory, opened by one process at a time. Lines are
//! appended to a table's current game, games begun, lines loaded back in order, the heartbeat
//! stamped and finished games archived; every write is durable when it returns, or refused with
//! nothing recorded.
//!
//! All writes of records go through one path (`Store::write`): refused once the state directory
//! is no longer the one opened, run on a connection trusted afresh after an I/O error, committed
//! in one transaction (one fsync), checked again after the commit, then witnessed by the mark.

use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, Transaction, TransactionBehavior, params};

use super::archive;
use super::connection::open_connection;
use super::entry::{JournalEntry, check_entry, check_table, check_time};
use super::error::{StoreError, classify, corrupt_or};
use super::identity::Identity;
use super::mark::{Mark, MarkFile};
use super::open::{self, Opened};
use super::schema;

#[cfg(test)]
mod tests;

/// One table's sign of life at a heartbeat: its table time, and the boot and boot-time clock
/// it was read in (`io::clock`), so that a restart measures its gap without the wall clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alive {
    pub table: String,
    /// The table's time (monotonic, continued from its journal) at the heartbeat.
    pub table_ms: u64,
    /// The heartbeat's wall time (filled in when read back).
    pub at_unix_ms: u64,
    /// `/proc/sys/kernel/random/boot_id` when it was read, if the system has one.
    pub boot_id: Option<String>,
    /// `CLOCK_BOOTTIME` in milliseconds when it was read, if the system has one.
    pub boot_ms: Option<u64>,
}

/// A heartbeat is fsync'd when the last synced one is at least this old (or by any append);
/// the others only reach the operating system. See [`Store::heartbeat`].
pub const HEARTBEAT_SYNC_INTERVAL_MS: u64 = 10_000;
/// The write-ahead log is copied into the database by the heartbeat this often, off the path
/// of the appends (SQLite's own automatic checkpoint would stall whichever commit crossed its
/// threshold).
pub const CHECKPOINT_INTERVAL_MS: u64 = 60_000;

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
    /// The witness of what the journal held after the last commit (see `mark.rs`).
    mark: MarkFile,
    marked: Mark,
    /// Once the state directory was found gone, every write is refused with this.
    gone: Option<StoreError>,
}

/// What a committed write added: the highest record it wrote and the games it began, for the
/// mark and the cache of current games.
#[derive(Default)]
struct Added {
    last_seq: Option<u64>,
    games: Vec<(String, u64)>,
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
        let Opened {
            conn,
            dir,
            path,
            lock,
            identity,
            mark,
            marked,
        } = open::open(state_dir)?;
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
        archive::remove_interrupted(&store.dir);
        Ok(store)
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
        self.append_checked(items)
    }

    /// [`Store::append_batch`] of lines already checked with `check_entry` (the handle's thread
    /// checks each request's lines on their own, so that one bad request fails alone).
    pub(super) fn append_checked(
        &mut self,
        items: &[(&str, u64, &str)],
    ) -> Result<Vec<u64>, StoreError> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        self.write("appending", |tx, games| {
            let mut insert = tx.prepare_cached(schema::INSERT_LINE)?;
            let mut start = tx.prepare_cached(schema::INSERT_FIRST_GAME)?;
            let mut added = Added::default();
            let mut seqs = Vec::with_capacity(items.len());
            for &(table, at, line) in items {
                let game = match games.get(table) {
                    Some(&game) => game,
                    // A table's first line begins its first game.
                    None => {
                        if !added.games.iter().any(|(t, _)| t == table) {
                            start.execute(params![table, 1, at as i64])?;
                            added.games.push((table.to_owned(), 1));
                        }
                        1
                    }
                };
                insert.execute(params![table, game as i64, at as i64, line])?;
                seqs.push(tx.last_insert_rowid() as u64);
            }
            added.last_seq = seqs.last().copied();
            Ok((seqs, added))
        })
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
            .prepare_cached(schema::SELECT_GAME_LINES)
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
        self.start_game(table, at_unix_ms, &[])
    }

    /// Starts the next game of `table` with its first lines, in one transaction: the new game
    /// and its lines are recorded together or not at all. Returns the new game's number.
    pub fn begin_game_with(
        &mut self,
        table: &str,
        lines: &[(u64, &str)],
    ) -> Result<u64, StoreError> {
        let started = lines.first().map_or(0, |(at, _)| *at);
        self.start_game(table, started, lines)
    }

    fn start_game(
        &mut self,
        table: &str,
        started: u64,
        lines: &[(u64, &str)],
    ) -> Result<u64, StoreError> {
        check_table(table)?;
        for (at, line) in lines {
            check_entry(table, *at, line)?;
        }
        check_time(started)?;
        self.write("starting a game", |tx, games| {
            let game = games.get(table).map_or(1, |g| g + 1);
            tx.execute(
                schema::INSERT_GAME,
                params![table, game as i64, started as i64],
            )?;
            let mut insert = tx.prepare_cached(schema::INSERT_LINE)?;
            let mut last_seq = None;
            for (at, line) in lines {
                insert.execute(params![table, game as i64, *at as i64, line])?;
                last_seq = Some(tx.last_insert_rowid() as u64);
            }
            let games = vec![(table.to_owned(), game)];
            Ok((game, Added { last_seq, games }))
        })
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
        self.heartbeat_with(at_unix_ms, &[])
    }

    /// [`Store::heartbeat`] with each running table's own sign of life ([`Alive`]), written
    /// with the same durability.
    pub fn heartbeat_with(&mut self, at_unix_ms: u64, alive: &[Alive]) -> Result<(), StoreError> {
        check_time(at_unix_ms)?;
        for a in alive {
            check_table(&a.table)?;
            check_time(a.table_ms)?;
            check_time(a.boot_ms.unwrap_or(0))?;
        }
        self.guard()?;
        self.recover()?;
        let sync = self
            .synced_heartbeat
            .is_none_or(|s| at_unix_ms < s || at_unix_ms - s >= HEARTBEAT_SYNC_INTERVAL_MS);
        if !sync && let Err(e) = self.conn.pragma_update(None, "synchronous", "NORMAL") {
            return Err(self.failed(e, "setting synchronous=NORMAL"));
        }
        let written = self
            .conn
            .execute(schema::UPSERT_HEARTBEAT, params![at_unix_ms as i64])
            .and_then(|_| {
                for a in alive {
                    // The game it belongs to: a table time from another game is no sign of
                    // this one's life (a new game's table time starts again).
                    let game = self.games.get(&a.table).copied().unwrap_or(0);
                    self.conn.execute(
                        schema::UPSERT_ALIVE,
                        params![
                            a.table,
                            game as i64,
                            a.table_ms as i64,
                            at_unix_ms as i64,
                            a.boot_id,
                            a.boot_ms.map(|b| b as i64)
                        ],
                    )?;
                }
                Ok(())
            });
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

    /// `table`'s sign of life in its current game at the last heartbeat that had it running,
    /// if any.
    pub fn last_alive(&self, table: &str) -> Result<Option<Alive>, StoreError> {
        use rusqlite::OptionalExtension;
        let Some(game) = self.current_game(table) else {
            return Ok(None);
        };
        let row = self
            .conn
            .query_row(schema::SELECT_ALIVE, params![table, game as i64], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, Option<String>>(2)?,
                    row.get::<_, Option<i64>>(3)?,
                ))
            })
            .optional()
            .map_err(|e| corrupt_or(&self.path, e, "reading the signs of life"))?;
        Ok(row.map(|(table_ms, at, boot_id, boot_ms)| Alive {
            table: table.to_owned(),
            table_ms: u64::try_from(table_ms).unwrap_or(0),
            at_unix_ms: u64::try_from(at).unwrap_or(0),
            boot_id,
            boot_ms: boot_ms.and_then(|b| u64::try_from(b).ok()),
        }))
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
        archive::check(table, game, pgn)?;
        self.guard()?;
        archive::write(&self.dir, table, game, pgn)
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

    /// Every write of records and games: refused when the state directory is gone, on a
    /// connection reopened if it is suspect, `f` run in one immediate transaction (one fsync
    /// at its commit) with the current games, the directory checked again after the commit;
    /// then the mark and the caches take in what `f` says it added.
    fn write<T>(
        &mut self,
        doing: &'static str,
        f: impl FnOnce(&Transaction<'_>, &HashMap<String, u64>) -> rusqlite::Result<(T, Added)>,
    ) -> Result<T, StoreError> {
        self.guard()?;
        self.recover()?;
        let games = &self.games;
        let result = (|| {
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            let out = f(&tx, games)?;
            tx.commit()?;
            Ok(out)
        })();
        let (out, added) = result.map_err(|e| self.failed(e, doing))?;
        self.guard_after()?;
        // A failed write of the mark only leaves it behind the journal, which the check at
        // start allows.
        if let Some(seq) = added.last_seq {
            self.marked.last_seq = self.marked.last_seq.max(seq);
        }
        self.marked.games += added.games.len() as u64;
        let _ = self.mark.write(self.marked);
        self.games.extend(added.games);
        // The commit synced the whole log, the heartbeat frames before it included.
        self.synced_heartbeat = self.last_heartbeat;
        Ok(out)
    }

    /// Refuses a write when the state directory or the journal is no longer the one opened:
    /// a commit there would be recorded in a file nobody will read again.
    fn guard(&mut self) -> Result<(), StoreError> {
        if let Some(gone) = &self.gone {
            return Err(gone.clone());
        }
        self.check_identity(false)
    }

    /// After a commit: if the journal went away meanwhile, the commit is not where anyone will
    /// read it, so it must not be acknowledged. (A path merely unreachable now was checked a
    /// moment before the commit, and the file written is the one opened: that commit stands.)
    fn guard_after(&mut self) -> Result<(), StoreError> {
        self.check_identity(true)
    }

    /// Compares the directory and the journal with those opened; a certain loss refuses every
    /// later write too, an unreachable path only this one (and none after a commit when
    /// `only_certain`).
    fn check_identity(&mut self, only_certain: bool) -> Result<(), StoreError> {
        let Err(lost) = self.identity.check() else {
            return Ok(());
        };
        if only_certain && !lost.is_certain() {
            return Ok(());
        }
        let error = StoreError::StateDirGone {
            dir: self.dir.clone(),
            what: lost.to_string(),
        };
        if lost.is_certain() {
            self.gone = Some(error.clone());
        }
        Err(error)
    }

    /// Reads the caches (current game per table, last heartbeat) from the database.
    fn load_caches(&mut self) -> Result<(), StoreError> {
        let path = &self.path;
        let corrupt = |detail: String| StoreError::Corrupt {
            path: path.clone(),
            detail,
        };
        let mut games = HashMap::new();
        {
            let mut stmt = self
                .conn
                .prepare(schema::SELECT_CURRENT_GAMES)
                .map_err(|e| classify(path, e, "reading the games"))?;
            let rows = stmt
                .query_map([], |row| {
                    Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?))
                })
                .map_err(|e| classify(path, e, "reading the games"))?;
            for row in rows {
                let (table, game) = row.map_err(|e| corrupt_or(path, e, "reading the games"))?;
                let game = u64::try_from(game)
                    .map_err(|_| corrupt(format!("table {table:?} has game number {game}")))?;
                games.insert(table, game);
            }
        }
        let heartbeat = match self
            .conn
            .query_row(schema::SELECT_HEARTBEAT, [], |row| row.get::<_, i64>(0))
        {
            Ok(at) => {
                Some(u64::try_from(at).map_err(|_| corrupt(format!("the heartbeat is {at}")))?)
            }
            Err(rusqlite::Error::QueryReturnedNoRows) => None,
            Err(e) => return Err(corrupt_or(path, e, "reading the heartbeat")),
        };
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
