//! Spoken moves: said for a voice ("Springer Gustav eins Felix drei") and read back, so an
//! assistant can type what he heard.
//!
//! The writer ([`format`]) says what SAN writes, in the language's words: the from-square only
//! where SAN disambiguates (always, with long verbosity), check and mate with the move, so the
//! move itself is never lost. The grammar is only the order of the parts of a move, which is the
//! same in every built-in language; the words come from the language file.
//!
//! The reader is forgiving about spelling and strict about meaning: case and diacritics are
//! folded (César = cesar), German umlauts may be typed as ae/oe/ue and ß as ss, digits and the
//! letters a–h stand in for rank and file names ("Springer f 3"), and every multi-word entry of
//! the vocabulary ("Kurze Rochade", "jaque mate") is matched longest first. A word it does not
//! know is an error naming the word, never a guess.
//!
//! The words come indexed by [`crate::lexicon`], which the language builds once when it
//! is loaded.

use shakmaty::{CastlingSide, Chess, File, Move, Position, Rank, Role, Square};

use super::resolve::castling_king_destination;
use super::{MoveErrorKind, MoveSpec, Notation, Style, Target, Verbosity};
use crate::language::Language;
use crate::lexicon::{Meaning, built_in_meaning, fold, raw_words};
use crate::vocabulary::Vocabulary;

/// The spoken form of a legal move of `pos`, with check or mate spoken with it.
///
/// Short verbosity names the from-square where SAN does (file first, then rank, then both)
/// and the from-file of pawn captures; long verbosity always names it.
pub fn format(pos: &Chess, m: Move, style: &Style) -> String {
    let v = style.lang.vocabulary();
    let mut words: Vec<&str> = Vec::new();
    match m {
        Move::Castle { .. } => {
            if let Some(side) = m.castling_side() {
                words.push(v.castling(side));
            }
        }
        _ => {
            let role = m.role();
            let to = m.to();
            if role != Role::Pawn {
                words.push(v.piece(role));
            }
            if let Some(from) = m.from() {
                let (file, rank) = match style.verbosity {
                    Verbosity::Long if king_step_looks_like_castling(pos, m) => (false, false),
                    Verbosity::Long => (true, true),
                    Verbosity::Short => san_disambiguation(pos, m),
                };
                if file {
                    words.push(v.file(from.file()));
                }
                if rank {
                    words.push(v.rank(from.rank()));
                }
            }
            if let Some(captured) = m.capture() {
                words.push(&v.moves().captures);
                if style.name_captured {
                    words.push(v.piece(captured));
                }
            }
            words.push(v.file(to.file()));
            words.push(v.rank(to.rank()));
            if m.is_en_passant() {
                words.push(&v.moves().en_passant);
            }
            if let Some(promoted) = m.promotion() {
                if let Some(word) = &v.moves().promotion {
                    words.push(word);
                }
                words.push(v.piece(promoted));
            }
        }
    }
    let mut after = pos.clone();
    after.play_unchecked(m);
    if after.is_checkmate() {
        words.push(&v.moves().mate);
    } else if after.is_check() {
        words.push(&v.moves().check);
    }
    words.join(" ")
}

/// Which parts of the from-square SAN writes: (file, rank).
fn san_disambiguation(pos: &Chess, m: Move) -> (bool, bool) {
    let (role, Some(from)) = (m.role(), m.from()) else {
        return (false, false);
    };
    match role {
        Role::Pawn => return (m.is_capture(), false),
        Role::King => return (false, false),
        _ => {}
    }
    let rivals: Vec<Square> = pos
        .legal_moves()
        .iter()
        .filter(|o| o.role() == role && o.to() == m.to() && !o.is_castle())
        .filter_map(|o| o.from())
        .filter(|&f| f != from)
        .collect();
    if rivals.is_empty() {
        (false, false)
    } else if rivals.iter().all(|r| r.file() != from.file()) {
        (true, false)
    } else if rivals.iter().all(|r| r.rank() != from.rank()) {
        (false, true)
    } else {
        (true, true)
    }
}

