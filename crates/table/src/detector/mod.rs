//! Sensor events to moves: touched, made, promotion pending, illegal, mismatch, takeback (FIDE D.2.2, D.2.3).
//!
//! Pure: no I/O, no clock. Time arrives with the events ([`Timed`]) and through
//! [`MoveDetector::poll`]; the detector only compares it with deadlines it set itself.
//! `docs/move-detection.md` is the players' and board makers' account of the rules; this header
//! says how the code holds them.
//!
//! # What the detector tracks
//! - **The board's ply**: which game position the physical board is known to show. The game can
//!   run ahead of it (the opponent's move was entered by the table: the board *owes* it, and the
//!   blind player replicates it); the board runs ahead of the game for the instant between a
//!   `Moved` conclusion and the caller playing it. [`MoveDetector::handle`] and
//!   [`MoveDetector::poll`] first compare the game with what the detector believes and re-base
//!   when the table changed the game on its own (undo, a new game, a refused move).
//! - **A table per position**: every candidate move with the occupancy it leaves, the pegs it
//!   moves and the piece it captures, plus the *partial* states a human passes through
//!   (castling half done, an en-passant capturer placed before the pawn it takes is lifted).
//!   It is built once when the position changes, so an event costs a few bitboard comparisons;
//!   an identity board's whole position is derived only for candidates whose occupancy matches.
//! - **The physical board**: occupancy boards keep the occupied holes, the pegs in hand (in lift
//!   order, with the piece each is believed to be) and, per square, the event number of its last
//!   lift and last placement since the position last changed (the *window*). Identity boards keep
//!   the observed board; field updates are hints applied to it, dumps replace it.
//!
//! # Made (D.2.3) on an occupancy board
//! A candidate is concluded when the occupancy equals the occupancy it leaves *and* the window
//! explains it: each moved peg's origin was lifted and its destination filled after that lift,
//! and a captured piece's hole was lifted (and, for a normal capture, refilled after). The event
//! order is what tells a Chess960 castling whose king and rook swap holes (occupancy unchanged)
//! from a piece lifted and put back. A lift can complete a move only by removing the pawn an
//! en-passant capturer already replaced.
//!
//! # Settled
//! Only a settled board is judged illegal, a takeback or a mismatch: the last event filled a
//! hole and no peg is in the hand, except pegs from holes an own piece attacks (a captured
//! piece set aside) — and not when the only change is such pieces lifted (the capturer is still
//! coming). Identity boards settle when no update came for `settle_ms`, or on a dump, and wait
//! while the board shows only pieces lifted or only part of one move's squares updated.
//!
//! # A correction in progress (occupancy boards)
//! Once the board was reported wrong (illegal, mismatch, takeback), no move of the board's own
//! side is concluded until its holes are the game's again: following the corrections can pass
//! through a state that looks like a legal move (issue 24). A state needing no more corrections
//! than before is a correction followed; the table says the next one. An opponent's piece in a
//! hole where the game never had it, on the board's own turn, is judged at once even with pegs
//! in the hand (knocked, not a move), and like a peg dropped from beside the board it is a
//! mismatch, not an illegal move.
//!
//! # Deferral
//! A complete legal move that is also half of a legal castling (the rook placed on its castling
//! square first; in Chess960 the king placed on its castling square by an ordinary king step) is
//! held for `settle_ms`: lifting the other castling piece suspends the deadline and placing it
//! on its castling square makes the castling; any other event releases the held move first,
//! and the events after the hold count in the next position's window. Identity boards hold
//! every conclusion drawn from field updates for `settle_ms` after the last update (a sliding
//! queen passes through squares), or until the board shows it followed by a legal reply; a
//! board dump is stable truth and concludes at once.
//!
//! # Where the code is
//! - this file: the settings, the detector's state and its public calls, which hand each
//!   event to the half for its kind of board;
//! - `conclusion`: what the detector reports, and why a board is illegal, in words;
//! - `line`: the game as far as the board has gone, kept in step with the table's game;
//! - `table`: the candidate moves of one position, and the move geometry they are built from;
//! - `occupancy`: the peg board — lifts and placements, pegs in hand, event order, deferral;
//! - `identity`: the DGT board — pieces per square, quiet time, sliding, a turned board;
//! - `touch_move`: touched pieces and the touch-move rules (FIDE 4.3, 4.4);
//! - `verdict`: what both kinds share once a move is made or the board is at rest — concluding,
//!   promotion, takeback, illegal or mismatch with corrections, the first snapshot after a
//!   power-up or reconnect.

