//! Long algebraic notation (`e2-e4`, `Ng1-f3`, `Cg1f3`, `e5xd6`) and UCI (`e2e4`, `e7e8q`).
//!
//! Long algebraic is read by the SAN reader (it accepts a from-square anyway), so both share
//! one set of lenient forms and one set of error messages. UCI is strict in shape but reads
//! castling both as the king's move (`e1g1`) and as king-takes-rook (`e1h1`, UCI_Chess960).

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, File, Move, Position, Rank, Role, Square};

use super::san::{
    castling_text, figurine_role, is_dash, parse_algebraic, piece_char, push_square, push_suffix,
    strip_suffixes,
};
use super::{MoveErrorKind, MoveSpec, Notation, Style};
use crate::language::Language;
use shakmaty::san::Suffix;

fn is_file(b: u8) -> bool {
    (b'a'..=b'h').contains(&b)
}

fn is_rank(b: u8) -> bool {
    (b'1'..=b'8').contains(&b)
}

/// `[a-h][1-8][a-h][1-8][qrbn]?`, after check or annotation marks.
pub fn looks_like_uci(text: &str) -> bool {
    let t = strip_suffixes(text).as_bytes();
    let squares = |t: &[u8]| is_file(t[0]) && is_rank(t[1]) && is_file(t[2]) && is_rank(t[3]);
    match t.len() {
        4 => squares(t),
        5 => squares(t) && matches!(t[4], b'q' | b'r' | b'b' | b'n'),
        _ => false,
    }
}

/// Optional piece letter or figurine, square, `-`/`x`/`:` or nothing, square, optional
/// promotion and marks; UCI-shaped text is left to [`looks_like_uci`].
pub fn looks_like_lan(text: &str) -> bool {
    if looks_like_uci(text) {
        return false;
    }
    let mut chars = strip_suffixes(text).chars().peekable();
    if chars
        .peek()
        .is_some_and(|&c| c.is_ascii_uppercase() || figurine_role(c).is_some())
    {
        chars.next();
    }
    let square = |chars: &mut std::iter::Peekable<std::str::Chars>| {
        matches!(
            (chars.next(), chars.next()),
            (Some('a'..='h'), Some('1'..='8'))
        )
    };
    if !square(&mut chars) {
        return false;
    }
    if chars
        .peek()
        .is_some_and(|&c| matches!(c, 'x' | '×' | ':') || is_dash(c))
    {
        chars.next();
    }
    if !square(&mut chars) {
        return false;
    }
    // Whatever follows must look like a promotion: `=Q`, `/Q`, `(Q)`, `Q`.
    let rest: [Option<char>; 4] = [chars.next(), chars.next(), chars.next(), chars.next()];
    let piece = |c: char| c.is_alphabetic() || figurine_role(c).is_some();
    match rest {
        [None, ..] => true,
        [Some(p), None, ..] => piece(p),
        [Some('=' | '/'), Some(p), None, _] => piece(p),
        [Some('('), Some(p), Some(')'), None] => piece(p),
        _ => false,
    }
}

/// Reads long algebraic notation in `lang`'s letters (`Ng1-f3`, `Cg1f3`, `e7-e8=Q`, `O-O`).
pub fn parse_lan(text: &str, lang: &Language) -> Result<MoveSpec, MoveErrorKind> {
    parse_algebraic(text, lang, Notation::Lan)
}

