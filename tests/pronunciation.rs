//! Each built-in voice says the FIDE words right: the written words, turned into their spoken forms, go through `espeak-ng -x` (phonemes) and must sound as intended.
//!
//! The phoneme strings are espeak-ng's own mnemonics (`espeak-ng -v de -x -q "Zäsar"` prints
//! `ts'E:zA:r`). Each case names the sound a player must hear: German "Zäsar", not "Kesar";
//! "Roschade" with sch, not ch as in Bach; "en passant" nasal, as in French; Spanish "Bella"
//! with l, not "Beya". espeak-ng is required (scripts/ensure-deps.sh installs it).

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
            ("Kurze Rochade", "r'OSA:d@", "Ox"),
            ("Lange Rochade", "r'OSA:d@", "Ox"),
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
            ("Gustav", "gust'ab", "_"),
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
            let spoken = v.pronounce(written);
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
