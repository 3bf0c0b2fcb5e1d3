//! ICCF numeric notation: two digits a square (a1 = 11), a fifth for promotion.
//!
//! Castling is written as the king's own move (5171, 5838), never as shakmaty's internal
//! king-takes-rook, which would print O-O as 5181. No public rule covers Chess960; there we write
//! king square then rook square (as UCI_Chess960 does) and read both that and the king's
//! destination, leaving the ambiguity of the latter to [`super::resolve`].

use shakmaty::{CastlingMode, File, Move, Rank, Role, Square};

use super::resolve::castling_king_destination;
use super::san::strip_suffixes;
use super::{MoveErrorKind, MoveSpec, Notation};

const SHAPE: &str = "four digits, from-square then to-square (e2-e4 = 5254), \
                     and a fifth for a promotion (1 queen, 2 rook, 3 bishop, 4 knight)";

/// Whether the text is a 4–5 digit token (after check or annotation marks), as ICCF moves are.
pub fn looks_like(text: &str) -> bool {
    let t = strip_suffixes(text).as_bytes();
    (4..=5).contains(&t.len()) && t.iter().all(u8::is_ascii_digit)
}

/// Reads `5254`, `37381`; stray `x`, `-`, `+`, `#`, `!`, `?` are tolerated.
pub fn parse(text: &str, mode: CastlingMode) -> Result<MoveSpec, MoveErrorKind> {
    let malformed = |reason: String| MoveErrorKind::Malformed {
        notation: Some(Notation::Iccf),
        reason,
    };
    let mut digits = [0u8; 5];
    let mut n = 0;
    for c in strip_suffixes(text).chars() {
        match c {
            '0'..='9' => {
                if n == digits.len() {
                    return Err(malformed(format!("too many digits; a move is {SHAPE}")));
                }
                digits[n] = c as u8;
                n += 1;
            }
            // Correspondents sometimes add capture or check signs the notation does not need.
            'x' | 'X' | '-' | ':' | '+' | '#' | '!' | '?' => {}
            _ => {
                return Err(malformed(format!("unexpected {c:?}; a move is {SHAPE}")));
            }
        }
    }
    if n < 4 {
        return Err(malformed(format!("{n} digits; a move is {SHAPE}")));
    }
    let from = square(digits[0], digits[1])?;
    let to = square(digits[2], digits[3])?;
    let promotion = if n == 5 {
        Some(promotion_role(digits[4]).ok_or_else(|| {
            malformed(format!(
                "promotion digit {} does not exist: 1 queen, 2 rook, 3 bishop, 4 knight",
                digits[4] as char
            ))
        })?)
    } else {
        None
    };
    // Chess960 castling is read both as king-takes-rook and as the king's destination (which
    // resolve reports when it is ambiguous); standard castling only as the king's move.
    let _ = mode;
    Ok(MoveSpec::coordinates(from, to, promotion))
}

/// Writes the move; castling as the king's move in standard chess, king then rook in Chess960.
pub fn format(m: Move, mode: CastlingMode) -> String {
    let (from, to) = coordinate_squares(m, mode);
    let mut out = String::with_capacity(5);
    push_square(&mut out, from);
    push_square(&mut out, to);
    if let Some(digit) = m.promotion().and_then(promotion_digit) {
        out.push(digit);
    }
    out
}

/// The from- and to-square a coordinate notation writes (castling per the rules above).
pub(crate) fn coordinate_squares(m: Move, mode: CastlingMode) -> (Square, Square) {
    match m {
        Move::Castle { king, rook } => match (mode, m.castling_side()) {
            (CastlingMode::Standard, Some(side)) => (king, castling_king_destination(king, side)),
            _ => (king, rook),
        },
        // Drops do not occur in chess; writing the target twice keeps this total.
        _ => (m.from().unwrap_or(m.to()), m.to()),
    }
}

/// The ICCF promotion digit of a role (shared with the telegraph code).
pub(crate) fn promotion_digit(role: Role) -> Option<char> {
    match role {
        Role::Queen => Some('1'),
        Role::Rook => Some('2'),
        Role::Bishop => Some('3'),
        Role::Knight => Some('4'),
        Role::Pawn | Role::King => None,
    }
}

/// The role of an ICCF promotion digit (ASCII byte).
pub(crate) fn promotion_role(digit: u8) -> Option<Role> {
    match digit {
        b'1' => Some(Role::Queen),
        b'2' => Some(Role::Rook),
        b'3' => Some(Role::Bishop),
        b'4' => Some(Role::Knight),
        _ => None,
    }
}

