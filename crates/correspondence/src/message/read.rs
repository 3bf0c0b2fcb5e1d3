//! A game message read back leniently from what people actually send: the form's fields, moves
//! in any notation with or without numbers, in the subject or after a lead phrase, intents in
//! words; quoted text (by `>` or below a client's quote block) is the earlier record, quote
//! headers and signatures are nothing. What the moves mean is decided by `check`.

use std::collections::BTreeMap;

use super::claims::{Run, Start, read_line};
use super::intent::Intent;
use super::intent_words::{field_intent, intents_in, is_form_sentence};
use super::lines::{Line, sort};
use super::parts::{
    Date, GameId, IccfMove, MAX_DAYS, MAX_NAME_CHARS, MAX_TEXT_CHARS, numbered, one_line,
};

/// The most of a body read; the rest is ignored (real game messages are a few KiB, a long
/// thread quoted whole a few hundred).
pub const MAX_BODY_BYTES: usize = 1024 * 1024;
/// The most runs of moves kept, and moves in all of them: more is no game message.
const MAX_RUNS: usize = 256;
const MAX_MOVES: usize = 4 * annabella_chess::game::MAX_PLIES;
/// The most intents kept.
const MAX_INTENTS: usize = 16;

/// The lines a composed message writes for the reader, not the sender's words; the first is
/// what earlier versions wrote (its example moves must not be read when a client rewrapped it).
const FORM_LINES: &[&str] = &[
    "Reply with your move and its number at the top, for example 17. 5171 or 17... 2836;",
    "Reply with your move and its number at the top;",
    "this message may stay quoted below it.",
];

/// One of [`FORM_LINES`], or a piece of one a client's rewrapping left on a line of its own.
fn is_form_line(l: &str) -> bool {
    FORM_LINES
        .iter()
        .any(|f| *f == l || (l.len() >= 10 && (f.ends_with(l) || f.starts_with(l))))
}

/// What a message says, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedMessage {
    /// The `Game:` line's, else the subject's; `None` when neither names one.
    pub game: Option<GameId>,
    pub white: Option<String>,
    pub black: Option<String>,
    pub received: Option<Date>,
    pub sent: Option<Date>,
    pub used_days: Option<u32>,
    pub total_days: Option<[u32; 2]>,
    /// The sender's own words: his newest unquoted prose without move lines, quote headers,
    /// signature or quoted text; bounded.
    pub text: Option<String>,
    /// What he says besides his move, in his own text (never in quotes or signatures).
    pub intents: Vec<Intent>,
    /// The moves as written, for `check_against`.
    pub(super) runs: Vec<Run>,
}

impl ParsedMessage {
    /// The moves the message claims as written, for a log line: `2. Sf3 (7163); subject: 2.
    /// 7163`; at most about 300 characters.
    pub fn moves_as_written(&self) -> String {
        let mut out = String::new();
        for run in &self.runs {
            if out.len() > 300 {
                out.push_str(" …");
                break;
            }
            if !out.is_empty() {
                out.push_str("; ");
            }
            match (run.depth, run.subject) {
                (_, true) => out.push_str("subject: "),
                (0, _) => {}
                (d, _) => out.push_str(&format!("quoted {d}: ")),
            }
            match run.start {
                Start::Ply(p) => {
                    let (n, c) = numbered(p);
                    out.push_str(&format!("{n}{} ", if c.is_white() { "." } else { "..." }));
                }
                Start::Number(n) => out.push_str(&format!("{n}: ")),
                Start::Free => {}
            }
            let moves: Vec<String> = run
                .moves
                .iter()
                .take(40)
                .map(|w| match w.as_slice() {
                    [one] => one.clone(),
                    [first, rest @ ..] => format!("{first} ({})", rest.join(", ")),
                    [] => String::new(),
                })
                .collect();
            out.push_str(&moves.join(" "));
        }
        out
    }
}

/// Why a message cannot be read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    /// The sender's own text numbers two different ICCF moves alike.
    #[error("the message gives two moves for {number}: {first} and {second}")]
    Conflict {
        number: String,
        first: String,
        second: String,
    },
}

