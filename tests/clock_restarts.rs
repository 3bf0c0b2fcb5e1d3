//! Time across restarts and stalls of the real daemon (issue 23): a wall clock stepped an hour
//! forward or back (libfaketime, the wall clock only) between the last heartbeat and a restart
//! after 5 s of real downtime charges the side to move about those 5 s, measured by the
//! boot-time clock, and the arbiter hears it; a daemon stopped (`SIGSTOP`) past a flag while
//! the side to move sent his move judges that move in time, and the arbiter hears of the stall.
//!
//! Re-run with the figures printed: `cargo test --test clock_restarts -- --nocapture`.

pub mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use annabella::chess::scoresheet::parse_clock;

use common::WAIT;
use common::daemon::{Daemon, Serve};
use common::fs::scratch_dir;

/// libfaketime as Debian installs it (`scripts/ensure-deps.sh`).
const FAKETIME: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
/// The deliberate real downtime between the kill and the restart.
const DOWNTIME: Duration = Duration::from_secs(5);
/// What the side to move may be charged for it on a loaded two-core machine: the downtime, the
/// moments alive after the last reading and before the first one after the restart.
const CHARGED_MS: std::ops::RangeInclusive<u64> = 4_000..=8_000;

/// A daemon with libfaketime reading the wall clock's offset from `offset_file` (the monotonic
/// and boot-time clocks real), the arbiter's words in `transcript`.
fn serve(state: &Path, config: &Path, offset_file: &Path, transcript: &Path) -> Daemon {
    Serve::new(state)
        .config(config)
        .args(["--peg", "none", "--speech"])
        .args([format!("arbiter=transcript:{}", transcript.display())])
        .env("LD_PRELOAD", FAKETIME)
        .env("FAKETIME_TIMESTAMP_FILE", offset_file)
        .env("FAKETIME_NO_CACHE", "1")
        .env("DONT_FAKE_MONOTONIC", "1")
        .start()
}

/// Black's main time left in milliseconds, from a `clock` reply.
fn black_ms(clock: &str) -> u64 {
    let field = clock
        .split_whitespace()
        .skip_while(|w| *w != "black")
        .nth(1)
        .unwrap_or_else(|| panic!("no black clock in {clock:?}"));
    parse_clock(field).unwrap_or_else(|| panic!("black's clock {field:?} in {clock:?}"))
}

