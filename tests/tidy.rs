//! Invariants of the code base, checked as tests: file headers, a pure core, a true code map.

use std::fs;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The directories of the pure core: decisions only, no I/O, no clock.
const PURE: [&str; 3] = ["src/chess", "src/boards", "src/table"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn all_rust_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["src", "tests", "benches", "fuzz"] {
        rust_files(&root().join(dir), &mut files);
    }
    files.sort();
    files
}

#[test]
fn every_source_file_starts_with_a_doc_line() {
    let offenders: Vec<_> = all_rust_files()
        .into_iter()
        .filter(|p| !fs::read_to_string(p).unwrap_or_default().starts_with("//!"))
        .collect();
    assert!(
        offenders.is_empty(),
        "files without a leading //! line: {offenders:?}"
    );
}

/// What pure code never names: I/O, tasks, the clock.
const FORBIDDEN: [&str; 13] = [
    "tokio",
    "std::fs",
    "std::net",
    "std::io::stdin",
    "std::io::stdout",
    "std::process",
    "std::env",
    "Instant::now",
    "SystemTime::now",
    "std::thread",
    "io::clock",
    "println!",
    "eprintln!",
];

/// Each line of code (comments aside) in `paths` that names something [`FORBIDDEN`].
fn io_offences(paths: &[PathBuf]) -> Vec<String> {
    let mut offences = Vec::new();
    for path in paths {
        let text = fs::read_to_string(path).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for word in FORBIDDEN {
                if code.contains(word) {
                    offences.push(format!("{}:{}: {word}", path.display(), i + 1));
                }
            }
        }
    }
    offences
}

/// The pure core does no I/O and never reads the clock: time is a parameter.
#[test]
fn the_core_does_no_io_and_reads_no_clock() {
    let mut core = Vec::new();
    for dir in PURE {
        rust_files(&root().join(dir), &mut core);
    }
    assert!(!core.is_empty());
    let offences = io_offences(&core);
    assert!(
        offences.is_empty(),
        "I/O or clock reads in the pure core:\n{}",
        offences.join("\n")
    );
}

/// The control session is sans-IO: lines in, actions out, the time a parameter; only its
/// driver (`src/app/session_driver.rs`) touches sockets, tasks and the clock.
#[test]
fn the_control_session_does_no_io_and_reads_no_clock() {
    let session = ["src/app/session.rs", "src/app/rate_limit.rs"].map(|p| root().join(p));
    let offences = io_offences(&session);
    assert!(
        offences.is_empty(),
        "I/O or clock reads in the control session:\n{}",
        offences.join("\n")
    );
}

/// Domain types own no wire format: the adapters do.
#[test]
fn the_core_derives_no_serialize() {
    let mut core = Vec::new();
    for dir in PURE {
        rust_files(&root().join(dir), &mut core);
    }
    for path in core {
        let text = fs::read_to_string(&path).unwrap();
        let serialize = text
            .match_indices("Serialize")
            .any(|(i, _)| !text[..i].ends_with("De"));
        assert!(!serialize, "{} derives or names Serialize", path.display());
    }
}

/// docs/ARCHITECTURE.md names every source file, so the code map cannot silently go stale.
#[test]
fn the_code_map_names_every_source_file() {
    let map = fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let missing: Vec<_> = files
        .iter()
        .map(|p| {
            p.strip_prefix(root())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .filter(|p| !map.contains(p.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md does not mention: {missing:?}"
    );
}
