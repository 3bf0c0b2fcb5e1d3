//! North American ASCII Braille (the BRF file format) and its Unicode braille cells.
//!
//! # What this is, and what it is not
//! This is *computer-braille rendering of the game text*: each character of the printed score
//! becomes one six-dot cell through the North American ASCII Braille table, the table BRF
//! files use. It is not the UKAAF / BAUK Braille Chess Code (2015): that code writes move
//! numbers as lower numbers without a numeric indicator, has its own capture, check and mate
//! signs and layout rules, and a transcriber should be used for it. What this gives a player
//! is a faithful, embosser-ready copy of his own scoresheet that any braille reader can read.
//!
//! # The table
//! The 64 characters 0x20–0x5F each map to one cell (see [`DOTS`]); lowercase letters and the
//! other characters 0x60–0x7E fold onto 0x40–0x5E as BRF readers do (`a` is `A`, `{` is `[`).
//! Digits are the *lower-cell* digits (`4` is dots 2-5-6, ⠲), which is what braille chess
//! notation uses for ranks, so `e4` is ⠑⠲.
//!
//! # Characters outside the table
//! [`transliterate`] replaces them deterministically and never fails: accented Latin letters
//! lose their accents (ä, ö, ü and æ, œ become AE, OE, UE, AE, OE, ß becomes SS), Russian
//! Cyrillic is romanised, chess figurines become the English piece letters (♘ → N), typographic
//! dashes and quotes become `-` and `"`/`'`, ½ becomes 1/2, any space becomes a space, other
//! control characters are dropped, Unicode braille cells of the table pass through as their
//! ASCII character, and everything else becomes `?`.
//!
//! # Layout ([`BrailleDocument`])
//! Lines of at most [`CELLS_PER_LINE`] cells, pages of [`LINES_PER_PAGE`] lines. A paragraph
//! starts a new line and wraps at spaces; its runover lines are indented by
//! [`RUNOVER_INDENT`] cells; a word longer than a line is cut. BRF output ends every line with
//! CR LF and puts a form feed between pages; the Unicode output uses LF and one empty line
//! between pages, for reading on a display, and writes a space as the blank cell U+2800 so
//! that every line is braille throughout.

/// Cells per braille line (the usual embosser and BRF width).
pub const CELLS_PER_LINE: usize = 40;
/// Lines per braille page.
pub const LINES_PER_PAGE: usize = 25;
/// Indent of a paragraph's runover lines, in cells.
pub const RUNOVER_INDENT: usize = 2;

/// The dots of each ASCII Braille character 0x20..=0x5F, in order (one digit per raised dot).
pub const DOTS: [&str; 64] = [
    "",       // space
    "2346",   // !
    "5",      // "
    "3456",   // # (number sign)
    "1246",   // $
    "146",    // %
    "12346",  // &
    "3",      // '
    "12356",  // (
    "23456",  // )
    "16",     // *
    "346",    // +
    "6",      // ,
    "36",     // -
    "46",     // .
    "34",     // /
    "356",    // 0
    "2",      // 1
    "23",     // 2
    "25",     // 3
    "256",    // 4
    "26",     // 5
    "235",    // 6
    "2356",   // 7
    "236",    // 8
    "35",     // 9
    "156",    // :
    "56",     // ;
    "126",    // <
    "123456", // =
    "345",    // >
    "1456",   // ?
    "4",      // @
    "1",      // A
    "12",     // B
    "14",     // C
    "145",    // D
    "15",     // E
    "124",    // F
    "1245",   // G
    "125",    // H
    "24",     // I
    "245",    // J
    "13",     // K
    "123",    // L
    "134",    // M
    "1345",   // N
    "135",    // O
    "1234",   // P
    "12345",  // Q
    "1235",   // R
    "234",    // S
    "2345",   // T
    "136",    // U
    "1236",   // V
    "2456",   // W
    "1346",   // X
    "13456",  // Y
    "1356",   // Z
    "246",    // [
    "1256",   // \
    "12456",  // ]
    "45",     // ^
    "456",    // _
];

