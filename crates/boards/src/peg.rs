//! The peg-board line protocol (`docs/peg-protocol.md`): ASCII lines in, sensor events out.
//!
//! The board sends one event per LF-terminated line (`Le2`, `Pe4`, `SFFFF00000000FFFF`, `KQ`,
//! `Vname`); a recorded stream may prefix a line with its time (`@1234 Le2`). The decoder keeps
//! one bounded line buffer and allocates nothing per event on the success path, except for the
//! text of an identification line.

use shakmaty::{Bitboard, Square};

use super::{BoardKey, DecodeError, Decoded, Decoder, Millis, SensorEvent, StreamPosition, Timed};

/// The longest line accepted, without its LF. The longest event (`@` + 20 digits + space + an
/// `S` line) is 39 bytes; the rest is room for an identification text and a comment. A longer
/// line is reported and skipped, so a board that never sends LF cannot make the buffer grow.
pub const MAX_LINE_BYTES: usize = 256;

/// Host → board: send an `S` snapshot.
pub const SNAPSHOT_REQUEST: &[u8] = b"?\n";
/// Host → board: identify yourself (`V<text>`).
pub const IDENTITY_REQUEST: &[u8] = b"V\n";
/// Sent when a connection opens: identity first so that logs name the board before its first
/// snapshot arrives.
pub const GREETING: &[u8] = b"V\n?\n";

/// What the host may ask of the board; for the board side (the simulator, firmware tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostRequest {
    /// `?`: send an `S` line.
    Snapshot,
    /// `V`: send a `V` line.
    Identify,
}

/// Reads one host → board line (without LF; CR and surrounding blanks are ignored).
pub fn parse_host_request(line: &[u8]) -> Option<HostRequest> {
    match trim(line) {
        b"?" => Some(HostRequest::Snapshot),
        b"V" => Some(HostRequest::Identify),
        _ => None,
    }
}

/// Streaming decoder for the peg-board protocol.
#[derive(Debug)]
pub struct PegDecoder {
    line: Vec<u8>,
    /// Lines completed so far; the line being read is `lines + 1`.
    lines: u64,
    /// The current line passed [`MAX_LINE_BYTES`]; its bytes are dropped until the next LF.
    overflow: bool,
}

impl Default for PegDecoder {
    fn default() -> Self {
        PegDecoder::new()
    }
}

impl PegDecoder {
    pub fn new() -> PegDecoder {
        PegDecoder {
            line: Vec::with_capacity(MAX_LINE_BYTES),
            lines: 0,
            overflow: false,
        }
    }

    /// Bytes of the unfinished line held now; never more than [`MAX_LINE_BYTES`].
    pub fn buffered(&self) -> usize {
        self.line.len()
    }

    fn end_line(&mut self, now: Millis, out: &mut Vec<Decoded>) {
        self.lines += 1;
        if self.overflow {
            self.overflow = false;
            out.push(Err(DecodeError {
                position: StreamPosition::Line(self.lines),
                message: format!(
                    "longer than {MAX_LINE_BYTES} bytes; skipped (one event per line, like Le2)"
                ),
            }));
        } else if let Some(decoded) = parse_line(&self.line, self.lines, now) {
            out.push(decoded);
        }
        self.line.clear();
    }
}

impl Decoder for PegDecoder {
    fn feed(&mut self, bytes: &[u8], now: Millis, out: &mut Vec<Decoded>) {
        for &b in bytes {
            match b {
                b'\n' => self.end_line(now, out),
                // CRLF firmware is common (Arduino `println`); a CR carries no meaning here.
                b'\r' => {}
                _ if self.overflow => {}
                _ if self.line.len() >= MAX_LINE_BYTES => {
                    self.overflow = true;
                    self.line.clear();
                }
                _ => self.line.push(b),
            }
        }
    }

    /// A recording whose last line lacks its LF still counts that line.
    fn finish(&mut self, now: Millis, out: &mut Vec<Decoded>) {
        if self.overflow || !self.line.is_empty() {
            self.end_line(now, out);
        }
    }

    fn greeting(&self) -> Vec<u8> {
        GREETING.to_vec()
    }

    fn snapshot_request(&self) -> Vec<u8> {
        SNAPSHOT_REQUEST.to_vec()
    }
}

