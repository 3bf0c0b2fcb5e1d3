//! Fuzz target: a language file of arbitrary text is loaded or refused, never a panic; a
//! language that loads says every move of a few positions in every notation in words and
//! letters that read back as the same move, and says its phrases without a panic.
#![no_main]

use annabella::chess::language::Language;
use annabella::chess::notation::{self, MAX_MOVE_BYTES, Notation, Style};
use annabella::chess::phrases::{self, Event};
use libfuzzer_sys::fuzz_target;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

const FENS: [&str; 3] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    // Castling both ways, promotions with and without capture, en passant.
    "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1",
    // Two knights and two rooks that need disambiguation.
    "4k3/8/8/2N3N1/8/R6R/8/4K3 w - - 0 1",
];

fuzz_target!(|text: &str| {
    let Ok(lang) = Language::from_toml(text) else {
        return;
    };
    let style = Style::new(&lang);
    let mode = CastlingMode::Standard;
    for fen in FENS {
        let pos: Chess = fen
            .parse::<Fen>()
            .expect("a FEN")
            .into_position(mode)
            .expect("legal");
        for m in pos.legal_moves() {
            for n in Notation::ALL {
                let said = notation::format_move(&pos, mode, m, n, &style);
                if said.len() > MAX_MOVE_BYTES {
                    continue;
                }
                let back = notation::parse_move(&pos, mode, &said, Some(n), &lang);
                assert_eq!(back.as_ref().ok(), Some(&m), "{n:?} {said:?}: {back:?}");
            }
        }
    }
    let v = lang.vocabulary();
    for event in Event::all() {
        let _ = phrases::event_phrase(event, v);
    }
    for ms in [0, 999, 61_000, 3_600_000, u64::MAX] {
        let _ = phrases::duration_phrase(ms, v);
        let _ = phrases::clock_phrase(ms, ms / 2, 40, v);
    }
    for n in [0, 1, 21, 99, 1000, u32::MAX] {
        let _ = phrases::number_phrase(n, v);
    }
});
