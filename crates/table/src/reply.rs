//! What a table answers to a control request, as typed values (`docs/control-protocol.md`); a
//! refusal is a [`Refusal`]. Their text on the wire is written at the edge, by the daemon's
//! encoders (`annabella::control::wire`), never here.

use shakmaty::{Bitboard, Board, Color, Role, Square};

use crate::control::{GameTag, Refusal};
use crate::reconcile::Side;
use annabella_chess::game::GameResult;

/// A table's answer to a request, or why it refused.
pub type Reply = Result<Answer, Refusal>;

/// How a board stands with the game, for `status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardSync {
    /// It differs and its player is being guided back.
    Differs,
    /// It still owes a move the table entered (the opponent's, to replicate).
    OwesMove,
    InSync,
}

/// One physical board in `status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardStatus {
    pub connected: bool,
    pub sync: BoardSync,
}

/// `status`: the table at a glance, as `key value` pairs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    pub table: String,
    pub ply: usize,
    pub turn: Color,
    /// The PGN result (`*` while the game runs).
    pub result: &'static str,
    pub peg: BoardStatus,
    /// `None`: the sighted side plays on no e-board (moves come over the control interface).
    pub normal: Option<BoardStatus>,
    pub draw_offer: Option<Color>,
    /// A pawn waiting on the peg board's last rank for its piece.
    pub promotion: Option<(Square, Square)>,
}

/// `view`: everything a page needs to show the table as it is, for a page opened late, reloaded
/// or reconnected; its reply is one JSON object (`docs/control-protocol.md`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageView {
    pub table: String,
    /// The table's language code: the words below are in it.
    pub lang: String,
    pub fen: String,
    pub ply: usize,
    pub turn: &'static str,
    pub peg_side: &'static str,
    pub time_control: String,
    pub white: Option<String>,
    pub black: Option<String>,
    pub last_move: Option<PageMove>,
    /// The PGN result (`*` while the game runs).
    pub result: &'static str,
    pub end: Option<PageEnd>,
    pub peg: PageBoard,
    pub normal: Option<PageBoard>,
    /// The two-sheet procedure (D.2.9) while it is open.
    pub procedure: Option<PageProcedure>,
    pub draw_offer: Option<&'static str>,
    /// A pawn waiting on the peg board's last rank for its piece (`e7e8`).
    pub promotion: Option<String>,
    /// Every move of the game in UCI (castling as the king's two steps), for a client that
    /// keeps another copy of the game in step (a lichess table's adapter).
    pub moves: Vec<String>,
    /// The game's identifier (`GameId` tag): a correspondence or lichess game's id.
    pub game_id: Option<String>,
}

/// The last move in the table's letters and words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageMove {
    pub uci: String,
    pub san_local: String,
    pub words: String,
    pub number: u32,
    pub color: &'static str,
}

/// How the game ended, in the table's words ("Weiß gewinnt").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageEnd {
    pub result: &'static str,
    pub words: String,
}

/// One physical board: its link, whether it agrees, and the correction its player is told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageBoard {
    pub connected: bool,
    /// `in-sync`, `differs` or `owes-move`.
    pub sync: &'static str,
    pub guide: Option<String>,
}

/// The two-sheet procedure's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageProcedure {
    /// The takeback proposed to the arbiter: back to this many half-moves.
    pub proposal_plies: Option<usize>,
    pub explain: Vec<String>,
    /// The sheet that lags (`a` or `b`), its player asked to confirm.
    pub lagging: Option<&'static str>,
}

impl BoardSync {
    pub fn keyword(self) -> &'static str {
        match self {
            BoardSync::Differs => "differs",
            BoardSync::OwesMove => "owes-move",
            BoardSync::InSync => "in-sync",
        }
    }
}

/// `boards`: what each physical board shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Boards {
    pub peg_connected: bool,
    /// The peg board's holes, as its `S` snapshot line writes them.
    pub peg_holes: String,
    /// The pieces the detector believes stand in the peg board's holes.
    pub peg_believed: Board,
    /// The e-board: connected, and the pieces it shows; `None` without one.
    pub normal: Option<(bool, Board)>,
}

