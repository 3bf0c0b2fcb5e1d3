//! A language: its SAN piece letters and its spoken vocabulary, read from `config/voices/*.toml`,
//! with the vocabulary's words indexed for reading back ([`Lexicon`]).
//!
//! The built-in languages are compiled in (`include_str!`), so the core never opens a file; a
//! federation adds a language by writing one more TOML file, which the adapters read and hand to
//! [`Language::from_toml`].

use std::sync::OnceLock;

use serde::Deserialize;
use shakmaty::Role;

use crate::lexicon::Lexicon;
use crate::vocabulary::Vocabulary;

/// The TOML source of every built-in language, keyed by its code.
const BUILTIN_SOURCES: &[(&str, &str)] = &[
    ("de", include_str!("../../../config/voices/de.toml")),
    ("en", include_str!("../../../config/voices/en.toml")),
    ("es", include_str!("../../../config/voices/es.toml")),
    ("fr", include_str!("../../../config/voices/fr.toml")),
    ("it", include_str!("../../../config/voices/it.toml")),
    ("nl", include_str!("../../../config/voices/nl.toml")),
    ("pt", include_str!("../../../config/voices/pt.toml")),
];

/// Largest language file accepted: a vocabulary is a few kilobytes; anything bigger is a mistake.
pub const MAX_LANGUAGE_FILE_BYTES: usize = 256 * 1024;

/// Longest line of the file quoted in an error: the parser quotes the offending line, and a
/// hostile file can make that line hundreds of kilobytes long.
pub const MAX_QUOTED_LINE_CHARS: usize = 160;

/// The parser's message with every line cut to [`MAX_QUOTED_LINE_CHARS`] characters.
fn shorten_lines(message: &str) -> String {
    message
        .lines()
        .map(
            |line| match line.char_indices().nth(MAX_QUOTED_LINE_CHARS) {
                Some((cut, _)) => format!("{}…", &line[..cut]),
                None => line.to_owned(),
            },
        )
        .collect::<Vec<_>>()
        .join("\n")
}

/// One language: piece letters for SAN/LAN and the words for spoken moves and events.
#[derive(Debug, Clone)]
pub struct Language {
    code: String,
    name: String,
    /// Indexed by `Role as usize - 1` (pawn, knight, bishop, rook, queen, king).
    letters: [char; 6],
    vocabulary: Vocabulary,
    /// The vocabulary's words as the spoken-move reader looks them up, built once at loading.
    lexicon: Lexicon,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LanguageFile {
    code: String,
    name: String,
    letters: LettersFile,
    words: Vocabulary,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LettersFile {
    king: String,
    queen: String,
    rook: String,
    bishop: String,
    knight: String,
    pawn: String,
}

/// Why a language file was refused.
#[derive(Debug, thiserror::Error)]
pub enum LanguageError {
    #[error("language file is {0} bytes; the limit is {MAX_LANGUAGE_FILE_BYTES}")]
    TooLarge(usize),
    /// The TOML parser's message, each quoted line cut to [`MAX_QUOTED_LINE_CHARS`].
    #[error("language file is not valid: {0}")]
    Toml(String),
    #[error("language file: {0}")]
    Invalid(String),
    #[error("unknown language {code:?}; built in: {known}")]
    Unknown { code: String, known: String },
}

impl Language {
    /// Parses a language file (the format of `config/voices/de.toml`).
    pub fn from_toml(text: &str) -> Result<Language, LanguageError> {
        if text.len() > MAX_LANGUAGE_FILE_BYTES {
            return Err(LanguageError::TooLarge(text.len()));
        }
        let file: LanguageFile =
            toml::from_str(text).map_err(|e| LanguageError::Toml(shorten_lines(&e.to_string())))?;
        let letter = |name: &str, value: &str| -> Result<char, LanguageError> {
            let mut chars = value.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if c.is_alphabetic() && c.is_uppercase() => Ok(c),
                _ => Err(LanguageError::Invalid(format!(
                    "letters.{name} must be one uppercase letter, not {value:?}"
                ))),
            }
        };
        let letters = [
            letter("pawn", &file.letters.pawn)?,
            letter("knight", &file.letters.knight)?,
            letter("bishop", &file.letters.bishop)?,
            letter("rook", &file.letters.rook)?,
            letter("queen", &file.letters.queen)?,
            letter("king", &file.letters.king)?,
        ];
        // The pawn letter may equal no other; the five piece letters must be distinct so that
        // a SAN move names one role. (Dutch pawn "O" is fine: pawns carry no letter in SAN.)
        for i in 0..6 {
            for j in (i + 1)..6 {
                if letters[i] == letters[j] {
                    return Err(LanguageError::Invalid(format!(
                        "letters: {:?} is used for two pieces",
                        letters[i]
                    )));
                }
            }
        }
        if file.code.is_empty()
            || !file
                .code
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            return Err(LanguageError::Invalid(format!(
                "code {:?} must be a short tag like \"de\"",
                file.code
            )));
        }
        // One message for every problem: the vocabulary's own, then words with two meanings.
        let mut problems: Vec<String> = file.words.validate().err().into_iter().collect();
        file.words.page.check(&mut problems);
        let (lexicon, clashes) = Lexicon::build(&file.words);
        problems.extend(clashes);
        if !problems.is_empty() {
            return Err(LanguageError::Invalid(problems.join("; ")));
        }
        Ok(Language {
            code: file.code,
            name: file.name,
            letters,
            vocabulary: file.words,
            lexicon,
        })
    }