/// Decodes one line (without its LF) that is line `number` (1-based) of a stream, stamped `now`
/// unless the line carries its own `@<ms>` timestamp. `None` for blank and comment lines.
///
/// This is the decoder's own line parser, for callers that already split the text into lines
/// (the replay command); a trailing CR and surrounding blanks are ignored.
pub fn parse_line(line: &[u8], number: u64, now: Millis) -> Option<Decoded> {
    // A recording saved by a Windows editor may start with a byte-order mark.
    let line = match line.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) if number == 1 => rest,
        _ => line,
    };
    let body = trim(line);
    if body.is_empty() || body[0] == b'#' {
        return None;
    }
    let fail = |what: String| {
        Some(Err(DecodeError {
            position: StreamPosition::Line(number),
            message: format!("{}: {what}", quote(body)),
        }))
    };
    let (at, event) = match body.strip_prefix(b"@") {
        None => (now, body),
        Some(stamped) => {
            let digits_end = stamped
                .iter()
                .position(|b| !b.is_ascii_digit())
                .unwrap_or(stamped.len());
            let (digits, rest) = stamped.split_at(digits_end);
            let expected =
                "expected @ followed by milliseconds, a space and the event, like @1234 Le2";
            let Some(at) = parse_millis(digits) else {
                // Quote the whole stamp as written (`@abc` → "abc"), not just its digits.
                let word_end = stamped
                    .iter()
                    .position(|b| b.is_ascii_whitespace())
                    .unwrap_or(stamped.len());
                return fail(format!(
                    "bad timestamp {}; {expected}",
                    quote(&stamped[..word_end])
                ));
            };
            if rest.is_empty() {
                return fail(format!("a timestamp without an event; {expected}"));
            }
            if !rest[0].is_ascii_whitespace() {
                return fail(format!(
                    "bad timestamp {}; {expected}",
                    quote(&stamped[..(digits_end + 1).min(stamped.len())])
                ));
            }
            let event = trim(rest);
            if event.is_empty() || event[0] == b'#' {
                return fail(format!("a timestamp without an event; {expected}"));
            }
            (at, event)
        }
    };
    match parse_event(event) {
        Ok(event) => Some(Ok(Timed { at, event })),
        Err(why) => fail(why),
    }
}

/// One event without timestamp; the error says what was wrong and what was expected.
fn parse_event(text: &[u8]) -> Result<SensorEvent, String> {
    let (&command, rest) = text.split_first().ok_or_else(|| "empty".to_string())?;
    if command == b'V' {
        // The identification text runs to the end of the line: it may contain anything.
        let name = trim(rest);
        if name.is_empty() {
            return Err(
                "no identification text; expected V followed by the board's name and \
                        version, like Vannabella-peg 1.0"
                    .to_string(),
            );
        }
        return Ok(SensorEvent::Identity(
            String::from_utf8_lossy(name).into_owned(),
        ));
    }
    // Other events are one word; a comment may follow after a blank.
    let end = rest
        .iter()
        .position(|b| b.is_ascii_whitespace())
        .unwrap_or(rest.len());
    let (arg, tail) = rest.split_at(end);
    let tail = trim(tail);
    if !tail.is_empty() && tail[0] != b'#' {
        if arg.is_empty() {
            return Err(format!(
                "a blank after {}; write an event without blanks, like Le2, SFFFF00000000FFFF \
                 or KQ",
                quote(&[command])
            ));
        }
        return Err(format!(
            "unexpected {} after the event; a comment starts with #",
            quote(tail)
        ));
    }
    match command {
        b'L' | b'P' => {
            let expected = || format!("expected {} followed by a square like e2", command as char);
            if arg.is_empty() {
                return Err(format!("no square; {}", expected()));
            }
            let square = parse_square(arg)
                .ok_or_else(|| format!("no such square {}; {}", quote(arg), expected()))?;
            Ok(if command == b'L' {
                SensorEvent::Lift(square)
            } else {
                SensorEvent::Place(square)
            })
        }
        b'S' => parse_occupancy(arg).map(SensorEvent::Occupancy),
        b'K' => parse_key(arg).map(SensorEvent::Key),
        _ => Err(format!(
            "unknown event {}; expected L, P, S, K or V (or # for a comment)",
            quote(&text[..utf8_len(text[0]).min(text.len())])
        )),
    }
}

/// `e2` or `E2`.
fn parse_square(arg: &[u8]) -> Option<Square> {
    match arg {
        &[file, rank] => Square::from_ascii(&[file.to_ascii_lowercase(), rank]).ok(),
        _ => None,
    }
}

const OCCUPANCY_EXPECTED: &str = "expected S followed by 16 hex digits, like SFFFF00000000FFFF";

