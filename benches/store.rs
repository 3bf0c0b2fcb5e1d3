//! Benchmark of the durable journal on this machine's disk: the latency of one durable append
//! (SQLite WAL with synchronous=FULL, and for comparison a hand-written append + fdatasync of the
//! same line), and 50 tables appending at once through the group-committing `StoreHandle`.
//!
//! The journal lives in a fresh directory under `ANNABELLA_BENCH_STATE_DIR` (measure the file
//! system the daemon's state_dir is on) or else under cargo's target directory. Run:
//! `cargo bench --bench store`. Under `cargo test` every part runs once on a few lines.

use std::fs::OpenOptions;
use std::hint::black_box;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use annabella::io::store::{Store, StoreHandle};
use criterion::{Criterion, Throughput};

const TABLES: usize = 50;

/// A record of the size the table core writes (a move with both clocks, about 100 bytes).
fn record(i: u64) -> String {
    format!(
        "move {i} white e2e4 peg clocks 298340 301200 at 1763870000123 confirmed by both boards"
    )
}

fn state_dir() -> tempfile::TempDir {
    let base = std::env::var_os("ANNABELLA_BENCH_STATE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")));
    std::fs::create_dir_all(&base).unwrap();
    tempfile::Builder::new()
        .prefix("annabella-bench-")
        .tempdir_in(base)
        .unwrap()
}

fn report(name: &str, samples: &mut [Duration]) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    eprintln!(
        "{name:<38} n={:<6} median {:>9.3?}  p90 {:>9.3?}  p99 {:>9.3?}  p99.9 {:>9.3?}  max {:>9.3?}",
        samples.len(),
        at(0.5),
        at(0.9),
        at(0.99),
        at(0.999),
        samples[samples.len() - 1]
    );
}

/// One appender, each `Store::append` timed alone.
fn sqlite_latency(n: u64) {
    let dir = state_dir();
    let mut store = Store::open(&dir.path().join("state")).unwrap();
    let mut samples = Vec::with_capacity(n as usize);
    for i in 0..n {
        let line = record(i);
        let start = Instant::now();
        black_box(
            store
                .append("table-1", 1_763_870_000_000 + i, &line)
                .unwrap(),
        );
        samples.push(start.elapsed());
    }
    report("sqlite append (WAL, synchronous=FULL)", &mut samples);
}

/// The alternative: a hand-written journal, one line appended and fdatasync'd.
fn raw_latency(n: u64) {
    let dir = state_dir();
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.path().join("journal.log"))
        .unwrap();
    let mut samples = Vec::with_capacity(n as usize);
    for i in 0..n {
        let line = format!("table-1 {} {}\n", 1_763_870_000_000 + i, record(i));
        let start = Instant::now();
        file.write_all(line.as_bytes()).unwrap();
        file.sync_data().unwrap();
        samples.push(start.elapsed());
    }
    report("raw file append + fdatasync", &mut samples);
}

/// `tasks` tables append `per_task` lines each at once through one handle; returns the wall
/// time and each append's latency as its task saw it.
fn through_handle(
    runtime: &tokio::runtime::Runtime,
    handle: &StoreHandle,
    tasks: usize,
    per_task: u64,
) -> (Duration, Vec<Duration>) {
    runtime.block_on(async {
        let start = Instant::now();
        let mut joins = Vec::with_capacity(tasks);
        for t in 0..tasks {
            let handle = handle.clone();
            joins.push(tokio::spawn(async move {
                let table = format!("table-{t}");
                let mut samples = Vec::with_capacity(per_task as usize);
                for i in 0..per_task {
                    let line = record(i);
                    let begin = Instant::now();
                    black_box(
                        handle
                            .append(&table, 1_763_870_000_000 + i, &line)
                            .await
                            .unwrap(),
                    );
                    samples.push(begin.elapsed());
                }
                samples
            }));
        }
        let mut samples = Vec::new();
        for join in joins {
            samples.extend(join.await.unwrap());
        }
        (start.elapsed(), samples)
    })
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn handle_figures(per_task: u64) {
    let dir = state_dir();
    let rt = runtime();
    let handle = StoreHandle::spawn(Store::open(&dir.path().join("state")).unwrap()).unwrap();
    let (_, mut one) = through_handle(&rt, &handle, 1, per_task * 4);
    report("handle, 1 table", &mut one);
    let before = handle.stats();
    let (wall, mut samples) = through_handle(&rt, &handle, TABLES, per_task);
    let after = handle.stats();
    let appends = after.appends - before.appends;
    let commits = after.commits - before.commits;
    report("handle, 50 tables at once", &mut samples);
    eprintln!(
        "handle, 50 tables at once: {appends} appends in {wall:.3?} = {:.0} appends/s, {commits} commits ({:.1} appends per fsync)",
        appends as f64 / wall.as_secs_f64(),
        appends as f64 / commits.max(1) as f64
    );
    rt.block_on(handle.close()).unwrap();
}

fn main() {
    let benchmarking = std::env::args().any(|a| a == "--bench");
    let n = if benchmarking { 5_000 } else { 20 };
    eprintln!(
        "journal directory: under {}",
        std::env::var("ANNABELLA_BENCH_STATE_DIR")
            .unwrap_or_else(|_| env!("CARGO_TARGET_TMPDIR").to_owned())
    );
    sqlite_latency(n);
    raw_latency(n);
    handle_figures(if benchmarking { 200 } else { 2 });

    let mut c = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .configure_from_args();
    let mut group = c.benchmark_group("store");
    {
        let dir = state_dir();
        let mut store = Store::open(&dir.path().join("state")).unwrap();
        let line = record(0);
        let mut i = 0;
        group.throughput(Throughput::Elements(1));
        group.bench_function("append", |b| {
            b.iter(|| {
                i += 1;
                black_box(store.append("table-1", i, &line).unwrap())
            })
        });
    }
    {
        let dir = state_dir();
        let rt = runtime();
        let handle = StoreHandle::spawn(Store::open(&dir.path().join("state")).unwrap()).unwrap();
        let per_task = 10;
        group.throughput(Throughput::Elements(TABLES as u64 * per_task));
        let handle = Arc::new(handle);
        group.bench_function("handle-50-tables", |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    total += through_handle(&rt, &handle, TABLES, per_task).0;
                }
                total
            })
        });
        rt.block_on(handle.close()).unwrap();
    }
    group.finish();
    c.final_summary();
}
