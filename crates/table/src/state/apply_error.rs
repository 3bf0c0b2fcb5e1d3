//! Why a journal record did not apply to the table's state: refused live (nothing changed, the
//! request is refused) or found in a journal being replayed (the journal is not this table's).

use shakmaty::uci::{IllegalUciMoveError, UciMove};

use crate::clock::ClockError;
use crate::reconcile::Side;
use annabella_chess::game::{ClaimRefused, GameError};
use annabella_correspondence::day_clock::LeaveError;

/// A record that does not apply, and why; the text is what the arbiter and the log read.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ApplyError {
    /// A new table's start position (its settings) is no position.
    #[error("table {table}: start position: {why}")]
    StartPosition { table: String, why: GameError },
    #[error("begin in the middle of a game")]
    BeginMidGame,
    #[error("{uci} is illegal here: {why}")]
    IllegalMove {
        uci: UciMove,
        why: IllegalUciMoveError,
    },
    #[error("sheet {side}: {uci} is illegal there: {why}")]
    IllegalOnSheet {
        side: Side,
        uci: UciMove,
        why: IllegalUciMoveError,
    },
    #[error("the clock refused the press: {0}")]
    Press(ClockError),
    #[error("{0}")]
    Clock(#[from] ClockError),
    #[error("{0}")]
    Game(#[from] GameError),
    #[error("{0}")]
    Claim(#[from] ClaimRefused),
    #[error("no move to withdraw")]
    NoMoveToWithdraw,
    #[error("retract to {plies} half-moves, but the game has {has}")]
    RetractPastEnd { plies: usize, has: usize },
    #[error("only a correspondence game counts its time in days")]
    NotInDays,
    #[error("{0}")]
    Leave(#[from] LeaveError),
}
