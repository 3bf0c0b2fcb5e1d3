//! Fuzz target: any bytes as a whole mail file in a Maildir's `new/`: read as RFC 5322 or
//! refused, never a panic; what is read goes the mail desk's way (read as a game message,
//! checked against games, summed up, its move put to the table as a request); and a message
//! composed from it, written as a MIME file with its subject and body encoded, reads back as
//! the same subject, body and record.
#![no_main]

use annabella::chess::game::Game;
use annabella::chess::language::Language;
use annabella::correspondence::message::{self, Date, GameMessage};
use annabella::io::maildir;
use annabella::table::control;
use libfuzzer_sys::fuzz_target;
use shakmaty::Color;

fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ABC[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A subject as RFC 2047 encoded words of at most 45 bytes each, folded.
fn encoded_subject(subject: &str) -> String {
    let mut words = Vec::new();
    let mut start = 0;
    while start < subject.len() {
        let mut end = (start + 45).min(subject.len());
        while !subject.is_char_boundary(end) {
            end -= 1;
        }
        words.push(format!(
            "=?utf-8?b?{}?=",
            base64(&subject.as_bytes()[start..end])
        ));
        start = end;
    }
    words.join("\r\n ")
}

fn mail_file(subject: &str, body: &str) -> Vec<u8> {
    let mut text = format!(
        "From: Bob <bob@example.org>\r\nTo: alice@example.org\r\nSubject: {}\r\n\
         Date: Fri, 27 Nov 2026 13:00:00 +0000\r\nMessage-ID: <1@example.org>\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Transfer-Encoding: base64\r\n\r\n",
        encoded_subject(subject)
    );
    let encoded = base64(body.as_bytes());
    for line in encoded.as_bytes().chunks(76) {
        text.push_str(std::str::from_utf8(line).unwrap_or_default());
        text.push_str("\r\n");
    }
    text.into_bytes()
}

fuzz_target!(|data: &[u8]| {
    let Ok(mail) = maildir::parse_message(data, "1764248400.M1P1.host") else {
        return;
    };
    assert_eq!(mail.file, "1764248400.M1P1.host");
    let Ok(parsed) = message::parse(&mail.subject, &mail.body) else {
        return;
    };

    // The desk's way: the record against the start and against a game under way.
    let start = Game::new();
    let mut played = Game::new();
    for m in ["e2e4", "e7e5", "g1f3"] {
        let uci: shakmaty::uci::UciMove = m.parse().expect("a UCI move");
        let m = uci.to_move(played.position()).expect("legal");
        played.play(m).expect("legal");
    }
    for game in [&start, &played] {
        let _ = message::check_against(&parsed.record, game);
    }
    for lang in Language::all_builtin() {
        let _ = message::summary_for_ear(&parsed, &start, lang);
        let _ = message::time_used_for_ear(&parsed, lang);
    }
    if let Some((number, color, text)) = parsed.newest_move() {
        let line = match color {
            Color::White => format!("move {number}. {text}"),
            Color::Black => format!("move {number}... {text}"),
        };
        assert!(control::parse_line(line.as_bytes()).is_ok(), "{line:?}");
    }

    // Composed again and sent as a file, it reads back as it was composed.
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
    let (subject, body) = message::compose(&again);
    let file = mail_file(&subject, &body);
    let read = maildir::parse_message(&file, "again").expect("a composed message file is mail");
    assert_eq!(read.subject, subject);
    assert_eq!(read.body, body);
    assert_eq!(read.from.as_deref(), Some("bob@example.org"));
    let back = message::parse(&read.subject, &read.body).expect("a composed message reads back");
    assert_eq!(back.record, parsed.record);
});
