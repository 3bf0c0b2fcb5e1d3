//! Spoken moves read back ("Springer Gustav eins Felix drei"), so an assistant can type what he heard.
//!
//! The reader is forgiving about spelling and strict about meaning: case and diacritics are
//! folded (César = cesar), German umlauts may be typed as ae/oe/ue and ß as ss, digits and the
//! letters a–h stand in for rank and file names ("Springer f 3"), and every multi-word entry of
//! the vocabulary ("Kurze Rochade", "jaque mate") is matched longest first. A word it does not
//! know is an error naming the word, never a guess.

use shakmaty::{CastlingSide, File, Rank, Role, Square};

use super::{MoveErrorKind, MoveSpec, Notation, Target};
use crate::chess::language::Language;
use crate::chess::vocabulary::{Vocabulary, role_key};

/// What a recognised word means in a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meaning {
    File(File),
    Rank(Rank),
    /// A typed square such as "f3".
    Square(Square),
    Piece(Role),
    Castle(CastlingSide),
    Captures,
    EnPassant,
    Promotion,
    Check,
    Mate,
}

/// The words of one vocabulary, folded and tokenized, longest entries first.
#[derive(Debug, Clone, Default)]
pub struct Lexicon {
    entries: Vec<Entry>,
}

#[derive(Debug, Clone)]
struct Entry {
    tokens: Vec<String>,
    meaning: Meaning,
    /// Where the word came from, for error messages ("words.files[2]").
    key: String,
}

impl Lexicon {
    /// The lexicon of `v`, and the words that clash (two meanings, or a form the reader
    /// already gives a meaning: a single letter a–h, a number, a square like "f3").
    pub fn build(v: &Vocabulary) -> (Lexicon, Vec<String>) {
        let mut words: Vec<(String, &str, Meaning)> = Vec::new();
        for file in File::ALL {
            words.push((
                format!("words.files[{}]", usize::from(file)),
                v.file(file),
                Meaning::File(file),
            ));
        }
        for rank in Rank::ALL {
            words.push((
                format!("words.ranks[{}]", usize::from(rank)),
                v.rank(rank),
                Meaning::Rank(rank),
            ));
        }
        for role in Role::ALL {
            words.push((
                format!("words.pieces.{}", role_key(role)),
                v.piece(role),
                Meaning::Piece(role),
            ));
        }
        let m = v.moves();
        let move_words = [
            ("short_castling", m.short_castling.as_str()),
            ("long_castling", &m.long_castling),
            ("captures", &m.captures),
            ("en_passant", &m.en_passant),
            ("check", &m.check),
            ("mate", &m.mate),
        ];
        for (key, word) in move_words {
            if let Some(meaning) = meaning_of(key) {
                words.push((format!("words.moves.{key}"), word, meaning));
            }
        }
        if let Some(p) = &m.promotion {
            words.push(("words.moves.promotion".to_owned(), p, Meaning::Promotion));
        }
        for (word, meaning) in v.accepted() {
            if let Some(meaning) = meaning_of(meaning) {
                words.push((format!("words.accept.{word:?}"), word, meaning));
            }
        }

        let mut lexicon = Lexicon::default();
        let mut clashes = Vec::new();
        for (key, word, meaning) in words {
            let mut forms = vec![tokens(word, fold)];
            let german = tokens(word, fold_transliterated);
            if german != forms[0] {
                forms.push(german);
            }
            if forms[0].is_empty() {
                clashes.push(format!("{key} = {word:?} has no letters"));
                continue;
            }
            if let [single] = forms[0].as_slice()
                && let Some(built_in) = built_in_meaning(single)
                && built_in != meaning
            {
                clashes.push(format!(
                    "{key} = {word:?} would be read as {}",
                    describe(built_in)
                ));
                continue;
            }
            for form in forms {
                match lexicon.entries.iter().find(|e| e.tokens == form) {
                    Some(other) if other.meaning != meaning => clashes.push(format!(
                        "{key} = {word:?} sounds like {} ({}) once case and accents are \
                         ignored; a word may have one meaning only",
                        other.key,
                        describe(other.meaning)
                    )),
                    Some(_) => {}
                    None => lexicon.entries.push(Entry {
                        tokens: form,
                        meaning,
                        key: key.clone(),
                    }),
                }
            }
        }
        // Longest first, so that "jaque mate" wins over "jaque" and "Kurze Rochade" is one word.
        lexicon
            .entries
            .sort_by_key(|e| std::cmp::Reverse(e.tokens.len()));
        (lexicon, clashes)
    }

    /// The longest entry starting at `words[i]`, with the number of words it spans.
    fn longest_match(&self, words: &[String]) -> Option<(Meaning, usize)> {
        self.entries
            .iter()
            .find(|e| words.len() >= e.tokens.len() && words[..e.tokens.len()] == e.tokens[..])
            .map(|e| (e.meaning, e.tokens.len()))
    }
}

fn meaning_of(key: &str) -> Option<Meaning> {
    Some(match key {
        "short_castling" => Meaning::Castle(CastlingSide::KingSide),
        "long_castling" => Meaning::Castle(CastlingSide::QueenSide),
        "captures" => Meaning::Captures,
        "en_passant" => Meaning::EnPassant,
        "promotion" => Meaning::Promotion,
        "check" => Meaning::Check,
        "mate" => Meaning::Mate,
        _ => Meaning::Piece(Role::ALL.into_iter().find(|&r| role_key(r) == key)?),
    })
}

