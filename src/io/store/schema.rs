//! The journal's SQL: its tables, every statement the store runs on them, and the header values
//! that tell an annabella journal (of a schema this code reads) from any other SQLite file.
//!
//! Kept apart from the code that runs them so that the file format is read in one place: a
//! change of schema is a change here and of [`SCHEMA_VERSION`].

/// The schema this code reads and writes (`PRAGMA user_version`).
pub const SCHEMA_VERSION: i64 = 1;
/// `PRAGMA application_id` of an annabella journal: "anna" in ASCII, so `file(1)` and we can
/// tell it from another program's SQLite database.
pub const APPLICATION_ID: i64 = 0x616E_6E61;

/// The tables of a new journal.
pub(super) const SCHEMA: &str = "
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

/// One line of a table's game; its `seq` is the row id.
pub(super) const INSERT_LINE: &str =
    "INSERT INTO journal (table_name, game, at_unix_ms, line) VALUES (?1, ?2, ?3, ?4)";
/// A game begun on purpose: it must be new.
pub(super) const INSERT_GAME: &str =
    "INSERT INTO games (table_name, game, started_unix_ms) VALUES (?1, ?2, ?3)";
/// The first game of a table, begun by its first line.
pub(super) const INSERT_FIRST_GAME: &str =
    "INSERT OR IGNORE INTO games (table_name, game, started_unix_ms) VALUES (?1, ?2, ?3)";
/// The lines of one game, in the order they were appended.
pub(super) const SELECT_GAME_LINES: &str =
    "SELECT seq, at_unix_ms, line FROM journal WHERE table_name = ?1 AND game = ?2 ORDER BY seq";
/// Every table's current (highest) game.
pub(super) const SELECT_CURRENT_GAMES: &str =
    "SELECT table_name, max(game) FROM games GROUP BY table_name";
/// Each table's own sign of life (`Store::heartbeat_with`): its game, its table time and the boot
/// it ran in at the last heartbeat, so that a restart measures the time alive after the last record by
/// the table's monotonic time and the downtime by the boot-time clock (`docs/clock.md`). Added
/// beside schema version 1 (created when missing at every open): a journal without it reads as
/// before, with the wall-clock heartbeat alone.
pub(super) const ALIVE_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS alive (
    table_name TEXT PRIMARY KEY,
    game INTEGER NOT NULL,
    table_ms INTEGER NOT NULL,
    at_unix_ms INTEGER NOT NULL,
    boot_id TEXT,
    boot_ms INTEGER
) STRICT, WITHOUT ROWID;
";
pub(super) const UPSERT_ALIVE: &str = "INSERT INTO alive \
     (table_name, game, table_ms, at_unix_ms, boot_id, boot_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
     ON CONFLICT (table_name) DO UPDATE SET game = excluded.game, table_ms = excluded.table_ms, \
     at_unix_ms = excluded.at_unix_ms, boot_id = excluded.boot_id, boot_ms = excluded.boot_ms";
pub(super) const SELECT_ALIVE: &str = "SELECT table_ms, at_unix_ms, boot_id, boot_ms FROM alive \
     WHERE table_name = ?1 AND game = ?2";
pub(super) const SELECT_HEARTBEAT: &str = "SELECT at_unix_ms FROM heartbeat WHERE id = 0";
pub(super) const UPSERT_HEARTBEAT: &str = "INSERT INTO heartbeat (id, at_unix_ms) VALUES (0, ?1) \
     ON CONFLICT (id) DO UPDATE SET at_unix_ms = excluded.at_unix_ms";
/// The highest record number and the number of games: what the mark witnesses.
pub(super) const COUNT_RECORDS_AND_GAMES: &str =
    "SELECT (SELECT coalesce(max(seq), 0) FROM journal), (SELECT count(*) FROM games)";
