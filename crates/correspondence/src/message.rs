//! A correspondence game's email in the ICCF form: composed as plain text, read back leniently
//! from what people actually send (quoted replies, moves with or without numbers), checked
//! against the game, and summed up for the ear. Pure: no I/O, dates are parameters.
//!
//! The form (docs/correspondence-mail.md) follows the ICCF email playing guidelines — every
//! message carries the moves of the whole game, the dates of receipt and dispatch, and the time
//! used and accumulated by both players — and the BCA's rule that every move is preceded by its
//! dates of receipt and dispatch.

use std::collections::BTreeMap;
use std::fmt;

use shakmaty::{Color, Move};

use annabella_chess::game::{Game, MAX_PLIES};
use annabella_chess::language::Language;
use annabella_chess::notation::{Notation, Style, format_move, parse_move};
use annabella_chess::phrases::{
    color_phrase, duration_phrase, fill_count, move_phrase, number_phrase,
};
use annabella_chess::vocabulary::fill;

/// The longest body read; a longer one is refused whole (real game messages are a few KiB).
pub const MAX_BODY_BYTES: usize = 256 * 1024;
/// Lines longer than this are skipped (no move line is; a pasted blob may be).
const MAX_LINE_CHARS: usize = 2000;
/// The most lines looked at.
const MAX_LINES: usize = 20_000;
/// The longest free text kept, in characters.
pub const MAX_TEXT_CHARS: usize = 4000;
/// The longest player name kept, in characters.
pub const MAX_NAME_CHARS: usize = 100;
/// The longest game identifier.
pub const MAX_GAME_ID_CHARS: usize = 40;
/// Days beyond this are not a time anyone used.
pub const MAX_DAYS: u32 = 100_000;

/// A game's identifier as both players write it: "BCA-7", "WS/2026/3", "ICCF.123456".
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameId(String);

