//! The Certabo board's serial protocol (`docs/certabo.md`): lines of RFID codes in, the board's
//! pieces out once a calibration says which code is which piece.
//!
//! The board sends, over and over, one line per scan: `:` and 320 decimal numbers separated by
//! blanks, five per square (the RFID code of the piece standing there), squares from a8 to h8,
//! a7 to h7 … h1, ended by ` \r\n`. A square whose five numbers hold more than two zeros is
//! empty (the maker's rule: an empty square reads as noise such as `0 0 56 0 0`). The board does
//! not know pieces, only chips: a **calibration** maps each chip's code to its piece. It is
//! learned from the start position (each piece on its square says what its chip is), and later
//! start positions with new chips (a spare queen put on d1) add to it.
//!
//! Like the maker's software, a square reads what at least two of the last three lines show,
//! so one misread line changes nothing. The first board that reads cleanly is reported whole
//! ([`SensorEvent::Pieces`]), later ones as the squares that changed, emptied squares first.
//! Memory is bounded: a line longer than [`MAX_LINE`] bytes is skipped without keeping it, and
//! the calibration holds at most [`MAX_CODES`] chips.

use std::fmt::Write as _;

use shakmaty::{Bitboard, Board, Color, Piece, Rank, Role, Square};

use super::{DecodeError, Decoded, Decoder, Millis, StreamPosition, snapshot_events};

/// The board's serial speed (38400 baud, 8 data bits, no parity, 1 stop bit, over USB).
pub const BAUD: u32 = 38_400;
/// Numbers per square.
pub const CODE_LEN: usize = 5;
/// Numbers per line: 64 squares of five.
pub const NUMBERS: usize = 64 * CODE_LEN;
/// The longest line kept: 320 numbers of up to five digits with their blanks, and the frame.
pub const MAX_LINE: usize = 2048;
/// The most chips a calibration holds: a set of 32 and plenty of spare pieces.
pub const MAX_CODES: usize = 96;
/// Lines a square's reading is voted over.
const HISTORY: usize = 3;

/// The RFID code a square reports: five numbers (bytes on a real board; the maker's own board
/// simulator sends larger numbers, so up to 65535 is read).
pub type RfidCode = [u16; CODE_LEN];

/// The code of an empty square after reading (any code with more than two zeros).
pub const EMPTY: RfidCode = [0; CODE_LEN];

/// The 8 bytes that put every LED out.
pub const LEDS_OFF: [u8; 8] = [0; 8];

/// Whether a square's code means no piece: more than two of its five numbers are zero.
pub fn is_empty(code: &RfidCode) -> bool {
    code.iter().filter(|&&n| n == 0).count() > 2
}

/// The square of a line's position (0 = a8, 7 = h8, 8 = a7 … 63 = h1, the maker's order).
pub fn line_square(index: usize) -> Option<Square> {
    super::dgt::field_square(u8::try_from(index).ok()?)
}

fn code_text(code: &RfidCode) -> String {
    code.map(|n| n.to_string()).join(" ")
}

/// The squares of the start position: ranks 1, 2, 7 and 8.
fn start_squares() -> Bitboard {
    Board::new().occupied()
}

/// Which RFID code is which piece.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Calibration {
    codes: Vec<(RfidCode, Piece)>,
}

impl Calibration {
    /// The piece a chip belongs to.
    pub fn piece(&self, code: &RfidCode) -> Option<Piece> {
        self.codes.iter().find(|(c, _)| c == code).map(|(_, p)| *p)
    }