/// In Chess960 a king's step can end where castling puts the king (king f1, rook h1: f1-g1);
/// with its from-square the step would be read as castling too, so it is said without it.
fn king_step_looks_like_castling(pos: &Chess, m: Move) -> bool {
    let (Role::King, Some(from), false) = (m.role(), m.from(), m.is_castle()) else {
        return false;
    };
    pos.legal_moves()
        .iter()
        .any(|c| match (*c, c.castling_side()) {
            (Move::Castle { king, .. }, Some(side)) => {
                king == from && castling_king_destination(king, side) == m.to()
            }
            _ => false,
        })
}

/// The words a player may say for a promotion piece (queen, rook, bishop, knight).
pub fn promotion_choices(v: &Vocabulary) -> Vec<String> {
    [Role::Queen, Role::Rook, Role::Bishop, Role::Knight]
        .into_iter()
        .map(|r| v.piece(r).to_owned())
        .collect()
}

/// Whether `text` is made of words the reader knows, one of them at least a word of the
/// vocabulary ("Eva vier", "Kurze Rochade", "Springer f drei"), rather than of letters and
/// digits alone ("e4", "O-O", "e4 x d5"): how auto-detection tells a spoken move from a written
/// one. Syntax only.
pub fn looks_like(text: &str, lang: &Language) -> bool {
    if text.len() > super::MAX_MOVE_BYTES {
        return false;
    }
    let lexicon = lang.lexicon();
    let folded: Vec<String> = raw_words(text)
        .map(fold)
        .filter(|w| !w.is_empty())
        .collect();
    let mut i = 0;
    let mut from_vocabulary = false;
    while i < folded.len() {
        match lexicon.longest_match(&folded[i..]) {
            Some((_, len)) => {
                // Accepted typed forms made of single letters or digits ("x", "e.p.", "O-O")
                // appear in written notation too; a real word decides.
                from_vocabulary |= folded[i..i + len].iter().any(|w| w.chars().count() > 1);
                i += len;
            }
            None if built_in_meaning(&folded[i]).is_some() => i += 1,
            None => return false,
        }
    }
    from_vocabulary
}

