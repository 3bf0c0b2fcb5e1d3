//! The Millennium ChessLink serial protocol (`docs/millennium.md`): ASCII messages with odd
//! parity and a block-parity check in, board snapshots and square changes out.
//!
//! Every message is printable 7-bit ASCII: a command letter (upper case from the host, the same
//! letter in lower case in the board's reply), its data as characters, then the XOR of all those
//! characters as two hex digits. On the wire each character carries an odd-parity bit in bit 7
//! (the link runs at 7 data bits, odd parity), which a serial driver set to 7O1 strips and a
//! driver set to 8 bits hands through; the decoder accepts both and checks the bit when it is
//! there. The board's reply letter fixes the message's length, which is how the decoder frames.
//!
//! A status message (`s`) is the whole board, 64 piece letters from a8 to h8, a7 to h7 … h1.
//! The board sends one on every change once automatic reports are switched on (the greeting
//! does), so the first status after a connection is reported as the board ([`SensorEvent::Pieces`])
//! and each later one as the squares that changed ([`SensorEvent::SquareChanged`], emptied squares
//! first): a status sent while a piece slides across the board is then a hint, as a DGT field
//! update is, and the detector waits for the board to be quiet before it concludes.

use shakmaty::{Board, Piece, Square};

use super::{
    DecodeError, Decoded, Decoder, Millis, SensorEvent, StreamPosition, Timed, snapshot_events,
};

/// The board's serial speed (38400 baud, 7 data bits, odd parity, 1 stop bit).
pub const BAUD: u32 = 38_400;

/// E2ROM address of the scan time, in units of 2.048 ms (default 20: 24.4 scans a second).
pub const REG_SCAN_TIME: u8 = 0x01;
/// E2ROM address of the automatic status reports.
pub const REG_AUTO_REPORTS: u8 = 0x02;
/// Automatic reports: a status on every scan (the board's default).
pub const AUTO_EVERY_SCAN: u8 = 0b000;
/// Automatic reports off: the host asks with `S`.
pub const AUTO_OFF: u8 = 0b001;
/// Automatic reports: a status on any change (no debounce on the board; the host's detector
/// waits for quiet itself).
pub const AUTO_ON_CHANGE: u8 = 0b011;

/// The longest message a board sends: `s`, 64 piece letters, 2 check digits.
pub const MAX_MESSAGE: usize = 67;
/// Characters of a status message before its check digits.
const STATUS_CHARS: usize = 65;

/// The odd-parity bit of a 7-bit character, set in bit 7 when the character has an even number
/// of ones, so that the eight bits together have an odd number.
pub fn with_parity(c: u8) -> u8 {
    let c = c & 0x7f;
    if c.count_ones().is_multiple_of(2) {
        c | 0x80
    } else {
        c
    }
}

/// The block parity of a message: the XOR of its characters (7 bits each).
pub fn block_parity(chars: &[u8]) -> u8 {
    chars.iter().fold(0, |acc, &c| acc ^ (c & 0x7f))
}

fn hex_digit(n: u8) -> u8 {
    b"0123456789ABCDEF"[usize::from(n & 0x0f)]
}

