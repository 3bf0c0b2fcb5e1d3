//! The requests, typed by who answers them: the connection itself, the correspondence desk, or
//! the connection's table. A request for the connection or the desk is not a [`TableRequest`],
//! so it never reaches a table. Each request's keyword, example, access and parser are declared
//! once, in `vocabulary`.

use std::fmt;

use shakmaty::Color;

use crate::reconcile::Side;
use annabella_chess::game::GameResult;
use annabella_correspondence::lichess::speed::LiveControl;

/// One request line, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Answered by the connection (the control session), never sent on.
    Connection(ConnectionRequest),
    /// Answered by the correspondence desk.
    Desk(DeskRequest),
    /// Answered by the connection's table.
    Table(TableRequest),
}

/// A request about the connection itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnectionRequest {
    Auth {
        token: String,
    },
    /// Subscribe to everything that happens, one line per event.
    Events,
    /// The connection's language for SAN input and spoken words.
    Lang {
        code: String,
    },
    /// Select the table this connection talks to.
    Table {
        name: String,
    },
    /// List the tables the connection's token may use.
    Tables,
    /// The speech outputs and the machine's audio devices (`aplay -L`).
    AudioDevices,
    /// Move a speech output (by its number or a listener it serves) to an audio device.
    AudioDevice {
        output: String,
        device: String,
    },
    /// The live broadcast's state: the games in it, the file written, the last push to
    /// lichess (ok or failed, and when). Answered by the server from the broadcast's task.
    Broadcast,
    Help,
    Quit,
}

/// A request for the correspondence desk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeskRequest {
    /// Turn the correspondence desk's peg board to this table's game.
    Focus { table: String },
    /// The correspondence games in words: whose move in each, the messages waiting.
    Games,
    /// About the correspondence mail (`mail held`, `mail accept 3`, `mail retry`,
    /// `mail resend TABLE`): answered by the mail desk, which the hub hands it to.
    Mail(MailRequest),
}

/// What the player, his assistant or the arbiter asks of the correspondence mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MailRequest {
    /// Play held message number `id` (none: the one held last) as if its sender were the
    /// game's opponent.
    Accept { id: Option<u32> },
    /// The messages held, with their numbers and senders.
    Held,
    /// Puts the replies the SMTP server refused for good back in the queue (once the address
    /// or the server is fixed).
    Retry,
    /// Sends the table's last reply again with its record (no answer for 14 days).
    Resend { table: String },
}

/// A request for a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableRequest {
    /// A move in any notation of the core, read in the connection's language.
    Move {
        text: String,
    },
    /// The opponent's move read from his mail (never from the wire): a `move` whose time is
    /// when the message arrived, so his days run until then and the blind player's from then.
    MailMove {
        text: String,
        arrived_unix_ms: u64,
    },
    Board,
    /// The position after this many half-moves of the game (`board 12`), for a page stepping
    /// through the record.
    BoardAt {
        ply: usize,
    },
    Clock,
    /// Both clocks for a screen (`clock quiet`): never spoken, so a page that refreshes its
    /// clocks does not talk to the blind player.
    ClockQuiet,
    Sheet,
    Status,
    OfferDraw,
    /// A draw claim, optionally with the move the claimant writes (FIDE 9.2, 9.3).
    ClaimDraw {
        intended: Option<String>,
    },
    Resign,
    /// At a correspondence table, claim the game on time: the opponent's days are over. The
    /// arbiter's `result` decides it.
    ClaimTime,
    /// At a correspondence table with the confirm step: release the blind player's move to be
    /// mailed (the `KS` key).
    Send,
    /// The opponent's last comment, read to the blind player (the `KM` key).
    Message,
    /// The opponent's free-text comment from his message, recorded by the mail desk (the
    /// arbiter's role) so that `message` and `KM` read it; one line, bounded.
    Comment {
        text: String,
    },
    /// `my-message TEXT`: the blind player's words to the opponent, at a game on ICCF's
    /// server: kept (journaled) and sent once with his next call (XFCC `myMessage`).
    MyMessage {
        text: String,
    },
    /// A slip of the tongue corrected before the opponent's clock started (D.2.8).
    Undo,
    /// The table's whole state as one JSON object, for a page (`PageView`).
    View,
    /// At a lichess table: look for an opponent on lichess with this time control (`seek
    /// 15+10`, `seek 30+20 rated`). The table's lichess adapter answers it; another table
    /// refuses it.
    Seek {
        control: LiveControl,
        rated: bool,
    },
    /// At a lichess table: stop the seek (`seek cancel`); closing its connection cancels it.
    CancelSeek,
    /// At a lichess table: challenge a lichess user (`challenge bob 30+20`).
    Challenge {
        user: String,
        control: LiveControl,
    },
    /// Days of leave in a correspondence game: `leave white 2026-12-20 2027-01-05`.
    Leave {
        color: Color,
        from: String,
        to: String,
    },
    /// The piece for a pending promotion (a pawn on the last rank of a board, waiting).
    Promote {
        piece: shakmaty::Role,
    },
    /// Reads a move without playing it: what the table would understand (a preview).
    Parse {
        text: String,
    },
    /// The game so far in a format; the reply carries the text as one JSON string.
    Export {
        format: ExportFormat,
    },
    /// The arbiter changes a clock by `delta_ms` (7.1, after an irregularity).
    Adjust {
        color: Color,
        delta_ms: i64,
    },
    /// The arbiter rules that `color` completed an illegal move (7.5.5): the first time the
    /// opponent gets two minutes (one in rapid), the second time `color` loses.
    Penalty {
        color: Color,
    },
    /// The arbiter declares the result (one offered on the e-board with DGT's kings gesture,
    /// or one he decided); the game ends with it.
    Result {
        result: GameResult,
    },
    /// What each physical board shows: the peg board's occupancy and the pieces believed in its
    /// holes, the e-board's pieces.
    Boards,
    /// One player's own scoresheet (a: the blind player's, b: the sighted player's).
    SheetOf {
        side: Side,
    },
    /// Enter or correct a player's scoresheet: the whole sheet as a move list in any notation
    /// (FIDE D.2.9 compares the sheets as moves).
    Record {
        side: Side,
        moves: String,
    },
    /// The lagging player confirms the moves read out to him: they go on his sheet.
    Confirm {
        side: Side,
    },
    /// The lagging player disputes them: the sheets differ.
    Dispute {
        side: Side,
    },
    /// The arbiter decides a proposed resolution: confirm it, or take back to another ply.
    Resolve {
        choice: Resolve,
    },
    /// The arbiter begins the next game at the table once the last one is over: from the
    /// standard position, or from a FEN; a correspondence game may take a new game id (its
    /// messages' `Game:`), kept in the journal as the game's `game_id` tag.
    NewGame {
        fen: Option<String>,
        game_id: Option<String>,
    },
    /// A PGN tag of the current game (`white`, `black`, `event`, `site`, `round`): the players'
    /// names and the event, for the scoresheet.
    Tag {
        tag: GameTag,
        value: String,
    },
    /// The arbiter stops the clocks (6.11.1).
    Pause,
    /// The arbiter restarts them.
    Resume,
}