    /// How many chips it knows.
    pub fn len(&self) -> usize {
        self.codes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    /// Learns the chips of a board set up in the start position: `codes` (a8 first) must hold
    /// a chip on every start square, 32 different chips, and nothing elsewhere.
    pub fn from_start_position(codes: &[RfidCode; 64]) -> Result<Calibration, String> {
        let start = Board::new();
        let mut learned: Vec<(RfidCode, Piece)> = Vec::with_capacity(32);
        for (index, code) in codes.iter().enumerate() {
            let Some(square) = line_square(index) else {
                continue;
            };
            match start.piece_at(square) {
                None if is_empty(code) => {}
                None => {
                    return Err(format!(
                        "a chip ({}) on {square}, which is empty in the start position",
                        code_text(code)
                    ));
                }
                Some(_) if is_empty(code) => {
                    return Err(format!("no piece on {square}"));
                }
                Some(piece) => {
                    if let Some((_, other)) = learned.iter().find(|(c, _)| c == code) {
                        return Err(format!(
                            "the chip {} on {square} reads the same as the {} one: two pieces \
                             cannot be told apart",
                            code_text(code),
                            other.char()
                        ));
                    }
                    learned.push((*code, piece));
                }
            }
        }
        Ok(Calibration { codes: learned })
    }

    /// This calibration with `newer` learned on top: a chip's newer piece wins, and the chips
    /// only this one knows (spare pieces) are kept while there is room for them.
    pub fn merged(&self, newer: &Calibration) -> Calibration {
        let mut codes = newer.codes.clone();
        for (code, piece) in &self.codes {
            if codes.len() >= MAX_CODES {
                break;
            }
            if !codes.iter().any(|(c, _)| c == code) {
                codes.push((*code, *piece));
            }
        }
        Calibration { codes }
    }

    /// The text kept in a calibration file: one chip a line, its piece's FEN letter and its five
    /// numbers (`Q 3 0 116 74 26`), after a comment saying what the file is.
    pub fn to_text(&self) -> String {
        let mut text = String::from(
            "# annabella: the Certabo board's calibration, one chip a line: the piece (FEN \
             letter) and its RFID code\n",
        );
        for (code, piece) in &self.codes {
            let _ = writeln!(text, "{} {}", piece.char(), code_text(code));
        }
        text
    }

    /// Reads [`Calibration::to_text`]; blank lines and `#` comments are skipped. An error names
    /// the line.
    pub fn parse(text: &str) -> Result<Calibration, String> {
        let mut codes: Vec<(RfidCode, Piece)> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let n = i + 1;
            let mut words = line.split_ascii_whitespace();
            let letter = words.next().unwrap_or_default();
            let mut chars = letter.chars();
            let piece = match (chars.next(), chars.next()) {
                (Some(c), None) => Piece::from_char(c),
                _ => None,
            }
            .ok_or_else(|| format!("line {n}: {letter:?} is no piece letter (KQRBNPkqrbnp)"))?;
            let numbers = words
                .map(|w| {
                    w.parse::<u16>()
                        .map_err(|_| format!("line {n}: {w:?} is not a number from 0 to 65535"))
                })
                .collect::<Result<Vec<u16>, String>>()?;
            let code: RfidCode = numbers.as_slice().try_into().map_err(|_| {
                format!(
                    "line {n}: {} numbers after the piece; a code has {CODE_LEN}",
                    numbers.len()
                )
            })?;
            if is_empty(&code) {
                return Err(format!(
                    "line {n}: {} reads as an empty square, not a chip",
                    code_text(&code)
                ));
            }
            if codes.iter().any(|(c, _)| *c == code) {
                return Err(format!("line {n}: the code {} twice", code_text(&code)));
            }
            if codes.len() >= MAX_CODES {
                return Err(format!("line {n}: more than {MAX_CODES} chips"));
            }
            codes.push((code, piece));
        }
        Ok(Calibration { codes })
    }
}

/// A board line as the board sends it: `:`, the 320 numbers, ` \r\n`.
pub fn encode_line(codes: &[RfidCode; 64]) -> Vec<u8> {
    let mut text = String::with_capacity(NUMBERS * 4 + 4);
    text.push(':');
    for (i, n) in codes.iter().flatten().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        let _ = write!(text, "{n}");
    }
    text.push_str(" \r\n");
    text.into_bytes()
}

/// The LED command lighting `squares`: one byte a rank from the eighth to the first, bit 0 for
/// the a-file up to bit 7 for the h-file.
pub fn encode_leds(squares: Bitboard) -> [u8; 8] {
    let mut bytes = [0u8; 8];
    for square in squares {
        let row = 7 - square.rank().to_usize();
        bytes[row] |= 1 << square.file().to_u32();
    }
    bytes
}

/// The squares an LED command lights (the inverse of [`encode_leds`]).
pub fn leds_squares(bytes: &[u8; 8]) -> Bitboard {
    let mut squares = Bitboard::EMPTY;
    for (row, &byte) in bytes.iter().enumerate() {
        for file in 0..8u32 {
            if byte & (1 << file) != 0 {
                squares.add(Square::from_coords(
                    shakmaty::File::new(file),
                    Rank::new(7 - row as u32),
                ));
            }
        }
    }
    squares
}