/// Reads a spoken move into a spec, without the position.
///
/// A file name followed by a rank name is a square; the last square is the destination, a
/// square before it the from-square, a lone file or rank before it disambiguates. A piece
/// named first is the moving piece, one after the capture word the captured piece (not needed
/// to find the move), one after the destination the promotion piece. Check and mate words are
/// ignored: the position decides them.
pub fn parse(text: &str, lang: &Language) -> Result<MoveSpec, MoveErrorKind> {
    let v = lang.vocabulary();
    let lexicon = lang.lexicon();
    let originals: Vec<&str> = raw_words(text).filter(|w| !fold(w).is_empty()).collect();
    let folded: Vec<String> = originals.iter().map(|w| fold(w)).collect();
    if folded.is_empty() {
        return Err(malformed(format!(
            "no words; say a move like {:?}",
            example(v)
        )));
    }

    // Words to meanings, longest vocabulary entries first, then typed letters and digits.
    let mut terms: Vec<(Meaning, String)> = Vec::new();
    let mut i = 0;
    while i < folded.len() {
        let (meaning, len) = match lexicon.longest_match(&folded[i..]) {
            Some(found) => found,
            None => match built_in_meaning(&folded[i]) {
                Some(meaning) => (meaning, 1),
                None => return Err(malformed(unknown_word(originals[i], v))),
            },
        };
        terms.push((meaning, originals[i..i + len].join(" ")));
        i += len;
    }

    if let Some(side) = terms.iter().find_map(|(m, _)| match m {
        Meaning::Castle(side) => Some(*side),
        _ => None,
    }) {
        return castling(side, &terms);
    }

    // A file name directly followed by a rank name is one square.
    let mut items: Vec<(Meaning, String)> = Vec::new();
    let mut terms = terms.into_iter().peekable();
    while let Some((meaning, word)) = terms.next() {
        if let Meaning::File(file) = meaning
            && let Some((Meaning::Rank(rank), rank_word)) = terms.peek()
        {
            let square = Square::from_coords(file, *rank);
            let joined = format!("{word} {rank_word}");
            terms.next();
            items.push((Meaning::Square(square), joined));
            continue;
        }
        items.push((meaning, word));
    }

    let Some((dest_index, destination)) =
        items
            .iter()
            .enumerate()
            .rev()
            .find_map(|(i, (m, _))| match m {
                Meaning::Square(square) => Some((i, *square)),
                _ => None,
            })
    else {
        return Err(malformed(format!(
            "no destination square; say a file and a rank, like {:?}",
            square_words(v, Square::E4)
        )));
    };

    let mut spec = MoveSpec {
        role: None,
        from_file: None,
        from_rank: None,
        target: Target::Square(destination),
        promotion: None,
        castling_by_rook_square: false,
    };
    let mut seen_coordinate = false;
    let mut seen_capture = false;
    let mut seen_captured_piece = false;
    let mut en_passant = false;
    for (meaning, word) in &items[..dest_index] {
        match *meaning {
            Meaning::Piece(role) if spec.role.is_none() && !seen_coordinate && !seen_capture => {
                spec.role = Some(role);
            }
            Meaning::Piece(_) if seen_capture && !seen_captured_piece => {
                seen_captured_piece = true;
            }
            Meaning::Square(square) if spec.from_file.is_none() && spec.from_rank.is_none() => {
                spec.from_file = Some(square.file());
                spec.from_rank = Some(square.rank());
                seen_coordinate = true;
            }
            Meaning::File(file) if spec.from_file.is_none() => {
                spec.from_file = Some(file);
                seen_coordinate = true;
            }
            Meaning::Rank(rank) if spec.from_rank.is_none() => {
                spec.from_rank = Some(rank);
                seen_coordinate = true;
            }
            Meaning::Captures if !seen_capture => seen_capture = true,
            Meaning::EnPassant => en_passant = true,
            Meaning::Check | Meaning::Mate => {}
            _ => {
                return Err(malformed(format!(
                    "{word:?} is out of place; a move is said as piece, from-square, \
                     capture, destination, promotion piece, like {:?}",
                    example(v)
                )));
            }
        }
    }
    let mut promotion_word = false;
    for (meaning, word) in &items[dest_index + 1..] {
        match *meaning {
            Meaning::Promotion if !promotion_word && spec.promotion.is_none() => {
                promotion_word = true;
            }
            Meaning::Piece(role) if spec.promotion.is_none() => spec.promotion = Some(role),
            Meaning::EnPassant => en_passant = true,
            Meaning::Check | Meaning::Mate => {}
            _ => {
                return Err(malformed(format!(
                    "{word:?} after the destination square; only the promotion piece, \
                     en passant, check or mate may follow it"
                )));
            }
        }
    }
    if spec.role.is_none() && (spec.from_square().is_none() || en_passant) {
        spec.role = Some(Role::Pawn);
    }
    Ok(spec)
}

/// Castling: only the castling words, the king, and check or mate.
fn castling(side: CastlingSide, terms: &[(Meaning, String)]) -> Result<MoveSpec, MoveErrorKind> {
    let mut castles = 0;
    for (meaning, word) in terms {
        match meaning {
            Meaning::Castle(s) if *s == side && castles == 0 => castles += 1,
            Meaning::Piece(Role::King) | Meaning::Check | Meaning::Mate => {}
            _ => {
                return Err(malformed(format!(
                    "{word:?} does not belong in castling, which names no squares"
                )));
            }
        }
    }
    Ok(MoveSpec::castle(side))
}

