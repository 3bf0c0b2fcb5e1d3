//! A Certabo board end to end: `annabella simulate-board --protocol certabo` on a
//! pseudo-terminal (lines of RFID codes, several a second) read by the real binary — the
//! calibration learned from the start position and kept in the state directory, a whole game
//! through `serve` against the peg board with a restart in the middle (the board no longer in
//! the start position, read with the kept calibration), and a game through `watch`.

pub mod common;

use common::board::SimulatedBoard;
use common::eboard::{EboardTable, LEGALL, play_watched, watch_in_sync};
use common::fs::scratch_dir;

#[test]
fn a_whole_game_against_the_peg_board_through_serve_with_a_restart() {
    let mut table = EboardTable::start("certabo-serve", "certabo");
    let kept = table.dir.join("state/certabo/table-1.calibration");
    // The board's first lines teach the calibration (two agreeing lines of the start position).
    let deadline = std::time::Instant::now() + common::WAIT;
    while !kept.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let calibration = std::fs::read_to_string(&kept).expect("the calibration kept");
    assert_eq!(
        calibration.lines().filter(|l| !l.starts_with('#')).count(),
        32,
        "{calibration}"
    );
    table.play(1, &LEGALL[..6]);
    // Restarted with the board in the middle of the game: the kept calibration reads it.
    table.restart();
    table.play(7, &LEGALL[6..]);
    table
        .watcher
        .expect_event("the result", |l| l.starts_with("event end 1-0"));
    let heard = table.transcript();
    assert!(heard.contains(" blind Eva fünf\n"), "{heard}");
    assert!(heard.contains(" blind Läufer Gustav vier\n"), "{heard}");
    assert!(heard.contains(" opponent Springer Felix drei\n"), "{heard}");
    assert!(heard.contains("Weiß gewinnt"), "{heard}");
}

#[test]
fn watch_learns_the_chips_keeps_them_and_reads_a_game() {
    let dir = scratch_dir("certabo-watch");
    let device = dir.join("board");
    let calibration = dir.join("chips.calibration");
    let flags = ["--calibration", calibration.to_str().unwrap()];
    let mut board = SimulatedBoard::on_pty("certabo", &device, &[]);
    let mut watch = watch_in_sync("certabo", &device, &flags);
    play_watched(
        &mut board,
        &mut watch,
        &[
            "e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6", "b1c3", "a7a6",
        ],
    );
    assert!(calibration.exists());
    // A board plugged in mid-game, watched afresh: the calibration file reads it.
    drop(watch);
    board.unplug();
    let fen = "rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 0 6";
    let mut board = SimulatedBoard::on_pty("certabo", &device, &["--fen", fen]);
    let mut watch = watch_in_sync("certabo", &device, &[&["--fen", fen][..], &flags].concat());
    play_watched(
        &mut board,
        &mut watch,
        &["f1e2", "e7e5", "d4b3", "f8e7", "e1g1"],
    );
    std::fs::remove_dir_all(&dir).ok();
}
