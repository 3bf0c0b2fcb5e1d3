//! The identity board (DGT e-boards): it senses every piece on every square. Field updates are
//! hints applied to the observed board (the scan is slow and reports squares in any order); a
//! conclusion drawn from them is held for the quiet time, or until the board shows the move and
//! a legal reply; a board dump is truth and concludes at once. The board may be set up turned,
//! and a player may slide a piece he has just moved to another square.

use shakmaty::{Bitboard, Board, Move, MoveList, Piece, Position, Role, Square};

use super::table::{Cand, Turn, board_after, moved_squares, squares_differing};
use super::{BoardKind, Conclusion, MoveDetector};
use annabella_boards::{ClockReading, Millis, SensorEvent};

/// The four centre squares, where DGT's result gesture puts both kings (no position can: they
/// touch each other).
pub(super) const CENTRE: Bitboard = Bitboard(0x0000_0018_1800_0000);

/// How long before the board reports a move's last square its player may have pressed the
/// clock: a DGT board scans its squares in about a quarter second, a hand presses faster.
pub(super) const PRESS_AHEAD_MS: Millis = 1_500;

/// What the detector knows of an identity board. Read only when the board is one.
#[derive(Debug, Clone)]
pub(super) struct PieceBoard {
    /// The board as its updates and dumps show it, in its true orientation.
    pub(super) observed: Board,
    /// The board was found set up turned (Black at the connector): everything it reports is
    /// turned before use.
    pub(super) rotated: bool,
    /// A move the board shows, held until the board has been quiet for the settle time (a
    /// sliding piece passes through squares) or shows a legal reply after it.
    pub(super) pending: Option<Move>,
    /// The legal moves of the position at a ply, computed while checking a reply and handed to
    /// the table built for that ply, so that they are not generated twice.
    pub(super) next_moves: Option<(usize, MoveList)>,
    /// Squares emptied while a move was held: touches of the next window, reported once the
    /// held move is concluded (the opponent reaching for a piece).
    pub(super) later_touches: Bitboard,
    /// When the board will have been quiet for the settle time: `pending` is concluded then,
    /// or the board judged at rest.
    pub(super) eval_at: Option<Millis>,
    /// The last reading of a clock on the board, while it runs. With a clock the player on
    /// this board completes his move by pressing it (FIDE 6.2): his move is held until the
    /// press, however long a piece rests on its way.
    pub(super) clock: Option<ClockReading>,
    /// When the clock was pressed on this board's move before its last square was reported
    /// (the board scans slower than a hand): a move it shows within [`PRESS_AHEAD_MS`] after
    /// is complete at once.
    pub(super) pressed_at: Option<Millis>,
}

impl PieceBoard {
    /// A board observed to show `board`, upright.
    pub(super) fn new(board: &Board) -> PieceBoard {
        PieceBoard {
            observed: board.clone(),
            rotated: false,
            pending: None,
            next_moves: None,
            later_touches: Bitboard::EMPTY,
            eval_at: None,
            clock: None,
            pressed_at: None,
        }
    }
}

impl MoveDetector {
    /// One sensor event on an identity board (keys are handled by the caller).
    pub(super) fn id_event(&mut self, event: &SensorEvent, out: &mut Vec<Conclusion>) {
        match event {
            SensorEvent::Pieces(board) => self.id_dump(board.clone(), out),
            SensorEvent::SquareChanged { square, piece } => self.id_change(*square, *piece, out),
            SensorEvent::Lift(sq) => self.id_change(*sq, None, out),
            // An identity board cannot take occupancy alone as truth: nothing to apply.
            SensorEvent::Place(_)
            | SensorEvent::Occupancy(_)
            | SensorEvent::Key(_)
            | SensorEvent::Identity(_) => {}
            SensorEvent::Clock(reading) => self.id_clock(*reading, out),
        }
    }

    /// A reading of the clock on the board. A press (the other side's time now runs) on this
    /// board's own move completes the move the board shows, or the one it is about to show.
    fn id_clock(&mut self, reading: ClockReading, out: &mut Vec<Conclusion>) {
        let pressed = self
            .pieces
            .clock
            .is_some_and(|c| c.right_runs != reading.right_runs);
        self.pieces.clock = reading.running.then_some(reading);
        if !pressed || self.table.turn != Turn::Own || self.line.game_over {
            return;
        }
        match self.pieces.pending.take() {
            Some(m) => {
                self.pieces.eval_at = None;
                self.conclude(m, out);
            }
            None => self.pieces.pressed_at = Some(self.now),
        }
    }

    /// Whether this board's own move waits for a press of the clock (one runs on the board).
    fn waits_for_press(&self) -> bool {
        self.pieces.clock.is_some() && self.table.turn == Turn::Own
    }

