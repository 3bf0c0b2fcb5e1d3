//! What was proposed survives a restart, and a late journal write is no error (issue 23, points
//! 7 and 6), through the real daemon: a takeback the two-sheet procedure proposed, a draw
//! offer and a promotion waiting for its piece are each made, the daemon is killed with
//! SIGKILL and started again on the same state directory and peg board, and the proposal is
//! then decided (`resolve confirm`, the other side's `offer-draw`, the promotion key). What the
//! players hear after the restart is read from the transcript. Last, the journal's sync is
//! slowed past the reply timeout by an `LD_PRELOAD` shim (compiled here with `cc`) that delays
//! the write-ahead log's `fsync`: the move's reply comes late and says it was played.

pub mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::WAIT;
use common::board::SimulatedBoard;
use common::control::{ControlClient, unix_ms};
use common::daemon::{Daemon, Serve};
use common::fs::scratch_dir;
use common::process::{annabella, stdout};

/// `annabella serve` on the peg board at `DIR/peg`, speaking into `DIR/transcript.txt`, its
/// state in `DIR/state`; `extra` flags after.
fn serve(dir: &Path, extra: &[&str]) -> Daemon {
    let peg = dir.join("peg");
    let speech = format!("transcript:{}", dir.join("transcript.txt").display());
    Serve::new(&dir.join("state"))
        .args(["--peg", peg.to_str().unwrap(), "--speech", &speech])
        .args(["--time-control", "5400+30"])
        .args(extra.iter().copied())
        .start()
}

/// An observer hearing the table's events, once the peg board is connected and agrees.
fn watcher(daemon: &Daemon, want: &str) -> ControlClient {
    let mut w = daemon.connect("observer");
    assert!(w.ask("events").starts_with("ok events"));
    w.wait_status(want);
    w
}

