//! `annabella serve` end to end: the real binary, a simulated peg board in another process on a
//! pseudo-terminal, TCP clients on the control interface, and the transcript backend. A whole
//! game with castling, en passant, promotion by key, a wrong replication corrected, an illegal
//! move, numeric moves from the correspondence side, a clock request, a refused move from the
//! wrong side, and a `kill -9` in the middle with nothing lost.

pub mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;

use common::board::SimulatedBoard;
use common::daemon::{Daemon, Serve};
use common::fs::scratch_dir;

/// `annabella serve` on the peg board at `DIR/peg`, speaking into `DIR/transcript.txt`, its
/// state in `DIR/state`, 90 minutes and 30 seconds a move on the clock; ready within 10 s.
fn serve(dir: &Path, extra: &[&str]) -> Daemon {
    let peg = dir.join("peg");
    let speech = format!("transcript:{}", dir.join("transcript.txt").display());
    let daemon = Serve::new(&dir.join("state"))
        .args(["--peg", peg.to_str().unwrap(), "--speech", &speech])
        .args(["--time-control", "5400+30"])
        .args(extra.iter().copied())
        .start();
    assert!(daemon.ready_after < Duration::from_secs(10));
    daemon
}

fn board(dir: &Path) -> SimulatedBoard {
    SimulatedBoard::on_pty("peg", &dir.join("peg"), &[])
}

fn transcript(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("transcript.txt")).unwrap_or_default()
}

