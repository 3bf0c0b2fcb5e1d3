//! Fuzz target: reading an arbitrary subject and body as a correspondence message never panics;
//! what it reads is checked against a game in every language and summed up, and a message
//! composed from it reads back to the same game and (first) the same intents.
#![no_main]

use annabella::chess::game::Game;
use annabella::chess::language::Language;
use annabella::correspondence::message::{self, Date, GameId, GameMessage, Verdict};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (&str, &str)| {
    let (subject, body) = input;
    let Ok(parsed) = message::parse(subject, body) else {
        return;
    };
    let start = Game::new();
    let id = parsed
        .game
        .clone()
        .unwrap_or_else(|| GameId::new("X-1").expect("an id"));
    for lang in Language::all_builtin() {
        if let Verdict::NewMove { mv, .. } = message::check_against(&parsed, &start, lang) {
            let _ = message::summary_for_ear(&parsed, &id, &start, mv, lang);
        }
    }
    let again = GameMessage {
        game: id.clone(),
        white: parsed.white.clone().unwrap_or_default(),
        black: parsed.black.clone().unwrap_or_default(),
        record: Vec::new(),
        received: parsed.received,
        sent: parsed.sent.unwrap_or(Date::from_unix_ms(0)),
        used_days: parsed.used_days.unwrap_or(0),
        total_days: parsed.total_days.unwrap_or([0, 0]),
        text: parsed.text.clone(),
        intents: parsed.intents.clone(),
    };
    let (s, b) = message::compose(&again);
    let back = message::parse(&s, &b).expect("a composed message reads back");
    assert_eq!(back.game, Some(id));
    // Every intent read comes back as the form's field, first and in order (the text may say
    // more of them again).
    assert!(back.intents.starts_with(&parsed.intents), "{:?} {:?}", back.intents, parsed.intents);
});
