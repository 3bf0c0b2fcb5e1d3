//! A game message read back leniently from what people actually send: quoted replies, moves
//! with or without numbers, noise around them; contradictions and gaps named.

use std::collections::BTreeMap;

use shakmaty::Color;

use annabella_chess::game::MAX_PLIES;

use super::parts::{
    Date, GameId, IccfMove, MAX_DAYS, MAX_NAME_CHARS, MAX_TEXT_CHARS, numbered, one_line,
};

/// The longest body read; a longer one is refused whole (real game messages are a few KiB).
pub const MAX_BODY_BYTES: usize = 256 * 1024;
/// Lines longer than this are skipped (no move line is; a pasted blob may be).
const MAX_LINE_CHARS: usize = 2000;
/// The most lines looked at.
const MAX_LINES: usize = 20_000;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::compose::compose;
    use crate::message::fixtures::{RUY, message, moves};

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

    #[test]
    fn the_game_is_named_by_the_subject() {
        assert_eq!(
            subject_game("Re: AW: BCA-7: 16... 4842").unwrap().as_str(),
            "BCA-7"
        );
    }
}
