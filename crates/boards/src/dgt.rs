//! The DGT e-board serial protocol (`docs/dgt.md`): framed binary messages in, sensor events out.
//!
//! A message is `id | 0x80`, two 7-bit length bytes that count the whole message (header
//! included), then data bytes that all have the top bit clear. Any byte with the top bit set
//! therefore starts a message, and that is how the decoder finds its way back after noise.
//! Payloads are kept in a fixed 64-byte buffer: nothing here grows with the input.
//!
//! Field numbers are the board's: 0 = a8, 1 = b8 … 63 = h1 when White sits at the connector's
//! side as DGT intends. A board set up the other way round is not the codec's business; the
//! detector notices a rotated start position and uses [`rotate`].

use shakmaty::{Board, Color, File, Piece, Rank, Role, Square};

use super::{
    ClockReading, DecodeError, Decoded, Decoder, Millis, SensorEvent, StreamPosition, Timed,
};

// Host → board commands (one byte each). DGT_STARTBOOTLOADER (0x4e) is deliberately absent: it
// puts the board into its firmware loader, and nothing here should ever be able to send it.
/// Go idle; cancels the update modes. The first single-board command also leaves bus mode.
pub const DGT_SEND_RESET: u8 = 0x40;
/// Reply: the clock times (BWTIME).
pub const DGT_SEND_CLK: u8 = 0x41;
/// Reply: a board dump.
pub const DGT_SEND_BRD: u8 = 0x42;
/// Update mode: field updates, plus clock times at least every second.
pub const DGT_SEND_UPDATE: u8 = 0x43;
/// Update mode without clock times: field updates only.
pub const DGT_SEND_UPDATE_BRD: u8 = 0x44;
/// Reply: the serial number (5 ASCII digits).
pub const DGT_RETURN_SERIALNR: u8 = 0x45;
/// Reply: the trademark text.
pub const DGT_SEND_TRADEMARK: u8 = 0x47;
/// Update mode, clock times only when they change.
pub const DGT_SEND_UPDATE_NICE: u8 = 0x4b;
/// Reply: the firmware version (major, minor).
pub const DGT_SEND_VERSION: u8 = 0x4d;
/// Reply: the long serial number (10 ASCII digits).
pub const DGT_RETURN_LONG_SERIALNR: u8 = 0x55;

// Board → host message ids, top bit included.
pub const DGT_MSG_BOARD_DUMP: u8 = 0x86;
pub const DGT_MSG_BWTIME: u8 = 0x8d;
pub const DGT_MSG_FIELD_UPDATE: u8 = 0x8e;
pub const DGT_MSG_EE_MOVES: u8 = 0x8f;
pub const DGT_MSG_BUSADRES: u8 = 0x90;
pub const DGT_MSG_SERIALNR: u8 = 0x91;
pub const DGT_MSG_TRADEMARK: u8 = 0x92;
pub const DGT_MSG_VERSION: u8 = 0x93;
pub const DGT_MSG_BATTERY_STATUS: u8 = 0xa0;
pub const DGT_MSG_LONG_SERIALNR: u8 = 0xa2;

/// Header bytes of every message; the length field counts them.
pub const HEADER_BYTES: usize = 3;
/// The largest payload of any message this decoder reads (a board dump has 64).
pub const MAX_PAYLOAD: usize = 64;
/// The largest EEPROM dump accepted (its log is a 0x1f00-byte ring); it is drained unread, so a
/// bound is needed only to tell a real dump from a corrupt length.
pub const MAX_EE_MOVES_LENGTH: usize = 0x2000 + HEADER_BYTES;

/// Sent when a connection opens: reset (which also leaves bus mode), ask for the version and
/// serial number (to name the board in logs), switch on field updates with the clock's times
/// whenever they change (a clock on the board completes a move at its press), and only then
/// ask for the board dump, so that a piece moved while the dump is being scanned is still
/// reported by an update after it.
pub const GREETING: [u8; 5] = [
    DGT_SEND_RESET,
    DGT_SEND_VERSION,
    DGT_RETURN_SERIALNR,
    DGT_SEND_UPDATE_NICE,
    DGT_SEND_BRD,
];

/// Asks for a full board dump.
pub const SNAPSHOT_REQUEST: [u8; 1] = [DGT_SEND_BRD];

