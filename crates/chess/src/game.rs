//! A game on shakmaty: start position, move history, outcome and draw claims (FIDE 5, 6.9, 9).
//!
//! # What ends a game by itself
//! Checkmate (5.1.1), stalemate (5.2.1), a dead position (5.2.2), fivefold repetition (9.6.1)
//! and 75 moves by each side without capture or pawn move (9.6.2). Mate is tested first, so a
//! mate on the 150th half-move is mate, as 9.6.2 says.
//!
//! # Dead positions: the limit
//! Only *material* dead positions are recognised: both sides fail shakmaty's
//! `has_insufficient_material`, i.e. K v K, K+B v K, K+N v K and kings with bishops that all
//! stand on squares of one colour. That test is sure (it never calls a live position dead), but
//! it misses dead positions that depend on where the pieces stand (locked pawn chains, a
//! bishop that can never reach the other king). Those need the arbiter:
//! [`Game::arbiter_decision`]. K+N+N v K is *not* dead (the weaker side can blunder into mate).
//!
//! # Repetition
//! A position's key is its Zobrist hash with en passant counted only when a legal en passant
//! capture exists (`EnPassantMode::Legal`), which also covers side to move and castling rights:
//! exactly the FIDE 9.2.2 notion of "the same position". Positions before the last capture or
//! pawn move cannot recur, so only the half-move clock's window is searched.
//!
//! # Memory
//! The game keeps its start position, the moves, one 8-byte key per position and the current
//! position; earlier positions are replayed on demand ([`Game::position_before`],
//! [`Game::replay`]). That keeps a long imported game small and makes [`Game::undo`] obviously
//! right (it replays), at the price of O(plies) per undo.

use std::fmt;

use shakmaty::fen::Fen;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, Position, Role};

/// Half-moves without capture or pawn move after which the player to move may claim (9.3).
pub const FIFTY_MOVE_HALFMOVES: u32 = 100;
/// Half-moves without capture or pawn move after which the game is drawn (9.6.2).
pub const SEVENTY_FIVE_MOVE_HALFMOVES: u32 = 150;
/// Occurrences of a position that allow a claim (9.2).
pub const CLAIM_REPETITIONS: usize = 3;
/// Occurrences of a position that draw the game by themselves (9.6.1).
pub const AUTOMATIC_REPETITIONS: usize = 5;
/// Most half-moves in one game taken from outside (PGN, a pasted move list, a player's sheet):
/// five times the longest tournament game ever played. Every reader refuses a longer game, so
/// one hostile text cannot make a game that takes forever to replay.
pub const MAX_PLIES: usize = 3000;

/// Longest FEN kept in an error message; hostile input can be arbitrarily long.
const MAX_FEN_IN_ERROR: usize = 120;

/// The result of a finished game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
}

impl GameResult {
    pub fn win_for(color: Color) -> GameResult {
        match color {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }

    pub fn winner(self) -> Option<Color> {
        match self {
            GameResult::WhiteWins => Some(Color::White),
            GameResult::BlackWins => Some(Color::Black),
            GameResult::Draw => None,
        }
    }

    /// The PGN result token: `1-0`, `0-1` or `1/2-1/2`.
    pub fn pgn(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// Reads a PGN result token; `*` (unfinished) and anything else give `None`.
    pub fn from_pgn(text: &str) -> Option<GameResult> {
        match text.trim() {
            "1-0" => Some(GameResult::WhiteWins),
            "0-1" => Some(GameResult::BlackWins),
            "1/2-1/2" | "½-½" => Some(GameResult::Draw),
            _ => None,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GameResult::WhiteWins => "white wins",
            GameResult::BlackWins => "black wins",
            GameResult::Draw => "draw",
        })
    }
}

/// Why a draw claim (9.2, 9.3) is correct.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DrawReason {
    ThreefoldRepetition,
    FiftyMoveRule,
}

impl fmt::Display for DrawReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DrawReason::ThreefoldRepetition => "threefold repetition",
            DrawReason::FiftyMoveRule => "the fifty-move rule",
        })
    }
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EndReason {
    Checkmate,
    Stalemate,
    /// Neither side has mating material: the material part of a dead position (5.2.2).
    InsufficientMaterial,
    FivefoldRepetition,
    SeventyFiveMoveRule,
    Agreement,
    /// `by` resigned; a draw when the opponent had no mating material (5.1.2).
    Resignation {
        by: Color,
    },
    /// `flagged` ran out of time; a draw when the opponent had no mating material (6.9).
    Timeout {
        flagged: Color,
    },
    /// A correct claim by the player to move (9.2, 9.3).
    Claim(DrawReason),
    /// Decided by the arbiter: a dead position the material test misses, a second illegal
    /// move (7.5.5), an illegal sealed move, a penalty.
    ArbiterDecision,
}

