//! The sensor events a person produces when making a move on a board, in the orders people use.
//!
//! The simulated board turns typed moves into these, and tests and benchmarks turn real games
//! into recorded streams with them. `variant` picks one of the physically possible orders
//! (captured piece lifted before or after the capturer, castling king or rook first, the three
//! en-passant orders), so a loop over variants covers every order.

use shakmaty::{Chess, Color, Move, Piece, Position, Role, Square};

use super::{BoardKey, SensorEvent};

/// How many different orders [`peg_events`] knows for this move (at least 1).
pub fn peg_variants(m: Move) -> usize {
    match m {
        Move::EnPassant { .. } => 3,
        Move::Castle { .. } => 2,
        Move::Normal {
            capture: Some(_), ..
        } => 2,
        _ => 1,
    }
}

/// Lifts and places on an occupancy (peg) board for `m`, a legal move of `pos`; a promotion
/// ends with the promotion key, as the player presses it on the key strip.
pub fn peg_events(pos: &Chess, m: Move, variant: usize) -> Vec<SensorEvent> {
    use SensorEvent::{Lift, Place};
    let mut out = Vec::with_capacity(5);
    match m {
        Move::Normal {
            from,
            to,
            capture,
            promotion,
            ..
        } => {
            match (capture.is_some(), variant % 2) {
                (true, 1) => out.extend([Lift(to), Lift(from), Place(to)]),
                (true, _) => out.extend([Lift(from), Lift(to), Place(to)]),
                (false, _) => out.extend([Lift(from), Place(to)]),
            }
            if let Some(role) = promotion {
                out.push(SensorEvent::Key(BoardKey::Promote(role)));
            }
        }
        Move::EnPassant { from, to } => {
            let captured = Square::from_coords(to.file(), from.rank());
            match variant % 3 {
                0 => out.extend([Lift(from), Place(to), Lift(captured)]),
                1 => out.extend([Lift(from), Lift(captured), Place(to)]),
                _ => out.extend([Lift(captured), Lift(from), Place(to)]),
            }
        }
        Move::Castle { king, rook } => {
            let (king_to, rook_to) = castling_destinations(pos.turn(), m, king);
            // Chess960: a destination can be the other piece's origin, so that piece must be
            // lifted before the hole can take a peg.
            let king_first = variant.is_multiple_of(2);
            let king_to_is_free = king_to == king || king_to != rook;
            let rook_to_is_free = rook_to == rook || rook_to != king;
            if king_first && king_to_is_free {
                out.extend([Lift(king), Place(king_to), Lift(rook), Place(rook_to)]);
            } else if !king_first && rook_to_is_free {
                out.extend([Lift(rook), Place(rook_to), Lift(king), Place(king_to)]);
            } else if king_first {
                out.extend([Lift(king), Lift(rook), Place(king_to), Place(rook_to)]);
            } else {
                out.extend([Lift(rook), Lift(king), Place(rook_to), Place(king_to)]);
            }
            // A piece that castles onto its own square never leaves the hole.
            out.retain(|e| !matches!(e, Lift(s) | Place(s) if (*s == king && king == king_to) || (*s == rook && rook == rook_to)));
        }
        Move::Put { .. } => {}
    }
    out
}

/// How many orders [`identity_events`] knows for this move.
pub fn identity_variants(_m: Move) -> usize {
    2
}