/// A set of chipped pieces on a board and beside it, moved by a hand: what a simulated Certabo
/// board shows. Each piece keeps its chip when it moves; a captured piece goes beside the board
/// and comes back when a pawn is promoted to its kind; otherwise a spare piece with a chip of
/// its own is used (which a calibration knows only once it was shown in a start position).
#[derive(Debug, Clone)]
pub struct ChipBoard {
    squares: [Option<(RfidCode, Piece)>; 64],
    /// Pieces lifted and not yet put down, in lift order.
    hand: Vec<(RfidCode, Piece)>,
    /// Pieces beside the board.
    beside: Vec<(RfidCode, Piece)>,
    /// Spare chips handed out so far.
    spares: u16,
}

impl ChipBoard {
    /// `board` with a chip on every piece: the chips of one 32-piece set, the same chip for the
    /// same piece of the set whatever the position (the first white pawn from a8 on has the
    /// first white pawn's chip), so one calibration fits every position; a piece the set does
    /// not have (a third knight) gets a spare chip.
    pub fn new(board: &Board) -> ChipBoard {
        let mut squares = [None; 64];
        let mut seen = [[0u16; 6]; 2];
        let mut spares = 0;
        for (index, slot) in squares.iter_mut().enumerate() {
            let Some(piece) = line_square(index).and_then(|s| board.piece_at(s)) else {
                continue;
            };
            let (first, count) = match piece.role {
                Role::Pawn => (0, 8),
                Role::Knight => (8, 2),
                Role::Bishop => (10, 2),
                Role::Rook => (12, 2),
                Role::Queen => (14, 1),
                Role::King => (15, 1),
            };
            let k = &mut seen[piece.color as usize][piece.role as usize - 1];
            let n = if *k < count {
                u16::from(piece.color == Color::Black) * 16 + first + *k
            } else {
                spares += 1;
                1000 + spares
            };
            *k += 1;
            *slot = Some((Self::chip(n), piece));
        }
        ChipBoard {
            squares,
            hand: Vec::new(),
            beside: Vec::new(),
            spares,
        }
    }

    /// The code of chip number `n`, shaped like the maker's (`3 0 116 74 26`): one zero only.
    fn chip(n: u16) -> RfidCode {
        [3 + n % 8, 0, 100 + n, 200 - n % 100, 17 + n]
    }

    fn index(square: Square) -> usize {
        usize::from(super::dgt::square_field(square))
    }

    /// What the board reads now (a8 first).
    pub fn codes(&self) -> [RfidCode; 64] {
        self.squares.map(|s| s.map_or(EMPTY, |(code, _)| code))
    }

    /// A hand's action: the square emptied (`None`, the piece taken into the hand) or `piece`
    /// put on it (from the hand when it holds one, else from beside the board, else a spare).
    pub fn apply(&mut self, square: Square, piece: Option<Piece>) {
        let i = Self::index(square);
        match piece {
            None => {
                if let Some(chip) = self.squares[i].take() {
                    self.hand.push(chip);
                }
            }
            Some(piece) => {
                if let Some(old) = self.squares[i].take() {
                    self.beside.push(old);
                }
                let chip = if let Some(k) = self.hand.iter().position(|(_, p)| *p == piece) {
                    self.hand.remove(k)
                } else if let Some(k) = self.beside.iter().position(|(_, p)| *p == piece) {
                    self.beside.remove(k)
                } else {
                    self.spares += 1;
                    (Self::chip(1000 + self.spares), piece)
                };
                self.squares[i] = Some(chip);
            }
        }
    }

    /// The move is over: whatever is still in the hand (captured pieces, a promoted pawn) is put
    /// beside the board.
    pub fn put_aside(&mut self) {
        self.beside.append(&mut self.hand);
    }
}

/// Streaming decoder for the Certabo board's lines.
#[derive(Debug)]
pub struct CertaboDecoder {
    line: Vec<u8>,
    /// The line under way is longer than [`MAX_LINE`]: it is skipped to its end.
    overlong: bool,
    /// Lines seen, counting the one under way when it ends.
    line_no: u64,
    /// The last lines' codes, empty squares as [`EMPTY`]; `frames` of them are filled.
    history: [[RfidCode; 64]; HISTORY],
    frames: usize,
    calibration: Option<Calibration>,
    /// The calibration changed and the owner has not taken it yet.
    learned: bool,
    /// The board as last reported.
    last: Option<Board>,
    /// The last problem reported, so that a board shown wrong line after line is reported once.
    last_problem: Option<String>,
}

