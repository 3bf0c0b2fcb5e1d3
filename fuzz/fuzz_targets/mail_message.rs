//! Fuzz target: reading an arbitrary subject and body as a correspondence message never panics;
//! what it reads is checked against a game and summed up, and a message composed from it reads
//! back to the same record.
#![no_main]

use annabella::chess::game::Game;
use annabella::chess::language::Language;
use annabella::correspondence::message::{self, Date, GameMessage};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (&str, &str)| {
    let (subject, body) = input;
    let Ok(parsed) = message::parse(subject, body) else {
        return;
    };
    let start = Game::new();
    let _ = message::check_against(&parsed.record, &start);
    for lang in Language::all_builtin() {
        let _ = message::summary_for_ear(&parsed, &start, lang);
    }
    let again = GameMessage {
        game: parsed.game.clone(),
        white: parsed.white.clone().unwrap_or_default(),
        black: parsed.black.clone().unwrap_or_default(),
        record: parsed.record.clone(),
        received: parsed.received,
        sent: parsed.sent.unwrap_or(Date::from_unix_ms(0)),
        used_days: parsed.used_days.unwrap_or(0),
        total_days: parsed.total_days.unwrap_or([0, 0]),
        text: parsed.text.clone(),
        intents: Vec::new(),
    };
    let (s, b) = message::compose(&again);
    let back = message::parse(&s, &b).expect("a composed message reads back");
    assert_eq!(back.record, parsed.record);
});