const fn cell_of(dots: &str) -> char {
    let bytes = dots.as_bytes();
    let mut bits = 0u32;
    let mut i = 0;
    while i < bytes.len() {
        let dot = bytes[i];
        if dot >= b'1' && dot <= b'6' {
            bits |= 1 << (dot - b'1');
        }
        i += 1;
    }
    match char::from_u32(0x2800 + bits) {
        Some(c) => c,
        None => ' ',
    }
}

const CELLS: [char; 64] = {
    let mut cells = [' '; 64];
    let mut i = 0;
    while i < 64 {
        cells[i] = cell_of(DOTS[i]);
        i += 1;
    }
    cells
};

/// Folds a character onto the table's 0x20..=0x5F range, as BRF readers do.
fn fold(c: char) -> Option<u8> {
    match c {
        ' '..='_' => Some(c as u8),
        '`'..='~' => Some(c as u8 - 0x20),
        _ => None,
    }
}

/// The Unicode braille cell of an ASCII Braille character, or `None` outside the table.
pub fn cell(c: char) -> Option<char> {
    fold(c).map(|b| CELLS[usize::from(b - 0x20)])
}

/// The ASCII Braille character (0x20..=0x5F) of a six-dot Unicode braille cell.
pub fn ascii_of_cell(cell: char) -> Option<char> {
    CELLS
        .iter()
        .position(|&c| c == cell)
        .and_then(|i| u8::try_from(i + 0x20).ok())
        .map(char::from)
}

/// Rewrites `text` in the ASCII Braille repertoire (0x20..=0x5F, letters uppercase).
pub fn transliterate(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if let Some(b) = fold(c) {
            out.push(char::from(b));
        } else if let Some(a) = ascii_of_cell(c) {
            out.push(a);
        } else if c.is_whitespace() {
            out.push(' ');
        } else if c.is_control() {
            // Dropped: a control character has no cell and no meaning on paper.
        } else {
            out.push_str(replacement(c));
        }
    }
    out
}

/// The replacement of a character outside the table, in uppercase ASCII Braille.
fn replacement(c: char) -> &'static str {
    let lower = {
        let mut l = c.to_lowercase();
        match (l.next(), l.next()) {
            (Some(x), None) => x,
            _ => c,
        }
    };
    match lower {
        'à' | 'á' | 'â' | 'ã' | 'å' | 'ā' | 'ă' | 'ą' => "A",
        'ä' | 'æ' => "AE",
        'ç' | 'ć' | 'č' | 'ĉ' => "C",
        'ď' | 'đ' | 'ð' => "D",
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ė' | 'ę' | 'ě' => "E",
        'ğ' | 'ĝ' => "G",
        'ì' | 'í' | 'î' | 'ï' | 'ī' | 'į' | 'ı' => "I",
        'ł' | 'ľ' | 'ĺ' => "L",
        'ñ' | 'ń' | 'ň' => "N",
        'ò' | 'ó' | 'ô' | 'õ' | 'ō' | 'ő' | 'ø' => "O",
        'ö' | 'œ' => "OE",
        'ŕ' | 'ř' => "R",
        'ś' | 'š' | 'ş' | 'ș' => "S",
        'ß' => "SS",
        'ť' | 'ţ' | 'ț' => "T",
        'þ' => "TH",
        'ù' | 'ú' | 'û' | 'ů' | 'ū' | 'ű' | 'ų' => "U",
        'ü' => "UE",
        'ý' | 'ÿ' => "Y",
        'ź' | 'ż' | 'ž' => "Z",
        // Russian Cyrillic, a plain romanisation.
        'а' => "A",
        'б' => "B",
        'в' => "V",
        'г' => "G",
        'д' => "D",
        'е' | 'ё' | 'э' => "E",
        'ж' => "ZH",
        'з' => "Z",
        'и' => "I",
        'й' => "J",
        'к' => "K",
        'л' => "L",
        'м' => "M",
        'н' => "N",
        'о' => "O",
        'п' => "P",
        'р' => "R",
        'с' => "S",
        'т' => "T",
        'у' => "U",
        'ф' => "F",
        'х' => "KH",
        'ц' => "TS",
        'ч' => "CH",
        'ш' => "SH",
        'щ' => "SHCH",
        'ъ' | 'ь' => "'",
        'ы' => "Y",
        'ю' => "YU",
        'я' => "YA",
        // Figurines: the English piece letters, as in PGN.
        '♔' | '♚' => "K",
        '♕' | '♛' => "Q",
        '♖' | '♜' => "R",
        '♗' | '♝' => "B",
        '♘' | '♞' => "N",
        '♙' | '♟' => "P",
        '–' | '—' | '‐' | '‑' | '−' => "-",
        '‘' | '’' | '‚' | '′' => "'",
        '“' | '”' | '„' | '«' | '»' | '″' => "\"",
        '…' => "...",
        '½' => "1/2",
        '×' => "X",
        '·' | '•' => ".",
        _ => "?",
    }
}