impl GameId {
    /// Letters, digits and `-._/#`, starting with a letter or digit, at most
    /// [`MAX_GAME_ID_CHARS`].
    pub fn new(text: &str) -> Option<GameId> {
        let t = text.trim();
        let ok = !t.is_empty()
            && t.chars().count() <= MAX_GAME_ID_CHARS
            && t.starts_with(|c: char| c.is_ascii_alphanumeric())
            && t.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._/#".contains(c));
        ok.then(|| GameId(t.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One half-move in ICCF numeric notation, its shape checked (squares 11–88, promotion 1–4);
/// whether it is legal is for [`check_against`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IccfMove(String);

impl IccfMove {
    /// Reads `5254`, `27281`; check and annotation marks (`+`, `#`, `!`, `?`) are dropped.
    pub fn new(text: &str) -> Option<IccfMove> {
        let t = text.trim_end_matches(['+', '#', '!', '?']);
        let b = t.as_bytes();
        let square = |f: u8, r: u8| (b'1'..=b'8').contains(&f) && (b'1'..=b'8').contains(&r);
        let ok = (4..=5).contains(&b.len())
            && square(b[0], b[1])
            && square(b[2], b[3])
            && (b.len() == 4 || (b'1'..=b'4').contains(&b[4]));
        ok.then(|| IccfMove(t.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for IccfMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A calendar date (proleptic Gregorian), as correspondence rules count days.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    year: u16,
    month: u8,
    day: u8,
}

impl Date {
    /// A date that exists, years 1900 to 9999.
    pub fn new(year: u32, month: u32, day: u32) -> Option<Date> {
        if !(1900..=9999).contains(&year) || !(1..=12).contains(&month) || day == 0 {
            return None;
        }
        let leap =
            year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
        let days = match month {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        (day <= days).then_some(Date {
            year: year as u16,
            month: month as u8,
            day: day as u8,
        })
    }

    /// The UTC date of a Unix time in milliseconds (the adapter passes the wall clock).
    pub fn from_unix_ms(ms: i64) -> Date {
        let days = ms.div_euclid(86_400_000).clamp(-25_567, 2_932_896); // 1900..=9999
        let (year, month, day) = annabella_chess::ccsnt::civil_from_days(days);
        Date::new(year as u32, month, day).unwrap_or(Date {
            year: 1970,
            month: 1,
            day: 1,
        })
    }

    /// Days since 1970-01-01 (negative before), the inverse of [`Date::from_unix_ms`].
    pub fn unix_day(self) -> i64 {
        annabella_chess::ccsnt::days_from_civil(
            u32::from(self.year),
            u32::from(self.month),
            u32::from(self.day),
        )
    }

    /// The calendar year.
    pub fn year(self) -> u32 {
        u32::from(self.year)
    }

    /// Reads `2026-11-20`, `2026/11/20` and `20.11.2026`.
    pub fn parse(text: &str) -> Option<Date> {
        let t = text.trim();
        let parts: Vec<&str> = t.split(['-', '/', '.']).collect();
        let [a, b, c] = parts.as_slice() else {
            return None;
        };
        let num = |s: &str| -> Option<u32> {
            (!s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse().ok())
                .flatten()
        };
        let (a, b, c) = (num(a)?, num(b)?, num(c)?);
        if a >= 1000 {
            Date::new(a, b, c)
        } else {
            Date::new(c, b, a)
        }
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// The message this side sends: the game, the whole record and the times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameMessage {
    pub game: GameId,
    pub white: String,
    pub black: String,
    /// Every half-move of the game from the start, the move this message sends last.
    pub record: Vec<IccfMove>,
    /// When the opponent's previous move was received (none before the first move).
    pub received: Option<Date>,
    /// When this message is sent.
    pub sent: Date,
    /// Days the sender used for this move.
    pub used_days: u32,
    /// Days accumulated so far, White's then Black's.
    pub total_days: [u32; 2],
    /// Anything the player adds (a draw offer, a greeting).
    pub text: Option<String>,
}

/// The move at `ply` (0-based) with its number and colour.
fn numbered(ply: usize) -> (u32, Color) {
    let number = (ply / 2 + 1) as u32;
    let color = if ply.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    };
    (number, color)
}

/// `16. 4244` or `16... 4842`.
fn numbered_text(ply: usize, m: &IccfMove) -> String {
    match numbered(ply) {
        (n, Color::White) => format!("{n}. {m}"),
        (n, Color::Black) => format!("{n}... {m}"),
    }
}

impl GameMessage {
    /// The move this message sends: its number, colour and text.
    pub fn sent_move(&self) -> Option<(u32, Color, &IccfMove)> {
        let ply = self.record.len().checked_sub(1)?;
        let (n, c) = numbered(ply);
        Some((n, c, &self.record[ply]))
    }
}

/// A record as scoresheets write it, one move pair a line: `1. 5254 5755`.
pub fn record_lines(record: &[IccfMove]) -> Vec<String> {
    record
        .chunks(2)
        .enumerate()
        .map(|(i, pair)| match pair {
            [w, b] => format!("{}. {w} {b}", i + 1),
            [w] => format!("{}. {w}", i + 1),
            _ => String::new(),
        })
        .collect()
}

/// A record on one line, for an error message: `1. 5254 5755 2. 7163`.
pub fn record_text(record: &[IccfMove]) -> String {
    record_lines(record).join(" ")
}

/// A name or line of text made safe for one header line: no control characters, bounded.
fn one_line(text: &str, max: usize) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(max)
        .collect::<String>()
        .trim()
        .to_owned()
}

/// The subject and the plain-text body of a message (docs/correspondence-mail.md).
pub fn compose(m: &GameMessage) -> (String, String) {
    let white = one_line(&m.white, MAX_NAME_CHARS);
    let black = one_line(&m.black, MAX_NAME_CHARS);
    let last = m
        .record
        .len()
        .checked_sub(1)
        .map(|ply| numbered_text(ply, &m.record[ply]));
    let subject = format!(
        "{}: {} ({white} - {black})",
        m.game,
        last.as_deref().unwrap_or("no move yet")
    );
    let mut body = String::new();
    let mut line = |s: String| {
        body.push_str(&s);
        body.push('\n');
    };
    line(format!("Game: {}", m.game));
    line(format!("White: {white}"));
    line(format!("Black: {black}"));
    if let Some(last) = &last {
        line(format!("Move: {last}"));
    }
    line(format!(
        "Received: {}",
        m.received.map_or("-".to_owned(), |d| d.to_string())
    ));
    line(format!("Sent: {}", m.sent));
    line(format!(
        "Time used: {}",
        days_text(m.used_days.min(MAX_DAYS))
    ));
    line(format!(
        "Time total: White {}, Black {}",
        days_text(m.total_days[0].min(MAX_DAYS)),
        days_text(m.total_days[1].min(MAX_DAYS))
    ));
    line(String::new());
    line("Moves:".to_owned());
    for l in record_lines(&m.record) {
        line(l);
    }
    line(String::new());
    line(
        "Reply with your move and its number at the top, for example 17. 5171 or 17... 2836;"
            .to_owned(),
    );
    line("this message may stay quoted below it.".to_owned());
    if let Some(text) = m.text.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        line(String::new());
        line("Message:".to_owned());
        let kept: String = text
            .chars()
            .filter(|&c| c == '\n' || !c.is_control())
            .take(MAX_TEXT_CHARS)
            .collect();
        // A line of the text that starts with `>` would read back as quoted mail, its moves
        // as the record's: it is written behind a bar.
        for l in kept.lines() {
            if l.trim_start().starts_with('>') {
                line(format!("| {l}"));
            } else {
                line(l.to_owned());
            }
        }
    }
    (subject, body)
}

fn days_text(n: u32) -> String {
    if n == 1 {
        "1 day".to_owned()
    } else {
        format!("{n} days")
    }
}

/// What a message says, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedMessage {
    pub game: GameId,
    pub white: Option<String>,
    pub black: Option<String>,
    /// The whole record it quotes, its newest text winning over what it quotes.
    pub record: Vec<IccfMove>,
    pub received: Option<Date>,
    pub sent: Option<Date>,
    pub used_days: Option<u32>,
    pub total_days: Option<[u32; 2]>,
    pub text: Option<String>,
}

impl ParsedMessage {
    /// The newest move: its number, colour and text.
    pub fn newest_move(&self) -> Option<(u32, Color, &IccfMove)> {
        let ply = self.record.len().checked_sub(1)?;
        let (n, c) = numbered(ply);
        Some((n, c, &self.record[ply]))
    }
}

/// Why a message could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    #[error("the message is {0} bytes; at most {MAX_BODY_BYTES} are read")]
    TooLong(usize),
    #[error("no game named: neither a 'Game:' line nor a subject starting with the game")]
    NoGame,
    #[error("the message names no move")]
    NoMoves,
    #[error("move {0} is missing from the record")]
    Gap(String),
    #[error("the message gives two moves for {number}: {first} and {second}")]
    Conflict {
        number: String,
        first: String,
        second: String,
    },
    #[error("the record is longer than a game can be")]
    TooManyMoves,
}

/// What one quoting depth of the message says.
#[derive(Default)]
struct Level {
    fields: BTreeMap<&'static str, String>,
    plies: BTreeMap<usize, IccfMove>,
    text: Vec<String>,
}

const FIELDS: &[(&str, &str)] = &[
    ("game", "game"),
    ("game id", "game"),
    ("event", "game"),
    ("white", "white"),
    ("black", "black"),
    ("move", "move"),
    ("moves", "moves"),
    ("received", "received"),
    ("date received", "received"),
    ("sent", "sent"),
    ("date sent", "sent"),
    ("time used", "used"),
    ("time total", "total"),
    ("message", "message"),
];

/// `key: value` when the key is one of the form's.
fn field(line: &str) -> Option<(&'static str, &str)> {
    let (key, value) = line.split_once(':')?;
    let key = key.trim().to_ascii_lowercase();
    FIELDS
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, name)| (*name, value.trim()))
}

/// One token of a move line.
enum Token {
    /// `16.` (White's) or `16...` (Black's), maybe with the move attached (`16.4244`).
    Number(usize, Option<IccfMove>),
    Move(IccfMove),
    /// A result or a lone ellipsis: nothing to place.
    Skip,
}

fn token(t: &str) -> Option<Token> {
    if matches!(
        t,
        "1-0" | "0-1" | "1/2-1/2" | "½-½" | "*" | "..." | "…" | "-"
    ) {
        return Some(Token::Skip);
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let after = &t[digits..];
    let black = after
        .strip_prefix("...")
        .or_else(|| after.strip_prefix('…'));
    let (color, rest) = match (black, after.strip_prefix('.')) {
        (Some(r), _) => (Color::Black, r),
        (None, Some(r)) => (Color::White, r.strip_prefix('.').unwrap_or(r)),
        (None, None) => return IccfMove::new(t).map(Token::Move),
    };
    if digits == 0 || digits > 4 {
        return None;
    }
    let n: usize = t[..digits].parse().ok()?;
    if n == 0 || n > MAX_PLIES / 2 + 1 {
        return None;
    }
    let ply = (n - 1) * 2 + usize::from(color == Color::Black);
    if rest.is_empty() {
        Some(Token::Number(ply, None))
    } else {
        Some(Token::Number(ply, Some(IccfMove::new(rest)?)))
    }
}

/// The tokens of a line when every one is part of a move record, else `None` (prose).
fn move_tokens(line: &str) -> Option<Vec<Token>> {
    let tokens: Option<Vec<Token>> = line
        .split(|c: char| c.is_whitespace() || c == ',' || c == ';')
        .filter(|t| !t.is_empty())
        .map(token)
        .collect();
    tokens.filter(|t| t.iter().any(|t| !matches!(t, Token::Skip)))
}

impl Level {
    /// Places the moves of one line; unnumbered moves continue from `cursor`.
    fn place(
        &mut self,
        tokens: Vec<Token>,
        cursor: &mut Option<usize>,
        base: usize,
    ) -> Result<(), MessageError> {
        for t in tokens {
            let (ply, m) = match t {
                Token::Skip => continue,
                Token::Number(ply, m) => {
                    *cursor = Some(ply);
                    match m {
                        Some(m) => (ply, m),
                        None => continue,
                    }
                }
                Token::Move(m) => (cursor.unwrap_or(base), m),
            };
            if ply >= MAX_PLIES {
                return Err(MessageError::TooManyMoves);
            }
            if let Some(old) = self.plies.get(&ply)
                && *old != m
            {
                let (n, c) = numbered(ply);
                return Err(MessageError::Conflict {
                    number: format!("{n}{}", if c == Color::White { "." } else { "..." }),
                    first: old.to_string(),
                    second: m.to_string(),
                });
            }
            self.plies.insert(ply, m);
            *cursor = Some(ply + 1);
        }
        Ok(())
    }
}

/// The quoting depth of a line (`> > text` is 2) and the line without its marks.
fn unquote(line: &str) -> (usize, &str) {
    let mut depth = 0;
    let mut rest = line.trim_start();
    while let Some(r) = rest.strip_prefix('>') {
        depth += 1;
        rest = r.trim_start();
    }
    (depth, rest.trim_end())
}

/// The game named by a subject: `BCA-7: 16... 4842`, `Re: AW: BCA-7 …`.
fn subject_game(subject: &str) -> Option<GameId> {
    let mut s = subject.trim();
    loop {
        let lower = s.to_ascii_lowercase();
        let prefix = [
            "re:", "aw:", "fw:", "fwd:", "wg:", "sv:", "antw:", "tr:", "r:",
        ]
        .iter()
        .find(|p| lower.starts_with(*p));
        match prefix {
            Some(p) => s = s[p.len()..].trim_start(),
            None => break,
        }
    }
    let end = s
        .find(|c: char| c == ':' || c.is_whitespace())
        .unwrap_or(s.len());
    GameId::new(&s[..end])
}

/// Reads a message leniently: quoted lines (`>`) are older text, the newest text wins; moves
/// may come with numbers (`16. 4244 4842`, `16... 4842`) or without, on lines of their own or
/// after `Move:`/`Moves:`; other prose is skipped. The game is the `Game:` line's or the
/// subject's first word.
pub fn parse(subject: &str, body: &str) -> Result<ParsedMessage, MessageError> {
    if body.len() > MAX_BODY_BYTES {
        return Err(MessageError::TooLong(body.len()));
    }
    // Lines by quoting depth, in order.
    let mut by_depth: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    for line in body.lines().take(MAX_LINES) {
        if line.chars().count() > MAX_LINE_CHARS {
            continue;
        }
        let (depth, rest) = unquote(line);
        by_depth.entry(depth.min(64)).or_default().push(rest);
    }
    // The oldest (deepest) text first: newer text continues and overrides it.
    let mut merged: BTreeMap<usize, IccfMove> = BTreeMap::new();
    let mut fields: BTreeMap<&'static str, String> = BTreeMap::new();
    let mut text = None;
    for (_, lines) in by_depth.iter().rev() {
        let level = read_level(lines, merged.len())?;
        merged.extend(level.plies);
        fields.extend(level.fields);
        if !level.text.is_empty() {
            text = Some(level.text.join("\n").trim().to_owned()).filter(|t| !t.is_empty());
        }
    }
    let game = fields
        .get("game")
        .and_then(|g| GameId::new(g))
        .or_else(|| subject_game(subject))
        .ok_or(MessageError::NoGame)?;
    let mut record = Vec::with_capacity(merged.len());
    for (i, (ply, m)) in merged.into_iter().enumerate() {
        if ply != i {
            let (n, c) = numbered(i);
            return Err(MessageError::Gap(format!(
                "{n}{}",
                if c == Color::White { "." } else { "..." }
            )));
        }
        record.push(m);
    }
    if record.is_empty() {
        return Err(MessageError::NoMoves);
    }
    let name = |key| {
        fields
            .get(key)
            .map(|v: &String| one_line(v, MAX_NAME_CHARS))
            .filter(|v| !v.is_empty())
    };
    Ok(ParsedMessage {
        game,
        white: name("white"),
        black: name("black"),
        record,
        received: fields.get("received").and_then(|d| Date::parse(d)),
        sent: fields.get("sent").and_then(|d| Date::parse(d)),
        used_days: fields.get("used").and_then(|t| first_number(t)),
        total_days: fields.get("total").and_then(|t| totals(t)),
        text,
    })
}

/// One quoting depth's fields, moves and text. `base` is where unnumbered moves start when the
/// level numbers none before them: after the record of the text it quotes.
fn read_level(lines: &[&str], base: usize) -> Result<Level, MessageError> {
    let mut level = Level::default();
    let mut cursor = None;
    let mut in_text = false;
    // Bytes of text kept so far: enough for MAX_TEXT_CHARS characters of any width.
    let mut text_bytes = 0;
    for line in lines {
        if in_text {
            if text_bytes < MAX_TEXT_CHARS * 4 {
                text_bytes += line.len() + 1;
                level.text.push((*line).to_owned());
            }
            continue;
        }
        if line.is_empty() {
            continue;
        }
        if let Some((key, value)) = field(line) {
            match key {
                "message" => {
                    in_text = true;
                    if !value.is_empty() {
                        level.text.push(value.to_owned());
                    }
                }
                "move" | "moves" => {
                    if let Some(tokens) = move_tokens(value) {
                        level.place(tokens, &mut cursor, base)?;
                    }
                }
                _ => {
                    level.fields.insert(key, value.to_owned());
                }
            }
            continue;
        }
        if let Some(tokens) = move_tokens(line) {
            level.place(tokens, &mut cursor, base)?;
        }
    }
    let kept: String = level.text.join("\n").chars().take(MAX_TEXT_CHARS).collect();
    level.text = if kept.trim().is_empty() {
        Vec::new()
    } else {
        vec![kept]
    };
    Ok(level)
}

fn first_number(text: &str) -> Option<u32> {
    text.split(|c: char| !c.is_ascii_digit())
        .find(|t| !t.is_empty())
        .and_then(|t| if t.len() > 6 { None } else { t.parse().ok() })
        .filter(|n| *n <= MAX_DAYS)
}

/// `White 12 days, Black 9 days` (either order).
fn totals(text: &str) -> Option<[u32; 2]> {
    let lower = text.to_ascii_lowercase();
    let after = |word: &str| lower.find(word).and_then(|i| first_number(&lower[i..]));
    Some([after("white")?, after("black")?])
}

/// A message's record against the game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The record is the game and one move more: that move, legal, at half-move `ply`.
    NewMove { ply: usize, mv: Move },
    /// The record is the game or an earlier part of it (a repeat, an old message): `behind`
    /// half-moves short of the game.
    NothingNew { behind: usize },
    /// The record is not the game: reported, not applied.
    Disagrees(Disagreement),
}

/// Why a message's record is not the game, with both records quoted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement {
    /// The first move that differs (`16...`), or the first the game lacks.
    pub first: String,
    pub reason: String,
    pub message_record: String,
    pub game_record: String,
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the message's record disagrees with the game at {}: {}; message: {}; game: {}",
            self.first, self.reason, self.message_record, self.game_record
        )
    }
}

