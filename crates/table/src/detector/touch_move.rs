//! Touched pieces (FIDE D.2.2: on the peg board touching is lifting) and the touch-move rules
//! (FIDE 4.3, 4.4): which touches are reported, which move the first touches obliged, and the
//! strict setting's refusal.

use shakmaty::{Bitboard, CastlingSide, Move, Piece, Position, Role, Square};

use super::table::{board_after, captured_square, moved_squares};
use super::{BoardKind, Conclusion, IllegalReason, MoveDetector, TouchMoveWarning};

/// The most touches remembered in one window: more than the pieces on a board is never needed,
/// and the cap keeps hostile input bounded.
const MAX_TOUCHES: usize = 64;

/// The pieces touched since the position last changed (the window).
#[derive(Debug, Clone, Default)]
pub(super) struct Touches {
    /// Squares already counted as touched in this window: a piece lifted twice is touched once.
    pub(super) touched: Bitboard,
    /// The touched pieces in the order they were touched (at most [`MAX_TOUCHES`]): the order
    /// decides the touch-move obligation.
    pub(super) touches: Vec<(Square, Piece)>,
    /// A `Touched` was reported for one of the mover's own pieces (reported once a window).
    pub(super) reported_own: bool,
    /// A `Touched` was reported for one of the opponent's pieces (reported once a window).
    pub(super) reported_opp: bool,
}

impl MoveDetector {
    /// Records a touch and reports the first own and the first opponent piece touched.
    pub(super) fn report_touch(&mut self, square: Square, piece: Piece, out: &mut Vec<Conclusion>) {
        if self.touch.touches.len() < MAX_TOUCHES {
            self.touch.touches.push((square, piece));
        }
        let own = piece.color == self.line.base.turn();
        let reported = if own {
            &mut self.touch.reported_own
        } else {
            &mut self.touch.reported_opp
        };
        if !*reported {
            *reported = true;
            out.push(Conclusion::Touched { square, piece });
        }
    }

    /// Touch-move (4.3, 4.4) for the move `m` given the pieces lifted in this window, in order.
    pub(super) fn touch_warning(&self, m: Move) -> Option<TouchMoveWarning> {
        let turn = self.line.base.turn();
        let pos = |sq: Square| self.touch.touches.iter().position(|&(s, _)| s == sq);
        if let Move::Castle { king, rook } = m
            && let (Some(k), Some(r)) = (pos(king), pos(rook))
            && r < k
        {
            return Some(TouchMoveWarning::CastledAfterTouchingRook { rook });
        }
        let own: Vec<(Square, Piece)> = self
            .touch
            .touches
            .iter()
            .copied()
            .filter(|(_, p)| p.color == turn)
            .collect();
        let opp: Vec<(Square, Piece)> = self
            .touch
            .touches
            .iter()
            .copied()
            .filter(|(_, p)| p.color != turn)
            .collect();
        if let [(king, kp), (rook, rp), ..] = own[..]
            && kp.role == Role::King
            && rp.role == Role::Rook
        {
            let castle = Move::Castle { king, rook };
            if m != castle && self.table.cands.iter().any(|c| c.m == castle) {
                return Some(TouchMoveWarning::CastlingRequired { king, rook });
            }
        }
        let moves_piece = |sq: Square| {
            self.table
                .cands
                .iter()
                .any(|c| moved_squares(c.m).contains(sq))
        };
        let can_capture = |from: Option<Square>, target: Square| {
            self.table.cands.iter().any(|c| {
                captured_square(c.m) == Some(target) && from.is_none_or(|f| c.m.from() == Some(f))
            })
        };
        let moved = moved_squares(m);
        let took = captured_square(m);
        let not_moved = |(square, piece): (Square, Piece)| {
            (!moved.contains(square))
                .then_some(TouchMoveWarning::TouchedPieceNotMoved { square, piece })
        };
        let not_taken = |(square, piece): (Square, Piece)| {
            (took != Some(square))
                .then_some(TouchMoveWarning::TouchedPieceNotCaptured { square, piece })
        };
        match (own.first(), opp.first()) {
            (None, None) => None,
            (Some(_), None) => own
                .iter()
                .copied()
                .find(|&(sq, _)| moves_piece(sq))
                .and_then(not_moved),
            (None, Some(_)) => opp
                .iter()
                .copied()
                .find(|&(sq, _)| can_capture(None, sq))
                .and_then(not_taken),
            (Some(&o), Some(&p)) => {
                if can_capture(Some(o.0), p.0) {
                    not_moved(o).or_else(|| not_taken(p))
                } else {
                    let first = self.touch.touches.iter().copied().find(|&(sq, piece)| {
                        if piece.color == turn {
                            moves_piece(sq)
                        } else {
                            can_capture(None, sq)
                        }
                    })?;
                    if first.1.color == turn {
                        not_moved(first)
                    } else {
                        not_taken(first)
                    }
                }
            }
        }
    }

    /// Strict touch-move: the move does not stand. After rook-then-king castling the rook move
    /// stands if it is legal on its own (4.4.2 forbids the castling, not the rook move).
    pub(super) fn refuse(&mut self, m: Move, w: TouchMoveWarning, out: &mut Vec<Conclusion>) {
        // The board shows the refused move: the corrections must undo it. On an occupancy
        // board the belief may still name the pieces as if put back (a Chess960 king and rook
        // that swapped holes leave the occupancy unchanged), which would give no correction.
        let shown = board_after(self.line.base.board(), self.line.base.turn(), m);
        if let (Move::Castle { king, rook }, TouchMoveWarning::CastledAfterTouchingRook { .. }) =
            (m, w)
        {
            let side = CastlingSide::from_king_side(king < rook);
            let rook_to = side.rook_to(self.line.base.turn());
            let rook_move = Move::Normal {
                role: Role::Rook,
                from: rook,
                capture: None,
                to: rook_to,
                promotion: None,
            };
            if rook != rook_to && self.line.base.is_legal(rook_move) {
                out.push(Conclusion::Moved {
                    m: rook_move,
                    warning: None,
                });
                self.advance(rook_move, true);
            }
        }
        if self.kind == BoardKind::Occupancy && self.pegs.occ == shown.occupied() {
            // The pegs are read as the move refused: each is the piece that move put there.
            self.pegs.belief = shown;
            self.pegs.forget_unsure();
        }
        self.report_wrong(Some(IllegalReason::TouchMove(w)), out);
    }
}
