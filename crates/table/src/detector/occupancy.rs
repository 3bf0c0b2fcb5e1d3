//! The occupancy board (the peg board, DGT Centaur/Pegasus, Certabo Sentio): it senses only
//! whether a hole holds a peg. Lifts and placements are numbered, so a move is concluded only
//! when the occupancy matches a candidate *and* the order of events explains it; the pegs in the
//! hand are followed to name the pieces in messages; a move that may be half of a castling is
//! held (deferral, see the module header of `detector`).

use shakmaty::{Bitboard, Board, Move, Piece, Position, Square};

use super::table::{Cand, Turn, moved_squares, reachable};
use super::{Conclusion, MoveDetector, Trigger};
use annabella_boards::{Millis, SensorEvent};

/// More pegs than squares can never be out of their holes; a cap keeps hostile input bounded.
const MAX_HAND: usize = 64;

/// What the detector knows of an occupancy board. Read only when the board is one.
#[derive(Debug, Clone)]
pub(super) struct PegBoard {
    /// The holes that hold a peg now.
    pub(super) occ: Bitboard,
    /// Which piece the detector believes each occupied hole holds (guessed from the pegs in
    /// hand; only names pieces in messages and corrections, never decides a move).
    pub(super) belief: Board,
    /// The pegs out of their holes, in lift order (at most [`MAX_HAND`]).
    pub(super) hand: Vec<Peg>,
    /// The number of the last lift or placement: the clock of event order.
    pub(super) seq: u64,
    /// `seq` when the current window began (the position last changed): only events after it
    /// explain a move.
    pub(super) window: u64,
    /// Per square, the number of its last lift.
    pub(super) last_lift: [u64; 64],
    /// Per square, the number of its last placement.
    pub(super) last_place: [u64; 64],
    /// A complete move held because it may be half of a castling.
    pub(super) deferred: Option<Deferred>,
    /// Holes whose peg went in after the peg there had been lifted (since the board was last
    /// right): the piece lifted from there put back, or another peg in its place — one he
    /// held, one knocked, one from beside the board — which occupancy cannot tell apart. The
    /// belief keeps its guess for pairing corrections, but no instruction names a piece there
    /// (issue 24: the table says when it cannot know). Forgotten when the peg is lifted or
    /// the holes are the game's again.
    pub(super) unsure: Bitboard,
    /// Holes lifted since the board was last right (the origins of pegs that may be in his
    /// hand, or anywhere by now).
    pub(super) lifted: Bitboard,
}

impl PegBoard {
    /// The holes are the game's (or a snapshot started afresh): every peg is believed again.
    pub(super) fn forget_unsure(&mut self) {
        self.unsure = Bitboard::EMPTY;
        self.lifted = Bitboard::EMPTY;
    }

    /// A board whose holes are those of `board`, believed to hold its pieces.
    pub(super) fn new(board: &Board) -> PegBoard {
        PegBoard {
            occ: board.occupied(),
            belief: board.clone(),
            hand: Vec::new(),
            seq: 0,
            window: 0,
            last_lift: [0; 64],
            last_place: [0; 64],
            deferred: None,
            unsure: Bitboard::EMPTY,
            lifted: Bitboard::EMPTY,
        }
    }
}

/// A peg out of its hole.
#[derive(Debug, Clone, Copy)]
pub(super) struct Peg {
    /// The hole it was lifted from.
    pub(super) origin: Square,
    /// The piece it was believed to be there, if any.
    pub(super) piece: Option<Piece>,
    /// Event number of its lift.
    pub(super) at: u64,
}

/// A complete move held back because it may be half of a castling.
#[derive(Debug, Clone, Copy)]
pub(super) struct Deferred {
    /// The held move (the rook's or king's step alone).
    pub(super) m: Move,
    /// When it is concluded if nothing else happens.
    pub(super) deadline: Millis,
    /// The hole of the other castling piece, whose lift suspends the deadline.
    pub(super) waiting: Square,
    /// Event number when it was held; the waiting piece counts as lifted after it.
    pub(super) since: u64,
    /// The other castling piece is in the hand: no deadline until it is placed.
    pub(super) suspended: bool,
}