/// Writes every run of digits as a literary number: the number sign then the letters A–J for
/// 1–9, 0 (`12` becomes `#AB`). For headings and results; ranks inside moves stay lower-cell
/// digits.
pub fn literary_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    let mut in_number = false;
    for c in text.chars() {
        if let Some(d) = c.to_digit(10) {
            if !in_number {
                out.push('#');
                in_number = true;
            }
            out.push(if d == 0 {
                'J'
            } else {
                char::from(b'A' + d as u8 - 1)
            });
        } else {
            in_number = false;
            out.push(c);
        }
    }
    out
}

/// A braille document laid out in lines and pages, kept as ASCII Braille.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BrailleDocument {
    pages: Vec<Vec<String>>,
}

impl BrailleDocument {
    /// Lays out paragraphs (each transliterated first); an empty paragraph is an empty line.
    pub fn layout<S: AsRef<str>>(paragraphs: &[S]) -> BrailleDocument {
        let mut lines = Vec::new();
        for p in paragraphs {
            wrap_paragraph(&transliterate(p.as_ref()), &mut lines);
        }
        let pages = lines
            .chunks(LINES_PER_PAGE)
            .map(<[String]>::to_vec)
            .collect();
        BrailleDocument { pages }
    }

    pub fn pages(&self) -> &[Vec<String>] {
        &self.pages
    }

    /// All lines of all pages, in order.
    pub fn lines(&self) -> impl Iterator<Item = &str> {
        self.pages.iter().flatten().map(String::as_str)
    }

    /// The BRF file: ASCII Braille, CR LF line ends, a form feed between pages.
    pub fn to_brf(&self) -> String {
        self.pages
            .iter()
            .map(|page| page.iter().map(|l| format!("{l}\r\n")).collect::<String>())
            .collect::<Vec<_>>()
            .join("\u{c}")
    }

