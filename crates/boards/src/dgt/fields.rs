//! DGT's piece codes and field numbers: 0 = a8 … 63 = h1, and the board turned around.

use shakmaty::{Board, Color, File, Piece, Rank, Role, Square};

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
