//! The game as far as the physical board has gone, kept in step with the table's game.
//!
//! The game can run ahead of the board (moves the board owes: the other side's, entered by the
//! table) and the board ahead of the game (a `Moved` the caller has not played yet). When the
//! table changes the game on its own (undo, a new game, a refused move) the detector re-bases
//! on it and compares the board with it.

use shakmaty::{Bitboard, Board, CastlingMode, Chess, Color, Move, Position};

use super::{BoardKind, Conclusion, MoveDetector, Trigger};
use annabella_chess::game::Game;

/// The line of play the physical board follows.
#[derive(Debug, Clone)]
pub(super) struct Line {
    /// The game's castling mode, to notice a different game (and Chess960 castling).
    pub(super) mode: CastlingMode,
    /// The game ply the board is known to show (its moves are `moves[..ply]`).
    pub(super) ply: usize,
    /// The side to move in the game's start position, to notice a different game.
    pub(super) start_turn: Color,
    /// The moves that led to `ply`, to notice the table changing the line under the board.
    pub(super) moves: Vec<Move>,
    /// The board at each ply `0..=ply`: what a takeback, a refused move or a sliding move is
    /// compared with.
    pub(super) history: Vec<Board>,
    /// The position at `ply`: the one whose candidates the table holds.
    pub(super) base: Chess,
    /// The position before the last move, kept on identity boards only (sliding: the player
    /// changes his mind about the move just concluded).
    pub(super) prev: Option<Chess>,
    /// The last move was concluded here as `Moved` (not replicated, not loaded from the game):
    /// only such a move may slide.
    pub(super) own_last: bool,
    /// The game's moves beyond `ply`: what the board owes.
    pub(super) owed: Vec<Move>,
    /// The game is over: no move can be made, and a changed board is never a move.
    pub(super) game_over: bool,
}

impl Line {
    /// The line at the end of `game`, nothing owed.
    pub(super) fn of(game: &Game) -> Line {
        let mut history = Vec::with_capacity(game.ply_count() + 1);
        let mut prev = None;
        let mut pos = game.start_position().clone();
        history.push(pos.board().clone());
        for &m in game.moves() {
            prev = Some(pos.clone());
            pos.play_unchecked(m);
            history.push(pos.board().clone());
        }
        Line {
            mode: game.castling_mode(),
            ply: game.ply_count(),
            start_turn: game.start_position().turn(),
            moves: game.moves().to_vec(),
            history,
            base: pos,
            prev,
            own_last: false,
            owed: Vec::new(),
            game_over: game.is_over(),
        }
    }
}

impl MoveDetector {
    /// Compares the game with the line: re-bases when the table changed it on its own, and
    /// rebuilds the table when the moves owed (or the game's end) changed.
    pub(super) fn sync(&mut self, game: &Game, out: &mut Vec<Conclusion>) {
        let n = game.ply_count();
        let same_game = game.castling_mode() == self.line.mode
            && game.start_position().board() == &self.line.history[0]
            && game.start_position().turn() == self.line.start_turn;
        let same_line = n >= self.line.ply
            && (self.line.ply == 0
                || game.moves()[self.line.ply - 1] == self.line.moves[self.line.ply - 1]);
        if !same_game || !same_line {
            self.rebase(game, out);
            return;
        }
        let owed = &game.moves()[self.line.ply..];
        let over = game.is_over();
        if owed != self.line.owed.as_slice() || over != self.line.game_over {
            self.line.owed = owed.to_vec();
            self.line.game_over = over;
            self.build_table();
            self.recheck(out);
        }
    }

    /// Loads the game without touching what the physical board shows.
    pub(super) fn load_game(&mut self, game: &Game) {
        self.line = Line::of(game);
        self.build_table();
        self.new_window();
        self.pieces.pending = None;
        self.pieces.eval_at = None;
        self.reported.last = None;
        self.reported.taken_back = false;
    }

    /// Loads the game afresh and judges the board against it at once.
    pub(super) fn rebase(&mut self, game: &Game, out: &mut Vec<Conclusion>) {
        self.load_game(game);
        self.pegs.deferred = None;
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
    pub(super) fn recheck(&mut self, out: &mut Vec<Conclusion>) {
        match self.kind {
            BoardKind::Occupancy => self.evaluate(Trigger::Unexplained, out),
            BoardKind::Identity => {
                if self.pieces.observed != self.line.history[self.line.ply] {
                    self.id_step(false, out)
                }
            }
        }
    }

    /// The candidate table for the line's position (after it moved on or what is owed changed).
    pub(super) fn build_table(&mut self) {
        self.table
            .rebuild(&self.line, self.settings.mover, &mut self.pieces.next_moves);
    }

    /// A new window: the position changed, so touches and event order start afresh.
    pub(super) fn new_window(&mut self) {
        self.pegs.window = self.pegs.seq;
        self.touch.touched = Bitboard::EMPTY;
        self.touch.touches.clear();
        self.touch.reported_own = false;
        self.touch.reported_opp = false;
        self.promotion.waiting = None;
        self.promotion.from_snapshot = false;
        self.promotion.preselected = None;
        self.pegs.deferred = None;
    }

    /// The board's position moves on by `m` (concluded here or replicated).
    pub(super) fn advance(&mut self, m: Move, own: bool) {
        // Only identity boards look back a move (sliding).
        self.line.prev = (self.kind == BoardKind::Identity).then(|| self.line.base.clone());
        self.line.base.play_unchecked(m);
        self.line.moves.truncate(self.line.ply);
        self.line.moves.push(m);
        self.line.ply += 1;
        self.line.history.push(self.line.base.board().clone());
        self.line.own_last = own;
        if self.line.owed.first() == Some(&m) {
            self.line.owed.remove(0);
        } else {
            self.line.owed.clear();
        }
        self.build_table();
        self.new_window();
        self.pegs.hand.clear();
        self.pieces.pending = None;
        self.pieces.eval_at = None;
        self.reported.out_of_sync = false;
        self.reported.taken_back = false;
        self.reported.last = None;
        self.reported.own_displaced = 0;
        if self.pegs.occ == self.line.base.board().occupied() {
            self.pegs.belief = self.line.base.board().clone();
            // A move made (a capture's peg into the taken piece's hole): the pegs are known.
            self.pegs.forget_unsure();
        }
    }

    /// The board is taken to show the game's position (after a snapshot that shows it, or one
    /// that must be corrected towards it).
    pub(super) fn jump_to_game(&mut self) {
        while let Some(&m) = self.line.owed.first() {
            if !self.line.base.is_legal(m) {
                break;
            }
            self.advance(m, false);
        }
    }
}
