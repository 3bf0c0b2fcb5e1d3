//! The candidate table of one position: every move the board may show next, with the occupancy
//! it leaves, the pegs it moves, the piece it captures, and the partial states a hand passes
//! through on the way; and the move geometry (boards after a move, squares a move empties or
//! captures, reachability) the table and the judging are built from.
//!
//! The table is rebuilt once per position, so that each sensor event costs a few bitboard
//! comparisons against it.

use shakmaty::{
    Bitboard, Board, CastlingSide, Chess, Color, EnPassantMode, Move, MoveList, Piece, Position,
    Rank, Role, Square, attacks,
};

use super::line::Line;

/// Whose move the current table is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Turn {
    /// The side to move makes its move on this board.
    Own,
    /// The game is ahead: the board owes the game's next move.
    Owed,
    /// The other board's side is to move and nothing is owed yet: a legal move of that side
    /// here is a replication made before the table entered the move; wait for it.
    Anticipated,
}

/// A state a human passes through on the way to a candidate: one peg of two moved.
#[derive(Debug, Clone, Copy)]
pub(super) struct Partial {
    /// The candidate it leads to.
    pub(super) of: Move,
    /// The occupancy of the board in this state.
    pub(super) occ: Bitboard,
    /// The peg that has moved (origin, destination).
    pub(super) moved: (Square, Square),
    /// The hole whose peg still has to move (the other castling piece, or the pawn taken en
    /// passant).
    pub(super) waiting: Square,
}

/// One candidate move. Kept small and `Copy`: the table is rebuilt after every move.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cand {
    /// The move itself.
    pub(super) m: Move,
    /// The occupancy the board has once the move is made.
    pub(super) occ: Bitboard,
    /// Pegs that change holes (origin, destination); a castling piece that stays is left out.
    pub(super) pegs: [(Square, Square); 2],
    /// How many entries of `pegs` are used (0 to 2).
    pub(super) npegs: usize,
    /// The square of the piece the move captures (for en passant, not the destination).
    pub(super) captured: Option<Square>,
}

impl Cand {
    /// The pegs that change holes.
    pub(super) fn moved_pegs(&self) -> &[(Square, Square)] {
        &self.pegs[..self.npegs]
    }
}

/// Everything the detector compares the board with while the line stays at one position.
#[derive(Debug, Clone)]
pub(super) struct Table {
    /// Whether the candidates are the mover's own moves, the owed move or an anticipated one.
    pub(super) turn: Turn,
    /// The candidate moves: every legal move (own or anticipated turn, game not over), or just
    /// the owed move when the board owes one.
    pub(super) cands: Vec<Cand>,
    /// The half-made states of the candidates (castling with one piece moved, en passant with
    /// the taken pawn still there), which must not be judged as a board at rest.
    pub(super) partials: Vec<Partial>,
    /// Squares of pieces a capture could take: a lifted peg from there is set aside, not in
    /// the hand.
    pub(super) capturable: Bitboard,
    /// The game's current board (after the owed moves): what corrections aim at.
    pub(super) target: Board,
}

impl Table {
    /// An empty table whose corrections aim at `board`; [`Table::rebuild`] fills it.
    pub(super) fn new(board: &Board) -> Table {
        Table {
            turn: Turn::Own,
            cands: Vec::new(),
            partials: Vec::new(),
            capturable: Bitboard::EMPTY,
            target: board.clone(),
        }
    }

    /// The table for the line's position. `mover`: the side that moves on this board, if only
    /// one does. `next_moves`: the legal moves of the position at a ply, when already computed
    /// (an identity board checking a reply); taken when they are for this ply's own move.
    pub(super) fn rebuild(
        &mut self,
        line: &Line,
        mover: Option<Color>,
        next_moves: &mut Option<(usize, MoveList)>,
    ) {
        let turn = line.base.turn();
        self.turn = if !line.owed.is_empty() {
            Turn::Owed
        } else if mover.is_none_or(|c| c == turn) {
            Turn::Own
        } else {
            Turn::Anticipated
        };
        self.target = if line.owed.is_empty() {
            line.base.board().clone()
        } else {
            let mut target = line.base.clone();
            for &m in &line.owed {
                if !target.is_legal(m) {
                    break;
                }
                target.play_unchecked(m);
            }
            target.board().clone()
        };
        self.cands.clear();
        self.partials.clear();
        let board = line.base.board();
        match self.turn {
            Turn::Owed => {
                let m = line.owed[0];
                if line.base.is_legal(m) {
                    self.cands
                        .push(candidate(board, turn, m, &mut self.partials));
                }
            }
            Turn::Own | Turn::Anticipated => {
                if !line.game_over {
                    let moves = match next_moves.take() {
                        Some((ply, moves)) if ply == line.ply => moves,
                        _ => line.base.legal_moves(),
                    };
                    for m in moves {
                        self.cands
                            .push(candidate(board, turn, m, &mut self.partials));
                    }
                }
            }
        }
        // Opponent pieces the mover attacks count as capturable even when the capture would be
        // illegal (a pinned piece): lifted, they are set aside, so an illegal capture settles
        // and is reported instead of waiting for ever.
        self.capturable = Bitboard::EMPTY;
        for role in Role::ALL {
            let piece = Piece { color: turn, role };
            for sq in board.by_piece(piece) {
                self.capturable |= attacks::attacks(sq, piece, board.occupied());
            }
        }
        self.capturable &= board.by_color(!turn);
        for c in &self.cands {
            if let Some(sq) = c.captured {
                self.capturable.add(sq);
            }
        }
    }
}

