//! The `annabella replay` contract on the built binary: recorded peg and DGT streams in, one line
//! per conclusion out, malformed input reported with its place and skipped.

pub mod common;

use std::io::Write;
use std::process::Output;

use annabella::boards::{SensorEvent, dgt, gestures, peg};
use common::process::{annabella, spawn};
use shakmaty::{Chess, Position};

fn replay(args: &[&str], input: &[u8]) -> Output {
    let mut all = vec!["replay"];
    all.extend_from_slice(args);
    annabella(&all, &[], input)
}

fn lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

fn moves(o: &Output) -> Vec<String> {
    lines(o)
        .into_iter()
        .filter(|l| l.starts_with("move "))
        .collect()
}

/// A game played through the simulator's gestures, as a board would have sent it.
fn recorded(ucis: &[&str], peg_protocol: bool) -> (Vec<u8>, Vec<String>) {
    let mut pos = Chess::default();
    let mut bytes = if peg_protocol {
        Vec::new()
    } else {
        dgt::encode_board_dump(pos.board())
    };
    let mut expected = Vec::new();
    for (i, u) in ucis.iter().enumerate() {
        let m = u
            .parse::<shakmaty::uci::UciMove>()
            .unwrap()
            .to_move(&pos)
            .unwrap();
        let events = if peg_protocol {
            gestures::peg_events(&pos, m, i)
        } else {
            gestures::identity_events(&pos, m, i)
        };
        for e in events {
            match (&e, peg_protocol) {
                (_, true) => bytes.extend(format!("{}\n", peg::encode(&e).unwrap()).bytes()),
                (SensorEvent::SquareChanged { square, piece }, false) => {
                    bytes.extend(dgt::encode_field_update(*square, *piece))
                }
                _ => unreachable!(),
            }
        }
        expected.push(format!("move {u}"));
        pos.play_unchecked(m);
    }
    (bytes, expected)
}

const GAME: &[&str] = &[
    "e2e4", "d7d5", "e4d5", "g8f6", "f1b5", "c7c6", "d5c6", "d8b6", "c6b7", "b8d7", "g1f3", "e7e5",
    "e1g1", "f8d6", "b7a8q",
];

#[test]
fn a_peg_recording_gives_the_games_moves() {
    let (mut bytes, mut expected) = recorded(&GAME[..14], true);
    // The promotion: the pawn goes to a8 capturing the rook, the player presses the knight key.
    bytes.extend(b"Lb7\nLa8\nPa8\nKN\n");
    expected.push("move b7a8n".to_owned());
    let o = replay(&["--protocol", "peg"], &bytes);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(moves(&o), expected);
    assert!(
        lines(&o)
            .iter()
            .any(|l| l.starts_with("promotion-pending b7a8")),
        "{:?}",
        lines(&o)
    );
}

#[test]
fn a_dgt_recording_gives_the_games_moves() {
    let (bytes, expected) = recorded(GAME, false);
    let o = replay(&["--protocol", "dgt"], &bytes);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(moves(&o), expected);
}

#[test]
fn timestamps_are_honoured_and_chatter_is_one_event() {
    // e2 chatters (lift, place, lift within 30 ms): one lift. Then a real move.
    let stream = "@1000 Le2\n@1005 Pe2\n@1010 Le2\n@1500 Pe4\n@3000 Le7\n@3400 Pe5\n";
    let o = replay(&["--protocol", "peg"], stream.as_bytes());
    assert_eq!(moves(&o), ["move e2e4", "move e7e5"]);
    assert!(
        lines(&o).iter().any(|l| l.starts_with("touched e2")),
        "{:?}",
        lines(&o)
    );
    // With debouncing off, the same chatter is a touch put back then a lift.
    let o = replay(
        &["--protocol", "peg", "--debounce-ms", "0"],
        stream.as_bytes(),
    );
    assert_eq!(moves(&o), ["move e2e4", "move e7e5"]);
}

#[test]
fn malformed_lines_are_reported_with_their_number_and_skipped() {
    let stream = "Le2\nXYZ\nPe4\n# a comment\nLz9\nLe7\nPe5\n";
    let o = replay(&["--protocol", "peg"], stream.as_bytes());
    assert!(o.status.success());
    assert_eq!(moves(&o), ["move e2e4", "move e7e5"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("line 2") && err.contains("line 5"), "{err}");
}

#[test]
fn garbage_bytes_in_a_dgt_stream_are_reported_by_offset_and_skipped() {
    let (mut bytes, expected) = recorded(&GAME[..2], false);
    let dump_len = 67;
    bytes.splice(dump_len..dump_len, [0x8e, 0x00]); // a field update cut short
    let o = replay(&["--protocol", "dgt"], &bytes);
    assert!(o.status.success());
    assert_eq!(moves(&o), expected);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("offset"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn illegal_moves_give_corrections_and_takebacks_are_reported() {
    let o = replay(&["--protocol", "peg"], b"Le2\nPe5\n");
    let out = lines(&o);
    assert!(
        out.iter()
            .any(|l| l.starts_with("illegal") && l.contains("e5") && l.contains("e2")),
        "{out:?}"
    );
    // The pawn goes back: the board matches the game again.
    let o = replay(&["--protocol", "peg"], b"Le2\nPe5\nLe5\nPe2\nLe2\nPe4\n");
    assert_eq!(moves(&o), ["move e2e4"]);
    // A takeback of 1.e4: the pawn returns to e2.
    let o = replay(&["--protocol", "peg"], b"Le2\nPe4\nLe4\nPe2\n");
    assert!(
        lines(&o).contains(&"takeback 1".to_owned()),
        "{:?}",
        lines(&o)
    );
}

#[test]
fn chess960_castling_is_written_king_takes_rook() {
    // King b1, rook a1: O-O-O puts the king on c1 and the rook on d1.
    let fen = "1k5r/8/8/8/8/8/8/RK5R w HAh - 0 1";
    let o = replay(
        &["--protocol", "peg", "--chess960", "--fen", fen],
        b"Lb1\nLa1\nPc1\nPd1\n",
    );
    assert_eq!(moves(&o), ["move b1a1"], "{:?}", lines(&o));
}

#[test]
fn arbitrary_bytes_never_crash_the_replay() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..20 {
        let bytes: Vec<u8> = (0..2000)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed >> 24) as u8
            })
            .collect();
        for protocol in ["peg", "dgt"] {
            let o = replay(&["--protocol", protocol], &bytes);
            assert!(
                o.status.success(),
                "{protocol}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
}

#[test]
fn a_closed_standard_error_is_no_panic() {
    // Malformed lines are reported on standard error; a reader that went away (`2>&1 | head`)
    // must not turn the report into a panic: the stream is still read to the end.
    let mut child = spawn(&["replay", "--protocol", "peg"]);
    drop(child.stderr.take());
    let mut input = Vec::new();
    for _ in 0..2000 {
        input.extend_from_slice(b"Lz9\n");
    }
    input.extend_from_slice(b"Le2\nPe4\n");
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(moves(&o), ["move e2e4"]);
}

#[test]
fn a_touch_move_warning_is_a_line_of_its_own() {
    // The knight on b1 is touched and put back, then the other knight moves.
    let o = replay(
        &["--protocol", "peg", "--touch-move", "warn"],
        b"Lb1\nPb1\nLg1\nPf3\n",
    );
    let out = lines(&o);
    let at = out
        .iter()
        .position(|l| l == "move g1f3")
        .expect("the move line, exactly");
    assert!(
        out.get(at + 1)
            .is_some_and(|l| l.starts_with("touch-move ")),
        "{out:?}"
    );
}