/// The formats `export` writes the game in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExportFormat {
    /// PGN: English SAN with clock comments.
    Pgn,
    /// The ICCF numeric score.
    Iccf,
    /// The Braille scoresheet in the reader's notation, as Unicode Braille.
    Braille,
    /// The same as a `.brf` file (ASCII Braille).
    Brf,
}

impl ExportFormat {
    pub const ALL: [ExportFormat; 4] = [
        ExportFormat::Pgn,
        ExportFormat::Iccf,
        ExportFormat::Braille,
        ExportFormat::Brf,
    ];

    /// As the request writes it (`pgn`), in either case.
    pub fn parse(word: &str) -> Option<ExportFormat> {
        ExportFormat::ALL
            .into_iter()
            .find(|f| f.keyword().eq_ignore_ascii_case(word))
    }

    pub fn keyword(self) -> &'static str {
        match self {
            ExportFormat::Pgn => "pgn",
            ExportFormat::Iccf => "iccf",
            ExportFormat::Braille => "braille",
            ExportFormat::Brf => "brf",
        }
    }
}

impl fmt::Display for ExportFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.keyword())
    }
}

/// The longest text of a PGN tag set over the control interface.
pub const MAX_TAG_CHARS: usize = 100;

/// The PGN tags a table's game carries besides those it writes itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GameTag {
    White,
    Black,
    Event,
    Site,
    Round,
    /// A correspondence game's id in its messages, when `new-game game_id ID` changed it from
    /// the configured one. Not settable by `tag`: it names the game the mail follows.
    GameId,
}

impl GameTag {
    pub const ALL: [GameTag; 5] = [
        GameTag::White,
        GameTag::Black,
        GameTag::Event,
        GameTag::Site,
        GameTag::Round,
    ];

    /// A tag the `tag` request sets (not `game_id`: `new-game game_id ID` sets that).
    pub fn parse(word: &str) -> Option<GameTag> {
        GameTag::ALL
            .into_iter()
            .find(|t| t.keyword().eq_ignore_ascii_case(word))
    }

    /// A tag as the journal writes it: any of [`GameTag::parse`]'s and `game_id`.
    pub fn parse_recorded(word: &str) -> Option<GameTag> {
        GameTag::parse(word).or_else(|| (word == "game_id").then_some(GameTag::GameId))
    }

    /// As the request and the journal write it (`white`).
    pub fn keyword(self) -> &'static str {
        match self {
            GameTag::White => "white",
            GameTag::Black => "black",
            GameTag::Event => "event",
            GameTag::Site => "site",
            GameTag::Round => "round",
            GameTag::GameId => "game_id",
        }
    }
}

impl fmt::Display for GameTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.keyword())
    }
}

/// The arbiter's decision on a proposed takeback (D.2.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolve {
    /// As proposed: back to the last move both sheets agree on, clocks as recorded there.
    Confirm,
    /// Back to after this many half-moves instead.
    Override { plies: usize },
    /// No takeback: the proposal is dropped.
    Reject,
}