/// Squares whose content differs between two boards.
pub(super) fn squares_differing(a: &Board, b: &Board) -> Bitboard {
    let mut d = (a.white() ^ b.white()) | (a.black() ^ b.black());
    for role in Role::ALL {
        d |= a.by_role(role) ^ b.by_role(role);
    }
    d
}

/// Could `piece` go from `from` to `to` in `pos` if check did not matter?
pub(super) fn reachable(pos: &Chess, piece: Piece, from: Square, to: Square) -> bool {
    let board = pos.board();
    if board.by_color(piece.color).contains(to) {
        return false;
    }
    if piece.role != Role::Pawn {
        return attacks::attacks(from, piece, board.occupied()).contains(to);
    }
    let forward: i32 = if piece.color.is_white() { 8 } else { -8 };
    let step = from.offset(forward);
    if Some(to) == step {
        return !board.occupied().contains(to);
    }
    let start = piece.color.relative_rank(Rank::Second);
    if from.rank() == start
        && let Some(one) = step
        && Some(to) == one.offset(forward)
    {
        return !board.occupied().contains(one) && !board.occupied().contains(to);
    }
    attacks::pawn_attacks(piece.color, from).contains(to)
        && (board.by_color(!piece.color).contains(to)
            || pos.ep_square(EnPassantMode::PseudoLegal) == Some(to))
}

/// The holes a move empties of its own pieces (castling: king and rook).
pub(super) fn moved_squares(m: Move) -> Bitboard {
    match m {
        Move::Castle { king, rook } => Bitboard::from(king) | Bitboard::from(rook),
        _ => m.from().map(Bitboard::from).unwrap_or(Bitboard::EMPTY),
    }
}

/// The square of the piece a move captures.
pub(super) fn captured_square(m: Move) -> Option<Square> {
    match m {
        Move::Normal {
            capture: Some(_),
            to,
            ..
        } => Some(to),
        Move::EnPassant { from, to } => Some(Square::from_coords(to.file(), from.rank())),
        _ => None,
    }
}

/// The board after `m` played by `color`, without a position (faster than playing it).
pub(super) fn board_after(board: &Board, color: Color, m: Move) -> Board {
    let mut b = board.clone();
    match m {
        Move::Normal {
            role,
            from,
            to,
            promotion,
            ..
        } => {
            b.discard_piece_at(from);
            b.set_piece_at(
                to,
                Piece {
                    color,
                    role: promotion.unwrap_or(role),
                },
            );
        }
        Move::EnPassant { from, to } => {
            b.discard_piece_at(from);
            b.discard_piece_at(Square::from_coords(to.file(), from.rank()));
            b.set_piece_at(to, color.pawn());
        }
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(king < rook);
            b.discard_piece_at(king);
            b.discard_piece_at(rook);
            b.set_piece_at(side.king_to(color), color.king());
            b.set_piece_at(side.rook_to(color), color.rook());
        }
        Move::Put { role, to } => b.set_piece_at(to, Piece { color, role }),
    }
    b
}

/// The candidate for `m`, and the partial states leading to it.
fn candidate(board: &Board, color: Color, m: Move, partials: &mut Vec<Partial>) -> Cand {
    let occ = board.occupied();
    let mut c = Cand {
        m,
        occ,
        pegs: [(Square::A1, Square::A1); 2],
        npegs: 0,
        captured: None,
    };
    match m {
        Move::Normal {
            from, to, capture, ..
        } => {
            c.pegs[0] = (from, to);
            c.npegs = 1;
            c.captured = capture.map(|_| to);
            c.occ = occ.without(from).with(to);
        }
        Move::EnPassant { from, to } => {
            let taken = Square::from_coords(to.file(), from.rank());
            c.pegs[0] = (from, to);
            c.npegs = 1;
            c.captured = Some(taken);
            c.occ = occ.without(from).without(taken).with(to);
            partials.push(Partial {
                of: m,
                occ: occ.without(from).with(to),
                moved: (from, to),
                waiting: taken,
            });
        }
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(king < rook);
            let (king_to, rook_to) = (side.king_to(color), side.rook_to(color));
            c.occ = occ.without(king).without(rook).with(king_to).with(rook_to);
            if king != king_to {
                c.pegs[c.npegs] = (king, king_to);
                c.npegs += 1;
            }
            if rook != rook_to {
                c.pegs[c.npegs] = (rook, rook_to);
                c.npegs += 1;
            }
            if king != king_to && rook != rook_to {
                // One piece moved, the other still at home; impossible when its destination
                // is the other's hole.
                if !occ.contains(king_to) {
                    partials.push(Partial {
                        of: m,
                        occ: occ.without(king).with(king_to),
                        moved: (king, king_to),
                        waiting: rook,
                    });
                }
                if !occ.contains(rook_to) {
                    partials.push(Partial {
                        of: m,
                        occ: occ.without(rook).with(rook_to),
                        moved: (rook, rook_to),
                        waiting: king,
                    });
                }
            }
        }
        Move::Put { to, .. } => c.occ = occ.with(to),
    }
    c
}
