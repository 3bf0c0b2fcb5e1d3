//! The journal against real crashes: a writer process killed with SIGKILL at random moments
//! loses no acknowledged line and leaves no torn one; 50 tables commit together through the
//! handle; a write that fails (file size limit) comes back as an error and the thread goes on.
//!
//! The writer is this test binary run again with `ANNABELLA_STORE_WRITER` set, running only the
//! ignored test `journal_writer_child`, so no extra binary is needed.

pub mod common;

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use annabella::io::store::{Store, StoreHandle};
use common::process::Running;

const WRITER_ENV: &str = "ANNABELLA_STORE_WRITER";
const WRITER_TEST: &str = "journal_writer_child";
/// Tables of the synchronous writer and of the handle writer (one task each).
const SYNC_TABLES: [&str; 3] = ["k0", "k1", "k2"];
const HANDLE_TABLES: [&str; 8] = ["h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7"];

/// The `i`-th line of `table`: its length varies (30 to 330 bytes) and every byte depends on
/// the table and the index, so a torn or misplaced line cannot pass for a right one.
fn expected_line(table: &str, i: u64) -> String {
    let filler_len = ((i * 37) % 300) as usize;
    let filler: String = (0..filler_len)
        .map(|k| char::from(b'a' + ((i as usize + k + table.len()) % 26) as u8))
        .collect();
    format!("{table} record {i} {filler} end")
}

fn ack(out: &mut impl Write, table: &str, i: u64, seq: u64) {
    // Only after the append returned: an ack on stdout is a promise the line is on disk.
    writeln!(out, "ack {table} {i} {seq}").unwrap();
    out.flush().unwrap();
}

/// The child's part: append forever (until killed), acknowledging each line on stdout.
#[test]
#[ignore = "run by the kill and failing-disk tests in a child process"]
fn journal_writer_child() {
    let Ok(spec) = std::env::var(WRITER_ENV) else {
        return;
    };
    let (mode, dir) = spec.split_once(':').unwrap();
    let dir = PathBuf::from(dir);
    match mode {
        "sync" => write_sync(&dir),
        "handle" => write_handle(&dir, false),
        "limited" => write_handle(&dir, true),
        _ => panic!("unknown writer mode {mode}"),
    }
}

fn write_sync(dir: &Path) {
    let mut store = Store::open(dir).unwrap();
    let mut next: HashMap<&str, u64> = SYNC_TABLES
        .iter()
        .map(|&t| (t, store.load(t).unwrap().len() as u64))
        .collect();
    let mut stdout = std::io::stdout().lock();
    for round in 0u64.. {
        if round % 5 == 4 {
            // A batch: one line for every table, all or none.
            let lines: Vec<(&str, u64, String)> = SYNC_TABLES
                .iter()
                .map(|&t| (t, next[t], expected_line(t, next[t])))
                .collect();
            let items: Vec<(&str, u64, &str)> = lines
                .iter()
                .map(|(t, i, l)| (*t, 1_000 + *i, l.as_str()))
                .collect();
            let seqs = store.append_batch(&items).unwrap();
            for ((t, i, _), seq) in lines.iter().zip(seqs) {
                ack(&mut stdout, t, *i, seq);
                *next.get_mut(t).unwrap() += 1;
            }
        } else {
            let t = SYNC_TABLES[round as usize % SYNC_TABLES.len()];
            let i = next[t];
            let seq = store.append(t, 1_000 + i, &expected_line(t, i)).unwrap();
            ack(&mut stdout, t, i, seq);
            *next.get_mut(t).unwrap() += 1;
        }
    }
}

/// Eight tasks append through one handle. `limited`: the process runs under a file size limit,
/// so appends eventually fail; the child then checks the handle still answers and exits.
fn write_handle(dir: &Path, limited: bool) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    runtime.block_on(async {
        let handle = StoreHandle::spawn(Store::open(dir).unwrap()).unwrap();
        let mut tasks = Vec::new();
        for table in HANDLE_TABLES {
            let handle = handle.clone();
            tasks.push(tokio::spawn(async move {
                let mut i = handle.load(table).await.unwrap().len() as u64;
                loop {
                    match handle
                        .append(table, 1_000 + i, &expected_line(table, i))
                        .await
                    {
                        Ok(seq) => ack(&mut std::io::stdout().lock(), table, i, seq),
                        Err(e) => return e,
                    }
                    i += 1;
                }
            }));
        }
        let mut errors = Vec::new();
        for task in tasks {
            errors.push(task.await.unwrap());
        }
        assert!(limited, "appends failed: {errors:?}");
        let mut stdout = std::io::stdout().lock();
        for e in &errors {
            writeln!(stdout, "error {e}").unwrap();
        }
        // The thread is still serving: reads are answered after the failed writes.
        for table in HANDLE_TABLES {
            let n = handle.load(table).await.unwrap().len();
            writeln!(stdout, "loaded {table} {n}").unwrap();
        }
        assert_eq!(handle.tables().await.unwrap().len(), HANDLE_TABLES.len());
        writeln!(stdout, "still serving").unwrap();
    });
}

