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
//! # Deferral
//! A complete legal move that is also half of a legal castling (the rook placed on its castling
//! square first; in Chess960 the king placed on its castling square by an ordinary king step) is
//! held for `settle_ms`: lifting the other castling piece suspends the deadline and placing it
//! on its castling square makes the castling; any other event releases the held move first,
//! and the events after the hold count in the next position's window. Identity boards hold
//! every conclusion drawn from field updates for `settle_ms` after the last update (a sliding
//! queen passes through squares), or until the board shows it followed by a legal reply; a
//! board dump is stable truth and concludes at once.

use std::fmt;
use std::str::FromStr;

use shakmaty::{
    Bitboard, Board, CastlingMode, CastlingSide, Chess, Color, EnPassantMode, Move, MoveList,
    Piece, Position, Rank, Role, Square, attacks,
};

use super::corrections::{self, Correction, Observed, PieceName};
use crate::boards::{BoardKey, Millis, SensorEvent, Timed};
use crate::chess::game::Game;

/// Default hold on the peg board: long enough for a human to reach for the king after putting
/// the rook down (rook-first castling), short enough not to delay an ordinary rook move much.
pub const PEG_SETTLE_MS: Millis = 1500;
/// Default quiet time on a DGT board: a full scan takes 200–250 ms (dgtbrd.h).
pub const DGT_SETTLE_MS: Millis = 300;
/// More pegs than squares can never be out of their holes; a cap keeps hostile input bounded.
const MAX_HAND: usize = 64;

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

impl FromStr for TouchMove {
    type Err = String;

    fn from_str(s: &str) -> Result<TouchMove, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "off" => Ok(TouchMove::Off),
            "warn" => Ok(TouchMove::Warn),
            "strict" => Ok(TouchMove::Strict),
            _ => Err(format!(
                "unknown touch-move setting {s:?}; off, warn or strict"
            )),
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
    /// [`MoveDetector::choose_promotion`] or a `K` key.
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
}

impl Conclusion {
    /// One line: a keyword, then details in English (`move e2e4`, `touched g1 white knight`,
    /// `illegal: …; move the white knight from g3 to g1`). Moves in UCI for `mode` (Chess960:
    /// king takes rook).
    pub fn describe(&self, mode: CastlingMode) -> String {
        let list = |c: &[Correction]| {
            c.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        };
        match self {
            Conclusion::Touched { square, piece } => {
                format!("touched {square} {}", PieceName(*piece))
            }
            // A touch-move warning goes on a line of its own (`touch-move …`), so that the
            // move line is always exactly `move <uci>`.
            Conclusion::Moved { m, .. } => format!("move {}", m.to_uci(mode)),
            Conclusion::Replicated { m } => format!("replicated {}", m.to_uci(mode)),
            Conclusion::PromotionPending { from, to } => {
                format!("promotion-pending {from}{to}: choose the new piece")
            }
            Conclusion::Illegal {
                reason,
                corrections,
            } => {
                format!("illegal {reason}; {}", list(corrections))
            }
            Conclusion::Mismatch {
                corrections,
                unverifiable,
            } => format!(
                "mismatch {}{}",
                list(corrections),
                if *unverifiable {
                    " (this board senses only occupancy: which piece stands where is not checked)"
                } else {
                    ""
                }
            ),
            Conclusion::Takeback { plies } => format!("takeback {plies}"),
            Conclusion::InSync => "in-sync the board matches the game".to_owned(),
            Conclusion::Rotated => {
                "rotated the board is set up turned; reading it turned".to_owned()
            }
        }
    }
}

/// Whose move the current table is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Turn {
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
struct Partial {
    /// The candidate it leads to.
    of: Move,
    occ: Bitboard,
    /// The peg that has moved (origin, destination).
    moved: (Square, Square),
    /// The hole whose peg still has to move (the other castling piece, or the pawn taken en
    /// passant).
    waiting: Square,
}

/// Kept small: the table is rebuilt after every move.
#[derive(Debug, Clone, Copy)]
struct Cand {
    m: Move,
    occ: Bitboard,
    /// Pegs that change holes (origin, destination); a castling piece that stays is left out.
    pegs: [(Square, Square); 2],
    npegs: usize,
    captured: Option<Square>,
}

#[derive(Debug, Clone, Copy)]
struct Peg {
    origin: Square,
    piece: Option<Piece>,
    /// Event number of its lift.
    at: u64,
}

/// What a snapshot after a reconnect shows beyond the game.
enum Away {
    Move(Move),
    /// A pawn on the last rank of an occupancy board: from, to.
    Promotion(Square, Square),
}

/// A complete move held back because it may be half of a castling.
#[derive(Debug, Clone, Copy)]
struct Deferred {
    m: Move,
    deadline: Millis,
    waiting: Square,
    /// Event number when it was held; the waiting piece counts as lifted after it.
    since: u64,
    suspended: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trigger {
    Lift,
    Place,
    /// A snapshot's differences, or a re-check after the game changed: may settle the board,
    /// but nothing was seen happening, so a wrong board is a mismatch, never "illegal".
    Unexplained,
}

/// Turns one board's sensor events into conclusions. One per physical board.
#[derive(Debug, Clone)]
pub struct MoveDetector {
    kind: BoardKind,
    settings: DetectorSettings,
    mode: CastlingMode,

    // --- the game as far as the board has gone
    ply: usize,
    start_turn: Color,
    moves: Vec<Move>,
    /// The board at each ply 0..=ply (takeback search, sliding).
    history: Vec<Board>,
    base: Chess,
    /// The position before the last move, when known (identity boards' sliding).
    prev: Option<Chess>,
    /// The last move was concluded here as `Moved` (not replicated, not loaded from the game).
    own_last: bool,
    /// The game's moves beyond `ply`.
    owed: Vec<Move>,
    game_over: bool,

    // --- the table for `base`
    turn: Turn,
    cands: Vec<Cand>,
    partials: Vec<Partial>,
    /// Squares of pieces a capture could take: a lifted peg from there is set aside, not in
    /// the hand.
    capturable: Bitboard,
    lift_concludes: Bitboard,
    /// The game's current board (after the owed moves): what corrections aim at.
    target: Board,