    /// The same cells as Unicode braille: LF line ends, an empty line between pages.
    pub fn to_unicode(&self) -> String {
        self.pages
            .iter()
            .map(|page| {
                page.iter()
                    .map(|l| {
                        let mut s: String = l.chars().filter_map(cell).collect();
                        s.push('\n');
                        s
                    })
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Wraps one paragraph (already in ASCII Braille, so one char is one cell) into `lines`.
fn wrap_paragraph(text: &str, lines: &mut Vec<String>) {
    let words: Vec<&str> = text.split(' ').filter(|w| !w.is_empty()).collect();
    if words.is_empty() {
        lines.push(String::new());
        return;
    }
    let mut line = String::new();
    let mut indent = 0;
    for word in words {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let used = line.chars().count();
            let room = CELLS_PER_LINE.saturating_sub(used + usize::from(used > indent));
            if word.len() <= room {
                if used > indent {
                    line.push(' ');
                }
                line.extend(word.iter());
                break;
            }
            if used > indent {
                // Start a runover line and try again there.
                lines.push(std::mem::take(&mut line));
                indent = RUNOVER_INDENT;
                line = " ".repeat(indent);
                continue;
            }
            // Longer than a whole line: cut it.
            let rest = word.split_off(room);
            line.extend(word.iter());
            lines.push(std::mem::take(&mut line));
            indent = RUNOVER_INDENT;
            line = " ".repeat(indent);
            word = rest;
        }
    }
    if line.chars().count() > indent {
        lines.push(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_the_standard_one() {
        // The well-known string of the 64 cells, 0x20 to 0x5F.
        let expected = "⠀⠮⠐⠼⠫⠩⠯⠄⠷⠾⠡⠬⠠⠤⠨⠌⠴⠂⠆⠒⠲⠢⠖⠶⠦⠔⠱⠰⠣⠿⠜⠹⠈⠁⠃⠉⠙⠑⠋⠛⠓⠊⠚⠅⠇⠍⠝⠕⠏⠟⠗⠎⠞⠥⠧⠺⠭⠽⠵⠪⠳⠻⠘⠸";
        let got: String = (0x20u8..=0x5F)
            .map(|b| cell(char::from(b)).unwrap())
            .collect();
        assert_eq!(got, expected);
        let distinct: std::collections::HashSet<char> = got.chars().collect();
        assert_eq!(distinct.len(), 64);
        for b in 0x20u8..=0x5F {
            let c = char::from(b);
            assert_eq!(ascii_of_cell(cell(c).unwrap()), Some(c));
        }
    }

    #[test]
    fn lowercase_folds_and_ranks_are_lower_digits() {
        let e4: String = "e4".chars().filter_map(cell).collect();
        assert_eq!(e4, "⠑⠲");
        assert_eq!(cell('{'), cell('['));
        assert_eq!(cell('\u{7f}'), None);
        assert_eq!(cell('é'), None);
    }

    #[test]
    fn transliteration_is_total() {
        assert_eq!(
            transliterate("Läufer é ♘f3 – ½ Кр"),
            "LAEUFER E NF3 - 1/2 KR"
        );
        assert_eq!(transliterate("a\tb\u{7}c"), "A BC");
        assert_eq!(transliterate("日"), "?");
        assert_eq!(transliterate("⠑⠲"), "E4");
        for c in ['\u{0}', '\u{ffff}', '\u{10ffff}', 'ǅ', 'İ'] {
            let t = transliterate(&c.to_string());
            assert!(
                t.chars().all(|c| (' '..='_').contains(&c)),
                "{c:?} -> {t:?}"
            );
        }
    }

    #[test]
    fn literary_numbers_use_the_number_sign() {
        assert_eq!(literary_numbers("1"), "#A");
        assert_eq!(literary_numbers("ROUND 10"), "ROUND #AJ");
        assert_eq!(literary_numbers("1/2-1/2"), "#A/#B-#A/#B");
    }

    #[test]
    fn layout_wraps_at_forty_cells_and_pages_at_twenty_five_lines() {
        let long = "WORD ".repeat(30);
        let huge = "X".repeat(100);
        let mut paragraphs = vec![long.clone(), huge, String::new()];
        paragraphs.extend((0..40).map(|i| format!("LINE {i}")));
        let doc = BrailleDocument::layout(&paragraphs);
        assert!(doc.lines().all(|l| l.chars().count() <= CELLS_PER_LINE));
        assert!(doc.pages().iter().all(|p| p.len() <= LINES_PER_PAGE));
        let first: Vec<&str> = doc.lines().take(2).collect();
        assert_eq!(first[0].len(), 39); // 8 words of 4 cells and 7 spaces
        assert!(first[1].starts_with("  WORD"));
        let brf = doc.to_brf();
        assert!(brf.contains("\r\n\u{c}"));
        assert!(!brf.contains("\n\n"));
        assert_eq!(brf.matches('\u{c}').count(), doc.pages().len() - 1);
        let unicode = doc.to_unicode();
        assert!(
            unicode
                .chars()
                .all(|c| c == '\n' || ('\u{2800}'..='\u{283f}').contains(&c))
        );
    }
}