impl Default for CertaboDecoder {
    fn default() -> Self {
        CertaboDecoder::new(None)
    }
}

impl CertaboDecoder {
    /// A decoder that reads chips with `calibration`; without one it learns one from the first
    /// start position the board shows.
    pub fn new(calibration: Option<Calibration>) -> CertaboDecoder {
        CertaboDecoder {
            line: Vec::new(),
            overlong: false,
            line_no: 0,
            history: [[EMPTY; 64]; HISTORY],
            frames: 0,
            calibration,
            learned: false,
            last: None,
            last_problem: None,
        }
    }

    /// The calibration in use, if there is one yet.
    pub fn calibration(&self) -> Option<&Calibration> {
        self.calibration.as_ref()
    }

    /// The calibration, once after each time it was learned or extended (for its owner to
    /// keep).
    pub fn take_learned(&mut self) -> Option<Calibration> {
        std::mem::take(&mut self.learned)
            .then(|| self.calibration.clone())
            .flatten()
    }

    fn error(&self, message: String) -> Decoded {
        Err(DecodeError {
            position: StreamPosition::Line(self.line_no),
            message,
        })
    }

    /// Reports a problem unless it is the one reported last: a board that sends the same wrong
    /// line, or shows the same wrong board, several times a second is reported once.
    fn problem(&mut self, message: String, out: &mut Vec<Decoded>) {
        if self.last_problem.as_ref() != Some(&message) {
            out.push(self.error(message.clone()));
            self.last_problem = Some(message);
        }
    }

    fn end_line(&mut self, now: Millis, out: &mut Vec<Decoded>) {
        self.line_no += 1;
        let line = std::mem::take(&mut self.line);
        if std::mem::take(&mut self.overlong) {
            self.problem(
                format!("longer than {MAX_LINE} bytes; a board line is 320 numbers; skipped"),
                out,
            );
            return;
        }
        let text = line.trim_ascii();
        if text.is_empty() {
            return;
        }
        let text = text.strip_prefix(b":").unwrap_or(text);
        let mut codes = [EMPTY; 64];
        let mut count = 0usize;
        for word in text.split(|b| b.is_ascii_whitespace()) {
            if word.is_empty() {
                continue;
            }
            let number = std::str::from_utf8(word)
                .ok()
                .filter(|w| w.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|w| w.parse::<u16>().ok());
            let Some(number) = number else {
                let message = format!(
                    "number {} ({:?}) is not a number from 0 to 65535; the line is skipped",
                    count + 1,
                    String::from_utf8_lossy(&word[..word.len().min(16)])
                );
                self.problem(message, out);
                return;
            };
            if let Some(slot) = codes.get_mut(count / CODE_LEN) {
                slot[count % CODE_LEN] = number;
            }
            count += 1;
        }
        if count != NUMBERS {
            self.problem(
                format!("{count} numbers; a board line has {NUMBERS} (64 squares of 5); skipped"),
                out,
            );
            return;
        }
        for code in &mut codes {
            if is_empty(code) {
                *code = EMPTY;
            }
        }
        self.scan(codes, now, out);
    }

    /// The code at least two of the last three lines agree on, per square; `None` where they
    /// do not agree (yet).
    fn settled(&self) -> [Option<RfidCode>; 64] {
        let frames = &self.history[..self.frames.min(HISTORY)];
        std::array::from_fn(|sq| {
            frames
                .iter()
                .map(|f| f[sq])
                .find(|code| frames.iter().filter(|f| f[sq] == *code).count() >= 2)
        })
    }