struct Ack {
    table: String,
    i: u64,
    seq: u64,
}

fn parse_acks(lines: &[String]) -> Vec<Ack> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("ack "))
        .map(|l| {
            let mut f = l.split(' ');
            Ack {
                table: f.next().unwrap().to_owned(),
                i: f.next().unwrap().parse().unwrap(),
                seq: f.next().unwrap().parse().unwrap(),
            }
        })
        .collect()
}

/// Starts the writer; its stdout lines are its acknowledgements (a last line cut by the kill is
/// no line: it was never a complete acknowledgement).
fn start_writer(mode: &str, dir: &Path, shell_prefix: Option<&str>) -> Running {
    let exe = std::env::current_exe().unwrap();
    // A cross-built test binary runs again through the same runner (qemu-user: the kernel
    // cannot exec it by itself; scripts/cross/aarch64.sh names it in ANNABELLA_TEST_RUNNER).
    let runner = std::env::var("ANNABELLA_TEST_RUNNER").unwrap_or_default();
    let mut program: Vec<std::ffi::OsString> = runner.split_whitespace().map(Into::into).collect();
    program.push(exe.into());
    let mut command = match shell_prefix {
        Some(prefix) => {
            let mut c = Command::new("bash");
            c.arg("-c")
                .arg(format!("{prefix}; exec \"$0\" \"$@\""))
                .args(&program);
            c
        }
        None => {
            let mut c = Command::new(&program[0]);
            c.args(&program[1..]);
            c
        }
    };
    command
        .args([
            "--exact",
            WRITER_TEST,
            "--include-ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(WRITER_ENV, format!("{mode}:{}", dir.display()));
    Running::start(&mut command)
}

/// Every acknowledged line is in the journal at its sequence number, and every line there
/// (acknowledged or not) is exactly a line the writer meant, in order: nothing lost, nothing torn.
fn check_journal(dir: &Path, tables: &[&str], acks: &[Ack], context: &str) -> usize {
    let store = Store::open(dir).unwrap_or_else(|e| panic!("{context}: reopen: {e}"));
    let mut total = 0;
    let mut loaded = HashMap::new();
    for &table in tables {
        let entries = store.load(table).unwrap();
        for (i, e) in entries.iter().enumerate() {
            assert_eq!(
                e.line,
                expected_line(table, i as u64),
                "{context}: {table} line {i}"
            );
            assert_eq!(
                e.at_unix_ms,
                1_000 + i as u64,
                "{context}: {table} line {i}"
            );
        }
        assert!(
            entries.windows(2).all(|w| w[0].seq < w[1].seq),
            "{context}: {table} out of order"
        );
        total += entries.len();
        loaded.insert(table, entries);
    }
    for a in acks {
        let entries = &loaded[a.table.as_str()];
        let entry = entries.get(a.i as usize).unwrap_or_else(|| {
            panic!(
                "{context}: acknowledged {} line {} (seq {}) is lost; the journal has {} lines",
                a.table,
                a.i,
                a.seq,
                entries.len()
            )
        });
        assert_eq!(entry.seq, a.seq, "{context}: {} line {}", a.table, a.i);
    }
    drop(store);
    // SQLite's own full check of the file, beyond the quick check `open` runs.
    let conn = rusqlite::Connection::open(dir.join("journal.sqlite3")).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok", "{context}");
    total
}

fn seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64
        | 1
}

fn next(rng: &mut u64) -> u64 {
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    *rng
}

/// Kills the writer with SIGKILL at a random moment, `rounds` times on the same journal.
fn kill_rounds(mode: &str, tables: &[&str], rounds: usize) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("state");
    let mut rng = seed();
    let start_seed = rng;
    let mut acked = 0;
    let mut total = 0;
    for round in 0..rounds {
        let context = format!("{mode} round {round} (seed {start_seed})");
        let mut writer = start_writer(mode, &dir, None);
        // Wait for the first acknowledgement, then kill after a random further while.
        writer.expect_within(
            &format!("{context}: acknowledgement from the writer"),
            Duration::from_secs(30),
            |l| l.starts_with("ack "),
        );
        std::thread::sleep(Duration::from_micros(next(&mut rng) % 150_000));
        writer.kill(); // SIGKILL
        let acks = parse_acks(&writer.lines_to_end());
        acked += acks.len();
        total = check_journal(&dir, tables, &acks, &context);
        assert!(total >= acked, "{context}");
    }
    eprintln!("{mode}: {rounds} kills, {acked} acknowledged lines, {total} in the journal");
}

