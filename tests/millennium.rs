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

/// A game as a Millennium board sent it (the simulator's bytes, hand by hand), with noise.
fn recording(ucis: &[&str]) -> Vec<u8> {
    use annabella::boards::Protocol;
    use annabella::chess::{game::Game, language::Language};
    use annabella::io::simulator::SimulatedBoard;
    let mut board = SimulatedBoard::new(
        Protocol::Millennium,
        Game::new(),
        Language::english().clone(),
    );
    let mut bytes = board.snapshot();
    for uci in ucis {
        bytes.extend(board.operator_line(uci).unwrap().concat());
    }
    bytes
}

#[test]
fn replay_reads_a_recording_with_a_promotion_and_reports_bad_bytes_by_offset() {
    let game = [
        "e2e4", "d7d5", "e4d5", "g8f6", "f1b5", "c7c6", "d5c6", "d8b6", "c6b7", "b8d7", "g1f3",
        "e7e5", "e1g1", "f8d6", "b7a8q",
    ];
    let mut bytes = recording(&game);
    bytes.splice(67..67, *b"#?");
    let o = common::process::annabella(&["replay", "--protocol", "millennium"], &[], &bytes);
    assert!(o.status.success());
    let moves: Vec<String> = common::process::stdout(&o)
        .lines()
        .filter(|l| l.starts_with("move "))
        .map(str::to_owned)
        .collect();
    let expected: Vec<String> = game.iter().map(|u| format!("move {u}")).collect();
    assert_eq!(moves, expected);
    let err = common::process::stderr(&o);
    assert!(
        err.contains("byte offset 67: 2 bytes outside any message"),
        "{err}"
    );
}
