//! The seed's telegraph grid: two letters a square (e2 = GE), four a move, a promotion digit.
//!
//! The consonant gives the file and the board half (B C D F G H K L on ranks 1–4, M N P R S T W Z
//! on ranks 5–8), the vowel the rank (A E I O for 1–4, O I E A for 5–8), so every square has one
//! syllable and no two squares share one. Promotion and castling follow ICCF numeric (RULES.md §2).

use shakmaty::{CastlingMode, File, Move, Rank, Square};

use super::iccf::{coordinate_squares, promotion_digit, promotion_role};
use super::san::strip_suffixes;
use super::{MoveErrorKind, MoveSpec, Notation};

const LOW_FILES: &[u8; 8] = b"BCDFGHKL";
const HIGH_FILES: &[u8; 8] = b"MNPRSTWZ";
/// Vowels of ranks 1–4; ranks 5–8 use them mirrored (O I E A).
const VOWELS: &[u8; 4] = b"AEIO";

const SHAPE: &str = "four letters, two a square (e2-e4 = GEGO), \
                     and a digit for a promotion (1 queen, 2 rook, 3 bishop, 4 knight)";

fn is_consonant(b: u8) -> bool {
    LOW_FILES.contains(&b) || HIGH_FILES.contains(&b)
}

fn is_vowel(b: u8) -> bool {
    VOWELS.contains(&b)
}

/// Whether the text is four uppercase grid letters (consonant, vowel, consonant, vowel) and at
/// most one digit, after check or annotation marks.
pub fn looks_like(text: &str) -> bool {
    let t = strip_suffixes(text).as_bytes();
    let letters_ok =
        |l: &[u8]| is_consonant(l[0]) && is_vowel(l[1]) && is_consonant(l[2]) && is_vowel(l[3]);
    match t.len() {
        4 => letters_ok(t),
        5 => letters_ok(&t[..4]) && t[4].is_ascii_digit(),
        _ => false,
    }
}

/// Reads `GEGO`, `gego`, `MEMA1`.
pub fn parse(text: &str, mode: CastlingMode) -> Result<MoveSpec, MoveErrorKind> {
    let malformed = |reason: String| MoveErrorKind::Malformed {
        notation: Some(Notation::Telegraph),
        reason,
    };
    let mut letters = [0u8; 4];
    let mut n = 0;
    let mut digit = None;
    for c in strip_suffixes(text).chars() {
        if c.is_ascii_alphabetic() && digit.is_none() {
            if n == letters.len() {
                return Err(malformed(format!("too many letters; a move is {SHAPE}")));
            }
            letters[n] = c as u8;
            n += 1;
        } else if c.is_ascii_digit() && n == letters.len() && digit.is_none() {
            digit = Some(c as u8);
        } else {
            return Err(malformed(format!("unexpected {c:?}; a move is {SHAPE}")));
        }
    }
    if n < letters.len() {
        return Err(malformed(format!("{n} letters; a move is {SHAPE}")));
    }
    let from = square(letters[0], letters[1])?;
    let to = square(letters[2], letters[3])?;
    let promotion = match digit {
        None => None,
        Some(d) => Some(promotion_role(d).ok_or_else(|| {
            malformed(format!(
                "promotion digit {} does not exist: 1 queen, 2 rook, 3 bishop, 4 knight",
                d as char
            ))
        })?),
    };
    // Chess960 castling is read both as king-takes-rook and as the king's destination (which
    // resolve reports when it is ambiguous); standard castling only as the king's move.
    let _ = mode;
    Ok(MoveSpec::coordinates(from, to, promotion))
}

/// Writes the move in uppercase; castling as in ICCF numeric.
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

/// The two letters of a square.
pub fn square_code(sq: Square) -> [char; 2] {
    let file = sq.file() as usize;
    let rank = sq.rank() as usize;
    let (consonants, vowel) = if rank < 4 {
        (LOW_FILES, VOWELS[rank])
    } else {
        (HIGH_FILES, VOWELS[7 - rank])
    };
    [char::from(consonants[file]), char::from(vowel)]
}

fn push_square(out: &mut String, sq: Square) {
    out.extend(square_code(sq));
}

