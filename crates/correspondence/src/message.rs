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
//! - `lines`: a body's lines sorted: quoted, quote headers and blocks, signatures.
//! - `claims`: the moves a line or subject claims, as written.
//! - `intent_words`: intents in words and in the form's fields.
//! - `read`: a message read back.
//! - `check`: its claims interpreted in the game.
//! - `ear`: a message summed up for the blind player.
//! - `intent`: what a message says besides its move (a draw offer, a resignation, …).

mod check;
mod claims;
mod compose;
mod ear;
#[cfg(test)]
mod fixtures;
mod intent;
mod intent_words;
mod lines;
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
    use proptest::prelude::*;
    use shakmaty::Position;

    use super::*;

    /// A game of `plies` random legal moves (fewer if it ends), chosen by `picks`.
    fn random_game(picks: &[u8]) -> Game {
        let mut g = Game::new();
        for &p in picks {
            let legal = g.position().legal_moves();
            if legal.is_empty() || g.is_over() {
                break;
            }
            g.play(legal[p as usize % legal.len()]).unwrap();
        }
        g
    }

    fn intent_strategy() -> impl Strategy<Value = Intent> {
        prop_oneof![
            Just(Intent::OfferDraw),
            Just(Intent::AcceptDraw),
            Just(Intent::DeclineDraw),
            Just(Intent::Resign),
            Just(Intent::ClaimWinOnTime),
            (0u32..300, 0u32..30).prop_map(|(a, len)| Intent::Leave {
                from: Date::from_unix_ms((20_000 + i64::from(a)) * 86_400_000),
                to: Date::from_unix_ms((20_000 + i64::from(a + len)) * 86_400_000),
            }),
        ]
    }

    proptest::proptest! {
        /// Any text: no panic, whatever the game and language it is checked against.
        #[test]
        fn any_text_reads_without_panic(
            subject in "[ -~]{0,40}",
            body in "((> ?)*([0-9]{1,3}\\.{1,3} ?)?([1-8]{4}|[NSKQRBD]?[a-h][1-8]|O-O)[ \n,()]|Game: [A-Z]-[0-9]\n|Message: |-- \n|On x wrote:\n|I offer a draw[.?]\n|[ -~]{0,12}\n){0,40}",
            picks in proptest::collection::vec(any::<u8>(), 0..12),
        ) {
            if let Ok(p) = parse(&subject, &body) {
                let game = random_game(&picks);
                for lang in Language::all_builtin() {
                    let _ = check_against(&p, &game, lang);
                }
            }
        }

        /// A composed message reads back: its game, new move, intents and text.
        #[test]
        fn composed_messages_read_back(
            picks in proptest::collection::vec(any::<u8>(), 1..40),
            intents in proptest::collection::vec(intent_strategy(), 0..3),
            text in proptest::option::of("[A-Za-z][A-Za-z ,]{0,30}(\n[A-Za-z][A-Za-z ,]{0,30}){0,3}"),
            id in "[A-Z]{1,4}-[0-9]{1,3}",
        ) {
            let game = random_game(&picks);
            prop_assume!(game.ply_count() > 0);
            let mut unique = Vec::new();
            for i in intents {
                if !unique.contains(&i) {
                    unique.push(i);
                }
            }
            let m = GameMessage {
                game: GameId::new(&id).unwrap(),
                white: "Anna".into(),
                black: "Bob".into(),
                record: game_record(&game),
                received: None,
                sent: Date::from_unix_ms(0),
                used_days: 2,
                total_days: [3, 4],
                text: text.clone(),
                intents: unique.clone(),
            };
            let (s, b) = compose(&m);
            let back = parse(&s, &b).unwrap();
            prop_assert_eq!(back.game.as_ref(), Some(&m.game));
            let mut before = Game::new();
            for &mv in &game.moves()[..game.ply_count() - 1] {
                before.play(mv).unwrap();
            }
            let last = *game.moves().last().unwrap();
            prop_assert_eq!(
                check_against(&back, &before, Language::english()),
                Verdict::NewMove { ply: game.ply_count() - 1, mv: last }
            );
            prop_assert_eq!(check_against(&back, &game, Language::german()), Verdict::NothingNew { behind: 0 });
            // The text's own words may say an intent too ("I offer a draw" is not generated).
            prop_assert_eq!(&back.intents, &unique);
            let trimmed = text.as_deref().map(str::trim).filter(|t| !t.is_empty()).map(|t| {
                t.lines().map(str::trim).collect::<Vec<_>>().join("\n")
            });
            prop_assert_eq!(back.text, trimmed);
        }
    }

    #[test]
    fn no_game_named_is_none() {
        let p = parse("Hello", "1. 5254").unwrap();
        assert_eq!(p.game, None);
        let m = GameMessage {
            game: GameId::new("BCA-7").unwrap(),
            white: "A".into(),
            black: "B".into(),
            record: Vec::new(),
            received: None,
            sent: Date::from_unix_ms(0),
            used_days: 0,
            total_days: [0, 0],
            text: None,
            intents: vec![Intent::OfferDraw],
        };
        let (s, b) = compose(&m);
        let back = parse(&s, &b).unwrap();
        assert_eq!(back.intents, [Intent::OfferDraw]);
        assert_eq!(
            check_against(&back, &Game::new(), Language::english()),
            Verdict::NoMove
        );
    }
}
