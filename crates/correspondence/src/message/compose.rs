//! A game message composed: the move this side sends, with the whole record, the dates and
//! the times, as the plain text both players can read.

use shakmaty::Color;

use super::intent::Intent;
use super::parts::{
    Date, GameId, IccfMove, MAX_DAYS, MAX_NAME_CHARS, MAX_TEXT_CHARS, numbered, one_line,
};

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
    /// Anything the player adds (a greeting, a comment).
    pub text: Option<String>,
    /// What the message says besides its move (a draw offer, a resignation, leave), written in
    /// the ICCF form and in words.
    pub intents: Vec<Intent>,
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
