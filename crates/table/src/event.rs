//! What a table tells the world, as typed values: the events subscribers follow and the words it
//! says to each listener with their urgency (`docs/control-protocol.md`).
//!
//! Their wire forms — the control protocol's `event …` lines and the page's fields by name —
//! are written at the edge from one list of each event's fields (`annabella::control::wire`).
//! The speech adapter reads [`Urgency`] from the [`Say`] itself: there is one list of what is
//! urgent, and it is here, in the code that decides to say something.

use std::fmt;
use std::str::FromStr;

use shakmaty::{CastlingMode, Color};

use crate::corrections::Correction;
use crate::detector::Conclusion;
use crate::reconcile::Side;
use crate::record::Source;
use annabella_boards::BoardKey;
use annabella_chess::game::GameResult;

/// Who an utterance is meant for. Speech backends and transcripts carry it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Listener {
    /// The blind or visually impaired player at the peg board.
    BlindPlayer,
    /// The sighted opponent (or the assistant relaying for him).
    Opponent,
    /// The arbiter.
    Arbiter,
    /// Everybody at the table.
    Everyone,
}

impl fmt::Display for Listener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Listener::BlindPlayer => "blind",
            Listener::Opponent => "opponent",
            Listener::Arbiter => "arbiter",
            Listener::Everyone => "all",
        })
    }
}

/// A word that names no listener.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown listener `{0}`: expected blind, opponent, arbiter or all")]
pub struct ListenerError(pub String);

impl FromStr for Listener {
    type Err = ListenerError;

    /// The inverse of `Display`, so that transcripts can be read back.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "blind" => Ok(Listener::BlindPlayer),
            "opponent" => Ok(Listener::Opponent),
            "arbiter" => Ok(Listener::Arbiter),
            "all" => Ok(Listener::Everyone),
            _ => Err(ListenerError(s.to_owned())),
        }
    }
}

/// Which of the table's two boards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardId {
    /// The blind player's tactile board (occupancy sensors).
    Peg,
    /// The sighted player's electronic board (piece identity), when there is one.
    Normal,
}

impl fmt::Display for BoardId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BoardId::Peg => "peg",
            BoardId::Normal => "normal",
        })
    }
}

/// How an utterance may treat what is being said when it arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Urgency {
    /// Said after what is queued (a move, a confirmation).
    Polite,
    /// Interrupts a long phrase (an illegal position, a flag, a takeback): the speech says it
    /// at once and the page's live region announces it assertively.
    Urgent,
}

impl Urgency {
    pub fn is_urgent(self) -> bool {
        self == Urgency::Urgent
    }
}

/// What an utterance is about, for the outputs that treat some utterances specially: an audio
/// record that numbers the moves, a speech queue that repeats a move cut off by an urgent call
/// and drops a clock call that a later one has made stale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum About {
    /// A move: its number (the full-move number) and who made it.
    Move { number: u32, color: Color },
    /// The talking clock calling `color`'s time by itself.
    ClockCall { color: Color, remaining_ms: u64 },
    /// An answer that says the clocks' times (`KT`, his own time): cut by a clock call it is
    /// not said again, since its times are stale by then and the call has said the newer one.
    TimeAnswer,
    /// Moves taken back (`undo`, a takeback), from the one numbered here: the audio record
    /// marks them withdrawn, so that it stays a true score.
    Withdrawn { number: u32, color: Color },
    /// The end of the game, with its result: the score's last line.
    Result,
    /// Anything else: a confirmation, guidance, an answer to a key.
    Other,
    /// The correspondence desk's words at a key (`KG`, `KL`) or for the set-up: the desk's
    /// next words cut them and make those still waiting stale, and they are not said again
    /// (a second `KG` while a game's state is read turns to the next game at once).
    Desk,
}

/// Words for one listener.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Say {
    pub listener: Listener,
    pub text: String,
    pub urgency: Urgency,
    pub about: About,
    /// The language of the words (the table's code, "de"): the page marks each announcement
    /// with it, so a screen reader reads it with the right voice (WCAG 3.1.2).
    pub lang: &'static str,
    /// The utterance's identity: the same words to several listeners in one step (the blind
    /// player's move, to him and to the opponent) are one utterance and share it; any other
    /// utterance, even in the same words, has another. 0 until the table's actor numbers it
    /// as it performs the step; the page reads each identity once (`docs/web.md`).
    pub id: u64,
}

/// How the two-sheet procedure (D.2.9) ended this time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResolutionEvent {
    /// Both sheets agree up to `plies` half-moves.
    Agree { plies: usize },
    /// `side`'s sheet lacks these moves (UCI); they were read out to its player.
    Lagging { side: Side, missing: Vec<String> },
    /// The sheets differ: a takeback to `plies` half-moves is proposed to the arbiter, cutting
    /// these moves (UCI) from each sheet, with the clocks' used time at that move.
    Proposed {
        plies: usize,
        retract_a: Vec<String>,
        retract_b: Vec<String>,
        used_white_ms: u64,
        used_black_ms: u64,
    },
    /// The arbiter rejected the proposal; the game stands.
    Rejected,
}

/// How a restart's downtime was measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DowntimeClock {
    /// The boot-time clock: the machine did not reboot (a suspend counts).
    Boot,
    /// The wall clock, after a reboot.
    Wall,
    /// The wall clock, after a reboot, and more than the bound it may count
    /// (`table::state::MAX_WALL_DOWNTIME_MS`): the bound was counted.
    WallCapped,
}

