//! Each built-in voice says the FIDE words right: the written words, turned into their spoken forms, go through `espeak-ng -x` (phonemes) and must sound as intended.
//!
//! The phoneme strings are espeak-ng's own mnemonics (`espeak-ng -v de -x -q "Zäsar"` prints
//! `ts'E:zA:r`). Each case names the sound a player must hear: German "Zäsar", not "Kesar";
//! "Roschade" with sch, not ch as in Bach; "en passant" nasal, as in French; Spanish "Bella"
//! with l, not "Beya". The stress too (the `'` before the stressed vowel): German "DA-vid" and
//! "Ro-SCHA-de", Spanish "GUS-taf", Italian "EC-tor"; and every file name of every language
//! stressed as its players say it. espeak-ng is required (scripts/ensure-deps.sh installs it).

use std::process::Command;

use annabella::chess::language::Language;

/// The phonemes espeak-ng speaks for `text` in voice `code`.
fn phonemes(code: &str, text: &str) -> String {
    let out = Command::new("espeak-ng")
        .args(["-q", "-x", "-v", code, text])
        .output()
        .expect("espeak-ng is required: run scripts/ensure-deps.sh");
    assert!(out.status.success(), "espeak-ng -v {code} failed");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Written words, the phonemes they must contain once spoken, and what they must not.
type Sound = (&'static str, &'static str, &'static str);

/// Language → its words' sounds.
const CASES: &[(&str, &[Sound])] = &[
    (
        "de",
        &[
            ("Cesar", "ts'E:zA:r", "k'e:"),
            ("Kurze Rochade", "rOS'A:d@", "r'O"),
            ("Lange Rochade", "rOS'A:d@", "r'O"),
            ("David", "d'A:vIt", "v'i"),
            ("en passant", "aN p'asaN", "e:n"),
            ("Bella", "b'ElA:", "l^"),
            ("Hector", "h'Ekto:r", "_"),
        ],
    ),
    (
        "es",
        &[
            ("Anna", "'anna", "_"),
            ("Bella", "b'ela", "l^"),
            ("Cesar", "T'esar", "Tes'ar"),
            ("David", "daB'id", "_"),
            ("Eva", "'eBa", "_"),
            ("Felix", "f'eliks", "fel'iks"),
            ("Gustav", "g'ustaf", "t'a"),
            ("Hector", "'ektor", "ekt'or"),
        ],
    ),
    (
        "en",
        &[
            ("Cesar", "seIz'A@", "k"),
            ("Bella", "b'El@", "_"),
            ("en passant", "'En p'aas@nt", "_"),
        ],
    ),
    (
        "fr",
        &[("César", "sez'ar", "k"), ("en passant", "A~ pas'A~", "_")],
    ),
    (
        "it",
        &[
            ("Cesare", "tS'ezaRe", "k"),
            ("Hector", "'Ekto", "t'O"),
            ("en passant", "'an p'assan", "'En"),
        ],
    ),
    (
        "nl",
        &[
            ("Cesar", "s'e:zAr", "k"),
            ("en passant", "'An p'AsAn", "_|En"),
        ],
    ),
    (
        "pt",
        &[
            ("Bela", "b'El&", "_"),
            ("en passant", "'&~N p&s'&~N", "eIN"),
        ],
    ),
];

#[test]
fn every_builtin_voice_says_the_fide_words_right() {
    let mut wrong = Vec::new();
    for (code, words) in CASES {
        let v = Language::builtin(code).unwrap().vocabulary();
        for (written, want, not) in *words {
            let spoken = v.pronounce_for_espeak(written);
            let got = phonemes(code, &spoken);
            if !got.contains(want) || got.contains(not) {
                wrong.push(format!(
                    "{code}: {written:?} said as {spoken:?} is /{got}/, wanted /{want}/ without /{not}/"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_builtin_language_is_checked() {
    let mut codes: Vec<&str> = CASES.iter().map(|(c, _)| *c).collect();
    codes.sort_unstable();
    let mut builtin = Language::builtin_codes();
    builtin.sort_unstable();
    assert_eq!(codes, builtin);
}

#[test]
fn spoken_forms_apply_to_whole_words_and_leave_the_written_words_alone() {
    let de = Language::builtin("de").unwrap().vocabulary();
    assert_eq!(
        de.pronounce("Springer Cesar sechs, Lange Rochade, Eva schlägt David sechs en passant"),
        "Springer Zäsar sechs, Lange Roschade, Eva schlägt David sechs ang passang"
    );
    // Not inside another word, and case matters (the written forms are the files' own).
    assert_eq!(
        de.pronounce("Cesare Rochaden cesar"),
        "Cesare Rochaden cesar"
    );
    // The words themselves (text, the page, Braille) keep the written forms.
    assert_eq!(de.file(shakmaty::File::C), "Cesar");
    let es = Language::builtin("es").unwrap().vocabulary();
    assert_eq!(
        (0..8)
            .map(|i| es.file(shakmaty::File::new(i)))
            .collect::<Vec<_>>(),
        [
            "Anna", "Bella", "Cesar", "David", "Eva", "Felix", "Gustav", "Hector"
        ],
        "the Spanish file uses the FIDE names"
    );
    assert_eq!(es.pronounce("Alfil Bella cinco"), "Alfil Bela cinco");
}

#[test]
fn a_language_file_with_an_empty_spoken_form_is_refused() {
    let de = include_str!("../config/voices/de.toml");
    let broken = de.replace("\"Cesar\" = \"Zäsar\"", "\"Cesar\" = \"\"");
    let err = Language::from_toml(&broken).unwrap_err().to_string();
    assert!(err.contains("words.spoken"), "{err}");
    let broken = de.replace(
        "move = \"Zug {number}, {color}\"",
        "move = \"Zug {nummer}\"",
    );
    let err = Language::from_toml(&broken).unwrap_err().to_string();
    assert!(err.contains("words.record.move"), "{err}");
}

/// Each language's eight file names, as espeak-ng must stress them (the phonemes from the
/// stressed syllable on, or the whole word).
const FILE_NAME_STRESS: &[(&str, [&str; 8])] = &[
    (
        "de",
        [
            "'anA:",
            "b'ElA:",
            "ts'E:zA:r",
            "d'A:vIt",
            "'e:vA:",
            "f'e:lIks",
            "g'UstA:f",
            "h'Ekto:r",
        ],
    ),
    (
        "en",
        [
            "'an@", "b'El@", "z'A@", "d'eIvId", "'i:v@", "f'i:lIks", "g'Vstav", "h'Ekt3",
        ],
    ),
    (
        "es",
        [
            "'anna", "b'ela", "T'esar", "daB'id", "'eBa", "f'eliks", "g'ustaf", "'ektor",
        ],
    ),
    (
        "fr",
        [
            "an'a", "bEl'a", "sez'ar", "dav'id", "ev'a", "fel'iks", "gyst'av", "Ekt'Or",
        ],
    ),
    (
        "it",
        [
            "'anna", "b'Ella", "tS'ezaRe", "d'avide", "'Eva", "fel'itSe", "gUst'avo", "'Ekto",
        ],
    ),
    (
        "nl",
        [
            "'Ana:", "b'Ela:", "s'e:zAr", "d'a:vIt", "'e:va:", "f'e:lIks", "'8stAf", "h'EktOr",
        ],
    ),
    (
        "pt",
        [
            "'&~n&", "b'El&", "s'Ez&r", "d&v'id", "'Ev&", "f'Eliks", "t'avU", "eIt'or",
        ],
    ),
];

#[test]
fn every_file_name_is_stressed_as_its_players_say_it() {
    let mut wrong = Vec::new();
    for (code, stressed) in FILE_NAME_STRESS {
        let v = Language::builtin(code).unwrap().vocabulary();
        for (i, want) in stressed.iter().enumerate() {
            let written = v.file(shakmaty::File::new(i as u32));
            let got = phonemes(code, &v.pronounce_for_espeak(written));
            if !got.contains(want) {
                wrong.push(format!("{code}: {written:?} is /{got}/, wanted /{want}/"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let mut codes: Vec<&str> = FILE_NAME_STRESS.iter().map(|(c, _)| *c).collect();
    codes.sort_unstable();
    let mut builtin = Language::builtin_codes();
    builtin.sort_unstable();
    assert_eq!(codes, builtin, "every built-in language");
}

#[test]
fn espeak_gets_phonemes_where_no_spelling_stresses_right_and_other_voices_the_spelling() {
    let de = Language::builtin("de").unwrap().vocabulary();
    assert_eq!(
        de.pronounce_for_espeak("Lange Rochade, Springer David vier"),
        "Lange [[rOS'A:d@]], Springer [[d'A:vIt]] vier"
    );
    assert_eq!(
        de.pronounce("Lange Rochade, Springer David vier"),
        "Lange Roschade, Springer David vier"
    );
    // Brackets in a message read aloud are not taken for phonemes.
    assert_eq!(de.pronounce_for_espeak("[[h@'loU]]"), "[ [h@'loU] ]");
}