/// Field updates of a piece-identity board (DGT) for `m`. Variant 1 reports the destination
/// before the origin and never shows a captured square empty, as a slowly scanning board does.
pub fn identity_events(pos: &Chess, m: Move, variant: usize) -> Vec<SensorEvent> {
    let turn = pos.turn();
    let change =
        |square: Square, piece: Option<Piece>| SensorEvent::SquareChanged { square, piece };
    let mut out = Vec::with_capacity(4);
    match m {
        Move::Normal {
            role,
            from,
            to,
            capture,
            promotion,
        } => {
            let placed = Piece {
                color: turn,
                role: promotion.unwrap_or(role),
            };
            if variant % 2 == 1 {
                out.extend([change(to, Some(placed)), change(from, None)]);
            } else {
                out.push(change(from, None));
                if capture.is_some() {
                    out.push(change(to, None));
                }
                out.push(change(to, Some(placed)));
            }
        }
        Move::EnPassant { from, to } => {
            let captured = Square::from_coords(to.file(), from.rank());
            let pawn = Some(Piece {
                color: turn,
                role: Role::Pawn,
            });
            out.extend([change(from, None), change(to, pawn), change(captured, None)]);
            if variant % 2 == 1 {
                out.rotate_left(1);
            }
        }
        Move::Castle { king, rook } => {
            let (king_to, rook_to) = castling_destinations(turn, m, king);
            let k = Some(Piece {
                color: turn,
                role: Role::King,
            });
            let r = Some(Piece {
                color: turn,
                role: Role::Rook,
            });
            // The final content of each square (a destination may be the other piece's origin);
            // a square that ends as it began is not reported.
            let mut changes: Vec<(Square, Option<Piece>)> = Vec::with_capacity(4);
            for (square, piece) in [(king, None), (rook, None), (king_to, k), (rook_to, r)] {
                changes.retain(|(s, _)| *s != square);
                changes.push((square, piece));
            }
            changes.retain(|(square, piece)| pos.board().piece_at(*square) != *piece);
            // Variant 0 empties the origins first; variant 1 shows the pieces arriving first.
            changes.sort_by_key(|(_, piece)| piece.is_some() == (variant.is_multiple_of(2)));
            out.extend(
                changes
                    .into_iter()
                    .map(|(square, piece)| change(square, piece)),
            );
        }
        Move::Put { .. } => {}
    }
    out
}

fn castling_destinations(turn: Color, m: Move, _king: Square) -> (Square, Square) {
    let side = m.castling_side().expect("a castling move has a side");
    (side.king_to(turn), side.rook_to(turn))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{Bitboard, Board, CastlingMode};

    fn pos(fen: &str, mode: CastlingMode) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(mode).unwrap()
    }

    /// Applying the events to the occupancy before the move gives the occupancy after it, and no
    /// place ever goes into an occupied hole.
    fn check_peg(p: &Chess, m: Move) {
        for v in 0..peg_variants(m) {
            let mut occ = p.board().occupied();
            for e in peg_events(p, m, v) {
                match e {
                    SensorEvent::Lift(s) => {
                        assert!(occ.contains(s), "{m:?} v{v}: lift from empty {s}");
                        occ.discard(s);
                    }
                    SensorEvent::Place(s) => {
                        assert!(!occ.contains(s), "{m:?} v{v}: place into occupied {s}");
                        occ.add(s);
                    }
                    _ => {}
                }
            }
            let after = p.clone().play(m).unwrap();
            assert_eq!(occ, after.board().occupied(), "{m:?} v{v}");
        }
    }

    fn check_identity(p: &Chess, m: Move) {
        for v in 0..identity_variants(m) {
            let mut board: Board = p.board().clone();
            for e in identity_events(p, m, v) {
                if let SensorEvent::SquareChanged { square, piece } = e {
                    match piece {
                        Some(piece) => board.set_piece_at(square, piece),
                        None => board.discard_piece_at(square),
                    }
                }
            }
            let after = p.clone().play(m).unwrap();
            assert_eq!(&board, after.board(), "{m:?} v{v}");
        }
    }

    #[test]
    fn every_move_of_special_positions_is_physically_possible() {
        for (fen, mode) in [
            (
                "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1",
                CastlingMode::Standard,
            ),
            ("1k5r/8/8/8/8/8/8/RK5R w HAh - 0 1", CastlingMode::Chess960),
            ("4k3/8/8/8/8/8/8/5KR1 w G - 0 1", CastlingMode::Chess960),
            ("4k3/8/8/8/8/8/8/1RK5 w B - 0 1", CastlingMode::Chess960),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                CastlingMode::Standard,
            ),
        ] {
            let p = pos(fen, mode);
            for m in p.legal_moves() {
                check_peg(&p, m);
                check_identity(&p, m);
            }
        }
        assert_eq!(Bitboard::EMPTY.count(), 0);
    }

    #[test]
    fn en_passant_has_three_orders() {
        let p = pos("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", CastlingMode::Standard);
        let ep = p
            .legal_moves()
            .into_iter()
            .find(|m| m.is_en_passant())
            .unwrap();
        let orders: Vec<_> = (0..3).map(|v| peg_events(&p, ep, v)).collect();
        assert_ne!(orders[0], orders[1]);
        assert_ne!(orders[1], orders[2]);
    }
}