impl DowntimeClock {
    /// Its name on the wire.
    pub fn name(self) -> &'static str {
        match self {
            DowntimeClock::Boot => "boot-clock",
            DowntimeClock::Wall => "wall-clock",
            DowntimeClock::WallCapped => "wall-clock-capped",
        }
    }
}

/// Something that happened at a table, for `events` subscribers and the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableEvent {
    /// A new game from this position with this time control.
    Begin {
        time_control: String,
        fen: String,
    },
    /// The table was rebuilt from its journal after a restart.
    Restored {
        ply: usize,
        fen: String,
    },
    /// After a restart the running clock was charged for the time it ran (and the downtime,
    /// when configured); the downtime measured by the clock `measured_by` names.
    Resumed {
        downtime_ms: u64,
        charged_ms: u64,
        measured_by: DowntimeClock,
    },
    /// The daemon did not run for `stalled_ms` (the process was stopped or starved); what
    /// reached it meanwhile was judged as of the stall's start, before any flag.
    Stalled {
        stalled_ms: u64,
    },
    /// A move was played into the game (`ply`: the game's half-moves after it; `san` in English
    /// letters).
    Move {
        ply: usize,
        color: Color,
        uci: String,
        san: String,
        source: Source,
        /// The move as the table writes and says it: SAN in its language's letters ("Sf3"),
        /// its words ("Springer Felix drei") and its full-move number (for the page; the
        /// event line keeps the English SAN).
        san_local: String,
        words: String,
        number: u32,
    },
    /// Words said to a listener.
    Say(Say),
    /// A board sent something that could not be decoded, or the board is not at this table.
    BoardError {
        board: BoardId,
        message: String,
    },
    /// A board shows the game again.
    InSync {
        board: BoardId,
    },
    /// What a board's detector concluded.
    Detected {
        board: BoardId,
        conclusion: Conclusion,
        /// How the game writes castling, for the conclusion's moves in UCI.
        mode: CastlingMode,
    },
    /// The blind player broke the touch-move rule (D.2.2) but his move stands.
    TouchMove {
        board: BoardId,
        warning: String,
    },
    /// A move a board showed was not accepted.
    Refused {
        board: BoardId,
        reason: String,
    },
    /// The corrections that bring a board back to the game, first one said.
    Guide {
        board: BoardId,
        corrections: Vec<Correction>,
    },
    /// An occupancy board cannot tell which piece stands in a hole.
    Unverifiable {
        board: BoardId,
    },
    /// A board's link came up or went down.
    Link {
        board: BoardId,
        up: bool,
        detail: String,
    },
    /// A key on the peg board's strip.
    Key(BoardKey),
    /// The game is over.
    End {
        result: GameResult,
        description: String,
    },
    DrawOffer {
        color: Color,
    },
    /// A draw claim was refused; the opponent got the penalty time.
    WrongClaim {
        color: Color,
        why: String,
    },
    /// The last move (UCI) was withdrawn.
    Undo {
        uci: String,
    },
    /// A result shown on a board (DGT's kings gesture), for the arbiter to confirm with
    /// `result`.
    ResultOffered {
        board: BoardId,
        result: GameResult,
    },
    /// The arbiter changed a clock.
    ClockAdjusted {
        color: Color,
        delta_ms: i64,
        remaining_ms: u64,
    },
    /// The arbiter ruled an illegal move (the `count`th of `color`).
    Penalty {
        color: Color,
        count: u32,
    },
    /// The arbiter stopped (`running: false`) or restarted the clocks.
    ClockRunning {
        running: bool,
    },
    /// The two-sheet procedure's verdict.
    Resolution(ResolutionEvent),
    /// A takeback was carried out: back to `plies`, these moves cut, the clocks now.
    Takeback {
        plies: usize,
        retracted: Vec<String>,
        white_ms: u64,
        black_ms: u64,
    },
    /// One line of the reconciliation's explanation.
    Explain {
        line: String,
    },
    /// The journal refused a record: nothing it would have caused happened.
    JournalError {
        message: String,
    },
    /// A resolution was written to the table's record at this path.
    Recorded {
        path: String,
    },
    /// The finished game was archived as PGN at this path.
    Archived {
        path: String,
    },
    /// The correspondence desk's peg board and this game.
    Desk(DeskEvent),
    /// A game message by mail.
    Mail(MailEvent),
}

/// What the correspondence desk's shared peg board did for a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeskEvent {
    /// The board was turned to this game.
    Focus,
    /// The board was turned away from this game.
    Away,
    /// The board shows the game: it plays.
    Ready,
    /// Setting the board up for the game takes this many instructions.
    Plan { steps: usize },
    /// One set-up instruction: its number, its code (`docs/correspondence.md`) and its words.
    SetUp {
        step: usize,
        code: String,
        words: String,
    },
}

/// What the mail did for a game by correspondence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MailEvent {
    /// The opponent's move by mail was played as half-move `ply`; `summary` is the message for
    /// the ear.
    Received { ply: usize, summary: String },
    /// A message was not applied, and why (quoting both records when they differ).
    Refused { why: String },
    /// The reply to the blind player's move `ply` is queued under `message_id`.
    Queued { ply: usize, message_id: String },
    /// The SMTP server accepted the reply (or it was written to the outbox).
    Sent { message_id: String },
    /// The server refused the reply for good: parked until `mail retry`.
    Undelivered { message_id: String, why: String },
    /// A delivery-status notification names the reply: requeued once.
    Bounced { message_id: String, why: String },
    /// The reply was accepted `days` ago and the opponent has not answered (ICCF: 14 days).
    Unanswered { message_id: String, days: usize },
}
