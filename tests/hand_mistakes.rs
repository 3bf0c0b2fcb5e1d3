//! The hand's mistakes at the table (issue 24), end to end: the real daemon, a simulated peg
//! board on a pseudo-terminal whose operator's hand knocks, slips, keeps a piece in his hand
//! and drops a peg (`Lf3`/`Pg5`: lift, place), and what the blind player hears. Each scene
//! is the one found at the board, followed by the table's own instructions to the letter: the
//! board ends in sync, no move is played that he never meant, and nothing waits for a key.

pub mod common;

use std::path::Path;
use std::time::Duration;

use common::board::SimulatedBoard;
use common::control::ControlClient;
use common::daemon::{Daemon, Serve};
use common::fs::scratch_dir;

/// `annabella serve` on the peg board at `DIR/peg`, the blind player White, 5 minutes.
fn serve(dir: &Path) -> Daemon {
    let peg = dir.join("peg");
    let speech = format!("transcript:{}", dir.join("transcript.txt").display());
    let daemon = Serve::new(&dir.join("state"))
        .args(["--peg", peg.to_str().unwrap(), "--speech", &speech])
        .args(["--time-control", "300"])
        .start();
    assert!(daemon.ready_after < Duration::from_secs(10));
    daemon
}

/// Waits until the blind player hears exactly `want`; a move played meanwhile fails the test
/// (no move is concluded while his board is being corrected).
fn hears_no_move(watcher: &ControlClient, want: &str) {
    let line = format!("event say blind {want}");
    watcher.expect_event(want, |l| {
        assert!(
            !l.starts_with("event move "),
            "a move was played while the board was corrected: {l} (waiting for {want})"
        );
        l == line
    });
}

/// The table with 1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 played (Black by the control interface, each
/// replicated on the peg board): White, the blind player, to move.
fn italian(dir: &Path) -> (SimulatedBoard, Daemon, ControlClient, ControlClient) {
    let mut board = SimulatedBoard::on_pty("peg", &dir.join("peg"), &[]);
    let daemon = serve(dir);
    let black = daemon.connect("black");
    let mut watcher = daemon.connect("observer");
    assert!(watcher.ask("events").starts_with("ok events"));
    watcher.wait_status("peg connected in-sync");
    let mut black = black;
    for (ply, (white, reply)) in [("e2e4", "e7e5"), ("g1f3", "b8c6"), ("f1c4", "f8c5")]
        .into_iter()
        .enumerate()
    {
        board.hand(white);
        let n = 2 * ply + 1;
        watcher.expect_event(white, |l| {
            l.starts_with(&format!("event move {n} white {white}"))
        });
        let answer = black.ask(&format!("move {reply}"));
        assert!(answer.starts_with(&format!("ok {reply}")), "{answer}");
        board.hand(reply);
        watcher.heard("in Ordnung");
    }
    (board, daemon, black, watcher)
}

#[test]
fn following_a_correction_plays_no_move_he_never_meant() {
    let dir = scratch_dir("hand-mistakes-follow");
    let (mut board, _daemon, mut black, watcher) = italian(&dir);
    // Knight and bishop knocked into wrong holes.
    for line in ["Lf3", "Lc4", "Pg5", "Pb5"] {
        board.hand(&format!("raw {line}"));
    }
    hears_no_move(
        &watcher,
        "Unzulässiger Zug: Figuren stehen falsch. Läufer von Bella fünf nach Cesar vier",
    );
    // He does exactly that: the knight on g5 is not 4.Ng5, and the next instruction comes
    // by itself.
    board.hand("raw Lb5");
    board.hand("raw Pc4");
    hears_no_move(&watcher, "Springer von Gustav fünf nach Felix drei");
    board.hand("key A");
    hears_no_move(&watcher, "Springer von Gustav fünf nach Felix drei");
    board.hand("raw Lg5");
    board.hand("raw Pf3");
    hears_no_move(&watcher, "Brett stimmt wieder");
    let status = black.ask("status");
    assert!(status.contains(" ply 6 "), "no move was played: {status}");
    // And his real move counts.
    board.hand("e1g1");
    watcher.expect_event("4.O-O", |l| l.starts_with("event move 7 white e1g1"));
}