fn number_label(ply: usize) -> String {
    match numbered(ply) {
        (n, Color::White) => format!("{n}."),
        (n, Color::Black) => format!("{n}..."),
    }
}

/// The game's moves in ICCF numeric notation, as a message records them.
pub fn game_record(game: &Game) -> Vec<IccfMove> {
    let mode = game.castling_mode();
    let style = Style::new(Language::english());
    game.replay()
        .filter_map(|(pos, m)| IccfMove::new(&format_move(&pos, mode, m, Notation::Iccf, &style)))
        .collect()
}

/// Compares a message's record with the game's moves, move by move, in the game's positions.
pub fn check_against(record: &[IccfMove], game: &Game) -> Verdict {
    let mode = game.castling_mode();
    let lang = Language::english();
    let game_record = game_record(game);
    let disagree = |ply: usize, reason: String| {
        Verdict::Disagrees(Disagreement {
            first: number_label(ply),
            reason,
            message_record: record_text(record),
            game_record: record_text(&game_record),
        })
    };
    let played = game.moves().len();
    for (ply, ((pos, m), written)) in game.replay().zip(record).enumerate() {
        match parse_move(&pos, mode, written.as_str(), Some(Notation::Iccf), lang) {
            Ok(read) if read == m => {}
            Ok(_) => {
                return disagree(
                    ply,
                    format!(
                        "the message has {written}, the game {}",
                        game_record.get(ply).map_or("?", IccfMove::as_str)
                    ),
                );
            }
            Err(e) => {
                return disagree(
                    ply,
                    format!("the message's {written} is not legal there: {e}"),
                );
            }
        }
    }
    match record.len() {
        n if n <= played => Verdict::NothingNew { behind: played - n },
        n if n == played + 1 => {
            let written = &record[played];
            match parse_move(
                game.position(),
                mode,
                written.as_str(),
                Some(Notation::Iccf),
                lang,
            ) {
                Ok(mv) if !game.is_over() => Verdict::NewMove { ply: played, mv },
                Ok(_) => disagree(played, "the game is over".to_owned()),
                Err(e) => disagree(played, format!("{written} is not legal: {e}")),
            }
        }
        n => disagree(
            played,
            format!(
                "the message has {} moves the game lacks: a message may be missing",
                n - played
            ),
        ),
    }
}

