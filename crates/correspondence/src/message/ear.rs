//! A message summed up for the ear: the game, who moved, the move in words and the time used,
//! in the blind player's language.

use shakmaty::{Color, Move};

use annabella_chess::game::Game;
use annabella_chess::language::Language;
use annabella_chess::notation::Style;
use annabella_chess::phrases::{
    color_phrase, duration_phrase, fill_count, move_phrase, number_phrase,
};
use annabella_chess::vocabulary::fill;

use super::parts::{GameId, numbered};
use super::read::ParsedMessage;

/// A message's new move in one sentence for the blind player: the game, who moved, the move
/// numbered and in words, and the time used ("Partie BCA-7, Bob: Zug sechzehn, Schwarz:
/// Springer …; Bedenkzeit drei Tage"). `game` is the game before the move, `mv` the move
/// [`super::check_against`] found (legal in `game`).
pub fn summary_for_ear(
    msg: &ParsedMessage,
    game_id: &GameId,
    game: &Game,
    mv: Move,
    lang: &Language,
) -> String {
    let v = lang.vocabulary();
    let word = |key: &str| v.event(key).unwrap_or(key).to_owned();
    let (number, color) = numbered(game.ply_count());
    let spoken = move_phrase(game.position(), mv, &Style::new(lang));
    let player = match color {
        Color::White => msg.white.clone(),
        Color::Black => msg.black.clone(),
    }
    .unwrap_or_else(|| color_phrase(color, v));
    let numbered_move = fill(
        &word("key_move"),
        &[
            ("number", &number_phrase(number, v)),
            ("color", &color_phrase(color, v)),
            ("move", &spoken),
        ],
    );
    let mut out = fill(
        &word("mail_move"),
        &[
            ("game", game_id.as_str()),
            ("player", &player),
            ("move", &numbered_move),
        ],
    );
    if let Some(used) = time_used_for_ear(msg, lang) {
        out.push_str("; ");
        out.push_str(&used);
    }
    out
}

/// The time the sender says he used, for the ear ("Bedenkzeit drei Tage"), if he says it.
pub fn time_used_for_ear(msg: &ParsedMessage, lang: &Language) -> Option<String> {
    let v = lang.vocabulary();
    let days = msg.used_days?;
    // The clock's own words for days ([words.time] day_one/days): "drei Tage"; none used
    // (an answer the same day) is "null Tage", not "null Sekunden".
    let days = match (days, &v.time().days) {
        (0, Some(template)) => fill_count(template, 0, v),
        _ => duration_phrase(u64::from(days) * 86_400_000, v),
    };
    let template = v.event("mail_time_used").unwrap_or("mail_time_used");
    Some(fill(template, &[("days", &days)]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::check::{Verdict, check_against};
    use crate::message::compose::compose;
    use crate::message::fixtures::{RUY, game_of, message, moves};
    use crate::message::read::parse;

    #[test]
    fn the_summary_speaks_the_move_and_the_time() {
        let (subject, body) = compose(&message());
        let p = parse(&subject, &body).unwrap();
        let before = game_of(&moves(RUY)[..15]);
        let Verdict::NewMove { mv, .. } = check_against(&p, &before, Language::german()) else {
            panic!()
        };
        let id = p.game.clone().unwrap();
        let de = summary_for_ear(&p, &id, &before, mv, Language::german());
        assert!(
            de.starts_with("Partie BCA-7, Bob Jones: Zug acht, Schwarz: "),
            "{de}"
        );
        assert!(de.contains("Rochade"), "{de}");
        assert!(de.ends_with("Bedenkzeit drei Tage"), "{de}");
        let en = summary_for_ear(&p, &id, &before, mv, Language::english());
        assert!(en.contains("BCA-7") && en.contains("eight"), "{en}");
        let mut one = p.clone();
        one.used_days = Some(1);
        let de = time_used_for_ear(&one, Language::german()).unwrap();
        assert_eq!(de, "Bedenkzeit ein Tag");
    }
}
