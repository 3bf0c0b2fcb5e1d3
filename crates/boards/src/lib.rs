//! Sensor boards without I/O: what a board reports, and codecs from its bytes to those reports.
//!
//! Codecs are sans-IO: they take bytes and the time they arrived (milliseconds, from the caller)
//! and hand back [`Timed`] [`SensorEvent`]s or a [`DecodeError`] saying where the input was bad.
//! The adapters in `annabella::io` own the devices; the detector in `annabella_table` draws conclusions.
//!
//! - [`peg`]: our tactile peg-board protocol (ASCII lines; `docs/peg-protocol.md`).
//! - [`dgt`]: the DGT e-board serial protocol (`docs/dgt.md`).
//! - [`millennium`]: the Millennium ChessLink serial protocol (`docs/millennium.md`).
//! - [`certabo`]: the Certabo RFID board's serial lines and calibration (`docs/certabo.md`).
//! - [`debounce`]: merges the chatter of reed switches and hall sensors.
//! - [`gestures`]: the events a person produces for a move, in every order a hand can.

pub mod certabo;
pub mod debounce;
pub mod dgt;
pub mod gestures;
pub mod millennium;
pub mod peg;

use std::fmt;

use shakmaty::{Bitboard, Board, Piece, Role, Square};

/// Milliseconds on the caller's clock (monotonic in the daemon, recorded in a replay).
pub type Millis = u64;

/// One thing a board reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SensorEvent {
    /// A peg left its hole (peg board) — the piece is in the player's hand.
    Lift(Square),
    /// A peg went into a hole.
    Place(Square),
    /// Every occupied hole at once (peg `S` line). Occupancy only: no colours, no roles.
    Occupancy(Bitboard),
    /// The whole board with piece identity (a DGT board dump), already in the board's true
    /// orientation as far as the codec knows (the detector notices a rotated board).
    Pieces(Board),
    /// One square changed on a piece-identity board (a DGT field update). A hint only: the board
    /// scans slowly, so updates arrive out of order and may never show a captured square empty.
    SquareChanged {
        square: Square,
        piece: Option<Piece>,
    },
    /// A key on the board's key strip.
    Key(BoardKey),
    /// The board identified itself (firmware, model, serial number).
    Identity(String),
    /// A chess clock attached to the board (a DGT 3000 or XL through a DGT board) showed its
    /// times. Each frame is a moment of the clock's time, so a recording's frames give it its
    /// timing (`dgt::ClockTimeline`).
    Clock(ClockReading),
}

/// What a chess clock attached to the board shows: each side's time and which side runs.
/// Left and right are the clock's, not colours: which side is White's depends on where the
/// clock stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockReading {
    pub left_ms: Millis,
    pub right_ms: Millis,
    /// Counting down (not paused, not stopped).
    pub running: bool,
    /// The right side's lever is up: the right side's time runs (its opponent pressed).
    pub right_runs: bool,
}

impl ClockReading {
    /// The time of the side whose time runs.
    pub fn running_side_ms(&self) -> Millis {
        if self.right_runs {
            self.right_ms
        } else {
            self.left_ms
        }
    }
}

/// Keys on the peg board's key strip (`K<key>` lines; `docs/peg-protocol.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoardKey {
    /// `KQ` `KR` `KB` `KN`: the promotion choice (FIDE D.2.1: the player announces the piece).
    Promote(Role),
    /// `KA`: the last move again, with its number and colour.
    Repeat,
    /// `KT`: both clocks, whose turn, the moves to the next time control (FIDE D.2.6.1).
    Time,
    /// `KO`: the player's own time only.
    OwnTime,
    /// `KH`: the moves so far, one further back at each press.
    History,
    /// `KD`: offer a draw, or accept the offer that stands.
    Draw,
    /// `KC`: claim a draw (threefold repetition, 50 moves).
    Claim,
    /// `KX`: resign (only a second press within 5 s resigns).
    Resign,
    /// `KS`: confirm the scoresheet after a lagging sheet was read out.
    ConfirmSheet,
    /// `KZ`: "my board is set up": take the pegs as the game's pieces.
    SetUp,
    /// `KG`: the correspondence desk turns to the next game (`focus`).
    NextGame,
    /// `KL`: the correspondence games listed, with whose move it is in each.
    ListGames,
    /// `KM`: the opponent's last comment in a correspondence game.
    Message,
    /// `KJ` ("ja"): accept the correspondence message held last for its sender.
    AcceptHeld,
    /// A key this version does not know: reported, answered, never fatal.
    Other(char),
}

