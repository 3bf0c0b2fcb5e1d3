//! `annabella reconcile` (FIDE D.2.9) tested on the built binary, one scenario per branch, and
//! properties of the core: actions always bring a board to the position, no input panics.

pub mod common;

use std::collections::BTreeMap;
use std::process::Output;

use annabella::chess::game::Game;
use annabella::chess::language::Language;
use annabella::table::corrections::{self, Observed};
use annabella::table::reconcile::{BoardInput, ReconcileInput, Sheet, Side, read_sheet, reconcile};
use common::process::annabella;
use proptest::prelude::*;
use serde_json::Value;
use shakmaty::{Bitboard, Board, Chess, Position};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
const START_PEGS: &str = "SFFFF00000000FFFF";
/// After 1.e4 e5 2.Nf3.
const AFTER_NF3: &str = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R";

fn run(extra: &[&str], a: &str, b: &str, board_a: &str, board_b: &str) -> Output {
    let mut args = vec!["reconcile"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&[
        "--sheet-a",
        a,
        "--sheet-b",
        b,
        "--board-a",
        board_a,
        "--board-b",
        board_b,
    ]);
    annabella(&args, &[], "")
}

/// A reconciliation that must succeed: its JSON, checked against the contract.
fn reconcile_ok(extra: &[&str], a: &str, b: &str, board_a: &str, board_b: &str) -> Value {
    let o = run(extra, a, b, board_a, board_b);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "reconcile failed: {err}");
    let v: Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    let target = v["position"]
        .as_str()
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .to_owned();
    for (side, board) in [("a", board_a), ("b", board_b)] {
        let b = &v["boards"][side];
        let after = apply(board, b["actions"].as_array().unwrap());
        let want = if board.starts_with('S') {
            pegs_of(&target)
        } else {
            target.clone()
        };
        assert_eq!(after, want, "board {side} after its actions: {v}");
        assert_eq!(
            b["correct"].as_bool().unwrap(),
            b["actions"].as_array().unwrap().is_empty()
        );
        assert_eq!(
            b["spoken"].as_array().unwrap().len(),
            b["actions"].as_array().unwrap().len()
        );
    }
    v
}

fn fen_board(fen: &str) -> Board {
    Board::from_ascii_board_fen(fen.as_bytes()).unwrap()
}

fn pegs_of(fen: &str) -> String {
    format!("S{:016X}", fen_board(fen).occupied().0)
}

/// The actions applied one after another, as a hand (or a test outside the project) would.
fn apply(board: &str, actions: &[Value]) -> String {
    let mut squares: BTreeMap<String, char> = BTreeMap::new();
    let pegs = board.starts_with('S');
    let start = if pegs {
        let bits = u64::from_str_radix(&board[1..], 16).unwrap();
        Bitboard(bits)
            .into_iter()
            .map(|sq| (sq.to_string(), 'P'))
            .collect()
    } else {
        let b = fen_board(board);
        b.iter()
            .map(|(sq, p)| (sq.to_string(), p.char()))
            .collect::<Vec<_>>()
    };
    squares.extend(start);
    for a in actions {
        let sq = |k: &str| a[k].as_str().unwrap().to_owned();
        match a["op"].as_str().unwrap() {
            "move" => {
                let p = squares.remove(&sq("from")).expect("a piece to move");
                assert!(
                    squares.insert(sq("to"), p).is_none(),
                    "move onto a piece: {a}"
                );
            }
            "remove" => {
                squares.remove(&sq("square")).expect("a piece to remove");
            }
            "place" => {
                let p = a["piece"].as_str().unwrap().chars().next().unwrap();
                assert!(
                    squares.insert(sq("square"), p).is_none(),
                    "place onto a piece: {a}"
                );
            }
            other => panic!("unknown op {other}"),
        }
    }
    let mut board = Board::empty();
    for (sq, p) in squares {
        let sq: shakmaty::Square = sq.parse().unwrap();
        board.set_piece_at(sq, shakmaty::Piece::from_char(p).unwrap());
    }
    if pegs {
        format!("S{:016X}", board.occupied().0)
    } else {
        board.to_string()
    }
}