    /// Reports the pieces lifted while a move was held, now that the next window has begun.
    pub(super) fn touches_held_back(&mut self, out: &mut Vec<Conclusion>) {
        let squares = std::mem::replace(&mut self.pieces.later_touches, Bitboard::EMPTY);
        if self.table.turn != Turn::Own || self.line.game_over || self.kind != BoardKind::Identity {
            return;
        }
        for sq in squares {
            if let Some(p) = self.line.history[self.line.ply].piece_at(sq)
                && self.pieces.observed.piece_at(sq) != Some(p)
                && !self.touch.touched.contains(sq)
            {
                self.touch.touched.add(sq);
                self.report_touch(sq, p, out);
            }
        }
    }

    /// A field update: applied to the observed board; a piece lifted from its square in the
    /// position is a touch.
    fn id_change(&mut self, sq: Square, piece: Option<Piece>, out: &mut Vec<Conclusion>) {
        let sq = if self.pieces.rotated {
            sq.rotate_180()
        } else {
            sq
        };
        if self.pieces.observed.piece_at(sq) == piece {
            return;
        }
        match piece {
            Some(p) => self.pieces.observed.set_piece_at(sq, p),
            None => self.pieces.observed.discard_piece_at(sq),
        }
        if piece.is_none() && self.pieces.pending.is_some() {
            self.pieces.later_touches.add(sq);
        } else if piece.is_none()
            && self.table.turn == Turn::Own
            && !self.line.game_over
            && !self.touch.touched.contains(sq)
            && let Some(p) = self.line.history[self.line.ply].piece_at(sq)
        {
            self.touch.touched.add(sq);
            self.report_touch(sq, p, out);
        }
        self.id_step(false, out);
    }

    /// A board dump: replaces the observed board (turned, when the board is found set up
    /// turned), and concludes at once what it shows.
    fn id_dump(&mut self, mut board: Board, out: &mut Vec<Conclusion>) {
        if !self.pieces.rotated
            && board != self.line.history[self.line.ply]
            && board != self.table.target
        {
            let mut turned = board.clone();
            turned.rotate_180();
            if turned == self.line.history[0]
                || turned == self.line.history[self.line.ply]
                || turned == self.table.target
            {
                self.pieces.rotated = true;
                out.push(Conclusion::Rotated);
            }
        }
        if self.pieces.rotated {
            board.rotate_180();
        }
        self.pieces.observed = board;
        if self.link.fresh {
            self.link.fresh = false;
            self.pieces.pending = None;
            self.pieces.eval_at = None;
            self.fresh_compare(out);
            return;
        }
        self.id_step(true, out);
    }

    /// After the observed board changed: holds the candidate it shows (concludes it at once
    /// after a dump), concludes a held move the board shows answered, else waits for quiet.
    pub(super) fn id_step(&mut self, dump: bool, out: &mut Vec<Conclusion>) {
        // At most twice: a held move and its reply can be concluded by one event.
        for _ in 0..2 {
            if self.pieces.observed == self.line.history[self.line.ply] {
                self.back_at_base(out);
                return;
            }
            if let Some(i) = self.table.cands.iter().position(|c| self.shows_after(c)) {
                let m = self.table.cands[i].m;
                self.promotion.waiting = None;
                if self.table.turn == Turn::Anticipated {
                    self.pieces.pending = None;
                    self.pieces.eval_at = None;
                } else if (dump && !self.waits_for_press())
                    || self
                        .pieces
                        .pressed_at
                        .take()
                        .is_some_and(|t| self.now.saturating_sub(t) <= PRESS_AHEAD_MS)
                {
                    self.pieces.pending = None;
                    self.pieces.eval_at = None;
                    self.conclude(m, out);
                } else {
                    self.pieces.pending = Some(m);
                    // With a clock on the board, the press completes the move, not the quiet.
                    self.pieces.eval_at = (!self.waits_for_press())
                        .then(|| self.now.saturating_add(self.settings.settle_ms));
                }
                return;
            }
            if let Some(p) = self.pieces.pending
                && let Some(replies) = self.reply_shown(p)
            {
                self.pieces.pending = None;
                self.pieces.eval_at = None;
                self.pieces.next_moves = Some((self.line.ply + 1, replies));
                self.conclude(p, out);
                // Used by the table the conclusion built; never left for another position.
                self.pieces.next_moves = None;
                continue;
            }
            break;
        }
        if dump {
            self.pieces.pending = None;
            self.pieces.eval_at = None;
            self.id_rest(true, out);
        } else {
            self.pieces.eval_at = Some(self.now.saturating_add(self.settings.settle_ms));
        }
    }

    /// Whether the identity board shows the position after candidate `c`. Occupancy first: one
    /// comparison rules out nearly every candidate.
    pub(super) fn shows_after(&self, c: &Cand) -> bool {
        c.occ == self.pieces.observed.occupied()
            && board_after(self.line.base.board(), self.line.base.turn(), c.m)
                == self.pieces.observed
    }

