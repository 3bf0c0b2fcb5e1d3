//! What a player says in a game message besides his move: a draw offered, accepted or declined,
//! a resignation, a claim of the game on time, leave announced. Read from the opponent's mail
//! and written into the blind player's replies.

use super::parts::Date;

/// One thing a message says besides its move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Intent {
    /// "I offer a draw" (with or without a move).
    OfferDraw,
    /// "Draw accepted": the game is drawn by agreement.
    AcceptDraw,
    /// "Draw declined" (a move without an acceptance declines too).
    DeclineDraw,
    /// "I resign".
    Resign,
    /// "I claim the game on time": the other side's time is over.
    ClaimWinOnTime,
    /// Leave from the first date to the second, both included.
    Leave { from: Date, to: Date },
}