#[test]
fn sheets_in_four_notations_agree_and_both_boards_are_right() {
    let v = reconcile_ok(
        &["--lang", "de"],
        "1. e4 e5 2. Sf3",
        "5254 5755 7163",
        &pegs_of(AFTER_NF3),
        AFTER_NF3,
    );
    assert_eq!(v["sheets_agree"], true);
    assert_eq!(v["lagging"], Value::Null);
    assert_eq!(v["agreed_plies"], 3);
    assert_eq!(
        v["position"],
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    );
    assert_eq!(v["boards"]["a"]["correct"], true);
    assert_eq!(v["boards"]["b"]["correct"], true);
    assert_eq!(v["retracted"]["a"], serde_json::json!([]));

    // Spoken moves, one a line, and long algebraic read the same.
    let v = reconcile_ok(
        &["--lang", "de"],
        "Bauer Eva vier\nBauer Eva fünf\nSpringer Felix drei",
        "e2-e4 e7-e5 Sg1-f3",
        AFTER_NF3,
        AFTER_NF3,
    );
    assert_eq!(v["sheets_agree"], true);
    assert_eq!(v["agreed_plies"], 3);
}

#[test]
fn one_board_wrong_the_blind_player_is_told_square_by_square() {
    // Side a wrote Nf3 but his knight's peg stands on f4.
    let wrong = "rnbqkbnr/pppp1ppp/8/4p3/4PN2/8/PPPP1PPP/RNBQKB1R";
    let v = reconcile_ok(
        &["--lang", "de"],
        "e4 e5 Sf3",
        "e4 e5 Sf3",
        &pegs_of(wrong),
        AFTER_NF3,
    );
    let a = &v["boards"]["a"];
    assert_eq!(a["correct"], false);
    assert_eq!(
        a["actions"],
        serde_json::json!([{"op": "move", "from": "f4", "to": "f3"}])
    );
    assert_eq!(
        a["spoken"],
        serde_json::json!(["Springer von Felix vier nach Felix drei"])
    );
    assert_eq!(
        a["written"],
        serde_json::json!(["move the white knight from f4 to f3"])
    );
    assert_eq!(v["boards"]["b"]["correct"], true);
}

#[test]
fn both_boards_wrong_with_identity_and_a_place() {
    // Board a lacks the e5 pawn; board b has the knight still on g1.
    let a = "rnbqkbnr/pppp1ppp/8/8/4P3/5N2/PPPP1PPP/RNBQKB1R";
    let b = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR";
    let v = reconcile_ok(&[], "e4 e5 Nf3", "e4 e5 Nf3", a, b);
    assert_eq!(
        v["boards"]["a"]["actions"],
        serde_json::json!([{"op": "place", "piece": "p", "square": "e5"}])
    );
    assert_eq!(
        v["boards"]["b"]["actions"],
        serde_json::json!([{"op": "move", "from": "g1", "to": "f3"}])
    );
    assert_eq!(
        v["boards"]["a"]["spoken"],
        serde_json::json!(["put the black pawn on Eva five"])
    );
}

#[test]
fn a_lagging_sheet_is_no_disagreement_yet() {
    let v = reconcile_ok(&[], "e4 e5 Nf3", "e4 e5", AFTER_NF3, AFTER_NF3);
    assert_eq!(v["sheets_agree"], true);
    assert_eq!(v["lagging"], "b");
    assert_eq!(v["agreed_plies"], 3);
    assert_eq!(v["retracted"], serde_json::json!({"a": [], "b": []}));
    assert_eq!(v["read_out"], serde_json::json!(["knight Felix three"]));
    assert!(v["position"].as_str().unwrap().starts_with(AFTER_NF3));

    // Disputed: the sheets differ, and the game goes back to where b's sheet ends.
    let v = reconcile_ok(&["--disputed"], "e4 e5 Nf3", "e4 e5", AFTER_NF3, AFTER_NF3);
    assert_eq!(v["sheets_agree"], false);
    assert_eq!(v["lagging"], Value::Null);
    assert_eq!(v["agreed_plies"], 2);
    assert_eq!(v["retracted"], serde_json::json!({"a": ["g1f3"], "b": []}));
}

