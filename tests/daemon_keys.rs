//! The peg board's keys end to end: the real daemon, a simulated peg board in another process on
//! a pseudo-terminal whose operator presses every key (`key A`), and what the blind player
//! hears (`event say blind …`), which nobody else hears.

pub mod common;

use std::path::Path;
use std::time::Duration;

use common::board::SimulatedBoard;
use common::control::ControlClient;
use common::daemon::{Daemon, Serve};
use common::fs::scratch_dir;

/// `annabella serve` on the peg board at `DIR/peg`, 40 moves in 90 minutes then 30 minutes.
fn serve(dir: &Path) -> Daemon {
    let peg = dir.join("peg");
    let speech = format!("transcript:{}", dir.join("transcript.txt").display());
    let daemon = Serve::new(&dir.join("state"))
        .args(["--peg", peg.to_str().unwrap(), "--speech", &speech])
        .args(["--time-control", "40/5400+30:1800+30"])
        .start();
    assert!(daemon.ready_after < Duration::from_secs(10));
    daemon
}

/// Waits until the blind player hears `want` (the whole utterance, or its start when `want`
/// ends with `…`); the same words said to the opponent or to everyone meanwhile fail.
fn blind_hears(watcher: &ControlClient, want: &str) -> String {
    let (text, prefix) = match want.strip_suffix('…') {
        Some(start) => (start, true),
        None => (want, false),
    };
    let line = watcher.expect_event(want, |l| {
        let Some((listener, said)) = l
            .strip_prefix("event say ")
            .and_then(|rest| rest.split_once(' '))
        else {
            return false;
        };
        let matches = if prefix {
            said.starts_with(text)
        } else {
            said == text
        };
        assert!(
            !matches || listener == "blind",
            "the answer to a key was said to {listener}: {l}"
        );
        matches
    });
    line.trim_start_matches("event say blind ").to_owned()
}

#[test]
fn every_key_of_the_peg_board_is_answered_to_the_blind_player() {
    let dir = scratch_dir("daemon-keys");
    let mut board = SimulatedBoard::on_pty("peg", &dir.join("peg"), &[]);
    let daemon = serve(&dir);
    let mut black = daemon.connect("black");
    let mut watcher = daemon.connect("observer");
    assert!(watcher.ask("events").starts_with("ok events"));
    watcher.wait_status("peg connected in-sync");

    board.hand("key A");
    watcher.expect_event("KA", |l| l == "event key peg repeat");
    blind_hears(&watcher, "Noch kein Zug gespielt");
    board.hand("e2e4");
    watcher.expect_event("1.e4", |l| l.starts_with("event move 1 white e2e4"));
    assert_eq!(black.ask("move 5755"), "ok e7e5 e5");
    board.hand("e7e5");
    watcher.heard("in Ordnung");
    // After the replication, KA says the move again, not "in Ordnung".
    board.hand("key A");
    blind_hears(&watcher, "Zug eins, Schwarz: Eva fünf");
    board.hand("key T");
    let clock = blind_hears(&watcher, "Weiß …");
    assert!(
        clock.ends_with(
            "ein Zug gespielt. Weiß am Zug. Noch neununddreißig Züge bis zur Zeitkontrolle"
        ),
        "{clock}"
    );
    board.hand("key o");
    blind_hears(&watcher, "Ihre Zeit: …");
    board.hand("key H");
    blind_hears(&watcher, "Zug eins, Schwarz: Eva fünf");
    board.hand("key H");
    blind_hears(&watcher, "Zug eins, Weiß: Eva vier");
    board.hand("key H");
    blind_hears(&watcher, "Keine früheren Züge");
    board.hand("key S");
    blind_hears(&watcher, "Es gibt nichts zu bestätigen");
    board.hand("key Z");
    blind_hears(
        &watcher,
        "Aufstellung übernommen, das Brett stimmt mit der Partie überein",
    );
    board.hand("key 7");
    watcher.expect_event("the unknown key", |l| l == "event key peg unknown 7");
    blind_hears(&watcher, "Taste unbekannt");
    // A wrong claim: explained, and the opponent gets his time (FIDE 9.5.3).
    board.hand("key C");
    watcher.expect_event("the wrong claim", |l| {
        l.starts_with("event wrong-claim white")
    });
    blind_hears(&watcher, "Remisreklamation abgelehnt: …");
    // A draw offer is the opponent's to hear too: the request announces it to both.
    board.hand("key D");
    watcher.expect_event("the offer", |l| l == "event say all Weiß bietet Remis an");
    // Resigning takes two presses.
    board.hand("key X");
    blind_hears(&watcher, "Zum Aufgeben die Taste noch einmal drücken");
    assert!(
        black.ask("status").contains("result * "),
        "the game goes on"
    );
    board.hand("key X");
    watcher.expect_event("the resignation", |l| {
        l == "event say all Weiß gibt auf. Schwarz gewinnt"
    });
    assert!(black.ask("status").contains("result 0-1 "));
}
