//! A correspondence game's email in the ICCF form: composed as plain text, read back leniently
//! from what people actually send (quoted replies, moves with or without numbers), checked
//! against the game, and summed up for the ear. Pure: no I/O, dates are parameters.
//!
//! The form (docs/correspondence-mail.md) follows the ICCF email playing guidelines — every
//! message carries the moves of the whole game, the dates of receipt and dispatch, and the time
//! used and accumulated by both players — and the BCA's rule that every move is preceded by its
//! dates of receipt and dispatch.
//!
//! - `parts`: the game's identifier, an ICCF move, a date.
//! - `compose`: a message composed.
//! - `read`: a message read back.
//! - `check`: its record checked against the game.
//! - `ear`: a message summed up for the blind player.
//! - `intent`: what a message says besides its move (a draw offer, a resignation, …).

mod check;
mod compose;
mod ear;
#[cfg(test)]
mod fixtures;
mod intent;
mod parts;
mod read;

pub use check::{Disagreement, Verdict, check_against, game_record};
pub use compose::{GameMessage, compose, record_lines, record_text};
pub use ear::{summary_for_ear, time_used_for_ear};
pub use intent::Intent;
pub use parts::{
    Date, GameId, IccfMove, MAX_DAYS, MAX_GAME_ID_CHARS, MAX_NAME_CHARS, MAX_TEXT_CHARS,
};
pub use read::{MAX_BODY_BYTES, MessageError, ParsedMessage, parse};

#[cfg(test)]
mod tests {
    use annabella_chess::game::Game;
    use annabella_chess::language::Language;

    use super::*;

    proptest::proptest! {
        /// Any text: no panic, and what reads composes to a message that reads back the same.
        #[test]
        fn any_text_reads_without_panic(
            subject in "[ -~]{0,40}",
            body in "((> ?)*([0-9]{1,3}\\.{1,3} ?)?[1-8]{4}[ \n,]|Game: [A-Z]-[0-9]\n|Message: |[ -~]{0,12}\n){0,40}",
        ) {
            if let Ok(p) = parse(&subject, &body) {
                let _ = check_against(&p.record, &Game::new());
                let _ = summary_for_ear(&p, &Game::new(), Language::german());
                let m = GameMessage {
                    game: p.game.clone(),
                    white: p.white.clone().unwrap_or_default(),
                    black: p.black.clone().unwrap_or_default(),
                    record: p.record.clone(),
                    received: p.received,
                    sent: p.sent.unwrap_or(Date::from_unix_ms(0)),
                    used_days: p.used_days.unwrap_or(0),
                    total_days: p.total_days.unwrap_or([0, 0]),
                    text: p.text.clone(),
                    intents: Vec::new(),
                };
                let (s, b) = compose(&m);
                let back = parse(&s, &b).unwrap();
                proptest::prop_assert_eq!(back.record, p.record);
                proptest::prop_assert_eq!(back.game, p.game);
            }
        }
    }
}
