//! What the detector reports: the conclusions, why a board is illegal, the touch-move warnings,
//! each with the words a player hears.

use std::fmt;

use shakmaty::{Color, Move, Piece, Role, Square};

use crate::corrections::{Correction, PieceName};
use annabella_chess::game::GameResult;
use annabella_chess::phrases::RefusalReason;

/// A move against the touch-move rules (FIDE 4.3, 4.4). `square`/`piece` name the touched piece
/// that decided the obligation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TouchMoveWarning {
    /// 4.3.2 (and 4.3.3): the first touched own piece that could move had to be moved.
    TouchedPieceNotMoved { square: Square, piece: Piece },
    /// 4.3.1 (and 4.3.3): the first touched opponent piece that could be captured had to be
    /// captured.
    TouchedPieceNotCaptured { square: Square, piece: Piece },
    /// 4.4.1: the king and then a rook were touched and castling with it was legal.
    CastlingRequired { king: Square, rook: Square },
    /// 4.4.2: the rook was touched before the king, so castling on that side was not allowed.
    CastledAfterTouchingRook { rook: Square },
}

impl fmt::Display for TouchMoveWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TouchMoveWarning::TouchedPieceNotMoved { square, piece } => write!(
                f,
                "the {} on {square} was touched first and had to be moved (FIDE 4.3)",
                PieceName(piece)
            ),
            TouchMoveWarning::TouchedPieceNotCaptured { square, piece } => write!(
                f,
                "the {} on {square} was touched and could have been captured, so it had to be \
                 (FIDE 4.3)",
                PieceName(piece)
            ),
            TouchMoveWarning::CastlingRequired { king, rook } => write!(
                f,
                "king {king} and then rook {rook} were touched: castling was legal and had to be \
                 made (FIDE 4.4.1)"
            ),
            TouchMoveWarning::CastledAfterTouchingRook { rook } => write!(
                f,
                "the rook on {rook} was touched before the king: no castling on that side this \
                 move (FIDE 4.4.2)"
            ),
        }
    }
}

impl TouchMoveWarning {
    /// What the player hears (the words come from the language file).
    pub fn spoken(&self) -> RefusalReason {
        match *self {
            TouchMoveWarning::TouchedPieceNotMoved { square, piece } => {
                RefusalReason::TouchedFirst { piece, square }
            }
            TouchMoveWarning::TouchedPieceNotCaptured { square, piece } => {
                RefusalReason::TouchedNotCaptured { piece, square }
            }
            TouchMoveWarning::CastlingRequired { .. } => RefusalReason::CastlingRequired,
            TouchMoveWarning::CastledAfterTouchingRook { .. } => RefusalReason::CastledAfterRook,
        }
    }
}

/// Why a settled board is no legal move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IllegalReason {
    /// A piece of `color`, the side not to move (or the side that does not move on this board),
    /// was moved.
    WrongSide { color: Color },
    /// The piece may move like that, but its own king would be (or stay) in check.
    LeavesKingInCheck {
        piece: Piece,
        from: Square,
        to: Square,
    },
    /// The piece does not move like that (or the way is blocked).
    CannotMoveThatWay {
        piece: Piece,
        from: Square,
        to: Square,
    },
    /// King and rook moved as in castling, but castling is not legal now.
    CastlingNotAllowed,
    /// Pieces stand where no single legal move puts them.
    PiecesDisplaced,
    /// The game is over: no move can be made.
    GameOver,
    /// Refused by the strict touch-move setting.
    TouchMove(TouchMoveWarning),
}

impl fmt::Display for IllegalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            IllegalReason::WrongSide { color } => write!(
                f,
                "a {} piece was moved, but it is not {}'s move on this board",
                color_word(color),
                color_word(color)
            ),
            IllegalReason::LeavesKingInCheck { piece, from, to } => {
                if piece.role == Role::King {
                    write!(f, "the {} would be in check on {to}", PieceName(piece))
                } else {
                    write!(
                        f,
                        "{} {from} to {to} would leave the {} king in check",
                        PieceName(piece),
                        color_word(piece.color)
                    )
                }
            }
            IllegalReason::CannotMoveThatWay { piece, from, to } => write!(
                f,
                "the {} cannot move from {from} to {to}",
                PieceName(piece)
            ),
            IllegalReason::CastlingNotAllowed => f.write_str("castling is not allowed now"),
            IllegalReason::PiecesDisplaced => {
                f.write_str("pieces are displaced: no legal move gives this position")
            }
            IllegalReason::GameOver => f.write_str("the game is over"),
            IllegalReason::TouchMove(w) => write!(f, "touch-move: {w}"),
        }
    }
}

impl IllegalReason {
    /// What the player hears (the words come from the language file): "der König stünde im
    /// Schach".
    pub fn spoken(&self) -> RefusalReason {
        match *self {
            IllegalReason::WrongSide { color } => RefusalReason::WrongSide(color),
            IllegalReason::LeavesKingInCheck { piece, from, to } => {
                RefusalReason::KingInCheck { piece, from, to }
            }
            IllegalReason::CannotMoveThatWay { piece, from, to } => {
                RefusalReason::CannotMove { piece, from, to }
            }
            IllegalReason::CastlingNotAllowed => RefusalReason::Castling,
            IllegalReason::PiecesDisplaced => RefusalReason::Displaced,
            IllegalReason::GameOver => RefusalReason::GameOver,
            IllegalReason::TouchMove(w) => w.spoken(),
        }
    }
}

/// The colour as a word in a sentence.
fn color_word(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// What the detector concluded from the events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Conclusion {
    /// D.2.2: the player to move took this piece out of its hole (his own, or an opponent's
    /// piece). Reported once for his first own piece and once for the first opponent piece.
    Touched { square: Square, piece: Piece },
    /// D.2.3: a legal move was made. The caller plays it into the game (or calls `resync`).
    Moved {
        m: Move,
        warning: Option<TouchMoveWarning>,
    },
    /// The board performed the game's next owed move (the other side's move replicated).
    Replicated { m: Move },
    /// A pawn reached the last rank on a board that cannot see the new piece: waiting for
    /// [`MoveDetector::choose_promotion`](super::MoveDetector::choose_promotion) or a `K` key.
    PromotionPending { from: Square, to: Square },
    /// The board settled into something that is no legal move; the corrections bring it back to
    /// the game.
    Illegal {
        reason: IllegalReason,
        corrections: Vec<Correction>,
    },
    /// The board and the game disagree with no event sequence explaining it (power-up,
    /// reconnect, a wrong replication, a game changed by the table). `unverifiable`: the board
    /// only senses occupancy, so pieces could stand on the right holes and still be wrong.
    Mismatch {
        corrections: Vec<Correction>,
        unverifiable: bool,
    },
    /// The board at rest shows the game's position `plies` half-moves ago.
    Takeback { plies: usize },
    /// After an illegal move or a mismatch, the board matches the game again.
    InSync,
    /// The identity board is set up turned (Black at the connector); from now on it is read
    /// turned.
    Rotated,
    /// DGT's result gesture: both kings put on the centre squares (d4, d5, e4, e5), which no
    /// position allows — on the light squares (d5, e4) White won, on the dark ones (d4, e5)
    /// Black won, one on each a draw. A result offered on the board, for the arbiter to
    /// confirm, not a move.
    ResultOffered { result: GameResult },
}
