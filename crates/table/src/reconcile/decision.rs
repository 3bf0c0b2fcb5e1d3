//! What the reconciliation decided and why, as data: the sheets' verdict with the moves that decide it, each board's corrections and doubts, the clocks. No words: [`explain`](super::explain) writes them.

use shakmaty::{CastlingMode, Chess, Move};

use super::Side;
use super::resolution::{ClockAdjustment, Unverifiable, Used};
use super::sheet::BadEntry;
use crate::corrections::Correction;

/// A move as a sheet holds it: the position it was played from, so that any notation can name it.
#[derive(Debug, Clone)]
pub struct Played {
    pub before: Chess,
    pub mv: Move,
}

/// What a sheet holds at the first half-move after the ones both sheets agree on.
#[derive(Debug, Clone)]
pub enum Next {
    /// A legal move that the other sheet does not have there.
    Move(Played),
    /// An entry that is no legal move, as written.
    NoMove(String),
    /// The sheet ends there.
    Nothing,
}

/// What the two sheets say, with the moves each reason names.
#[derive(Debug, Clone)]
pub enum SheetDecision {
    /// Both sheets hold the same `plies` half-moves; `last` is the last of them (`None`: both
    /// are empty).
    Agree { plies: usize, last: Option<Played> },
    /// One sheet is a strict prefix of the other.
    Lagging(Lag),
    /// The sheets agree on the first `agreed` half-moves (the last `last`) and then differ, as
    /// `next` shows for sheet a and b; `disputed`: the lagging player disputed the missing moves.
    Differ {
        agreed: usize,
        disputed: Option<Side>,
        next: [Next; 2],
        last: Option<Played>,
    },
}

/// `side`'s sheet holds the first `has` of the `of` half-moves of the other and nothing that
/// contradicts them: the boards must show the longer sheet's position, after `last`.
#[derive(Debug, Clone)]
pub struct Lag {
    pub side: Side,
    pub has: usize,
    pub of: usize,
    pub last: Option<Played>,
    /// The moves `side`'s sheet lacks, read out to him.
    pub missing: Vec<Played>,
    /// One missing half-move is normal play (FIDE 8.1.3); more break that rule but still
    /// contradict nothing.
    pub within_8_1_3: bool,
    /// The last move `side`'s sheet holds: where the game goes back if he disputes.
    pub back_to: Option<Played>,
}

/// Where the pieces believed in a peg board's holes come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdentitySource {
    /// The caller's belief (the daemon's move detector).
    Believed,
    /// The position both boards must show, nearest to the pegs.
    Target,
    /// Sheet `side` after that many half-moves, nearest to the pegs.
    Sheet(Side, usize),
}

/// One board's part of the decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardDecision {
    /// The board senses only pegs, not pieces.
    pub pegs_only: bool,
    /// The fewest hand actions, in the order a hand can follow.
    pub corrections: Vec<Correction>,
    /// The same actions with a piece named for each peg the board cannot identify.
    pub named: Vec<Correction>,
    /// Holes whose piece a peg board cannot confirm (empty for identity boards).
    pub unverifiable: Vec<Unverifiable>,
    /// For a peg board, where the pieces believed in its holes come from.
    pub identities_from: Option<IdentitySource>,
}

impl BoardDecision {
    /// The board shows the position (a peg board: its pegs do).
    pub fn correct(&self) -> bool {
        self.corrections.is_empty()
    }
}

/// The clocks put back, with what they had counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockDecision {
    pub adjustment: ClockAdjustment,
    /// Time each colour had used before the takeback.
    pub used_now: Used,
    /// Half-moves the clocks had counted.
    pub plies_now: usize,
}

/// Everything decided about two boards and two sheets (FIDE D.2.9), as data.
#[derive(Debug, Clone)]
pub struct Decision {
    pub mode: CastlingMode,
    /// Entries of sheet a and b that are no legal move.
    pub bad_entries: [Option<BadEntry>; 2],
    pub sheets: SheetDecision,
    /// Half-moves both boards must show (with a lagging sheet: the longer sheet's).
    pub agreed_plies: usize,
    /// The position both boards must show.
    pub position: Chess,
    /// The moves cut from sheet a and from sheet b (empty unless the sheets differ).
    pub retracted: [Vec<Move>; 2],
    pub boards: [BoardDecision; 2],
    /// What the clocks go back to, when the sheets differ and the clocks are known.
    pub clocks: Option<ClockDecision>,
}
