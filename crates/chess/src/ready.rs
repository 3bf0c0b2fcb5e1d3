//! What an appliance without a screen says at start: on each voiced output, whom that output
//! is for ("annabella bereit. Lautsprecher für den blinden Spieler"), and the web page's address
//! in words ("Seite: hundertzweiundneunzig Punkt hundertachtundsechzig Punkt eins Punkt zwanzig,
//! Port siebentausendvierhundertachtzig"), so that each player knows which ear or speaker is his
//! and the arbiter can open the page without a screen on the box (docs/appliance.md).

use crate::phrases::number_phrase;
use crate::vocabulary::{Vocabulary, fill};

/// Whom an output serves, as the ready phrase names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadyListeners {
    pub blind: bool,
    pub opponent: bool,
    pub arbiter: bool,
}

/// The output's listeners in the language's words: "the blind player", "the opponent and the
/// arbiter", "everyone" (all three, or none named).
fn listeners_phrase(l: ReadyListeners, v: &Vocabulary) -> String {
    let word = |key: &str| v.event(key).unwrap_or(key).to_owned();
    let names: Vec<String> = [
        (l.blind, "ready_blind"),
        (l.opponent, "ready_opponent"),
        (l.arbiter, "ready_arbiter"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, key)| word(key))
    .collect();
    match names.as_slice() {
        [] | [_, _, _] => word("ready_everyone"),
        [one] => one.clone(),
        [rest @ .., last] => fill(
            v.event("ready_and").unwrap_or("{first}, {second}"),
            &[("first", &rest.join(", ")), ("second", last)],
        ),
    }
}

/// "annabella ready. Speaker for the blind player": the first words of an output.
pub fn ready_phrase(listeners: ReadyListeners, v: &Vocabulary) -> String {
    fill(
        v.event("ready").unwrap_or("{listeners}"),
        &[("listeners", &listeners_phrase(listeners, v))],
    )
}

/// "Web page: one hundred ninety-two dot one hundred sixty-eight dot one dot twenty, port seven
/// thousand four hundred eighty": the page's address in words (no digits, which voices misread).
/// The address comes as its four numbers (an IPv4 address's octets): the core names no
/// network type.
pub fn page_phrase(address: [u8; 4], port: u16, v: &Vocabulary) -> String {
    let dot = format!(" {} ", v.event("ready_dot").unwrap_or("."));
    let address = address
        .iter()
        .map(|o| number_phrase(u32::from(*o), v))
        .collect::<Vec<_>>()
        .join(&dot);
    fill(
        v.event("ready_page").unwrap_or("{address}, {port}"),
        &[
            ("address", &address),
            ("port", &number_phrase(u32::from(port), v)),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::language::Language;

    fn lang(code: &str) -> &'static Language {
        Language::all_builtin()
            .iter()
            .find(|l| l.code() == code)
            .unwrap()
    }

    const BLIND: ReadyListeners = ReadyListeners {
        blind: true,
        opponent: false,
        arbiter: false,
    };

    #[test]
    fn each_output_names_its_listeners() {
        let de = lang("de").vocabulary();
        assert_eq!(
            ready_phrase(BLIND, de),
            "annabella bereit. Lautsprecher für den blinden Spieler"
        );
        let two = ReadyListeners {
            blind: false,
            opponent: true,
            arbiter: true,
        };
        assert_eq!(
            ready_phrase(two, de),
            "annabella bereit. Lautsprecher für den Gegner und den Schiedsrichter"
        );
        let all = ReadyListeners {
            blind: true,
            opponent: true,
            arbiter: true,
        };
        assert_eq!(
            ready_phrase(all, lang("en").vocabulary()),
            "annabella ready. Speaker for everyone"
        );
    }

    #[test]
    fn the_page_address_is_said_in_words() {
        let de = lang("de").vocabulary();
        let said = page_phrase([192, 168, 1, 20], 7480, de);
        assert!(said.starts_with("Seite: "), "{said}");
        assert!(said.contains(" Punkt eins Punkt zwanzig, Port "), "{said}");
        assert!(!said.chars().any(|c| c.is_ascii_digit()), "{said}");
    }

    #[test]
    fn every_built_in_language_says_it_without_digits_or_placeholders() {
        for l in Language::all_builtin() {
            let v = l.vocabulary();
            for said in [ready_phrase(BLIND, v), page_phrase([10, 0, 0, 7], 7480, v)] {
                assert!(!said.contains('{'), "{}: {said}", l.code());
                assert!(!said.chars().any(|c| c.is_ascii_digit()), "{said}");
            }
        }
    }
}