impl MoveDetector {
    /// One sensor event on an occupancy board (keys are handled by the caller).
    pub(super) fn occ_event(&mut self, event: &SensorEvent, out: &mut Vec<Conclusion>) {
        match event {
            SensorEvent::Lift(sq) => {
                if self.occ_lift(*sq, true, out) {
                    self.evaluate(Trigger::Lift, out);
                }
            }
            SensorEvent::Place(sq) => {
                if self.occ_place(*sq, out) {
                    self.evaluate(Trigger::Place, out);
                }
            }
            SensorEvent::Occupancy(snap) => self.occ_snapshot(*snap, out),
            SensorEvent::Pieces(board) => self.occ_snapshot(board.occupied(), out),
            SensorEvent::SquareChanged { square, piece } => {
                let changed = match piece {
                    Some(_) => self.occ_place(*square, out),
                    None => self.occ_lift(*square, true, out),
                };
                if changed {
                    let trigger = if piece.is_some() {
                        Trigger::Place
                    } else {
                        Trigger::Lift
                    };
                    self.evaluate(trigger, out);
                }
            }
            SensorEvent::Key(_) | SensorEvent::Identity(_) | SensorEvent::Clock(_) => {}
        }
    }

    /// A peg leaves `sq` (`touch`: seen as a lift, not inferred from a snapshot, so it is a
    /// touch). A lift releases a held move unless it is the other castling piece's. Returns
    /// whether the occupancy changed.
    fn occ_lift(&mut self, sq: Square, touch: bool, out: &mut Vec<Conclusion>) -> bool {
        if !self.pegs.occ.contains(sq) {
            return false;
        }
        if let Some(d) = self.pegs.deferred {
            if sq == d.waiting {
                self.pegs.deferred = Some(Deferred {
                    suspended: true,
                    ..d
                });
            } else {
                self.release(out);
            }
        }
        self.pegs.seq += 1;
        self.pegs.occ.discard(sq);
        self.pegs.unsure.discard(sq);
        self.pegs.lifted.add(sq);
        let piece = self.pegs.belief.remove_piece_at(sq);
        if self.pegs.hand.len() >= MAX_HAND {
            self.pegs.hand.remove(0);
        }
        self.pegs.hand.push(Peg {
            origin: sq,
            piece,
            at: self.pegs.seq,
        });
        self.pegs.last_lift[sq as usize] = self.pegs.seq;
        if touch
            && self.table.turn == Turn::Own
            && !self.line.game_over
            && !self.touch.touched.contains(sq)
        {
            self.touch.touched.add(sq);
            if let Some(p) = piece
                && self.line.history[self.line.ply].piece_at(sq) == Some(p)
            {
                self.report_touch(sq, p, out);
            }
        }
        true
    }

    /// A peg goes into `sq`. A placement releases a held move unless the other castling piece
    /// is in the hand. Returns whether the occupancy changed.
    fn occ_place(&mut self, sq: Square, out: &mut Vec<Conclusion>) -> bool {
        if self.pegs.occ.contains(sq) {
            return false;
        }
        if let Some(d) = self.pegs.deferred {
            let waiting_in_hand = !self.pegs.occ.contains(d.waiting)
                && self.pegs.last_lift[d.waiting as usize] > d.since;
            if !waiting_in_hand {
                self.release(out);
            }
        }
        self.pegs.seq += 1;
        self.pegs.occ.add(sq);
        let (piece, a_move) = self.take_from_hand(sq);
        // A hole whose peg was lifted: that piece back, or any other peg — unless, on a board
        // that was right, the peg is read as his own piece going there (a capture he is
        // making, which an illegal move's reason names too). While a correction is followed
        // no such reading holds.
        if self.pegs.lifted.contains(sq) && (!a_move || self.reported.out_of_sync) {
            self.pegs.unsure.add(sq);
        } else {
            self.pegs.unsure.discard(sq);
        }
        match piece {
            Some(p) => self.pegs.belief.set_piece_at(sq, p),
            None => self.pegs.belief.discard_piece_at(sq),
        }
        self.pegs.last_place[sq as usize] = self.pegs.seq;
        true
    }