/// How a game ended: the result and the reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GameEnd {
    pub result: GameResult,
    pub reason: EndReason,
}

impl GameEnd {
    fn new(result: GameResult, reason: EndReason) -> GameEnd {
        GameEnd { result, reason }
    }
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

impl fmt::Display for GameEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let result = self.result;
        match self.reason {
            EndReason::Checkmate => write!(f, "checkmate, {result}"),
            EndReason::Stalemate => f.write_str("stalemate, draw"),
            EndReason::InsufficientMaterial => {
                f.write_str("neither side can checkmate (dead position), draw")
            }
            EndReason::FivefoldRepetition => f.write_str("fivefold repetition, draw"),
            EndReason::SeventyFiveMoveRule => {
                f.write_str("75 moves by each side without capture or pawn move, draw")
            }
            EndReason::Agreement => f.write_str("draw by agreement"),
            EndReason::Resignation { by } if result == GameResult::Draw => write!(
                f,
                "{} resigned, but {} cannot checkmate: draw",
                color_name(by),
                color_name(!by)
            ),
            EndReason::Resignation { by } => write!(f, "{} resigned, {result}", color_name(by)),
            EndReason::Timeout { flagged } if result == GameResult::Draw => write!(
                f,
                "{} ran out of time, but {} cannot checkmate: draw",
                color_name(flagged),
                color_name(!flagged)
            ),
            EndReason::Timeout { flagged } => {
                write!(f, "{} ran out of time, {result}", color_name(flagged))
            }
            EndReason::Claim(reason) => write!(f, "draw by {reason}, claimed"),
            EndReason::ArbiterDecision => write!(f, "arbiter's decision, {result}"),
        }
    }
}

/// What a game refuses to do, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    #[error("illegal move {uci} in position {fen}")]
    IllegalMove { uci: String, fen: String },
    #[error("the game is over ({0}); nothing more can be played or declared")]
    GameOver(GameEnd),
    #[error(
        "a draw by agreement needs both players to have moved at least once; \
         {plies} half-move(s) played"
    )]
    AgreementTooEarly { plies: usize },
    #[error("invalid fen {fen:?}: {reason}")]
    InvalidFen { fen: String, reason: String },
    #[error("no chess960 position number {0}; the numbers run from 0 to 959")]
    NoSuchChess960(u32),
}

/// Why a draw claim is refused. A wrong claim is the arbiter's business (9.5.3); this only
/// reports.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClaimRefused {
    #[error("the game is already over ({0})")]
    GameOver(GameEnd),
    #[error("the intended move {uci} is illegal")]
    IllegalMove { uci: String },
    #[error(
        "no draw: the position {} {repetitions} time(s) ({CLAIM_REPETITIONS} needed) and \
         {halfmoves} half-move(s) without capture or pawn move {} ({FIFTY_MOVE_HALFMOVES} needed)",
        if *.intended { "would then have occurred" } else { "has occurred" },
        if *.intended { "would then have been played" } else { "have been played" }
    )]
    NoGrounds {
        /// Occurrences of the position (after the intended move, if any), this one included.
        repetitions: usize,
        /// Half-moves without capture or pawn move (after the intended move, if any).
        halfmoves: u32,
        /// Whether the claim was made with an intended move (9.2.1.1, 9.3.1).
        intended: bool,
    },
}

/// A game: where it started, what was played, and how it ended.
#[derive(Debug, Clone)]
pub struct Game {
    start: Chess,
    mode: CastlingMode,
    moves: Vec<Move>,
    /// `keys[i]` is the repetition key of the position before `moves[i]`; the last one is the
    /// current position's. Plain `u64` because shakmaty's `Zobrist64` is not `Debug`.
    keys: Vec<u64>,
    current: Chess,
    /// Set by the position itself: mate, stalemate, dead, fivefold, 75 moves.
    automatic: Option<GameEnd>,
    /// Set by a person: resignation, flag, agreement, claim, arbiter.
    declared: Option<GameEnd>,
}

impl Default for Game {
    fn default() -> Game {
        Game::new()
    }
}

fn key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

