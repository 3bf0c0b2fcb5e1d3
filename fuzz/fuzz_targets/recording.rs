//! Fuzz target: any text as a board recording (`simulate-board --record`, read by `replay`) for
//! each protocol: read or refused, never a panic; its stamps never go back; its chunks written
//! again as recording lines read back as the same chunks; and the chunks replayed through the
//! protocol's decoder and a board session, as `replay` does, never panic.
#![no_main]

use annabella::boards::{self, Millis, Protocol};
use annabella::chess::game::Game;
use annabella::cli::board_session::BoardSession;
use annabella::io::recording::{self, Chunk};
use annabella::table::detector::TouchMove;
use libfuzzer_sys::fuzz_target;

const PROTOCOLS: [Protocol; 4] = [
    Protocol::Peg,
    Protocol::Dgt,
    Protocol::Millennium,
    Protocol::Certabo,
];

/// The recording's own line format (`docs` of `io::recording`): `@<ms> <line>` for a peg
/// board, `@<ms> <hex bytes>` for the others.
fn write(protocol: Protocol, chunks: &[Chunk]) -> String {
    let mut out = format!("# annabella board recording: {protocol}\n");
    for (ms, bytes) in chunks {
        if protocol == Protocol::Peg {
            out.push_str(&format!("@{ms} {}", String::from_utf8_lossy(bytes)));
        } else {
            let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
            out.push_str(&format!("@{ms} {}\n", hex.join(" ")));
        }
    }
    out
}

fuzz_target!(|input: (u8, &str)| {
    let (selector, text) = input;
    let protocol = PROTOCOLS[usize::from(selector) % PROTOCOLS.len()];
    let Ok(chunks) = recording::parse(text, protocol) else {
        return;
    };
    assert!(
        chunks.windows(2).all(|w| w[0].0 <= w[1].0),
        "time went back"
    );
    if protocol == Protocol::Peg {
        for (_, bytes) in &chunks {
            // One line each: the text of a recording line and its line feed.
            assert_eq!(bytes.iter().filter(|&&b| b == b'\n').count(), 1);
            assert_eq!(bytes.last(), Some(&b'\n'));
        }
    }
    let written = write(protocol, &chunks);
    assert!(recording::is_text_recording(written.as_bytes()));
    assert_eq!(
        recording::parse(&written, protocol).as_ref(),
        Ok(&chunks),
        "{written:?}"
    );

    // Replayed as `replay` does, stamps and all.
    let touch_move =
        [TouchMove::Off, TouchMove::Warn, TouchMove::Strict][usize::from(selector / 4) % 3];
    let mut session = BoardSession::new(
        protocol,
        Game::new(),
        touch_move,
        Millis::from(selector % 50),
    );
    let mut decoder = boards::decoder(protocol);
    let mut decoded = Vec::new();
    let mut lines = Vec::new();
    let mut now: Millis = 0;
    for (ms, bytes) in chunks.iter().take(1024) {
        now = now.max(*ms);
        session.poll(now, &mut lines);
        decoder.feed(bytes, now, &mut decoded);
        for item in decoded.drain(..) {
            if let Ok(e) = &item {
                now = now.max(e.at);
            }
            session.feed(item, true, &mut lines);
        }
        lines.clear();
    }
    decoder.finish(now, &mut decoded);
    for item in decoded.drain(..) {
        session.feed(item, false, &mut lines);
    }
    session.finish(&mut lines);
});
