//! Setting up a game's position on the shared peg board: from whatever the board holds, one
//! instruction at a time, in the fewest hand actions, followed through the board's sensors.
//!
//! A correspondence player has many games and one peg board. When he puts the board on another
//! game, the desk starts a [`SetupGuide`] from what it believes the board holds
//! ([`PegContents`]) to that game's position, says the first instruction, and hands it every
//! sensor event of the board; the guide answers with the next instruction when one is done, a
//! new plan when the player did something else, and [`Progress::Done`] when the board holds the
//! position. Pure: no I/O, no clock; the words come from the language files.
//!
//! - [`contents`]: what the desk believes each hole holds, followed through the hands.
//! - [`plan`]: the fewest hand actions and their order.

pub mod contents;
pub mod plan;

use std::collections::VecDeque;

use shakmaty::{Board, Square};

use annabella_boards::SensorEvent;
use annabella_chess::phrases::{self, fill_count, square_phrase};
use annabella_chess::vocabulary::{Vocabulary, fill};
pub use contents::{HAND_LIMIT, Peg, PegContents};
pub use plan::{Instruction, PLAN_LIMIT, plan};

/// What one sensor event meant for the set-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Nothing to say: the instruction is under way (a peg in the hand) or nothing changed.
    Pending,
    /// The instruction said last is done; this one comes next.
    Next(Instruction),
    /// The player did something else: the guidance starts again from what the board now
    /// holds, with this instruction.
    Replanned(Instruction),
    /// The board holds the position.
    Done,
}

/// Why "my board is set up" was not taken: the occupied holes differ from the position's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetupDiffers {
    /// How many holes are occupied where the position has none or empty where it has a piece.
    pub holes: u32,
}

/// The set-up of one position on the peg board, driven by the board's sensor events.
#[derive(Debug, Clone)]
pub struct SetupGuide {
    target: Board,
    contents: PegContents,
    /// The instructions still to do, the current one first.
    plan: VecDeque<Instruction>,
    /// The holes when the current instruction was said, and as they will be once it is done.
    said_at: PegContents,
    expected: PegContents,
    /// The peg the player last took off the board as told, and where from: put back into the
    /// same hole, it is that peg again, not an unknown one.
    boxed: Option<(Square, Peg)>,
}

impl SetupGuide {
    /// Starts guiding from `contents` to `target`: the guide and the first instruction, or
    /// `None` when the board already holds the position.
    pub fn new(contents: PegContents, target: Board) -> (SetupGuide, Option<Instruction>) {
        let mut guide = SetupGuide {
            target,
            said_at: contents.clone(),
            expected: contents.clone(),
            contents,
            plan: VecDeque::new(),
            boxed: None,
        };
        let first = guide.replan();
        (guide, first)
    }

    /// The position being set up.
    pub fn target(&self) -> &Board {
        &self.target
    }

    /// What the desk believes the board holds now.
    pub fn contents(&self) -> &PegContents {
        &self.contents
    }

    /// The belief, to keep once the guide is done (the next game's set-up starts from it).
    pub fn into_contents(self) -> PegContents {
        self.contents
    }

    /// The instruction to do now (to say again when asked), `None` when the board is set up.
    pub fn current(&self) -> Option<Instruction> {
        self.plan.front().copied()
    }

    /// The hand actions still to do, the current one included.
    pub fn remaining(&self) -> usize {
        self.plan.len()
    }

    /// Whether the board holds the position.
    pub fn is_done(&self) -> bool {
        self.contents.holds(&self.target)
    }

    /// Follows one sensor event of the board. Once [`Progress::Done`], the board belongs to
    /// the game again (its moves are the game's); a guide still fed events would plan afresh.
    pub fn observe(&mut self, event: &SensorEvent) -> Progress {
        let hand_was_empty = self.contents.held().is_empty();
        self.contents.observe(event);
        if let SensorEvent::Place(square) = *event {
            self.placed(square, hand_was_empty);
        }
        self.settle()
    }

