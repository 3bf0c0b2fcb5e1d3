//! The sensor events a person produces when making a move on a board, in every order a hand can.
//!
//! The one generator of such events: the simulated board turns typed moves into them, and tests
//! and benchmarks turn real games into recorded streams with them. Each kind of board has a
//! list of every physically possible order for a move ([`peg_orders`], [`identity_orders`]);
//! `variant` picks one of them by number, wrapping, so a loop over `0..variants` covers every
//! order and a random number picks a random one (seeded variation).
//!
//! - **Peg (occupancy) board**: a peg is lifted before it is placed, a hole must be empty before
//!   a peg goes in, and a captured piece is lifted and put aside at any time before its hole is
//!   refilled: the capture lifted before or after the capturer, the three en-passant orders,
//!   castling king or rook first, each placed at once or both lifted first (in Chess960 a piece
//!   whose destination is the other's hole waits for it). A promotion ends with the key for the
//!   new piece, as the player presses it on the key strip.
//! - **Identity (DGT) board**: the scan reports every changed square once with its new content,
//!   in any order (an arrival may come before the departure); for a capture on the destination
//!   square the board may also show that square empty between the two pieces.

use shakmaty::{Bitboard, CastlingSide, Chess, Move, Piece, Position, Square};

use super::{BoardKey, SensorEvent};

/// Every order in which a hand can make `m`, a legal move of `pos`, on an occupancy (peg) board,
/// as lifts and placements; a promotion ends with the promotion key. The first order lifts the
/// moving piece first and places each piece as soon as its hole is free.
pub fn peg_orders(pos: &Chess, m: Move) -> Vec<Vec<SensorEvent>> {
    let pegs = peg_paths(pos, m);
    let mut orders = Vec::new();
    let mut state = vec![PegState::Home; pegs.len()];
    let mut events = Vec::with_capacity(pegs.len() * 2 + 1);
    walk(
        &pegs,
        pos.board().occupied(),
        &mut state,
        &mut events,
        &mut orders,
    );
    if let Some(role) = m.promotion() {
        for order in &mut orders {
            order.push(SensorEvent::Key(BoardKey::Promote(role)));
        }
    }
    orders
}

/// How many orders [`peg_orders`] knows for `m` in `pos` (at least 1).
pub fn peg_variants(pos: &Chess, m: Move) -> usize {
    peg_orders(pos, m).len().max(1)
}

/// The lifts and placements of order number `variant` (wrapping) of [`peg_orders`].
pub fn peg_events(pos: &Chess, m: Move, variant: usize) -> Vec<SensorEvent> {
    pick(peg_orders(pos, m), variant)
}

/// Every order in which a piece-identity board (DGT) can report `m`, a legal move of `pos`, as
/// field updates. The first order reports the emptied squares first.
pub fn identity_orders(pos: &Chess, m: Move) -> Vec<Vec<SensorEvent>> {
    let before = pos.board();
    let mut after = pos.clone();
    after.play_unchecked(m);
    let after = after.board();
    let changed = (before.occupied() | after.occupied())
        .into_iter()
        .filter(|&sq| before.piece_at(sq) != after.piece_at(sq));
    // Emptied squares first, so that the first order is the one a fast scan gives.
    let mut changes: Vec<(Square, Option<Piece>)> = changed
        .clone()
        .filter(|&sq| after.piece_at(sq).is_none())
        .chain(changed.filter(|&sq| after.piece_at(sq).is_some()))
        .map(|sq| (sq, after.piece_at(sq)))
        .collect();
    let mut orders = Vec::new();
    permutations(&mut changes, 0, &mut orders);
    // A capture on the destination: the captured piece lifted and the square seen empty
    // before the capturer arrives.
    if let Move::Normal {
        from,
        to,
        capture: Some(_),
        ..
    } = m
    {
        let placed = after.piece_at(to);
        for steps in [
            [(from, None), (to, None), (to, placed)],
            [(to, None), (from, None), (to, placed)],
            [(to, None), (to, placed), (from, None)],
        ] {
            orders.push(steps.to_vec());
        }
    }
    orders
        .into_iter()
        .map(|order| {
            order
                .into_iter()
                .map(|(square, piece)| SensorEvent::SquareChanged { square, piece })
                .collect()
        })
        .collect()
}