    /// Which peg went into `sq`. An occupancy board cannot tell; the guess only names pieces in
    /// messages and never decides a move. In order: the mover's own peg put back where it came
    /// from; the mover's latest peg that could go there; any peg put back where it came from;
    /// any peg that could go there; the mover's latest peg; the latest peg. A peg from beside
    /// the board is believed to be what the game wants there, and so is, while a correction
    /// is followed, a peg he holds that is believed to be that piece. Also returns whether the guess
    /// reads the peg as his own piece going there from elsewhere (a move, or its attempt).
    fn take_from_hand(&mut self, sq: Square) -> (Option<Piece>, bool) {
        let turn = self.line.base.turn();
        let own = |p: &Peg| p.piece.is_some_and(|pc| pc.color == turn);
        // The game has that piece there (a knocked piece put back), or it could get there.
        let home = self.line.history[self.line.ply].piece_at(sq);
        let reaches = |p: &Peg| {
            p.piece
                .is_some_and(|pc| Some(pc) == home || reachable(&self.line.base, pc, p.origin, sq))
        };
        let could_go = |p: &Peg| own(p) && reaches(p);
        // While a correction is followed, a peg put where the game wants a piece he is
        // believed to hold is that piece (he was told to put it there); a peg he took off the
        // board stays in the hand's list and must not come back as it.
        let wanted = self
            .table
            .target
            .piece_at(sq)
            .filter(|_| self.reported.out_of_sync);
        if let Some(i) =
            wanted.and_then(|w| self.pegs.hand.iter().rposition(|p| p.piece == Some(w)))
        {
            return (self.pegs.hand.remove(i).piece, false);
        }
        let put_back = self
            .pegs
            .hand
            .iter()
            .rposition(|p| p.origin == sq && own(p));
        let goes = self.pegs.hand.iter().rposition(could_go);
        let a_move = put_back.is_none() && goes.is_some();
        let i = put_back
            .or(goes)
            .or_else(|| self.pegs.hand.iter().rposition(|p| p.origin == sq))
            // A knocked piece lands where it could have gone more likely than a held one.
            .or_else(|| self.pegs.hand.iter().rposition(reaches))
            .or_else(|| self.pegs.hand.iter().rposition(own))
            .or_else(|| self.pegs.hand.len().checked_sub(1));
        let piece = match i {
            Some(i) => self.pegs.hand.remove(i).piece,
            None => self
                .table
                .target
                .piece_at(sq)
                .or_else(|| self.line.history[self.line.ply].piece_at(sq)),
        };
        (piece, a_move)
    }

    /// Every occupied hole at once: compared with the game after power-up or a reconnect,
    /// otherwise taken as the lifts and placements that explain the difference.
    fn occ_snapshot(&mut self, snap: Bitboard, out: &mut Vec<Conclusion>) {
        if self.link.fresh {
            self.link.fresh = false;
            self.release(out);
            self.pegs.occ = snap;
            self.pegs.hand.clear();
            self.pegs.forget_unsure();
            self.new_window();
            self.fresh_compare(out);
            return;
        }
        if snap == self.pegs.occ {
            return;
        }
        for sq in self.pegs.occ & !snap {
            self.occ_lift(sq, false, out);
        }
        for sq in snap & !self.pegs.occ {
            self.occ_place(sq, out);
        }
        self.evaluate(Trigger::Unexplained, out);
    }

    /// Concludes the held move. What happened after it was held (the other castling piece
    /// lifted, then the opponent taking it) belongs to the next position's window: those
    /// events keep counting, and a peg still in hand is a touch there.
    pub(super) fn release(&mut self, out: &mut Vec<Conclusion>) {
        let Some(d) = self.pegs.deferred.take() else {
            return;
        };
        let carried: Vec<Peg> = self
            .pegs
            .hand
            .iter()
            .copied()
            .filter(|p| p.at > d.since)
            .collect();
        let ply = self.line.ply;
        self.conclude(d.m, out);
        if self.line.ply == ply {
            return;
        }
        self.pegs.window = d.since;
        for peg in carried {
            self.pegs.hand.push(peg);
            if self.table.turn == Turn::Own
                && !self.line.game_over
                && !self.touch.touched.contains(peg.origin)
                && let Some(p) = peg.piece
                && self.line.history[self.line.ply].piece_at(peg.origin) == Some(p)
            {
                self.touch.touched.add(peg.origin);
                self.report_touch(peg.origin, p, out);
            }
        }
    }