fn journal(state: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open_with_flags(
        state.join(annabella::io::store::JOURNAL_FILE),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .expect("the journal opens read-only")
}

/// Waits until the daemon's heartbeat carries a wall time `want` accepts (the stepped clock).
fn wait_for_heartbeat(state: &Path, want: impl Fn(i64) -> bool) {
    let deadline = Instant::now() + WAIT;
    loop {
        let at: Option<i64> = journal(state)
            .query_row("SELECT at_unix_ms FROM heartbeat", [], |r| r.get(0))
            .ok();
        if at.is_some_and(&want) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "no stepped heartbeat (last {at:?})"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The last `rebase <ms>` record's charge.
fn rebase_charge(state: &Path) -> u64 {
    let line: String = journal(state)
        .query_row(
            "SELECT line FROM journal WHERE line LIKE '% rebase %' ORDER BY seq DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .expect("a rebase record");
    line.rsplit(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("rebase line {line:?}"))
}

/// Waits until `path` has a line containing `text`; returns it.
fn wait_for_line(path: &Path, text: &str) -> String {
    let deadline = Instant::now() + WAIT;
    loop {
        let content = std::fs::read_to_string(path).unwrap_or_default();
        if let Some(line) = content.lines().find(|l| l.contains(text)) {
            return line.to_owned();
        }
        assert!(
            Instant::now() < deadline,
            "{} never said {text:?}: {content}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// After 1. e4 the wall clock is stepped by `step` (libfaketime's offset syntax); once a
/// heartbeat is written at the new time, `kill -9`, 5 s down, restart: Black, to move, is
/// charged about the 5 s, whichever way the clock went.
fn a_wall_clock_step_across_a_restart(name: &str, step: &str, stepped: fn(i64, i64) -> bool) {
    let dir = scratch_dir(name);
    let (state, config) = (dir.join("state"), dir.join("annabella.toml"));
    let (offset, transcript) = (dir.join("faketime"), dir.join("arbiter.txt"));
    std::fs::write(&offset, "+0\n").unwrap();
    std::fs::write(
        &config,
        "[speech]\nlang = \"en\"\n[clock]\ntime_control = \"5400\"\ncharge_downtime = true\n",
    )
    .unwrap();
    let daemon = serve(&state, &config, &offset, &transcript);
    let mut white = daemon.connect("white");
    assert_eq!(white.ask("move e4"), "ok e2e4 e4");
    let real = common::control::unix_ms() as i64;
    std::fs::write(&offset, format!("{step}\n")).unwrap();
    wait_for_heartbeat(&state, |at| stepped(at, real));
    let mut arbiter = daemon.connect("arbiter");
    let before = black_ms(&arbiter.ask("clock quiet"));
    drop((white, arbiter));
    daemon.kill9();
    std::thread::sleep(DOWNTIME);

    let daemon = serve(&state, &config, &offset, &transcript);
    let mut arbiter = daemon.connect("arbiter");
    let clock = arbiter.ask("clock quiet");
    let after = black_ms(&clock);
    let charged = before - after;
    let recorded = rebase_charge(&state);
    let told = wait_for_line(&transcript, "clock was charged");
    eprintln!(
        "wall clock {step} across a restart {DOWNTIME:?} down: black {before} ms -> {after} ms, \
         charged {charged} ms (rebase {recorded} ms); the arbiter heard: {told}"
    );
    assert!(
        CHARGED_MS.contains(&charged),
        "charged {charged} ms: {clock}"
    );
    assert!(CHARGED_MS.contains(&recorded), "rebase {recorded} ms");
    assert!(
        told.contains(" arbiter After the restart, Black's clock was charged "),
        "{told}"
    );
    assert!(told.contains("measured by the machine's clock"), "{told}");
    // The arbiter corrects it if he finds it wrong.
    assert!(arbiter.ask("adjust black +5").starts_with("ok black "));
    drop(arbiter);
    drop(daemon);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_wall_clock_stepped_an_hour_forward_before_a_restart_charges_only_the_downtime() {
    a_wall_clock_step_across_a_restart("step-forward", "+1h", |at, real| at > real + 3_000_000);
}

#[test]
fn a_wall_clock_stepped_an_hour_back_before_a_restart_charges_the_downtime_still() {
    a_wall_clock_step_across_a_restart("step-back", "-1h", |at, real| at < real - 3_000_000);
}

/// Sends `signal` (`STOP`, `CONT`) to `pid`.
fn signal(pid: u32, signal: &str) {
    let status = std::process::Command::new("kill")
        .args([format!("-{signal}"), pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{signal} {pid}");
}

/// 10 s on the clock, 1. e4, the daemon stopped; Black sends 1... e5 half a second into the
/// stop; the daemon goes on 10.5 s after e4, past Black's flag: the move is in time, nobody
/// lost on time, and the arbiter hears of the stall.
#[test]
fn a_move_sent_while_the_daemon_was_stopped_is_in_time() {
    let dir = scratch_dir("stall");
    let (state, config) = (dir.join("state"), dir.join("annabella.toml"));
    std::fs::write(
        &config,
        "[speech]\nlang = \"en\"\n[clock]\ntime_control = \"10s\"\nannounce = \"none\"\n",
    )
    .unwrap();
    let daemon = Serve::new(&state)
        .config(&config)
        .args(["--peg", "none", "--speech", "none"])
        .start();
    let arbiter = daemon.watching("arbiter", "table-1");
    let mut white = daemon.connect("white");
    let mut black = daemon.connect("black");
    assert_eq!(white.ask("move e4"), "ok e2e4 e4");
    let moved = Instant::now();
    let pid = daemon.pid();
    signal(pid, "STOP");
    std::thread::sleep(Duration::from_millis(500));
    let sent = std::thread::spawn(move || black.ask("move e5"));
    std::thread::sleep(Duration::from_millis(10_500).saturating_sub(moved.elapsed()));
    let stopped_for = moved.elapsed();
    signal(pid, "CONT");
    let reply = sent.join().expect("black's move");
    let stalled = arbiter.expect_event("the stall", |l| l.starts_with("event stalled "));
    let words = arbiter.expect_event("the arbiter's words", |l| {
        l.starts_with("event say arbiter annabella did not run for ")
    });
    let mut observer = daemon.connect("observer");
    let clock = observer.ask("clock quiet");
    let status = observer.ask("status");
    eprintln!(
        "stopped {stopped_for:?} after 1. e4 with 10 s each, 1... e5 sent 0.5 s in: {reply}; \
         {stalled}; {words}; {clock}; {status}"
    );
    assert_eq!(reply, "ok e7e5 e5");
    assert!(status.contains(" ply 2 turn white result *"), "{status}");
    let ms: u64 = stalled["event stalled ".len()..].parse().unwrap();
    assert!(ms >= 9_000, "{stalled}");
    // Black's clock stopped when the daemon did; White's runs from when it ran again.
    assert!(black_ms(&clock) >= 8_000, "{clock}");
    assert!(clock.contains("running white"), "{clock}");
    let white_ms = parse_clock(clock.split_whitespace().nth(2).unwrap()).unwrap();
    assert!(white_ms >= 8_000, "{clock}");
    drop((white, observer, arbiter));
    drop(daemon);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same stop with no move sent: the flag fell while the daemon was stopped, and it is
/// judged once the daemon runs again (what was queued read first).
#[test]
fn a_flag_that_fell_while_the_daemon_was_stopped_still_falls() {
    let dir = scratch_dir("stall-flag");
    let (state, config) = (dir.join("state"), dir.join("annabella.toml"));
    std::fs::write(
        &config,
        "[speech]\nlang = \"en\"\n[clock]\ntime_control = \"3s\"\nannounce = \"none\"\n",
    )
    .unwrap();
    let daemon = Serve::new(&state)
        .config(&config)
        .args(["--peg", "none", "--speech", "none"])
        .start();
    let arbiter = daemon.watching("arbiter", "table-1");
    let mut white = daemon.connect("white");
    assert_eq!(white.ask("move e4"), "ok e2e4 e4");
    let pid = daemon.pid();
    signal(pid, "STOP");
    std::thread::sleep(Duration::from_millis(4_000));
    signal(pid, "CONT");
    let stalled = arbiter.expect_event("the stall", |l| l.starts_with("event stalled "));
    let end = arbiter.expect_event("the flag", |l| l.starts_with("event end "));
    eprintln!("stopped 4 s after 1. e4 with 3 s each, nothing sent: {stalled}; {end}");
    assert!(end.contains("0-1") || end.contains("1-0"), "{end}");
    drop((white, arbiter));
    drop(daemon);
    let _ = std::fs::remove_dir_all(&dir);
}