    // --- the physical board
    occ: Bitboard,
    belief: Board,
    hand: Vec<Peg>,
    seq: u64,
    window: u64,
    last_lift: [u64; 64],
    last_place: [u64; 64],
    touched: Bitboard,
    touches: Vec<(Square, Piece)>,
    reported_own_touch: bool,
    reported_opp_touch: bool,
    deferred: Option<Deferred>,
    promotion: Option<(Square, Square)>,
    preselected: Option<Role>,
    observed: Board,
    rotated: bool,
    pending: Option<Move>,
    /// The legal moves of the position at this ply, computed while checking a reply.
    next_moves: Option<(usize, MoveList)>,
    /// Squares emptied while a move was held: touches of the next window, reported once the
    /// held move is concluded (the opponent reaching for a piece).
    later_touches: Bitboard,
    eval_at: Option<Millis>,

    // --- reporting
    now: Millis,
    out_of_sync: bool,
    /// The state last reported as illegal / mismatch / takeback, so a board that stays wrong is
    /// not reported on every event.
    last_report: Option<(Bitboard, Board, usize)>,
    /// The next snapshot is compared, not explained (power-up, reconnect).
    fresh: bool,
    /// That snapshot follows a reconnect: the board agreed with the game before it went away,
    /// so one legal move that explains the snapshot was made meanwhile.
    back_from_away: bool,
    /// The pending promotion was seen in such a snapshot, not in events: the key concludes it
    /// without the lift and place that events would have shown.
    promotion_from_snapshot: bool,
}

impl MoveDetector {
    /// A detector for a board assumed to show `game`'s current position; the first snapshot
    /// the board sends is checked against it (a difference is a [`Conclusion::Mismatch`]).
    pub fn new(kind: BoardKind, settings: DetectorSettings, game: &Game) -> MoveDetector {
        let base = game.position().clone();
        let mut d = MoveDetector {
            kind,
            settings,
            mode: game.castling_mode(),
            ply: 0,
            start_turn: game.start_position().turn(),
            moves: Vec::new(),
            history: Vec::new(),
            prev: None,
            own_last: false,
            owed: Vec::new(),
            game_over: false,
            turn: Turn::Own,
            cands: Vec::new(),
            partials: Vec::new(),
            capturable: Bitboard::EMPTY,
            lift_concludes: Bitboard::EMPTY,
            target: base.board().clone(),
            occ: base.board().occupied(),
            belief: base.board().clone(),
            hand: Vec::new(),
            seq: 0,
            window: 0,
            last_lift: [0; 64],
            last_place: [0; 64],
            touched: Bitboard::EMPTY,
            touches: Vec::new(),
            reported_own_touch: false,
            reported_opp_touch: false,
            deferred: None,
            promotion: None,
            preselected: None,
            observed: base.board().clone(),
            rotated: false,
            pending: None,
            next_moves: None,
            later_touches: Bitboard::EMPTY,
            eval_at: None,
            now: 0,
            out_of_sync: false,
            last_report: None,
            fresh: true,
            back_from_away: false,
            promotion_from_snapshot: false,
            base,
        };
        d.load_game(game);
        d
    }

    pub fn kind(&self) -> BoardKind {
        self.kind
    }

    pub fn settings(&self) -> &DetectorSettings {
        &self.settings
    }

    /// The game ply the physical board is known to show (or is about to, once the caller
    /// plays the last `Moved`).
    pub fn board_ply(&self) -> usize {
        self.ply
    }

    /// Whether an identity board was found set up turned.
    pub fn is_rotated(&self) -> bool {
        self.rotated
    }

    /// What the board shows now, as far as it can see (its true orientation).
    pub fn observed(&self) -> Observed {
        match self.kind {
            BoardKind::Occupancy => Observed::Occupancy(self.occ),
            BoardKind::Identity => Observed::Pieces(self.observed.clone()),
        }
    }

    /// What the detector believes stands on each occupied square (for an identity board: what
    /// it sees). Squares whose piece it cannot name are empty here.
    pub fn believed(&self) -> &Board {
        match self.kind {
            BoardKind::Occupancy => &self.belief,
            BoardKind::Identity => &self.observed,
        }
    }

    /// A pawn waiting on the last rank for its piece to be named: (from, to).
    pub fn pending_promotion(&self) -> Option<(Square, Square)> {
        self.promotion
    }