    /// One whole line of codes.
    fn scan(&mut self, codes: [RfidCode; 64], now: Millis, out: &mut Vec<Decoded>) {
        self.history.rotate_right(1);
        self.history[0] = codes;
        self.frames = (self.frames + 1).min(HISTORY);
        let settled = self.settled();
        let all_settled: Option<[RfidCode; 64]> = settled
            .iter()
            .all(Option::is_some)
            .then(|| settled.map(|c| c.unwrap_or(EMPTY)));
        if let Some(codes) = &all_settled {
            self.maybe_calibrate(codes, out);
        }
        let Some(calibration) = &self.calibration else {
            if all_settled.is_some() {
                self.problem(
                    "no calibration yet: set up the start position, so that annabella learns \
                     which RFID chip is which piece"
                        .to_owned(),
                    out,
                );
            }
            return;
        };
        let mut board = Board::empty();
        let mut unknown = Vec::new();
        for (index, code) in settled.iter().enumerate() {
            let Some(square) = line_square(index) else {
                continue;
            };
            let piece = match code {
                None => match &self.last {
                    Some(last) => last.piece_at(square),
                    // Nothing reported yet: wait until every square reads the same twice.
                    None => return,
                },
                Some(code) if *code == EMPTY => None,
                Some(code) => match calibration.piece(code) {
                    Some(piece) => Some(piece),
                    None => {
                        unknown.push(format!("{} on {square}", code_text(code)));
                        continue;
                    }
                },
            };
            if let Some(piece) = piece {
                board.set_piece_at(square, piece);
            }
        }
        if !unknown.is_empty() {
            self.problem(
                format!(
                    "RFID code {} not in the calibration; the board is read again once every \
                     piece is known (a spare piece is learned by showing it in a start position)",
                    unknown.join(", ")
                ),
                out,
            );
            return;
        }
        self.last_problem = None;
        snapshot_events(self.last.as_ref(), &board, now, out);
        self.last = Some(board);
    }

    /// A board at rest in the start position calibrates: the first time, or when it shows
    /// chips the calibration does not know yet (a new set, a spare queen put on d1).
    fn maybe_calibrate(&mut self, codes: &[RfidCode; 64], out: &mut Vec<Decoded>) {
        let occupied = (0..64)
            .filter(|&i| codes[i] != EMPTY)
            .filter_map(line_square)
            .collect::<Bitboard>();
        if occupied != start_squares() {
            return;
        }
        if let Some(known) = &self.calibration
            && codes
                .iter()
                .all(|c| *c == EMPTY || known.piece(c).is_some())
        {
            return;
        }
        match Calibration::from_start_position(codes) {
            Ok(new) => {
                self.calibration = Some(match &self.calibration {
                    Some(old) => old.merged(&new),
                    None => new,
                });
                self.learned = true;
            }
            Err(e) => self.problem(format!("the start position cannot calibrate: {e}"), out),
        }
    }
}

impl Decoder for CertaboDecoder {
    fn feed(&mut self, bytes: &[u8], now: Millis, out: &mut Vec<Decoded>) {
        for &byte in bytes {
            if byte == b'\n' {
                self.end_line(now, out);
            } else if self.line.len() < MAX_LINE {
                self.line.push(byte);
            } else {
                self.overlong = true;
            }
        }
    }

    fn finish(&mut self, now: Millis, out: &mut Vec<Decoded>) {
        if !self.line.is_empty() || self.overlong {
            self.end_line(now, out);
        }
    }

    /// Every LED out; the board reports on its own, so nothing needs asking.
    fn greeting(&self) -> Vec<u8> {
        LEDS_OFF.to_vec()
    }