/// How many orders [`identity_orders`] knows for `m` in `pos` (at least 1).
pub fn identity_variants(pos: &Chess, m: Move) -> usize {
    identity_orders(pos, m).len().max(1)
}

/// The field updates of order number `variant` (wrapping) of [`identity_orders`].
pub fn identity_events(pos: &Chess, m: Move, variant: usize) -> Vec<SensorEvent> {
    pick(identity_orders(pos, m), variant)
}

/// Every order in which a hand can make `m`, a legal move of `pos`, on a board that senses
/// pieces and shows the whole board after each action: the hand orders of [`peg_orders`], each
/// lift a square emptied and each placement the piece that ends there (a promotion puts down
/// the new piece, so no key is pressed).
pub fn hand_orders(pos: &Chess, m: Move) -> Vec<Vec<SensorEvent>> {
    let mut after = pos.clone();
    after.play_unchecked(m);
    let after = after.board();
    peg_orders(pos, m)
        .into_iter()
        .map(|order| {
            order
                .into_iter()
                .filter_map(|e| match e {
                    SensorEvent::Lift(square) => Some(SensorEvent::SquareChanged {
                        square,
                        piece: None,
                    }),
                    SensorEvent::Place(square) => Some(SensorEvent::SquareChanged {
                        square,
                        piece: after.piece_at(square),
                    }),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

/// The actions of order number `variant` (wrapping) of [`hand_orders`].
pub fn hand_events(pos: &Chess, m: Move, variant: usize) -> Vec<SensorEvent> {
    pick(hand_orders(pos, m), variant)
}

fn pick(mut orders: Vec<Vec<SensorEvent>>, variant: usize) -> Vec<SensorEvent> {
    if orders.is_empty() {
        return Vec::new();
    }
    let i = variant % orders.len();
    orders.swap_remove(i)
}

/// Where one peg of a move goes: from its hole to another, or (a captured piece) off the board.
#[derive(Debug, Clone, Copy)]
struct PegPath {
    origin: Option<Square>,
    destination: Option<Square>,
}

/// How far one peg of a move has got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PegState {
    /// Still in its hole (or, for a dropped piece, beside the board).
    Home,
    /// In the hand.
    Held,
    /// In its destination, or put aside.
    Done,
}

/// The pegs `m` moves; a castling piece that ends on its own hole never leaves it.
fn peg_paths(pos: &Chess, m: Move) -> Vec<PegPath> {
    let path = |origin, destination| PegPath {
        origin: Some(origin),
        destination,
    };
    match m {
        Move::Normal {
            from, to, capture, ..
        } => {
            let mut pegs = vec![path(from, Some(to))];
            if capture.is_some() {
                pegs.push(path(to, None));
            }
            pegs
        }
        Move::EnPassant { from, to } => vec![
            path(from, Some(to)),
            path(Square::from_coords(to.file(), from.rank()), None),
        ],
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(king < rook);
            let turn = pos.turn();
            let (king_to, rook_to) = (side.king_to(turn), side.rook_to(turn));
            let mut pegs = Vec::with_capacity(2);
            if king != king_to {
                pegs.push(path(king, Some(king_to)));
            }
            if rook != rook_to {
                pegs.push(path(rook, Some(rook_to)));
            }
            pegs
        }
        // A piece from beside the board is only placed.
        Move::Put { to, .. } => vec![PegPath {
            origin: None,
            destination: Some(to),
        }],
    }
}

/// Depth first over the next possible actions: lift a peg still home, or place a held peg whose
/// destination is empty. Each complete sequence is one order.
fn walk(
    pegs: &[PegPath],
    occ: Bitboard,
    state: &mut [PegState],
    events: &mut Vec<SensorEvent>,
    orders: &mut Vec<Vec<SensorEvent>>,
) {
    if state.iter().all(|&s| s == PegState::Done) {
        orders.push(events.clone());
        return;
    }
    for i in 0..pegs.len() {
        let PegPath {
            origin,
            destination,
        } = pegs[i];
        match state[i] {
            PegState::Home => {
                state[i] = if destination.is_some() {
                    PegState::Held
                } else {
                    PegState::Done
                };
                match origin {
                    Some(o) => {
                        events.push(SensorEvent::Lift(o));
                        walk(pegs, occ.without(o), state, events, orders);
                        events.pop();
                    }
                    None => walk(pegs, occ, state, events, orders),
                }
                state[i] = PegState::Home;
            }
            PegState::Held => {
                if let Some(d) = destination
                    && !occ.contains(d)
                {
                    state[i] = PegState::Done;
                    events.push(SensorEvent::Place(d));
                    walk(pegs, occ.with(d), state, events, orders);
                    events.pop();
                    state[i] = PegState::Held;
                }
            }
            PegState::Done => {}
        }
    }
}

/// Every ordering of `items[k..]` after `items[..k]`, in lexicographic order of positions.
fn permutations<T: Copy>(items: &mut Vec<T>, k: usize, out: &mut Vec<Vec<T>>) {
    if k + 1 >= items.len() {
        out.push(items.clone());
        return;
    }
    for i in k..items.len() {
        // Rotating (not swapping) keeps the rest in order, so the first ordering is the input.
        items[k..=i].rotate_right(1);
        permutations(items, k + 1, out);
        items[k..=i].rotate_left(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{Board, CastlingMode};
    use std::collections::BTreeSet;

    fn pos(fen: &str, mode: CastlingMode) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(mode).unwrap()
    }

    /// Applying the events to the occupancy before the move gives the occupancy after it, no
    /// peg is lifted from an empty hole or placed into an occupied one, no two orders are the
    /// same, and `peg_events` walks through them all.
    fn check_peg(p: &Chess, m: Move) {
        let orders = peg_orders(p, m);
        assert!(!orders.is_empty(), "{m:?}");
        assert_eq!(peg_variants(p, m), orders.len());
        let distinct: BTreeSet<String> = orders.iter().map(|o| format!("{o:?}")).collect();
        assert_eq!(distinct.len(), orders.len(), "{m:?}: {orders:?}");
        for (v, order) in orders.iter().enumerate() {
            assert_eq!(&peg_events(p, m, v), order);
            assert_eq!(&peg_events(p, m, v + orders.len()), order, "wraps");
            let mut occ = p.board().occupied();
            for e in order {
                match *e {
                    SensorEvent::Lift(s) => {
                        assert!(occ.contains(s), "{m:?} v{v}: lift from empty {s}");
                        occ.discard(s);
                    }
                    SensorEvent::Place(s) => {
                        assert!(!occ.contains(s), "{m:?} v{v}: place into occupied {s}");
                        occ.add(s);
                    }
                    SensorEvent::Key(BoardKey::Promote(role)) => {
                        assert_eq!(Some(role), m.promotion());
                        assert_eq!(Some(e), order.last(), "the key comes last");
                    }
                    ref e => panic!("{m:?} v{v}: {e:?} on a peg board"),
                }
            }
            let after = p.clone().play(m).unwrap();
            assert_eq!(occ, after.board().occupied(), "{m:?} v{v}");
        }
    }

    /// Applying the updates gives the board after the move; every order is different.
    fn check_identity(p: &Chess, m: Move) {
        let orders = identity_orders(p, m);
        assert_eq!(identity_variants(p, m), orders.len());
        let distinct: BTreeSet<String> = orders.iter().map(|o| format!("{o:?}")).collect();
        assert_eq!(distinct.len(), orders.len(), "{m:?}: {orders:?}");
        for (v, order) in orders.iter().enumerate() {
            assert_eq!(&identity_events(p, m, v), order);
            let mut board: Board = p.board().clone();
            for e in order {
                let SensorEvent::SquareChanged { square, piece } = *e else {
                    panic!("{m:?} v{v}: {e:?} on an identity board");
                };
                match piece {
                    Some(piece) => board.set_piece_at(square, piece),
                    None => board.discard_piece_at(square),
                }
            }
            let after = p.clone().play(m).unwrap();
            assert_eq!(&board, after.board(), "{m:?} v{v}");
        }
    }

    /// Each hand order empties a square only where a piece stands and ends on the board after
    /// the move.
    fn check_hand(p: &Chess, m: Move) {
        let orders = hand_orders(p, m);
        assert_eq!(orders.len(), peg_orders(p, m).len());
        for (v, order) in orders.iter().enumerate() {
            assert_eq!(&hand_events(p, m, v), order);
            let mut board: Board = p.board().clone();
            for e in order {
                let SensorEvent::SquareChanged { square, piece } = *e else {
                    panic!("{m:?} v{v}: {e:?}");
                };
                match piece {
                    Some(piece) => {
                        assert!(
                            board.piece_at(square).is_none(),
                            "{m:?} v{v}: onto {square}"
                        );
                        board.set_piece_at(square, piece);
                    }
                    None => {
                        assert!(
                            board.remove_piece_at(square).is_some(),
                            "{m:?} v{v}: {square}"
                        );
                    }
                }
            }
            assert_eq!(&board, p.clone().play(m).unwrap().board(), "{m:?} v{v}");
        }
    }

    #[test]
    fn every_order_of_every_move_of_special_positions_is_physically_possible() {
        for (fen, mode) in [
            (
                "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1",
                CastlingMode::Standard,
            ),
            ("1k5r/8/8/8/8/8/8/RK5R w HAh - 0 1", CastlingMode::Chess960),
            ("4k3/8/8/8/8/8/8/5KR1 w G - 0 1", CastlingMode::Chess960),
            ("4k3/8/8/8/8/8/8/1RK5 w B - 0 1", CastlingMode::Chess960),
            ("4k3/8/8/8/8/8/8/2RK4 w C - 0 1", CastlingMode::Chess960),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                CastlingMode::Standard,
            ),
        ] {
            let p = pos(fen, mode);
            for m in p.legal_moves() {
                check_peg(&p, m);
                check_identity(&p, m);
                check_hand(&p, m);
            }
        }
    }

    #[test]
    fn the_orders_are_all_a_hand_can_make() {
        use SensorEvent::{Lift, Place};
        use Square::*;
        let p = pos(
            "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1",
            CastlingMode::Standard,
        );
        let find = |p: &Chess, pred: &dyn Fn(&Move) -> bool| {
            p.legal_moves().into_iter().find(pred).unwrap()
        };
        // En passant: the capturer placed before or after the pawn is lifted, or that first.
        let ep = find(&p, &|m| m.is_en_passant());
        assert_eq!(
            peg_orders(&p, ep),
            [
                vec![Lift(E5), Place(D6), Lift(D5)],
                vec![Lift(E5), Lift(D5), Place(D6)],
                vec![Lift(D5), Lift(E5), Place(D6)],
            ]
        );
        // A capture: the captured piece lifted after or before the capturer.
        let capture = find(&p, &|m| {
            m.is_capture() && !m.is_promotion() && !m.is_en_passant()
        });
        assert_eq!(peg_variants(&p, capture), 2);
        // A capturing promotion: two orders, each ending with the key.
        let promo = find(&p, &|m| m.is_promotion() && m.is_capture());
        assert_eq!(peg_variants(&p, promo), 2);
        // The DGT board: every order of the changed squares, plus the captured square seen
        // empty in between.
        assert_eq!(identity_variants(&p, ep), 6);
        assert_eq!(identity_variants(&p, capture), 2 + 3);
        // Castling: either piece first, each placed at once or after both are lifted.
        let p = pos(
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            CastlingMode::Standard,
        );
        let castle = find(&p, &|m| m.is_castle());
        assert_eq!(peg_variants(&p, castle), 6);
        assert_eq!(identity_variants(&p, castle), 24);
    }

    #[test]
    fn chess960_castling_into_the_other_pieces_hole_waits_for_it() {
        // King f1, rook g1, king side: the king goes to g1, the rook's hole, and the rook to f1,
        // the king's: each is placed only after both are lifted.
        let p = pos("4k3/8/8/8/8/8/8/5KR1 w G - 0 1", CastlingMode::Chess960);
        let castle = p.legal_moves().into_iter().find(|m| m.is_castle()).unwrap();
        use SensorEvent::{Lift, Place};
        use Square::*;
        assert_eq!(
            peg_orders(&p, castle),
            [
                vec![Lift(F1), Lift(G1), Place(G1), Place(F1)],
                vec![Lift(F1), Lift(G1), Place(F1), Place(G1)],
                vec![Lift(G1), Lift(F1), Place(G1), Place(F1)],
                vec![Lift(G1), Lift(F1), Place(F1), Place(G1)],
            ]
        );
    }
}