#[cfg(unix)]
#[test]
fn kill_9_loses_no_acknowledged_line() {
    kill_rounds("sync", &SYNC_TABLES, 5);
}

#[cfg(unix)]
#[test]
fn kill_9_loses_no_line_acknowledged_through_the_handle() {
    kill_rounds("handle", &HANDLE_TABLES, 4);
}

#[test]
fn fifty_tables_commit_together() {
    const TABLES: usize = 50;
    const LINES: u64 = 40;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("state");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let names: Vec<String> = (0..TABLES).map(|t| format!("table-{t}")).collect();
    runtime.block_on(async {
        let handle = StoreHandle::spawn(Store::open(&dir).unwrap()).unwrap();
        let mut tasks = Vec::new();
        for name in names.clone() {
            let handle = handle.clone();
            tasks.push(tokio::spawn(async move {
                let mut last = 0;
                for i in 0..LINES {
                    let seq = handle
                        .append(&name, 1_000 + i, &expected_line(&name, i))
                        .await
                        .unwrap();
                    assert!(seq > last);
                    last = seq;
                }
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        let stats = handle.stats();
        assert_eq!(stats.appends, TABLES as u64 * LINES);
        assert!(
            stats.commits < stats.appends,
            "no group commit happened: {stats:?}"
        );
        eprintln!(
            "{} appends in {} commits ({:.1} per fsync)",
            stats.appends,
            stats.commits,
            stats.appends as f64 / stats.commits as f64
        );
        for name in &names {
            let entries = handle.load(name).await.unwrap();
            assert_eq!(entries.len() as u64, LINES);
            for (i, e) in entries.iter().enumerate() {
                assert_eq!(e.line, expected_line(name, i as u64));
            }
        }
        handle.close().await.unwrap();
    });
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    assert_eq!(
        check_journal(&dir, &refs, &[], "after close"),
        TABLES * LINES as usize
    );
}

/// A real write failure, not a mock: the writer runs under `ulimit -f` (SIGXFSZ ignored, so
/// the write fails with EFBIG instead of killing it). Appends then fail with an error naming
/// the journal, the thread answers further requests, and every acknowledged line is there.
#[cfg(unix)]
#[test]
fn a_failing_disk_is_an_error_and_the_thread_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("state");
    // Create the journal first, so the limit bites on the log, not on the schema.
    Store::open(&dir).unwrap().close().unwrap();
    let mut writer = start_writer("limited", &dir, Some("trap '' XFSZ; ulimit -f 256"));
    let status = writer.wait();
    let out = writer.lines_to_end();
    let err = writer.other_output();
    assert!(status.success(), "writer failed: {status}\n{err}\n{out:?}");
    assert!(out.iter().any(|l| l == "still serving"), "{out:?}");
    let errors: Vec<&String> = out.iter().filter(|l| l.starts_with("error ")).collect();
    assert_eq!(errors.len(), HANDLE_TABLES.len());
    for e in &errors {
        assert!(e.contains("journal.sqlite3"), "{e}");
        assert!(e.contains("nothing was recorded"), "{e}");
    }
    let acks = parse_acks(&out);
    assert!(
        acks.len() > 10,
        "only {} lines before the limit",
        acks.len()
    );
    check_journal(&dir, &HANDLE_TABLES, &acks, "after the size limit");
    // Without the limit the journal takes lines again.
    let mut store = Store::open(&dir).unwrap();
    let i = store.load("h0").unwrap().len() as u64;
    store
        .append("h0", 1_000 + i, &expected_line("h0", i))
        .unwrap();
}
