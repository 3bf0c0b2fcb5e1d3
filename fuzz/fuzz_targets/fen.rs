//! Fuzz target: any text as a game's start position (FEN, X-FEN, Shredder-FEN), in standard and
//! Chess960 mode: a game or an error, never a panic; the game's FEN reads back as the same
//! position in the same castling mode, and moves played from it keep the game consistent.
#![no_main]

use annabella::chess::game::Game;
use libfuzzer_sys::fuzz_target;
use shakmaty::{CastlingMode, Position};

fuzz_target!(|input: (bool, &str, Vec<u8>)| {
    let (chess960, text, choices) = input;
    let Ok(mut game) = Game::from_fen(text, chess960) else {
        return;
    };
    let fen = game.fen();
    assert_eq!(game.start_fen(), fen);
    let again = Game::from_fen(&fen, game.castling_mode() == CastlingMode::Chess960)
        .unwrap_or_else(|e| panic!("{text:?} read, written as {fen:?}, refused: {e}"));
    assert_eq!(
        again.castling_mode(),
        game.castling_mode(),
        "{text:?} as {fen:?}"
    );
    assert_eq!(again.position(), game.position(), "{text:?} as {fen:?}");
    assert_eq!(again.fen(), fen);

    // A few moves chosen by the input, an undo now and then, and what the table asks a game.
    for c in choices.into_iter().take(64) {
        if c == 0xff {
            game.undo();
            continue;
        }
        let legal = game.position().legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[usize::from(c) % legal.len()];
        let _ = game.repetitions_after(m);
        let _ = game.claim_draw(Some(m));
        if game.play_past_automatic_end(m).is_err() {
            break;
        }
        let _ = game.outcome();
        let _ = game.claim_draw(None);
        let _ = game.repetitions();
    }
    // The position reached reads back from its FEN too.
    let fen = game.fen();
    let now = Game::from_fen(&fen, game.castling_mode() == CastlingMode::Chess960)
        .unwrap_or_else(|e| panic!("{text:?} played to {fen:?}, refused: {e}"));
    assert_eq!(
        now.position(),
        game.position(),
        "{text:?} played to {fen:?}"
    );
});
