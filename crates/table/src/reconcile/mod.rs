//! Two boards, two scoresheets (FIDE D.2.9): where the sheets agree, what each board must show,
//! the hand actions that get it there, and what happens to the clocks — explained in words.
//!
//! # The procedure
//! Each side of a table has a board (as last observed: piece identity or pegs only) and a
//! scoresheet (moves, compared as moves, never as text). [`reconcile`] finds the longest common
//! prefix of the two sheets and decides one of three things ([`Verdict`]):
//! - **agree**: the sheets hold the same moves. The position is theirs; every board that shows
//!   something else is wrong and its player gets the corrections.
//! - **lagging**: one sheet is a strict prefix of the other. A player may reply before writing
//!   the last move down (FIDE 8.1.3), so this is no disagreement yet: the position is the longer
//!   sheet's and the missing moves are read to the player who lags, to confirm. If he disputes
//!   them the caller asks again with [`ReconcileInput::lag_disputed`], and the sheets differ.
//! - **differ**: the moves are taken back to the last half-move both sheets agree on; both
//!   boards are corrected to that position, both sheets are cut there (the cut moves are kept in
//!   the resolution for the record), and the clocks go back to the readings at that half-move.
//!
//! An entry that is no legal move (unreadable text, or a move the position does not allow) ends
//! what its sheet can agree with: it agrees with nothing, so the sheets differ there at the
//! latest ([`BadEntry`]).
//!
//! # Boards that see only pegs
//! The corrections come from [`corrections`](crate::corrections): the fewest hand
//! actions. A peg board cannot tell a knight from a bishop, so what stands in each hole is
//! *believed*: given by the caller (the daemon's move detector knows), or else inferred as the
//! position of either sheet whose pegs are nearest to the board's. A hole whose piece cannot be
//! vouched for, or where the belief and the position disagree on the piece, is reported as
//! [`Unverifiable`], never silently passed.
//!

mod board;
mod clocks;
mod decide;
mod decision;
mod explain;
mod record_entry;
mod replay;
mod resolution;
mod sheet;
#[cfg(test)]
mod tests;

use std::fmt;

pub use clocks::adjust_clocks;
pub use decide::decide;
pub use decision::{
    BoardDecision, ClockDecision, Decision, IdentitySource, Lag, Next, Played, SheetDecision,
};
pub use explain::{explain, explanation};
pub use resolution::{
    BoardInput, BoardResolution, ClockAdjustment, ClockBasis, ClockRecord, ReconcileInput,
    Resolution, Unverifiable, Used, Verdict,
};
pub use sheet::{BadEntry, MAX_SHEET_BYTES, MAX_SHEET_PLIES, Sheet, read_sheet};

/// One side of the table: its board and its scoresheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    A,
    B,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::A, Side::B];

    /// `a` or `b`, as the command line and the messages name it.
    pub fn letter(self) -> &'static str {
        match self {
            Side::A => "a",
            Side::B => "b",
        }
    }

    /// 0 for a, 1 for b: the index into `[a, b]` arrays.
    pub fn index(self) -> usize {
        match self {
            Side::A => 0,
            Side::B => 1,
        }
    }

    pub(super) fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.letter())
    }
}

/// Decides what two boards and two scoresheets mean (FIDE D.2.9), with every decision
/// explained. Pure and total: any sheets and boards give a resolution.
pub fn reconcile(input: &ReconcileInput) -> Resolution {
    explain(decide(input), input.languages)
}