    /// Each moved peg's hole was emptied in this window and its destination filled after.
    fn peg_moved(&self, (from, to): (Square, Square)) -> bool {
        let lifted = self.pegs.last_lift[from as usize];
        lifted > self.pegs.window && self.pegs.last_place[to as usize] > lifted
    }

    /// The window explains candidate `c`: every peg it moves was moved, and the piece it
    /// captures was lifted (and, when the capturer went into its hole, after that lift).
    pub(super) fn consistent(&self, c: &Cand) -> bool {
        if !c.moved_pegs().iter().all(|&p| self.peg_moved(p)) {
            return false;
        }
        match c.captured {
            None => true,
            Some(cap) => {
                let lifted = self.pegs.last_lift[cap as usize];
                lifted > self.pegs.window
                    && (c.moved_pegs().iter().all(|&(_, to)| to != cap)
                        || self.pegs.last_place[cap as usize] > lifted)
            }
        }
    }

    /// After an event: concludes the one candidate the board and the window show (or holds it,
    /// or reports a promotion pending), else judges the board if it is at rest.
    pub(super) fn evaluate(&mut self, trigger: Trigger, out: &mut Vec<Conclusion>) {
        // A correction in progress is finished before anything else counts: once the player
        // was told his board is wrong, no move of his is concluded until the board shows the
        // game again (following the guidance can pass through a position that looks like a
        // legal move: the knight on g5 while the bishop goes back to c4 is not 4.Ng5).
        if self.reported.out_of_sync && self.table.turn == Turn::Own {
            self.pegs.deferred = None;
            self.promotion.waiting = None;
            if self.pegs.occ == self.line.history[self.line.ply].occupied() {
                // The holes are the game's again (a peg taken off that was never meant to be
                // there is not held for a move): the pegs are the game's pieces.
                self.pegs.hand.clear();
                self.back_at_base(out);
                return;
            }
            if trigger != Trigger::Lift && (self.occ_at_rest() || self.knocked()) {
                self.settled(trigger != Trigger::Unexplained, out);
            }
            return;
        }
        // Complete candidates.
        let mut first: Option<usize> = None;
        let mut others = false;
        let mut castle: Option<usize> = None;
        let mut all_by_castling_pieces = true;
        for (i, c) in self.table.cands.iter().enumerate() {
            if c.occ != self.pegs.occ || !self.consistent(c) {
                continue;
            }
            if c.m.is_castle() {
                castle = Some(i);
            }
            match first {
                None => first = Some(i),
                Some(f) => {
                    let a = self.table.cands[f].m;
                    if a.from() != c.m.from() || a.to() != c.m.to() || !c.m.is_promotion() {
                        others = true;
                    }
                }
            }
        }
        if others && let Some(k) = castle {
            // King and rook were out of their holes together: in Chess960 a rook step into a
            // hole the king left, or a king step, shows the same occupancy as the castling.
            // The player handled both pieces (4.4.1 makes that castling), so castling wins.
            let pieces = moved_squares(self.table.cands[k].m);
            for c in &self.table.cands {
                if c.m != self.table.cands[k].m
                    && c.occ == self.pegs.occ
                    && self.consistent(c)
                    && !c.m.from().is_some_and(|f| pieces.contains(f))
                {
                    all_by_castling_pieces = false;
                }
            }
            if all_by_castling_pieces {
                first = Some(k);
                others = false;
            }
        }
        if let Some(i) = first {
            let m = self.table.cands[i].m;
            if m.is_promotion() && self.table.turn != Turn::Owed {
                if !others && let Some(from) = m.from() {
                    self.promotion_reached(from, m.to(), out);
                }
                return;
            }
            if others {
                // Two moves explain the board equally: never a guess.
                return;
            }
            if let Some(d) = self.pegs.deferred {
                if d.m == m {
                    self.release(out);
                    return;
                }
                self.pegs.deferred = None;
            }
            if self.table.turn == Turn::Own
                && let Some(waiting) = self.castling_half(i)
            {
                self.pegs.deferred = Some(Deferred {
                    m,
                    deadline: self.now.saturating_add(self.settings.settle_ms),
                    waiting,
                    since: self.pegs.seq,
                    suspended: false,
                });
                return;
            }
            self.conclude(m, out);
            return;
        }
        self.promotion.waiting = None;
        if trigger == Trigger::Lift {
            return;
        }
        // A piece of the opponent's knocked into another hole is wrong whatever the hand still
        // holds: no move of his passes through it, so the board is judged now and the pegs in
        // his hand are asked for.
        let knocked = trigger == Trigger::Place && self.knocked();
        if !knocked && (self.in_partial() || !self.occ_at_rest()) {
            return;
        }
        if self.pegs.deferred.is_some() {
            // The other castling piece went somewhere else: the held move stands, and what
            // followed is judged against the position after it.
            self.release(out);
        }
        self.settled(trigger != Trigger::Unexplained, out);
    }