fn parse_occupancy(arg: &[u8]) -> Result<Bitboard, String> {
    let mut bits: u64 = 0;
    for (i, &b) in arg.iter().enumerate() {
        let Some(digit) = (b as char).to_digit(16) else {
            return Err(format!(
                "{} is not a hex digit; {OCCUPANCY_EXPECTED}",
                quote(&arg[i..(i + utf8_len(b)).min(arg.len())])
            ));
        };
        if i < 16 {
            bits = (bits << 4) | u64::from(digit);
        }
    }
    if arg.len() != 16 {
        let n = arg.len();
        let s = if n == 1 { "" } else { "s" };
        return Err(format!("{n} hex digit{s}; {OCCUPANCY_EXPECTED}"));
    }
    Ok(Bitboard(bits))
}

const KEY_EXPECTED: &str = "expected K followed by one key: Q R B N (promotion piece), \
                            A (again), T (time), O (own time), H (history), D (draw), \
                            C (claim), X (resign), S (confirm sheet or send), Z (board set up), \
                            G (next game), L (list games), M (message)";

fn parse_key(arg: &[u8]) -> Result<BoardKey, String> {
    let mut chars = std::str::from_utf8(arg)
        .map_err(|_| format!("{} is not text; {KEY_EXPECTED}", quote(arg)))?
        .chars();
    let (Some(key), None) = (chars.next(), chars.next()) else {
        return Err(if arg.is_empty() {
            format!("no key; {KEY_EXPECTED}")
        } else {
            format!("{} is more than one key; {KEY_EXPECTED}", quote(arg))
        });
    };
    Ok(BoardKey::from_letter(key))
}

/// Milliseconds of a timestamp: ASCII digits, no sign, fits in 64 bits.
fn parse_millis(digits: &[u8]) -> Option<Millis> {
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0u64, |acc, &d| {
        acc.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })
}

fn trim(bytes: &[u8]) -> &[u8] {
    let is_blank = |b: &u8| b.is_ascii_whitespace();
    let start = bytes
        .iter()
        .position(|b| !is_blank(b))
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !is_blank(b))
        .map_or(start, |i| i + 1);
    &bytes[start..end]
}

/// Bytes of the UTF-8 character that starts with `first` (1 for stray continuation bytes), so an
/// error quotes a whole character rather than half of one.
fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xF7 => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// Input quoted for an error message: escaped, and cut short so a long line stays readable.
fn quote(bytes: &[u8]) -> String {
    const MAX_CHARS: usize = 40;
    let text = String::from_utf8_lossy(bytes);
    if text.chars().count() <= MAX_CHARS {
        format!("{text:?}")
    } else {
        let cut: String = text.chars().take(MAX_CHARS).collect();
        format!("{cut:?}…")
    }
}

/// The `S` line for an occupancy, without LF: bit n is square n (a1 = 0), most significant
/// digit first, upper case.
pub fn occupancy_line(occupied: Bitboard) -> String {
    format!("S{:016X}", occupied.0)
}

/// The protocol line (without timestamp and LF) that reports `event`, for the simulated board
/// and for recordings. `None` for events a peg board cannot send (piece identity) and for those
/// that would not read back the same (a key or text with line breaks, a text too long for a
/// line, an identification that is blank).
pub fn encode(event: &SensorEvent) -> Option<String> {
    let line = match event {
        SensorEvent::Lift(square) => format!("L{square}"),
        SensorEvent::Place(square) => format!("P{square}"),
        SensorEvent::Occupancy(occupied) => occupancy_line(*occupied),
        SensorEvent::Key(key) => {
            let letter = key.letter()?;
            if letter.is_whitespace() || letter.is_control() || letter == '#' {
                return None;
            }
            format!("K{letter}")
        }
        SensorEvent::Identity(text) => {
            let text = text.trim_matches(|c: char| c.is_ascii_whitespace());
            if text.is_empty() || text.contains(['\n', '\r']) {
                return None;
            }
            format!("V{text}")
        }
        SensorEvent::Pieces(_) | SensorEvent::SquareChanged { .. } | SensorEvent::Clock(_) => {
            return None;
        }
    };
    (line.len() <= MAX_LINE_BYTES).then_some(line)
}