/// What one quoting depth of the message says.
#[derive(Default)]
struct Level {
    fields: BTreeMap<&'static str, String>,
    runs: Vec<Run>,
    text: Vec<String>,
    intents: Vec<Intent>,
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
    ("offer", "offer"),
    ("draw", "draw"),
    ("resign", "resign"),
    ("claim", "claim"),
    ("leave", "leave"),
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

/// A field's value when it is one (a date that is a date, a name that is not empty).
fn valid(key: &str, value: &str) -> bool {
    match key {
        "game" => GameId::new(value).is_some(),
        "white" | "black" => !one_line(value, MAX_NAME_CHARS).is_empty(),
        "received" | "sent" => Date::parse(value).is_some(),
        "used" => first_number(value).is_some(),
        "total" => totals(value).is_some(),
        _ => false,
    }
}

const SUBJECT_PREFIXES: &[&str] = &[
    "re:", "aw:", "fw:", "fwd:", "wg:", "sv:", "antw:", "tr:", "r:", "rif:", "res:", "enc:",
    "doorst:", "vs:", "ref:",
];
const SUBJECT_GAME_WORDS: &[&str] = &["game", "partie", "partida", "partita", "spiel"];

/// The game a subject names (`Re: AW: BCA-7: 16... 4842`; an identifier has a digit) and the
/// rest of the subject, which may carry a move.
fn read_subject(subject: &str) -> (Option<GameId>, &str) {
    let mut s = subject.trim();
    loop {
        let lower = s.to_ascii_lowercase();
        // A mailing list's tag: "[BCA] Re: …".
        if s.starts_with('[')
            && let Some(close) = s.find(']')
        {
            s = s[close + 1..].trim_start();
            continue;
        }
        match SUBJECT_PREFIXES.iter().find(|p| lower.starts_with(*p)) {
            Some(p) => s = s[p.len()..].trim_start(),
            None => break,
        }
    }
    let first_end = |s: &str| {
        s.find(|c: char| c == ':' || c.is_whitespace())
            .unwrap_or(s.len())
    };
    let word = s[..first_end(s)].to_ascii_lowercase();
    if SUBJECT_GAME_WORDS.contains(&word.as_str()) {
        s = s[word.len()..].trim_start();
    }
    let end = first_end(s);
    let game = GameId::new(&s[..end]).filter(|g| g.as_str().contains(|c: char| c.is_ascii_digit()));
    let rest = if game.is_some() { &s[end..] } else { s };
    let rest = rest.trim_start().strip_prefix(':').unwrap_or(rest);
    let rest = rest.split('(').next().unwrap_or("").trim();
    (game, rest)
}

/// Reads a message (see docs/correspondence-mail.md, "Reading a message").
pub fn parse(subject: &str, body: &str) -> Result<ParsedMessage, MessageError> {
    let mut end = body.len().min(MAX_BODY_BYTES);
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    let mut by_depth: BTreeMap<usize, Vec<Line>> = BTreeMap::new();
    for line in sort(&body[..end]) {
        by_depth.entry(line.depth).or_default().push(line);
    }
    let mut fields: BTreeMap<&'static str, String> = BTreeMap::new();
    let mut runs = Vec::new();
    let mut text = None;
    let mut intents = Vec::new();
    // The oldest (deepest) text first: newer fields override it.
    for (&depth, lines) in by_depth.iter().rev() {
        let level = read_level(lines, depth)?;
        fields.extend(level.fields);
        for run in level.runs {
            push_run(&mut runs, run);
        }
        if depth == 0 {
            let joined = level.text.join("\n");
            let kept: String = joined.trim().chars().take(MAX_TEXT_CHARS).collect();
            text = Some(kept.trim().to_owned()).filter(|t| !t.is_empty());
            intents = level.intents;
        }
    }
    let (subject_game, subject_rest) = read_subject(subject);
    if let Some(subject_runs) = read_line(subject_rest, 0, true) {
        for run in subject_runs {
            push_run(&mut runs, run);
        }
    }
    let game = fields
        .get("game")
        .and_then(|g| GameId::new(g))
        .or(subject_game);
    let name = |key| {
        fields
            .get(key)
            .map(|v: &String| one_line(v, MAX_NAME_CHARS))
    };
    Ok(ParsedMessage {
        game,
        white: name("white"),
        black: name("black"),
        received: fields.get("received").and_then(|d| Date::parse(d)),
        sent: fields.get("sent").and_then(|d| Date::parse(d)),
        used_days: fields.get("used").and_then(|t| first_number(t)),
        total_days: fields.get("total").and_then(|t| totals(t)),
        text,
        intents,
        runs,
    })
}

fn push_run(runs: &mut Vec<Run>, run: Run) {
    let moves: usize = runs.iter().map(|r| r.moves.len()).sum();
    if runs.len() < MAX_RUNS && moves + run.moves.len() <= MAX_MOVES {
        runs.push(run);
    }
}

/// One quoting depth's fields, moves, text and (at depth 0) intents.
fn read_level(lines: &[Line], depth: usize) -> Result<Level, MessageError> {
    let own = depth == 0;
    let mut level = Level::default();
    let mut in_text = false;
    // Intents the form's fields state at this depth.
    let mut from_fields = Vec::new();
    // Whether the last line with anything on it was moves: an unnumbered line continues them.
    let mut after_moves = false;
    // Bytes of text kept so far: enough for MAX_TEXT_CHARS characters of any width.
    let mut text_bytes = 0;
    let mut prose = |level: &mut Level, line: &str| {
        // Intents are looked for in the text kept (bounded work on a long body).
        if own && text_bytes < MAX_TEXT_CHARS * 4 {
            if level.intents.len() < MAX_INTENTS {
                intents_in(line, &mut level.intents);
            }
            text_bytes += line.len() + 1;
            let clean: String = line.chars().filter(|c| !c.is_control()).collect();
            level.text.push(clean);
        }
    };
    for line in lines {
        if line.skip {
            continue;
        }
        let l = line.text;
        if l.is_empty() {
            after_moves = false;
            if own && level.text.last().is_some_and(|t| !t.is_empty()) {
                level.text.push(String::new());
            }
            continue;
        }
        if in_text {
            prose(&mut level, l);
            continue;
        }
        if let Some((key, value)) = field(l) {
            match key {
                "message" => {
                    in_text = true;
                    if !value.is_empty() {
                        prose(&mut level, value);
                    }
                    continue;
                }
                // A field left empty ("White: ") says nothing.
                _ if value.is_empty() => continue,
                // The form's "no date yet".
                "received" | "sent" if value == "-" => continue,
                "move" | "moves" => {
                    if let Some(runs) = read_line(value, depth, false) {
                        level.runs.extend(runs);
                        after_moves = true;
                        continue;
                    }
                }
                "offer" | "draw" | "resign" | "claim" | "leave" => {
                    if let Some(i) = field_intent(key, value) {
                        if from_fields.len() < MAX_INTENTS {
                            from_fields.push(i);
                        }
                        if own && !level.intents.contains(&i) && level.intents.len() < MAX_INTENTS {
                            level.intents.push(i);
                        }
                        continue;
                    }
                }
                _ if valid(key, value) => {
                    level.fields.insert(key, value.to_owned());
                    continue;
                }
                _ => {}
            }
        }
        if is_form_line(l) {
            after_moves = false;
            continue;
        }
        if let Some(mut runs) = read_line(l, depth, false) {
            if after_moves
                && runs[0].start == Start::Free
                && let Some(last) = level.runs.last_mut()
            {
                let first = runs.remove(0);
                last.moves.extend(first.moves);
            }
            level.runs.extend(runs);
            after_moves = true;
            continue;
        }
        after_moves = false;
        // The sentence a composed message writes under its intent's field is the form's, not
        // the sender's words (the same sentence without the field is his).
        if is_form_sentence(l) {
            let mut said = Vec::new();
            intents_in(l, &mut said);
            if said.iter().all(|i| from_fields.contains(i)) {
                continue;
            }
        }
        prose(&mut level, l);
    }
    while level.text.last().is_some_and(String::is_empty) {
        level.text.pop();
    }
    conflicts(&level.runs)?;
    Ok(level)
}

/// Two numbered ICCF moves for one half-move at one depth: the sender contradicts himself.
/// (Other notations may name one move two ways; `check` compares them in the position.)
fn conflicts(runs: &[Run]) -> Result<(), MessageError> {
    let mut seen: BTreeMap<usize, &str> = BTreeMap::new();
    for run in runs {
        let Start::Ply(start) = run.start else {
            continue;
        };
        for (i, written) in run.moves.iter().enumerate() {
            let [m] = written.as_slice() else { continue };
            if IccfMove::new(m).is_none() {
                continue;
            }
            match seen.get(&(start + i)) {
                Some(old) if *old != m.as_str() => {
                    let (n, c) = numbered(start + i);
                    return Err(MessageError::Conflict {
                        number: format!("{n}{}", if c.is_white() { "." } else { "..." }),
                        first: (*old).to_owned(),
                        second: m.clone(),
                    });
                }
                _ => {
                    seen.insert(start + i, m);
                }
            }
        }
    }
    Ok(())
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
#[path = "read_tests.rs"]
mod tests;