/// What the table answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// `seek`: lichess has the seek and looks for an opponent (a lichess table).
    Seeking {
        control: String,
        rated: bool,
    },
    /// `seek cancel`: the seek's connection is closed, which cancels it (a lichess table).
    SeekCancelled,
    /// `challenge`: lichess has the challenge; the user is asked (a lichess table).
    Challenged {
        user: String,
        control: String,
    },
    /// `move`: played; UCI and SAN in the asker's letters.
    Played {
        uci: String,
        san: String,
    },
    /// `board`: the position.
    Position {
        fen: String,
    },
    /// `clock`: both clocks, the moves played, whose clock runs.
    Clock {
        white_ms: u64,
        black_ms: u64,
        moves: u32,
        running: Option<Color>,
    },
    /// `sheet`, `sheet a|b`: a move list.
    Moves(String),
    Status(Status),
    Boards(Boards),
    DrawOffered {
        by: Color,
    },
    DrawAgreed,
    /// A correct claim, with its reason in words.
    DrawByClaim {
        reason: String,
    },
    Resigned {
        by: Color,
    },
    Withdrawn {
        uci: String,
    },
    /// `send`: the blind player's moves up to `plies` half-moves are released to be mailed.
    Sent {
        plies: usize,
    },
    /// `message`: the opponent's last comment (`None`: none yet).
    Message {
        text: Option<String>,
    },
    /// `comment`: the opponent's comment is kept.
    Commented,
    /// `my-message`: his message is kept until his next call to the server.
    MyMessageKept,
    /// `claim-time`: `by` claimed the game on time; the arbiter decides.
    TimeClaimed {
        by: Color,
    },
    /// The arbiter changed `color`'s clock; what is left.
    ClockAdjusted {
        color: Color,
        remaining_ms: u64,
    },
    /// The first illegal move of `by`: the opponent got the penalty time.
    PenaltyTime {
        by: Color,
        opponent_ms: u64,
    },
    /// The second illegal move of `by`: the game is over.
    SecondIllegalMove {
        by: Color,
    },
    /// `result`: the arbiter's result stands; the game is over.
    ResultDeclared {
        result: GameResult,
    },
    ClockRunning {
        running: bool,
    },
    /// `record`: the sheet as kept, what of it was not, and the comparison's verdict.
    SheetRecorded {
        side: Side,
        plies: usize,
        skipped: Option<String>,
        verdict: String,
    },
    SheetConfirmed {
        side: Side,
        verdict: String,
    },
    SheetDisputed {
        side: Side,
        verdict: String,
    },
    TakebackDropped,
    TakenBack {
        plies: usize,
        white_ms: u64,
        black_ms: u64,
    },
    /// `parse`: what the table would understand.
    Parsed {
        uci: String,
        san: String,
        spoken: String,
    },
    /// `export`: the text, sent as one JSON string.
    Export {
        text: String,
    },
    /// `promote`: the pending promotion was played.
    Promoted {
        uci: String,
    },
    /// `promote` before the pawn arrives: kept for the next promotion.
    PromotionChosen {
        piece: Role,
    },
    /// `new-game`: the next game begins at this position.
    NewGame {
        fen: String,
    },
    /// `tag`: the game's tag is set.
    Tagged {
        tag: GameTag,
        value: String,
    },
    /// `view`: the table's whole state for a page (one JSON object).
    View(Box<PageView>),
    /// `penalty` in a correspondence game: `by` is charged days; both sides' totals now.
    DaysCharged {
        by: Color,
        total_days: [u64; 2],
    },
    /// `leave`: the days of leave are kept.
    LeaveTaken {
        leave: String,
    },
    /// `focus`: the correspondence desk's peg board now shows this table's game.
    Focused {
        table: String,
    },
    /// `games`: the correspondence games in words, as the desk says them.
    Games {
        text: String,
    },
    /// `mail …`: what the mail desk did or has (a held message accepted, the list held,
    /// replies requeued or resent).
    Mail {
        text: String,
    },
}

/// The peg board's holes as its snapshot line (`S…`), for `boards`.
pub fn holes(occupancy: Bitboard) -> String {
    annabella_boards::peg::encode(&annabella_boards::SensorEvent::Occupancy(occupancy))
        .unwrap_or_default()
}
