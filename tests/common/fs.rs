//! Scratch directories: one per test, named after it and this test process.

use std::path::PathBuf;

/// A fresh, empty directory `annabella-NAME-PID` under the system's temporary directory.
/// `name` need only be unique within one test binary (the process id tells binaries apart).
/// Tests remove it at their end; a failing test leaves it behind for a look.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("annabella-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("creating {}: {e}", dir.display()));
    dir
}
