//! Unit tests of `read`: the form, quoted replies, subjects, text and intents.

use super::*;
use crate::message::compose::compose;
use crate::message::fixtures::message;

#[test]
fn composed_message_reads_back() {
    let m = message();
    let (subject, body) = compose(&m);
    assert_eq!(subject, "BCA-7: 8... 5878 (Anna Schmidt - Bob Jones)");
    let p = parse(&subject, &body).unwrap();
    assert_eq!(p.game.as_ref().map(GameId::as_str), Some("BCA-7"));
    assert_eq!(p.white.as_deref(), Some("Anna Schmidt"));
    assert_eq!(p.black.as_deref(), Some("Bob Jones"));
    assert_eq!(p.received, m.received);
    assert_eq!(p.sent, Some(m.sent));
    assert_eq!(p.used_days, Some(3));
    assert_eq!(p.total_days, Some([12, 9]));
    assert_eq!(p.text.as_deref(), m.text.as_deref());
    assert_eq!(p.intents, []);
}

#[test]
fn the_senders_text_is_his_newest_unquoted_prose() {
    let body = "Hi Anna,\n\n8... 5878\n\nI offer a draw.\n\nBest, Bob\n-- \nBob Jones\nTel. +49 30 1234 5678\n\nOn Mon, 23 Nov 2026 at 10:15, Anna <anna@example.org> wrote:\n> Game: BCA-7\n> Message:\n> See you\n";
    let p = parse("Re: BCA-7", body).unwrap();
    assert_eq!(
        p.text.as_deref(),
        Some("Hi Anna,\n\nI offer a draw.\n\nBest, Bob")
    );
    assert_eq!(p.intents, [Intent::OfferDraw]);
    // Quoted intents are the earlier mail's, not his.
    let p = parse("Re: BCA-7", "8... 5878\n> I offer a draw.\n> Offer: draw\n").unwrap();
    assert_eq!(p.intents, []);
    assert_eq!(p.text, None);
    // Nor in the signature.
    let p = parse("BCA-7", "5878\n-- \nI resign from the club committee.").unwrap();
    assert_eq!(p.intents, []);
}

#[test]
fn the_game_is_the_game_line_or_the_subject() {
    assert_eq!(
        parse("Re: AW: BCA-7: 16... 4842", "").unwrap().game,
        GameId::new("BCA-7")
    );
    assert_eq!(
        parse("Re: Game BCA-7", "").unwrap().game,
        GameId::new("BCA-7")
    );
    assert_eq!(
        parse("[BCA] RE: BCA-7: 2. 7163", "").unwrap().game,
        GameId::new("BCA-7")
    );
    assert_eq!(
        parse("Hello", "Game: WS/2026/3").unwrap().game,
        GameId::new("WS/2026/3")
    );
    // A subject's first word without a digit is no game identifier.
    assert_eq!(parse("Hello Anna", "").unwrap().game, None);
    assert_eq!(parse("My move: 5878", "").unwrap().game, None);
}

#[test]
fn a_sender_contradicting_himself_is_unreadable() {
    assert_eq!(
        parse("BCA-7", "Move: 1... 5756\n1. 5254 5755").unwrap_err(),
        MessageError::Conflict {
            number: "1...".into(),
            first: "5756".into(),
            second: "5755".into()
        }
    );
    // Quoted and own text may differ: the own wins (checked against the game).
    assert!(parse("BCA-7", "1... 5756\n> 1. 5254 5755").is_ok());
}

#[test]
fn bounds_hold() {
    let huge = "1. 5254\n".repeat(MAX_BODY_BYTES / 8 + 10);
    assert!(parse("X-1", &huge).is_ok());
    let long_line = "a".repeat(5000);
    let p = parse("X-1", &format!("{long_line}\nhello")).unwrap();
    assert_eq!(p.text.as_deref(), Some("hello"));
    let many = "I offer a draw. I resign.\n".repeat(100);
    let p = parse("X-1", &many).unwrap();
    assert_eq!(p.intents, [Intent::OfferDraw, Intent::Resign]);
    let text = "words words\n".repeat(1000);
    let p = parse("X-1", &text).unwrap();
    assert!(p.text.unwrap().chars().count() <= MAX_TEXT_CHARS);
}

/// Free text with a line starting with `>` stays text: it is written behind a bar.
#[test]
fn quoted_looking_text_is_not_read_as_moves() {
    let mut m = message();
    m.text = Some(">1...1111\n>1111".into());
    let (subject, body) = compose(&m);
    assert!(body.ends_with("Message:\n| >1...1111\n| >1111\n"), "{body}");
    let p = parse(&subject, &body).unwrap();
    assert_eq!(p.text.as_deref(), Some("| >1...1111\n| >1111"));
}

#[test]
fn intents_are_written_in_the_form_and_in_words() {
    let mut m = message();
    m.intents = vec![
        Intent::OfferDraw,
        Intent::Leave {
            from: Date::new(2026, 12, 20).unwrap(),
            to: Date::new(2026, 12, 31).unwrap(),
        },
    ];
    let (subject, body) = compose(&m);
    assert!(
        body.contains("\nOffer: draw\nLeave: 2026-12-20 to 2026-12-31\n"),
        "{body}"
    );
    assert!(
        body.contains("\nI offer a draw.\nI am on leave from 2026-12-20 to 2026-12-31.\n"),
        "{body}"
    );
    let p = parse(&subject, &body).unwrap();
    assert_eq!(p.intents, m.intents);
    assert_eq!(p.text.as_deref(), m.text.as_deref());
}

#[test]
fn the_moves_as_written_for_a_log() {
    let p = parse(
        "Re: BCA-7: 2. 7163",
        "My move: 2.Sf3 (7163)\n> 1. 5254 5755\n",
    )
    .unwrap();
    assert_eq!(
        p.moves_as_written(),
        "quoted 1: 1. 5254 5755; 2. Sf3 (7163); subject: 2. 7163"
    );
}