fn uci(m: Move, mode: CastlingMode) -> String {
    m.to_uci(mode).to_string()
}

fn cut(text: &str, max: usize) -> String {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

impl Game {
    /// A standard game from the usual start position.
    pub fn new() -> Game {
        Game::from_position(Chess::default(), CastlingMode::Standard)
    }

    /// A game from any legal position.
    pub fn from_position(start: Chess, mode: CastlingMode) -> Game {
        let mut game = Game {
            keys: vec![key(&start)],
            current: start.clone(),
            start,
            mode,
            moves: Vec::new(),
            automatic: None,
            declared: None,
        };
        game.automatic = game.automatic_end();
        game
    }

    /// A game from a FEN, X-FEN or Shredder-FEN. With `chess960` the castling rules are
    /// Chess960's; without, Chess960 castling is still chosen when the castling field only
    /// makes sense that way (a Shredder letter naming an inner rook, a king off the e-file).
    pub fn from_fen(fen: &str, chess960: bool) -> Result<Game, GameError> {
        let invalid = |reason: String| GameError::InvalidFen {
            fen: cut(fen, MAX_FEN_IN_ERROR),
            reason,
        };
        let parsed = Fen::from_ascii(fen.trim().as_bytes()).map_err(|e| invalid(e.to_string()))?;
        let setup = parsed.into_setup();
        let mode = if chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::detect(&setup)
        };
        let pos = Chess::from_setup(setup, mode).map_err(|e| invalid(e.to_string()))?;
        Ok(Game::from_position(pos, mode))
    }

    /// The Chess960 start position number `n` (0–959) in the standard (Scharnagl) numbering;
    /// 518 is the usual RNBQKBNR.
    pub fn chess960(n: u32) -> Result<Game, GameError> {
        let rank = chess960_back_rank(n).ok_or(GameError::NoSuchChess960(n))?;
        let white: String = rank.iter().map(|r| r.upper_char()).collect();
        let black = white.to_ascii_lowercase();
        // Exactly two rooks per side, so KQkq names them without doubt (X-FEN).
        let fen = format!("{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1");
        Game::from_fen(&fen, true)
    }

    pub fn start_position(&self) -> &Chess {
        &self.start
    }

    pub fn castling_mode(&self) -> CastlingMode {
        self.mode
    }

    /// Whether the game started from the usual position under the usual castling rules.
    pub fn is_standard_start(&self) -> bool {
        self.mode == CastlingMode::Standard
            && self.start == Chess::default()
            && self.start.halfmoves() == 0
            && self.start.fullmoves().get() == 1
    }

    /// The current position.
    pub fn position(&self) -> &Chess {
        &self.current
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Half-moves played in this game (not counting any history before a FEN start).
    pub fn ply_count(&self) -> usize {
        self.moves.len()
    }

    /// The move number of the current position, as a FEN counts it.
    pub fn fullmove_number(&self) -> u32 {
        self.current.fullmoves().get()
    }

    pub fn turn(&self) -> Color {
        self.current.turn()
    }

    /// Half-moves since the last capture or pawn move (FEN counts from before the start too).
    pub fn halfmove_clock(&self) -> u32 {
        self.current.halfmoves()
    }

    /// The current position as FEN (X-FEN castling in Chess960).
    pub fn fen(&self) -> String {
        Fen::from_position(&self.current, EnPassantMode::Legal).to_string()
    }

    /// The start position as FEN.
    pub fn start_fen(&self) -> String {
        Fen::from_position(&self.start, EnPassantMode::Legal).to_string()
    }

    /// The position before half-move `ply` (0-based); `ply == ply_count()` gives the current
    /// position. Replays from the start.
    pub fn position_before(&self, ply: usize) -> Option<Chess> {
        if ply > self.moves.len() {
            return None;
        }
        let mut pos = self.start.clone();
        for &m in &self.moves[..ply] {
            pos.play_unchecked(m);
        }
        Some(pos)
    }

    /// Each move with the position it was played in, from the first.
    pub fn replay(&self) -> impl Iterator<Item = (Chess, Move)> + '_ {
        let mut pos = self.start.clone();
        self.moves.iter().map(move |&m| {
            let before = pos.clone();
            pos.play_unchecked(m);
            (before, m)
        })
    }

    /// How the game ended, if it did. An end the position forces (mate, fivefold …) is never
    /// hidden by a later declaration, since nothing can be declared once the game is over.
    pub fn outcome(&self) -> Option<GameEnd> {
        self.automatic.or(self.declared)
    }

    pub fn is_over(&self) -> bool {
        self.outcome().is_some()
    }

    fn ensure_running(&self) -> Result<(), GameError> {
        match self.outcome() {
            Some(end) => Err(GameError::GameOver(end)),
            None => Ok(()),
        }
    }

    /// Plays a legal move; refuses illegal moves and moves after the end.
    pub fn play(&mut self, m: Move) -> Result<(), GameError> {
        self.ensure_running()?;
        if !self.current.is_legal(m) {
            return Err(GameError::IllegalMove {
                uci: uci(m, self.mode),
                fen: self.fen(),
            });
        }
        self.push(m);
        Ok(())
    }

    /// Plays a legal move past an end the Laws make by themselves but players can miss and
    /// play on: a dead position (5.2.2), a fivefold repetition (9.6.1), the 75-move rule
    /// (9.6.2). A scoresheet records what was played; a live table never calls this. Returns
    /// the end that was played past, if any. Refuses illegal moves, and moves after mate,
    /// stalemate or a declared end.
    pub fn play_past_automatic_end(&mut self, m: Move) -> Result<Option<GameEnd>, GameError> {
        if let Some(end) = self.declared {
            return Err(GameError::GameOver(end));
        }
        let passed = self.automatic;
        if !self.current.is_legal(m) {
            return Err(GameError::IllegalMove {
                uci: uci(m, self.mode),
                fen: self.fen(),
            });
        }
        self.push(m);
        Ok(passed)
    }

    /// The caller has checked that `m` is legal and the game is running.
    fn push(&mut self, m: Move) {
        self.current.play_unchecked(m);
        self.moves.push(m);
        self.keys.push(key(&self.current));
        self.automatic = self.automatic_end();
    }

    /// Takes back the last move and any declared end (resignation, agreement, flag, claim,
    /// arbiter); the outcome is then what the earlier position says.
    pub fn undo(&mut self) -> Option<Move> {
        let last = self.moves.last().copied()?;
        self.truncate(self.moves.len() - 1);
        Some(last)
    }

    /// Keeps the first `plies` half-moves (retracing to where two scoresheets agree, D.2.9).
    /// A declared end is dropped when any move is removed.
    pub fn truncate(&mut self, plies: usize) {
        if plies >= self.moves.len() {
            return;
        }
        let mut pos = self.start.clone();
        for &m in &self.moves[..plies] {
            pos.play_unchecked(m);
        }
        self.moves.truncate(plies);
        self.keys.truncate(plies + 1);
        self.current = pos;
        self.declared = None;
        self.automatic = self.automatic_end();
    }

    /// Cancels a declared end (a flag pressed by mistake, a resignation the arbiter annuls).
    /// The automatic ends cannot be cancelled.
    pub fn withdraw_end(&mut self) -> Option<GameEnd> {
        self.declared.take()
    }

    /// How often the current position has occurred in this game, this time included.
    pub fn repetitions(&self) -> usize {
        let last = self.keys.len() - 1;
        let window = (self.current.halfmoves() as usize).min(last);
        let now = self.keys[last];
        self.keys[last - window..]
            .iter()
            .filter(|&&k| k == now)
            .count()
    }

    /// How often the position after the legal move `m` would have occurred, that time
    /// included; `None` when `m` is illegal.
    pub fn repetitions_after(&self, m: Move) -> Option<usize> {
        if !self.current.is_legal(m) {
            return None;
        }
        if m.is_zeroing() {
            return Some(1);
        }
        let mut next = self.current.clone();
        next.play_unchecked(m);
        let k = key(&next);
        let last = self.keys.len() - 1;
        // The new position's window reaches one ply further back than the current one's.
        let window = (next.halfmoves() as usize).saturating_sub(1).min(last);
        Some(
            1 + self.keys[last - window..]
                .iter()
                .filter(|&&x| x == k)
                .count(),
        )
    }

    fn automatic_end(&self) -> Option<GameEnd> {
        let pos = &self.current;
        if pos.legal_moves().is_empty() {
            return Some(if pos.is_check() {
                GameEnd::new(GameResult::win_for(!pos.turn()), EndReason::Checkmate)
            } else {
                GameEnd::new(GameResult::Draw, EndReason::Stalemate)
            });
        }
        if pos.is_insufficient_material() {
            return Some(GameEnd::new(
                GameResult::Draw,
                EndReason::InsufficientMaterial,
            ));
        }
        if self.repetitions() >= AUTOMATIC_REPETITIONS {
            return Some(GameEnd::new(
                GameResult::Draw,
                EndReason::FivefoldRepetition,
            ));
        }
        if pos.halfmoves() >= SEVENTY_FIVE_MOVE_HALFMOVES {
            return Some(GameEnd::new(
                GameResult::Draw,
                EndReason::SeventyFiveMoveRule,
            ));
        }
        None
    }

    fn declare(&mut self, end: GameEnd) -> Result<GameEnd, GameError> {
        self.ensure_running()?;
        self.declared = Some(end);
        Ok(end)
    }

    /// The result when `loser` resigns or runs out of time: a win for the opponent unless he
    /// has no mating material at all (5.1.2, 6.9). Material-only, as described above: a
    /// locked position with mating material still counts as a win.
    /// A loss for `loser`, or a draw when the opponent has no mating material (5.1.2, 6.9,
    /// 7.5.5).
    pub fn loss_unless_no_mating_material(&self, loser: Color) -> GameResult {
        let winner = !loser;
        if self.current.has_insufficient_material(winner) {
            GameResult::Draw
        } else {
            GameResult::win_for(winner)
        }
    }

    /// `color` resigns (5.1.2).
    pub fn resign(&mut self, color: Color) -> Result<GameEnd, GameError> {
        let result = self.loss_unless_no_mating_material(color);
        self.declare(GameEnd::new(result, EndReason::Resignation { by: color }))
    }

    /// `color`'s flag fell (6.9).
    pub fn flag(&mut self, color: Color) -> Result<GameEnd, GameError> {
        let result = self.loss_unless_no_mating_material(color);
        self.declare(GameEnd::new(result, EndReason::Timeout { flagged: color }))
    }

    /// Both players agree to a draw (5.2.3); refused until each has made a move in this game.
    pub fn agree_draw(&mut self) -> Result<GameEnd, GameError> {
        self.ensure_running()?;
        // Moves alternate, so two half-moves means both players have moved.
        if self.moves.len() < 2 {
            return Err(GameError::AgreementTooEarly {
                plies: self.moves.len(),
            });
        }
        self.declare(GameEnd::new(GameResult::Draw, EndReason::Agreement))
    }

    /// The arbiter ends the game with `result`.
    pub fn arbiter_decision(&mut self, result: GameResult) -> Result<GameEnd, GameError> {
        self.declare(GameEnd::new(result, EndReason::ArbiterDecision))
    }

    /// Checks a draw claim by the player to move: with `intended`, the move he has written and
    /// declared (9.2.1.1, 9.3.1); without, the position on the board (9.2.1.2, 9.3.2).
    /// Threefold repetition is reported first when both grounds hold.
    pub fn claim_draw(&self, intended: Option<Move>) -> Result<DrawReason, ClaimRefused> {
        if let Some(end) = self.outcome() {
            return Err(ClaimRefused::GameOver(end));
        }
        let (repetitions, halfmoves) = match intended {
            None => (self.repetitions(), self.current.halfmoves()),
            Some(m) => {
                let repetitions =
                    self.repetitions_after(m)
                        .ok_or_else(|| ClaimRefused::IllegalMove {
                            uci: uci(m, self.mode),
                        })?;
                let halfmoves = if m.is_zeroing() {
                    0
                } else {
                    self.current.halfmoves().saturating_add(1)
                };
                (repetitions, halfmoves)
            }
        };
        if repetitions >= CLAIM_REPETITIONS {
            Ok(DrawReason::ThreefoldRepetition)
        } else if halfmoves >= FIFTY_MOVE_HALFMOVES {
            Ok(DrawReason::FiftyMoveRule)
        } else {
            Err(ClaimRefused::NoGrounds {
                repetitions,
                halfmoves,
                intended: intended.is_some(),
            })
        }
    }

    /// Applies a correct claim: plays the intended move, if any, and ends the game as a draw.
    /// A refused claim changes nothing; after it the intended move must still be played
    /// (9.5.2), with [`Game::play`]. Should the intended move itself end the game (it cannot
    /// repeat a position and mate at once, but it can reach the 75-move limit), that end
    /// stands.
    pub fn draw_by_claim(&mut self, intended: Option<Move>) -> Result<GameEnd, ClaimRefused> {
        let reason = self.claim_draw(intended)?;
        if let Some(m) = intended {
            self.push(m);
        }
        let end = GameEnd::new(GameResult::Draw, EndReason::Claim(reason));
        if self.automatic.is_none() {
            self.declared = Some(end);
        }
        Ok(self.outcome().unwrap_or(end))
    }
}