/// A host → board command, read by the simulated board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostCommand {
    Reset,
    SendClock,
    SendBoard,
    SendUpdate,
    SendUpdateBoard,
    ReturnSerialNr,
    ReturnBusAddress,
    SendTrademark,
    SendEeMoves,
    ToBusMode,
    SendUpdateNice,
    SendBatteryStatus,
    SendVersion,
    /// 0x4e: a real board would jump to its bootloader. Recognised so a simulator can refuse it.
    StartBootloader,
    ReturnLongSerialNr,
    /// 0x2b: a clock command for a DGT clock attached to the board. It is followed by a size
    /// byte and that many more bytes, which the board side must skip.
    ClockMessage,
    /// 0x60: Revelation II LEDs. Followed by a size byte and that many more bytes.
    SetLeds,
}

/// Reads a host → board command byte; `None` for bytes that are no command (or the data bytes
/// of a clock or LED command).
pub fn parse_host_command(byte: u8) -> Option<HostCommand> {
    Some(match byte {
        0x40 => HostCommand::Reset,
        0x41 => HostCommand::SendClock,
        0x42 => HostCommand::SendBoard,
        0x43 => HostCommand::SendUpdate,
        0x44 => HostCommand::SendUpdateBoard,
        0x45 => HostCommand::ReturnSerialNr,
        0x46 => HostCommand::ReturnBusAddress,
        0x47 => HostCommand::SendTrademark,
        0x49 => HostCommand::SendEeMoves,
        0x4a => HostCommand::ToBusMode,
        0x4b => HostCommand::SendUpdateNice,
        0x4c => HostCommand::SendBatteryStatus,
        0x4d => HostCommand::SendVersion,
        0x4e => HostCommand::StartBootloader,
        0x55 => HostCommand::ReturnLongSerialNr,
        0x2b => HostCommand::ClockMessage,
        0x60 => HostCommand::SetLeds,
        _ => return None,
    })
}

/// DGT's piece codes, in DGT's order (P R N B K Q, not the usual P N B R Q K). Codes 13–15 are
/// the "magic pieces" DGT sells for signalling results; they are no chess piece, so they read
/// as an empty square.
const PIECE_CODES: [Option<Piece>; 16] = {
    const fn p(color: Color, role: Role) -> Option<Piece> {
        Some(Piece { color, role })
    }
    use Color::{Black, White};
    use Role::{Bishop, King, Knight, Pawn, Queen, Rook};
    [
        None,
        p(White, Pawn),
        p(White, Rook),
        p(White, Knight),
        p(White, Bishop),
        p(White, King),
        p(White, Queen),
        p(Black, Pawn),
        p(Black, Rook),
        p(Black, Knight),
        p(Black, Bishop),
        p(Black, King),
        p(Black, Queen),
        None,
        None,
        None,
    ]
};

/// The piece a DGT code stands for: `Some(None)` for an empty square (0, and the magic pieces
/// 13–15), `None` when the byte is no piece code at all.
pub fn piece_from_code(code: u8) -> Option<Option<Piece>> {
    PIECE_CODES.get(usize::from(code)).copied()
}

/// The DGT code of a square's content.
pub fn piece_code(piece: Option<Piece>) -> u8 {
    let Some(piece) = piece else { return 0 };
    let base = match piece.role {
        Role::Pawn => 1,
        Role::Rook => 2,
        Role::Knight => 3,
        Role::Bishop => 4,
        Role::King => 5,
        Role::Queen => 6,
    };
    match piece.color {
        Color::White => base,
        Color::Black => base + 6,
    }
}

/// The square of a DGT field number (0 = a8, 63 = h1); `None` past 63.
pub fn field_square(field: u8) -> Option<Square> {
    (field < 64).then(|| {
        Square::from_coords(
            File::new(u32::from(field % 8)),
            Rank::new(7 - u32::from(field / 8)),
        )
    })
}

/// The DGT field number of a square.
pub fn square_field(square: Square) -> u8 {
    // Both are below 8, so the field is below 64.
    ((7 - square.rank().to_u32()) * 8 + square.file().to_u32()) as u8
}

/// The board turned by 180°: what a DGT board reports when it is set up with Black at the
/// connector's side, and what turns such a report back.
pub fn rotate(board: &Board) -> Board {
    let mut turned = board.clone();
    turned.rotate_180();
    turned
}