fn square(file: u8, rank: u8) -> Result<Square, MoveErrorKind> {
    let f = file.wrapping_sub(b'1');
    let r = rank.wrapping_sub(b'1');
    if f < 8 && r < 8 {
        Ok(Square::from_coords(
            File::new(u32::from(f)),
            Rank::new(u32::from(r)),
        ))
    } else {
        Err(MoveErrorKind::NoSuchSquare(format!(
            "{}{}",
            file as char, rank as char
        )))
    }
}

fn push_square(out: &mut String, sq: Square) {
    out.push(char::from(b'1' + sq.file() as u8));
    out.push(char::from(b'1' + sq.rank() as u8));
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{Chess, Position};

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    /// `expected`: "e2e4" / "e7e8q" for a spec, or the error's text.
    fn check(input: &str, expected: &str) {
        check_mode(input, CastlingMode::Standard, expected);
    }

    fn check_mode(input: &str, mode: CastlingMode, expected: &str) {
        let got = match parse(input, mode) {
            Ok(spec) => {
                let from = spec.from_square().unwrap();
                let Target::Square(to) = spec.target else {
                    panic!("{input}: castling target")
                };
                let mut s = format!("{from}{to}");
                if let Some(p) = spec.promotion {
                    s.push(p.char());
                }
                s
            }
            Err(e) => e.to_string(),
        };
        assert_eq!(got, expected, "{input:?}");
    }

    use super::super::Target;

    #[test]
    fn parses() {
        check("5254", "e2e4");
        check("1188", "a1h8");
        check("37381", "c7c8q");
        check("67682", "f7f8r");
        check("27283", "b7b8b");
        check("27284", "b7b8n");
        check("52x54", "e2e4");
        check("5254+", "e2e4");
        check("5254#", "e2e4");
        check("5463!?", "e4f3");
        check("5463 e.p.", "e4f3");
        check("52-54", "e2e4");
    }

    #[test]
    fn errors_say_why() {
        check("5954", "no such square \"59\"");
        check("5250", "no such square \"50\"");
        check("0254", "no such square \"02\"");
        check(
            "37385",
            "not a move in ICCF numeric notation: promotion digit 5 does not exist: \
             1 queen, 2 rook, 3 bishop, 4 knight",
        );
        check(
            "37380",
            "not a move in ICCF numeric notation: promotion digit 0 does not exist: \
             1 queen, 2 rook, 3 bishop, 4 knight",
        );
        assert!(
            parse("525", CastlingMode::Standard)
                .unwrap_err()
                .to_string()
                .contains("3 digits")
        );
        assert!(
            parse("525412", CastlingMode::Standard)
                .unwrap_err()
                .to_string()
                .contains("too many digits")
        );
        assert!(
            parse("52é4", CastlingMode::Standard)
                .unwrap_err()
                .to_string()
                .contains("unexpected 'é'")
        );
    }

    #[test]
    fn looks_like_only_whole_digit_tokens() {
        for (t, want) in [
            ("5254", true),
            ("37381", true),
            ("5254+", true),
            ("525", false),
            ("525412", false),
            ("e2e4", false),
            ("５２５４", false),
            ("", false),
        ] {
            assert_eq!(looks_like(t), want, "{t:?}");
        }
    }

    fn castle(king: &str, rook: &str) -> Move {
        Move::Castle {
            king: sq(king),
            rook: sq(rook),
        }
    }

    #[test]
    fn castling_is_the_kings_move_in_standard_chess() {
        let std = CastlingMode::Standard;
        assert_eq!(format(castle("e1", "h1"), std), "5171");
        assert_eq!(format(castle("e1", "a1"), std), "5131");
        assert_eq!(format(castle("e8", "h8"), std), "5878");
        assert_eq!(format(castle("e8", "a8"), std), "5838");
        assert_eq!(format(castle("e1", "h1"), CastlingMode::Chess960), "5181");
    }

    #[test]
    fn formats_promotions_and_plain_moves() {
        let pos: Chess = "1n6/P6k/8/8/8/8/8/K7 w - - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let mut got: Vec<String> = pos
            .legal_moves()
            .iter()
            .filter(|m| m.is_promotion())
            .map(|&m| format(m, CastlingMode::Standard))
            .collect();
        got.sort();
        assert_eq!(
            got,
            [
                "17181", "17182", "17183", "17184", "17281", "17282", "17283", "17284"
            ]
        );
    }
}