mod conclusion;
mod identity;
mod line;
mod occupancy;
mod table;
mod touch_move;
mod verdict;

use std::fmt;
use std::str::FromStr;

use shakmaty::{Board, Color, Position, Role, Square};

use self::identity::PieceBoard;
use self::line::Line;
use self::occupancy::PegBoard;
use self::table::Table;
use self::touch_move::Touches;
use self::verdict::{Link, Promotion, Reported};
use super::corrections::Observed;
use annabella_boards::{BoardKey, Millis, SensorEvent, Timed};
use annabella_chess::game::Game;

pub use self::conclusion::{Conclusion, IllegalReason, TouchMoveWarning};

/// Default hold on the peg board: long enough for a human to reach for the king after putting
/// the rook down (rook-first castling), short enough not to delay an ordinary rook move much.
pub const PEG_SETTLE_MS: Millis = 1500;
/// Default quiet time on a DGT board: a full scan takes 200–250 ms (dgtbrd.h).
pub const DGT_SETTLE_MS: Millis = 300;

/// What a board can sense.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoardKind {
    /// Only whether a hole holds a peg (the peg board, DGT Centaur/Pegasus, Certabo Sentio).
    Occupancy,
    /// Every piece with its identity (DGT e-boards).
    Identity,
}

/// The touch-move setting (FIDE 4.3–4.4). Only occupancy boards report it: on the peg board
/// touching is lifting (D.2.2), which the sensors see; an e-board cannot see a hand resting on a
/// piece and scans too slowly to tell which of two pieces left first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TouchMove {
    /// Nothing is reported.
    #[default]
    Off,
    /// A move against the touch-move rules is accepted and reported with it.
    Warn,
    /// A move against the touch-move rules is refused as illegal.
    Strict,
}

/// A word that names no touch-move setting (the word as given, before trimming).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown touch-move setting {0:?}; off, warn or strict")]
pub struct TouchMoveError(pub String);

impl FromStr for TouchMove {
    type Err = TouchMoveError;

    fn from_str(s: &str) -> Result<TouchMove, TouchMoveError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "off" => Ok(TouchMove::Off),
            "warn" => Ok(TouchMove::Warn),
            "strict" => Ok(TouchMove::Strict),
            _ => Err(TouchMoveError(s.to_owned())),
        }
    }
}

impl fmt::Display for TouchMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TouchMove::Off => "off",
            TouchMove::Warn => "warn",
            TouchMove::Strict => "strict",
        })
    }
}

/// How the detector judges one board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DetectorSettings {
    /// Whether moves against the touch-move rules are let pass, reported or refused.
    pub touch_move: TouchMove,
    /// How long a conclusion that the next event could still change is held (see the module
    /// header). Never a delay for an ordinary move on the peg board.
    pub settle_ms: Millis,
    /// `None`: both sides move on this board (a whole game replayed on one board). `Some(c)`:
    /// only `c` moves here; the other side's moves come from the table and are replicated.
    pub mover: Option<Color>,
}

impl DetectorSettings {
    /// The defaults for a kind of board: touch-move off, both sides moving.
    pub fn for_kind(kind: BoardKind) -> DetectorSettings {
        DetectorSettings {
            touch_move: TouchMove::Off,
            settle_ms: match kind {
                BoardKind::Occupancy => PEG_SETTLE_MS,
                BoardKind::Identity => DGT_SETTLE_MS,
            },
            mover: None,
        }
    }
}

/// Turns one board's sensor events into conclusions. One per physical board.
///
/// The state is grouped by what it describes; each group's type documents its fields.
#[derive(Debug, Clone)]
pub struct MoveDetector {
    /// What the board senses: decides which half (`occupancy` or `identity`) reads its events
    /// and how the shared judging compares the board with a position.
    kind: BoardKind,
    /// Touch-move, the hold time and which side moves here; fixed for the detector's life.
    settings: DetectorSettings,
    /// The game as far as the physical board has gone: its ply, the moves it owes.
    line: Line,
    /// The candidate moves of `line.base`, rebuilt whenever that position or what is owed
    /// changes, so that an event costs only comparisons.
    table: Table,
    /// An occupancy board's holes, pegs in hand, event order and held move. Never read on an
    /// identity board.
    pegs: PegBoard,
    /// An identity board's observed pieces and the conclusion held for quiet time. Never read
    /// on an occupancy board.
    pieces: PieceBoard,
    /// The pieces touched in this window, in order, and which touches were reported.
    touch: Touches,
    /// A pawn waiting on the last rank for its piece, and a piece named before it got there.
    promotion: Promotion,
    /// The latest time seen in an event or a poll: deadlines are set from it. Never goes back,
    /// so a late event cannot re-open a deadline already passed.
    now: Millis,
    /// What was last reported wrong, so a board that stays wrong is reported once.
    reported: Reported,
    /// Whether the next snapshot is compared with the game rather than explained by events.
    link: Link,
}

