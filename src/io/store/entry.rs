//! One recorded line of a table's game, and what the journal accepts as one: a valid table name,
//! a time SQLite can hold, one non-empty line of text of bounded length.
//!
//! Every write checks its input here before it touches the database, so a refused line is an
//! error naming the value, and nothing of the write is recorded.

use super::MAX_LINE_BYTES;
use super::error::{StoreError, name_for_error};

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

pub(super) fn check_table(table: &str) -> Result<(), StoreError> {
    match crate::table::name::TableName::new(table) {
        Ok(_) => Ok(()),
        Err(e) => Err(StoreError::BadTableName {
            name: name_for_error(table),
            problem: e.problem,
        }),
    }
}

/// SQLite's integers are signed: a time must fit in an `i64`.
pub(super) fn check_time(at: u64) -> Result<(), StoreError> {
    if i64::try_from(at).is_err() {
        return Err(StoreError::TimeOutOfRange { at });
    }
    Ok(())
}

pub(super) fn check_entry(table: &str, at: u64, line: &str) -> Result<(), StoreError> {
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

/// Checks the lines of one table: all of them are valid, or the first fault is returned.
pub(super) fn check_lines(table: &str, lines: &[(u64, String)]) -> Result<(), StoreError> {
    lines
        .iter()
        .try_for_each(|(at, line)| check_entry(table, *at, line))
}