fn hex_value(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// Two hex digits as a byte; `None` unless both are hex digits.
fn hex_byte(hi: u8, lo: u8) -> Option<u8> {
    Some(hex_value(hi)? << 4 | hex_value(lo)?)
}

fn push_hex(chars: &mut Vec<u8>, byte: u8) {
    chars.extend([hex_digit(byte >> 4), hex_digit(byte)]);
}

/// A message as it goes on the wire: its characters, the block parity as two hex digits, every
/// byte with its odd-parity bit.
pub fn frame(chars: &[u8]) -> Vec<u8> {
    let mut all = chars.iter().map(|&c| c & 0x7f).collect::<Vec<u8>>();
    push_hex(&mut all, block_parity(chars));
    all.into_iter().map(with_parity).collect()
}

/// `V`: asks for the firmware version.
pub fn command_version() -> Vec<u8> {
    frame(b"V")
}

/// `S`: asks for the status of the whole board.
pub fn command_status() -> Vec<u8> {
    frame(b"S")
}

/// `W`: writes `value` to the board's E2ROM at `address` (scan time, automatic reports, …).
pub fn command_write(address: u8, value: u8) -> Vec<u8> {
    let mut chars = vec![b'W'];
    push_hex(&mut chars, address);
    push_hex(&mut chars, value);
    frame(&chars)
}

/// `R`: reads the board's E2ROM at `address`.
pub fn command_read(address: u8) -> Vec<u8> {
    let mut chars = vec![b'R'];
    push_hex(&mut chars, address);
    frame(&chars)
}

/// `X`: puts out every LED.
pub fn command_extinguish() -> Vec<u8> {
    frame(b"X")
}

/// `L`: the flash pattern of the 81 LEDs (LED 1 in the a8 corner, 9 in the a1 corner, 81 in
/// the h1 corner), each a byte shown bit 7 first, one bit per slot of `slot_time` × 4.096 ms.
pub fn command_leds(slot_time: u8, patterns: &[u8; 81]) -> Vec<u8> {
    let mut chars = vec![b'L'];
    push_hex(&mut chars, slot_time);
    for &p in patterns {
        push_hex(&mut chars, p);
    }
    frame(&chars)
}

/// Sent when a connection opens: the version (to name the board in logs), a status on every
/// change, and the board as it stands now. Writing the report mode first means a piece moved
/// while the first status is sent is still reported by a status after it.
pub fn greeting() -> Vec<u8> {
    let mut bytes = command_version();
    bytes.extend(command_write(REG_AUTO_REPORTS, AUTO_ON_CHANGE));
    bytes.extend(command_status());
    bytes
}

/// The piece letter of a square's content (`.` for empty), as the board writes it.
pub fn piece_letter(piece: Option<Piece>) -> u8 {
    piece.map_or(b'.', |p| p.char() as u8)
}

/// The content a piece letter stands for: `Some(None)` for `.`, `None` for no piece letter.
pub fn piece_from_letter(c: u8) -> Option<Option<Piece>> {
    if c == b'.' {
        return Some(None);
    }
    let piece = Piece::from_char(c as char)?;
    Some(Some(piece))
}

/// The square of a status position (0 = a8, 7 = h8, 8 = a7 … 63 = h1, the maker's order).
pub fn status_square(index: usize) -> Option<Square> {
    super::dgt::field_square(u8::try_from(index).ok()?)
}

/// A status message (`s`) as the board sends it.
pub fn encode_status(board: &Board) -> Vec<u8> {
    let mut chars = Vec::with_capacity(STATUS_CHARS);
    chars.push(b's');
    for index in 0..64 {
        chars.push(piece_letter(
            status_square(index).and_then(|s| board.piece_at(s)),
        ));
    }
    frame(&chars)
}

/// A version reply (`v`): the firmware version's high and low bytes.
pub fn encode_version(high: u8, low: u8) -> Vec<u8> {
    let mut chars = vec![b'v'];
    push_hex(&mut chars, high);
    push_hex(&mut chars, low);
    frame(&chars)
}

/// The reply to a host command, as a simulated board gives it: `v` for `V`, `s` for `S`, the
/// echo `w`/`r` for an E2ROM write or read (a read answers `value`), the bare acknowledgement
/// for `L` and `X`; `None` for `T` (the board resets and says nothing) and unknown commands.
pub fn encode_reply(command: &HostCommand, board: &Board, value: u8) -> Option<Vec<u8>> {
    Some(match *command {
        HostCommand::Version => encode_version(1, 3),
        HostCommand::Status => encode_status(board),
        HostCommand::Write { address, value } => {
            let mut chars = vec![b'w'];
            push_hex(&mut chars, address);
            push_hex(&mut chars, value);
            frame(&chars)
        }
        HostCommand::Read { address } => {
            let mut chars = vec![b'r'];
            push_hex(&mut chars, address);
            push_hex(&mut chars, value);
            frame(&chars)
        }
        HostCommand::Leds => frame(b"l"),
        HostCommand::Extinguish => frame(b"x"),
        HostCommand::Reset => return None,
    })
}

/// The total length of a message from the board that starts with `letter`, check digits
/// included; `None` for a letter that starts no reply.
fn reply_length(letter: u8) -> Option<usize> {
    Some(match letter {
        b's' => MAX_MESSAGE,
        b'v' | b'w' | b'r' => 7,
        b'l' | b'x' => 3,
        _ => return None,
    })
}

/// The total length of a host command that starts with `letter`.
fn command_length(letter: u8) -> Option<usize> {
    Some(match letter {
        b'V' | b'S' | b'X' | b'T' => 3,
        b'R' => 5,
        b'W' => 7,
        b'L' => 1 + 2 + 81 * 2 + 2,
        _ => return None,
    })
}

/// A host → board command, read by the simulated board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostCommand {
    Version,
    Status,
    Write { address: u8, value: u8 },
    Read { address: u8 },
    Leds,
    Extinguish,
    Reset,
}

/// Frames the host's commands for a simulated board: characters with a good parity bit (or
/// none) and a good check are commands; anything else is dropped, as the board drops it.
#[derive(Debug, Default)]
pub struct HostReader {
    buf: Vec<u8>,
}

