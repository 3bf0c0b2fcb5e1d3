//! A Millennium ChessLink board end to end: `annabella simulate-board --protocol millennium` on
//! a pseudo-terminal (7 data bits, odd parity, its real status messages) read by the real
//! binary — a whole game through `serve` against the peg board with the announcements checked,
//! and a game through `watch`.

pub mod common;

use common::board::SimulatedBoard;
use common::eboard::{EboardTable, LEGALL, play_watched, watch_in_sync};
use common::fs::scratch_dir;

#[test]
fn a_whole_game_against_the_peg_board_through_serve() {
    let mut table = EboardTable::start("millennium-serve", "millennium");
    table.play(1, &LEGALL);
    table
        .watcher
        .expect_event("the result", |l| l.starts_with("event end 1-0"));
    let heard = table.transcript();
    // Black's moves on the e-board are announced to the blind player, White's to his opponent.
    assert!(heard.contains(" blind Eva fünf\n"), "{heard}");
    assert!(heard.contains(" blind Läufer Gustav vier\n"), "{heard}");
    assert!(heard.contains(" opponent Springer Felix drei\n"), "{heard}");
    assert!(heard.contains("Weiß gewinnt"), "{heard}");
    let status = table.watcher.ask("status");
    assert!(status.contains("ply 13"), "{status}");
}

#[test]
fn watch_reads_an_opening_with_captures_and_castling() {
    let dir = scratch_dir("millennium-watch");
    let device = dir.join("board");
    let mut board = SimulatedBoard::on_pty("millennium", &device, &[]);
    let mut watch = watch_in_sync("millennium", &device, &[]);
    play_watched(
        &mut board,
        &mut watch,
        &[
            "d2d4", "g8f6", "c2c4", "e7e6", "b1c3", "f8b4", "e2e3", "e8g8", "f1d3", "d7d5",
        ],
    );
    // Captures both ways, and castling for White.
    play_watched(
        &mut board,
        &mut watch,
        &["c4d5", "e6d5", "g1e2", "b4c3", "b2c3", "f8e8", "e1g1"],
    );
    std::fs::remove_dir_all(&dir).ok();
}
