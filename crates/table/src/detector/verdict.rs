//! What both kinds of board share once a move is made or the board comes to rest: concluding a
//! move, a promotion waiting for its piece, and judging a board that shows no move — in sync
//! again, a takeback, illegal (with why) or a mismatch, with the corrections back to the game —
//! including the first snapshot after a power-up or a reconnect.

use shakmaty::{Bitboard, Board, CastlingSide, Color, Move, Piece, Position, Rank, Role, Square};

use super::identity::CENTRE;
use super::table::{Turn, board_after, captured_square, reachable};
use super::{BoardKind, Conclusion, IllegalReason, MoveDetector, TouchMove};
use crate::corrections::Correction;
use annabella_chess::game::GameResult;

/// A pawn on the last rank waiting for its piece to be named.
#[derive(Debug, Clone, Default)]
pub(super) struct Promotion {
    /// The pawn's move (from, to) while the board shows it on the last rank.
    pub(super) waiting: Option<(Square, Square)>,
    /// A piece named before the pawn arrived (the key pressed first): the promotion is
    /// concluded with it as soon as the pawn stands there.
    pub(super) preselected: Option<Role>,
    /// The pending promotion was seen in a snapshot after a reconnect, not in events: the key
    /// concludes it without the lift and place that events would have shown.
    pub(super) from_snapshot: bool,
}

/// What was last reported wrong about the board.
#[derive(Debug, Clone, Default)]
pub(super) struct Reported {
    /// An illegal move or a mismatch was reported and the board has not matched since: the
    /// next match is reported as `InSync`.
    pub(super) out_of_sync: bool,
    /// The board state last reported as illegal, mismatch or takeback (see `report_key`), so
    /// that a board that stays wrong is not reported on every event.
    pub(super) last: Option<(Bitboard, Board, usize)>,
    /// How many corrections the board needed when last judged wrong: while it is out of sync,
    /// a state needing no more is a correction being followed, not a new wrong move.
    pub(super) fixes: usize,
    /// The board was found showing an earlier position of the game (a takeback the game did
    /// not make): until it shows the game again, the player is redoing moves the game has,
    /// so a step that happens to look like a move of his is a correction, never a move.
    pub(super) taken_back: bool,
    /// How many of the mover's pieces stood off their squares when the board was last judged
    /// wrong (0 while it is right): the pieces displaced since are what his hand did last.
    pub(super) own_displaced: usize,
}

/// The board's link to the daemon, as far as the detector must know it.
#[derive(Debug, Clone)]
pub(super) struct Link {
    /// The next snapshot is compared with the game, not explained by events (power-up,
    /// reconnect).
    pub(super) fresh: bool,
    /// That snapshot follows a reconnect: the board agreed with the game before it went away,
    /// so one legal move that explains the snapshot was made meanwhile.
    pub(super) back_from_away: bool,
}

impl Link {
    /// A board just switched on: its first snapshot is compared with the game.
    pub(super) fn power_up() -> Link {
        Link {
            fresh: true,
            back_from_away: false,
        }
    }
}

/// What a snapshot after a reconnect shows beyond the game.
enum Away {
    /// One legal move of the board's player.
    Move(Move),
    /// A pawn on the last rank of an occupancy board: from, to.
    Promotion(Square, Square),
}

impl MoveDetector {
    /// A move the board shows: replicated when owed, `Moved` (with its touch-move warning, or
    /// refused under strict touch-move) when it is the board's own; an anticipated move waits.
    pub(super) fn conclude(&mut self, m: Move, out: &mut Vec<Conclusion>) {
        match self.table.turn {
            // A held move that the table overtook with another move is not the owed one: the
            // board is then judged against the game at rest.
            Turn::Owed if self.line.owed.first() != Some(&m) => {}
            Turn::Owed => {
                out.push(Conclusion::Replicated { m });
                self.advance(m, false);
            }
            Turn::Anticipated => {}
            Turn::Own if self.reported.taken_back => {}
            Turn::Own => {
                let warning = if self.kind == BoardKind::Occupancy
                    && self.settings.touch_move != TouchMove::Off
                {
                    self.touch_warning(m)
                } else {
                    None
                };
                match (self.settings.touch_move, warning) {
                    (TouchMove::Strict, Some(w)) => self.refuse(m, w, out),
                    (_, warning) => {
                        out.push(Conclusion::Moved { m, warning });
                        self.advance(m, true);
                    }
                }
            }
        }
        self.touches_held_back(out);
    }

