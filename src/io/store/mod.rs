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
//!
//! The parts, each one idea:
//! - `schema`: the tables, every statement on them, and how a journal file is told apart.
//! - `error`: [`StoreError`], what went wrong in the user's terms.
//! - `entry`: one recorded line, and what is accepted as one.
//! - `dir`: the state directory — created private, synced, locked against a second daemon.
//! - `connection`: opening and creating the SQLite file, checked to be an annabella journal.
//! - `mark`: `journal.mark`, the witness of records a damaged write-ahead log dropped.
//! - `identity`: the state directory and journal still the ones opened.
//! - `open`: everything checked before a journal is used.
//! - `archive`: finished games as PGN files under `games/`.
//! - `journal`: [`Store`], the journal of one state directory (synchronous).
//! - `handle`: [`StoreHandle`], the store on a thread of its own, with group commit.

mod archive;
mod connection;
mod dir;
mod entry;
mod error;
mod handle;
mod identity;
mod journal;
mod mark;
mod open;
mod schema;

pub use crate::table::name::{MAX_TABLE_NAME_BYTES, file_stem};
pub use archive::archive_path;
pub use entry::JournalEntry;
pub use error::StoreError;
pub use handle::{MAX_GROUP, StoreHandle, StoreStats};
pub use journal::{Alive, CHECKPOINT_INTERVAL_MS, HEARTBEAT_SYNC_INTERVAL_MS, Store};
pub use mark::MARK_FILE;
pub use schema::{APPLICATION_ID, SCHEMA_VERSION};

/// The journal's file name inside the state directory.
pub const JOURNAL_FILE: &str = "journal.sqlite3";
/// The directory of archived games inside the state directory.
pub const GAMES_DIR: &str = "games";
/// The lock file that keeps a second daemon off the same state directory.
pub const LOCK_FILE: &str = "lock";
/// The longest journal line recorded; the core's records are a few hundred bytes.
pub const MAX_LINE_BYTES: usize = 4096;
/// The largest PGN archived for one game.
pub const MAX_PGN_BYTES: usize = 1 << 20;
