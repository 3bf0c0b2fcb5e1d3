//! A table's name, checked once: the one rule for what a name may be, used by the
//! configuration, the journal, the files named after a table and the page's routes alike.

use std::fmt;
use std::str::FromStr;

/// The longest table name (bytes of UTF-8).
pub const MAX_TABLE_NAME_BYTES: usize = 64;

/// A valid table name: 1 to [`MAX_TABLE_NAME_BYTES`] bytes, no whitespace (the control
/// protocol's `table NAME` is one word) and no control characters (it appears in log lines,
/// journal rows and replies).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableName(String);

/// Why a name is not a table name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "table name {shown:?} {problem}; a table name is 1 to {MAX_TABLE_NAME_BYTES} bytes without \
     spaces or control characters (e.g. \"table-1\")"
)]
pub struct TableNameError {
    /// The start of the name as given (a hostile name is not echoed whole).
    pub shown: String,
    pub problem: &'static str,
}

impl TableName {
    pub fn new(name: &str) -> Result<TableName, TableNameError> {
        let problem = if name.is_empty() {
            Some("is empty")
        } else if name.len() > MAX_TABLE_NAME_BYTES {
            Some("is too long")
        } else if name.chars().any(char::is_control) {
            Some("contains a control character")
        } else if name.chars().any(char::is_whitespace) {
            Some("contains a space")
        } else {
            None
        };
        match problem {
            Some(problem) => Err(TableNameError {
                shown: name.chars().take(40).collect(),
                problem,
            }),
            None => Ok(TableName(name.to_owned())),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name as a file name: `[A-Za-z0-9_-]` kept, anything else `_`, and then a hash of
    /// the real name so that `a.b` and `a_b` stay apart. The hash is FNV-1a, fixed forever (the
    /// standard library's hasher may change between releases).
    pub fn file_stem(&self) -> String {
        file_stem(&self.0)
    }
}

/// [`TableName::file_stem`] of any text (the journal also names files of names it was given).
pub fn file_stem(table: &str) -> String {
    let clean: String = table
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean == table {
        return clean;
    }
    let mut hash: u32 = 0x811c_9dc5;
    for &b in table.as_bytes() {
        hash ^= u32::from(b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    format!("{clean}-{hash:08x}")
}

impl fmt::Display for TableName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for TableName {
    type Err = TableNameError;

    fn from_str(s: &str) -> Result<TableName, TableNameError> {
        TableName::new(s)
    }
}

impl AsRef<str> for TableName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for TableName {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_rule_for_every_use() {
        for good in ["table-1", "Tisch_3", "Brett.2", "ÜberTisch", "a/b"] {
            assert_eq!(TableName::new(good).unwrap().as_str(), good);
        }
        for (bad, why) in [
            ("", "is empty"),
            ("a b", "contains a space"),
            ("a\tb", "contains a control character"),
            ("a\u{7f}", "contains a control character"),
        ] {
            let e = TableName::new(bad).unwrap_err();
            assert_eq!(e.problem, why, "{bad:?}");
            assert!(e.to_string().contains("e.g. \"table-1\""));
        }
        let long = "n".repeat(MAX_TABLE_NAME_BYTES + 1);
        assert_eq!(TableName::new(&long).unwrap_err().problem, "is too long");
        assert!(TableName::new(&"n".repeat(MAX_TABLE_NAME_BYTES)).is_ok());
    }

    #[test]
    fn file_stems_are_safe_and_distinct() {
        let stem = |s: &str| TableName::new(s).unwrap().file_stem();
        assert_eq!(stem("table-1"), "table-1");
        assert_ne!(stem("a.b"), stem("a_b"));
        assert!(stem("../etc").starts_with("___etc-"));
        assert!(!stem("a/b").contains('/'));
    }
}