fn describe(meaning: Meaning) -> String {
    match meaning {
        Meaning::File(f) => format!("the file {f}"),
        Meaning::Rank(r) => format!("the rank {r}"),
        Meaning::Square(s) => format!("the square {s}"),
        Meaning::Piece(r) => format!("the piece {}", role_key(r)),
        Meaning::Castle(CastlingSide::KingSide) => "short castling".to_owned(),
        Meaning::Castle(CastlingSide::QueenSide) => "long castling".to_owned(),
        Meaning::Captures => "captures".to_owned(),
        Meaning::EnPassant => "en passant".to_owned(),
        Meaning::Promotion => "promotion".to_owned(),
        Meaning::Check => "check".to_owned(),
        Meaning::Mate => "mate".to_owned(),
    }
}

/// What the reader makes of a typed word without any vocabulary: "f", "3", "f3".
fn built_in_meaning(word: &str) -> Option<Meaning> {
    let mut chars = word.chars();
    let (a, b, rest) = (chars.next(), chars.next(), chars.next());
    let file = |c: char| File::from_char(c);
    let rank = |c: char| Rank::from_char(c);
    match (a, b, rest) {
        (Some(c), None, None) => file(c)
            .map(Meaning::File)
            .or_else(|| rank(c).map(Meaning::Rank)),
        (Some(f), Some(r), None) => Some(Meaning::Square(Square::from_coords(file(f)?, rank(r)?))),
        _ => None,
    }
}

/// Lower case without diacritics: what two spellings of one word have in common.
pub fn fold(word: &str) -> String {
    fold_with(word, false)
}

/// Like [`fold`], but with the German transliteration (ä → ae, ö → oe, ü → ue), so that
/// "Laeufer" and "Koenig", as typed on a keyboard without umlauts, are found too.
pub fn fold_transliterated(word: &str) -> String {
    fold_with(word, true)
}

fn fold_with(word: &str, transliterate: bool) -> String {
    let mut out = String::with_capacity(word.len());
    for c in word.chars().flat_map(char::to_lowercase) {
        match (c, transliterate) {
            ('ä', true) => out.push_str("ae"),
            ('ö', true) => out.push_str("oe"),
            ('ü', true) => out.push_str("ue"),
            ('ß', _) => out.push_str("ss"),
            ('æ', _) => out.push_str("ae"),
            ('œ', _) => out.push_str("oe"),
            ('\u{300}'..='\u{36f}', _) => {} // combining accents of decomposed text
            _ => out.push(strip_accent(c)),
        }
    }
    out
}

/// The base letter of a lower-case Latin-1 or Latin Extended-A letter.
fn strip_accent(c: char) -> char {
    match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => 'a',
        'ç' | 'ć' | 'ĉ' | 'ċ' | 'č' => 'c',
        'ď' | 'đ' => 'd',
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ĕ' | 'ė' | 'ę' | 'ě' => 'e',
        'ĝ' | 'ğ' | 'ġ' | 'ģ' => 'g',
        'ĥ' | 'ħ' => 'h',
        'ì' | 'í' | 'î' | 'ï' | 'ĩ' | 'ī' | 'ĭ' | 'į' | 'ı' => 'i',
        'ĵ' => 'j',
        'ķ' => 'k',
        'ĺ' | 'ļ' | 'ľ' | 'ŀ' | 'ł' => 'l',
        'ñ' | 'ń' | 'ņ' | 'ň' => 'n',
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ŏ' | 'ő' => 'o',
        'ŕ' | 'ŗ' | 'ř' => 'r',
        'ś' | 'ŝ' | 'ş' | 'š' => 's',
        'ţ' | 'ť' | 'ŧ' => 't',
        'ù' | 'ú' | 'û' | 'ü' | 'ũ' | 'ū' | 'ŭ' | 'ů' | 'ű' | 'ų' => 'u',
        'ŵ' => 'w',
        'ý' | 'ÿ' | 'ŷ' => 'y',
        'ź' | 'ż' | 'ž' => 'z',
        _ => c,
    }
}

/// The words of a text, folded: letters and digits, split at spaces and punctuation
/// ("xeque-mate" and "xeque mate" are the same two words).
fn tokens(text: &str, fold: fn(&str) -> String) -> Vec<String> {
    raw_words(text)
        .map(fold)
        .filter(|w| !w.is_empty())
        .collect()
}

fn raw_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || ('\u{300}'..='\u{36f}').contains(&c)))
        .filter(|w| !w.is_empty())
}

/// Whether `text` is made of words the reader knows, one of them at least a word of the
/// vocabulary ("Eva vier", "Kurze Rochade", "Springer f drei"), rather than of letters and
/// digits alone ("e4", "O-O", "e4 x d5"): how auto-detection tells a spoken move from a written
/// one. Syntax only.
pub fn looks_like(text: &str, lang: &Language) -> bool {
    if text.len() > super::MAX_MOVE_BYTES {
        return false;
    }
    let lexicon = lang.vocabulary().lexicon();
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
    let lexicon = v.lexicon();
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
    fn folding_ignores_case_and_accents() {
        assert_eq!(fold("César"), "cesar");
        assert_eq!(fold("CÉSAR"), "cesar");
        assert_eq!(fold("Läufer"), "laufer");
        assert_eq!(fold("Weiß"), "weiss");
        assert_eq!(fold("Weiss"), "weiss");
        assert_eq!(fold("Peão"), "peao");
        assert_eq!(fold("Ce\u{301}sar"), "cesar");
        assert_eq!(fold_transliterated("Läufer"), "laeufer");
        assert_eq!(fold_transliterated("König"), "koenig");
        assert_eq!(fold("ŁÓDŹ"), "lodz");
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
}
