//! The whole reconciliation, decision and words together, on real sheets and boards.

use super::*;
use crate::corrections::{self, Observed};
use annabella_chess::game::Game;
use annabella_chess::language::Language;
use shakmaty::{Bitboard, Chess, Color, Position, Role, Square};

fn en() -> &'static Language {
    Language::english()
}

fn sheet_from(game: &Game, side: Side, text: &str) -> Sheet {
    read_sheet(side, text, game, en())
}

fn position_of(game: &Game, sheet: &Sheet) -> Chess {
    let mut pos = game.start_position().clone();
    for &m in &sheet.moves {
        pos.play_unchecked(m);
    }
    pos
}

fn pieces(pos: &Chess) -> BoardInput {
    BoardInput {
        observed: Observed::Pieces(pos.board().clone()),
        believed: None,
    }
}

fn pegs(occ: Bitboard) -> BoardInput {
    BoardInput {
        observed: Observed::Occupancy(occ),
        believed: None,
    }
}

struct Case<'a> {
    game: &'a Game,
    sheets: [Sheet; 2],
    boards: [BoardInput; 2],
    languages: [&'static Language; 2],
    clocks: Option<ClockRecord>,
    disputed: bool,
}

impl Case<'_> {
    fn run(&self) -> Resolution {
        let r = reconcile(&ReconcileInput {
            start: self.game,
            sheets: [&self.sheets[0], &self.sheets[1]],
            boards: [&self.boards[0], &self.boards[1]],
            languages: self.languages,
            clocks: self.clocks.as_ref(),
            lag_disputed: self.disputed,
        });
        // Applying each board's corrections always gives the position (pegs: its holes).
        for side in Side::BOTH {
            let b = &self.boards[side.index()];
            let after = corrections::apply(&b.observed, &r.board(side).corrections);
            assert!(after.matches(r.position.board()), "board {side}: {r:?}");
            assert_eq!(
                r.board(side).correct,
                b.observed.matches(r.position.board()) && r.board(side).corrections.is_empty()
            );
            assert_eq!(r.board(side).spoken.len(), r.board(side).corrections.len());
        }
        r
    }
}

fn case<'a>(game: &'a Game, a: &str, b: &str) -> Case<'a> {
    let sheets = [sheet_from(game, Side::A, a), sheet_from(game, Side::B, b)];
    let boards = [
        pieces(&position_of(game, &sheets[0])),
        pieces(&position_of(game, &sheets[1])),
    ];
    Case {
        game,
        sheets,
        boards,
        languages: [en(), en()],
        clocks: None,
        disputed: false,
    }
}

#[test]
fn sheets_in_different_notations_agree_and_both_boards_are_right() {
    let game = Game::new();
    let mut c = case(&game, "1. e4 e5 2. Nf3", "5254 5755 7163");
    c.sheets[1] = read_sheet(Side::B, "e4 e5 Sf3", &game, Language::german());
    let r = c.run();
    assert_eq!(r.verdict, Verdict::Agree);
    assert_eq!(r.agreed_plies, 3);
    assert!(r.board(Side::A).correct && r.board(Side::B).correct);
    assert_eq!(
        r.fen(),
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    );
}

#[test]
fn a_wrongly_executed_move_on_the_peg_board_is_put_right_in_german() {
    let game = Game::new();
    let mut c = case(&game, "e4 e5 Nf3", "e4 e5 Nf3");
    // The blind player wrote Nf3 but put the knight on f4 (a square it cannot reach).
    let mut occ = c.boards[0].observed.occupied();
    occ.discard(Square::F3);
    occ.add(Square::F4);
    c.boards[0] = pegs(occ);
    c.languages = [Language::german(), en()];
    let r = c.run();
    assert_eq!(r.verdict, Verdict::Agree);
    let a = r.board(Side::A);
    assert!(!a.correct);
    assert_eq!(a.spoken, vec!["Springer von Felix vier nach Felix drei"]);
    assert_eq!(a.written, vec!["move the white knight from f4 to f3"]);
    assert!(r.board(Side::B).correct);
    // The peg moved cannot be identified: said so.
    assert_eq!(a.unverifiable.len(), 1);
    assert_eq!(a.unverifiable[0].square, Square::F3);
    assert_eq!(a.unverifiable[0].from, Some(Square::F4));
}