/// Waits until the transcript holds `text` said to `listener` (`all`, `blind`, `opponent`)
/// at or after Unix millisecond `since` (words still queued when the daemon was killed are
/// never written, so what was said before a kill is not counted on).
fn transcript_says(dir: &Path, since: u64, listener: &str, text: &str) {
    let deadline = Instant::now() + WAIT;
    let want = format!(" {listener} {text}");
    loop {
        let transcript = std::fs::read_to_string(dir.join("transcript.txt")).unwrap_or_default();
        let said = transcript.lines().any(|l| {
            l.ends_with(&want)
                && l.split(' ')
                    .next()
                    .and_then(|ms| ms.parse::<u64>().ok())
                    .is_some_and(|ms| ms >= since)
        });
        if said {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{text:?} never said to {listener} after {since}:\n{transcript}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// White's move on the peg board, Black's over the control port and replicated.
fn play(board: &mut SimulatedBoard, black: &mut ControlClient, w: &ControlClient, moves: &[&str]) {
    for pair in moves.chunks(2) {
        board.hand(pair[0]);
        w.expect_event(pair[0], |l| {
            l.starts_with("event move ") && l.contains(&format!(" white {} ", pair[0]))
        });
        if let Some(reply) = pair.get(1) {
            assert!(
                black.ask(&format!("move {reply}")).starts_with("ok"),
                "{reply}"
            );
            board.hand(reply);
            w.heard("in Ordnung");
        }
    }
}

const SHEETS_DIFFER: &str =
    "Die Partieformulare weichen voneinander ab; der Schiedsrichter entscheidet";
const PROMOTION_REQUEST: &str = "Umwandlung: welche Figur? Dame, Turm, Läufer oder Springer";

#[test]
fn a_takeback_proposed_to_the_arbiter_survives_kill_9_and_is_confirmed_after_it() {
    let dir = scratch_dir("proposal-takeback");
    let mut board = SimulatedBoard::on_pty("peg", &dir.join("peg"), &[]);
    let daemon = serve(&dir, &[]);
    let w = watcher(&daemon, "peg connected in-sync");
    let mut black = daemon.connect("black");
    play(
        &mut board,
        &mut black,
        &w,
        &["e2e4", "e7e5", "g1f3", "b8c6"],
    );
    // The blind player's board differs (a pawn where it cannot go), and the sheets differ:
    // D.2.9 proposes a takeback to the last move both sheets agree on.
    board.hand("raw La2");
    board.hand("raw Pa5");
    let mut arbiter = daemon.connect("arbiter");
    arbiter.wait_status("peg connected differs");
    let reply = arbiter.ask("record b e4 e5 Bc4 Nc6");
    assert!(reply.contains("the sheets differ after 2"), "{reply}");
    drop((w, black, arbiter));
    // The peg board is unplugged too: the restarted table has only its journal to know the
    // proposal by (a board that still differs would start a new reconciliation).
    board.unplug();
    daemon.kill9();

    let restarted = unix_ms();
    let daemon = serve(&dir, &[]);
    let mut arbiter = daemon.connect("arbiter");
    let view = arbiter.ask("view");
    assert!(view.contains("\"proposal_plies\":2"), "{view}");
    // Everyone is told again that the arbiter decides.
    transcript_says(&dir, restarted, "all", SHEETS_DIFFER);
    let reply = arbiter.ask("resolve confirm");
    assert!(reply.starts_with("ok"), "{reply}");
    assert!(arbiter.ask("status").contains(" ply 2 "));
    assert_eq!(
        arbiter.ask("sheet"),
        "ok 1. e4 e5",
        "the game is back at the last move both sheets agree on"
    );
}

#[test]
fn a_draw_offer_survives_kill_9_and_the_other_side_accepts_it_after_it() {
    let dir = scratch_dir("proposal-draw");
    let mut board = SimulatedBoard::on_pty("peg", &dir.join("peg"), &[]);
    let daemon = serve(&dir, &[]);
    let w = watcher(&daemon, "peg connected in-sync");
    let mut black = daemon.connect("black");
    play(&mut board, &mut black, &w, &["e2e4", "e7e5", "g1f3"]);
    // White offers a draw after his move (9.1.2.1); Black has not answered when it crashes.
    let mut white = daemon.connect("white");
    assert!(white.ask("offer-draw").starts_with("ok"));
    w.expect_event("the offer", |l| l.starts_with("event draw-offer white"));
    drop((w, white, black));
    daemon.kill9();

    let restarted = unix_ms();
    let daemon = serve(&dir, &[]);
    // Said again after the restart, and shown in the status.
    transcript_says(&dir, restarted, "all", "Weiß bietet Remis an");
    let mut black = daemon.connect("black");
    assert!(black.ask("status").contains("draw-offer white"));
    let reply = black.ask("offer-draw");
    assert!(reply.starts_with("ok"), "{reply}");
    let status = black.ask("status");
    assert!(status.contains("result 1/2-1/2"), "{status}");
}

#[test]
fn a_promotion_waiting_for_its_piece_is_asked_again_after_kill_9_and_the_key_plays_it() {
    // White (the blind player) has a pawn on a7 with a8 free.
    let fen = "7k/P7/8/8/8/8/8/K7 w - - 0 1";
    let dir = scratch_dir("proposal-promotion");
    let mut board = SimulatedBoard::on_pty("peg", &dir.join("peg"), &["--fen", fen]);
    let daemon = serve(&dir, &["--fen", fen]);
    let w = watcher(&daemon, "peg connected in-sync");
    board.hand("raw La7");
    board.hand("raw Pa8");
    w.expect_event("promotion pending", |l| {
        l.starts_with("event peg promotion-pending a7a8")
    });
    drop(w);
    daemon.kill9();

    let restarted = unix_ms();
    let daemon = serve(&dir, &[]);
    // The pawn still stands on a8: the table asks again for the piece.
    let mut w = daemon.connect("observer");
    assert!(w.ask("events").starts_with("ok events"));
    w.wait_status("promotion a7a8");
    transcript_says(&dir, restarted, "blind", PROMOTION_REQUEST);
    board.hand("key N");
    w.expect_event("a8=N", |l| l.starts_with("event move 1 white a7a8n"));
    assert!(w.ask("status").contains("promotion none"));
}

/// An `LD_PRELOAD` shim: once the file `$SLOW_FSYNC_FLAG` exists, the next `fsync` or
/// `fdatasync` of a file whose name ends in `$SLOW_FSYNC_SUFFIX` (the journal's write-ahead
/// log) removes the flag and takes `$SLOW_FSYNC_MS` longer: one slow sync, as a disk stalling.
const SLOW_FSYNC_C: &str = r#"
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void slow(int fd) {
    const char *flag = getenv("SLOW_FSYNC_FLAG");
    const char *suffix = getenv("SLOW_FSYNC_SUFFIX");
    const char *ms = getenv("SLOW_FSYNC_MS");
    if (!flag || !suffix || !ms) return;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0) return;
    path[n] = 0;
    size_t len = strlen(path), slen = strlen(suffix);
    if (len < slen || strcmp(path + len - slen, suffix) != 0) return;
    if (unlink(flag) != 0) return;
    long v = atol(ms);
    struct timespec ts = { v / 1000, (v % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0) {}
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    slow(fd);
    return real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    slow(fd);
    return real(fd);
}
"#;

/// The shim compiled into `dir`.
fn slow_fsync_shim(dir: &Path) -> PathBuf {
    let source = dir.join("slow_fsync.c");
    let shim = dir.join("slow_fsync.so");
    std::fs::write(&source, SLOW_FSYNC_C).unwrap();
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-O2", "-o"])
        .arg(&shim)
        .arg(&source)
        .arg("-ldl")
        .status()
        .expect("cc runs");
    assert!(status.success(), "cc failed to build the fsync shim");
    shim
}

/// How long the journal's sync is held back: past the 10 s reply timeout.
const SLOW_SYNC_MS: u64 = 12_000;

#[test]
fn a_move_whose_journal_write_ends_after_the_reply_timeout_is_answered_as_played() {
    let dir = scratch_dir("proposal-slow-fsync");
    let shim = slow_fsync_shim(&dir);
    let flag = dir.join("slow-now");
    let daemon = Serve::new(&dir.join("state"))
        .args(["--peg", "sim", "--speech", "none"])
        .env("LD_PRELOAD", &shim)
        .env("SLOW_FSYNC_FLAG", &flag)
        .env("SLOW_FSYNC_SUFFIX", "-wal")
        .env("SLOW_FSYNC_MS", SLOW_SYNC_MS.to_string())
        .start();
    let mut white = daemon.connect("white");
    let w = watcher(&daemon, "ply 0");
    std::fs::write(&flag, b"").unwrap();
    let sent = Instant::now();
    let reply = white.ask("move e4");
    let took = sent.elapsed();
    eprintln!("move e4 with the journal's sync held {SLOW_SYNC_MS} ms: {reply:?} after {took:?}");
    assert!(!flag.exists(), "the shim never slowed the journal's sync");
    assert_eq!(reply, "ok e2e4 e4");
    assert!(
        took > Duration::from_secs(10),
        "the reply came before the reply timeout ({took:?}): the sync was not slowed"
    );
    w.expect_event("1.e4", |l| l.starts_with("event move 1 white e2e4"));
    assert_eq!(white.ask("sheet"), "ok 1. e4");
    // `annabella send`, the command-line client, waits for the late reply too and prints it.
    std::fs::write(&flag, b"").unwrap();
    let sent = Instant::now();
    let addr = daemon.control.to_string();
    let state = daemon.state_dir.to_str().unwrap().to_owned();
    let o = annabella(
        &[
            "send",
            "--connect",
            &addr,
            "--role",
            "black",
            "--state-dir",
            &state,
            "move e5",
        ],
        &[],
        "",
    );
    let took = sent.elapsed();
    eprintln!(
        "annabella send 'move e5' with the sync held: {:?} after {took:?}",
        stdout(&o)
    );
    assert!(!flag.exists(), "the shim never slowed the journal's sync");
    assert_eq!(
        (stdout(&o).as_str(), o.status.code()),
        ("ok e7e5 e5\n", Some(0))
    );
    assert!(took > Duration::from_secs(10), "{took:?}");
    assert_eq!(white.ask("sheet"), "ok 1. e4 e5");
}
