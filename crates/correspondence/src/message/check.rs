//! A message's record checked against the game: one new legal move, nothing new, or where
//! the two disagree.

use std::fmt;

use shakmaty::{Color, Move};

use annabella_chess::game::Game;
use annabella_chess::language::Language;
use annabella_chess::notation::{Notation, Style, format_move, parse_move};

use super::compose::record_text;
use super::parts::{IccfMove, numbered};

/// A message's record against the game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The record is the game and one move more: that move, legal, at half-move `ply`.
    NewMove { ply: usize, mv: Move },
    /// The record is the game or an earlier part of it (a repeat, an old message): `behind`
    /// half-moves short of the game.
    NothingNew { behind: usize },
    /// The record is not the game: reported, not applied.
    Disagrees(Disagreement),
}

/// Why a message's record is not the game, with both records quoted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement {
    /// The first move that differs (`16...`), or the first the game lacks.
    pub first: String,
    pub reason: String,
    pub message_record: String,
    pub game_record: String,
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the message's record disagrees with the game at {}: {}; message: {}; game: {}",
            self.first, self.reason, self.message_record, self.game_record
        )
    }
}

fn number_label(ply: usize) -> String {
    match numbered(ply) {
        (n, Color::White) => format!("{n}."),
        (n, Color::Black) => format!("{n}..."),
    }
}

/// The game's moves in ICCF numeric notation, as a message records them.
pub fn game_record(game: &Game) -> Vec<IccfMove> {
    let mode = game.castling_mode();
    let style = Style::new(Language::english());
    game.replay()
        .filter_map(|(pos, m)| IccfMove::new(&format_move(&pos, mode, m, Notation::Iccf, &style)))
        .collect()
}

/// Compares a message's record with the game's moves, move by move, in the game's positions.
pub fn check_against(record: &[IccfMove], game: &Game) -> Verdict {
    let mode = game.castling_mode();
    let lang = Language::english();
    let game_record = game_record(game);
    let disagree = |ply: usize, reason: String| {
        Verdict::Disagrees(Disagreement {
            first: number_label(ply),
            reason,
            message_record: record_text(record),
            game_record: record_text(&game_record),
        })
    };
    let played = game.moves().len();
    for (ply, ((pos, m), written)) in game.replay().zip(record).enumerate() {
        match parse_move(&pos, mode, written.as_str(), Some(Notation::Iccf), lang) {
            Ok(read) if read == m => {}
            Ok(_) => {
                return disagree(
                    ply,
                    format!(
                        "the message has {written}, the game {}",
                        game_record.get(ply).map_or("?", IccfMove::as_str)
                    ),
                );
            }
            Err(e) => {
                return disagree(
                    ply,
                    format!("the message's {written} is not legal there: {e}"),
                );
            }
        }
    }
    match record.len() {
        n if n <= played => Verdict::NothingNew { behind: played - n },
        n if n == played + 1 => {
            let written = &record[played];
            match parse_move(
                game.position(),
                mode,
                written.as_str(),
                Some(Notation::Iccf),
                lang,
            ) {
                Ok(mv) if !game.is_over() => Verdict::NewMove { ply: played, mv },
                Ok(_) => disagree(played, "the game is over".to_owned()),
                Err(e) => disagree(played, format!("{written} is not legal: {e}")),
            }
        }
        n => disagree(
            played,
            format!(
                "the message has {} moves the game lacks: a message may be missing",
                n - played
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::fixtures::{RUY, game_of, moves};

    #[test]
    fn the_record_is_checked_against_the_game() {
        let full = moves(RUY);
        let game = game_of(&full[..15]);
        match check_against(&full, &game) {
            Verdict::NewMove { ply, mv } => {
                assert_eq!(ply, 15);
                assert!(mv.is_castle(), "{mv:?}");
            }
            v => panic!("{v:?}"),
        }
        assert_eq!(
            check_against(&full[..15], &game),
            Verdict::NothingNew { behind: 0 }
        );
        assert_eq!(
            check_against(&full[..14], &game),
            Verdict::NothingNew { behind: 1 }
        );
        // A different sixth move for Black: both records quoted, 6... named.
        let mut other = full.clone();
        other[11] = IccfMove::new("7776").unwrap();
        let Verdict::Disagrees(d) = check_against(&other, &game) else {
            panic!()
        };
        assert_eq!(d.first, "6...");
        assert!(d.message_record.contains("6. 6151 7776"), "{d}");
        assert!(d.game_record.contains("6. 6151 2725"), "{d}");
        assert!(d.reason.contains("7776"), "{d}");
        // An illegal new move and a record two moves ahead.
        let mut illegal = full[..15].to_vec();
        illegal.push(IccfMove::new("1114").unwrap());
        assert!(
            matches!(check_against(&illegal, &game), Verdict::Disagrees(d) if d.first == "8...")
        );
        let ahead = game_of(&full[..13]);
        assert!(
            matches!(check_against(&full, &ahead), Verdict::Disagrees(d) if d.reason.contains("missing"))
        );
    }
}
