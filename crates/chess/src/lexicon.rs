//! A language's words indexed for reading back: folded, split into words, longest entries first.
//!
//! The spoken-move reader ([`crate::notation::spoken`]) looks every typed word up here.
//! The index is built once, when a language is loaded ([`crate::language::Language`]),
//! and building it is also the check that no word has two meanings: a word the reader could
//! take two ways would make a move ambiguous, so such a file is refused, naming both keys.
//!
//! Folding is what makes reading forgiving: case and diacritics are dropped (César = cesar),
//! German umlauts may be typed as ae/oe/ue and ß as ss, and every word is split at spaces and
//! punctuation, so "xeque-mate" and "xeque mate" are the same two words.

use shakmaty::{CastlingSide, File, Rank, Role, Square};

use crate::vocabulary::{Vocabulary, role_key};

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

    /// The longest entry starting at `words[0]`, with the number of words it spans.
    pub fn longest_match(&self, words: &[String]) -> Option<(Meaning, usize)> {
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
pub fn built_in_meaning(word: &str) -> Option<Meaning> {
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

/// The words of a text as typed (unfolded): letters and digits, split at spaces and punctuation.
pub fn raw_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || ('\u{300}'..='\u{36f}').contains(&c)))
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
