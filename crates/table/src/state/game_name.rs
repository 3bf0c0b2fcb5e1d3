//! A correspondence game's name for the ear: by the opponent and the blind player's colour
//! ("gegen Carol King, Sie haben Schwarz"), the game's identifier only when the opponent's
//! name is not known. Used by the desk's view and by the table's own announcements.

use shakmaty::Color;

use annabella_chess::phrases::color_phrase;
use annabella_chess::vocabulary::{Vocabulary, fill};

/// A correspondence game for the ear: "gegen Carol King, Sie haben Schwarz", by the
/// opponent's name and the blind player's colour; "Partie BCA-7" when the name is not known.
pub fn spoken_name(
    opponent: Option<&str>,
    his_color: Color,
    game_id: &str,
    vocab: &Vocabulary,
) -> String {
    let word = |key: &str| vocab.event(key).unwrap_or(key).to_owned();
    match opponent.map(str::trim).filter(|n| !n.is_empty()) {
        Some(name) => fill(
            &word("desk_against"),
            &[
                ("opponent", name),
                ("color", &color_phrase(his_color, vocab)),
            ],
        ),
        None => fill(&word("desk_game"), &[("game", game_id)]),
    }
}