#[test]
fn both_boards_wrong_both_get_corrections() {
    let game = Game::new();
    let mut c = case(&game, "e4 e5 Nf3 Nc6", "e4 e5 Nf3 Nc6");
    c.boards[0] = pieces(&position_of(
        &game,
        &sheet_from(&game, Side::A, "e4 e5 Nf3 Nf6"),
    ));
    c.boards[1] = pieces(&position_of(
        &game,
        &sheet_from(&game, Side::B, "e4 e5 Nc3 Nc6"),
    ));
    let r = c.run();
    assert_eq!(r.verdict, Verdict::Agree);
    // Two knights move: each to its nearest home, the fewest squares a hand travels.
    assert_eq!(
        r.board(Side::A).written,
        vec![
            "move the black knight from f6 to g8",
            "move the black knight from b8 to c6"
        ]
    );
    assert_eq!(
        r.board(Side::B).written,
        vec![
            "move the white knight from g1 to f3",
            "move the white knight from c3 to b1"
        ]
    );
}

#[test]
fn a_lagging_sheet_is_read_out_and_a_dispute_makes_the_sheets_differ() {
    let game = Game::new();
    let mut c = case(&game, "e4 e5 Nf3", "e4 e5");
    c.boards[1] = c.boards[0].clone();
    c.languages = [en(), Language::german()];
    let r = c.run();
    assert!(r.sheets_agree());
    assert_eq!(r.lagging(), Some(Side::B));
    assert_eq!(r.agreed_plies, 3);
    assert_eq!(r.retracted, [vec![], vec![]]);
    let Verdict::Lagging {
        read_out, missing, ..
    } = &r.verdict
    else {
        panic!("{r:?}")
    };
    assert_eq!(missing.len(), 1);
    assert_eq!(read_out, &vec!["Springer Felix drei".to_owned()]);

    c.disputed = true;
    let r = c.run();
    assert_eq!(r.verdict, Verdict::Differ);
    assert_eq!(r.agreed_plies, 2);
    assert_eq!(r.retracted_uci(Side::A), vec!["g1f3"]);
    assert!(r.retracted[1].is_empty());
    assert_eq!(
        r.board(Side::A).written,
        vec!["move the white knight from f3 to g1"]
    );
}

#[test]
fn sheets_that_differ_go_back_to_the_last_agreed_move_with_the_clocks() {
    let game = Game::new();
    let mut c = case(&game, "e4 e5 Nf3 Nc6 Bb5", "e4 e5 Nc3 Nf6");
    c.clocks = Some(ClockRecord {
        used_now: [50_000, 40_000],
        plies_now: 5,
        after_ply: vec![Some([0, 0]), Some([1_000, 0]), Some([1_000, 2_000])],
    });
    let r = c.run();
    assert!(!r.sheets_agree());
    assert_eq!(r.agreed_plies, 2);
    assert_eq!(r.retracted_uci(Side::A), vec!["g1f3", "b8c6", "f1b5"]);
    assert_eq!(r.retracted_uci(Side::B), vec!["b1c3", "g8f6"]);
    assert_eq!(
        r.clocks,
        Some(ClockAdjustment {
            used: [1_000, 2_000],
            basis: ClockBasis::Recorded
        })
    );
    assert!(!r.board(Side::A).correct && !r.board(Side::B).correct);
    assert!(
        r.explanation
            .iter()
            .any(|e| e.contains("sheet a: 2.Nf3; sheet b: 2.Nc3"))
    );

    // Without a reading at ply 2: White made 1 of his 3 moves, Black 1 of his 2.
    if let Some(k) = c.clocks.as_mut() {
        k.after_ply.truncate(2);
    }
    let r = c.run();
    assert_eq!(
        r.clocks,
        Some(ClockAdjustment {
            used: [50_000 / 3, 20_000],
            basis: ClockBasis::Proportional
        })
    );
}

