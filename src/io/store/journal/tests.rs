//! The store's own tests: lines kept in order across reopens, games, what is refused and how
//! it is named, the directory's privacy and lock, the heartbeat's syncing, the archive.

use std::fs;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use rusqlite::Connection;

use super::*;
use crate::io::store::{GAMES_DIR, JOURNAL_FILE, MAX_LINE_BYTES, MAX_TABLE_NAME_BYTES};

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
    let below = file.join("below").display().to_string();
    assert!(e.to_string().contains(&below), "{e}");
    let dir = tmp.path().join("state");
    fs::create_dir_all(dir.join(JOURNAL_FILE)).unwrap();
    let e = Store::open(&dir).unwrap_err();
    assert!(matches!(e, StoreError::NotAJournal { .. }), "{e}");
}

/// The env var under which this test binary, re-run as an unprivileged user, checks the
/// unwritable directory (root writes anywhere, so root cannot check it itself).
#[cfg(unix)]
const UNWRITABLE_ENV: &str = "ANNABELLA_STORE_TEST_UNWRITABLE";

#[cfg(unix)]
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
    if fs::File::create(dir.join("probe")).is_err() {
        check_unwritable(&dir);
        return;
    }
    // Privileged: re-run this very test as `nobody`, in a directory that is nobody's own (so
    // that the ownership check passes and the write check is what refuses it).
    let _ = fs::remove_file(dir.join("probe"));
    std::os::unix::fs::chown(&dir, Some(65534), Some(65534)).unwrap();
    let exe = std::env::current_exe().unwrap();
    // A cross-built test binary (scripts/cross/aarch64.sh) runs under qemu-user, and the kernel
    // cannot exec it again by itself without binfmt_misc: the re-run goes through the same
    // runner, which the script names in ANNABELLA_TEST_RUNNER.
    let runner = std::env::var("ANNABELLA_TEST_RUNNER").unwrap_or_default();
    let mut words = runner.split_whitespace();
    let mut command = match words.next() {
        Some(program) => {
            let mut c = std::process::Command::new(program);
            c.args(words).arg(&exe);
            c
        }
        None => std::process::Command::new(&exe),
    };
    let output = command
        .args([
            "--exact",
            "io::store::journal::tests::an_unwritable_directory_is_named",
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
fn each_tables_sign_of_life_is_kept_with_the_heartbeat() {
    let (_tmp, dir) = state();
    let mut store = Store::open(&dir).unwrap();
    assert_eq!(store.last_alive("t").unwrap(), None);
    let alive = |table_ms, boot_ms| Alive {
        table: "t".to_owned(),
        table_ms,
        at_unix_ms: 0,
        boot_id: Some("b1".to_owned()),
        boot_ms: Some(boot_ms),
    };
    store.append("t", 900, "line").unwrap();
    store.heartbeat_with(1_000, &[alive(10, 500)]).unwrap();
    store.heartbeat_with(2_000, &[alive(1_010, 1_500)]).unwrap();
    drop(store);
    let mut store = Store::open(&dir).unwrap();
    assert_eq!(
        store.last_alive("t").unwrap(),
        Some(Alive {
            at_unix_ms: 2_000,
            ..alive(1_010, 1_500)
        })
    );
    assert_eq!(store.last_alive("other").unwrap(), None);
    assert_eq!(store.last_heartbeat(), Some(2_000));
    // A new game's table time starts again: the last game's sign of life is not its.
    store.begin_game("t", 3_000).unwrap();
    assert_eq!(store.last_alive("t").unwrap(), None);
}

#[test]
fn a_journal_without_signs_of_life_gets_their_table_at_open() {
    let (_tmp, dir) = state();
    drop(Store::open(&dir).unwrap());
    let conn = Connection::open(dir.join(JOURNAL_FILE)).unwrap();
    conn.execute_batch("DROP TABLE alive").unwrap();
    drop(conn);
    let mut store = Store::open(&dir).unwrap();
    assert_eq!(store.last_alive("t").unwrap(), None);
    store.append("t", 1, "line").unwrap();
    store
        .heartbeat_with(
            5,
            &[Alive {
                table: "t".to_owned(),
                table_ms: 7,
                at_unix_ms: 0,
                boot_id: None,
                boot_ms: None,
            }],
        )
        .unwrap();
    assert_eq!(store.last_alive("t").unwrap().map(|a| a.table_ms), Some(7));
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