    /// The piece for the pending promotion: concludes it if the board still shows the pawn on
    /// the last rank; chosen before the pawn got there, it is kept for this move.
    pub(super) fn promote(&mut self, role: Role, out: &mut Vec<Conclusion>) {
        if matches!(role, Role::Pawn | Role::King) {
            return;
        }
        let Some((from, to)) = self.promotion.waiting else {
            if self.table.turn == Turn::Own {
                self.promotion.preselected = Some(role);
            }
            return;
        };
        let m = Move::Normal {
            role: Role::Pawn,
            from,
            capture: self.line.base.board().piece_at(to).map(|p| p.role),
            to,
            promotion: Some(role),
        };
        // The board must still show the pawn on the last rank.
        let shown = self.table.cands.iter().any(|c| {
            c.m == m
                && match self.kind {
                    BoardKind::Occupancy => {
                        c.occ == self.pegs.occ
                            && (self.promotion.from_snapshot || self.consistent(c))
                    }
                    BoardKind::Identity => {
                        self.pawn_waiting() == Some((from, to)) || self.shows_after(c)
                    }
                }
        });
        if shown {
            self.promotion.waiting = None;
            self.conclude(m, out);
        }
    }

    /// A pawn stands on the last rank: concluded with a piece chosen in advance, else reported
    /// pending (once).
    pub(super) fn promotion_reached(
        &mut self,
        from: Square,
        to: Square,
        out: &mut Vec<Conclusion>,
    ) {
        if let Some(role) = self.promotion.preselected
            && let Some(c) = self.table.cands.iter().find(|c| {
                c.m.from() == Some(from) && c.m.to() == to && c.m.promotion() == Some(role)
            })
        {
            let m = c.m;
            self.conclude(m, out);
            return;
        }
        if self.promotion.waiting != Some((from, to)) {
            self.promotion.waiting = Some((from, to));
            if self.table.turn == Turn::Own {
                out.push(Conclusion::PromotionPending { from, to });
            }
        }
    }

    /// What identifies a wrong board already reported: the occupancy, the pieces as far as
    /// known, and the game ply it is judged against.
    fn report_key(&self) -> (Bitboard, Board, usize) {
        let board = match self.kind {
            BoardKind::Occupancy => self.pegs.belief.clone(),
            BoardKind::Identity => self.pieces.observed.clone(),
        };
        (
            self.current_occ(),
            board,
            self.line.ply + self.line.owed.len(),
        )
    }

    /// The occupied squares, whatever the board senses.
    fn current_occ(&self) -> Bitboard {
        match self.kind {
            BoardKind::Occupancy => self.pegs.occ,
            BoardKind::Identity => self.pieces.observed.occupied(),
        }
    }

    /// The board stands as it did when last reported wrong.
    pub(super) fn already_reported(&self) -> bool {
        self.reported.last.as_ref() == Some(&self.report_key())
    }

    /// The fewest hand actions that bring the board to the game's position.
    fn corrections_now(&self) -> Vec<Correction> {
        self.corrections_to(&self.table.target)
    }

    /// Reports a board that stands wrong: with `reason` as illegal, without as a mismatch.
    pub(super) fn report_wrong(
        &mut self,
        reason: Option<IllegalReason>,
        out: &mut Vec<Conclusion>,
    ) {
        let corrections = self.corrections_now();
        self.reported.fixes = corrections.len();
        out.push(match reason {
            Some(reason) => Conclusion::Illegal {
                reason,
                corrections,
            },
            None => Conclusion::Mismatch {
                corrections,
                unverifiable: self.kind == BoardKind::Occupancy,
            },
        });
        self.reported.out_of_sync = true;
        self.reported.last = Some(self.report_key());
        self.reported.own_displaced = self.own_displaced();
    }