    /// What the guide knows of a peg just put into `square` beyond what the sensors say.
    fn placed(&mut self, square: Square, hand_was_empty: bool) {
        let told = match self.current() {
            // A check ends with the peg back in its hole: the player confirmed the piece.
            Some(Instruction::Check { piece, square: s }) if s == square => Some(piece),
            // A piece from the box into the hole he was told.
            Some(Instruction::Place { piece, square: s }) if s == square && hand_was_empty => {
                Some(piece)
            }
            _ => None,
        };
        if let Some(piece) = told {
            self.contents.set(square, Some(Peg::Known(piece)));
        } else if hand_was_empty && let Some((s, peg)) = self.boxed.filter(|(s, _)| *s == square) {
            self.contents.set(s, Some(peg));
        }
        self.boxed = None;
    }

    /// The instruction done, still under way, or something else done.
    fn settle(&mut self) -> Progress {
        let current = self.current();
        let done = current.is_some() && self.contents.same_holes(&self.expected);
        if done {
            // A peg taken off as told went into the box, not back onto the board.
            if let Some(Instruction::Remove { square, .. }) = current
                && let Some(peg) = self.contents.drop_held()
            {
                self.boxed = Some((square, peg));
            }
            self.plan.pop_front();
        }
        if self.contents.holds(&self.target) {
            self.plan.clear();
            self.said();
            return Progress::Done;
        }
        if done {
            let next = match self.current() {
                Some(next) => {
                    self.said();
                    Some(next)
                }
                // Only a belief the plan did not foresee ends here short of the position.
                None => self.replan(),
            };
            return next.map_or(Progress::Done, Progress::Next);
        }
        let under_way = !self.contents.held().is_empty();
        if current.is_some() && (under_way || self.contents.same_holes(&self.said_at)) {
            return Progress::Pending;
        }
        self.replan().map_or(Progress::Done, Progress::Replanned)
    }

    /// Plans afresh from the belief: the first instruction, `None` when nothing is left.
    fn replan(&mut self) -> Option<Instruction> {
        self.plan = plan(&self.contents, &self.target).into();
        self.said();
        self.current()
    }

    /// The current instruction was said now: what it starts from and what it ends in.
    fn said(&mut self) {
        self.said_at = self.contents.clone();
        self.expected = self.contents.clone();
        if let Some(current) = self.current() {
            current.apply_to(&mut self.expected);
        }
    }

    /// Starts over from the board as the desk believes it, with an empty hand: for a player
    /// who asks for the instruction again after putting aside pegs no sensor saw go. The
    /// first instruction, `None` when the board is set up.
    pub fn restart(&mut self) -> Option<Instruction> {
        self.contents.empty_hand();
        self.boxed = None;
        self.replan()
    }

    /// The player's "my board is set up": when the occupied holes are exactly the position's,
    /// every peg is taken as the position's piece (his hands know his board better than the
    /// desk's belief); otherwise how many holes differ, and the guidance goes on.
    pub fn accept_as_is(&mut self) -> Result<(), SetupDiffers> {
        let differ = self.contents.occupancy() ^ self.target.occupied();
        if differ.any() {
            return Err(SetupDiffers {
                holes: differ.count() as u32,
            });
        }
        self.contents = PegContents::from_board(&self.target);
        self.plan.clear();
        self.boxed = None;
        self.said();
        Ok(())
    }
}

