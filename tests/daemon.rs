//! `annabella serve` end to end: the real binary, a simulated peg board in another process on a
//! pseudo-terminal, TCP clients on the control interface, and the transcript backend. A whole
//! game with castling, en passant, promotion by key, a wrong replication corrected, an illegal
//! move, numeric moves from the correspondence side, a clock request, a refused move from the
//! wrong side, and a `kill -9` in the middle with nothing lost.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_annabella");
const WAIT: Duration = Duration::from_secs(20);

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("annabella-e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The simulated peg board: another process, moves typed on its standard input.
struct Board {
    child: Child,
    stdin: ChildStdin,
}

impl Board {
    fn start(link: &Path) -> Board {
        let mut child = Command::new(BIN)
            .args(["simulate-board", "--protocol", "peg", "--pty", "--link"])
            .arg(link)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("simulate-board runs");
        let stdin = child.stdin.take().unwrap();
        // It prints the pseudo-terminal's path once the link exists.
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        assert!(first.starts_with("/dev/"), "{first}");
        Board { child, stdin }
    }

    /// Hands on the board: a move (the board performs it as a hand would) or `raw LINE`.
    fn hand(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }
}

impl Drop for Board {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `annabella serve`, with its log lines on a channel.
struct Daemon {
    child: Child,
    port: u16,
    state: PathBuf,
}

impl Daemon {
    fn start(dir: &Path, port: u16, extra: &[&str]) -> Daemon {
        let state = dir.join("state");
        let started = Instant::now();
        let mut child = Command::new(BIN)
            .arg("serve")
            .arg("--peg")
            .arg(dir.join("peg"))
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .args(["--web", "off"])
            .arg("--speech")
            .arg(format!(
                "transcript:{}",
                dir.join("transcript.txt").display()
            ))
            .arg("--state-dir")
            .arg(&state)
            .args(["--time-control", "5400+30"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .env("RUST_LOG", "info")
            .spawn()
            .expect("annabella serve runs");
        let (tx, log) = channel();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("serve: {line}");
                // The test may stop listening; the log still goes to the test's output.
                tx.send(line).ok();
            }
        });
        wait_line(&log, "ready", |l| l.contains("ready"));
        assert!(started.elapsed() < Duration::from_secs(10));
        Daemon { child, port, state }
    }

    fn connect(&self, role: &str) -> Client {
        let raw =
            annabella::io::tokens::read_file(&self.state.join(annabella::io::tokens::TOKENS_FILE))
                .unwrap();
        let token = annabella::io::tokens::token_for(&raw, role.parse().unwrap(), None).unwrap();
        let stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        let mut c = Client::new(stream);
        assert!(c.ask(&format!("auth {token}")).starts_with("ok"));
        c
    }

    fn kill9(mut self) {
        // SIGKILL: no shutdown, no flush; only what the journal already holds survives.
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        std::mem::forget(self);
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_line(lines: &Receiver<String>, what: &str, want: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + WAIT;
    let mut seen = Vec::new();
    loop {
        match lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) => {
                if want(&line) {
                    return line;
                }
                seen.push(line);
            }
            Err(_) => panic!("no {what} within {WAIT:?}; saw {seen:#?}"),
        }
    }
}

/// A control connection: replies on one channel, `event` lines on another.
struct Client {
    stream: TcpStream,
    replies: Receiver<String>,
    events: Receiver<String>,
}

impl Client {
    fn new(stream: TcpStream) -> Client {
        let (reply_tx, replies) = channel();
        let (event_tx, events) = channel();
        let reader = BufReader::new(stream.try_clone().unwrap());
        std::thread::spawn(move || {
            for line in reader.lines() {
                let line = match line {
                    Ok(l) => l,
                    Err(e) => {
                        eprintln!("control connection read failed: {e}");
                        break;
                    }
                };
                let to = if line.starts_with("event ") {
                    &event_tx
                } else {
                    &reply_tx
                };
                if to.send(line).is_err() {
                    break;
                }
            }
        });
        Client {
            stream,
            replies,
            events,
        }
    }

    fn ask(&mut self, line: &str) -> String {
        writeln!(self.stream, "{line}").unwrap();
        self.replies.recv_timeout(WAIT).expect("a reply")
    }

    fn expect_event(&self, what: &str, want: impl Fn(&str) -> bool) -> String {
        wait_line(&self.events, what, want)
    }

    /// Asks `status` until its reply contains `want`.
    fn wait_status(&mut self, want: &str) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let status = self.ask("status");
            if status.contains(want) {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "status never showed {want:?}: {status}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until the blind player is told exactly `text`.
    fn heard(&self, text: &str) {
        let want = format!("event say blind {text}");
        self.expect_event(text, |l| l == want);
    }
}

fn transcript(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("transcript.txt")).unwrap_or_default()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn a_whole_game_through_the_daemon_survives_kill_9() {
    let dir = scratch_dir("game");
    let mut board = Board::start(&dir.join("peg"));
    let port = free_port();
    let daemon = Daemon::start(&dir, port, &[]);
    let mut black = daemon.connect("black");
    let mut watcher = daemon.connect("observer");
    assert!(watcher.ask("events").starts_with("ok events"));
    watcher.wait_status("peg connected in-sync");

    // A refused move from the wrong side: it is White's move.
    assert_eq!(
        black.ask("move 5755"),
        "error forbidden you play black; it is white's move"
    );
    assert!(watcher.ask("move e4").starts_with("error forbidden"));

    board.hand("e2e4");
    watcher.expect_event("1.e4", |l| l == "event move 1 white e2e4 e4 peg");
    assert_eq!(black.ask("move 4745"), "ok d7d5 d5");
    watcher.heard("David fünf");
    board.hand("d7d5");
    watcher.heard("in Ordnung");
    board.hand("e4e5");
    watcher.expect_event("2.e5", |l| l.starts_with("event move 3 white e4e5"));
    assert_eq!(black.ask("move 6765"), "ok f7f5 f5");
    board.hand("f7f5");
    watcher.heard("in Ordnung");
    // En passant on the peg board.
    board.hand("e5f6");
    watcher.expect_event("3.exf6 e.p.", |l| l.starts_with("event move 5 white e5f6"));
    assert_eq!(black.ask("move 7886"), "ok g8h6 Sh6");
    board.hand("g8h6");
    watcher.heard("in Ordnung");
    board.hand("f6g7");
    watcher.expect_event("4.fxg7", |l| l.starts_with("event move 7 white f6g7"));
    assert_eq!(black.ask("move 8667"), "ok h6f7 Sf7");
    board.hand("h6f7");
    watcher.heard("in Ordnung");
    // Promotion with capture: the table asks, the key answers.
    board.hand("g7h8q");
    watcher.expect_event("promotion pending", |l| {
        l.starts_with("event peg promotion-pending")
    });
    watcher.expect_event("5.gxh8=Q", |l| l.starts_with("event move 9 white g7h8q"));
    assert_eq!(black.ask("move 6788"), "ok f7h8 Sxh8");
    board.hand("f7h8");
    watcher.heard("in Ordnung");
    board.hand("g1f3");
    watcher.expect_event("6.Nf3", |l| l.starts_with("event move 11 white g1f3"));
    assert_eq!(black.ask("move 3874"), "ok c8g4 Lg4");
    watcher.heard("Läufer Gustav vier");
    // He replicates the bishop move wrongly and is guided back.
    board.hand("raw Lc8");
    board.hand("raw Pf5");
    watcher.expect_event("the correction", |l| {
        l.starts_with("event say blind Brett stimmt nicht") && l.contains("Felix fünf")
    });
    board.hand("raw Lf5");
    board.hand("raw Pg4");
    watcher.expect_event("the board right again", |l| {
        l == "event say blind in Ordnung" || l.starts_with("event say blind Brett stimmt wieder")
    });
    // The simulator learns the position it now shows (a snapshot that agrees).
    let fen = black.ask("board");
    board.hand(&format!("fen {}", fen.trim_start_matches("ok ")));
    board.hand("f1e2");
    watcher.expect_event("7.Be2", |l| l.starts_with("event move 13 white f1e2"));
    assert_eq!(black.ask("move 5756"), "ok e7e6 e6");
    board.hand("e7e6");
    watcher.heard("in Ordnung");
    // An illegal king move, then put back.
    board.hand("raw Le1");
    board.hand("raw Pe3");
    watcher.expect_event("illegal", |l| {
        l.starts_with("event say blind Unzulässiger Zug")
            && l.contains("König von Eva drei nach Eva eins")
    });
    board.hand("raw Le3");
    board.hand("raw Pe1");
    watcher.expect_event("in sync again", |l| {
        l.starts_with("event say blind Brett stimmt wieder")
    });
    // A malformed line from the board is reported with where it was, and nothing else happens.
    board.hand("raw Zq9");
    watcher.expect_event("the malformed line", |l| {
        l.starts_with("event board-error peg line ") && l.contains("Zq9")
    });
    // The talking clock on request.
    board.hand("raw KT");
    watcher.expect_event("the clock", |l| {
        l.starts_with("event say blind Weiß ") && l.contains("Schwarz") && l.ends_with("gespielt")
    });
    // Castling on the peg board.
    board.hand("e1g1");
    watcher.expect_event("8.O-O", |l| {
        l.starts_with("event move 15 white e1g1 O-O peg")
    });

    let sheet = black.ask("sheet");
    let fen = black.ask("board");
    let clock_before = black.ask("clock");
    daemon.kill9();

    // Restarted on the same state dir: the same game, the same sheet, clocks restored.
    let daemon = Daemon::start(&dir, port, &[]);
    let mut black = daemon.connect("black");
    assert_eq!(black.ask("sheet"), sheet);
    assert_eq!(black.ask("board"), fen);
    let clock_after = black.ask("clock");
    assert_eq!(
        clock_field(&clock_after, "white"),
        clock_field(&clock_before, "white"),
        "{clock_before} / {clock_after}"
    );
    assert!(clock_after.contains("running black"), "{clock_after}");
    let mut watcher = daemon.connect("observer");
    assert!(watcher.ask("events").starts_with("ok events"));
    let status = watcher.ask("status");
    assert!(status.contains("ply 15"), "{status}");
    // The game goes on.
    assert_eq!(black.ask("move 4846"), "ok d8d6 Dd6");
    board.hand("d8d6");
    watcher.heard("in Ordnung");
    // Both scoresheets follow the game; the assistant enters the sighted player's paper sheet
    // in numeric notation and the two are compared as moves.
    assert_eq!(black.ask("sheet a"), black.ask("sheet b"));
    let mut assistant = daemon.connect("assistant");
    let reply = assistant.ask(
        "record b 5254 4745 5455 6765 5566 7886 6677 8667 77881 6788 7163 3874 6152 5756 5171 4846",
    );
    assert_eq!(
        reply,
        "ok sheet b: 16 half-moves; the sheets agree (16 half-moves)"
    );
    assert!(
        std::fs::read_to_string(daemon.state.join("records/table-1.txt"))
            .unwrap()
            .contains("sheets agree")
    );
    assert_eq!(black.ask("resign"), "ok black resigns");
    let archived = watcher.expect_event("the archived game", |l| l.starts_with("event archived "));
    let pgn = std::fs::read_to_string(archived.trim_start_matches("event archived ")).unwrap();
    assert!(pgn.contains("[Result \"1-0\"]"), "{pgn}");
    assert!(pgn.contains("5. gxh8=Q"), "{pgn}");
    assert!(pgn.contains("8. O-O") && pgn.contains("8... Qd6"), "{pgn}");
    let heard = transcript(&dir);
    assert!(heard.contains(" blind David fünf\n"), "{heard}");
    assert!(heard.contains(" opponent Kurze Rochade\n"), "{heard}");
    assert!(
        heard.contains(" all Schwarz gibt auf. Weiß gewinnt\n"),
        "{heard}"
    );
    drop(daemon);
    let _ = std::fs::remove_dir_all(&dir);
}

fn clock_field<'a>(reply: &'a str, color: &str) -> &'a str {
    let mut words = reply.split_whitespace();
    while let Some(w) = words.next() {
        if w == color {
            return words.next().unwrap_or("");
        }
    }
    ""
}