#[test]
fn an_illegal_entry_agrees_with_nothing_past_it() {
    let game = Game::new();
    let bad = sheet_from(&game, Side::A, "1. e4 e5 2. Nf9 Nc6");
    let e = bad.bad.clone().expect("Nf9 is no move");
    assert_eq!((e.side, e.ply, e.token.as_str()), (Side::A, 3, "Nf9"));
    assert_eq!(e.label, "2.");
    assert!(
        e.to_string().starts_with("sheet a, ply 3 (2.): \"Nf9\""),
        "{e}"
    );

    let mut c = case(&game, "e4 e5", "e4 e5 Nf3");
    c.sheets[0] = bad;
    let r = c.run();
    assert_eq!(r.verdict, Verdict::Differ);
    assert_eq!(r.agreed_plies, 2);
    assert_eq!(r.retracted_uci(Side::B), vec!["g1f3"]);
    assert!(r.bad_entries[0].is_some());
    assert!(
        r.explanation[0].contains("no legal move"),
        "{:?}",
        r.explanation
    );

    // A move the daemon recorded that the position does not allow counts the same.
    let legal = sheet_from(&game, Side::A, "e4 e5 Nf3").moves;
    let mut moves = legal.clone();
    moves.insert(1, legal[2]);
    c.sheets[0] = Sheet::from_moves(moves);
    let r = c.run();
    assert_eq!((r.verdict.clone(), r.agreed_plies), (Verdict::Differ, 1));
    assert_eq!(r.bad_entries[0].as_ref().map(|b| b.ply), Some(2));
}

#[test]
fn a_piece_identity_pegs_cannot_show_is_stated() {
    // Sheets agree on a promotion to a queen; the peg board's detector believes a knight.
    let game = Game::from_fen("8/4P3/8/8/8/8/k7/4K3 w - - 0 1", false).unwrap();
    let mut c = case(&game, "e8=Q", "e8Q");
    let mut believed = c.boards[1].clone();
    let Observed::Pieces(board) = &mut believed.observed else {
        unreachable!()
    };
    board.set_piece_at(Square::E8, Color::White.knight());
    let board = board.clone();
    c.boards[0] = BoardInput {
        observed: Observed::Occupancy(board.occupied()),
        believed: Some(board),
    };
    let r = c.run();
    let a = r.board(Side::A);
    assert!(!a.correct);
    assert_eq!(a.unverifiable.len(), 1);
    assert_eq!(a.unverifiable[0].believed, Some(Color::White.knight()));
    assert_eq!(a.unverifiable[0].expected.role, Role::Queen);
    assert!(
        r.explanation
            .iter()
            .any(|e| e.contains("pegs cannot show the difference"))
    );

    // Without a belief the pegs match: right as far as pegs go, nothing unverifiable.
    c.boards[0].believed = None;
    let r = c.run();
    assert!(r.board(Side::A).correct);
}

#[test]
fn chess960_castling_is_cut_as_king_takes_rook() {
    // Position 518 is the usual array under Chess960 rules.
    let game = Game::chess960(518).unwrap();
    let c = case(
        &game,
        "e4 e5 Nf3 Nc6 Bc4 Bc5 O-O",
        "e4 e5 Nf3 Nc6 Bc4 Bc5 d3",
    );
    let r = c.run();
    assert_eq!(r.agreed_plies, 6);
    assert_eq!(r.retracted_uci(Side::A), vec!["e1h1"]);
    assert_eq!(r.retracted_uci(Side::B), vec!["d2d3"]);
    assert_eq!(r.board(Side::A).corrections.len(), 2);
}

#[test]
fn the_record_names_both_sheets_boards_and_the_decision() {
    let game = Game::new();
    let c = case(&game, "e4 e5", "e4 c5");
    let r = c.run();
    let text = r.record(&ReconcileInput {
        start: &game,
        sheets: [&c.sheets[0], &c.sheets[1]],
        boards: [&c.boards[0], &c.boards[1]],
        languages: c.languages,
        clocks: None,
        lag_disputed: false,
    });
    assert!(text.contains("sheet a: e4 e5\n"), "{text}");
    assert!(text.contains("sheet b: e4 c5\n"), "{text}");
    assert!(
        text.contains("decision: sheets differ; 1 half-moves stand"),
        "{text}"
    );
    assert!(text.contains("cut from sheet b: c7c5"), "{text}");
}