impl HostReader {
    pub fn new() -> HostReader {
        HostReader::default()
    }

    /// Bytes from the host; the complete commands among them, in order.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<HostCommand> {
        let mut commands = Vec::new();
        for &byte in bytes {
            if !parity_ok(byte) {
                self.buf.clear();
                continue;
            }
            let c = byte & 0x7f;
            if self.buf.is_empty() && command_length(c).is_none() {
                continue;
            }
            self.buf.push(c);
            let Some(total) = self.buf.first().and_then(|&l| command_length(l)) else {
                self.buf.clear();
                continue;
            };
            if self.buf.len() >= total {
                let message = std::mem::take(&mut self.buf);
                if let Some(command) = parse_command(&message) {
                    commands.push(command);
                }
            }
        }
        commands
    }
}

/// A whole host command with its check digits; `None` if the check fails or the data is bad.
fn parse_command(message: &[u8]) -> Option<HostCommand> {
    let (chars, check) = message.split_at(message.len().checked_sub(2)?);
    if hex_byte(check[0], check[1])? != block_parity(chars) {
        return None;
    }
    let byte_at = |i: usize| hex_byte(*chars.get(i)?, *chars.get(i + 1)?);
    Some(match chars.first()? {
        b'V' => HostCommand::Version,
        b'S' => HostCommand::Status,
        b'X' => HostCommand::Extinguish,
        b'T' => HostCommand::Reset,
        b'L' => HostCommand::Leds,
        b'R' => HostCommand::Read {
            address: byte_at(1)?,
        },
        b'W' => HostCommand::Write {
            address: byte_at(1)?,
            value: byte_at(3)?,
        },
        _ => return None,
    })
}

/// Whether a byte's parity bit, when it carries one (bit 7 set), makes its parity odd. A byte
/// with bit 7 clear came through a driver that already checked and stripped it (7O1), or is a
/// character whose own seven bits are odd.
fn parity_ok(byte: u8) -> bool {
    byte & 0x80 == 0 || byte.count_ones() % 2 == 1
}

/// Streaming decoder for Millennium board → host messages.
#[derive(Debug)]
pub struct MillenniumDecoder {
    /// The message under way (7-bit characters), at most one status long.
    buf: [u8; MAX_MESSAGE],
    len: usize,
    /// Stream offset of `buf[0]`.
    start: u64,
    /// Offset of the next byte.
    offset: u64,
    /// A run of bytes outside any message: its first offset and length.
    noise: Option<(u64, u64)>,
    /// The board as the last status showed it; later statuses are reported as changes to it.
    last: Option<Board>,
}

impl Default for MillenniumDecoder {
    fn default() -> Self {
        MillenniumDecoder::new()
    }
}

impl MillenniumDecoder {
    pub fn new() -> MillenniumDecoder {
        MillenniumDecoder {
            buf: [0; MAX_MESSAGE],
            len: 0,
            start: 0,
            offset: 0,
            noise: None,
            last: None,
        }
    }

    fn error(position: u64, message: String) -> Decoded {
        Err(DecodeError {
            position: StreamPosition::Offset(position),
            message,
        })
    }

    fn report_noise(&mut self, out: &mut Vec<Decoded>) {
        if let Some((since, count)) = self.noise.take() {
            out.push(Self::error(
                since,
                format!(
                    "{count} byte{} outside any message skipped; a message from the board starts \
                     with s, v, w, r, l or x",
                    if count == 1 { "" } else { "s" }
                ),
            ));
        }
    }

    /// Reports the message under way as cut short by `by`, and forgets it.
    fn abandon(&mut self, by: &str, out: &mut Vec<Decoded>) {
        if self.len > 0 {
            let letter = self.buf[0];
            let total = reply_length(letter).unwrap_or(self.len);
            out.push(Self::error(
                self.start,
                format!(
                    "message '{}' cut short after {} of its {total} characters {by}",
                    letter as char, self.len
                ),
            ));
            self.len = 0;
        }
    }

    fn step(&mut self, byte: u8, now: Millis, out: &mut Vec<Decoded>) {
        let offset = self.offset;
        self.offset += 1;
        if !parity_ok(byte) {
            self.report_noise(out);
            out.push(Self::error(
                offset,
                format!("byte 0x{byte:02x} fails its odd parity check"),
            ));
            self.abandon(&format!("by the bad byte at offset {offset}"), out);
            return;
        }
        let c = byte & 0x7f;
        if self.len == 0 {
            if reply_length(c).is_none() {
                match &mut self.noise {
                    Some((_, count)) => *count += 1,
                    None => self.noise = Some((offset, 1)),
                }
                return;
            }
            self.report_noise(out);
            self.start = offset;
        }
        self.buf[self.len] = c;
        self.len += 1;
        if reply_length(self.buf[0]).is_some_and(|total| self.len >= total) {
            let len = std::mem::replace(&mut self.len, 0);
            self.complete(len, now, out);
        }
    }