/// [`encode`] with the recording's `@<ms> ` prefix.
pub fn encode_timed(event: &Timed<SensorEvent>) -> Option<String> {
    let line = encode(&event.event)?;
    let stamped = format!("@{} {line}", event.at);
    (stamped.len() <= MAX_LINE_BYTES).then_some(stamped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Role;

    fn decode(input: &str) -> Vec<Decoded> {
        let mut d = PegDecoder::new();
        let mut out = Vec::new();
        d.feed(input.as_bytes(), 7, &mut out);
        d.finish(7, &mut out);
        out
    }

    fn ok(at: Millis, event: SensorEvent) -> Decoded {
        Ok(Timed { at, event })
    }

    #[test]
    fn every_event_kind() {
        let got = decode(
            "Le2\nPe4\r\nSFFFF00000000FFFF\nsffff\n# comment\n\n@1234 KQ\nKA\nKT\nKy\nVpeg 1.0\n",
        );
        assert_eq!(got[0], ok(7, SensorEvent::Lift(Square::E2)));
        assert_eq!(got[1], ok(7, SensorEvent::Place(Square::E4)));
        assert_eq!(
            got[2],
            ok(7, SensorEvent::Occupancy(Bitboard(0xFFFF_0000_0000_FFFF)))
        );
        assert_eq!(
            got[3].as_ref().unwrap_err().to_string(),
            "line 4: \"sffff\": unknown event \"s\"; expected L, P, S, K or V (or # for a comment)"
        );
        assert_eq!(
            got[4],
            ok(1234, SensorEvent::Key(BoardKey::Promote(Role::Queen)))
        );
        assert_eq!(got[5], ok(7, SensorEvent::Key(BoardKey::Repeat)));
        assert_eq!(got[6], ok(7, SensorEvent::Key(BoardKey::Time)));
        assert_eq!(got[7], ok(7, SensorEvent::Key(BoardKey::Other('y'))));
        assert_eq!(got[8], ok(7, SensorEvent::Identity("peg 1.0".into())));
        assert_eq!(got.len(), 9);
    }

    #[test]
    fn start_position_occupancy_is_ranks_one_two_seven_eight() {
        let Some(Ok(Timed {
            event: SensorEvent::Occupancy(bb),
            ..
        })) = parse_line(b"SFFFF00000000FFFF", 1, 0)
        else {
            panic!()
        };
        assert_eq!(bb, shakmaty::Board::new().occupied());
        assert_eq!(occupancy_line(bb), "SFFFF00000000FFFF");
        // a1 alone is the least significant bit.
        assert_eq!(
            occupancy_line(Bitboard::from_square(Square::A1)),
            "S0000000000000001"
        );
        assert_eq!(
            occupancy_line(Bitboard::from_square(Square::H8)),
            "S8000000000000000"
        );
    }

    #[test]
    fn errors_name_the_line_what_is_wrong_and_what_is_expected() {
        let got = decode("Le2\n\n\n\n\n\nLz9\n");
        assert_eq!(
            got[1].as_ref().unwrap_err().to_string(),
            "line 7: \"Lz9\": no such square \"z9\"; expected L followed by a square like e2"
        );
    }

    #[test]
    fn an_overlong_line_is_one_error_and_the_next_line_reads() {
        let mut input = "L".repeat(10_000);
        input.push_str("\nPe4\n");
        let mut d = PegDecoder::new();
        let mut out = Vec::new();
        for chunk in input.as_bytes().chunks(7) {
            d.feed(chunk, 0, &mut out);
            assert!(d.buffered() <= MAX_LINE_BYTES);
        }
        assert_eq!(out.len(), 2);
        assert!(
            out[0]
                .as_ref()
                .unwrap_err()
                .to_string()
                .starts_with("line 1: longer than 256")
        );
        assert_eq!(out[1], ok(0, SensorEvent::Place(Square::E4)));
    }

    #[test]
    fn host_requests() {
        assert_eq!(parse_host_request(b"?"), Some(HostRequest::Snapshot));
        assert_eq!(parse_host_request(b"V\r"), Some(HostRequest::Identify));
        assert_eq!(parse_host_request(b"Le2"), None);
        assert_eq!(GREETING, [IDENTITY_REQUEST, SNAPSHOT_REQUEST].concat());
    }

    #[test]
    fn encode_refuses_what_would_not_read_back() {
        assert_eq!(encode(&SensorEvent::Identity("a\nb".into())), None);
        assert_eq!(encode(&SensorEvent::Key(BoardKey::Other(' '))), None);
        assert_eq!(encode(&SensorEvent::Key(BoardKey::Other('q'))), None);
        assert_eq!(
            encode(&SensorEvent::Key(BoardKey::Promote(Role::King))),
            None
        );
        assert_eq!(
            encode_timed(&Timed {
                at: 5,
                event: SensorEvent::Lift(Square::A1)
            })
            .as_deref(),
            Some("@5 La1")
        );
    }
}