#[test]
fn sheets_that_differ_at_ply_three_are_cut_and_both_boards_go_back() {
    let b_board = "rnbqkbnr/pppp1ppp/8/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR";
    let v = reconcile_ok(&[], "e4 e5 Nf3 Nc6", "e4 e5 Nc3", AFTER_NF3, b_board);
    assert_eq!(v["sheets_agree"], false);
    assert_eq!(v["agreed_plies"], 2);
    assert_eq!(
        v["retracted"],
        serde_json::json!({"a": ["g1f3", "b8c6"], "b": ["b1c3"]})
    );
    assert_eq!(
        v["position"],
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
    assert_eq!(
        v["boards"]["a"]["actions"],
        serde_json::json!([{"op": "move", "from": "f3", "to": "g1"}])
    );
    assert_eq!(
        v["boards"]["b"]["actions"],
        serde_json::json!([{"op": "move", "from": "c3", "to": "b1"}])
    );
    let why = v["explanation"].to_string();
    assert!(why.contains("last point where both agree"), "{why}");
}

#[test]
fn sheets_that_differ_at_the_first_move_go_back_to_the_start() {
    let v = reconcile_ok(&[], "d4", "e4", START_PEGS, START);
    assert_eq!(v["agreed_plies"], 0);
    assert_eq!(v["position"], format!("{START} w KQkq - 0 1"));
    assert_eq!(v["boards"]["a"]["correct"], true);
}

#[test]
fn an_illegal_or_unreadable_sheet_is_refused_naming_sheet_ply_and_token() {
    for (a, b, needle) in [
        ("e4 e5 Nf3", "e4 e5 Ke3", "sheet b, ply 3 (2.): \"Ke3\""),
        ("e4 e5 Nf9", "e4 e5", "sheet a, ply 3 (2.): \"Nf9\""),
        ("e4 Qxf7", "e4", "sheet a, ply 2 (1...): \"Qxf7\""),
        ("e4 e5", "1. e4 xyzzy", "sheet b, ply 2 (1...): \"xyzzy\""),
    ] {
        let o = run(&[], a, b, START, START);
        assert!(!o.status.success(), "{a} / {b}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(needle), "{err}");
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn empty_sheets_mean_the_start_position() {
    let v = reconcile_ok(&[], "", "", START_PEGS, START);
    assert_eq!(v["sheets_agree"], true);
    assert_eq!(v["agreed_plies"], 0);
    assert_eq!(v["position"], format!("{START} w KQkq - 0 1"));
}

#[test]
fn a_bad_spoken_move_is_named_with_its_line() {
    let o = run(
        &["--lang", "de"],
        "Bauer Eva vier\nBauer Eva fünf\nTurm Anna drei",
        "e4",
        START,
        START,
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("sheet a, ply 3 (2.), line 3: \"Turm Anna drei\""),
        "{err}"
    );
}

#[test]
fn a_malformed_board_is_refused_naming_the_board() {
    for (board, needle) in [
        ("SFFFF00000000FFF", "15 hex digits"),
        ("SFFFF00000000FFFG", "\"G\" is not a hex digit"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX", "board a"),
        ("", "board a: empty"),
    ] {
        let o = run(&[], "e4", "e4", board, START);
        assert!(!o.status.success(), "{board}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(needle) && err.contains("board a"),
            "{board}: {err}"
        );
    }
}

#[test]
fn an_occupancy_board_states_what_pegs_cannot_show() {
    // Sheet a is a move behind what its pegs show; pegs cannot tell which piece stands where,
    // so the holes the board filled on its own are reported unverifiable.
    let v = reconcile_ok(
        &[],
        "e4 e5 Nf3",
        "e4 e5 Nf3",
        // The knight's peg on h3 instead of f3.
        &pegs_of("rnbqkbnr/pppp1ppp/8/4p3/4P3/7N/PPPP1PPP/RNBQKB1R"),
        AFTER_NF3,
    );
    let a = &v["boards"]["a"];
    assert_eq!(
        a["actions"],
        serde_json::json!([{"op": "move", "from": "h3", "to": "f3"}])
    );
    let unverifiable = a["unverifiable"].to_string();
    assert!(
        unverifiable.contains("must be the white knight"),
        "{unverifiable}"
    );
    assert!(a["identities_from"].is_string());
}

#[test]
fn chess960_castling_is_retracted_king_takes_rook() {
    // King on f1, rook on h1: castling short moves the king to g1 and the rook to f1.
    let fen = "4k3/8/8/8/8/8/8/5K1R w H - 0 1";
    let start = "4k3/8/8/8/8/8/8/5K1R";
    let castled = "4k3/8/8/8/8/8/8/5RK1";
    let v = reconcile_ok(
        &["--chess960", "--fen", fen],
        "O-O",
        "Kg2",
        castled,
        "4k3/8/8/8/8/8/6K1/7R",
    );
    assert_eq!(v["agreed_plies"], 0);
    assert_eq!(v["retracted"]["a"], serde_json::json!(["f1h1"]));
    assert_eq!(v["retracted"]["b"], serde_json::json!(["f1g2"]));
    assert_eq!(v["boards"]["a"]["actions"].as_array().unwrap().len(), 2);

    // Both sheets castled; the peg board still shows the king and rook at home.
    let v = reconcile_ok(
        &["--chess960", "--fen", fen],
        "O-O",
        "f1h1",
        &pegs_of(start),
        castled,
    );
    assert_eq!(v["sheets_agree"], true);
    assert!(v["position"].as_str().unwrap().starts_with(castled));
    assert_eq!(v["boards"]["a"]["correct"], false);
    assert_eq!(v["boards"]["b"]["correct"], true);
}

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        proptest::collection::vec(
            prop_oneof![
                Just("e4"),
                Just("e5"),
                Just("Nf3"),
                Just("5254"),
                Just("1."),
                Just("{"),
                Just("O-O"),
                Just("Springer Felix drei"),
                Just("\n"),
                Just("S"),
                Just("FFFF"),
                Just("/"),
                Just("8"),
            ],
            0..12
        )
        .prop_map(|v| v.join(" ")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Any sheet text and board text: an answer or a message, never a panic.
    #[test]
    fn the_command_line_never_panics(a in any_text(), b in any_text(), board in any_text()) {
        if a.contains('\0') || b.contains('\0') || board.contains('\0') {
            return Ok(());
        }
        let o = run(&[], &a, &b, &board, START_PEGS);
        let err = String::from_utf8_lossy(&o.stderr);
        prop_assert!(!err.contains("panicked"), "{err}");
        prop_assert!(o.status.success() || err.starts_with("annabella: "), "{err}");
    }

    /// Random games, random divergences, random boards: the corrections always bring each
    /// board to the position, and reading any text as a sheet never panics.
    #[test]
    fn corrections_always_reach_the_position(
        choices in proptest::collection::vec(any::<u16>(), 0..60),
        split in any::<u16>(),
        noise in any::<u64>(),
        pegs in any::<bool>(),
        text in any_text(),
    ) {
        let game = Game::new();
        let _ = read_sheet(Side::A, &text, &game, Language::english());
        let walk = |skip: usize| {
            let mut pos = Chess::default();
            let mut moves = Vec::new();
            for (i, c) in choices.iter().enumerate() {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let pick = if i == skip { *c as usize + 1 } else { *c as usize };
                let m = legal[pick % legal.len()];
                pos.play_unchecked(m);
                moves.push(m);
            }
            (moves, pos)
        };
        let (a_moves, a_pos) = walk(usize::MAX);
        let (b_moves, b_pos) = walk(split as usize % 64);
        let board = |pos: &Chess, flip: u64| {
            let occ = Bitboard(pos.board().occupied().0 ^ (noise & flip));
            if pegs {
                Observed::Occupancy(occ)
            } else {
                let mut b = pos.board().clone();
                for sq in Bitboard(noise & flip) {
                    if b.remove_piece_at(sq).is_none() {
                        b.set_piece_at(sq, shakmaty::Color::Black.queen());
                    }
                }
                Observed::Pieces(b)
            }
        };
        let boards = [
            BoardInput { observed: board(&a_pos, 0x0000_0000_00FF_0000), believed: None },
            BoardInput { observed: board(&b_pos, 0x0000_FF00_0000_0000), believed: None },
        ];
        let sheets = [Sheet::from_moves(a_moves), Sheet::from_moves(b_moves)];
        let r = reconcile(&ReconcileInput {
            start: &game,
            sheets: [&sheets[0], &sheets[1]],
            boards: [&boards[0], &boards[1]],
            languages: [Language::german(), Language::english()],
            clocks: None,
            lag_disputed: false,
        });
        for (i, side) in [Side::A, Side::B].into_iter().enumerate() {
            let after = corrections::apply(&boards[i].observed, &r.board(side).corrections);
            prop_assert!(after.matches(r.position.board()));
        }
    }
}
