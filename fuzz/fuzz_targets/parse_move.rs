//! Fuzz target: any text, in any notation and language, against a few positions, never panics.
#![no_main]

use annabella::chess::language::Language;
use annabella::chess::notation::{self, Notation};
use libfuzzer_sys::fuzz_target;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let fens = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1",
        "4k3/8/8/8/8/8/8/5K1R w H - 0 1",
    ];
    let fen = fens[selector as usize % fens.len()];
    let mode = if selector % 2 == 0 { CastlingMode::Standard } else { CastlingMode::Chess960 };
    let Ok(pos) = fen.parse::<Fen>().unwrap().into_position::<Chess>(mode) else { return };
    let codes = Language::builtin_codes();
    let lang = Language::builtin(codes[(selector as usize / 3) % codes.len()]).unwrap();
    let notation = match selector % 7 {
        0 => None,
        i => Some(Notation::ALL[i as usize - 1]),
    };
    if let Ok(m) = notation::parse_move(&pos, mode, text, notation, lang) {
        for n in Notation::ALL {
            let _ = notation::format_move(&pos, mode, m, n, &notation::Style::new(lang));
        }
    }
});