/// A message in one sentence for the blind player: the game, who moved, the move numbered and
/// in words, and the time used ("Partie BCA-7, Bob: Zug sechzehn, Schwarz: Springer …;
/// Bedenkzeit drei Tage"). The record is replayed from `start` to say the move; a record that
/// does not replay says the move's digits.
pub fn summary_for_ear(msg: &ParsedMessage, start: &Game, lang: &Language) -> String {
    let v = lang.vocabulary();
    let word = |key: &str| v.event(key).unwrap_or(key).to_owned();
    let Some((number, color, last)) = msg.newest_move() else {
        return String::new();
    };
    let mode = start.castling_mode();
    let mut pos = start.position().clone();
    let mut spoken = None;
    for (ply, written) in msg.record.iter().enumerate() {
        let Ok(m) = parse_move(&pos, mode, written.as_str(), Some(Notation::Iccf), lang) else {
            break;
        };
        if ply + 1 == msg.record.len() {
            spoken = Some(move_phrase(&pos, m, &Style::new(lang)));
        }
        shakmaty::Position::play_unchecked(&mut pos, m);
    }
    let spoken = spoken.unwrap_or_else(|| {
        last.as_str()
            .chars()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    });
    let player = match color {
        Color::White => msg.white.clone(),
        Color::Black => msg.black.clone(),
    }
    .unwrap_or_else(|| color_phrase(color, v));
    let numbered_move = fill(
        &word("key_move"),
        &[
            ("number", &number_phrase(number, v)),
            ("color", &color_phrase(color, v)),
            ("move", &spoken),
        ],
    );
    let mut out = fill(
        &word("mail_move"),
        &[
            ("game", msg.game.as_str()),
            ("player", &player),
            ("move", &numbered_move),
        ],
    );
    if let Some(used) = time_used_for_ear(msg, lang) {
        out.push_str("; ");
        out.push_str(&used);
    }
    out
}