/// Reads UCI (`e2e4`, `e7e8q`, `e1g1` or `e1h1` for castling).
pub fn parse_uci(text: &str) -> Result<MoveSpec, MoveErrorKind> {
    let malformed = |reason: String| MoveErrorKind::Malformed {
        notation: Some(Notation::Uci),
        reason,
    };
    let t = strip_suffixes(text).as_bytes();
    if t == b"0000" {
        return Err(malformed("a null move (0000) is not a move".to_owned()));
    }
    if !(4..=5).contains(&t.len()) || !t.is_ascii() {
        return Err(malformed(
            "a move is from-square, to-square and for a promotion q, r, b or n (e2e4, e7e8q)"
                .to_owned(),
        ));
    }
    let from = uci_square(&t[0..2])?;
    let to = uci_square(&t[2..4])?;
    let promotion = match t.get(4) {
        None => None,
        Some(&b) => Some(match b.to_ascii_lowercase() {
            b'q' => Role::Queen,
            b'r' => Role::Rook,
            b'b' => Role::Bishop,
            b'n' => Role::Knight,
            _ => {
                return Err(malformed(format!(
                    "promotion letter {:?} does not exist: q, r, b or n",
                    b as char
                )));
            }
        }),
    };
    let mut spec = MoveSpec::coordinates(from, to, promotion);
    spec.castling_by_rook_square = true;
    Ok(spec)
}

fn uci_square(two: &[u8]) -> Result<Square, MoveErrorKind> {
    let (f, r) = (two[0].to_ascii_lowercase(), two[1]);
    if is_file(f) && is_rank(r) {
        Ok(Square::from_coords(
            File::new(u32::from(f - b'a')),
            Rank::new(u32::from(r - b'1')),
        ))
    } else {
        // The caller checked the text is ASCII, so these bytes are characters.
        Err(MoveErrorKind::NoSuchSquare(format!(
            "{}{}",
            two[0] as char, two[1] as char
        )))
    }
}

/// Writes `Ng1-f3`, `e5xd6`, `e7-e8=Q`, `O-O`, with `+`/`#`, in the style's letters.
pub fn format_lan(pos: &Chess, m: Move, style: &Style) -> String {
    let mut out = String::with_capacity(10);
    match m {
        Move::Castle { .. } => {
            out.push_str(castling_text(
                m.castling_side()
                    .unwrap_or(shakmaty::CastlingSide::KingSide),
            ));
        }
        _ => {
            let role = m.role();
            if role != Role::Pawn {
                out.push(piece_char(role, style));
            }
            if let Some(from) = m.from() {
                push_square(&mut out, from);
            }
            out.push(if m.is_capture() { 'x' } else { '-' });
            push_square(&mut out, m.to());
            if let Some(p) = m.promotion() {
                out.push('=');
                out.push(piece_char(p, style));
            }
        }
    }
    let mut after = pos.clone();
    after.play_unchecked(m);
    push_suffix(&mut out, Suffix::from_position(&after));
    out
}

