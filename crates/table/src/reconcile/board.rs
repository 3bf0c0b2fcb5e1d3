//! One board against the position it must show (FIDE D.2.9): the fewest hand actions, the pieces a peg board is believed to hold, and the holes whose piece it cannot confirm.

use shakmaty::{Bitboard, Board, Chess, Piece, Position};

use super::Side;
use super::decision::{BoardDecision, IdentitySource};
use super::replay::Replayed;
use super::resolution::{ReconcileInput, Unverifiable};
use crate::corrections::{self, Correction, Observed};

/// The positions a board may be showing, in order of preference: the target, then the board's
/// own sheet from its last position back, then the other sheet's.
pub(super) struct Candidates<'a> {
    pub(super) target: &'a Chess,
    pub(super) replayed: &'a [Replayed; 2],
}

impl Candidates<'_> {
    fn in_order(&self, side: Side) -> impl Iterator<Item = (IdentitySource, &Chess)> {
        let sheet = |s: Side| {
            self.replayed[s.index()]
                .positions
                .iter()
                .enumerate()
                .rev()
                .map(move |(k, p)| (IdentitySource::Sheet(s, k), p))
        };
        std::iter::once((IdentitySource::Target, self.target))
            .chain(sheet(side))
            .chain(sheet(side.other()))
    }

    /// The candidate whose pegs are nearest to `occ` (fewest holes that differ); the first
    /// in order of preference among equals.
    fn nearest(&self, side: Side, occ: Bitboard) -> (IdentitySource, &Chess) {
        let mut best = (u32::MAX, IdentitySource::Target, self.target);
        for (source, pos) in self.in_order(side) {
            let d = (pos.board().occupied() ^ occ).count() as u32;
            if d < best.0 {
                best = (d, source, pos);
                if d == 0 {
                    break;
                }
            }
        }
        (best.1, best.2)
    }

    /// The piece that most likely stands on `square`: the first candidate with one there.
    fn guess(&self, side: Side, square: shakmaty::Square) -> Option<Piece> {
        self.in_order(side)
            .find_map(|(_, pos)| pos.board().piece_at(square))
    }
}

/// What `side`'s board must do to show the candidates' target, and what it cannot confirm.
pub(super) fn decide_board(
    side: Side,
    input: &ReconcileInput,
    candidates: &Candidates,
) -> BoardDecision {
    let board_in = input.boards[side.index()];
    let target = candidates.target.board();
    let (believed, identities_from) = match &board_in.observed {
        Observed::Pieces(_) => (None, None),
        Observed::Occupancy(occ) => match &board_in.believed {
            Some(b) => (Some(b.clone()), Some(IdentitySource::Believed)),
            None => {
                let (source, pos) = candidates.nearest(side, *occ);
                (Some(pos.board().clone()), Some(source))
            }
        },
    };
    let list = corrections::corrections(&board_in.observed, believed.as_ref(), target);

    // Names for pegs the board cannot identify: a moved peg is the piece its new hole needs; a
    // removed one is what most likely stood there.
    let named: Vec<Correction> = list
        .iter()
        .map(|&c| match c {
            Correction::Move {
                piece: None,
                from,
                to,
            } => Correction::Move {
                piece: target.piece_at(to),
                from,
                to,
            },
            Correction::Remove {
                piece: None,
                square,
            } => Correction::Remove {
                piece: candidates.guess(side, square),
                square,
            },
            other => other,
        })
        .collect();
    let unverifiable = match (&board_in.observed, &believed) {
        (Observed::Occupancy(occ), Some(believed)) => unverifiable(*occ, believed, target, &list),
        _ => Vec::new(),
    };
    BoardDecision {
        pegs_only: matches!(board_in.observed, Observed::Occupancy(_)),
        corrections: list,
        named,
        unverifiable,
        identities_from,
    }
}

/// The holes of a peg board (`occ`, with `believed` pieces) whose piece the sensors cannot
/// confirm once `list` has brought it to `target`, in square order.
fn unverifiable(
    occ: Bitboard,
    believed: &Board,
    target: &Board,
    list: &[Correction],
) -> Vec<Unverifiable> {
    let mut unverifiable = Vec::new();
    let mut touched = Bitboard::EMPTY;
    for c in list {
        match *c {
            Correction::Move { piece, from, to } => {
                touched.add(from);
                touched.add(to);
                if piece.is_none()
                    && let Some(expected) = target.piece_at(to)
                {
                    unverifiable.push(Unverifiable {
                        square: to,
                        expected,
                        believed: None,
                        from: Some(from),
                    });
                }
            }
            Correction::Remove { square, .. } | Correction::Place { square, .. } => {
                touched.add(square)
            }
        }
    }
    for square in occ & target.occupied() {
        let Some(expected) = target.piece_at(square) else {
            continue;
        };
        match believed.piece_at(square) {
            None if !touched.contains(square) => unverifiable.push(Unverifiable {
                square,
                expected,
                believed: None,
                from: None,
            }),
            Some(p) if p != expected => unverifiable.push(Unverifiable {
                square,
                expected,
                believed: Some(p),
                from: None,
            }),
            _ => {}
        }
    }
    unverifiable.sort_by_key(|u| u.square);
    unverifiable
}