/// The time the sender says he used, for the ear ("Bedenkzeit drei Tage"), if he says it.
pub fn time_used_for_ear(msg: &ParsedMessage, lang: &Language) -> Option<String> {
    let v = lang.vocabulary();
    let days = msg.used_days?;
    // The clock's own words for days ([words.time] day_one/days): "drei Tage"; none used
    // (an answer the same day) is "null Tage", not "null Sekunden".
    let days = match (days, &v.time().days) {
        (0, Some(template)) => fill_count(template, 0, v),
        _ => duration_phrase(u64::from(days) * 86_400_000, v),
    };
    let template = v.event("mail_time_used").unwrap_or("mail_time_used");
    Some(fill(template, &[("days", &days)]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(text: &str) -> Vec<IccfMove> {
        text.split_whitespace()
            .map(|t| IccfMove::new(t).unwrap())
            .collect()
    }

    fn game_of(record: &[IccfMove]) -> Game {
        let mut g = Game::new();
        for m in record {
            let mv = parse_move(
                g.position(),
                g.castling_mode(),
                m.as_str(),
                Some(Notation::Iccf),
                Language::english(),
            )
            .unwrap();
            g.play(mv).unwrap();
        }
        g
    }

    // A Ruy Lopez to Black's 8th: 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7
    // 6. Re1 b5 7. Bb3 d6 8. c3 O-O.
    const RUY: &str =
        "5254 5755 7163 2836 6125 1716 2514 7866 5171 6857 6151 2725 1423 4746 3233 5878";

    fn message() -> GameMessage {
        GameMessage {
            game: GameId::new("BCA-7").unwrap(),
            white: "Anna Schmidt".into(),
            black: "Bob Jones".into(),
            record: moves(RUY),
            received: Date::new(2026, 11, 20),
            sent: Date::new(2026, 11, 23).unwrap(),
            used_days: 3,
            total_days: [12, 9],
            text: Some("I offer a draw? No, not yet.\nBest wishes, Bob".into()),
        }
    }

    #[test]
    fn composed_message_reads_back() {
        let m = message();
        let (subject, body) = compose(&m);
        assert_eq!(subject, "BCA-7: 8... 5878 (Anna Schmidt - Bob Jones)");
        assert!(body.starts_with("Game: BCA-7\nWhite: Anna Schmidt\nBlack: Bob Jones\nMove: 8... 5878\nReceived: 2026-11-20\nSent: 2026-11-23\nTime used: 3 days\nTime total: White 12 days, Black 9 days\n\nMoves:\n1. 5254 5755\n2. 7163 2836\n"), "{body}");
        let p = parse(&subject, &body).unwrap();
        assert_eq!(p.game.as_str(), "BCA-7");
        assert_eq!(p.white.as_deref(), Some("Anna Schmidt"));
        assert_eq!(p.black.as_deref(), Some("Bob Jones"));
        assert_eq!(p.record, m.record);
        assert_eq!(p.received, m.received);
        assert_eq!(p.sent, Some(m.sent));
        assert_eq!(p.used_days, Some(3));
        assert_eq!(p.total_days, Some([12, 9]));
        assert_eq!(p.text.as_deref(), m.text.as_deref());
        assert_eq!(
            p.newest_move().map(|(n, c, m)| (n, c, m.as_str())),
            Some((8, Color::Black, "5878"))
        );
    }

    #[test]
    fn a_hand_written_reply_above_the_quoted_message() {
        let mut m = message();
        m.record.truncate(15); // Anna sent 8. 3233.
        let (subject, body) = compose(&m);
        let quoted: String = body.lines().map(|l| format!("> {l}\n")).collect();
        let reply = format!("\n\n8... 5878\n\nThanks, Bob\n\nOn Mon, Anna wrote:\n{quoted}");
        let p = parse(&format!("Re: {subject}"), &reply).unwrap();
        assert_eq!(p.record, moves(RUY));
        assert_eq!(p.game.as_str(), "BCA-7");
        // Without a number the move continues the quoted record.
        let p = parse(&format!("AW: {subject}"), &format!("5878\n{quoted}")).unwrap();
        assert_eq!(p.record, moves(RUY));
        // Both halves written on one line by a player who repeats White's move.
        let p = parse(&subject, &format!("8. 3233 5878\n{quoted}")).unwrap();
        assert_eq!(p.record, moves(RUY));
        let p = parse(&subject, &format!("8...5878\n{quoted}")).unwrap();
        assert_eq!(p.record, moves(RUY));
    }

    #[test]
    fn a_bare_record_without_numbers_and_with_noise() {
        let body = "Hello Anna,\n\nhere is the game so far:\n\n5254 5755 7163 2836 6125 1716\n2514 7866\n\n\nRegards\n";
        let p = parse("BCA-7 4... 7866", body).unwrap();
        assert_eq!(p.record, moves("5254 5755 7163 2836 6125 1716 2514 7866"));
        assert_eq!(p.game.as_str(), "BCA-7");
        assert_eq!(p.text, None);
        // Results, commas and check marks are tolerated.
        let p = parse(
            "G-1",
            "1. 5254, 5755 2. 6134 2836 3. 4163 7866 4. 3475+ 1-0",
        )
        .unwrap();
        assert_eq!(p.record.last().unwrap().as_str(), "3475");
    }

    #[test]
    fn contradictions_and_missing_parts_are_named() {
        assert_eq!(parse("", "1. 5254 5755").unwrap_err(), MessageError::NoGame);
        assert_eq!(
            parse("BCA-7: hello", "How are you?").unwrap_err(),
            MessageError::NoMoves
        );
        assert_eq!(
            parse("BCA-7", "1. 5254 5755\n3. 7163").unwrap_err(),
            MessageError::Gap("2.".into())
        );
        assert_eq!(
            parse("BCA-7", "Move: 1... 5756\n1. 5254 5755").unwrap_err(),
            MessageError::Conflict {
                number: "1...".into(),
                first: "5756".into(),
                second: "5755".into()
            }
        );
        let huge = "1. 5254\n".repeat(MAX_BODY_BYTES / 8 + 1);
        assert!(matches!(parse("X", &huge), Err(MessageError::TooLong(_))));
        assert!(matches!(
            parse("X", "600. 5254"),
            Err(MessageError::Gap(_)) | Err(MessageError::TooManyMoves)
        ));
    }

    #[test]
    fn the_record_is_checked_against_the_game() {
        let full = moves(RUY);
        let game = game_of(&full[..15]);
        match check_against(&full, &game) {
            Verdict::NewMove { ply, mv } => {
                assert_eq!(ply, 15);
                assert!(mv.is_castle(), "{mv:?}");
            }
            v => panic!("{v:?}"),
        }
        assert_eq!(
            check_against(&full[..15], &game),
            Verdict::NothingNew { behind: 0 }
        );
        assert_eq!(
            check_against(&full[..14], &game),
            Verdict::NothingNew { behind: 1 }
        );
        // A different sixth move for Black: both records quoted, 6... named.
        let mut other = full.clone();
        other[11] = IccfMove::new("7776").unwrap();
        let Verdict::Disagrees(d) = check_against(&other, &game) else {
            panic!()
        };
        assert_eq!(d.first, "6...");
        assert!(d.message_record.contains("6. 6151 7776"), "{d}");
        assert!(d.game_record.contains("6. 6151 2725"), "{d}");
        assert!(d.reason.contains("7776"), "{d}");
        // An illegal new move and a record two moves ahead.
        let mut illegal = full[..15].to_vec();
        illegal.push(IccfMove::new("1114").unwrap());
        assert!(
            matches!(check_against(&illegal, &game), Verdict::Disagrees(d) if d.first == "8...")
        );
        let ahead = game_of(&full[..13]);
        assert!(
            matches!(check_against(&full, &ahead), Verdict::Disagrees(d) if d.reason.contains("missing"))
        );
    }

    #[test]
    fn the_summary_speaks_the_move_and_the_time() {
        let (subject, body) = compose(&message());
        let p = parse(&subject, &body).unwrap();
        let de = summary_for_ear(&p, &Game::new(), Language::german());
        assert!(
            de.starts_with("Partie BCA-7, Bob Jones: Zug acht, Schwarz: "),
            "{de}"
        );
        assert!(de.contains("Rochade"), "{de}");
        assert!(de.ends_with("Bedenkzeit drei Tage"), "{de}");
        let en = summary_for_ear(&p, &Game::new(), Language::english());
        assert!(en.contains("BCA-7") && en.contains("eight"), "{en}");
        // A record that does not replay: the digits are said.
        let mut odd = p.clone();
        odd.record = moves("5254 1114");
        odd.used_days = Some(1);
        let de = summary_for_ear(&odd, &Game::new(), Language::german());
        assert!(
            de.contains("1 1 1 4") && de.ends_with("Bedenkzeit ein Tag"),
            "{de}"
        );
    }

    #[test]
    fn dates_and_ids() {
        assert_eq!(Date::parse("20.11.2026"), Date::new(2026, 11, 20));
        assert_eq!(Date::parse("2026/11/20"), Date::new(2026, 11, 20));
        assert_eq!(Date::parse("2026-02-29"), None);
        assert_eq!(Date::parse("2028-02-29").unwrap().to_string(), "2028-02-29");
        assert_eq!(Date::from_unix_ms(0).to_string(), "1970-01-01");
        assert_eq!(
            Date::from_unix_ms(1_795_996_800_000).to_string(),
            "2026-11-30"
        );
        assert_eq!(
            Date::from_unix_ms(951_782_400_000).to_string(),
            "2000-02-29"
        );
        assert_eq!(Date::from_unix_ms(i64::MIN).to_string(), "1900-01-01");
        assert!(GameId::new("WS/2026/3").is_some());
        assert!(GameId::new("-x").is_none());
        assert!(GameId::new("a b").is_none());
        assert_eq!(
            subject_game("Re: AW: BCA-7: 16... 4842").unwrap().as_str(),
            "BCA-7"
        );
        assert!(IccfMove::new("9911").is_none());
        assert!(IccfMove::new("27285").is_none());
        assert_eq!(IccfMove::new("2728+").unwrap().as_str(), "2728");
    }

    /// Free text with a line starting with `>` stays text: it is written behind a bar.
    #[test]
    fn quoted_looking_text_is_not_read_as_moves() {
        let mut m = message();
        m.text = Some(">1...1111\n>1111".into());
        let (subject, body) = compose(&m);
        assert!(body.ends_with("Message:\n| >1...1111\n| >1111\n"), "{body}");
        let p = parse(&subject, &body).unwrap();
        assert_eq!(p.record, m.record);
        assert_eq!(p.text.as_deref(), Some("| >1...1111\n| >1111"));
    }

    proptest::proptest! {
        /// Any text: no panic, and what reads composes to a message that reads back the same.
        #[test]
        fn any_text_reads_without_panic(
            subject in "[ -~]{0,40}",
            body in "((> ?)*([0-9]{1,3}\\.{1,3} ?)?[1-8]{4}[ \n,]|Game: [A-Z]-[0-9]\n|Message: |[ -~]{0,12}\n){0,40}",
        ) {
            if let Ok(p) = parse(&subject, &body) {
                let _ = check_against(&p.record, &Game::new());
                let _ = summary_for_ear(&p, &Game::new(), Language::german());
                let m = GameMessage {
                    game: p.game.clone(),
                    white: p.white.clone().unwrap_or_default(),
                    black: p.black.clone().unwrap_or_default(),
                    record: p.record.clone(),
                    received: p.received,
                    sent: p.sent.unwrap_or(Date::from_unix_ms(0)),
                    used_days: p.used_days.unwrap_or(0),
                    total_days: p.total_days.unwrap_or([0, 0]),
                    text: p.text.clone(),
                };
                let (s, b) = compose(&m);
                let back = parse(&s, &b).unwrap();
                proptest::prop_assert_eq!(back.record, p.record);
                proptest::prop_assert_eq!(back.game, p.game);
            }
        }
    }
}