fn square(consonant: u8, vowel: u8) -> Result<Square, MoveErrorKind> {
    let c = consonant.to_ascii_uppercase();
    let v = vowel.to_ascii_uppercase();
    let found = VOWELS.iter().position(|&x| x == v).and_then(|vi| {
        if let Some(f) = LOW_FILES.iter().position(|&x| x == c) {
            Some((f, vi))
        } else {
            HIGH_FILES.iter().position(|&x| x == c).map(|f| (f, 7 - vi))
        }
    });
    match found {
        Some((f, r)) => Ok(Square::from_coords(
            File::new(f as u32),
            Rank::new(r as u32),
        )),
        None => Err(MoveErrorKind::NoSuchSquare(format!(
            "{}{}",
            consonant as char, vowel as char
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Target;
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    /// `expected`: "e2e4" / "a7a8q" for a spec, or the error's text.
    fn check(input: &str, expected: &str) {
        let got = match parse(input, CastlingMode::Standard) {
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

    #[test]
    fn the_seeds_squares() {
        for (square, code) in [
            ("a1", "BA"),
            ("e2", "GE"),
            ("e4", "GO"),
            ("h8", "ZA"),
            ("a5", "MO"),
            ("c6", "PI"),
            ("h1", "LA"),
            ("a8", "MA"),
            ("e5", "SO"),
            ("e7", "SE"),
            ("d3", "FI"),
            ("g6", "WI"),
        ] {
            assert_eq!(square_code(sq(square)).iter().collect::<String>(), code);
        }
    }

    #[test]
    fn every_square_has_its_own_code_and_reads_back() {
        let mut seen = std::collections::HashSet::new();
        for s in Square::ALL {
            let [c, v] = square_code(s);
            assert!(seen.insert((c, v)));
            assert_eq!(square(c as u8, v as u8).unwrap(), s);
        }
    }

    #[test]
    fn parses() {
        check("GEGO", "e2e4");
        check("SESO", "e7e5");
        check("gego", "e2e4");
        check("GeGo", "e2e4");
        check("MEMA1", "a7a8q");
        check("MEMA4", "a7a8n");
        check("GAKA", "e1g1");
        check("GEGO+", "e2e4");
        check(
            "BU",
            "not a move in telegraph code notation: 2 letters; a move is \
                      four letters, two a square (e2-e4 = GEGO), and a digit for a promotion \
                      (1 queen, 2 rook, 3 bishop, 4 knight)",
        );
        check("GUGO", "no such square \"GU\"");
        check("GEXO", "no such square \"XO\"");
        check("AGGO", "no such square \"AG\"");
        check(
            "MEMA5",
            "not a move in telegraph code notation: promotion digit 5 does not exist: \
             1 queen, 2 rook, 3 bishop, 4 knight",
        );
        assert!(
            parse("GEGOSESO", CastlingMode::Standard)
                .unwrap_err()
                .to_string()
                .contains("too many letters")
        );
        assert!(
            parse("GÉGO", CastlingMode::Standard)
                .unwrap_err()
                .to_string()
                .contains("unexpected 'É'")
        );
    }

    #[test]
    fn formats() {
        let castle = |k: &str, r: &str| Move::Castle {
            king: sq(k),
            rook: sq(r),
        };
        assert_eq!(format(castle("e1", "h1"), CastlingMode::Standard), "GAKA");
        assert_eq!(format(castle("e8", "a8"), CastlingMode::Standard), "SAPA");
        assert_eq!(format(castle("e1", "h1"), CastlingMode::Chess960), "GALA");
        let promo = Move::Normal {
            role: shakmaty::Role::Pawn,
            from: sq("a7"),
            capture: None,
            to: sq("a8"),
            promotion: Some(shakmaty::Role::Queen),
        };
        assert_eq!(format(promo, CastlingMode::Standard), "MEMA1");
    }

    #[test]
    fn looks_like_grid_words_only() {
        for (t, want) in [
            ("GEGO", true),
            ("MEMA1", true),
            ("GEGO+", true),
            ("gego", false),
            ("GEG", false),
            ("ABBA", false),
            ("GXGO", false),
            ("GEGOS", false),
            ("Nf3", false),
        ] {
            assert_eq!(looks_like(t), want, "{t:?}");
        }
    }
}