/// UCI; in Chess960 castling is king-takes-rook (`UCI_Chess960`).
pub fn format_uci(m: Move, mode: CastlingMode) -> String {
    UciMove::from_move(m, mode).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn show(r: Result<MoveSpec, MoveErrorKind>) -> String {
        match r {
            Ok(spec) if spec.castling_by_rook_square => {
                format!("{} (rook square)", crate::notation::san::tests::show(&spec))
            }
            Ok(spec) => crate::notation::san::tests::show(&spec),
            Err(e) => e.to_string(),
        }
    }

    fn check_lan(code: &str, input: &str, expected: &str) {
        let lang = Language::builtin(code).unwrap();
        assert_eq!(show(parse_lan(input, lang)), expected, "{code} {input:?}");
    }

    fn check_uci(input: &str, expected: &str) {
        assert_eq!(show(parse_uci(input)), expected, "{input:?}");
    }

    #[test]
    fn lan() {
        check_lan("en", "e2-e4", "?e2e4");
        check_lan("en", "Ng1-f3", "Ng1f3");
        check_lan("es", "Cg1f3", "Ng1f3");
        check_lan("de", "Sg1-f3", "Ng1f3");
        check_lan("en", "e5xd6", "?e5d6");
        check_lan("en", "e5:d6", "?e5d6");
        check_lan("en", "e5xd6 e.p.", "?e5d6");
        check_lan("en", "Ke1-g1", "Ke1g1");
        check_lan("en", "e7-e8=Q", "?e7e8=Q");
        check_lan("en", "e7e8Q", "?e7e8=Q");
        check_lan("en", "O-O", "O-O");
        check_lan("en", "0-0-0+", "O-O-O");
        check_lan("en", "♘g1–f3", "Ng1f3");
        check_lan(
            "en",
            "Sg1-f3",
            "not a move in long algebraic notation: \
             S is not a piece letter in English (K Q R B N; P for a pawn)",
        );
    }

    #[test]
    fn uci() {
        check_uci("e2e4", "?e2e4 (rook square)");
        check_uci("e7e8q", "?e7e8=Q (rook square)");
        check_uci("e7e8Q", "?e7e8=Q (rook square)");
        check_uci("e1h1", "?e1h1 (rook square)");
        check_uci("e2e4+", "?e2e4 (rook square)");
        check_uci("e2e9", "no such square \"e9\"");
        check_uci("i2e4", "no such square \"i2\"");
        check_uci(
            "e7e8k",
            "not a move in UCI notation: promotion letter 'k' does not exist: q, r, b or n",
        );
        check_uci(
            "0000",
            "not a move in UCI notation: a null move (0000) is not a move",
        );
        check_uci(
            "e2",
            "not a move in UCI notation: a move is from-square, to-square and for a \
             promotion q, r, b or n (e2e4, e7e8q)",
        );
        check_uci(
            "é2e4",
            "not a move in UCI notation: a move is from-square, to-square and for a \
             promotion q, r, b or n (e2e4, e7e8q)",
        );
    }

    #[test]
    fn shapes() {
        for (t, uci, lan) in [
            ("e2e4", true, false),
            ("e7e8q", true, false),
            ("e7e8Q", false, true),
            ("e2-e4", false, true),
            ("e2–e4", false, true),
            ("Ng1-f3", false, true),
            ("Ng1f3", false, true),
            ("♘g1f3", false, true),
            ("e5xd6", false, true),
            ("e5:d6", false, true),
            ("e5xd6 e.p.", false, true),
            ("e7-e8=Q+", false, true),
            ("e7-e8(Q)", false, true),
            ("e2e4+", true, false),
            ("Nf3", false, false),
            ("exd6", false, false),
            ("O-O", false, false),
            ("e2e4e5", false, false),
            ("e7-e8=Q=Q", false, false),
            ("", false, false),
        ] {
            assert_eq!(looks_like_uci(t), uci, "uci {t:?}");
            assert_eq!(looks_like_lan(t), lan, "lan {t:?}");
        }
    }

    #[test]
    fn formats() {
        let p: Chess = "r3k2r/1P6/8/3pP3/8/8/6N1/R3K2R w KQkq d6 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let en = Style::new(Language::english());
        let mut de = Style::new(Language::german());
        let fmt = |uci: &str, style: &Style| {
            let m = uci.parse::<UciMove>().unwrap().to_move(&p).unwrap();
            (
                format_lan(&p, m, style),
                format_uci(m, CastlingMode::Standard),
                format_uci(m, CastlingMode::Chess960),
            )
        };
        let s = |a: &str, b: &str, c: &str| (a.to_owned(), b.to_owned(), c.to_owned());
        assert_eq!(fmt("g2f4", &en), s("Ng2-f4", "g2f4", "g2f4"));
        assert_eq!(fmt("g2f4", &de), s("Sg2-f4", "g2f4", "g2f4"));
        assert_eq!(fmt("e5d6", &en), s("e5xd6", "e5d6", "e5d6"));
        assert_eq!(fmt("e1g1", &en), s("O-O", "e1g1", "e1h1"));
        assert_eq!(fmt("e1c1", &en), s("O-O-O", "e1c1", "e1a1"));
        assert_eq!(fmt("b7a8q", &en), s("b7xa8=Q+", "b7a8q", "b7a8q"));
        assert_eq!(fmt("a1a8", &en), s("Ra1xa8+", "a1a8", "a1a8"));
        de.figurines = true;
        assert_eq!(fmt("b7b8n", &de), s("b7-b8=♘", "b7b8n", "b7b8n"));
    }
}
