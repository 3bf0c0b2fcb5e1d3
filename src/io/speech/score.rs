//! What a game's audio record holds, so that it stays a scoresheet (FIDE D.2.7): each move
//! once, numbered, in order; withdrawn moves marked; the result. Key answers, guidance, clock
//! calls and the set-up are not on a score (the transcript keeps everything said). Pure: the
//! speaker asks it, per game, before an output that records the score gets an utterance.

use std::collections::HashMap;

use shakmaty::Color;

use super::About;

/// What one game's record holds so far.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Score {
    /// Half-moves recorded (the next move to record is this one, 0-based).
    plies: u32,
}

impl Score {
    /// Whether `about` goes on the record, and notes it when it does. A move goes on once: the
    /// same move said again (to a second listener, in other words, or after a restart of the
    /// speech) is not a new line; after a withdrawal the moves from there go on again.
    pub fn takes(&mut self, about: About) -> bool {
        let ply = |number: u32, color: Color| {
            number.saturating_sub(1) * 2 + u32::from(color == Color::Black)
        };
        match about {
            About::Move { number, color } => {
                let p = ply(number, color);
                if p < self.plies {
                    return false;
                }
                self.plies = p + 1;
                true
            }
            About::Withdrawn { number, color } => {
                self.plies = self.plies.min(ply(number, color));
                true
            }
            About::Result => true,
            About::ClockCall { .. } | About::TimeAnswer | About::Desk | About::Other => false,
        }
    }
}

/// The scores of the games one output records, bounded: games end, and their notes need not
/// outlive a day of play.
#[derive(Debug, Default)]
pub struct Scores {
    games: HashMap<String, Score>,
}

/// Games whose notes are kept at once.
const MAX_GAMES: usize = 64;

impl Scores {
    /// Whether `about` goes on `game`'s record ([`Score::takes`]).
    pub fn takes(&mut self, game: &str, about: About) -> bool {
        if !self.games.contains_key(game) && self.games.len() >= MAX_GAMES {
            self.games.clear();
        }
        self.games.entry(game.to_owned()).or_default().takes(about)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(number: u32, color: Color) -> About {
        About::Move { number, color }
    }

    #[test]
    fn each_move_once_in_order_withdrawals_marked_and_nothing_else() {
        let mut s = Score::default();
        assert!(s.takes(mv(1, Color::White)));
        assert!(!s.takes(mv(1, Color::White)), "the second listener's copy");
        assert!(s.takes(mv(1, Color::Black)));
        assert!(!s.takes(About::Other), "a key answer, guidance");
        assert!(!s.takes(About::TimeAnswer));
        assert!(!s.takes(About::ClockCall {
            color: Color::White,
            remaining_ms: 1
        }));
        assert!(s.takes(mv(2, Color::White)));
        // 2.Nf3 withdrawn (undo): the record says so, and the next 2nd move goes on it.
        assert!(s.takes(About::Withdrawn {
            number: 2,
            color: Color::White
        }));
        assert!(s.takes(mv(2, Color::White)));
        assert!(!s.takes(mv(1, Color::Black)), "KH reading an old move");
        assert!(s.takes(About::Result));
    }

    #[test]
    fn games_are_kept_apart_and_bounded() {
        let mut scores = Scores::default();
        assert!(scores.takes("a", mv(1, Color::White)));
        assert!(scores.takes("b", mv(1, Color::White)));
        assert!(!scores.takes("a", mv(1, Color::White)));
        for i in 0..200 {
            assert!(scores.takes(&format!("g{i}"), mv(1, Color::White)));
        }
        assert!(scores.games.len() <= MAX_GAMES);
    }
}