fn frame(id: u8, payload: &[u8]) -> Vec<u8> {
    let total = payload.len() + HEADER_BYTES;
    let mut bytes = Vec::with_capacity(total);
    bytes.extend([id, ((total >> 7) & 0x7f) as u8, (total & 0x7f) as u8]);
    bytes.extend_from_slice(payload);
    bytes
}

/// A board dump message (0x86) as the board sends it.
pub fn encode_board_dump(board: &Board) -> Vec<u8> {
    let mut fields = [0u8; 64];
    for (field, code) in (0u8..).zip(fields.iter_mut()) {
        if let Some(square) = field_square(field) {
            *code = piece_code(board.piece_at(square));
        }
    }
    frame(DGT_MSG_BOARD_DUMP, &fields)
}

/// A field update message (0x8e): `square` now holds `piece` (or nothing).
pub fn encode_field_update(square: Square, piece: Option<Piece>) -> Vec<u8> {
    frame(
        DGT_MSG_FIELD_UPDATE,
        &[square_field(square), piece_code(piece)],
    )
}

/// A version message (0x93); each number is sent in 7 bits.
pub fn encode_version(major: u8, minor: u8) -> Vec<u8> {
    frame(DGT_MSG_VERSION, &[major & 0x7f, minor & 0x7f])
}

/// A serial number message (0x91): five ASCII characters, usually digits.
pub fn encode_serial_number(serial: &[u8; 5]) -> Vec<u8> {
    frame(DGT_MSG_SERIALNR, &serial.map(|b| b & 0x7f))
}

/// Clock status bits (the last byte of a clock-times message, dgtbrd.h): the clock runs; the
/// right side's lever is up (its time runs); no clock is connected (the times mean nothing).
const CLOCK_RUNNING: u8 = 0x01;
const CLOCK_RIGHT_RUNS: u8 = 0x02;
const CLOCK_NONE: u8 = 0x20;

/// One side's time as the clock sends it: hours in the low nibble of the first byte (its high
/// nibble holds that side's flags), then minutes and seconds in BCD.
fn bcd_time(h: u8, m: u8, s: u8) -> Option<Millis> {
    let bcd = |b: u8| {
        (b >> 4 < 10 && b & 0x0f < 10).then_some(u64::from(b >> 4) * 10 + u64::from(b & 0x0f))
    };
    let (hours, minutes, seconds) = (u64::from(h & 0x0f), bcd(m)?, bcd(s)?);
    (hours < 10 && minutes < 60 && seconds < 60)
        .then_some(((hours * 60 + minutes) * 60 + seconds) * 1000)
}

/// A clock-times message (0x8d) as a DGT board sends it for its clock, for the simulator and
/// the tests (whole seconds, as the clock shows them).
pub fn encode_clock(reading: &ClockReading) -> Vec<u8> {
    let side = |ms: Millis| {
        let s = (ms / 1000).min(9 * 3600 + 59 * 60 + 59);
        let bcd = |n: u64| (((n / 10) << 4) | (n % 10)) as u8;
        [(s / 3600) as u8, bcd(s / 60 % 60), bcd(s % 60)]
    };
    let mut status = 0;
    if reading.running {
        status |= CLOCK_RUNNING;
    }
    if reading.right_runs {
        status |= CLOCK_RIGHT_RUNS;
    }
    let mut payload = side(reading.right_ms).to_vec();
    payload.extend(side(reading.left_ms));
    payload.push(status);
    frame(DGT_MSG_BWTIME, &payload)
}

/// Time read from a recording's clock frames: each frame shows the running side's time, so
/// the drop since the frame before is the time that passed (the events between two frames are
/// given the time of the frame before them). A paused clock, a press, a time that went up
/// (an arbiter's correction, a new game) or a jump of more than a minute give no time.
#[derive(Debug, Default)]
pub struct ClockTimeline {
    last: Option<ClockReading>,
    elapsed: Millis,
}

impl ClockTimeline {
    /// The time passed up to the frame `reading`, in milliseconds since the first frame.
    pub fn advance(&mut self, reading: &ClockReading) -> Millis {
        if let Some(last) = self.last
            && last.running
            && reading.running
            && last.right_runs == reading.right_runs
        {
            let drop = last
                .running_side_ms()
                .saturating_sub(reading.running_side_ms());
            if drop <= 60_000 {
                self.elapsed += drop;
            }
        }
        self.last = Some(*reading);
        self.elapsed
    }

    /// The time passed up to the last frame.
    pub fn now(&self) -> Millis {
        self.elapsed
    }
}