/// Each named key and its letter on the wire (upper case), in one place for the decoder, the
/// encoder and the simulator.
const KEY_LETTERS: [(BoardKey, char); 17] = [
    (BoardKey::Promote(Role::Queen), 'Q'),
    (BoardKey::Promote(Role::Rook), 'R'),
    (BoardKey::Promote(Role::Bishop), 'B'),
    (BoardKey::Promote(Role::Knight), 'N'),
    (BoardKey::Repeat, 'A'),
    (BoardKey::Time, 'T'),
    (BoardKey::OwnTime, 'O'),
    (BoardKey::History, 'H'),
    (BoardKey::Draw, 'D'),
    (BoardKey::Claim, 'C'),
    (BoardKey::Resign, 'X'),
    (BoardKey::ConfirmSheet, 'S'),
    (BoardKey::SetUp, 'Z'),
    (BoardKey::NextGame, 'G'),
    (BoardKey::ListGames, 'L'),
    (BoardKey::Message, 'M'),
    (BoardKey::AcceptHeld, 'J'),
];

impl BoardKey {
    /// The key a letter names (either case); any other character is [`BoardKey::Other`].
    pub fn from_letter(c: char) -> BoardKey {
        let upper = c.to_ascii_uppercase();
        KEY_LETTERS
            .iter()
            .find(|(_, l)| *l == upper)
            .map_or(BoardKey::Other(c), |(k, _)| *k)
    }

    /// The letter of a named key; for [`BoardKey::Other`] its own character, unless that
    /// letter names a key (it would read back as that key). `None` also for a promotion to a
    /// king or pawn, which no key chooses.
    pub fn letter(self) -> Option<char> {
        match self {
            BoardKey::Other(c) => (BoardKey::from_letter(c) == BoardKey::Other(c)).then_some(c),
            key => KEY_LETTERS.iter().find(|(k, _)| *k == key).map(|(_, l)| *l),
        }
    }

    /// The key's name in event lines and the page's events (`unknown` for an unknown key).
    pub fn name(self) -> &'static str {
        match self {
            BoardKey::Promote(_) => "promote",
            BoardKey::Repeat => "repeat",
            BoardKey::Time => "time",
            BoardKey::OwnTime => "own-time",
            BoardKey::History => "history",
            BoardKey::Draw => "draw",
            BoardKey::Claim => "claim",
            BoardKey::Resign => "resign",
            BoardKey::ConfirmSheet => "confirm-sheet",
            BoardKey::SetUp => "set-up",
            BoardKey::NextGame => "next-game",
            BoardKey::ListGames => "list-games",
            BoardKey::Message => "message",
            BoardKey::AcceptHeld => "accept-held",
            BoardKey::Other(_) => "unknown",
        }
    }

    /// Every named key, in the order of the protocol's key table.
    pub fn all() -> impl Iterator<Item = BoardKey> {
        KEY_LETTERS.iter().map(|(k, _)| *k)
    }
}

/// An event and when it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timed<E> {
    pub at: Millis,
    pub event: E,
}

/// Where bad input was found in a device stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamPosition {
    /// 1-based line of a line protocol.
    Line(u64),
    /// 0-based byte offset of a binary protocol.
    Offset(u64),
}

impl fmt::Display for StreamPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StreamPosition::Line(n) => write!(f, "line {n}"),
            StreamPosition::Offset(n) => write!(f, "byte offset {n}"),
        }
    }
}