#[test]
fn sigterm_stops_the_daemon_gracefully_and_a_restart_restores_the_game() {
    let dir = scratch_dir("sigterm");
    let mut board = Board::start(&dir.join("peg"));
    let port = free_port();
    let mut daemon = Daemon::start(&dir, port, &["--log-format", "json"]);
    let mut black = daemon.connect("black");
    black.wait_status("peg connected in-sync");
    board.hand("e2e4");
    black.wait_status("ply 1");
    assert_eq!(black.ask("move 5755"), "ok e7e5 e5");
    let status = Command::new("kill")
        .args(["-TERM", &daemon.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + WAIT;
    let exit = loop {
        if let Some(exit) = daemon.child.try_wait().unwrap() {
            break exit;
        }
        assert!(
            Instant::now() < deadline,
            "the daemon did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(exit.success(), "{exit:?}");
    // The subscriber heard the shutdown; the journal holds the game.
    drop(daemon);
    let daemon = Daemon::start(&dir, port, &[]);
    let mut black = daemon.connect("black");
    assert_eq!(black.ask("sheet"), "ok 1. e4 e5");
    drop(board);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_hostile_client_gets_error_lines_and_the_table_plays_on() {
    let dir = scratch_dir("hostile");
    let mut board = Board::start(&dir.join("peg"));
    let port = free_port();
    let daemon = Daemon::start(&dir, port, &[]);
    // Garbage before auth, binary bytes, an overlong line, a line feed flood without auth.
    let mut rogue = TcpStream::connect(("127.0.0.1", port)).unwrap();
    rogue.write_all(b"\x00\xff\xfe garbage\n").unwrap();
    rogue.write_all(&vec![b'x'; 4096]).unwrap();
    rogue.write_all(b"\nmove e4\n").unwrap();
    rogue
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut replies = String::new();
    let mut reader = BufReader::new(rogue.try_clone().unwrap());
    for _ in 0..3 {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        replies.push_str(&line);
    }
    assert!(
        replies.contains("error syntax not UTF-8") || replies.contains("error auth"),
        "{replies}"
    );
    assert!(replies.contains("error syntax line of"), "{replies}");
    assert!(replies.contains("error auth move before auth"), "{replies}");
    // The real players are not disturbed.
    let mut black = daemon.connect("black");
    black.wait_status("peg connected in-sync");
    board.hand("e2e4");
    black.wait_status("ply 1");
    assert_eq!(black.ask("move e5"), "ok e7e5 e5");
    drop(daemon);
    let _ = std::fs::remove_dir_all(&dir);
}
