//! What the reconciliation looks at (two boards, two sheets, the clocks) and what it answers: the verdict, the position, each board's corrections, the clocks, and the explanation in words.

use shakmaty::fen::Fen;
use shakmaty::{Board, CastlingMode, Chess, EnPassantMode, Move, Piece};

use super::Side;
use super::sheet::{BadEntry, Sheet};
use crate::corrections::{Correction, Observed};
use annabella_chess::game::Game;
use annabella_chess::language::Language;
use annabella_chess::notation::coordinate::format_uci;

/// One side's board as last observed, and what is believed to stand in its holes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardInput {
    pub observed: Observed,
    /// For a peg board: the piece believed to stand in each occupied hole (the move detector's
    /// board). `None`: inferred from the sheets. Ignored for a board that sees identities.
    pub believed: Option<Board>,
}

/// Time each colour has used, in milliseconds: `[white, black]`.
pub type Used = [u64; 2];

/// What the clocks have counted, so that they can be put back (FIDE D.2.9: "the arbiter
/// adjusts the clocks accordingly").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockRecord {
    /// Time used by each colour now.
    pub used_now: Used,
    /// Half-moves the clocks have counted now (the moves actually played at the table).
    pub plies_now: usize,
    /// Time used after each half-move where a reading was recorded: index `k` is after `k`
    /// half-moves (0: at the start).
    pub after_ply: Vec<Option<Used>>,
}

/// How the clocks go back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockBasis {
    /// To the readings recorded at the agreed half-move.
    Recorded,
    /// No reading at that half-move: each colour keeps the share of its time used that its
    /// moves still standing bear to its moves played (the 1957 rules' "proportionally").
    Proportional,
}

/// The clocks after a takeback: what the arbiter sets unless he decides otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockAdjustment {
    pub used: Used,
    pub basis: ClockBasis,
}

/// Everything [`reconcile`] looks at.
#[derive(Debug, Clone)]
pub struct ReconcileInput<'a> {
    /// The game as it started (position and castling rules); its moves are not used.
    pub start: &'a Game,
    /// Side a's sheet, side b's sheet.
    pub sheets: [&'a Sheet; 2],
    /// Side a's board, side b's board.
    pub boards: [&'a BoardInput; 2],
    /// Each side's language, for the words spoken to that side.
    pub languages: [&'a Language; 2],
    /// The clocks, when the table has them; `None` and no clock adjustment is proposed.
    pub clocks: Option<&'a ClockRecord>,
    /// The player whose sheet lags has disputed the moves read out to him: the sheets differ.
    pub lag_disputed: bool,
}

/// What the two sheets say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Both sheets hold the same moves.
    Agree,
    /// `side`'s sheet is a strict prefix of the other: `missing` are read out to him.
    Lagging {
        side: Side,
        missing: Vec<Move>,
        /// The missing moves as spoken to the lagging player, in his language.
        read_out: Vec<String>,
    },
    /// The sheets differ from half-move `agreed + 1` on (or one has an entry that is no move).
    Differ,
}

/// A hole of a peg board whose piece the sensors cannot confirm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unverifiable {
    pub square: shakmaty::Square,
    /// What the position needs there.
    pub expected: Piece,
    /// What is believed to stand there (`None`: unknown).
    pub believed: Option<Piece>,
    /// When the peg arrives by a correction, where it comes from.
    pub from: Option<shakmaty::Square>,
}

/// One board's part of the resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardResolution {
    /// The board shows the position (a peg board: its pegs do).
    pub correct: bool,
    /// The fewest hand actions, in the order a hand can follow.
    pub corrections: Vec<Correction>,
    /// Each correction in the side's language, square by square.
    pub spoken: Vec<String>,
    /// Each correction in English, for the sighted side and the arbiter.
    pub written: Vec<String>,
    /// Holes whose piece a peg board cannot confirm (empty for identity boards).
    pub unverifiable: Vec<Unverifiable>,
    /// For a peg board, where the pieces believed in its holes come from.
    pub identities_from: Option<String>,
}

/// What was decided, with the reasons in words.
#[derive(Debug, Clone)]
pub struct Resolution {
    pub verdict: Verdict,
    /// Half-moves both boards must show (with a lagging sheet: the longer sheet's).
    pub agreed_plies: usize,
    /// The position both boards must show.
    pub position: Chess,
    pub mode: CastlingMode,
    /// The moves cut from sheet a and from sheet b (empty unless the sheets differ).
    pub retracted: [Vec<Move>; 2],
    /// Entries of sheet a and b that are no legal move.
    pub bad_entries: [Option<BadEntry>; 2],
    pub boards: [BoardResolution; 2],
    /// What the clocks go back to, when the sheets differ and the clocks are known.
    pub clocks: Option<ClockAdjustment>,
    /// Each decision, in sentences a player understands (English).
    pub explanation: Vec<String>,
}

impl Resolution {
    /// The sheets hold no contradiction (they agree, or one merely lags).
    pub fn sheets_agree(&self) -> bool {
        !matches!(self.verdict, Verdict::Differ)
    }

    pub fn lagging(&self) -> Option<Side> {
        match self.verdict {
            Verdict::Lagging { side, .. } => Some(side),
            _ => None,
        }
    }

    /// The position both boards must show, as FEN (X-FEN castling in Chess960).
    pub fn fen(&self) -> String {
        Fen::from_position(&self.position, EnPassantMode::Legal).to_string()
    }

    /// The moves cut from `side`'s sheet in UCI (Chess960 castling king-takes-rook).
    pub fn retracted_uci(&self, side: Side) -> Vec<String> {
        self.retracted[side.index()]
            .iter()
            .map(|&m| format_uci(m, self.mode))
            .collect()
    }

    pub fn board(&self, side: Side) -> &BoardResolution {
        &self.boards[side.index()]
    }
}