    /// A whole message of `len` characters is in `buf`.
    fn complete(&mut self, len: usize, now: Millis, out: &mut Vec<Decoded>) {
        let message = self.buf;
        let (chars, check) = message[..len].split_at(len - 2);
        let letter = chars[0] as char;
        let Some(given) = hex_byte(check[0], check[1]) else {
            out.push(Self::error(
                self.start + (len - 2) as u64,
                format!(
                    "message '{letter}': its check {:?} is not two hex digits; the message is \
                     ignored",
                    String::from_utf8_lossy(check)
                ),
            ));
            return;
        };
        let computed = block_parity(chars);
        if given != computed {
            out.push(Self::error(
                self.start,
                format!(
                    "message '{letter}': check digits {given:02X}, but its characters give \
                     {computed:02X}; the message is ignored"
                ),
            ));
            return;
        }
        match chars[0] {
            b's' => self.status(&chars[1..], now, out),
            b'v' => {
                let (Some(high), Some(low)) =
                    (hex_byte(chars[1], chars[2]), hex_byte(chars[3], chars[4]))
                else {
                    out.push(Self::error(
                        self.start + 1,
                        format!(
                            "version {:?}: four hex digits expected",
                            String::from_utf8_lossy(&chars[1..])
                        ),
                    ));
                    return;
                };
                out.push(Ok(Timed {
                    at: now,
                    event: SensorEvent::Identity(format!(
                        "Millennium ChessLink board version {high}.{low}"
                    )),
                }));
            }
            // Acknowledgements of the host's writes, reads, LEDs: framed correctly, nothing
            // the detector uses.
            _ => {}
        }
    }

    /// A status: the whole board, or the squares that changed since the last one.
    fn status(&mut self, letters: &[u8], now: Millis, out: &mut Vec<Decoded>) {
        let mut board = Board::empty();
        for (index, &c) in letters.iter().enumerate() {
            let Some(square) = status_square(index) else {
                continue;
            };
            let Some(piece) = piece_from_letter(c) else {
                // A status is the truth about the board: half of one must not be believed.
                out.push(Self::error(
                    self.start + 1 + index as u64,
                    format!(
                        "status: square {square} has {:?}; a square holds one of KQRBNPkqrbnp or \
                         . (empty); the status is ignored",
                        c as char
                    ),
                ));
                return;
            };
            if let Some(piece) = piece {
                board.set_piece_at(square, piece);
            }
        }
        snapshot_events(self.last.as_ref(), &board, now, out);
        self.last = Some(board);
    }
}

impl Decoder for MillenniumDecoder {
    fn feed(&mut self, bytes: &[u8], now: Millis, out: &mut Vec<Decoded>) {
        for &byte in bytes {
            self.step(byte, now, out);
        }
    }

    fn finish(&mut self, _now: Millis, out: &mut Vec<Decoded>) {
        self.report_noise(out);
        self.abandon("by the end of the stream", out);
    }

    fn greeting(&self) -> Vec<u8> {
        greeting()
    }