    fn snapshot_request(&self) -> Vec<u8> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SensorEvent, Timed};

    /// Chip codes from the maker's board simulator (`chess_sim.ino` in Certabo's software): its
    /// white set, pawns a2 to h2, then the pieces a1 to h1 (its h2 pawn reads 273, more than a
    /// byte, which is why numbers are read up to 65535).
    const MAKER_CODES: [&str; 16] = [
        "11 0 132 63 192",
        "10 0 122 200 59",
        "10 0 120 18 31",
        "10 0 122 211 16",
        "3 0 115 113 114",
        "3 0 116 73 95",
        "3 0 116 173 95",
        "3 0 116 273 95",
        "3 0 115 87 237",
        "3 0 115 41 35",
        "3 0 116 59 170",
        "3 0 116 74 26",
        "3 0 116 84 26",
        "3 0 116 59 17",
        "3 0 115 45 192",
        "11 0 132 10 164",
    ];

    fn code(text: &str) -> RfidCode {
        let v: Vec<u16> = text.split(' ').map(|n| n.parse().unwrap()).collect();
        v.try_into().unwrap()
    }

    /// The start position with the maker's codes on White's pieces and chips of our own on
    /// Black's; empty squares read as the maker's noise.
    fn start_codes() -> [RfidCode; 64] {
        let mut codes = ChipBoard::new(&Board::new()).codes();
        for (i, text) in MAKER_CODES.iter().enumerate() {
            codes[48 + i] = code(text);
        }
        for (i, c) in codes.iter_mut().enumerate() {
            if *c == EMPTY {
                *c = if i % 2 == 0 {
                    code("0 0 56 0 0")
                } else {
                    code("201 0 0 0 0")
                };
            }
        }
        codes
    }

    fn decode(
        lines: &[[RfidCode; 64]],
        calibration: Option<Calibration>,
    ) -> (Vec<Decoded>, CertaboDecoder) {
        let mut d = CertaboDecoder::new(calibration);
        let mut out = Vec::new();
        for line in lines {
            d.feed(&encode_line(line), 5, &mut out);
        }
        d.finish(5, &mut out);
        (out, d)
    }

    fn err(d: &Decoded) -> String {
        d.as_ref().unwrap_err().to_string()
    }

    #[test]
    fn a_line_is_the_makers_format() {
        let line = encode_line(&start_codes());
        let text = String::from_utf8(line).unwrap();
        assert!(text.starts_with(":7 0 128 172 45 "), "{text}");
        assert!(text.ends_with(" 11 0 132 10 164 \r\n"), "{text}");
        assert_eq!(text.trim().trim_start_matches(':').split(' ').count(), 320);
        assert!(is_empty(&code("0 0 56 0 0")));
        assert!(is_empty(&code("201 0 0 0 0")));
        assert!(!is_empty(&code("3 0 116 74 26")));
    }

    #[test]
    fn the_start_position_calibrates_and_two_lines_agreeing_report_the_board() {
        let start = start_codes();
        let (out, mut d) = decode(&[start], None);
        assert_eq!(out, [], "one line is not enough");
        assert!(d.calibration().is_none());
        d.feed(&encode_line(&start), 9, &mut Vec::new());
        let cal = d.take_learned().expect("learned");
        assert_eq!(cal.len(), 32);
        assert_eq!(cal.piece(&code("3 0 116 74 26")), Piece::from_char('Q'));
        assert_eq!(cal.piece(&code("3 0 116 273 95")), Piece::from_char('P'));
        assert_eq!(d.take_learned(), None, "taken once");
        let (out, _) = decode(&[start, start], None);
        assert_eq!(
            out,
            [Ok(Timed {
                at: 5,
                event: SensorEvent::Pieces(Board::new())
            })]
        );
        // The file's text reads back.
        assert_eq!(Calibration::parse(&cal.to_text()), Ok(cal));
    }

    #[test]
    fn a_move_is_the_squares_that_changed_once_two_lines_agree() {
        let start = start_codes();
        let mut moved = start;
        moved[36] = moved[52]; // e2 → e4
        moved[52] = EMPTY;
        // One misread line in between changes nothing.
        let mut misread = start;
        misread[0] = EMPTY;
        let (out, _) = decode(&[start, start, misread, start, moved, moved, moved], None);
        let changes: Vec<SensorEvent> = out.into_iter().map(|d| d.unwrap().event).skip(1).collect();
        assert_eq!(
            changes,
            [
                SensorEvent::SquareChanged {
                    square: Square::E2,
                    piece: None
                },
                SensorEvent::SquareChanged {
                    square: Square::E4,
                    piece: Piece::from_char('P')
                },
            ]
        );
    }

    #[test]
    fn without_a_calibration_and_with_unknown_chips_the_board_says_so_once() {
        let mut codes = start_codes();
        codes[35] = codes[51]; // d2 → d4: no start position
        codes[51] = EMPTY;
        let (out, _) = decode(&[codes, codes, codes], None);
        assert_eq!(out.len(), 1);
        assert_eq!(
            err(&out[0]),
            "line 2: no calibration yet: set up the start position, so that annabella learns \
             which RFID chip is which piece"
        );
        // A calibrated board with a stranger's chip on e4.
        let cal = Calibration::from_start_position(&start_codes()).unwrap();
        let mut codes = start_codes();
        codes[36] = code("9 9 9 9 9");
        let (out, _) = decode(&[codes, codes, codes], Some(cal.clone()));
        assert_eq!(
            err(&out[0]),
            "line 2: RFID code 9 9 9 9 9 on e4 not in the calibration; the board is read again \
             once every piece is known (a spare piece is learned by showing it in a start \
             position)"
        );
        assert_eq!(out.len(), 1);
        // A spare queen on d1 in the start position is learned, the old queen kept.
        let mut spare = start_codes();
        spare[59] = code("77 1 2 3 4");
        let (_, mut d) = decode(&[spare, spare], Some(cal.clone()));
        let merged = d.take_learned().unwrap();
        assert_eq!(merged.piece(&code("77 1 2 3 4")), Piece::from_char('Q'));
        assert_eq!(merged.piece(&start_codes()[59]), Piece::from_char('Q'));
        assert_eq!(merged.len(), 33);
    }

    #[test]
    fn bad_lines_name_their_number() {
        let mut d = CertaboDecoder::new(None);
        let mut out = Vec::new();
        d.feed(b":1 2 3\r\n:1 x 3\r\n", 0, &mut out);
        d.feed(&[b'7'; MAX_LINE + 5], 0, &mut out);
        d.feed(b"\n", 0, &mut out);
        assert_eq!(
            err(&out[0]),
            "line 1: 3 numbers; a board line has 320 (64 squares of 5); skipped"
        );
        assert_eq!(
            err(&out[1]),
            "line 2: number 2 (\"x\") is not a number from 0 to 65535; the line is skipped"
        );
        assert_eq!(
            err(&out[2]),
            "line 3: longer than 2048 bytes; a board line is 320 numbers; skipped"
        );
    }

    #[test]
    fn the_same_bad_line_over_and_over_is_reported_once() {
        let mut d = CertaboDecoder::new(None);
        let mut out = Vec::new();
        d.feed(&b"Certabo 1.0\r\n".repeat(50), 0, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(
            err(&out[0]),
            "line 1: number 1 (\"Certabo\") is not a number from 0 to 65535; the line is skipped"
        );
    }

    #[test]
    fn calibration_files_are_checked() {
        assert_eq!(
            Calibration::parse("K 1 2 3 4 5\nX 1 2 3 4 6"),
            Err("line 2: \"X\" is no piece letter (KQRBNPkqrbnp)".into())
        );
        assert_eq!(
            Calibration::parse("# comment\n\nK 1 2 3 4"),
            Err("line 3: 4 numbers after the piece; a code has 5".into())
        );
        assert_eq!(
            Calibration::parse("K 1 0 0 0 5"),
            Err("line 1: 1 0 0 0 5 reads as an empty square, not a chip".into())
        );
        assert!(Calibration::parse("K 1 2 3 4 5\nq 1 2 3 4 5").is_err());
        let mut codes = start_codes();
        codes[0] = codes[1];
        assert!(
            Calibration::from_start_position(&codes)
                .unwrap_err()
                .contains("cannot be told apart")
        );
    }

    #[test]
    fn leds_are_one_byte_a_rank_from_the_eighth() {
        let squares =
            Bitboard::from(Square::A8) | Bitboard::from(Square::H1) | Bitboard::from(Square::E2);
        let bytes = encode_leds(squares);
        assert_eq!(bytes, [0x01, 0, 0, 0, 0, 0, 0x10, 0x80]);
        assert_eq!(leds_squares(&bytes), squares);
    }

    #[test]
    fn chips_move_with_their_pieces_and_captured_ones_come_back_on_promotion() {
        let mut chips = ChipBoard::new(&Board::new());
        let e2 = chips.codes()[52];
        chips.apply(Square::E2, None);
        chips.apply(Square::E4, Piece::from_char('P'));
        chips.put_aside();
        assert_eq!(chips.codes()[36], e2);
        // Capture the queen on d8 with the pawn: the queen goes beside the board…
        let d8 = chips.codes()[3];
        chips.apply(Square::E4, None);
        chips.apply(Square::D8, Piece::from_char('P'));
        chips.put_aside();
        // …and a black pawn promoting to a queen on a1 takes her chip back.
        chips.apply(Square::A7, None);
        chips.apply(Square::A1, Piece::from_char('q'));
        chips.put_aside();
        assert_eq!(chips.codes()[56], d8);
    }
}