    /// Whether the board is also half of a legal castling (other than candidate `i`); the hole
    /// of the castling piece still to move.
    fn castling_half(&self, i: usize) -> Option<Square> {
        let m = self.table.cands[i].m;
        self.table
            .partials
            .iter()
            .filter(|p| p.of != m && p.of.is_castle())
            .find(|p| p.occ == self.pegs.occ && self.peg_moved(p.moved))
            .map(|p| p.waiting)
    }

    /// The board is a state a hand passes through on the way to a candidate.
    fn in_partial(&self) -> bool {
        self.table
            .partials
            .iter()
            .any(|p| p.occ == self.pegs.occ && self.peg_moved(p.moved))
    }

    /// No peg in hand that a legal move would not capture, and not just the pieces a capture
    /// takes lifted off (the capturer is still to come).
    pub(super) fn occ_at_rest(&self) -> bool {
        if !self
            .pegs
            .hand
            .iter()
            .all(|p| self.table.capturable.contains(p.origin))
        {
            return false;
        }
        let base = self.line.history[self.line.ply].occupied();
        let missing = base & !self.pegs.occ;
        let extra = self.pegs.occ & !base;
        !(extra.is_empty() && missing.any() && missing.is_subset(self.table.capturable))
    }

    /// On the player's own turn, a piece believed to be the opponent's stands in a hole where
    /// the game does not have it (knocked over and put back wrong): no move of his does that.
    pub(super) fn knocked(&self) -> bool {
        if self.table.turn != Turn::Own {
            return false;
        }
        let base = &self.line.history[self.line.ply];
        let theirs = self.pegs.belief.by_color(!self.line.base.turn()) & self.pegs.occ;
        // A square where the game had that piece before is a takeback on its way, not a knock.
        let history = &self.line.history[..self.line.ply];
        theirs.into_iter().any(|sq| {
            let p = self.pegs.belief.piece_at(sq);
            base.piece_at(sq) != p && history.iter().all(|b| b.piece_at(sq) != p)
        })
    }

    /// More pegs stand in the holes than the game has pieces: one came from beside the board
    /// (dropped), which no move does.
    pub(super) fn extra_peg(&self) -> bool {
        self.pegs.occ.count() > self.line.history[self.line.ply].occupied().count()
    }

    /// Names the pieces of occupied holes the belief leaves empty (what the game wants there,
    /// else what stood there) and forgets those of empty holes.
    pub(super) fn fill_belief(&mut self) {
        let base = &self.line.history[self.line.ply];
        for sq in self.pegs.occ & !self.pegs.belief.occupied() {
            if let Some(p) = self.table.target.piece_at(sq).or_else(|| base.piece_at(sq)) {
                self.pegs.belief.set_piece_at(sq, p);
            }
        }
        for sq in self.pegs.belief.occupied() & !self.pegs.occ {
            self.pegs.belief.discard_piece_at(sq);
        }
    }
}