/// The back rank (files a–h) of Chess960 start position `n` in the standard numbering, or
/// `None` when `n > 959`.
///
/// The number is read as mixed-radix digits: light-squared bishop (b, d, f, h), dark-squared
/// bishop (a, c, e, g), queen on one of the 6 free squares, the knights on one of 10 pairs of
/// the 5 free squares, then rook, king, rook on the 3 squares left.
pub fn chess960_back_rank(n: u32) -> Option<[Role; 8]> {
    if n >= 960 {
        return None;
    }
    const KNIGHT_PAIRS: [(usize, usize); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let mut rank: [Option<Role>; 8] = [None; 8];
    let n = n as usize;
    rank[2 * (n % 4) + 1] = Some(Role::Bishop);
    let n = n / 4;
    rank[2 * (n % 4)] = Some(Role::Bishop);
    let n = n / 4;
    let free = |rank: &[Option<Role>; 8]| -> Vec<usize> {
        (0..8).filter(|&i| rank[i].is_none()).collect()
    };
    rank[free(&rank)[n % 6]] = Some(Role::Queen);
    let n = n / 6;
    let (a, b) = KNIGHT_PAIRS[n];
    let empty = free(&rank);
    rank[empty[a]] = Some(Role::Knight);
    rank[empty[b]] = Some(Role::Knight);
    for (square, role) in free(&rank)
        .into_iter()
        .zip([Role::Rook, Role::King, Role::Rook])
    {
        rank[square] = Some(role);
    }
    let mut out = [Role::Pawn; 8];
    for (o, r) in out.iter_mut().zip(rank) {
        *o = r?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::san::San;

    fn play_san(game: &mut Game, moves: &str) {
        for san in moves.split_whitespace() {
            let m = san
                .parse::<San>()
                .unwrap()
                .to_move(game.position())
                .unwrap();
            game.play(m).unwrap();
        }
    }

    fn rank_string(n: u32) -> String {
        chess960_back_rank(n)
            .unwrap()
            .iter()
            .map(|r| r.upper_char())
            .collect()
    }

    #[test]
    fn scharnagl_numbers() {
        assert_eq!(rank_string(0), "BBQNNRKR");
        assert_eq!(rank_string(518), "RNBQKBNR");
        assert_eq!(rank_string(959), "RKRNNQBB");
        assert!(chess960_back_rank(960).is_none());
    }

    #[test]
    fn undo_restores_the_outcome() {
        let mut game = Game::new();
        play_san(&mut game, "f3 e5 g4 Qh4");
        assert_eq!(game.outcome().unwrap().reason, EndReason::Checkmate);
        let last = *game.moves().last().unwrap();
        assert_eq!(game.undo(), Some(last));
        assert!(game.outcome().is_none());
    }

    #[test]
    fn undo_drops_a_resignation() {
        let mut game = Game::new();
        play_san(&mut game, "e4 e5");
        game.resign(Color::White).unwrap();
        assert!(game.play(game.position().legal_moves()[0]).is_err());
        game.undo();
        assert!(game.outcome().is_none());
        assert_eq!(game.ply_count(), 1);
    }

    #[test]
    fn replay_matches_position_before() {
        let mut game = Game::new();
        play_san(&mut game, "e4 c5 Nf3 d6 d4 cxd4");
        for (i, (pos, m)) in game.replay().enumerate() {
            assert_eq!(Some(pos), game.position_before(i));
            assert_eq!(m, game.moves()[i]);
        }
        assert_eq!(game.position_before(6).as_ref(), Some(game.position()));
        assert_eq!(game.position_before(7), None);
    }

    #[test]
    fn errors_are_lowercase_and_precise() {
        let mut game = Game::new();
        let bad = Move::Normal {
            role: Role::King,
            from: shakmaty::Square::E1,
            capture: None,
            to: shakmaty::Square::E3,
            promotion: None,
        };
        let err = game.play(bad).unwrap_err().to_string();
        assert!(
            err.starts_with("illegal move e1e3 in position rnbqkbnr/"),
            "{err}"
        );
        let err = Game::from_fen("not a fen", false).unwrap_err().to_string();
        assert!(err.starts_with("invalid fen \"not a fen\""), "{err}");
    }
}