fn malformed(reason: String) -> MoveErrorKind {
    MoveErrorKind::Malformed {
        notation: Some(Notation::Spoken),
        reason,
    }
}

fn square_words(v: &Vocabulary, square: Square) -> String {
    format!("{} {}", v.file(square.file()), v.rank(square.rank()))
}

fn example(v: &Vocabulary) -> String {
    format!("{} {}", v.piece(Role::Knight), square_words(v, Square::F3))
}

fn unknown_word(word: &str, v: &Vocabulary) -> String {
    let pieces: Vec<&str> = [
        Role::King,
        Role::Queen,
        Role::Rook,
        Role::Bishop,
        Role::Knight,
        Role::Pawn,
    ]
    .into_iter()
    .map(|r| v.piece(r))
    .collect();
    let files: Vec<&str> = File::ALL.into_iter().map(|f| v.file(f)).collect();
    let ranks: Vec<&str> = Rank::ALL.into_iter().map(|r| v.rank(r)).collect();
    let m = v.moves();
    let mut others = vec![
        m.captures.as_str(),
        &m.en_passant,
        &m.check,
        &m.mate,
        &m.short_castling,
        &m.long_castling,
    ];
    if let Some(p) = &m.promotion {
        others.insert(2, p);
    }
    format!(
        "unknown word {word:?}; expected a piece ({}), a file ({} or a to h), a rank ({} or 1 \
         to 8), or one of: {}",
        pieces.join(", "),
        files.join(", "),
        ranks.join(", "),
        others.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn de() -> &'static Language {
        Language::german()
    }

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    fn spec(text: &str, lang: &Language) -> MoveSpec {
        parse(text, lang).unwrap_or_else(|e| panic!("{text:?}: {e}"))
    }

    #[test]
    fn piece_moves_with_and_without_from_square() {
        let s = spec("Springer Felix drei", de());
        assert_eq!(s.role, Some(Role::Knight));
        assert_eq!(s.target, Target::Square(sq("f3")));
        assert_eq!((s.from_file, s.from_rank), (None, None));

        let s = spec("Springer Gustav eins Felix drei", de());
        assert_eq!(s.from_square(), Some(sq("g1")));
        let s = spec("Springer Gustav Felix drei", de());
        assert_eq!((s.from_file, s.from_rank), (Some(File::G), None));
        let s = spec("Turm eins David eins", de());
        assert_eq!((s.from_file, s.from_rank), (None, Some(Rank::First)));
    }

    #[test]
    fn pawn_moves_captures_and_promotions() {
        let s = spec("Eva vier", de());
        assert_eq!(s.role, Some(Role::Pawn));
        let s = spec("Eva schlägt David fünf", de());
        assert_eq!((s.role, s.from_file), (Some(Role::Pawn), Some(File::E)));
        assert_eq!(s.target, Target::Square(sq("d5")));
        // Two squares and no piece: any piece on the from-square.
        let s = spec("Eva zwei Eva vier", de());
        assert_eq!(s.role, None);
        let s = spec("Eva sieben Eva acht wird Dame Schach", de());
        assert_eq!(s.promotion, Some(Role::Queen));
        let s = spec("Eva acht Springer", de());
        assert_eq!(s.promotion, Some(Role::Knight));
        let s = spec("Läufer Bella fünf schlägt Springer Cesar sechs", de());
        assert_eq!(s.role, Some(Role::Bishop));
        assert_eq!(s.promotion, None);
        assert_eq!(s.target, Target::Square(sq("c6")));
    }

    #[test]
    fn castling_words_longest_first() {
        assert_eq!(
            spec("Kurze Rochade", de()),
            MoveSpec::castle(CastlingSide::KingSide)
        );
        assert_eq!(
            spec("lange rochade matt", de()),
            MoveSpec::castle(CastlingSide::QueenSide)
        );
        let es = Language::builtin("es").unwrap();
        assert_eq!(
            spec("enroque largo jaque mate", es),
            MoveSpec::castle(CastlingSide::QueenSide)
        );
        assert!(parse("Kurze Rochade Eva vier", de()).is_err());
    }

    #[test]
    fn typed_letters_digits_and_spellings() {
        for text in [
            "Springer f 3",
            "Springer Felix 3",
            "springer f3",
            "SPRINGER FELIX DREI",
            "Springer, Felix drei!",
        ] {
            let s = spec(text, de());
            assert_eq!(s.role, Some(Role::Knight), "{text}");
            assert_eq!(s.target, Target::Square(sq("f3")), "{text}");
        }
        assert_eq!(spec("Laeufer c4", de()).role, Some(Role::Bishop));
        assert_eq!(spec("Laufer c4", de()).role, Some(Role::Bishop));
        assert_eq!(spec("Koenig e2", de()).role, Some(Role::King));
        let es = Language::builtin("es").unwrap();
        assert_eq!(
            spec("Caballo Cesar tres", es).target,
            Target::Square(sq("c3"))
        );
        assert_eq!(
            spec("caballo CÉSAR tres", es).target,
            Target::Square(sq("c3"))
        );
        assert_eq!(spec("peon e cinco", es).role, Some(Role::Pawn));
    }

    #[test]
    fn unknown_words_are_named_with_what_was_expected() {
        let err = parse("Springer Felicks drei", de()).unwrap_err();
        let MoveErrorKind::Malformed { notation, reason } = err else {
            panic!("{err:?}")
        };
        assert_eq!(notation, Some(Notation::Spoken));
        assert!(reason.contains("\"Felicks\""), "{reason}");
        assert!(reason.contains("Springer"), "{reason}");
        assert!(reason.contains("Hector"), "{reason}");
    }

    #[test]
    fn misplaced_words_are_refused() {
        for text in [
            "Springer",
            "Felix",
            "drei",
            "Eva vier David",
            "Eva vier schlägt",
            "Springer Läufer Felix drei",
            "Eva zwei Eva drei Eva vier",
            "...",
            "",
        ] {
            assert!(
                matches!(parse(text, de()), Err(MoveErrorKind::Malformed { .. })),
                "{text:?}"
            );
        }
    }

    #[test]
    fn spoken_moves_are_told_from_written_ones() {
        let es = Language::builtin("es").unwrap();
        for (text, lang, spoken) in [
            ("Eva vier", de(), true),
            ("Springer Gustav eins Felix drei Schach", de(), true),
            ("Kurze Rochade", de(), true),
            ("Springer f 3", de(), true),
            ("enroque corto", es, true),
            ("Caballo Félix tres", es, true),
            ("e4", de(), false),
            ("e4 e5", de(), false),
            ("e 4", de(), false),
            ("Sf3", de(), false),
            ("O-O", de(), false),
            ("e4 x d5", de(), false),
            ("e4 nimmt d5", de(), true),
            ("exd6 e.p.", de(), false),
            ("5254 5755", de(), false),
            ("GEGO SESO", de(), false),
            ("Springer Felicks drei", de(), false),
            ("", de(), false),
        ] {
            assert_eq!(looks_like(text, lang), spoken, "{text:?}");
        }
    }

    #[test]
    fn odd_unicode_does_not_panic() {
        for text in ["ǅ İ ﬃ", "\u{301}\u{301}", "Ⅻ 𝟘", "é\u{0}z", "ß ß ß", "ÿ̈"] {
            let _ = parse(text, de());
        }
    }

    #[test]
    fn check_and_mate_are_spoken_with_the_move() {
        let pos: Chess = "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let m = Move::Normal {
            role: Role::Queen,
            from: Square::D8,
            capture: None,
            to: Square::H4,
            promotion: None,
        };
        let style = Style::new(Language::german());
        assert_eq!(format(&pos, m, &style), "Dame Hector vier Matt");
    }
}