    /// The board shows the held move `p` and then a legal reply made on this board: the player
    /// moved on, so `p` was finished.
    /// Returns the legal moves after `p`, which the next table needs anyway.
    fn reply_shown(&self, p: Move) -> Option<MoveList> {
        if self.table.turn != Turn::Own {
            return None;
        }
        // A reply changes two to four squares; most events mid-reply change fewer.
        let after = board_after(self.line.base.board(), self.line.base.turn(), p);
        let changed = squares_differing(&after, &self.pieces.observed);
        if !(2..=4).contains(&changed.count()) {
            return None;
        }
        let mut pos = self.line.base.clone();
        pos.play_unchecked(p);
        if self.settings.mover.is_some_and(|c| c != pos.turn()) {
            return None;
        }
        let replies = pos.legal_moves();
        replies
            .iter()
            .any(|&q| {
                moved_squares(q).intersects(changed)
                    && board_after(&after, pos.turn(), q) == self.pieces.observed
            })
            .then_some(replies)
    }

    /// The identity board has been quiet (or a dump arrived) and shows no candidate.
    pub(super) fn id_rest(&mut self, explained: bool, out: &mut Vec<Conclusion>) {
        let base = &self.line.history[self.line.ply];
        if self.pieces.observed == *base {
            self.back_at_base(out);
            return;
        }
        // Pieces only lifted: in someone's hand.
        if base.occupied().is_superset(self.pieces.observed.occupied())
            && self
                .pieces
                .observed
                .iter()
                .all(|(sq, p)| base.piece_at(sq) == Some(p))
        {
            return;
        }
        // DGT's result gesture half made: one king set on a centre square while the other is
        // still in the hand (`result_gesture` reads the whole gesture).
        let kings = self.pieces.observed.kings();
        if kings.count() == 1 && kings.is_subset(CENTRE) {
            return;
        }
        // Part of a move's squares updated (the scan reports them in any order, and may report
        // the arrival before the departure): the rest is still to come.
        let changed = squares_differing(base, &self.pieces.observed);
        let partial = self.table.cands.iter().any(|c| {
            let after = board_after(base, self.line.base.turn(), c.m);
            changed.is_subset(squares_differing(base, &after))
                && changed
                    .into_iter()
                    .all(|sq| self.pieces.observed.piece_at(sq) == after.piece_at(sq))
        });
        if partial {
            return;
        }
        if let Some((from, to)) = self.pawn_waiting() {
            if self.table.turn != Turn::Owed {
                self.promotion_reached(from, to, out);
            }
            return;
        }
        if !self.already_reported() && explained && self.slid(out) {
            return;
        }
        self.settled(explained, out);
    }

    /// A pawn on the last rank still waiting to be exchanged for the new piece.
    pub(super) fn pawn_waiting(&self) -> Option<(Square, Square)> {
        self.table.cands.iter().find_map(|c| {
            let (from, to) = (c.m.from()?, c.m.to());
            (c.m.promotion() == Some(Role::Queen) && c.occ == self.pieces.observed.occupied() && {
                let mut b = board_after(self.line.base.board(), self.line.base.turn(), c.m);
                b.set_piece_at(
                    to,
                    Piece {
                        color: self.line.base.turn(),
                        role: Role::Pawn,
                    },
                );
                b == self.pieces.observed
            })
            .then_some((from, to))
        })
    }

    /// PicoChess's "sliding": the player changed his mind after his move was concluded here
    /// and before anything else happened, so the board shows another move from the previous
    /// position. Reported as a takeback of one half-move followed by the new move; a caller
    /// that refuses the takeback will find the new move illegal in its game, and the detector
    /// then reports the board as a mismatch.
    fn slid(&mut self, out: &mut Vec<Conclusion>) -> bool {
        if !self.line.own_last || !self.line.owed.is_empty() || self.line.ply == 0 {
            return false;
        }
        let Some(prev) = self.line.prev.clone() else {
            return false;
        };
        let last = self.line.moves[self.line.ply - 1];
        let before = &self.line.history[self.line.ply - 1];
        let Some(m) = prev
            .legal_moves()
            .into_iter()
            .find(|&m| m != last && board_after(before, prev.turn(), m) == self.pieces.observed)
        else {
            return false;
        };
        out.push(Conclusion::Takeback { plies: 1 });
        out.push(Conclusion::Moved { m, warning: None });
        self.line.ply -= 1;
        self.line.moves.truncate(self.line.ply);
        self.line.history.truncate(self.line.ply + 1);
        self.line.base = prev;
        self.line.prev = None;
        self.advance(m, true);
        true
    }
}