#[test]
fn a_whole_game_through_the_daemon_survives_kill_9() {
    let dir = scratch_dir("daemon-game");
    let mut board = board(&dir);
    let daemon = serve(&dir, &[]);
    let mut black = daemon.connect("black");
    // New connections speak English; this one reads and writes the table's German.
    assert_eq!(black.ask("lang de"), "ok lang de");
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
    // The talking clock on request: both times, the moves played, whose turn.
    board.hand("raw KT");
    watcher.expect_event("the clock", |l| {
        l.starts_with("event say blind Weiß ")
            && l.contains("Schwarz")
            && l.ends_with("gespielt. Weiß am Zug")
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
    let daemon = serve(&dir, &[]);
    let mut black = daemon.connect("black");
    // New connections speak English; this one reads and writes the table's German.
    assert_eq!(black.ask("lang de"), "ok lang de");
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
        std::fs::read_to_string(daemon.state_dir.join("records/table-1.txt"))
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
    let dir = scratch_dir("daemon-sigterm");
    let mut board = board(&dir);
    let mut daemon = serve(&dir, &["--log-format", "json"]);
    let mut black = daemon.connect("black");
    // New connections speak English; this one reads and writes the table's German.
    assert_eq!(black.ask("lang de"), "ok lang de");
    black.wait_status("peg connected in-sync");
    board.hand("e2e4");
    black.wait_status("ply 1");
    assert_eq!(black.ask("move 5755"), "ok e7e5 e5");
    let exit = daemon.terminate();
    assert!(exit.success(), "{exit:?}");
    // The subscriber heard the shutdown; the journal holds the game.
    drop(daemon);
    let daemon = serve(&dir, &[]);
    let mut black = daemon.connect("black");
    // New connections speak English; this one reads and writes the table's German.
    assert_eq!(black.ask("lang de"), "ok lang de");
    assert_eq!(black.ask("sheet"), "ok 1. e4 e5");
    drop(board);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_hostile_client_gets_error_lines_and_the_table_plays_on() {
    let dir = scratch_dir("daemon-hostile");
    let mut board = board(&dir);
    let daemon = serve(&dir, &[]);
    // Garbage before auth, binary bytes, an overlong line, a line feed flood without auth.
    let mut rogue = TcpStream::connect(daemon.control).unwrap();
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
    // New connections speak English; this one reads and writes the table's German.
    assert_eq!(black.ask("lang de"), "ok lang de");
    black.wait_status("peg connected in-sync");
    board.hand("e2e4");
    black.wait_status("ply 1");
    assert_eq!(black.ask("move e5"), "ok e7e5 e5");
    drop(daemon);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The next game without a restart: a table started from a position with the players' names,
/// a game resigned and archived, the arbiter's `new-game`, and a restart that finds the new
/// game with its names.
#[test]
fn the_arbiter_begins_the_next_game_and_a_restart_finds_it() {
    let dir = scratch_dir("daemon-next-game");
    let _board = board(&dir);
    let start = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";
    let extra = [
        "--fen",
        start,
        "--white",
        "Anna Müller",
        "--black",
        "Bert Braun",
    ];
    let mut daemon = serve(&dir, &extra);
    let mut arbiter = daemon.connect("arbiter");
    let mut white = daemon.connect("white");
    let mut black = daemon.connect("black");
    // New connections speak English; this one reads and writes the table's German.
    assert_eq!(black.ask("lang de"), "ok lang de");
    assert_eq!(arbiter.ask("board"), format!("ok {start}"));
    assert!(
        transcript(&dir).contains("Neue Partie. Bedenkzeit eine Stunde dreißig Minuten"),
        "{}",
        transcript(&dir)
    );
    assert!(
        arbiter
            .ask("new-game")
            .starts_with("error state the game is not over")
    );
    // The first game's clock waits for the set-up too: the peg board shows the standard
    // position, not this one, so the arbiter starts it.
    assert_eq!(
        white.ask("move e4"),
        "error state the clock waits until the boards show the game's start position (or the \
         arbiter's resume); no move before"
    );
    assert_eq!(arbiter.ask("resume"), "ok clock running");
    assert_eq!(white.ask("move e4"), "ok e2e4 e4");
    assert_eq!(black.ask("resign"), "ok black resigns");

    assert_eq!(
        arbiter.ask("new-game"),
        "ok new game rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    assert!(
        arbiter
            .ask("status")
            .starts_with("ok table table-1 ply 0 turn white result *")
    );
    assert_eq!(arbiter.ask("tag round 2"), "ok round 2");
    assert_eq!(white.ask("move d4"), "ok d2d4 d4");
    let archived: Vec<_> = std::fs::read_dir(dir.join("state/games"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(archived, ["table-1-1.pgn"], "the first game is archived");
    let first = std::fs::read_to_string(dir.join("state/games/table-1-1.pgn")).unwrap();
    assert!(
        first.contains("[White \"Anna Müller\"]") && first.contains("1-0"),
        "{first}"
    );
    drop((arbiter, white, black));
    assert!(daemon.terminate().success());

    let restarted = serve(&dir, &[]);
    let mut arbiter = restarted.connect("arbiter");
    assert!(
        arbiter
            .ask("status")
            .starts_with("ok table table-1 ply 1 turn black")
    );
    assert_eq!(arbiter.ask("sheet"), "ok 1. d4");
    let pgn = arbiter.ask("export pgn");
    assert!(
        pgn.contains("[White \\\"Anna Müller\\\"]") && pgn.contains("[Round \\\"2\\\"]"),
        "{pgn}"
    );
}

/// One protocol per port: a page on another origin that POSTs `auth TOKEN` and a request to
/// the control port is closed at its first HTTP line, and nothing in its body runs (issue 23).
#[test]
fn the_control_port_closes_on_http_and_runs_nothing_of_it() {
    use std::io::Read;
    let dir = scratch_dir("daemon-http");
    let mut daemon = Serve::new(&dir.join("state")).start();
    let token = daemon.token("arbiter");
    let body = format!("auth {token}\ntag event Forged\n");
    let mut stream = TcpStream::connect(daemon.control).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let request = format!(
        "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    // The daemon closes at the request line: the rest of the write may meet a closed socket
    // (broken pipe), and what it had not read yet may turn its close into a reset, which can
    // take its answer with it. Either way nothing after the request line may run.
    let _ = stream.write_all(request.as_bytes());
    let mut answer = Vec::new();
    match stream.read_to_end(&mut answer) {
        Ok(_) => assert_eq!(
            String::from_utf8_lossy(&answer).trim_end(),
            "error syntax this is annabella's control port, not HTTP; closing",
            "closed at the request line, nothing after it answered"
        ),
        Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset, "{e}"),
    }
    let mut arbiter = daemon.connect("arbiter");
    assert!(arbiter.ask("table table-1").starts_with("ok"));
    let export = arbiter.ask("export pgn");
    assert!(!export.contains("Forged"), "the body ran: {export}");
    daemon.terminate();
    std::fs::remove_dir_all(&dir).ok();
}