/// What a message is called in error messages.
fn message_name(id: u8) -> &'static str {
    match id {
        DGT_MSG_BOARD_DUMP => "board dump",
        DGT_MSG_BWTIME => "clock times",
        DGT_MSG_FIELD_UPDATE => "field update",
        DGT_MSG_EE_MOVES => "EEPROM moves",
        DGT_MSG_BUSADRES => "bus address",
        DGT_MSG_SERIALNR => "serial number",
        DGT_MSG_TRADEMARK => "trademark",
        DGT_MSG_VERSION => "version",
        DGT_MSG_BATTERY_STATUS => "battery status",
        DGT_MSG_LONG_SERIALNR => "long serial number",
        _ => "unknown message",
    }
}

/// The total length a message must have, where DGT fixes it.
fn fixed_length(id: u8) -> Option<usize> {
    match id {
        DGT_MSG_BOARD_DUMP => Some(67),
        DGT_MSG_FIELD_UPDATE | DGT_MSG_VERSION | DGT_MSG_BUSADRES => Some(5),
        DGT_MSG_SERIALNR => Some(8),
        DGT_MSG_BWTIME => Some(10),
        DGT_MSG_LONG_SERIALNR => Some(13),
        _ => None,
    }
}

fn max_length(id: u8) -> usize {
    if id == DGT_MSG_EE_MOVES {
        MAX_EE_MOVES_LENGTH
    } else {
        HEADER_BYTES + MAX_PAYLOAD
    }
}

#[derive(Debug, Clone, Copy)]
enum State {
    /// Between messages; bytes with the top bit clear are noise. `quiet` after a rejected
    /// header, whose payload would otherwise be reported a second time as noise.
    Seek {
        skipped: u64,
        since: u64,
        quiet: bool,
    },
    /// The id byte at `start` was read, and `high` is the first length byte once read.
    Header {
        id: u8,
        start: u64,
        high: Option<u8>,
    },
    /// Reading the payload of a message `total` bytes long, `got` payload bytes so far.
    Body {
        id: u8,
        start: u64,
        total: usize,
        got: usize,
    },
}

const FRESH: State = State::Seek {
    skipped: 0,
    since: 0,
    quiet: false,
};

/// Streaming decoder for DGT board → host messages.
#[derive(Debug)]
pub struct DgtDecoder {
    state: State,
    payload: [u8; MAX_PAYLOAD],
    /// Offset of the next byte in the stream.
    offset: u64,
}

impl Default for DgtDecoder {
    fn default() -> Self {
        DgtDecoder::new()
    }
}

impl DgtDecoder {
    pub fn new() -> DgtDecoder {
        DgtDecoder {
            state: FRESH,
            payload: [0; MAX_PAYLOAD],
            offset: 0,
        }
    }

    fn error(position: u64, message: String) -> Decoded {
        Err(DecodeError {
            position: StreamPosition::Offset(position),
            message,
        })
    }

    /// Reports the message or noise in progress as cut short; `by` says what cut it.
    fn abandon(&mut self, by: &str, out: &mut Vec<Decoded>) {
        match self.state {
            State::Seek {
                skipped,
                since,
                quiet,
            } => {
                if skipped > 0 && !quiet {
                    out.push(Self::error(
                        since,
                        format!(
                            "{skipped} byte{} outside any message skipped; a message starts \
                             with a byte of 0x80 or more",
                            if skipped == 1 { "" } else { "s" }
                        ),
                    ));
                }
            }
            State::Header { id, start, high } => out.push(Self::error(
                start,
                format!(
                    "message 0x{id:02x} ({}) cut short after {} of its 3 header bytes {by}",
                    message_name(id),
                    1 + usize::from(high.is_some()),
                ),
            )),
            State::Body {
                id,
                start,
                total,
                got,
            } => out.push(Self::error(
                start,
                format!(
                    "message 0x{id:02x} ({}) cut short after {} of its {total} bytes {by}",
                    message_name(id),
                    HEADER_BYTES + got,
                ),
            )),
        }
        self.state = FRESH;
    }

