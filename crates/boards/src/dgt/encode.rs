//! DGT messages as a board sends them, framed: board dumps, field updates, version and serial
//! number (for the simulator and the tests).

use shakmaty::{Board, Piece, Square};

use super::fields::{field_square, piece_code, square_field};
use super::messages::{
    DGT_MSG_BOARD_DUMP, DGT_MSG_FIELD_UPDATE, DGT_MSG_SERIALNR, DGT_MSG_VERSION, HEADER_BYTES,
};

pub(super) fn frame(id: u8, payload: &[u8]) -> Vec<u8> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