/// An instruction in the player's words, squares by their spoken names ("Springer von Gustav
/// eins nach Felix drei"); moves, removals and placements are the table's correction phrases.
pub fn instruction_phrase(instruction: &Instruction, v: &Vocabulary) -> String {
    match *instruction {
        Instruction::Move { piece, from, to } => {
            phrases::correction_move(piece.role, piece.color, from, to, v)
        }
        Instruction::Aside { piece, from, to } => piece_template(
            v,
            "setup_aside",
            piece,
            &[
                ("from", &square_phrase(from, v)),
                ("to", &square_phrase(to, v)),
            ],
        ),
        Instruction::Remove {
            piece: Some(piece),
            square,
        } => phrases::correction_remove(piece, square, v),
        Instruction::Remove {
            piece: None,
            square,
        } => fill(
            v.event("setup_remove_unknown").unwrap_or("{square}"),
            &[("square", &square_phrase(square, v))],
        ),
        Instruction::Place { piece, square } => phrases::correction_place(piece, square, v),
        Instruction::Check { piece, square } => piece_template(
            v,
            "setup_check",
            piece,
            &[("square", &square_phrase(square, v))],
        ),
    }
}

fn piece_template(
    v: &Vocabulary,
    key: &str,
    piece: shakmaty::Piece,
    squares: &[(&str, &str)],
) -> String {
    let mut args = vec![
        ("piece", v.piece(piece.role)),
        ("colored_piece", v.colored_piece(piece)),
    ];
    args.extend_from_slice(squares);
    fill(v.event(key).unwrap_or(key), &args)
}

/// How many hand actions the set-up takes ("zwölf Handgriffe"), said before the first.
pub fn steps_phrase(steps: usize, v: &Vocabulary) -> String {
    let key = if steps == 1 {
        "setup_step_one"
    } else {
        "setup_steps"
    };
    fill_count(v.event(key).unwrap_or("{n}"), steps as u64, v)
}

/// The board holds the position.
pub fn done_phrase(v: &Vocabulary) -> String {
    v.event("setup_done").unwrap_or("setup_done").to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use annabella_chess::language::Language;
    use shakmaty::Color;

    fn every_instruction() -> Vec<Instruction> {
        let n = Color::White.knight();
        vec![
            Instruction::Move {
                piece: n,
                from: Square::G1,
                to: Square::F3,
            },
            Instruction::Aside {
                piece: n,
                from: Square::G1,
                to: Square::H3,
            },
            Instruction::Remove {
                piece: Some(Color::Black.pawn()),
                square: Square::E5,
            },
            Instruction::Remove {
                piece: None,
                square: Square::E5,
            },
            Instruction::Place {
                piece: Color::Black.queen(),
                square: Square::D8,
            },
            Instruction::Check {
                piece: n,
                square: Square::B1,
            },
        ]
    }

    #[test]
    fn instructions_in_german() {
        let de = Language::german().vocabulary();
        let said: Vec<String> = every_instruction()
            .iter()
            .map(|i| instruction_phrase(i, de))
            .collect();
        assert_eq!(
            said,
            [
                "Springer von Gustav eins nach Felix drei",
                "Springer von Gustav eins vorerst nach Hector drei",
                "Bauer Eva fünf entfernen",
                "die Figur auf Eva fünf entfernen",
                "schwarze Dame auf David acht stellen",
                "weißen Springer auf Bella eins prüfen und kurz anheben",
            ]
        );
        assert_eq!(steps_phrase(1, de), "ein Handgriff");
        assert_eq!(steps_phrase(21, de), "einundzwanzig Handgriffe");
        assert_eq!(done_phrase(de), "Stellung aufgebaut");
    }

    #[test]
    fn instructions_in_every_language() {
        for code in ["de", "en", "es", "fr", "it", "nl", "pt"] {
            let v = Language::builtin(code).unwrap().vocabulary();
            let mut texts: Vec<String> = every_instruction()
                .iter()
                .map(|i| instruction_phrase(i, v))
                .collect();
            texts.extend([steps_phrase(1, v), steps_phrase(14, v), done_phrase(v)]);
            for text in texts {
                assert!(
                    !text.is_empty() && !text.contains('{') && !text.contains("setup_"),
                    "{code}: {text}"
                );
                assert!(!text.chars().any(|c| c.is_ascii_digit()), "{code}: {text}");
            }
        }
    }
}