impl MoveDetector {
    /// A detector for a board assumed to show `game`'s current position; the first snapshot
    /// the board sends is checked against it (a difference is a [`Conclusion::Mismatch`]).
    pub fn new(kind: BoardKind, settings: DetectorSettings, game: &Game) -> MoveDetector {
        let board = game.position().board();
        let mut d = MoveDetector {
            kind,
            settings,
            line: Line::of(game),
            table: Table::new(board),
            pegs: PegBoard::new(board),
            pieces: PieceBoard::new(board),
            touch: Touches::default(),
            promotion: Promotion::default(),
            now: 0,
            reported: Reported::default(),
            link: Link::power_up(),
        };
        d.load_game(game);
        d
    }

    /// What the board senses.
    pub fn kind(&self) -> BoardKind {
        self.kind
    }

    /// How the board is judged.
    pub fn settings(&self) -> &DetectorSettings {
        &self.settings
    }

    /// The game ply the physical board is known to show (or is about to, once the caller
    /// plays the last `Moved`).
    pub fn board_ply(&self) -> usize {
        self.line.ply
    }

    /// Whether an identity board was found set up turned.
    pub fn is_rotated(&self) -> bool {
        self.pieces.rotated
    }

    /// What the board shows now, as far as it can see (its true orientation).
    pub fn observed(&self) -> Observed {
        match self.kind {
            BoardKind::Occupancy => Observed::Occupancy(self.pegs.occ),
            BoardKind::Identity => Observed::Pieces(self.pieces.observed.clone()),
        }
    }

    /// What the detector believes stands on each occupied square (for an identity board: what
    /// it sees). Squares whose piece it cannot name are empty here.
    pub fn believed(&self) -> &Board {
        match self.kind {
            BoardKind::Occupancy => &self.pegs.belief,
            BoardKind::Identity => &self.pieces.observed,
        }
    }

    /// Whether a peg believed to be `piece` is in the hand (occupancy boards): a piece to be
    /// put on the board is then asked back from his hand.
    pub fn holds(&self, piece: shakmaty::Piece) -> bool {
        self.kind == BoardKind::Occupancy && self.pegs.hand.iter().any(|p| p.piece == Some(piece))
    }

    /// The fewest hand actions that bring the board to `target`, as its player can do them: on
    /// an occupancy board the pieces it believes in name the pegs, and a piece still in his
    /// hand is asked back rather than replaced by a peg nobody can name
    /// ([`corrections::with_hand`](crate::corrections::with_hand)).
    pub fn corrections_to(&self, target: &Board) -> Vec<crate::corrections::Correction> {
        let fixes =
            crate::corrections::corrections(&self.observed(), Some(self.believed()), target);
        match self.kind {
            BoardKind::Occupancy => {
                let fixes = crate::corrections::with_hand(fixes, target, |p| self.holds(p));
                crate::corrections::unnamed_on(fixes, self.pegs.unsure)
            }
            BoardKind::Identity => fixes,
        }
    }

    /// Whether a clock runs on this (identity) board: its player's moves are then complete at
    /// his press, not after the quiet time.
    pub fn has_clock(&self) -> bool {
        self.pieces.clock.is_some()
    }

    /// The last reading of the clock running on this board.
    pub fn clock(&self) -> Option<annabella_boards::ClockReading> {
        self.pieces.clock
    }

    /// A pawn waiting on the last rank for its piece to be named: (from, to).
    pub fn pending_promotion(&self) -> Option<(Square, Square)> {
        self.promotion.waiting
    }

    /// Whether a promotion key pressed now is kept as the choice for a promotion to come: no
    /// pawn is waiting for its piece and the board's own side is to move.
    pub fn preselects_promotion(&self) -> bool {
        self.promotion.waiting.is_none() && self.table.turn == table::Turn::Own
    }