    /// How many of the side to move's pieces are no longer where the game has them (lifted,
    /// or another piece believed in their square).
    fn own_displaced(&self) -> usize {
        let base = &self.line.history[self.line.ply];
        let turn = self.line.base.turn();
        let (seen, occ) = match self.kind {
            BoardKind::Occupancy => (&self.pegs.belief, self.pegs.occ),
            BoardKind::Identity => (&self.pieces.observed, self.pieces.observed.occupied()),
        };
        base.by_color(turn)
            .into_iter()
            .filter(|&sq| {
                !occ.contains(sq)
                    || seen
                        .piece_at(sq)
                        .is_some_and(|p| Some(p) != base.piece_at(sq))
            })
            .count()
    }

    /// Two or more of his own pieces displaced since the board was last right (or last judged
    /// wrong), with no legal reading: knocked, not moved. A real attempted move displaces one
    /// of his pieces (two only when castling, which `classify` reads as such); a board
    /// problem is no illegal move, which at a tournament implies a penalty (issue 24).
    fn own_pieces_knocked(&self) -> bool {
        let before = if self.reported.out_of_sync {
            self.reported.own_displaced
        } else {
            0
        };
        self.own_displaced() >= before + 2
    }

    /// The board matches the position the detector expects it at.
    pub(super) fn back_at_base(&mut self, out: &mut Vec<Conclusion>) {
        self.pieces.pending = None;
        self.pieces.later_touches = Bitboard::EMPTY;
        self.pieces.eval_at = None;
        self.promotion.waiting = None;
        self.reported.last = None;
        self.reported.taken_back = false;
        self.reported.own_displaced = 0;
        if self.kind == BoardKind::Occupancy {
            // The holes are the game's: whatever the hand guessed while the board was wrong,
            // the pegs are the game's pieces now (a guess must never keep a right board wrong).
            self.pegs.belief = self.line.history[self.line.ply].clone();
            self.pegs.forget_unsure();
        }
        if self.reported.out_of_sync {
            self.reported.out_of_sync = false;
            if self.table.turn != Turn::Owed {
                out.push(Conclusion::InSync);
            }
        }
    }

    /// The board shows `position` as far as it can see: the same occupancy on an occupancy
    /// board, the same pieces on an identity board.
    fn shows(&self, position: &Board) -> bool {
        match self.kind {
            BoardKind::Occupancy => self.pegs.occ == position.occupied(),
            BoardKind::Identity => self.pieces.observed == *position,
        }
    }

    /// A board at rest that shows no move: takeback, or wrong.
    pub(super) fn settled(&mut self, explained: bool, out: &mut Vec<Conclusion>) {
        if self.shows(&self.line.history[self.line.ply]) {
            self.back_at_base(out);
            return;
        }
        if self.table.turn == Turn::Owed && self.shows(&self.table.target) {
            // Every owed move replicated by a path the events do not explain (a snapshot, a
            // board faster than its scan): the board shows the game, so take it as such.
            self.jump_to_game();
            self.pegs.belief = self.table.target.clone();
            self.back_at_base(out);
            return;
        }
        if self.already_reported() || self.taking_back_a_capture() {
            return;
        }
        if let Some(result) = self.result_gesture() {
            out.push(Conclusion::ResultOffered { result });
            self.reported.out_of_sync = true;
            self.reported.fixes = self.corrections_now().len();
            self.reported.last = Some(self.report_key());
            return;
        }
        if let Some(k) = (0..self.line.ply)
            .rev()
            .find(|&k| self.shows(&self.line.history[k]))
        {
            out.push(Conclusion::Takeback {
                plies: self.line.ply + self.line.owed.len() - k,
            });
            self.reported.out_of_sync = true;
            self.reported.taken_back = true;
            self.reported.fixes = self.corrections_now().len();
            self.reported.last = Some(self.report_key());
            self.reported.own_displaced = self.own_displaced();
            return;
        }
        if explained && self.reported.out_of_sync {
            // The board was reported wrong and the player is putting it right, one correction
            // at a time: a state no further from the game is a correction followed, never a
            // move, and the table guides him on ([`Conclusion::InSync`] when the board is right
            // again). Only a board that got further from the game is judged again.
            let left = self.corrections_now().len();
            if left <= self.reported.fixes {
                self.reported.fixes = left;
                self.reported.last = Some(self.report_key());
                return;
            }
        }
        let reason = (explained && self.table.turn != Turn::Owed)
            .then(|| self.classify())
            // A piece knocked over or a peg dropped is a board problem, not an illegal move
            // (which at a tournament implies a penalty). At a table (only his side moves on
            // this board) an opponent's piece in another hole on his turn is knocked; on a
            // board where both sides move it is a move of the wrong side. Two or more of his
            // own pieces displaced at once, with no reading as one move, are knocked too.
            .filter(|reason| {
                self.kind != BoardKind::Occupancy
                    || !(self.extra_peg()
                        || (self.knocked()
                            && (!self.pegs.hand.is_empty() || self.settings.mover.is_some()))
                        || (*reason == IllegalReason::PiecesDisplaced && self.own_pieces_knocked()))
            });
        self.report_wrong(reason, out);
    }

