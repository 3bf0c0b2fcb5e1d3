//! A scoresheet: each move with who recorded it and the clock readings; PGN, ICCF, Braille exports.
//!
//! The sheet holds [`Move`]s, not text: the text in any notation is derived from the position,
//! so one sheet prints as PGN (English SAN, as the PGN standard wants), as an ICCF numeric
//! score, or in braille in the player's own notation. The exports that need a notation other
//! than SAN take a formatter `Fn(&Chess, Move) -> String`; the command line passes
//! `notation::format_move`, tests pass what they like.
//!
//! # PGN layout
//! The seven-tag roster, then `SetUp`/`FEN` when the start is not the usual one, `Variant
//! "Chess960"` for Chess960, `TimeControl` when known, then any other tags. Movetext lines are
//! at most [`PGN_LINE_WIDTH`] characters; a clock reading follows its move as
//! `{[%clk 1:29:58]}`, a correspondence move's sent time as the ICCF server writes it,
//! `{[%ccsnt 2019.02.14,17:23]}` (both in one comment when a move has both), and the next
//! black move is then numbered again (`1...`), as the PGN export format asks. Tag values are cut to [`MAX_TAG_VALUE_BYTES`] so that the reader in
//! [`crate::pgn`] takes every tag back unchanged.
//!
//! # ICCF numeric layout
//! Optional header lines (`White: …`), an empty line, then one move pair per line
//! (`1. 5254 5755`; a game that starts with Black has `1... 5755`), then the result.
//!
//! # Braille layout
//! Heading lines (players; event, site, date, round; the start FEN when not the usual one), an
//! empty line, one move pair per paragraph (`#A E4 E5`: the move number as a literary number,
//! then the two moves as the formatter writes them, a mate sign `#` written as `++` so that it
//! cannot be read as a number sign), an empty line, the result. See
//! [`crate::braille`] for the cells, the 40-cell lines and the 25-line pages.

use shakmaty::{CastlingMode, Chess, Color, Move, Position};

use crate::braille::{self, BrailleDocument};
use crate::ccsnt::SentStamp;
use crate::game::{Game, GameError, GameResult};
use crate::language::Language;
use crate::notation::{self, Style};

/// Longest PGN movetext line (the PGN export format asks for fewer than 80 characters).
pub const PGN_LINE_WIDTH: usize = 79;
/// Longest tag value written, in bytes before escaping.
pub const MAX_TAG_VALUE_BYTES: usize = 200;

/// Who wrote a move on the sheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Recorder {
    /// The player himself (Braille frame, recording device, D.2.7).
    Player,
    /// His assistant (D.2.10).
    Assistant,
    /// The arbiter, e.g. after reconstructing a game (D.2.9).
    Arbiter,
    /// The board or the daemon, from the sensors.
    Board,
    /// Read from a file.
    Imported,
}

/// One recorded move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub mv: Move,
    pub recorder: Recorder,
    /// The mover's remaining time after the move, in milliseconds.
    pub clock_ms: Option<u64>,
    /// When a correspondence move was sent (`%ccsnt`).
    pub sent: Option<SentStamp>,
}

/// The game's tags. Unknown values are `?` as in PGN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Headers {
    pub event: String,
    pub site: String,
    /// `YYYY.MM.DD`, with `?` for unknown digits.
    pub date: String,
    pub round: String,
    pub white: String,
    pub black: String,
    /// `None`: take it from the game (mate, stalemate …) or write `*`.
    pub result: Option<GameResult>,
    /// PGN `TimeControl`, e.g. `40/5400+30:1800+30`.
    pub time_control: Option<String>,
    /// Any other tags, in order. Tags the exporter writes itself are skipped.
    pub extra: Vec<(String, String)>,
}

impl Default for Headers {
    fn default() -> Headers {
        Headers {
            event: "?".to_owned(),
            site: "?".to_owned(),
            date: "????.??.??".to_owned(),
            round: "?".to_owned(),
            white: "?".to_owned(),
            black: "?".to_owned(),
            result: None,
            time_control: None,
            extra: Vec::new(),
        }
    }
}

/// Tags the exporter derives itself (roster, start position, variant, time control).
const OWN_TAGS: [&str; 11] = [
    "Event",
    "Site",
    "Date",
    "Round",
    "White",
    "Black",
    "Result",
    "SetUp",
    "FEN",
    "Variant",
    "TimeControl",
];

