//! The FIDE rules the game enforces (5, 6.9, 9, Chess960), as tables run through one helper each.

use annabella::chess::game::{
    ClaimRefused, DrawReason, EndReason, Game, GameError, GameResult, chess960_back_rank,
};
use shakmaty::san::San;
use shakmaty::{CastlingMode, Color, Move, Position, Role};

use EndReason::*;
use GameResult::*;

const STANDARD: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn san(game: &Game, text: &str) -> Move {
    text.parse::<San>()
        .unwrap_or_else(|_| panic!("{text}: not SAN"))
        .to_move(game.position())
        .unwrap_or_else(|e| panic!("{text}: {e} in {}", game.fen()))
}

fn game(fen: &str, moves: &str) -> Game {
    let mut g = Game::from_fen(fen, false).unwrap_or_else(|e| panic!("{e}"));
    for text in moves.split_whitespace() {
        let m = san(&g, text);
        g.play(m).unwrap_or_else(|e| panic!("{text}: {e}"));
    }
    g
}

/// The outcome a case expects: `None` while the game goes on.
type Expected = Option<(GameResult, EndReason)>;

/// Plays `moves` from `fen` and compares the outcome.
fn check(fen: &str, moves: &str, expected: Expected) {
    let g = game(fen, moves);
    let got = g.outcome().map(|e| (e.result, e.reason));
    assert_eq!(got, expected, "{fen} / {moves}");
}

#[test]
fn automatic_ends() {
    let cases: &[(&str, &str, Expected)] = &[
        (STANDARD, "", None),
        (STANDARD, "f3 e5 g4 Qh4#", Some((BlackWins, Checkmate))),
        (STANDARD, "f3 e5 g4", None),
        // Stalemate on the board, and reached by a move.
        (
            "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
            "",
            Some((Draw, Stalemate)),
        ),
        (
            "7k/8/6K1/5Q2/8/8/8/8 w - - 0 1",
            "Qf7",
            Some((Draw, Stalemate)),
        ),
        // A capture into a material dead position.
        (
            "8/8/8/4k3/3r4/8/8/3QK3 w - - 0 1",
            "Qxd4+ Kxd4",
            Some((Draw, InsufficientMaterial)),
        ),
    ];
    for (fen, moves, expected) in cases {
        check(fen, moves, *expected);
    }
}

#[test]
fn insufficient_material() {
    // python-chess test_insufficient_material style: both sides must be unable to mate.
    let cases: &[(&str, bool)] = &[
        ("8/8/8/4k3/8/8/8/4K3 w - - 0 1", true),       // K v K
        ("8/8/8/4k3/8/8/8/2B1K3 w - - 0 1", true),     // KB v K
        ("8/8/8/4k3/8/8/8/1N2K3 w - - 0 1", true),     // KN v K
        ("5b2/8/8/4k3/8/8/8/2B1K3 w - - 0 1", true),   // KB v KB, both bishops on dark squares
        ("2b5/8/8/4k3/8/8/8/2B1K3 w - - 0 1", false),  // opposite colours: a helpmate exists
        ("8/8/8/4k3/8/8/8/1N2K1N1 w - - 0 1", false),  // KNN v K is not automatic
        ("8/8/8/4k3/8/8/3n4/1N2K3 w - - 0 1", false),  // KN v KN
        ("8/8/8/4k3/8/8/4P3/4K3 w - - 0 1", false),    // a pawn
        ("8/8/8/4k3/8/8/8/R3K3 w - - 0 1", false),     // a rook
        ("4b3/8/8/4k3/8/8/8/2B1KB2 w - - 0 1", false), // two bishops of both colours
    ];
    for (fen, dead) in cases {
        let expected = dead.then_some((Draw, InsufficientMaterial));
        check(fen, "", expected);
    }
}

fn claim(g: &Game, intended: Option<&str>) -> Result<DrawReason, ClaimRefused> {
    g.claim_draw(intended.map(|t| san(g, t)))
}