    /// DGT's result gesture on an identity board: both kings on centre squares, which no
    /// position allows (the four squares touch each other). Light squares (d5, e4): White won;
    /// dark (d4, e5): Black won; one of each: a draw. Where the other pieces stand does not
    /// matter (they may have been moved aside to make room).
    fn result_gesture(&self) -> Option<GameResult> {
        if self.kind != BoardKind::Identity {
            return None;
        }
        let board = &self.pieces.observed;
        let king = |color: Color| {
            let kings = board.kings() & board.by_color(color);
            (kings.count() == 1 && kings.is_subset(CENTRE)).then(|| kings.first())?
        };
        let (white, black) = (king(Color::White)?, king(Color::Black)?);
        Some(match (white.is_light(), black.is_light()) {
            (true, true) => GameResult::WhiteWins,
            (false, false) => GameResult::BlackWins,
            _ => GameResult::Draw,
        })
    }

    /// The board shows the position before the last move except for the piece that move
    /// captured: a takeback on its way (the captured piece is put back last, since its hole
    /// was taken).
    fn taking_back_a_capture(&self) -> bool {
        let Some(&last) = self
            .line
            .ply
            .checked_sub(1)
            .and_then(|i| self.line.moves.get(i))
        else {
            return false;
        };
        let Some(taken) = captured_square(last) else {
            return false;
        };
        let mut before = self.line.history[self.line.ply - 1].clone();
        before.discard_piece_at(taken);
        self.shows(&before)
    }

    /// The first snapshot after power-up or a reconnect: no events explain it.
    pub(super) fn fresh_compare(&mut self, out: &mut Vec<Conclusion>) {
        let away = std::mem::take(&mut self.link.back_from_away);
        if self.shows(&self.table.target) {
            self.jump_to_game();
            self.pegs.belief = self.table.target.clone();
            self.back_at_base(out);
            return;
        }
        if self.shows(&self.line.history[self.line.ply]) {
            self.pegs.belief = self.line.history[self.line.ply].clone();
            self.back_at_base(out);
            return;
        }
        self.jump_to_game();
        match self.made_while_away(away) {
            // The board shows exactly one move its player may make: made while it was away
            // (unplugged, switched off), so it counts as made now. Anything less certain is a
            // mismatch: never a guess.
            Some(Away::Move(m)) => {
                if self.kind == BoardKind::Occupancy {
                    self.pegs.belief =
                        board_after(self.line.base.board(), self.line.base.turn(), m);
                }
                self.conclude(m, out);
                return;
            }
            // A pawn on the last rank of an occupancy board: the promotion is pending again,
            // and the key (or the control interface) names the piece.
            Some(Away::Promotion(from, to)) => {
                let mut belief = self.line.base.board().clone();
                if let Some(pawn) = belief.remove_piece_at(from) {
                    belief.discard_piece_at(to);
                    belief.set_piece_at(to, pawn);
                }
                self.pegs.belief = belief;
                self.promotion.from_snapshot = true;
                self.promotion_reached(from, to, out);
                return;
            }
            None => {}
        }
        self.pegs.belief = Board::empty();
        self.fill_belief();
        self.report_wrong(None, out);
    }

