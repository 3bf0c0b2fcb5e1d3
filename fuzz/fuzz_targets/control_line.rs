//! Fuzz target: any bytes as a control request line, read in any built-in language: a command
//! or a refusal, never a panic; a command's keyword is the line's first word and one `help`
//! names; a refusal is one reply line; the permission checks answer for every role.
#![no_main]

use annabella::chess::language::Language;
use annabella::control::wire::RefusalLine;
use annabella::table::control::{self, KEYWORDS, Request, Role};
use libfuzzer_sys::fuzz_target;
use shakmaty::Color;

const ROLES: [Role; 5] = [
    Role::Player(Color::White),
    Role::Player(Color::Black),
    Role::Assistant,
    Role::Arbiter,
    Role::Observer,
];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, line)) = data.split_first() else {
        return;
    };
    let codes = Language::builtin_codes();
    let Ok(lang) = Language::builtin(codes[usize::from(selector) % codes.len()]) else {
        return;
    };
    match control::parse_line_in(line, lang) {
        Ok(command) => {
            // The parser only reads lines it could decode, so the text is UTF-8 here.
            let text = std::str::from_utf8(line).expect("a parsed line is UTF-8");
            let first = text
                .trim_end_matches('\r')
                .split_whitespace()
                .next()
                .unwrap_or("");
            assert_eq!(command.keyword(), first.to_ascii_lowercase(), "{text:?}");
            assert!(
                KEYWORDS
                    .to_string()
                    .split(", ")
                    .any(|k| k == command.keyword()),
                "help does not name {:?}",
                command.keyword()
            );
            for role in ROLES {
                let _ = control::permitted_to_role(role, command.spec());
                if let Request::Table(request) = &command {
                    for side in [Color::White, Color::Black] {
                        let _ = control::permitted(role, request, side);
                    }
                }
            }
            // English reads the same commands (piece names in English are read in any language).
            if selector % 7 == 0 {
                let _ = control::parse_line(line);
            }
        }
        Err(refusal) => {
            let reply = refusal.line();
            assert!(!reply.contains(['\n', '\r']), "{reply:?}");
            // Bounded whatever the line: an echoed argument is escaped at most tenfold.
            assert!(reply.len() <= 16 * control::MAX_LINE_BYTES, "{reply:?}");
        }
    }
});