    /// A built-in language by code (`de`, `en`, `es`, `fr`, `it`, `nl`, `pt`).
    pub fn builtin(code: &str) -> Result<&'static Language, LanguageError> {
        Language::all_builtin()
            .iter()
            .find(|l| l.code.eq_ignore_ascii_case(code))
            .ok_or_else(|| LanguageError::Unknown {
                code: code.to_owned(),
                known: Language::builtin_codes().join(", "),
            })
    }

    /// English: the letters PGN is written in.
    pub fn english() -> &'static Language {
        Language::builtin("en").expect("en is built in")
    }

    /// German: the FIDE default for announcements (Appendix D.2.1).
    pub fn german() -> &'static Language {
        Language::builtin("de").expect("de is built in")
    }

    /// Every built-in language, parsed once.
    pub fn all_builtin() -> &'static [Language] {
        static ALL: OnceLock<Vec<Language>> = OnceLock::new();
        ALL.get_or_init(|| {
            BUILTIN_SOURCES
                .iter()
                .map(|(code, text)| {
                    // A broken built-in file is a build defect, caught by the tests below.
                    Language::from_toml(text)
                        .unwrap_or_else(|e| panic!("built-in language {code} is broken: {e}"))
                })
                .collect()
        })
    }

    pub fn builtin_codes() -> Vec<&'static str> {
        BUILTIN_SOURCES.iter().map(|(code, _)| *code).collect()
    }

    pub fn code(&self) -> &str {
        &self.code
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The SAN letter of a role in this language (pawn too, for LAN forms like `Pe2-e4`).
    pub fn letter(&self, role: Role) -> char {
        self.letters[role as usize - 1]
    }

    /// The role a SAN letter stands for in this language (case-sensitive: files are lowercase).
    pub fn role_for_letter(&self, letter: char) -> Option<Role> {
        self.letters
            .iter()
            .position(|&c| c == letter)
            .map(|i| Role::ALL[i])
    }

    pub fn vocabulary(&self) -> &Vocabulary {
        &self.vocabulary
    }

    /// The words the spoken-move reader recognises.
    pub fn lexicon(&self) -> &Lexicon {
        &self.lexicon
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_language_loads() {
        for code in Language::builtin_codes() {
            let lang = Language::builtin(code).unwrap();
            assert_eq!(lang.code(), code);
        }
    }

    #[test]
    fn letters_per_language() {
        let check = |code: &str, expected: &str| {
            let lang = Language::builtin(code).unwrap();
            let got: String = [
                Role::King,
                Role::Queen,
                Role::Rook,
                Role::Bishop,
                Role::Knight,
            ]
            .iter()
            .map(|&r| lang.letter(r))
            .collect();
            assert_eq!(got, expected, "{code}");
        };
        check("en", "KQRBN");
        check("es", "RDTAC");
        check("de", "KDTLS");
        check("fr", "RDTFC");
        check("nl", "KDTLP");
        check("it", "RDTAC");
        check("pt", "RDTBC");
    }

    #[test]
    fn letter_lookup_is_case_sensitive() {
        let en = Language::english();
        assert_eq!(en.role_for_letter('B'), Some(Role::Bishop));
        assert_eq!(en.role_for_letter('b'), None);
        assert_eq!(
            Language::builtin("es").unwrap().role_for_letter('R'),
            Some(Role::King)
        );
    }

    #[test]
    fn bad_files_are_refused_with_the_reason() {
        let err = Language::from_toml("code = 'xx'").unwrap_err().to_string();
        assert!(err.contains("missing field"), "{err}");
        let unknown = Language::builtin("zz").unwrap_err().to_string();
        assert!(unknown.contains("de, en, es"), "{unknown}");
        // A parse error quotes the bad line, but not a whole hostile one.
        let deep = format!("a = {}{}", "[".repeat(100_000), "]".repeat(100_000));
        let err = Language::from_toml(&deep).unwrap_err().to_string();
        assert!(err.contains("line 1"), "{err}");
        assert!(
            err.lines()
                .all(|l| l.chars().count() <= MAX_QUOTED_LINE_CHARS + 1),
            "{}",
            err.len()
        );
        let huge = "#".repeat(MAX_LANGUAGE_FILE_BYTES + 1);
        assert!(matches!(
            Language::from_toml(&huge),
            Err(LanguageError::TooLarge(_))
        ));
    }

    fn german_source() -> String {
        include_str!("../../../config/voices/de.toml").to_owned()
    }

    fn load_error(source: &str) -> String {
        Language::from_toml(source).unwrap_err().to_string()
    }

    #[test]
    fn every_builtin_vocabulary_validates() {
        for lang in Language::all_builtin() {
            lang.vocabulary().validate().unwrap();
            let (_, clashes) = Lexicon::build(lang.vocabulary());
            assert!(clashes.is_empty(), "{}: {clashes:?}", lang.code());
        }
    }

    #[test]
    fn a_missing_event_names_the_key() {
        let broken = german_source().replace("illegal_move =", "illegal_moov =");
        let err = load_error(&broken);
        assert!(
            err.contains("words.events.illegal_move is missing"),
            "{err}"
        );
        assert!(
            err.contains("words.events.illegal_moov is not a known event"),
            "{err}"
        );
    }

    #[test]
    fn an_unknown_placeholder_names_the_key() {
        let broken = german_source().replace("\"{piece} von {from}", "\"{figur} von {from}");
        let err = load_error(&broken);
        assert!(
            err.contains("words.events.correction_move: unknown placeholder {figur}"),
            "{err}"
        );
    }

    #[test]
    fn a_word_with_two_meanings_is_refused() {
        let broken = german_source().replace("knight = \"Springer\"", "knight = \"Felix\"");
        let err = load_error(&broken);
        assert!(err.contains("words.pieces.knight"), "{err}");
        assert!(err.contains("words.files[5]"), "{err}");
    }

    #[test]
    fn folding_makes_words_collide() {
        // "César" and "Cesar" are the same word to the reader.
        let broken = german_source().replace("bishop = \"Läufer\"", "bishop = \"César\"");
        let err = load_error(&broken);
        assert!(err.contains("words.pieces.bishop"), "{err}");
    }

    #[test]
    fn digits_and_single_letters_are_refused() {
        let err = load_error(&german_source().replace("\"fünf\", \"sechs\"", "\"5\", \"sechs\""));
        assert!(err.contains("words.ranks[4]"), "{err}");
        let err = load_error(&german_source().replace("\"Cesar\"", "\"C\""));
        assert!(err.contains("words.files[2]"), "{err}");
        let err = load_error(
            &german_source().replace("\"nimmt\" = \"captures\"", "\"e\" = \"captures\""),
        );
        assert!(err.contains("words.accept"), "{err}");
    }

    #[test]
    fn wrong_list_lengths_and_meanings_are_refused() {
        let err = load_error(&german_source().replace(", \"Hector\"]", "]"));
        assert!(
            err.contains("words.files must have 8 entries, not 7"),
            "{err}"
        );
        let err = load_error(
            &german_source().replace("\"nimmt\" = \"captures\"", "\"nimmt\" = \"take\""),
        );
        assert!(
            err.contains("words.accept.\"nimmt\": unknown meaning"),
            "{err}"
        );
    }

    #[test]
    fn a_missing_field_is_a_load_error() {
        let broken = german_source().replace("mate = \"Matt\"", "");
        let err = load_error(&broken);
        assert!(err.contains("mate"), "{err}");
    }
}