/// A malformed line or byte sequence: reported, skipped, never fatal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{position}: {message}")]
pub struct DecodeError {
    pub position: StreamPosition,
    pub message: String,
}

/// What a codec produces for each chunk of bytes.
pub type Decoded = Result<Timed<SensorEvent>, DecodeError>;

/// The protocols a board may speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    Peg,
    Dgt,
    /// Millennium ChessLink boards (Exclusive, Performance, eONE).
    Millennium,
    /// Certabo boards (RFID chips in the pieces).
    Certabo,
}

impl Protocol {
    /// Whether the board senses each piece (DGT, Millennium, Certabo) or only occupancy (peg).
    pub fn senses_pieces(self) -> bool {
        self != Protocol::Peg
    }
}

impl std::fmt::Display for Protocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Protocol::Peg => "peg",
            Protocol::Dgt => "dgt",
            Protocol::Millennium => "millennium",
            Protocol::Certabo => "certabo",
        })
    }
}

impl std::str::FromStr for Protocol {
    type Err = String;

    fn from_str(s: &str) -> Result<Protocol, String> {
        match s.to_ascii_lowercase().as_str() {
            "peg" => Ok(Protocol::Peg),
            "dgt" => Ok(Protocol::Dgt),
            "millennium" => Ok(Protocol::Millennium),
            "certabo" => Ok(Protocol::Certabo),
            _ => Err(format!(
                "unknown board protocol {s:?}; peg, dgt, millennium or certabo"
            )),
        }
    }
}

/// A streaming decoder for one protocol (bytes in, events out), so the transport does not care
/// which board is attached.
pub trait Decoder: Send {
    /// Feeds bytes that arrived at `now`; events and errors come out in stream order.
    fn feed(&mut self, bytes: &[u8], now: Millis, out: &mut Vec<Decoded>);
    /// The stream ended (end of a recording, a closed connection): report what is left
    /// unfinished (a last line without LF, a message cut short) and start afresh.
    fn finish(&mut self, _now: Millis, _out: &mut Vec<Decoded>) {}
    /// Bytes to send to the board when a connection opens (ask for identity and a snapshot).
    fn greeting(&self) -> Vec<u8>;
    /// Bytes that ask the board for a full snapshot (after a reconnect or a doubt).
    fn snapshot_request(&self) -> Vec<u8>;
}

/// A fresh decoder for `protocol` (a Certabo board without a calibration learns one from the
/// first start position it shows).
pub fn decoder(protocol: Protocol) -> Box<dyn Decoder> {
    match protocol {
        Protocol::Peg => Box::new(peg::PegDecoder::new()),
        Protocol::Dgt => Box::new(dgt::DgtDecoder::new()),
        Protocol::Millennium => Box::new(millennium::MillenniumDecoder::new()),
        Protocol::Certabo => Box::new(certabo::CertaboDecoder::new(None)),
    }
}

/// A board that reports its whole state (Millennium, Certabo) told as a DGT board tells it: the
/// first state as the whole board, each later one as the squares that changed since `last`,
/// the emptied ones first (the hand lifts before it places), so the detector reads every
/// identity board the same way, quiet time and all.
pub fn snapshot_events(last: Option<&Board>, board: &Board, now: Millis, out: &mut Vec<Decoded>) {
    let event = |event| Ok(Timed { at: now, event });
    let Some(last) = last else {
        out.push(event(SensorEvent::Pieces(board.clone())));
        return;
    };
    let changed: Vec<Square> = (last.occupied() | board.occupied())
        .into_iter()
        .filter(|&sq| last.piece_at(sq) != board.piece_at(sq))
        .collect();
    let emptied = changed.iter().filter(|&&sq| board.piece_at(sq).is_none());
    let filled = changed.iter().filter(|&&sq| board.piece_at(sq).is_some());
    for &square in emptied.chain(filled) {
        out.push(event(SensorEvent::SquareChanged {
            square,
            piece: board.piece_at(square),
        }));
    }
}