impl Headers {
    /// Headers from PGN tag pairs; `SetUp`, `FEN` and `Variant` belong to the game's start and
    /// are left out.
    pub fn from_tags(tags: &[(String, String)]) -> Headers {
        let mut h = Headers::default();
        for (name, value) in tags {
            match name.as_str() {
                "Event" => h.event = value.clone(),
                "Site" => h.site = value.clone(),
                "Date" => h.date = value.clone(),
                "Round" => h.round = value.clone(),
                "White" => h.white = value.clone(),
                "Black" => h.black = value.clone(),
                "Result" => h.result = GameResult::from_pgn(value),
                "TimeControl" => h.time_control = Some(value.clone()),
                "SetUp" | "FEN" | "Variant" => {}
                _ => h.extra.push((name.clone(), value.clone())),
            }
        }
        h
    }
}

/// A sheet of recorded moves from a start position.
#[derive(Debug, Clone)]
pub struct Scoresheet {
    /// Replays the entries: refuses illegal moves and keeps the positions at hand.
    game: Game,
    entries: Vec<Entry>,
}

impl Default for Scoresheet {
    fn default() -> Scoresheet {
        Scoresheet::new(Chess::default(), CastlingMode::Standard)
    }
}

impl Scoresheet {
    /// An empty sheet for a game from `start`.
    pub fn new(start: Chess, mode: CastlingMode) -> Scoresheet {
        Scoresheet {
            game: Game::from_position(start, mode),
            entries: Vec::new(),
        }
    }

    /// An empty sheet with the same start as `game`.
    pub fn for_game(game: &Game) -> Scoresheet {
        Scoresheet::new(game.start_position().clone(), game.castling_mode())
    }

    /// A sheet with all of `game`'s moves, written by `recorder`, without clock readings.
    pub fn from_game(game: &Game, recorder: Recorder) -> Scoresheet {
        let mut sheet = Scoresheet::for_game(game);
        for &mv in game.moves() {
            // The game's moves are legal, but an imported score may go on past a dead position
            // or another end the Laws make by themselves (`Game::play_past_automatic_end`):
            // `play` would refuse those moves, the sheet's game would stop there, and every
            // export, which replays the sheet's game, would drop them while the entries kept
            // them. The sheet records what was played, so it plays past such an end too.
            sheet.game.play_past_automatic_end(mv).ok();
            sheet.entries.push(Entry {
                mv,
                recorder,
                clock_ms: None,
                sent: None,
            });
        }
        sheet
    }

    /// Writes the next move; refuses it when illegal or when the game is over.
    pub fn record(
        &mut self,
        mv: Move,
        recorder: Recorder,
        clock_ms: Option<u64>,
    ) -> Result<(), GameError> {
        self.game.play(mv)?;
        self.entries.push(Entry {
            mv,
            recorder,
            clock_ms,
            sent: None,
        });
        Ok(())
    }

    /// Sets the clock reading of half-move `ply` (0-based); `false` when there is no such move.
    pub fn set_clock(&mut self, ply: usize, clock_ms: Option<u64>) -> bool {
        match self.entries.get_mut(ply) {
            Some(e) => {
                e.clock_ms = clock_ms;
                true
            }
            None => false,
        }
    }

