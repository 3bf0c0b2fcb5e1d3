//! The real serial stack, end to end: `annabella simulate-board` on a pseudo-terminal (or a TCP
//! port) and `annabella watch` reading it through tokio-serial, the codecs and the detector.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_annabella");
const WAIT: Duration = Duration::from_secs(15);

/// A running process whose standard output lines arrive on a channel.
struct Running {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Running {
    fn start(args: &[&str]) -> Running {
        let mut child = Command::new(BIN)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("annabella runs");
        let stdout = child.stdout.take().unwrap();
        let stdin = child.stdin.take();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Running {
            child,
            stdin,
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits for a line satisfying `want`, failing with everything seen so far.
    fn expect(&mut self, what: &str, want: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if want(&line) {
                        return line;
                    }
                }
                Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => {
                    panic!("no {what} within {WAIT:?}; saw {:#?}", self.seen)
                }
            }
        }
    }

    fn expect_line(&mut self, exact: &str) {
        self.expect(exact, |l| l == exact);
    }

    fn type_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop();
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("annabella-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn simulator(protocol: &str, link: &Path, extra: &[&str]) -> Running {
    let mut args = vec![
        "simulate-board",
        "--protocol",
        protocol,
        "--pty",
        "--link",
        link.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let mut sim = Running::start(&args);
    let path = sim.expect("the pseudo-terminal's path", |l| l.starts_with("/dev/"));
    assert!(Path::new(&path).exists(), "{path}");
    sim
}

#[test]
fn peg_board_moves_arrive_through_a_pseudo_terminal_and_survive_an_unplug() {
    let dir = temp_dir("peg");
    let link = dir.join("pegboard");
    let mut sim = simulator("peg", &link, &[]);
    let mut watch = Running::start(&[
        "watch",
        "--protocol",
        "peg",
        "--device",
        link.to_str().unwrap(),
    ]);
    watch.expect("connected", |l| l.starts_with("connected"));
    watch.expect("the board in sync", |l| l.starts_with("in-sync"));
    for (typed, expected) in [
        ("e4", "move e2e4"),
        ("5755", "move e7e5"),
        ("Nf3", "move g1f3"),
        ("Nc6", "move b8c6"),
    ] {
        sim.type_line(typed);
        watch.expect_line(expected);
    }
    // A capture, captured piece lifted second and first on the next one (the simulator alternates).
    sim.type_line("Bb5");
    watch.expect_line("move f1b5");
    sim.type_line("a6");
    watch.expect_line("move a7a6");
    sim.type_line("Bxc6");
    watch.expect_line("move b5c6");

    // Unplug: the board goes away; the watcher says so and keeps trying.
    sim.stop();
    watch.expect("disconnected", |l| l.starts_with("disconnected"));
    // Re-plug under a new pseudo-terminal with the same link name and the same position.
    let fen = "r1bqkbnr/1ppp1ppp/p1B5/4p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 0 4";
    let mut sim = simulator("peg", &link, &["--fen", fen]);
    watch.expect("connected again", |l| l.starts_with("connected"));
    watch.expect("the re-plugged board in sync", |l| l.starts_with("in-sync"));
    sim.type_line("dxc6");
    watch.expect_line("move d7c6");
    sim.type_line("O-O");
    watch.expect_line("move e1g1");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_move_made_while_the_board_was_unplugged_is_not_lost() {
    let dir = temp_dir("away");
    let link = dir.join("pegboard");
    let mut sim = simulator("peg", &link, &[]);
    let mut watch = Running::start(&[
        "watch",
        "--protocol",
        "peg",
        "--device",
        link.to_str().unwrap(),
    ]);
    watch.expect("the board in sync", |l| l.starts_with("in-sync"));
    sim.type_line("e4");
    watch.expect_line("move e2e4");
    sim.stop();
    watch.expect("disconnected", |l| l.starts_with("disconnected"));
    // While the cable is out, Black answers e7-e5 on the board; then it is plugged in again.
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    let mut sim = simulator("peg", &link, &["--fen", fen]);
    watch.expect("connected again", |l| l.starts_with("connected"));
    watch.expect_line("move e7e5");
    sim.type_line("Nf3");
    watch.expect_line("move g1f3");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn peg_board_promotion_waits_for_the_key() {
    let dir = temp_dir("promo");
    let link = dir.join("pegboard");
    let mut sim = simulator("peg", &link, &["--fen", "8/P6k/8/8/8/8/8/K7 w - - 0 1"]);
    let mut watch = Running::start(&[
        "watch",
        "--protocol",
        "peg",
        "--device",
        link.to_str().unwrap(),
        "--fen",
        "8/P6k/8/8/8/8/8/K7 w - - 0 1",
    ]);
    watch.expect("connected", |l| l.starts_with("connected"));
    watch.expect("the board in sync", |l| l.starts_with("in-sync"));
    sim.type_line("raw La7");
    sim.type_line("raw Pa8");
    watch.expect("promotion-pending", |l| {
        l.starts_with("promotion-pending a7a8")
    });
    sim.type_line("raw KN");
    watch.expect_line("move a7a8n");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn dgt_board_moves_arrive_through_a_pseudo_terminal() {
    let dir = temp_dir("dgt");
    let link = dir.join("dgt");
    let mut sim = simulator("dgt", &link, &[]);
    let mut watch = Running::start(&[
        "watch",
        "--protocol",
        "dgt",
        "--device",
        link.to_str().unwrap(),
    ]);
    watch.expect("connected", |l| l.starts_with("connected"));
    watch.expect("the board in sync", |l| l.starts_with("in-sync"));
    for (typed, expected) in [
        ("e4", "move e2e4"),
        ("d5", "move d7d5"),
        ("exd5", "move e4d5"),
        ("Qxd5", "move d8d5"),
        ("Nc3", "move b1c3"),
    ] {
        sim.type_line(typed);
        watch.expect_line(expected);
    }
    // Unplugged; while away, Black plays Qa5 on the board; plugged in under a new terminal:
    // the board dump shows exactly that move.
    sim.stop();
    watch.expect("disconnected", |l| l.starts_with("disconnected"));
    let fen = "rnb1kbnr/ppp1pppp/8/q7/8/2N5/PPPP1PPP/R1BQKBNR w KQkq - 2 4";
    let mut sim = simulator("dgt", &link, &["--fen", fen]);
    watch.expect("connected again", |l| l.starts_with("connected"));
    watch.expect_line("move d5a5");
    sim.type_line("Nf3");
    watch.expect_line("move g1f3");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_board_behind_a_tcp_bridge() {
    let mut sim = Running::start(&[
        "simulate-board",
        "--protocol",
        "peg",
        "--tcp",
        "127.0.0.1:0",
    ]);
    let endpoint = sim.expect("the listening address", |l| l.starts_with("tcp:127.0.0.1:"));
    let mut watch = Running::start(&["watch", "--protocol", "peg", "--device", &endpoint]);
    watch.expect("connected", |l| l.starts_with("connected"));
    watch.expect("the board in sync", |l| l.starts_with("in-sync"));
    sim.type_line("d4");
    watch.expect_line("move d2d4");
    sim.type_line("Nf6");
    watch.expect_line("move g8f6");
}

#[test]
fn a_board_that_is_not_there_is_reported_and_retried() {
    let dir = temp_dir("absent");
    let link = dir.join("nothing");
    let mut watch = Running::start(&[
        "watch",
        "--protocol",
        "peg",
        "--device",
        link.to_str().unwrap(),
    ]);
    // Plug it in late: the watcher finds it by itself.
    std::thread::sleep(Duration::from_millis(700));
    let mut sim = simulator("peg", &link, &[]);
    watch.expect("connected", |l| l.starts_with("connected"));
    watch.expect("the board in sync", |l| l.starts_with("in-sync"));
    sim.type_line("c4");
    watch.expect_line("move c2c4");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_device_that_cannot_be_opened_is_reported_not_waited_on_in_silence() {
    let dir = temp_dir("no-device");
    let missing = dir.join("ttyNONE");
    let mut watch = Running::start(&[
        "watch",
        "--protocol",
        "peg",
        "--device",
        missing.to_str().unwrap(),
    ]);
    let line = watch.expect("a waiting line", |l| l.starts_with("waiting"));
    assert!(line.contains("ttyNONE"), "{line}");
    watch.stop();
}