    /// The earliest time at which [`MoveDetector::poll`] has something to release.
    pub fn next_deadline(&self) -> Option<Millis> {
        let held = self.deferred.filter(|d| !d.suspended).map(|d| d.deadline);
        match (held, self.eval_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The board was disconnected and is back: its next snapshot is compared with the game
    /// rather than explained by events.
    pub fn reconnected(&mut self) {
        self.fresh = true;
        self.back_from_away = true;
    }

    /// One sensor event. Deadlines at or before the event's time are released first, so a
    /// caller that never polls still gets every conclusion, in order.
    pub fn handle(&mut self, game: &Game, event: &Timed<SensorEvent>, out: &mut Vec<Conclusion>) {
        self.sync(game, out);
        self.expire(event.at, out);
        match (&event.event, self.kind) {
            (SensorEvent::Lift(sq), BoardKind::Occupancy) => {
                if self.occ_lift(*sq, true, out) {
                    self.evaluate(Trigger::Lift, out);
                }
            }
            (SensorEvent::Place(sq), BoardKind::Occupancy) => {
                if self.occ_place(*sq, out) {
                    self.evaluate(Trigger::Place, out);
                }
            }
            (SensorEvent::Occupancy(snap), BoardKind::Occupancy) => self.occ_snapshot(*snap, out),
            (SensorEvent::Pieces(board), BoardKind::Occupancy) => {
                self.occ_snapshot(board.occupied(), out)
            }
            (SensorEvent::SquareChanged { square, piece }, BoardKind::Occupancy) => {
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
            (SensorEvent::Pieces(board), BoardKind::Identity) => self.id_dump(board.clone(), out),
            (SensorEvent::SquareChanged { square, piece }, BoardKind::Identity) => {
                self.id_change(*square, *piece, out)
            }
            (SensorEvent::Lift(sq), BoardKind::Identity) => self.id_change(*sq, None, out),
            // An identity board cannot take occupancy alone as truth: nothing to apply.
            (SensorEvent::Place(_) | SensorEvent::Occupancy(_), BoardKind::Identity) => {}
            (SensorEvent::Key(BoardKey::Promote(role)), _) => self.promote(*role, out),
            (SensorEvent::Key(_) | SensorEvent::Identity(_), _) => {}
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

    // ------------------------------------------------------------------ the game

    fn sync(&mut self, game: &Game, out: &mut Vec<Conclusion>) {
        let n = game.ply_count();
        let same_game = game.castling_mode() == self.mode
            && game.start_position().board() == &self.history[0]
            && game.start_position().turn() == self.start_turn;
        let same_line = n >= self.ply
            && (self.ply == 0 || game.moves()[self.ply - 1] == self.moves[self.ply - 1]);
        if !same_game || !same_line {
            self.rebase(game, out);
            return;
        }
        let owed = &game.moves()[self.ply..];
        let over = game.is_over();
        if owed != self.owed.as_slice() || over != self.game_over {
            self.owed = owed.to_vec();
            self.game_over = over;
            self.build_table();
            self.recheck(out);
        }
    }

    /// Loads the game without touching what the physical board shows.
    fn load_game(&mut self, game: &Game) {
        self.mode = game.castling_mode();
        self.ply = game.ply_count();
        self.start_turn = game.start_position().turn();
        self.moves = game.moves().to_vec();
        self.history.clear();
        self.prev = None;
        let mut pos = game.start_position().clone();
        self.history.push(pos.board().clone());
        for &m in game.moves() {
            self.prev = Some(pos.clone());
            pos.play_unchecked(m);
            self.history.push(pos.board().clone());
        }
        self.base = pos;
        self.own_last = false;
        self.owed.clear();
        self.game_over = game.is_over();
        self.build_table();
        self.new_window();
        self.pending = None;
        self.eval_at = None;
        self.last_report = None;
    }

    fn rebase(&mut self, game: &Game, out: &mut Vec<Conclusion>) {
        self.load_game(game);
        self.deferred = None;
        self.fill_belief();
        match self.kind {
            BoardKind::Occupancy => {
                if self.occ_at_rest() {
                    self.settled(false, out);
                }
            }
            BoardKind::Identity => self.id_rest(false, out),
        }
    }

    /// The game gained moves the board owes (or ended): perhaps the board already shows them.
    fn recheck(&mut self, out: &mut Vec<Conclusion>) {
        match self.kind {
            BoardKind::Occupancy => self.evaluate(Trigger::Unexplained, out),
            BoardKind::Identity => {
                if self.observed != self.history[self.ply] {
                    self.id_step(false, out)
                }
            }
        }
    }

    fn build_table(&mut self) {
        let turn = self.base.turn();
        self.turn = if !self.owed.is_empty() {
            Turn::Owed
        } else if self.settings.mover.is_none_or(|c| c == turn) {
            Turn::Own
        } else {
            Turn::Anticipated
        };
        self.target = if self.owed.is_empty() {
            self.base.board().clone()
        } else {
            let mut target = self.base.clone();
            for &m in &self.owed {
                if !target.is_legal(m) {
                    break;
                }
                target.play_unchecked(m);
            }
            target.board().clone()
        };
        self.cands.clear();
        self.partials.clear();
        let board = self.base.board();
        match self.turn {
            Turn::Owed => {
                let m = self.owed[0];
                if self.base.is_legal(m) {
                    self.cands
                        .push(candidate(board, turn, m, &mut self.partials));
                }
            }
            Turn::Own | Turn::Anticipated => {
                if !self.game_over {
                    let moves = match self.next_moves.take() {
                        Some((ply, moves)) if ply == self.ply => moves,
                        _ => self.base.legal_moves(),
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
        let board = self.base.board();
        let mover = self.base.turn();
        self.capturable = Bitboard::EMPTY;
        for role in Role::ALL {
            let piece = Piece { color: mover, role };
            for sq in board.by_piece(piece) {
                self.capturable |= attacks::attacks(sq, piece, board.occupied());
            }
        }
        self.capturable &= board.by_color(!mover);
        self.lift_concludes = Bitboard::EMPTY;
        for c in &self.cands {
            if let Some(sq) = c.captured {
                self.capturable.add(sq);
                if c.npegs == 1 && c.pegs[0].1 != sq {
                    self.lift_concludes.add(sq);
                }
            }
        }
    }

    /// A new window: the position changed, so touches and event order start afresh.
    fn new_window(&mut self) {
        self.window = self.seq;
        self.touched = Bitboard::EMPTY;
        self.touches.clear();
        self.reported_own_touch = false;
        self.reported_opp_touch = false;
        self.promotion = None;
        self.promotion_from_snapshot = false;
        self.preselected = None;
        self.deferred = None;
    }

    /// The board's position moves on by `m` (concluded here or replicated).
    fn advance(&mut self, m: Move, own: bool) {
        // Only identity boards look back a move (sliding).
        self.prev = (self.kind == BoardKind::Identity).then(|| self.base.clone());
        self.base.play_unchecked(m);
        self.moves.truncate(self.ply);
        self.moves.push(m);
        self.ply += 1;
        self.history.push(self.base.board().clone());
        self.own_last = own;
        if self.owed.first() == Some(&m) {
            self.owed.remove(0);
        } else {
            self.owed.clear();
        }
        self.build_table();
        self.new_window();
        self.hand.clear();
        self.pending = None;
        self.eval_at = None;
        self.out_of_sync = false;
        self.last_report = None;
        if self.occ == self.base.board().occupied() {
            self.belief = self.base.board().clone();
        }
    }

    /// The board is taken to show the game's position (after a snapshot that shows it, or one
    /// that must be corrected towards it).
    fn jump_to_game(&mut self) {
        while let Some(&m) = self.owed.first() {
            if !self.base.is_legal(m) {
                break;
            }
            self.advance(m, false);
        }
    }

    fn fill_belief(&mut self) {
        let base = &self.history[self.ply];
        for sq in self.occ & !self.belief.occupied() {
            if let Some(p) = self.target.piece_at(sq).or_else(|| base.piece_at(sq)) {
                self.belief.set_piece_at(sq, p);
            }
        }
        for sq in self.belief.occupied() & !self.occ {
            self.belief.discard_piece_at(sq);
        }
    }

    fn expire(&mut self, now: Millis, out: &mut Vec<Conclusion>) {
        self.now = self.now.max(now);
        if let Some(d) = self.deferred
            && !d.suspended
            && d.deadline <= self.now
        {
            self.release(out);
        }
        if let Some(t) = self.eval_at
            && t <= self.now
        {
            self.eval_at = None;
            if let Some(p) = self.pending.take()
                && self.cands.iter().any(|c| c.m == p && self.shows_after(c))
            {
                self.conclude(p, out);
                return;
            }
            self.id_rest(true, out);
        }
    }

    // ------------------------------------------------------------------ conclusions

    fn conclude(&mut self, m: Move, out: &mut Vec<Conclusion>) {
        match self.turn {
            // A held move that the table overtook with another move is not the owed one: the
            // board is then judged against the game at rest.
            Turn::Owed if self.owed.first() != Some(&m) => {}
            Turn::Owed => {
                out.push(Conclusion::Replicated { m });
                self.advance(m, false);
            }
            Turn::Anticipated => {}
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

    /// Reports the pieces lifted while a move was held, now that the next window has begun.
    fn touches_held_back(&mut self, out: &mut Vec<Conclusion>) {
        let squares = std::mem::replace(&mut self.later_touches, Bitboard::EMPTY);
        if self.turn != Turn::Own || self.game_over || self.kind != BoardKind::Identity {
            return;
        }
        for sq in squares {
            if let Some(p) = self.history[self.ply].piece_at(sq)
                && self.observed.piece_at(sq) != Some(p)
                && !self.touched.contains(sq)
            {
                self.touched.add(sq);
                self.report_touch(sq, p, out);
            }
        }
    }

    /// Strict touch-move: the move does not stand. After rook-then-king castling the rook move
    /// stands if it is legal on its own (4.4.2 forbids the castling, not the rook move).
    fn refuse(&mut self, m: Move, w: TouchMoveWarning, out: &mut Vec<Conclusion>) {
        // The board shows the refused move: the corrections must undo it. On an occupancy
        // board the belief may still name the pieces as if put back (a Chess960 king and rook
        // that swapped holes leave the occupancy unchanged), which would give no correction.
        let shown = board_after(self.base.board(), self.base.turn(), m);
        if let (Move::Castle { king, rook }, TouchMoveWarning::CastledAfterTouchingRook { .. }) =
            (m, w)
        {
            let side = CastlingSide::from_king_side(king < rook);
            let rook_to = side.rook_to(self.base.turn());
            let rook_move = Move::Normal {
                role: Role::Rook,
                from: rook,
                capture: None,
                to: rook_to,
                promotion: None,
            };
            if rook != rook_to && self.base.is_legal(rook_move) {
                out.push(Conclusion::Moved {
                    m: rook_move,
                    warning: None,
                });
                self.advance(rook_move, true);
            }
        }
        if self.kind == BoardKind::Occupancy && self.occ == shown.occupied() {
            self.belief = shown;
        }
        self.report_wrong(Some(IllegalReason::TouchMove(w)), out);
    }

    /// Concludes the held move. What happened after it was held (the other castling piece
    /// lifted, then the opponent taking it) belongs to the next position's window: those
    /// events keep counting, and a peg still in hand is a touch there.
    fn release(&mut self, out: &mut Vec<Conclusion>) {
        let Some(d) = self.deferred.take() else {
            return;
        };
        let carried: Vec<Peg> = self
            .hand
            .iter()
            .copied()
            .filter(|p| p.at > d.since)
            .collect();
        let ply = self.ply;
        self.conclude(d.m, out);
        if self.ply == ply {
            return;
        }
        self.window = d.since;
        for peg in carried {
            self.hand.push(peg);
            if self.turn == Turn::Own
                && !self.game_over
                && !self.touched.contains(peg.origin)
                && let Some(p) = peg.piece
                && self.history[self.ply].piece_at(peg.origin) == Some(p)
            {
                self.touched.add(peg.origin);
                self.report_touch(peg.origin, p, out);
            }
        }
    }

    fn report_touch(&mut self, square: Square, piece: Piece, out: &mut Vec<Conclusion>) {
        if self.touches.len() < 64 {
            self.touches.push((square, piece));
        }
        let own = piece.color == self.base.turn();
        let reported = if own {
            &mut self.reported_own_touch
        } else {
            &mut self.reported_opp_touch
        };
        if !*reported {
            *reported = true;
            out.push(Conclusion::Touched { square, piece });
        }
    }

    fn promote(&mut self, role: Role, out: &mut Vec<Conclusion>) {
        if matches!(role, Role::Pawn | Role::King) {
            return;
        }
        let Some((from, to)) = self.promotion else {
            if self.turn == Turn::Own {
                self.preselected = Some(role);
            }
            return;
        };
        let m = Move::Normal {
            role: Role::Pawn,
            from,
            capture: self.base.board().piece_at(to).map(|p| p.role),
            to,
            promotion: Some(role),
        };
        // The board must still show the pawn on the last rank.
        let shown = self.cands.iter().any(|c| {
            c.m == m
                && match self.kind {
                    BoardKind::Occupancy => {
                        c.occ == self.occ && (self.promotion_from_snapshot || self.consistent(c))
                    }
                    BoardKind::Identity => {
                        self.pawn_waiting() == Some((from, to)) || self.shows_after(c)
                    }
                }
        });
        if shown {
            self.promotion = None;
            self.conclude(m, out);
        }
    }

    fn promotion_reached(&mut self, from: Square, to: Square, out: &mut Vec<Conclusion>) {
        if let Some(role) = self.preselected
            && let Some(c) = self.cands.iter().find(|c| {
                c.m.from() == Some(from) && c.m.to() == to && c.m.promotion() == Some(role)
            })
        {
            let m = c.m;
            self.conclude(m, out);
            return;
        }
        if self.promotion != Some((from, to)) {
            self.promotion = Some((from, to));
            if self.turn == Turn::Own {
                out.push(Conclusion::PromotionPending { from, to });
            }
        }
    }

    fn report_key(&self) -> (Bitboard, Board, usize) {
        let board = match self.kind {
            BoardKind::Occupancy => self.belief.clone(),
            BoardKind::Identity => self.observed.clone(),
        };
        (self.current_occ(), board, self.ply + self.owed.len())
    }

    fn current_occ(&self) -> Bitboard {
        match self.kind {
            BoardKind::Occupancy => self.occ,
            BoardKind::Identity => self.observed.occupied(),
        }
    }

    fn already_reported(&self) -> bool {
        self.last_report.as_ref() == Some(&self.report_key())
    }

    /// Reports a board that stands wrong: with `reason` as illegal, without as a mismatch.
    fn report_wrong(&mut self, reason: Option<IllegalReason>, out: &mut Vec<Conclusion>) {
        let corrections = match self.kind {
            BoardKind::Occupancy => corrections::corrections(
                &Observed::Occupancy(self.occ),
                Some(&self.belief),
                &self.target,
            ),
            BoardKind::Identity => corrections::corrections(
                &Observed::Pieces(self.observed.clone()),
                None,
                &self.target,
            ),
        };
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
        self.out_of_sync = true;
        self.last_report = Some(self.report_key());
    }

    /// The board matches the position the detector expects it at.
    fn back_at_base(&mut self, out: &mut Vec<Conclusion>) {
        self.pending = None;
        self.later_touches = Bitboard::EMPTY;
        self.eval_at = None;
        self.promotion = None;
        self.last_report = None;
        if self.out_of_sync {
            self.out_of_sync = false;
            if self.turn != Turn::Owed {
                out.push(Conclusion::InSync);
            }
        }
    }

    /// A board at rest that shows no move: takeback, or wrong.
    fn settled(&mut self, explained: bool, out: &mut Vec<Conclusion>) {
        if self.current_occ() == self.history[self.ply].occupied()
            && (self.kind == BoardKind::Occupancy || self.observed == self.history[self.ply])
        {
            self.back_at_base(out);
            return;
        }
        let shows_game = match self.kind {
            BoardKind::Occupancy => self.occ == self.target.occupied(),
            BoardKind::Identity => self.observed == self.target,
        };
        if self.turn == Turn::Owed && shows_game {
            // Every owed move replicated by a path the events do not explain (a snapshot, a
            // board faster than its scan): the board shows the game, so take it as such.
            self.jump_to_game();
            self.belief = self.target.clone();
            self.back_at_base(out);
            return;
        }
        if self.already_reported() || self.taking_back_a_capture() {
            return;
        }
        let shows = |b: &Board| match self.kind {
            BoardKind::Occupancy => b.occupied() == self.occ,
            BoardKind::Identity => *b == self.observed,
        };
        if let Some(k) = (0..self.ply).rev().find(|&k| shows(&self.history[k])) {
            out.push(Conclusion::Takeback {
                plies: self.ply + self.owed.len() - k,
            });
            self.last_report = Some(self.report_key());
            return;
        }
        let reason = (explained && self.turn != Turn::Owed).then(|| self.classify());
        self.report_wrong(reason, out);
    }

    /// The board shows the position before the last move except for the piece that move
    /// captured: a takeback on its way (the captured piece is put back last, since its hole
    /// was taken).
    fn taking_back_a_capture(&self) -> bool {
        let Some(&last) = self.ply.checked_sub(1).and_then(|i| self.moves.get(i)) else {
            return false;
        };
        let Some(taken) = captured_square(last) else {
            return false;
        };
        let mut before = self.history[self.ply - 1].clone();
        before.discard_piece_at(taken);
        match self.kind {
            BoardKind::Occupancy => self.occ == before.occupied(),
            BoardKind::Identity => self.observed == before,
        }
    }

    // ------------------------------------------------------------------ occupancy boards

    fn occ_lift(&mut self, sq: Square, touch: bool, out: &mut Vec<Conclusion>) -> bool {
        if !self.occ.contains(sq) {
            return false;
        }
        if let Some(d) = self.deferred {
            if sq == d.waiting {
                self.deferred = Some(Deferred {
                    suspended: true,
                    ..d
                });
            } else {
                self.release(out);
            }
        }
        self.seq += 1;
        self.occ.discard(sq);
        let piece = self.belief.remove_piece_at(sq);
        if self.hand.len() >= MAX_HAND {
            self.hand.remove(0);
        }
        self.hand.push(Peg {
            origin: sq,
            piece,
            at: self.seq,
        });
        self.last_lift[sq as usize] = self.seq;
        if touch && self.turn == Turn::Own && !self.game_over && !self.touched.contains(sq) {
            self.touched.add(sq);
            if let Some(p) = piece
                && self.history[self.ply].piece_at(sq) == Some(p)
            {
                self.report_touch(sq, p, out);
            }
        }
        true
    }

    fn occ_place(&mut self, sq: Square, out: &mut Vec<Conclusion>) -> bool {
        if self.occ.contains(sq) {
            return false;
        }
        if let Some(d) = self.deferred {
            let waiting_in_hand =
                !self.occ.contains(d.waiting) && self.last_lift[d.waiting as usize] > d.since;
            if !waiting_in_hand {
                self.release(out);
            }
        }
        self.seq += 1;
        self.occ.add(sq);
        match self.take_from_hand(sq) {
            Some(p) => self.belief.set_piece_at(sq, p),
            None => self.belief.discard_piece_at(sq),
        }
        self.last_place[sq as usize] = self.seq;
        true
    }

    /// Which peg went into `sq`. An occupancy board cannot tell; the guess only names pieces in
    /// messages and never decides a move. In order: the mover's own peg put back where it came
    /// from; the mover's latest peg that could go there; any peg put back where it came from;
    /// the mover's latest peg; the latest peg. A peg from beside the board is believed to be
    /// what the game wants there.
    fn take_from_hand(&mut self, sq: Square) -> Option<Piece> {
        let turn = self.base.turn();
        let own = |p: &Peg| p.piece.is_some_and(|pc| pc.color == turn);
        let could_go = |p: &Peg| {
            p.piece
                .is_some_and(|pc| pc.color == turn && reachable(&self.base, pc, p.origin, sq))
        };
        let i = self
            .hand
            .iter()
            .rposition(|p| p.origin == sq && own(p))
            .or_else(|| self.hand.iter().rposition(could_go))
            .or_else(|| self.hand.iter().rposition(|p| p.origin == sq))
            .or_else(|| self.hand.iter().rposition(own))
            .or_else(|| self.hand.len().checked_sub(1));
        match i {
            Some(i) => self.hand.remove(i).piece,
            None => self
                .target
                .piece_at(sq)
                .or_else(|| self.history[self.ply].piece_at(sq)),
        }
    }

    fn occ_snapshot(&mut self, snap: Bitboard, out: &mut Vec<Conclusion>) {
        if self.fresh {
            self.fresh = false;
            self.release(out);
            self.occ = snap;
            self.hand.clear();
            self.new_window();
            self.fresh_compare(out);
            return;
        }
        if snap == self.occ {
            return;
        }
        for sq in self.occ & !snap {
            self.occ_lift(sq, false, out);
        }
        for sq in snap & !self.occ {
            self.occ_place(sq, out);
        }
        self.evaluate(Trigger::Unexplained, out);
    }

    /// The first snapshot after power-up or a reconnect: no events explain it.
    fn fresh_compare(&mut self, out: &mut Vec<Conclusion>) {
        let away = std::mem::take(&mut self.back_from_away);
        let shows = |d: &MoveDetector, b: &Board| match d.kind {
            BoardKind::Occupancy => d.occ == b.occupied(),
            BoardKind::Identity => d.observed == *b,
        };
        if shows(self, &self.target.clone()) {
            self.jump_to_game();
            self.belief = self.target.clone();
            self.back_at_base(out);
            return;
        }
        if shows(self, &self.history[self.ply].clone()) {
            self.belief = self.history[self.ply].clone();
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
                    self.belief = board_after(self.base.board(), self.base.turn(), m);
                }
                self.conclude(m, out);
                return;
            }
            // A pawn on the last rank of an occupancy board: the promotion is pending again,
            // and the key (or the control interface) names the piece.
            Some(Away::Promotion(from, to)) => {
                let mut belief = self.base.board().clone();
                if let Some(pawn) = belief.remove_piece_at(from) {
                    belief.discard_piece_at(to);
                    belief.set_piece_at(to, pawn);
                }
                self.belief = belief;
                self.promotion_from_snapshot = true;
                self.promotion_reached(from, to, out);
                return;
            }
            None => {}
        }
        self.belief = Board::empty();
        self.fill_belief();
        self.report_wrong(None, out);
    }

    /// The one legal move of this board's player that leaves the board as observed, if there
    /// is exactly one; on an occupancy board, a promotion whose piece it cannot see.
    fn made_while_away(&self, away: bool) -> Option<Away> {
        if !away || self.turn != Turn::Own || self.game_over {
            return None;
        }
        let found: Vec<Move> = self
            .cands
            .iter()
            .filter(|c| match self.kind {
                BoardKind::Occupancy => c.occ == self.occ,
                BoardKind::Identity => {
                    board_after(self.base.board(), self.base.turn(), c.m) == self.observed
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

    /// Each moved peg's hole was emptied in this window and its destination filled after.
    fn peg_moved(&self, (from, to): (Square, Square)) -> bool {
        let lifted = self.last_lift[from as usize];
        lifted > self.window && self.last_place[to as usize] > lifted
    }

    fn consistent(&self, c: &Cand) -> bool {
        if !c.pegs[..c.npegs].iter().all(|&p| self.peg_moved(p)) {
            return false;
        }
        match c.captured {
            None => true,
            Some(cap) => {
                let lifted = self.last_lift[cap as usize];
                lifted > self.window
                    && (c.pegs[..c.npegs].iter().all(|&(_, to)| to != cap)
                        || self.last_place[cap as usize] > lifted)
            }
        }
    }

    fn evaluate(&mut self, trigger: Trigger, out: &mut Vec<Conclusion>) {
        // Complete candidates.
        let mut first: Option<usize> = None;
        let mut others = false;
        let mut castle: Option<usize> = None;
        let mut all_by_castling_pieces = true;
        for (i, c) in self.cands.iter().enumerate() {
            if c.occ != self.occ || !self.consistent(c) {
                continue;
            }
            if c.m.is_castle() {
                castle = Some(i);
            }
            match first {
                None => first = Some(i),
                Some(f) => {
                    let a = self.cands[f].m;
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
            let pieces = moved_squares(self.cands[k].m);
            for c in &self.cands {
                if c.m != self.cands[k].m
                    && c.occ == self.occ
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
            let m = self.cands[i].m;
            if m.is_promotion() && self.turn != Turn::Owed {
                if !others && let Some(from) = m.from() {
                    self.promotion_reached(from, m.to(), out);
                }
                return;
            }
            if others {
                // Two moves explain the board equally: never a guess.
                return;
            }
            if let Some(d) = self.deferred {
                if d.m == m {
                    self.release(out);
                    return;
                }
                self.deferred = None;
            }
            if self.turn == Turn::Own
                && let Some(waiting) = self.castling_half(i)
            {
                self.deferred = Some(Deferred {
                    m,
                    deadline: self.now.saturating_add(self.settings.settle_ms),
                    waiting,
                    since: self.seq,
                    suspended: false,
                });
                return;
            }
            self.conclude(m, out);
            return;
        }
        self.promotion = None;
        if self.in_partial() || trigger == Trigger::Lift || !self.occ_at_rest() {
            return;
        }
        if self.deferred.is_some() {
            // The other castling piece went somewhere else: the held move stands, and what
            // followed is judged against the position after it.
            self.release(out);
        }
        self.settled(trigger != Trigger::Unexplained, out);
    }

    /// Whether the board is also half of a legal castling (other than candidate `i`); the hole
    /// of the castling piece still to move.
    fn castling_half(&self, i: usize) -> Option<Square> {
        let m = self.cands[i].m;
        self.partials
            .iter()
            .filter(|p| p.of != m && p.of.is_castle())
            .find(|p| p.occ == self.occ && self.peg_moved(p.moved))
            .map(|p| p.waiting)
    }

    fn in_partial(&self) -> bool {
        self.partials
            .iter()
            .any(|p| p.occ == self.occ && self.peg_moved(p.moved))
    }

    /// No peg in hand that a legal move would not capture, and not just the pieces a capture
    /// takes lifted off (the capturer is still to come).
    fn occ_at_rest(&self) -> bool {
        if !self.hand.iter().all(|p| self.capturable.contains(p.origin)) {
            return false;
        }
        let base = self.history[self.ply].occupied();
        let missing = base & !self.occ;
        let extra = self.occ & !base;
        !(extra.is_empty() && missing.any() && missing.is_subset(self.capturable))
    }

    // ------------------------------------------------------------------ identity boards

    fn id_change(&mut self, sq: Square, piece: Option<Piece>, out: &mut Vec<Conclusion>) {
        let sq = if self.rotated { sq.rotate_180() } else { sq };
        if self.observed.piece_at(sq) == piece {
            return;
        }
        match piece {
            Some(p) => self.observed.set_piece_at(sq, p),
            None => self.observed.discard_piece_at(sq),
        }
        if piece.is_none() && self.pending.is_some() {
            self.later_touches.add(sq);
        } else if piece.is_none()
            && self.turn == Turn::Own
            && !self.game_over
            && !self.touched.contains(sq)
            && let Some(p) = self.history[self.ply].piece_at(sq)
        {
            self.touched.add(sq);
            self.report_touch(sq, p, out);
        }
        self.id_step(false, out);
    }

    fn id_dump(&mut self, mut board: Board, out: &mut Vec<Conclusion>) {
        if !self.rotated && board != self.history[self.ply] && board != self.target {
            let mut turned = board.clone();
            turned.rotate_180();
            if turned == self.history[0]
                || turned == self.history[self.ply]
                || turned == self.target
            {
                self.rotated = true;
                out.push(Conclusion::Rotated);
            }
        }
        if self.rotated {
            board.rotate_180();
        }
        self.observed = board;
        if self.fresh {
            self.fresh = false;
            self.pending = None;
            self.eval_at = None;
            self.fresh_compare(out);
            return;
        }
        self.id_step(true, out);
    }

    fn id_step(&mut self, dump: bool, out: &mut Vec<Conclusion>) {
        // At most twice: a held move and its reply can be concluded by one event.
        for _ in 0..2 {
            if self.observed == self.history[self.ply] {
                self.back_at_base(out);
                return;
            }
            if let Some(i) = self.cands.iter().position(|c| self.shows_after(c)) {
                let m = self.cands[i].m;
                self.promotion = None;
                if self.turn == Turn::Anticipated {
                    self.pending = None;
                    self.eval_at = None;
                } else if dump {
                    self.pending = None;
                    self.eval_at = None;
                    self.conclude(m, out);
                } else {
                    self.pending = Some(m);
                    self.eval_at = Some(self.now.saturating_add(self.settings.settle_ms));
                }
                return;
            }
            if let Some(p) = self.pending
                && let Some(replies) = self.reply_shown(p)
            {
                self.pending = None;
                self.eval_at = None;
                self.next_moves = Some((self.ply + 1, replies));
                self.conclude(p, out);
                // Used by the table the conclusion built; never left for another position.
                self.next_moves = None;
                continue;
            }
            break;
        }
        if dump {
            self.pending = None;
            self.eval_at = None;
            self.id_rest(true, out);
        } else {
            self.eval_at = Some(self.now.saturating_add(self.settings.settle_ms));
        }
    }

    /// Whether the identity board shows the position after candidate `c`. Occupancy first: one
    /// comparison rules out nearly every candidate.
    fn shows_after(&self, c: &Cand) -> bool {
        c.occ == self.observed.occupied()
            && board_after(self.base.board(), self.base.turn(), c.m) == self.observed
    }

    /// The board shows the held move `p` and then a legal reply made on this board: the player
    /// moved on, so `p` was finished.
    /// Returns the legal moves after `p`, which the next table needs anyway.
    fn reply_shown(&self, p: Move) -> Option<MoveList> {
        if self.turn != Turn::Own {
            return None;
        }
        // A reply changes two to four squares; most events mid-reply change fewer.
        let after = board_after(self.base.board(), self.base.turn(), p);
        let changed = squares_differing(&after, &self.observed);
        if !(2..=4).contains(&changed.count()) {
            return None;
        }
        let mut pos = self.base.clone();
        pos.play_unchecked(p);
        if self.settings.mover.is_some_and(|c| c != pos.turn()) {
            return None;
        }
        let replies = pos.legal_moves();
        replies
            .iter()
            .any(|&q| {
                moved_squares(q).intersects(changed)
                    && board_after(&after, pos.turn(), q) == self.observed
            })
            .then_some(replies)
    }

    /// The identity board has been quiet (or a dump arrived) and shows no candidate.
    fn id_rest(&mut self, explained: bool, out: &mut Vec<Conclusion>) {
        let base = &self.history[self.ply];
        if self.observed == *base {
            self.back_at_base(out);
            return;
        }
        // Pieces only lifted: in someone's hand.
        if base.occupied().is_superset(self.observed.occupied())
            && self
                .observed
                .iter()
                .all(|(sq, p)| base.piece_at(sq) == Some(p))
        {
            return;
        }
        // Part of a move's squares updated (the scan reports them in any order, and may report
        // the arrival before the departure): the rest is still to come.
        let changed = squares_differing(base, &self.observed);
        let partial = self.cands.iter().any(|c| {
            let after = board_after(base, self.base.turn(), c.m);
            changed.is_subset(squares_differing(base, &after))
                && changed
                    .into_iter()
                    .all(|sq| self.observed.piece_at(sq) == after.piece_at(sq))
        });
        if partial {
            return;
        }
        if let Some((from, to)) = self.pawn_waiting() {
            if self.turn != Turn::Owed {
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
    fn pawn_waiting(&self) -> Option<(Square, Square)> {
        self.cands.iter().find_map(|c| {
            let (from, to) = (c.m.from()?, c.m.to());
            (c.m.promotion() == Some(Role::Queen) && c.occ == self.observed.occupied() && {
                let mut b = board_after(self.base.board(), self.base.turn(), c.m);
                b.set_piece_at(
                    to,
                    Piece {
                        color: self.base.turn(),
                        role: Role::Pawn,
                    },
                );
                b == self.observed
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
        if !self.own_last || !self.owed.is_empty() || self.ply == 0 {
            return false;
        }
        let Some(prev) = self.prev.clone() else {
            return false;
        };
        let last = self.moves[self.ply - 1];
        let before = &self.history[self.ply - 1];
        let Some(m) = prev
            .legal_moves()
            .into_iter()
            .find(|&m| m != last && board_after(before, prev.turn(), m) == self.observed)
        else {
            return false;
        };
        out.push(Conclusion::Takeback { plies: 1 });
        out.push(Conclusion::Moved { m, warning: None });
        self.ply -= 1;
        self.moves.truncate(self.ply);
        self.history.truncate(self.ply + 1);
        self.base = prev;
        self.prev = None;
        self.advance(m, true);
        true
    }

    // ------------------------------------------------------------------ judging

    /// Touch-move (4.3, 4.4) for the move `m` given the pieces lifted in this window, in order.
    fn touch_warning(&self, m: Move) -> Option<TouchMoveWarning> {
        let turn = self.base.turn();
        let pos = |sq: Square| self.touches.iter().position(|&(s, _)| s == sq);
        if let Move::Castle { king, rook } = m
            && let (Some(k), Some(r)) = (pos(king), pos(rook))
            && r < k
        {
            return Some(TouchMoveWarning::CastledAfterTouchingRook { rook });
        }
        let own: Vec<(Square, Piece)> = self
            .touches
            .iter()
            .copied()
            .filter(|(_, p)| p.color == turn)
            .collect();
        let opp: Vec<(Square, Piece)> = self
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
            if m != castle && self.cands.iter().any(|c| c.m == castle) {
                return Some(TouchMoveWarning::CastlingRequired { king, rook });
            }
        }
        let moves_piece = |sq: Square| self.cands.iter().any(|c| moved_squares(c.m).contains(sq));
        let can_capture = |from: Option<Square>, target: Square| {
            self.cands.iter().any(|c| {
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
                    let first = self.touches.iter().copied().find(|&(sq, piece)| {
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

    /// Why the settled board is no legal move, as precisely as the board shows it.
    fn classify(&self) -> IllegalReason {
        if self.game_over {
            return IllegalReason::GameOver;
        }
        let base = self.history[self.ply].clone();
        let turn = self.base.turn();
        let (seen, occ) = match self.kind {
            BoardKind::Occupancy => (&self.belief, self.occ),
            BoardKind::Identity => (&self.observed, self.observed.occupied()),
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
        if self.turn == Turn::Anticipated
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
                return if reachable(&self.base, piece, from, to) {
                    IllegalReason::LeavesKingInCheck { piece, from, to }
                } else {
                    IllegalReason::CannotMoveThatWay { piece, from, to }
                };
            }
        }
        IllegalReason::PiecesDisplaced
    }
}

/// Squares whose content differs between two boards.
fn squares_differing(a: &Board, b: &Board) -> Bitboard {
    let mut d = (a.white() ^ b.white()) | (a.black() ^ b.black());
    for role in Role::ALL {
        d |= a.by_role(role) ^ b.by_role(role);
    }
    d
}

/// Could `piece` go from `from` to `to` in `pos` if check did not matter?
fn reachable(pos: &Chess, piece: Piece, from: Square, to: Square) -> bool {
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
fn moved_squares(m: Move) -> Bitboard {
    match m {
        Move::Castle { king, rook } => Bitboard::from(king) | Bitboard::from(rook),
        _ => m.from().map(Bitboard::from).unwrap_or(Bitboard::EMPTY),
    }
}

/// The square of the piece a move captures.
fn captured_square(m: Move) -> Option<Square> {
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
fn board_after(board: &Board, color: Color, m: Move) -> Board {
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

/// A plausible human order of lifts and placements for `m` in `pos` on a peg board, chosen by
/// `seed` among all orders a hand can perform (a hole must be empty before a peg goes in; a
/// captured piece is lifted and put aside at any time before its hole is refilled). Promotions
/// end with the `K` key for the new piece. For simulators, tests and benchmarks.
pub fn human_events(pos: &Chess, m: Move, seed: u64) -> Vec<SensorEvent> {
    let color = pos.turn();
    // (origin, destination; None = put aside)
    let mut pegs: Vec<(Square, Option<Square>)> = Vec::with_capacity(2);
    match m {
        Move::Normal {
            from, to, capture, ..
        } => {
            pegs.push((from, Some(to)));
            if capture.is_some() {
                pegs.push((to, None));
            }
        }
        Move::EnPassant { from, to } => {
            pegs.push((from, Some(to)));
            pegs.push((Square::from_coords(to.file(), from.rank()), None));
        }
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(king < rook);
            let (king_to, rook_to) = (side.king_to(color), side.rook_to(color));
            if king != king_to {
                pegs.push((king, Some(king_to)));
            }
            if rook != rook_to {
                pegs.push((rook, Some(rook_to)));
            }
        }
        Move::Put { to, .. } => pegs.push((to, Some(to))),
    }
    let mut rng = seed ^ 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        // xorshift64*: deterministic and good enough to pick among a handful of actions.
        rng ^= rng >> 12;
        rng ^= rng << 25;
        rng ^= rng >> 27;
        rng.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let mut occ = pos.board().occupied();
    // 0 on the board, 1 in hand, 2 done
    let mut state = vec![0u8; pegs.len()];
    let mut events = Vec::with_capacity(pegs.len() * 2 + 1);
    while state.iter().any(|&s| s != 2) {
        let mut options: Vec<(usize, bool)> = Vec::with_capacity(4);
        for (i, &(_, dest)) in pegs.iter().enumerate() {
            match (state[i], dest) {
                (0, _) => options.push((i, true)),
                (1, Some(d)) if !occ.contains(d) => options.push((i, false)),
                _ => {}
            }
        }
        let Some(&(i, lift)) = options.get((next() % options.len().max(1) as u64) as usize) else {
            break;
        };
        let (origin, dest) = pegs[i];
        if lift {
            occ.discard(origin);
            events.push(SensorEvent::Lift(origin));
            state[i] = if dest.is_some() { 1 } else { 2 };
        } else if let Some(d) = dest {
            occ.add(d);
            events.push(SensorEvent::Place(d));
            state[i] = 2;
        }
    }
    if let Some(role) = m.promotion() {
        events.push(SensorEvent::Key(BoardKey::Promote(role)));
    }
    events
}