    fn step(&mut self, byte: u8, now: Millis, out: &mut Vec<Decoded>) {
        let offset = self.offset;
        self.offset += 1;
        if byte & 0x80 != 0 {
            if !matches!(self.state, State::Seek { .. }) {
                let by =
                    format!("by byte 0x{byte:02x} at offset {offset}, which starts a new message");
                self.abandon(&by, out);
            } else {
                self.abandon("", out);
            }
            self.state = State::Header {
                id: byte,
                start: offset,
                high: None,
            };
            return;
        }
        match self.state {
            State::Seek {
                skipped,
                since,
                quiet,
            } => {
                let since = if skipped == 0 { offset } else { since };
                self.state = State::Seek {
                    skipped: skipped + 1,
                    since,
                    quiet,
                };
            }
            State::Header {
                id,
                start,
                high: None,
            } => {
                self.state = State::Header {
                    id,
                    start,
                    high: Some(byte),
                };
            }
            State::Header {
                id,
                start,
                high: Some(high),
            } => {
                let total = (usize::from(high) << 7) | usize::from(byte);
                let name = message_name(id);
                let problem = if total < HEADER_BYTES {
                    Some(format!(
                        "message 0x{id:02x} ({name}) declares {total} bytes; the length counts \
                         the 3 header bytes, so it is at least 3"
                    ))
                } else if let Some(expected) = fixed_length(id).filter(|&n| n != total) {
                    Some(format!(
                        "message 0x{id:02x} ({name}) declares {total} bytes; it has {expected}"
                    ))
                } else if total > max_length(id) {
                    Some(format!(
                        "message 0x{id:02x} ({name}) declares {total} bytes; at most {} expected",
                        max_length(id)
                    ))
                } else {
                    None
                };
                if let Some(problem) = problem {
                    out.push(Self::error(start, problem));
                    self.state = State::Seek {
                        skipped: 0,
                        since: 0,
                        quiet: true,
                    };
                } else if total == HEADER_BYTES {
                    self.complete(id, start, 0, now, out);
                } else {
                    self.state = State::Body {
                        id,
                        start,
                        total,
                        got: 0,
                    };
                }
            }
            State::Body {
                id,
                start,
                total,
                got,
            } => {
                if let Some(slot) = self.payload.get_mut(got) {
                    *slot = byte;
                }
                let got = got + 1;
                if HEADER_BYTES + got == total {
                    self.complete(id, start, got, now, out);
                } else {
                    self.state = State::Body {
                        id,
                        start,
                        total,
                        got,
                    };
                }
            }
        }
    }

    /// A whole message of `len` payload bytes has arrived.
    fn complete(&mut self, id: u8, start: u64, len: usize, now: Millis, out: &mut Vec<Decoded>) {
        self.state = FRESH;
        let payload = &self.payload[..len.min(MAX_PAYLOAD)];
        let data_offset = start + HEADER_BYTES as u64;
        let event = match id {
            DGT_MSG_BOARD_DUMP => {
                let mut board = Board::empty();
                for (field, &code) in (0u8..).zip(payload) {
                    let Some(piece) = piece_from_code(code) else {
                        // A dump is taken as the truth about the board, so a corrupt one is
                        // dropped whole rather than half believed.
                        out.push(Self::error(
                            data_offset + u64::from(field),
                            format!(
                                "board dump: field {field} ({}) has piece code {code}; DGT piece \
                                 codes are 0 to 15; the dump is ignored",
                                field_square(field).map_or(String::new(), |s| s.to_string())
                            ),
                        ));
                        return;
                    };
                    if let (Some(piece), Some(square)) = (piece, field_square(field)) {
                        board.set_piece_at(square, piece);
                    }
                }
                SensorEvent::Pieces(board)
            }
            DGT_MSG_FIELD_UPDATE => {
                let &[field, code] = payload else { return };
                let Some(square) = field_square(field) else {
                    out.push(Self::error(
                        data_offset,
                        format!("field update: field {field}; fields are 0 (a8) to 63 (h1)"),
                    ));
                    return;
                };
                let Some(piece) = piece_from_code(code) else {
                    out.push(Self::error(
                        data_offset + 1,
                        format!(
                            "field update on {square}: piece code {code}; DGT piece codes are 0 \
                             to 15"
                        ),
                    ));
                    return;
                };
                SensorEvent::SquareChanged { square, piece }
            }
            DGT_MSG_VERSION => {
                let &[major, minor] = payload else { return };
                SensorEvent::Identity(format!("DGT board version {major}.{minor}"))
            }
            DGT_MSG_SERIALNR => {
                SensorEvent::Identity(format!("DGT board serial number {}", ascii_text(payload)))
            }
            DGT_MSG_LONG_SERIALNR => SensorEvent::Identity(format!(
                "DGT board long serial number {}",
                ascii_text(payload)
            )),
            DGT_MSG_TRADEMARK => {
                SensorEvent::Identity(format!("DGT board trademark: {}", ascii_text(payload)))
            }
            DGT_MSG_BWTIME => {
                let &[r0, r1, r2, l0, l1, l2, status] = payload else {
                    return;
                };
                // An answer to a clock command comes in the same frame, marked by 0x0a in
                // either side's low nibble; a board without a clock says so in its status.
                if r0 & 0x0f == 0x0a || l0 & 0x0f == 0x0a || status & CLOCK_NONE != 0 {
                    return;
                }
                let (Some(right_ms), Some(left_ms)) = (bcd_time(r0, r1, r2), bcd_time(l0, l1, l2))
                else {
                    out.push(Self::error(
                        data_offset,
                        format!(
                            "clock times: {r0:02x} {r1:02x} {r2:02x} {l0:02x} {l1:02x} {l2:02x} \
                             are no hours, minutes and seconds in BCD; the frame is ignored"
                        ),
                    ));
                    return;
                };
                SensorEvent::Clock(ClockReading {
                    left_ms,
                    right_ms,
                    running: status & CLOCK_RUNNING != 0,
                    right_runs: status & CLOCK_RIGHT_RUNS != 0,
                })
            }
            // Bus address, battery, the EEPROM log and unknown messages carry nothing the
            // detector uses; they are framed correctly, so they are no error.
            _ => return,
        };
        out.push(Ok(Timed { at: now, event }));
    }
}