    fn snapshot_request(&self) -> Vec<u8> {
        command_status()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(bytes: &[u8]) -> Vec<Decoded> {
        let mut d = MillenniumDecoder::new();
        let mut out = Vec::new();
        d.feed(bytes, 7, &mut out);
        d.finish(7, &mut out);
        out
    }

    fn err(d: &Decoded) -> String {
        d.as_ref().unwrap_err().to_string()
    }

    fn ok(event: SensorEvent) -> Decoded {
        Ok(Timed { at: 7, event })
    }

    #[test]
    fn the_makers_examples() {
        // From a trace of a real board over Bluetooth LE (python-mchess's chess_link.py): the
        // host sends V with its parity bits, the board answers v0103 with check 74.
        assert_eq!(command_version(), b"\xd6\xb5\xb6");
        let reply = [b'v', 0xb0, b'1', 0xb0, 0xb3, b'7', b'4'];
        assert_eq!(encode_version(1, 3), reply);
        assert_eq!(
            decode(&reply),
            [ok(SensorEvent::Identity(
                "Millennium ChessLink board version 1.3".into()
            ))]
        );
        // The same through a driver that strips the parity bit (7O1).
        assert_eq!(
            decode(b"v010374"),
            [ok(SensorEvent::Identity(
                "Millennium ChessLink board version 1.3".into()
            ))]
        );
        // S has the check 53; W0203 (a status on any change) the XOR of its five characters.
        assert_eq!(command_status(), frame(b"S"));
        let strip = |b: Vec<u8>| b.into_iter().map(|c| c & 0x7f).collect::<Vec<u8>>();
        assert_eq!(strip(command_status()), b"S53");
        assert_eq!(strip(command_write(2, 3)), b"W020356");
        assert_eq!(strip(command_extinguish()), b"X58");
    }

    #[test]
    fn a_status_is_the_board_in_the_makers_order() {
        let status = encode_status(&Board::new());
        assert_eq!(status.len(), 67);
        let letters: Vec<u8> = status.iter().map(|c| c & 0x7f).collect();
        assert_eq!(
            &letters[..65],
            b"srnbqkbnrpppppppp................................PPPPPPPPRNBQKBNR".as_slice()
        );
        assert_eq!(decode(&status), [ok(SensorEvent::Pieces(Board::new()))]);
    }

    #[test]
    fn later_statuses_are_the_squares_that_changed_emptied_first() {
        let mut after = Board::new();
        after.discard_piece_at(Square::G1);
        after.set_piece_at(Square::F3, Piece::from_char('N').unwrap());
        let mut bytes = encode_status(&Board::new());
        bytes.extend(encode_status(&after));
        bytes.extend(encode_status(&after));
        assert_eq!(
            decode(&bytes),
            [
                ok(SensorEvent::Pieces(Board::new())),
                ok(SensorEvent::SquareChanged {
                    square: Square::G1,
                    piece: None
                }),
                ok(SensorEvent::SquareChanged {
                    square: Square::F3,
                    piece: Piece::from_char('N')
                }),
            ]
        );
    }

    #[test]
    fn bad_checks_parity_and_letters_are_reported_and_skipped() {
        let mut status = encode_status(&Board::new());
        status[66] = with_parity(b'0');
        status[65] = with_parity(b'0');
        let got = decode(&status);
        assert_eq!(got.len(), 1);
        assert!(
            err(&got[0]).starts_with("byte offset 0: message 's': check digits 00, but its"),
            "{}",
            err(&got[0])
        );

        // A byte whose parity bit makes its parity even.
        let got = decode(&[b'v', 0xb1, b'1']);
        assert_eq!(
            err(&got[0]),
            "byte offset 1: byte 0xb1 fails its odd parity check"
        );
        assert_eq!(
            err(&got[1]),
            "byte offset 0: message 'v' cut short after 1 of its 7 characters by the bad byte at \
             offset 1"
        );

        // A letter that is no piece, with a good check.
        let mut chars = b"s".to_vec();
        chars.extend([b'.'; 64]);
        chars[5] = b'Z';
        let got = decode(&frame(&chars));
        assert_eq!(
            err(&got[0]),
            "byte offset 5: status: square e8 has 'Z'; a square holds one of KQRBNPkqrbnp or . \
             (empty); the status is ignored"
        );

        // Noise before a message, then the message.
        let mut bytes = b"AB".to_vec();
        bytes.extend(encode_version(2, 0));
        let got = decode(&bytes);
        assert_eq!(
            err(&got[0]),
            "byte offset 0: 2 bytes outside any message skipped; a message from the board starts \
             with s, v, w, r, l or x"
        );
        assert!(got[1].is_ok());
    }

    #[test]
    fn acknowledgements_are_no_error() {
        let board = Board::new();
        let mut bytes = Vec::new();
        for command in [
            HostCommand::Write {
                address: 2,
                value: 3,
            },
            HostCommand::Read { address: 1 },
            HostCommand::Leds,
            HostCommand::Extinguish,
        ] {
            bytes.extend(encode_reply(&command, &board, 20).unwrap());
        }
        assert_eq!(decode(&bytes), []);
    }

    #[test]
    fn the_host_reader_frames_commands_and_drops_bad_ones() {
        let mut reader = HostReader::new();
        let mut bytes = greeting();
        bytes.extend(command_leds(10, &[0xc4; 81]));
        bytes.extend(command_read(REG_SCAN_TIME));
        let mut bad = command_status();
        bad[2] ^= 1;
        bytes.extend(bad);
        assert_eq!(
            reader.feed(&bytes),
            [
                HostCommand::Version,
                HostCommand::Write {
                    address: REG_AUTO_REPORTS,
                    value: AUTO_ON_CHANGE
                },
                HostCommand::Status,
                HostCommand::Leds,
                HostCommand::Read {
                    address: REG_SCAN_TIME
                },
            ]
        );
    }
}