#[test]
fn threefold_repetition_claims() {
    // The start position occurs after 0, 4 and 8 half-moves.
    let eight = "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8";
    let g = game(STANDARD, eight);
    assert_eq!(g.repetitions(), 3);
    assert_eq!(claim(&g, None), Ok(DrawReason::ThreefoldRepetition));
    assert!(
        g.outcome().is_none(),
        "a claim does not end the game by itself"
    );

    // One half-move earlier: Black writes Ng8 and claims (9.2.1.1).
    let seven = game(STANDARD, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
    assert_eq!(
        claim(&seven, Some("Ng8")),
        Ok(DrawReason::ThreefoldRepetition)
    );
    assert_eq!(
        claim(&seven, None),
        Err(ClaimRefused::NoGrounds {
            repetitions: 2,
            halfmoves: 7,
            intended: false
        })
    );
    assert!(matches!(
        claim(&seven, Some("Nc6")),
        Err(ClaimRefused::NoGrounds {
            repetitions: 1,
            halfmoves: 8,
            intended: true
        })
    ));
    // A pawn move cannot repeat anything.
    assert!(matches!(
        claim(&seven, Some("e5")),
        Err(ClaimRefused::NoGrounds {
            repetitions: 1,
            halfmoves: 0,
            ..
        })
    ));

    let six = game(STANDARD, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6");
    assert!(claim(&six, None).is_err());
    let message = claim(&six, None).unwrap_err().to_string();
    assert!(
        message.starts_with("no draw: the position has occurred 2 time(s)"),
        "{message}"
    );

    // Applying the claim with the written move plays it and ends the game.
    let mut g = seven.clone();
    let m = san(&g, "Ng8");
    let end = g.draw_by_claim(Some(m)).unwrap();
    assert_eq!(end.result, Draw);
    assert_eq!(end.reason, Claim(DrawReason::ThreefoldRepetition));
    assert_eq!(g.ply_count(), 8);
    assert!(matches!(
        g.play(san(&g, "Nf3")),
        Err(GameError::GameOver(_))
    ));
    // A refused claim changes nothing.
    let mut g = six.clone();
    assert!(g.draw_by_claim(None).is_err());
    assert!(g.outcome().is_none());
}

#[test]
fn en_passant_rights_make_positions_differ() {
    // After 2...d5 White could take e.p.; the same board later, without that right, is a
    // different position (9.2.2.1).
    let moves = "e4 Nf6 e5 d5 Nf3 Nc6 Ng1 Nb8 Nf3 Nc6 Ng1 Nb8";
    let g = game(STANDARD, moves);
    assert_eq!(g.repetitions(), 2, "the first occurrence had an e.p. right");
    assert!(claim(&g, None).is_err());
    let g = game(STANDARD, &format!("{moves} Nf3 Nc6 Ng1 Nb8"));
    assert_eq!(g.repetitions(), 3);
    assert_eq!(claim(&g, None), Ok(DrawReason::ThreefoldRepetition));

    // An e.p. square nobody can use does not count: after 1.e4 the position is the same as
    // after 1.e4 Nc6 2.Nf3 Nb8 3.Ng1.
    let g = game(STANDARD, "e4 Nc6 Nf3 Nb8 Ng1 Nc6 Nf3 Nb8 Ng1");
    assert_eq!(g.repetitions(), 3);
    assert_eq!(claim(&g, None), Ok(DrawReason::ThreefoldRepetition));
}

#[test]
fn castling_rights_make_positions_differ() {
    // The king steps out and back: same board, but White has lost castling rights.
    let g = game(STANDARD, "e4 e5 Ke2 Ke7 Ke1 Ke8 Ke2 Ke7 Ke1 Ke8");
    assert_eq!(g.repetitions(), 2);
}

#[test]
fn fivefold_repetition_is_automatic() {
    let cycle = "Nf3 Nf6 Ng1 Ng8 ";
    let g = game(STANDARD, &format!("{}Nf3 Nf6 Ng1", cycle.repeat(3)));
    assert!(g.outcome().is_none());
    let mut g = game(STANDARD, &cycle.repeat(4));
    assert_eq!(g.repetitions(), 5);
    let end = g.outcome().unwrap();
    assert_eq!((end.result, end.reason), (Draw, FivefoldRepetition));
    let m = san(&g, "Nf3");
    assert_eq!(g.play(m), Err(GameError::GameOver(end)));
    assert_eq!(g.claim_draw(None), Err(ClaimRefused::GameOver(end)));
    // Taking back the last move reopens the game.
    g.undo();
    assert!(g.outcome().is_none());
}

#[test]
fn fifty_move_claims() {
    // Rook and king against king: 99 half-moves without capture or pawn move so far.
    let fen = "8/8/8/4k3/8/8/R7/4K3 w - - 99 80";
    let g = game(fen, "");
    assert!(matches!(
        claim(&g, None),
        Err(ClaimRefused::NoGrounds { halfmoves: 99, .. })
    ));
    // White writes Ra3 and claims: it would make 100 (9.3.1).
    assert_eq!(claim(&g, Some("Ra3")), Ok(DrawReason::FiftyMoveRule));
    // After Ra3, Black may claim at once (9.3.2).
    let g = game(fen, "Ra3");
    assert_eq!(g.halfmove_clock(), 100);
    assert_eq!(claim(&g, None), Ok(DrawReason::FiftyMoveRule));
    assert!(g.outcome().is_none(), "the fifty-move rule needs a claim");
    // An illegal intended move is refused as such.
    let illegal = Move::Normal {
        role: Role::Rook,
        from: shakmaty::Square::A2,
        capture: None,
        to: shakmaty::Square::B3,
        promotion: None,
    };
    assert!(matches!(
        game(fen, "").claim_draw(Some(illegal)),
        Err(ClaimRefused::IllegalMove { .. })
    ));
}

#[test]
fn seventy_five_moves_are_automatic_but_mate_prevails() {
    let fen = "7k/8/6K1/8/8/8/8/R7 w - - 149 120";
    check(fen, "", None);
    check(fen, "Rb1", Some((Draw, SeventyFiveMoveRule)));
    check(fen, "Ra8#", Some((WhiteWins, Checkmate)));
    // A FEN that is already past the limit is drawn from the start.
    check(
        "7k/8/6K1/8/8/8/8/R7 w - - 150 120",
        "",
        Some((Draw, SeventyFiveMoveRule)),
    );
}

#[test]
fn agreement_needs_both_players_to_have_moved() {
    let mut g = Game::new();
    assert_eq!(
        g.agree_draw(),
        Err(GameError::AgreementTooEarly { plies: 0 })
    );
    g.play(san(&g, "e4")).unwrap();
    assert_eq!(
        g.agree_draw(),
        Err(GameError::AgreementTooEarly { plies: 1 })
    );
    g.play(san(&g, "e5")).unwrap();
    let end = g.agree_draw().unwrap();
    assert_eq!((end.result, end.reason), (Draw, Agreement));
    assert!(matches!(g.agree_draw(), Err(GameError::GameOver(_))));
}

#[test]
fn resignation_and_flag() {
    // White has king and pawn, Black a lone king.
    let fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";
    let cases: &[(bool, Color, GameResult)] = &[
        (true, Color::White, Draw), // Black cannot mate: a draw (5.1.2)
        (true, Color::Black, WhiteWins),
        (false, Color::White, Draw), // 6.9
        (false, Color::Black, WhiteWins),
    ];
    for &(resign, color, expected) in cases {
        let mut g = game(fen, "");
        let end = if resign {
            g.resign(color)
        } else {
            g.flag(color)
        }
        .unwrap();
        assert_eq!(end.result, expected, "resign={resign} {color:?}");
        let reason = if resign {
            Resignation { by: color }
        } else {
            Timeout { flagged: color }
        };
        assert_eq!(end.reason, reason);
        assert_eq!(g.outcome(), Some(end));
        assert!(g.resign(!color).is_err(), "nothing after the end");
        assert_eq!(g.withdraw_end(), Some(end));
        assert!(g.outcome().is_none());
    }
    // After mate, resigning is too late.
    let mut g = game(STANDARD, "f3 e5 g4 Qh4#");
    assert!(matches!(
        g.resign(Color::White),
        Err(GameError::GameOver(_))
    ));
    let draw = game(fen, "").clone().flag(Color::White).unwrap();
    assert_eq!(
        draw.to_string(),
        "white ran out of time, but black cannot checkmate: draw"
    );
}

#[test]
fn chess960_numbers() {
    let cases: &[(u32, &str)] = &[
        (
            0,
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
        ),
        (
            518,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ),
        (
            959,
            "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w KQkq - 0 1",
        ),
    ];
    for &(n, fen) in cases {
        let g = Game::chess960(n).unwrap();
        assert_eq!(g.start_fen(), fen, "{n}");
        assert_eq!(g.castling_mode(), CastlingMode::Chess960);
        assert!(!g.is_standard_start());
    }
    assert_eq!(
        Game::chess960(960).unwrap_err(),
        GameError::NoSuchChess960(960)
    );
}

#[test]
fn all_960_start_positions_are_distinct_and_legal() {
    let mut seen = std::collections::HashSet::new();
    for n in 0..960 {
        let rank = chess960_back_rank(n).unwrap();
        assert!(seen.insert(rank), "{n} repeats");
        let at = |role: Role| -> Vec<usize> { (0..8).filter(|&i| rank[i] == role).collect() };
        let (kings, rooks, bishops) = (at(Role::King), at(Role::Rook), at(Role::Bishop));
        assert_eq!(kings.len(), 1);
        assert_eq!(at(Role::Queen).len(), 1);
        assert_eq!(at(Role::Knight).len(), 2);
        assert!(
            rooks[0] < kings[0] && kings[0] < rooks[1],
            "{n}: king between the rooks"
        );
        assert_ne!(
            bishops[0] % 2,
            bishops[1] % 2,
            "{n}: bishops on both colours"
        );
        let g = Game::chess960(n).unwrap();
        assert!(!g.position().legal_moves().is_empty(), "{n}");
        assert!(g.outcome().is_none());
    }
    assert_eq!(seen.len(), 960);
}

#[test]
fn fen_castling_forms() {
    // Shredder-FEN of position 0 is recognised as Chess960 without being told.
    let shredder = Game::from_fen(
        "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1",
        false,
    )
    .unwrap();
    assert_eq!(shredder.castling_mode(), CastlingMode::Chess960);
    assert_eq!(
        shredder.start_position(),
        Game::chess960(0).unwrap().start_position()
    );
    // X-FEN: with the king on d1, KQkq name the rooks on h1 and a1; O-O takes the king to g1.
    let xfen = Game::from_fen(
        "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w KQkq - 0 1",
        true,
    )
    .unwrap();
    let g = {
        let mut g = xfen.clone();
        for t in ["e4", "e5", "Nf3", "Nf6", "Bc4", "Bc5", "Qe2", "Qe7", "O-O"] {
            let m = san(&g, t);
            g.play(m).unwrap();
        }
        g
    };
    assert!(
        g.fen()
            .starts_with("rnbk3r/ppppqppp/5n2/2b1p3/2B1P3/5N2/PPPPQPPP/RNB2RK1 b kq - ")
    );
    // Shredder letters for a standard position stay standard chess.
    let standard = Game::from_fen(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
        false,
    )
    .unwrap();
    assert_eq!(standard.castling_mode(), CastlingMode::Standard);
    assert!(standard.is_standard_start());
    // Broken FENs are refused with the reason.
    for bad in [
        "",
        "8/8/8 w",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        "8/8/8/8/8/8/8/8 w - - 0 1",
    ] {
        assert!(
            matches!(
                Game::from_fen(bad, false),
                Err(GameError::InvalidFen { .. })
            ),
            "{bad:?}"
        );
    }
}

#[test]
fn undo_and_truncate_replay_the_history() {
    let mut g = game(STANDARD, "e4 e5 Nf3 Nc6 Bb5 a6");
    let fen_after_4 = game(STANDARD, "e4 e5 Nf3 Nc6").fen();
    g.truncate(4);
    assert_eq!(g.fen(), fen_after_4);
    assert_eq!(g.ply_count(), 4);
    assert_eq!(g.fullmove_number(), 3);
    let last = g.undo().unwrap();
    assert_eq!(last.role(), Role::Knight);
    assert_eq!(g.turn(), Color::Black);
    while g.undo().is_some() {}
    assert_eq!(g.position(), g.start_position());
    assert_eq!(g.undo(), None);
}
