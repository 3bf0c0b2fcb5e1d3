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

/// A game as a Certabo board sent it: each state the hand leaves the board in, two lines each
/// (the decoder believes a square once two of the last three lines agree).
fn recording(ucis: &[&str]) -> Vec<u8> {
    use annabella::boards::Protocol;
    use annabella::chess::{game::Game, language::Language};
    use annabella::io::simulator::SimulatedBoard;
    let mut board =
        SimulatedBoard::new(Protocol::Certabo, Game::new(), Language::english().clone());
    let mut bytes = board.snapshot().repeat(2);
    for uci in ucis {
        for line in board.operator_line(uci).unwrap() {
            bytes.extend(line.repeat(2));
        }
    }
    bytes
}

#[test]
fn replay_learns_the_chips_from_the_recording_or_reads_them_from_a_file() {
    let game = [
        "e2e4", "d7d5", "e4d5", "g8f6", "f1b5", "c7c6", "d5c6", "d8b6", "c6b7", "b8d7", "g1f3",
        "e7e5", "e1g1", "f8d6",
    ];
    let expected: Vec<String> = game.iter().map(|u| format!("move {u}")).collect();
    let moves = |o: &std::process::Output| -> Vec<String> {
        common::process::stdout(o)
            .lines()
            .filter(|l| l.starts_with("move "))
            .map(str::to_owned)
            .collect()
    };
    let mut bytes = recording(&game);
    // A line cut short in the middle: reported by its number, and nothing else happens.
    let second = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    bytes.splice(second..second, *b":1 2 3\r\n");
    let o = common::process::annabella(&["replay", "--protocol", "certabo"], &[], &bytes);
    assert!(o.status.success());
    assert_eq!(moves(&o), expected);
    let err = common::process::stderr(&o);
    assert!(err.contains("line 2: 3 numbers"), "{err}");

    // The recording without its start position: only a calibration file reads it.
    let dir = scratch_dir("certabo-replay");
    let file = dir.join("chips.calibration");
    let start = recording(&[]);
    let codes = annabella::boards::certabo::ChipBoard::new(&shakmaty::Board::new()).codes();
    let calibration = annabella::boards::certabo::Calibration::from_start_position(&codes).unwrap();
    std::fs::write(&file, calibration.to_text()).unwrap();
    let later = recording(&game)[start.len()..].to_vec();
    let o = common::process::annabella(
        &[
            "replay",
            "--protocol",
            "certabo",
            "--calibration",
            file.to_str().unwrap(),
        ],
        &[],
        &later,
    );
    // The first board read (the e2 pawn in the hand) is judged against the start position as
    // a board just plugged in; the hand then completes e2-e4 and the game follows.
    assert_eq!(moves(&o), expected, "{}", common::process::stdout(&o));
    std::fs::remove_dir_all(&dir).ok();
}
