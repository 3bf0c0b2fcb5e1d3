//! The SQLite connection: a journal file opened (or created whole) and checked to be an
//! annabella journal of a schema this code reads, undamaged, in WAL mode with full sync.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::{Connection, OpenFlags};

use super::error::{StoreError, classify};
use super::schema::{ALIVE_SCHEMA, APPLICATION_ID, SCHEMA, SCHEMA_VERSION};

/// SQLite's automatic checkpoint stays as a backstop when no heartbeat runs (pages of 4 KiB).
const WAL_AUTOCHECKPOINT_PAGES: i64 = 10_000;
/// After a checkpoint the write-ahead log is truncated to this size.
const JOURNAL_SIZE_LIMIT_BYTES: i64 = 8 << 20;

/// SQLite's write-ahead log beside `journal`.
pub(super) fn wal_path(journal: &Path) -> PathBuf {
    with_suffix(journal, "-wal")
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Creates an empty journal at `path` whole: built under a temporary name, closed (its log
/// checkpointed into it), synced and renamed, so a crash never leaves a journal file without
/// its schema — an empty file at `path` is never one of ours and is refused.
pub(super) fn create_journal(path: &Path) -> Result<(), StoreError> {
    let temp = with_suffix(path, ".new");
    for stale in [temp.clone(), wal_path(&temp), with_suffix(&temp, "-shm")] {
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
    let io_error = StoreError::not_writable(path);
    open_to_sync(&temp)
        .and_then(|f| f.sync_all())
        .map_err(io_error)?;
    fs::rename(&temp, path).map_err(io_error)
}

/// Opens a file to sync it: Windows flushes a file only through a handle that may write it.
fn open_to_sync(path: &Path) -> io::Result<File> {
    if cfg!(windows) {
        fs::OpenOptions::new().write(true).open(path)
    } else {
        File::open(path)
    }
}

/// Opens (creating if needed) the database and checks it is an annabella journal this code can
/// read, in WAL mode with full sync.
pub(super) fn open_connection(path: &Path) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn =
        Connection::open_with_flags(path, flags).map_err(|e| classify(path, e, "opening"))?;
    let fresh = check_header(&conn, path)?;
    apply_settings(&conn, path)?;
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
    // Each table's sign of life, beside schema version 1: created when missing.
    conn.execute_batch(ALIVE_SCHEMA)
        .map_err(|e| classify(path, e, "creating the table of signs of life"))?;
    Ok(conn)
}

/// Whether the database is new (nothing in it yet); refuses one of another program or of a
/// schema this code does not read.
fn check_header(conn: &Connection, path: &Path) -> Result<bool, StoreError> {
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
    Ok(fresh)
}

/// WAL mode and full sync, checked as SQLite reports them back (a network file system may
/// refuse WAL).
fn apply_settings(conn: &Connection, path: &Path) -> Result<(), StoreError> {
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
    Ok(())
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
