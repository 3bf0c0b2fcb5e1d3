//! Fuzz target: two arbitrary scoresheets reconciled against two boards never panic, and each
//! board's corrections bring it to the position both must show.
#![no_main]

use annabella::chess::game::Game;
use annabella::chess::language::Language;
use annabella::table::corrections::{Observed, apply};
use annabella::table::reconcile::{BoardInput, ReconcileInput, Side, read_sheet, reconcile};
use libfuzzer_sys::fuzz_target;
use shakmaty::{Bitboard, Board, Position};

fuzz_target!(|input: (&str, &str, u64)| {
    let (a, b, occupancy) = input;
    let start = Game::new();
    let lang = Language::german();
    let sheets = [
        read_sheet(Side::A, a, &start, lang),
        read_sheet(Side::B, b, &start, lang),
    ];
    let boards = [
        BoardInput {
            observed: Observed::Occupancy(Bitboard(occupancy)),
            believed: None,
        },
        BoardInput {
            observed: Observed::Pieces(Board::new()),
            believed: None,
        },
    ];
    let resolution = reconcile(&ReconcileInput {
        start: &start,
        sheets: [&sheets[0], &sheets[1]],
        boards: [&boards[0], &boards[1]],
        languages: [lang, lang],
        clocks: None,
        lag_disputed: false,
    });
    let target = resolution.position.board().clone();
    for (side, board) in [(Side::A, &boards[0]), (Side::B, &boards[1])] {
        let after = apply(&board.observed, &resolution.board(side).corrections);
        assert!(after.matches(&target));
    }
});