    /// The one legal move of this board's player that leaves the board as observed, if there
    /// is exactly one; on an occupancy board, a promotion whose piece it cannot see.
    fn made_while_away(&self, away: bool) -> Option<Away> {
        if !away || self.table.turn != Turn::Own || self.line.game_over {
            return None;
        }
        let found: Vec<Move> = self
            .table
            .cands
            .iter()
            .filter(|c| match self.kind {
                BoardKind::Occupancy => c.occ == self.pegs.occ,
                BoardKind::Identity => {
                    board_after(self.line.base.board(), self.line.base.turn(), c.m)
                        == self.pieces.observed
                }
            })
            .map(|c| c.m)
            .collect();
        match found.as_slice() {
            [m] if !(self.kind == BoardKind::Occupancy && m.is_promotion()) => Some(Away::Move(*m)),
            [first, rest @ ..]
                if self.kind == BoardKind::Occupancy
                    && first.is_promotion()
                    && rest
                        .iter()
                        .all(|m| m.from() == first.from() && m.to() == first.to()) =>
            {
                Some(Away::Promotion(first.from()?, first.to()))
            }
            _ => None,
        }
    }

    /// Why the settled board is no legal move, as precisely as the board shows it.
    fn classify(&self) -> IllegalReason {
        if self.line.game_over {
            return IllegalReason::GameOver;
        }
        let base = self.line.history[self.line.ply].clone();
        let turn = self.line.base.turn();
        let (seen, occ) = match self.kind {
            BoardKind::Occupancy => (&self.pegs.belief, self.pegs.occ),
            BoardKind::Identity => (&self.pieces.observed, self.pieces.observed.occupied()),
        };
        // Squares that gained a piece (maybe of unknown identity), and pieces that left.
        let mut arrivals: Vec<(Square, Option<Piece>)> = Vec::new();
        let mut departures: Vec<(Square, Piece)> = Vec::new();
        for sq in occ | base.occupied() {
            let was = base.piece_at(sq);
            let is = if occ.contains(sq) {
                seen.piece_at(sq)
            } else {
                None
            };
            let now_occupied = occ.contains(sq);
            if let Some(w) = was
                && (!now_occupied || is.is_some_and(|p| p != w))
            {
                departures.push((sq, w));
            }
            if now_occupied && (was.is_none() || is.is_some_and(|p| Some(p) != was)) {
                arrivals.push((sq, is));
            }
        }
        if let Some(&(_, Some(p))) = arrivals
            .iter()
            .find(|(_, p)| p.is_some_and(|p| p.color != turn))
        {
            return IllegalReason::WrongSide { color: p.color };
        }
        if self.table.turn == Turn::Anticipated
            && let Some(&(_, p)) = departures.iter().find(|(_, p)| p.color != turn)
            && arrivals
                .iter()
                .all(|(_, a)| a.is_none_or(|a| a.color != turn))
        {
            return IllegalReason::WrongSide { color: p.color };
        }
        let own: Vec<(Square, Piece)> = departures
            .iter()
            .copied()
            .filter(|(_, p)| p.color == turn)
            .collect();
        if own.iter().any(|(_, p)| p.role == Role::King)
            && own.iter().any(|(_, p)| p.role == Role::Rook)
            && arrivals.iter().any(|&(sq, _)| {
                sq == CastlingSide::KingSide.king_to(turn)
                    || sq == CastlingSide::QueenSide.king_to(turn)
            })
        {
            return IllegalReason::CastlingNotAllowed;
        }
        if let ([(from, piece)], [(to, arrived)]) = (&own[..], &arrivals[..]) {
            let (from, piece, to) = (*from, *piece, *to);
            let same = arrived.is_none_or(|a| {
                a == piece
                    || (piece.role == Role::Pawn
                        && a.color == piece.color
                        && to.rank() == turn.relative_rank(Rank::Eighth))
            });
            let stray_captures = departures
                .iter()
                .filter(|(sq, p)| p.color != turn && *sq != to)
                .count();
            if same && stray_captures == 0 {
                if piece.role == Role::King && from.distance(to) == 2 && from.rank() == to.rank() {
                    return IllegalReason::CastlingNotAllowed;
                }
                return if reachable(&self.line.base, piece, from, to) {
                    IllegalReason::LeavesKingInCheck { piece, from, to }
                } else {
                    IllegalReason::CannotMoveThatWay { piece, from, to }
                };
            }
        }
        IllegalReason::PiecesDisplaced
    }
}