#[test]
fn a_knocked_piece_is_guided_back_while_a_peg_stays_in_his_hand() {
    let dir = scratch_dir("hand-mistakes-knocked");
    let (mut board, _daemon, mut black, watcher) = italian(&dir);
    // The h-pawn in his hand, the black knight knocked from c6 to b4.
    for line in ["Lh2", "Lc6", "Pb4"] {
        board.hand(&format!("raw {line}"));
    }
    // Said at once, naming the piece the table believes is there.
    hears_no_move(
        &watcher,
        "Brett stimmt nicht mit der Partie überein. Springer von Bella vier nach Cesar sechs",
    );
    board.hand("key A");
    hears_no_move(
        &watcher,
        "Brett stimmt nicht mit der Partie überein. Springer von Bella vier nach Cesar sechs",
    );
    board.hand("raw Lb4");
    board.hand("raw Pc6");
    // The piece in his hand is asked for, without a key.
    hears_no_move(&watcher, "weißen Bauern zurück auf Hector zwei stellen");
    board.hand("raw Ph2");
    hears_no_move(&watcher, "Brett stimmt wieder");
    let status = black.ask("status");
    assert!(status.contains(" ply 6 "), "no move was played: {status}");
    board.hand("e1g1");
    watcher.expect_event("4.O-O", |l| l.starts_with("event move 7 white e1g1"));
}

#[test]
fn a_dropped_peg_is_to_be_removed_and_is_no_illegal_move() {
    let dir = scratch_dir("hand-mistakes-dropped");
    let mut board = SimulatedBoard::on_pty("peg", &dir.join("peg"), &[]);
    let daemon = serve(&dir);
    let mut watcher = daemon.connect("observer");
    assert!(watcher.ask("events").starts_with("ok events"));
    watcher.wait_status("peg connected in-sync");
    board.hand("raw Pe4");
    hears_no_move(
        &watcher,
        "Brett stimmt nicht mit der Partie überein. die Figur auf Eva vier entfernen",
    );
    board.hand("raw Le4");
    hears_no_move(&watcher, "Brett stimmt wieder");
    board.hand("e2e4");
    watcher.expect_event("1.e4", |l| l.starts_with("event move 1 white e2e4"));
}

/// Both times as the `clock` request answers them (a stopped clock reads the same twice).
fn clock(client: &mut ControlClient) -> String {
    let reply = client.ask("clock");
    assert!(reply.starts_with("ok "), "{reply}");
    reply
}

#[test]
fn the_next_game_starts_when_the_boards_are_set_up() {
    let dir = scratch_dir("hand-mistakes-new-game");
    let mut board = SimulatedBoard::on_pty("peg", &dir.join("peg"), &[]);
    let daemon = serve(&dir);
    let mut black = daemon.connect("black");
    let mut arbiter = daemon.connect("arbiter");
    let mut watcher = daemon.connect("observer");
    assert!(watcher.ask("events").starts_with("ok events"));
    watcher.wait_status("peg connected in-sync");
    board.hand("e2e4");
    watcher.expect_event("1.e4", |l| l.starts_with("event move 1 white e2e4"));
    assert!(black.ask("move e7e5").starts_with("ok e7e5"));
    board.hand("e7e5");
    watcher.heard("in Ordnung");
    assert_eq!(black.ask("resign"), "ok black resigns");
    let reply = arbiter.ask("new-game");
    assert!(reply.starts_with("ok new game"), "{reply}");
    // The game is announced first, then the set-up is guided; the clock stands still.
    let order = std::cell::RefCell::new(Vec::new());
    watcher.expect_event("the first instruction", |l| {
        if l.starts_with("event say ") || l.starts_with("event clock ") {
            order.borrow_mut().push(l.to_owned());
        }
        l.starts_with("event say blind Brett stimmt nicht")
    });
    let mut order = order.into_inner();
    order.retain(|l| !l.contains("gibt auf"));
    assert!(
        order[0].starts_with("event say all Neue Partie. Bedenkzeit fünf Minuten"),
        "{order:#?}"
    );
    assert!(order.iter().any(|l| l == "event clock pause"), "{order:#?}");
    let before = clock(&mut arbiter);
    assert_eq!(
        before,
        "ok white 0:05:00 black 0:05:00 moves 0 running none"
    );
    // His move waits for the set-up.
    board.hand("raw Le4");
    board.hand("raw Pe2");
    watcher.heard("Bauer von Eva fünf nach Eva sieben");
    board.hand("raw Le5");
    board.hand("raw Pe7");
    let said = std::cell::RefCell::new(Vec::new());
    watcher.expect_event("the clock started", |l| {
        if l.starts_with("event say ") {
            said.borrow_mut().push(l.to_owned());
        }
        l == "event clock resume"
    });
    let said = said.into_inner();
    assert!(
        said.iter()
            .any(|l| l == "event say blind Brett stimmt wieder"),
        "{said:#?}"
    );
    assert!(
        !said.iter().any(|l| l.contains("fünf Minuten")),
        "no clock call before move 1: {said:#?}"
    );
    // Not a millisecond of his time ran before the board was set up; now it runs.
    let after = clock(&mut arbiter);
    assert!(after.ends_with("running white"), "{after}");
    board.hand("d2d4");
    watcher.expect_event("1.d4", |l| l.starts_with("event move 1 white d2d4"));
}