    /// The earliest time at which [`MoveDetector::poll`] has something to release.
    pub fn next_deadline(&self) -> Option<Millis> {
        let held = self
            .pegs
            .deferred
            .filter(|d| !d.suspended)
            .map(|d| d.deadline);
        match (held, self.pieces.eval_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The board was disconnected and is back: its next snapshot is compared with the game
    /// rather than explained by events.
    pub fn reconnected(&mut self) {
        self.link.fresh = true;
        self.link.back_from_away = true;
    }

    /// One sensor event. Deadlines at or before the event's time are released first, so a
    /// caller that never polls still gets every conclusion, in order.
    pub fn handle(&mut self, game: &Game, event: &Timed<SensorEvent>, out: &mut Vec<Conclusion>) {
        self.sync(game, out);
        self.expire(event.at, out);
        match (&event.event, self.kind) {
            (SensorEvent::Key(BoardKey::Promote(role)), _) => self.promote(*role, out),
            (SensorEvent::Key(_) | SensorEvent::Identity(_), _) => {}
            (SensorEvent::Clock(_), BoardKind::Occupancy) => {}
            (sensed, BoardKind::Occupancy) => self.occ_event(sensed, out),
            (sensed, BoardKind::Identity) => self.id_event(sensed, out),
        }
    }

    /// Releases what is due at `now`, and notices a game the table changed (call it after
    /// entering the other board's move, so that a replication already made is concluded).
    pub fn poll(&mut self, game: &Game, now: Millis, out: &mut Vec<Conclusion>) {
        self.sync(game, out);
        self.expire(now, out);
    }

    /// The promotion piece for a pending promotion (the `K` key or the control interface).
    /// Chosen before the pawn arrives, it is kept for this move.
    pub fn choose_promotion(&mut self, game: &Game, role: Role, out: &mut Vec<Conclusion>) {
        self.sync(game, out);
        self.promote(role, out);
    }

    /// The table changed the game in a way the detector did not conclude (undo, an accepted
    /// takeback, a new game). The board is then compared with the game: a difference is a
    /// `Mismatch`, a board that matches again after one is `InSync`. `handle` and `poll` notice
    /// such changes by themselves; this forces it.
    pub fn resync(&mut self, game: &Game, out: &mut Vec<Conclusion>) {
        self.rebase(game, out);
    }

    /// The board's holes are taken as the game's pieces when its occupancy equals the game's
    /// (an occupancy board that was being corrected, or set up by hand): the moves it owes count
    /// as replicated, the pegs are believed to be the game's pieces and the touches start
    /// afresh. Returns whether the occupancy matched; nothing changes when it did not. An
    /// identity board sees its pieces, so it is never taken on trust: `false`.
    pub fn take_as_game(&mut self, game: &Game) -> bool {
        let mut ignored = Vec::new();
        self.sync(game, &mut ignored);
        if self.kind != BoardKind::Occupancy || self.pegs.occ != game.position().board().occupied()
        {
            return false;
        }
        self.pegs.deferred = None;
        self.jump_to_game();
        self.pegs.hand.clear();
        self.new_window();
        self.reported.out_of_sync = false;
        self.back_at_base(&mut ignored);
        true
    }

    /// Releases the deadlines due at `now`: a move held as half of a castling (occupancy), a
    /// conclusion held for quiet time (identity).
    fn expire(&mut self, now: Millis, out: &mut Vec<Conclusion>) {
        self.now = self.now.max(now);
        if let Some(d) = self.pegs.deferred
            && !d.suspended
            && d.deadline <= self.now
        {
            self.release(out);
        }
        if let Some(t) = self.pieces.eval_at
            && t <= self.now
        {
            self.pieces.eval_at = None;
            if let Some(p) = self.pieces.pending.take()
                && self
                    .table
                    .cands
                    .iter()
                    .any(|c| c.m == p && self.shows_after(c))
            {
                self.conclude(p, out);
                return;
            }
            self.id_rest(true, out);
        }
    }
}

/// What made the detector evaluate the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Trigger {
    /// A peg left its hole: the board is never at rest after it.
    Lift,
    /// A peg went into a hole.
    Place,
    /// A snapshot's differences, or a re-check after the game changed: may settle the board,
    /// but nothing was seen happening, so a wrong board is a mismatch, never "illegal".
    Unexplained,
}