/// Printable ASCII of a payload, with line breaks and other controls read as blanks.
fn ascii_text(payload: &[u8]) -> String {
    let text: String = payload
        .iter()
        .map(|&b| if b.is_ascii_graphic() { b as char } else { ' ' })
        .collect();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl Decoder for DgtDecoder {
    fn feed(&mut self, bytes: &[u8], now: Millis, out: &mut Vec<Decoded>) {
        for &byte in bytes {
            self.step(byte, now, out);
        }
    }

    fn finish(&mut self, _now: Millis, out: &mut Vec<Decoded>) {
        self.abandon("by the end of the stream", out);
    }

    fn greeting(&self) -> Vec<u8> {
        GREETING.to_vec()
    }

    fn snapshot_request(&self) -> Vec<u8> {
        SNAPSHOT_REQUEST.to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_chunks(chunks: &[&[u8]]) -> Vec<Decoded> {
        let mut d = DgtDecoder::new();
        let mut out = Vec::new();
        for (i, chunk) in chunks.iter().enumerate() {
            d.feed(chunk, i as Millis, &mut out);
        }
        d.finish(chunks.len() as Millis, &mut out);
        out
    }

    fn decode(bytes: &[u8]) -> Vec<Decoded> {
        decode_chunks(&[bytes])
    }

    fn err(d: &Decoded) -> String {
        d.as_ref().unwrap_err().to_string()
    }

    #[test]
    fn piece_codes_are_p_r_n_b_k_q() {
        let order = [
            Role::Pawn,
            Role::Rook,
            Role::Knight,
            Role::Bishop,
            Role::King,
            Role::Queen,
        ];
        assert_eq!(piece_from_code(0), Some(None));
        for (i, role) in order.into_iter().enumerate() {
            let white = Piece {
                color: Color::White,
                role,
            };
            let black = Piece {
                color: Color::Black,
                role,
            };
            assert_eq!(piece_from_code(1 + i as u8), Some(Some(white)));
            assert_eq!(piece_from_code(7 + i as u8), Some(Some(black)));
            assert_eq!(piece_code(Some(white)), 1 + i as u8);
            assert_eq!(piece_code(Some(black)), 7 + i as u8);
        }
        for magic in 13..=15 {
            assert_eq!(piece_from_code(magic), Some(None));
        }
        for bad in 16..=255 {
            assert_eq!(piece_from_code(bad), None);
        }
    }

    #[test]
    fn fields_run_from_a8_to_h1() {
        assert_eq!(field_square(0), Some(Square::A8));
        assert_eq!(field_square(1), Some(Square::B8));
        assert_eq!(field_square(8), Some(Square::A7));
        assert_eq!(field_square(57), Some(Square::B1));
        assert_eq!(field_square(63), Some(Square::H1));
        assert_eq!(field_square(64), None);
        for square in Square::ALL {
            assert_eq!(field_square(square_field(square)), Some(square));
        }
    }

    #[test]
    fn the_length_counts_the_header() {
        assert_eq!(encode_field_update(Square::E4, None), [0x8e, 0, 5, 36, 0]);
        let dump = encode_board_dump(&Board::new());
        assert_eq!(&dump[..3], &[0x86, 0, 67]);
        assert_eq!(dump.len(), 67);
        // The start position in field order: black's back rank first, in DGT codes.
        assert_eq!(&dump[3..11], &[8, 9, 10, 12, 11, 10, 9, 8]);
        assert_eq!(&dump[59..67], &[2, 3, 4, 6, 5, 4, 3, 2]);
        // Two 7-bit halves: 130 = 1 << 7 | 2.
        assert_eq!(&frame(0x92, &[b'a'; 127])[..3], &[0x92, 1, 2]);
    }

    #[test]
    fn start_position_one_byte_at_a_time() {
        let dump = encode_board_dump(&Board::new());
        let chunks: Vec<&[u8]> = dump.chunks(1).collect();
        let got = decode_chunks(&chunks);
        assert_eq!(
            got,
            [Ok(Timed {
                at: 66,
                event: SensorEvent::Pieces(Board::new())
            })]
        );
    }

    #[test]
    fn junk_before_a_message_is_one_error() {
        let mut bytes = vec![1, 2, 3];
        bytes.extend(encode_field_update(
            Square::E4,
            Some(Piece::from_char('P').unwrap()),
        ));
        let got = decode(&bytes);
        assert_eq!(
            err(&got[0]),
            "byte offset 0: 3 bytes outside any message skipped; a message starts with a byte of 0x80 or more"
        );
        assert_eq!(
            got[1],
            Ok(Timed {
                at: 0,
                event: SensorEvent::SquareChanged {
                    square: Square::E4,
                    piece: Some(Piece::from_char('P').unwrap())
                }
            })
        );
        assert_eq!(got.len(), 2);
    }

    #[test]
    fn a_header_byte_mid_message_aborts_it_and_starts_the_next() {
        let mut bytes = encode_board_dump(&Board::new())[..20].to_vec();
        bytes.extend(encode_version(3, 1));
        let got = decode(&bytes);
        assert_eq!(
            err(&got[0]),
            "byte offset 0: message 0x86 (board dump) cut short after 20 of its 67 bytes by byte \
             0x93 at offset 20, which starts a new message"
        );
        assert_eq!(
            got[1],
            Ok(Timed {
                at: 0,
                event: SensorEvent::Identity("DGT board version 3.1".into())
            })
        );
    }

    #[test]
    fn bad_lengths_are_rejected_without_a_second_error_for_their_payload() {
        let got = decode(&[0x8e, 0, 2, 5, 5, 0x8e, 0, 9, 1, 2, 3, 4, 5, 6]);
        assert_eq!(
            err(&got[0]),
            "byte offset 0: message 0x8e (field update) declares 2 bytes; the length counts the 3 \
             header bytes, so it is at least 3"
        );
        assert_eq!(
            err(&got[1]),
            "byte offset 5: message 0x8e (field update) declares 9 bytes; it has 5"
        );
        assert_eq!(got.len(), 2);
        let got = decode(&[0x92, 1, 0, 1]);
        assert_eq!(
            err(&got[0]),
            "byte offset 0: message 0x92 (trademark) declares 128 bytes; at most 67 expected"
        );
    }

    #[test]
    fn an_eeprom_dump_is_drained_unread() {
        let mut bytes = frame(DGT_MSG_EE_MOVES, &[0x6b; 0x1f00]);
        bytes.extend(encode_version(1, 7));
        let got = decode(&bytes);
        assert_eq!(
            got,
            [Ok(Timed {
                at: 0,
                event: SensorEvent::Identity("DGT board version 1.7".into())
            })]
        );
    }

    #[test]
    fn bad_piece_codes_name_their_offset() {
        let mut dump = encode_board_dump(&Board::new());
        dump[3 + 12] = 16;
        let got = decode(&dump);
        assert_eq!(
            err(&got[0]),
            "byte offset 15: board dump: field 12 (e7) has piece code 16; DGT piece codes are 0 \
             to 15; the dump is ignored"
        );
        assert_eq!(got.len(), 1);
        let got = decode(&[0x8e, 0, 5, 64, 1, 0x8e, 0, 5, 0, 0x7f]);
        assert_eq!(
            err(&got[0]),
            "byte offset 3: field update: field 64; fields are 0 (a8) to 63 (h1)"
        );
        assert_eq!(
            err(&got[1]),
            "byte offset 9: field update on a8: piece code 127; DGT piece codes are 0 to 15"
        );
    }

    #[test]
    fn magic_pieces_read_as_empty() {
        let got = decode(&[0x8e, 0, 5, 0, 13]);
        assert_eq!(
            got,
            [Ok(Timed {
                at: 0,
                event: SensorEvent::SquareChanged {
                    square: Square::A8,
                    piece: None
                }
            })]
        );
    }

    #[test]
    fn a_stream_ending_mid_message_says_so() {
        let got = decode(&[0x86, 0, 67, 1, 2]);
        assert_eq!(
            err(&got[0]),
            "byte offset 0: message 0x86 (board dump) cut short after 5 of its 67 bytes by the end \
             of the stream"
        );
    }

    #[test]
    fn clock_frames_are_read_and_give_a_recording_its_time() {
        let reading = ClockReading {
            left_ms: 5_399_000,
            right_ms: 301_000,
            running: true,
            right_runs: false,
        };
        let bytes = encode_clock(&reading);
        assert_eq!(
            bytes,
            [0x8d, 0x00, 0x0a, 0x00, 0x05, 0x01, 0x01, 0x29, 0x59, 0x01]
        );
        let decoded = decode(&bytes);
        assert_eq!(decoded.len(), 1);
        assert_eq!(
            decoded[0].as_ref().unwrap().event,
            SensorEvent::Clock(reading)
        );
        // An acknowledgement, a board without a clock and bad BCD are no readings.
        assert!(decode(&[0x8d, 0x00, 0x0a, 0x0a, 0x08, 0x31, 0x00, 0x00, 0x00, 0x01]).is_empty());
        assert!(decode(&[0x8d, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20]).is_empty());
        let bad = decode(&[0x8d, 0x00, 0x0a, 0x00, 0x7a, 0x00, 0x00, 0x00, 0x00, 0x01]);
        assert!(
            err(&bad[0]).contains("no hours, minutes and seconds"),
            "{}",
            err(&bad[0])
        );
        // The running side's drop is the time passed; a press, a pause or a correction give none.
        let mut t = ClockTimeline::default();
        let at = |l, r, running, right_runs| ClockReading {
            left_ms: l,
            right_ms: r,
            running,
            right_runs,
        };
        assert_eq!(t.advance(&at(60_000, 60_000, true, false)), 0);
        assert_eq!(t.advance(&at(59_000, 60_000, true, false)), 1_000);
        assert_eq!(t.advance(&at(57_000, 60_000, true, false)), 3_000);
        assert_eq!(t.advance(&at(57_000, 60_000, true, true)), 3_000);
        assert_eq!(t.advance(&at(57_000, 59_000, true, true)), 4_000);
        assert_eq!(t.advance(&at(57_000, 59_000, false, true)), 4_000);
        assert_eq!(t.advance(&at(57_000, 120_000, true, true)), 4_000);
        assert_eq!(t.now(), 4_000);
    }

    #[test]
    fn rotate_turns_the_start_position_around() {
        let turned = rotate(&Board::new());
        // Turned, not mirrored: the kings change files too (e8 → d1).
        assert_eq!(
            turned.piece_at(Square::D1),
            Some(Piece::from_char('k').unwrap())
        );
        assert_eq!(
            turned.piece_at(Square::D8),
            Some(Piece::from_char('K').unwrap())
        );
        assert_eq!(
            turned.piece_at(Square::E1),
            Some(Piece::from_char('q').unwrap())
        );
        assert_eq!(rotate(&turned), Board::new());
    }

    #[test]
    fn host_commands() {
        assert_eq!(
            parse_host_command(DGT_SEND_BRD),
            Some(HostCommand::SendBoard)
        );
        assert_eq!(parse_host_command(0x4e), Some(HostCommand::StartBootloader));
        assert_eq!(parse_host_command(0x00), None);
        for byte in GREETING {
            assert!(parse_host_command(byte).is_some());
            assert_ne!(byte, 0x4e);
        }
    }
}