    /// Sets when half-move `ply` (0-based) was sent; `false` when there is no such move.
    pub fn set_sent(&mut self, ply: usize, sent: Option<SentStamp>) -> bool {
        match self.entries.get_mut(ply) {
            Some(e) => {
                e.sent = sent;
                true
            }
            None => false,
        }
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The moves replayed: start position, outcome, positions.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Keeps the first `plies` moves (retracing to where two sheets agree, D.2.9).
    pub fn truncate(&mut self, plies: usize) {
        self.entries.truncate(plies);
        self.game.truncate(plies);
    }

    fn result(&self, headers: &Headers) -> Option<GameResult> {
        headers
            .result
            .or_else(|| self.game.outcome().map(|e| e.result))
    }

    /// Each entry with the position it was played in.
    fn replay(&self) -> impl Iterator<Item = (Chess, &Entry)> {
        self.game.replay().map(|(p, _)| p).zip(&self.entries)
    }

    /// The game as PGN (English SAN), ending with a newline.
    pub fn to_pgn(&self, headers: &Headers) -> String {
        let mut out = String::new();
        let roster = [
            ("Event", headers.event.as_str()),
            ("Site", headers.site.as_str()),
            ("Date", headers.date.as_str()),
            ("Round", headers.round.as_str()),
            ("White", headers.white.as_str()),
            ("Black", headers.black.as_str()),
        ];
        for (name, value) in roster {
            push_tag(&mut out, name, value);
        }
        let result = result_token(self.result(headers));
        push_tag(&mut out, "Result", result);
        if !self.game.is_standard_start() {
            push_tag(&mut out, "SetUp", "1");
            push_tag(&mut out, "FEN", &self.game.start_fen());
        }
        if self.game.castling_mode() == CastlingMode::Chess960 {
            push_tag(&mut out, "Variant", "Chess960");
        }
        if let Some(tc) = &headers.time_control {
            push_tag(&mut out, "TimeControl", tc);
        }
        for (name, value) in &headers.extra {
            let name: String = name
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && !OWN_TAGS.contains(&name.as_str()) {
                push_tag(&mut out, &name, value);
            }
        }
        out.push('\n');

        let mut tokens = Vec::new();
        let mut number_black = true;
        for (pos, entry) in self.replay() {
            let n = pos.fullmoves();
            match pos.turn() {
                Color::White => tokens.push(format!("{n}.")),
                Color::Black if number_black => tokens.push(format!("{n}...")),
                Color::Black => {}
            }
            tokens.push(san(&pos, entry.mv));
            number_black = false;
            let commands: Vec<String> = [
                entry
                    .clock_ms
                    .map(|ms| format!("[%clk {}]", format_clock(ms))),
                entry.sent.map(|at| format!("[%ccsnt {at}]")),
            ]
            .into_iter()
            .flatten()
            .collect();
            if !commands.is_empty() {
                tokens.push(format!("{{{}}}", commands.join(" ")));
                number_black = true;
            }
        }
        tokens.push(result.to_owned());
        for line in wrap(&tokens, PGN_LINE_WIDTH) {
            out.push_str(&line);
            out.push('\n');
        }
        out
    }

    /// The ICCF numeric game score: optional header lines, one move pair per line, the result.
    pub fn to_iccf(
        &self,
        headers: Option<&Headers>,
        format: impl Fn(&Chess, Move) -> String,
    ) -> String {
        let mut out = String::new();
        if let Some(h) = headers {
            for (label, value) in [
                ("White", &h.white),
                ("Black", &h.black),
                ("Event", &h.event),
                ("Site", &h.site),
                ("Date", &h.date),
                ("Round", &h.round),
            ] {
                if is_known(value) {
                    out.push_str(&format!("{label}: {}\n", one_line(value)));
                }
            }
            if !self.game.is_standard_start() {
                out.push_str(&format!("FEN: {}\n", self.game.start_fen()));
            }
            out.push('\n');
        }
        for line in self.move_pairs(|pos, m| format(pos, m), "...") {
            out.push_str(&line);
            out.push('\n');
        }
        out.push_str(result_token(
            self.result(headers.unwrap_or(&Headers::default())),
        ));
        out.push('\n');
        out
    }

    /// `1. a b` per move pair, `n... b` for a pair that starts with Black.
    fn move_pairs(&self, format: impl Fn(&Chess, Move) -> String, gap: &str) -> Vec<String> {
        let mut lines = Vec::new();
        let mut line = String::new();
        for (pos, entry) in self.replay() {
            let text = format(&pos, entry.mv);
            match pos.turn() {
                Color::White => {
                    if !line.is_empty() {
                        lines.push(std::mem::take(&mut line));
                    }
                    line = format!("{}. {text}", pos.fullmoves());
                }
                Color::Black if line.is_empty() => {
                    line = format!("{}{gap} {text}", pos.fullmoves());
                }
                Color::Black => {
                    line.push(' ');
                    line.push_str(&text);
                }
            }
        }
        if !line.is_empty() {
            lines.push(line);
        }
        lines
    }

    /// The game in braille, in the notation `format` writes (e.g. [`notation::san::format`] in
    /// the player's language).
    pub fn to_braille(
        &self,
        headers: &Headers,
        format: impl Fn(&Chess, Move) -> String,
    ) -> BrailleDocument {
        let heading = |text: &str| braille::literary_numbers(&braille::transliterate(text));
        let mut paragraphs = Vec::new();
        if is_known(&headers.white) || is_known(&headers.black) {
            paragraphs.push(heading(&format!("{} - {}", headers.white, headers.black)));
        }
        let about: Vec<&str> = [&headers.event, &headers.site, &headers.date, &headers.round]
            .into_iter()
            .filter(|v| is_known(v))
            .map(String::as_str)
            .collect();
        if !about.is_empty() {
            paragraphs.push(heading(&about.join(", ")));
        }
        if !self.game.is_standard_start() {
            paragraphs.push(heading(&format!("FEN {}", self.game.start_fen())));
        }
        if !paragraphs.is_empty() {
            paragraphs.push(String::new());
        }
        let mut number = 0;
        for (pos, entry) in self.replay() {
            // Move texts keep their digits as lower-cell ranks; only the number is literary.
            let text = braille::transliterate(&format(&pos, entry.mv).replace('#', "++"));
            let n = braille::literary_numbers(&pos.fullmoves().to_string());
            match pos.turn() {
                Color::White => {
                    paragraphs.push(format!("{n} {text}"));
                    number = pos.fullmoves().get();
                }
                Color::Black if number == pos.fullmoves().get() && !paragraphs.is_empty() => {
                    if let Some(last) = paragraphs.last_mut() {
                        last.push(' ');
                        last.push_str(&text);
                    }
                }
                Color::Black => paragraphs.push(format!("{n} ... {text}")),
            }
        }
        paragraphs.push(String::new());
        paragraphs.push(heading(result_token(self.result(headers))));
        BrailleDocument::layout(&paragraphs)
    }
}

fn is_known(value: &str) -> bool {
    let v = value.trim();
    !v.is_empty() && v != "?" && v != "????.??.??"
}

fn one_line(value: &str) -> String {
    value
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn result_token(result: Option<GameResult>) -> &'static str {
    result.map_or("*", GameResult::pgn)
}

fn push_tag(out: &mut String, name: &str, value: &str) {
    let mut end = value.len().min(MAX_TAG_VALUE_BYTES);
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    out.push('[');
    out.push_str(name);
    out.push_str(" \"");
    for c in value[..end].chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push_str("\"]\n");
}

/// Joins tokens with spaces into lines of at most `width` characters.
fn wrap(tokens: &[String], width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for t in tokens {
        if !line.is_empty() && line.chars().count() + 1 + t.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(t);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// A clock reading as PGN `%clk` writes it: `H:MM:SS`, with up to three decimals when the
/// milliseconds are not zero (`0:00:07.5`).
pub fn format_clock(ms: u64) -> String {
    let (secs, millis) = (ms / 1000, ms % 1000);
    let mut s = format!("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    if millis != 0 {
        let frac = format!("{millis:03}");
        s.push('.');
        s.push_str(frac.trim_end_matches('0'));
    }
    s
}

/// Reads `H:MM:SS`, `M:SS` or either with decimals (`0:00:07.25`) into milliseconds; digits
/// after the third decimal are ignored. `None` for anything else or absurd values.
pub fn parse_clock(text: &str) -> Option<u64> {
    let text = text.trim();
    let (whole, frac) = match text.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (text, None),
    };
    let parts: Vec<&str> = whole.split(':').collect();
    let number = |s: &str| -> Option<u64> {
        if s.is_empty() || s.len() > 9 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    let (h, m, s) = match parts.as_slice() {
        [h, m, s] => (number(h)?, number(m)?, number(s)?),
        [m, s] => (0, number(m)?, number(s)?),
        _ => return None,
    };
    if (m >= 60 && parts.len() == 3) || s >= 60 {
        return None;
    }
    let mut ms = ((h * 60 + m) * 60 + s).checked_mul(1000)?;
    if let Some(f) = frac {
        if f.is_empty() || f.len() > 9 || !f.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let digits: String = f.chars().chain("000".chars()).take(3).collect();
        ms += digits.parse::<u64>().ok()?;
    }
    Some(ms)
}

/// English SAN with check and mate signs, the form PGN is written in: the one SAN writer
/// ([`notation::san::format`]) with the English letters.
pub fn san(pos: &Chess, m: Move) -> String {
    notation::san::format(pos, m, &Style::new(Language::english()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::san::San;

    fn sheet(moves: &str) -> Scoresheet {
        let mut sheet = Scoresheet::default();
        for t in moves.split_whitespace() {
            let m = t
                .parse::<San>()
                .unwrap()
                .to_move(sheet.game().position())
                .unwrap();
            sheet.record(m, Recorder::Board, None).unwrap();
        }
        sheet
    }

    #[test]
    fn clocks_round_trip() {
        for ms in [0, 1, 7_500, 5_398_000, 5_400_000, 359_999_999, 12_345] {
            assert_eq!(parse_clock(&format_clock(ms)), Some(ms), "{ms}");
        }
        assert_eq!(format_clock(5_398_000), "1:29:58");
        assert_eq!(format_clock(7_500), "0:00:07.5");
        assert_eq!(parse_clock("1:29:58"), Some(5_398_000));
        assert_eq!(parse_clock("29:58"), Some(1_798_000));
        assert_eq!(parse_clock("0:00:07.25"), Some(7_250));
        for bad in [
            "",
            "1:2:3:4",
            "a:00:00",
            "1:60:00",
            "0:00:61",
            "99999999999:00:00",
            "0:0:0.",
        ] {
            assert_eq!(parse_clock(bad), None, "{bad}");
        }
    }

    #[test]
    fn pgn_movetext_numbers_black_after_a_clock() {
        let mut s = sheet("e4 e5 Nf3");
        s.set_clock(0, Some(5_398_000));
        let pgn = s.to_pgn(&Headers::default());
        assert!(
            pgn.contains("\n\n1. e4 {[%clk 1:29:58]} 1... e5 2. Nf3 *\n"),
            "{pgn}"
        );
        assert!(!pgn.contains("[FEN"));
    }

    #[test]
    fn pgn_writes_sent_stamps_alone_and_beside_the_clock() {
        let mut s = sheet("e4 e5 Nf3");
        let at = |t: &str| crate::ccsnt::SentStamp::parse(t);
        assert!(s.set_sent(0, at("2019.02.14,17:23")));
        s.set_clock(1, Some(5_398_000));
        assert!(s.set_sent(1, at("2019.02.15,08:00")));
        assert!(!s.set_sent(3, at("2019.02.15,08:00")));
        let pgn = s.to_pgn(&Headers::default());
        assert!(
            pgn.contains(
                "1. e4 {[%ccsnt 2019.02.14,17:23]} 1... e5\n{[%clk 1:29:58] [%ccsnt 2019.02.15,08:00]} 2. Nf3 *\n"
            ),
            "{pgn}"
        );
    }

    #[test]
    fn german_letters() {
        let style = Style::new(Language::german());
        let s = sheet("e4 e5 Nf3 Nc6 Bb5 a6 O-O");
        let texts: Vec<String> = s
            .replay()
            .map(|(p, e)| notation::san::format(&p, e.mv, &style))
            .collect();
        assert_eq!(texts.join(" "), "e4 e5 Sf3 Sc6 Lb5 a6 O-O");
    }

    /// PGN's SAN is byte for byte what shakmaty writes, for every move two plies deep from
    /// positions with castling on both sides, en passant, promotions (with check and capture),
    /// mates and a Chess960 start.
    #[test]
    fn pgn_san_is_standard_san() {
        let starts = [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                CastlingMode::Standard,
            ),
            (
                "2q1k3/1P6/8/8/8/8/6p1/4K2R w K - 0 1",
                CastlingMode::Standard,
            ),
            (
                "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
                CastlingMode::Standard,
            ),
            (
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                CastlingMode::Chess960,
            ),
        ];
        let mut compared = 0;
        for (fen, mode) in starts {
            let pos: Chess = fen
                .parse::<shakmaty::fen::Fen>()
                .unwrap()
                .into_position(mode)
                .unwrap();
            for m in pos.legal_moves() {
                let standard = shakmaty::san::SanPlus::from_move(pos.clone(), m).to_string();
                assert_eq!(san(&pos, m), standard, "{fen}");
                let mut next = pos.clone();
                next.play_unchecked(m);
                for reply in next.legal_moves() {
                    let standard = shakmaty::san::SanPlus::from_move(next.clone(), reply);
                    assert_eq!(san(&next, reply), standard.to_string(), "{fen} {m:?}");
                    compared += 1;
                }
            }
        }
        assert!(compared > 3000, "{compared}");
    }

    #[test]
    fn tag_values_are_escaped_and_cut() {
        let h = Headers {
            white: "A \"quoted\" \\ name\nwith newline".to_owned(),
            black: "é".repeat(300),
            ..Headers::default()
        };
        let pgn = Scoresheet::default().to_pgn(&h);
        assert!(
            pgn.contains(r#"[White "A \"quoted\" \\ name with newline"]"#),
            "{pgn}"
        );
        let black = pgn.lines().find(|l| l.starts_with("[Black")).unwrap();
        assert!(black.len() <= MAX_TAG_VALUE_BYTES + 12);
    }
}
