//! The DGT decoder: framed messages found in a byte stream (resynchronising after noise, bounds
//! on every length), read into sensor events, clock readings and errors.

use shakmaty::Board;

use crate::{
    ClockReading, DecodeError, Decoded, Decoder, Millis, SensorEvent, StreamPosition, Timed,
};

use super::clock::{CLOCK_NONE, CLOCK_RIGHT_RUNS, CLOCK_RUNNING, bcd_time};
use super::fields::{field_square, piece_from_code};
use super::messages::{
    DGT_MSG_BOARD_DUMP, DGT_MSG_BWTIME, DGT_MSG_FIELD_UPDATE, DGT_MSG_LONG_SERIALNR,
    DGT_MSG_SERIALNR, DGT_MSG_TRADEMARK, DGT_MSG_VERSION, GREETING, HEADER_BYTES, MAX_PAYLOAD,
    SNAPSHOT_REQUEST, fixed_length, max_length, message_name,
};

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
    use shakmaty::{Piece, Square};

    use super::*;
    use crate::dgt::clock::{ClockTimeline, encode_clock};
    use crate::dgt::encode::{encode_board_dump, encode_field_update, encode_version, frame};
    use crate::dgt::messages::DGT_MSG_EE_MOVES;

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
}
