//! The fewest hand actions (move, remove, place) that bring an observed board to a position.
//!
//! Used wherever a physical board and the game disagree: an illegal move on the peg board, a
//! wrong replication, the first snapshot after power-up, and later the two-board reconciliation
//! of FIDE D.2.9. The input is what a board can *see* ([`Observed`]): piece identity (a DGT
//! board) or only occupancy (the peg board). For an occupancy board the caller may add what it
//! *believes* stands on each occupied hole, so that the corrections can name pieces ("knight
//! from f4 to f3") and never ask for a knight where a bishop is believed to stand.
//!
//! # Fewest actions
//! Every square that holds a piece the target does not want there is *surplus*; every square
//! that lacks the piece the target wants is *missing* (a wrong piece makes a square both). Each
//! surplus piece must be moved or removed and each missing piece moved there or placed, so the
//! number of actions is `surplus + missing − moves`: the corrections pair as many surplus
//! squares with missing squares of the same piece as possible (a maximum matching), and among
//! those pairings take the one with the least total Manhattan distance (an exact assignment,
//! the Hungarian method; the sets never exceed 64 squares, so it is always exact). A surplus
//! peg whose identity is unknown pairs with any missing square, but only where no known piece
//! can go (a known piece goes home first).
//!
//! # Order and application
//! Removals first, then moves, then placements, each group by square; a move whose target
//! square another move must first empty comes after that move. [`apply`] performs corrections
//! in that order, with the moves as one step (lift every moved piece, then put them down), so
//! that even a swap of two pieces needs no temporary square.

use std::fmt;

use annabella_chess::phrases;
use annabella_chess::role_name;
use annabella_chess::vocabulary::Vocabulary;
use shakmaty::{Bitboard, Board, Piece, Square};

/// One hand action on the physical board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Correction {
    /// Take the piece on `from` and put it on `to`. `piece` is `None` when an occupancy board
    /// cannot say what stands on `from`.
    Move {
        piece: Option<Piece>,
        from: Square,
        to: Square,
    },
    /// Take the piece on `square` off the board.
    Remove {
        piece: Option<Piece>,
        square: Square,
    },
    /// Put `piece` (from beside the board) on `square`.
    Place { piece: Piece, square: Square },
}

/// What a board can see of itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Observed {
    /// Every piece with its identity (a DGT board dump).
    Pieces(Board),
    /// Only which holes hold a peg (the peg board).
    Occupancy(Bitboard),
}

impl Observed {
    pub fn occupied(&self) -> Bitboard {
        match self {
            Observed::Pieces(board) => board.occupied(),
            Observed::Occupancy(occ) => *occ,
        }
    }

    /// Whether this board shows `target` as far as it can see (occupancy boards: the holes).
    pub fn matches(&self, target: &Board) -> bool {
        match self {
            Observed::Pieces(board) => board == target,
            Observed::Occupancy(occ) => *occ == target.occupied(),
        }
    }
}

/// Costs above every sum of real distances (64 pairs × 14 at most): a pairing that would put
/// the wrong piece on a square is only taken when nothing else is left, and then undone.
const FORBIDDEN: i64 = 1 << 20;

/// Added to a pairing of a peg nobody can name: a piece the table knows goes back to its hole
/// before an unknown peg is sent there (a dropped peg must not take the place of a knocked
/// rook). 64 such pairings stay far below [`FORBIDDEN`].
const UNKNOWN: i64 = 1 << 10;

/// (piece if known, from, to)
type PlannedMove = (Option<Piece>, Square, Square);

/// The fewest hand actions that turn `observed` into `target` (for an occupancy board: into
/// `target`'s occupancy). `believed` names the pieces on an occupancy board's occupied squares
/// where known; a hole believed to hold another piece than the target's counts as wrong (its
/// peg must go and the right one come), so the corrections also bring the believed pieces to
/// the target. It is ignored for a board that sees identities.
pub fn corrections(
    observed: &Observed,
    believed: Option<&Board>,
    target: &Board,
) -> Vec<Correction> {
    // (square, piece standing there, if known)
    let mut surplus: Vec<(Square, Option<Piece>)> = Vec::new();
    // (square, piece wanted there)
    let mut missing: Vec<(Square, Piece)> = Vec::new();
    match observed {
        Observed::Pieces(board) => {
            for sq in board.occupied() | target.occupied() {
                let have = board.piece_at(sq);
                let want = target.piece_at(sq);
                if have == want {
                    continue;
                }
                if let Some(p) = have {
                    surplus.push((sq, Some(p)));
                }
                if let Some(p) = want {
                    missing.push((sq, p));
                }
            }
        }
        Observed::Occupancy(occ) => {
            for sq in *occ | target.occupied() {
                let have = believed
                    .and_then(|b| b.piece_at(sq))
                    .filter(|_| occ.contains(sq));
                let want = target.piece_at(sq);
                let wrong = match (occ.contains(sq), want) {
                    (false, None) => false,
                    (false, Some(_)) | (true, None) => true,
                    // A hole the target wants filled holds a peg: wrong only if it is believed
                    // to be another piece.
                    (true, Some(w)) => have.is_some_and(|h| h != w),
                };
                if !wrong {
                    continue;
                }
                if occ.contains(sq) {
                    surplus.push((sq, have));
                }
                if let Some(w) = want {
                    missing.push((sq, w));
                }
            }
        }
    }

    let pairs = assign(&surplus, &missing);
    let mut paired_s = vec![false; surplus.len()];
    let mut paired_m = vec![false; missing.len()];
    let mut moves = Vec::new();
    for (i, j) in pairs {
        paired_s[i] = true;
        paired_m[j] = true;
        let (from, piece) = surplus[i];
        moves.push((piece, from, missing[j].0));
    }
    let mut out: Vec<Correction> = surplus
        .iter()
        .zip(&paired_s)
        .filter(|(_, paired)| !**paired)
        .map(|(&(square, piece), _)| Correction::Remove { piece, square })
        .collect();
    out.extend(
        order_moves(moves)
            .into_iter()
            .map(|(piece, from, to)| Correction::Move { piece, from, to }),
    );
    out.extend(
        missing
            .iter()
            .zip(&paired_m)
            .filter(|(_, paired)| !**paired)
            .map(|(&(square, piece), _)| Correction::Place { piece, square }),
    );
    out
}

/// Corrections for a player who may still hold pegs: a peg nobody can name is never sent to a
/// hole whose piece he holds (`holds(piece)`), which would put an unknown piece where the game
/// has a known one; it is removed, and the held piece asked back. Keeps the order removals,
/// moves, placements.
pub fn with_hand(
    fixes: Vec<Correction>,
    target: &Board,
    holds: impl Fn(Piece) -> bool,
) -> Vec<Correction> {
    let mut removes = Vec::new();
    let mut moves = Vec::new();
    let mut places = Vec::new();
    for c in fixes {
        match c {
            Correction::Move {
                piece: None,
                from,
                to,
            } if target.piece_at(to).is_some_and(&holds) => {
                removes.push(Correction::Remove {
                    piece: None,
                    square: from,
                });
                if let Some(piece) = target.piece_at(to) {
                    places.push(Correction::Place { piece, square: to });
                }
            }
            Correction::Remove { .. } => removes.push(c),
            Correction::Move { .. } => moves.push(c),
            Correction::Place { .. } => places.push(c),
        }
    }
    removes.extend(moves);
    removes.extend(places);
    removes
}

pub(crate) fn manhattan(a: Square, b: Square) -> i64 {
    i64::from(a.file().distance(b.file()) + a.rank().distance(b.rank()))
}

/// The pairs (surplus index, missing index) that become moves.
pub(crate) fn assign(
    surplus: &[(Square, Option<Piece>)],
    missing: &[(Square, Piece)],
) -> Vec<(usize, usize)> {
    if surplus.is_empty() || missing.is_empty() {
        return Vec::new();
    }
    let cost = |i: usize, j: usize| -> i64 {
        let (s, have) = surplus[i];
        let (m, want) = missing[j];
        match have {
            Some(p) if p != want => FORBIDDEN,
            Some(_) => manhattan(s, m),
            None => UNKNOWN + manhattan(s, m),
        }
    };
    // The Hungarian method wants no more rows than columns.
    let pairs = if surplus.len() <= missing.len() {
        hungarian(surplus.len(), missing.len(), &cost)
    } else {
        hungarian(missing.len(), surplus.len(), &|j, i| cost(i, j))
            .into_iter()
            .map(|(j, i)| (i, j))
            .collect()
    };
    pairs
        .into_iter()
        .filter(|&(i, j)| cost(i, j) < FORBIDDEN)
        .collect()
}

/// Minimum-cost assignment of every row to a distinct column (rows ≤ columns), O(rows²·cols).
/// The classic potentials formulation; rows and columns are 1-based inside.
fn hungarian(rows: usize, cols: usize, cost: &dyn Fn(usize, usize) -> i64) -> Vec<(usize, usize)> {
    let inf = i64::MAX / 4;
    let mut u = vec![0i64; rows + 1];
    let mut v = vec![0i64; cols + 1];
    // row_of[j]: the row assigned to column j (0 = none)
    let mut row_of = vec![0usize; cols + 1];
    let mut way = vec![0usize; cols + 1];
    for i in 1..=rows {
        row_of[0] = i;
        let mut j0 = 0usize;
        let mut minv = vec![inf; cols + 1];
        let mut used = vec![false; cols + 1];
        loop {
            used[j0] = true;
            let i0 = row_of[j0];
            let mut delta = inf;
            let mut j1 = 0usize;
            for j in 1..=cols {
                if used[j] {
                    continue;
                }
                let cur = cost(i0 - 1, j - 1) - u[i0] - v[j];
                if cur < minv[j] {
                    minv[j] = cur;
                    way[j] = j0;
                }
                if minv[j] < delta {
                    delta = minv[j];
                    j1 = j;
                }
            }
            for j in 0..=cols {
                if used[j] {
                    u[row_of[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
            if row_of[j0] == 0 {
                break;
            }
        }
        loop {
            let j1 = way[j0];
            row_of[j0] = row_of[j1];
            j0 = j1;
            if j0 == 0 {
                break;
            }
        }
    }
    (1..=cols)
        .filter(|&j| row_of[j] != 0)
        .map(|j| (row_of[j] - 1, j - 1))
        .collect()
}

/// Moves in an order a hand can follow one by one: a move into a square that another move
/// empties comes after it; what remains (a cycle, e.g. two swapped pieces) by square.
fn order_moves(mut moves: Vec<PlannedMove>) -> Vec<PlannedMove> {
    moves.sort_by_key(|&(_, from, _)| from);
    let mut ordered = Vec::with_capacity(moves.len());
    while !moves.is_empty() {
        let sources: Bitboard = moves.iter().map(|&(_, from, _)| from).collect();
        let next = moves
            .iter()
            .position(|&(_, _, to)| !sources.contains(to))
            .unwrap_or(0);
        ordered.push(moves.remove(next));
    }
    ordered
}

/// Performs `corrections` on `observed`: removals, then all moves as one step, then
/// placements. A correction that names an empty square or a full one is carried out as far as
/// it makes sense (a hand cannot lift from an empty hole), never a panic.
pub fn apply(observed: &Observed, corrections: &[Correction]) -> Observed {
    match observed {
        Observed::Occupancy(occ) => {
            let mut occ = *occ;
            for c in corrections {
                if let Correction::Remove { square, .. } = *c {
                    occ.discard(square);
                }
            }
            let mut arriving = Bitboard::EMPTY;
            for c in corrections {
                if let Correction::Move { from, to, .. } = *c
                    && occ.contains(from)
                {
                    occ.discard(from);
                    arriving.add(to);
                }
            }
            occ |= arriving;
            for c in corrections {
                if let Correction::Place { square, .. } = *c {
                    occ.add(square);
                }
            }
            Observed::Occupancy(occ)
        }
        Observed::Pieces(board) => {
            let mut board = board.clone();
            for c in corrections {
                if let Correction::Remove { square, .. } = *c {
                    board.discard_piece_at(square);
                }
            }
            let mut arriving = Vec::new();
            for c in corrections {
                if let Correction::Move { from, to, .. } = *c
                    && let Some(p) = board.remove_piece_at(from)
                {
                    arriving.push((to, p));
                }
            }
            for (to, p) in arriving {
                board.set_piece_at(to, p);
            }
            for c in corrections {
                if let Correction::Place { piece, square } = *c {
                    board.set_piece_at(square, piece);
                }
            }
            Observed::Pieces(board)
        }
    }
}

/// A correction in the player's words, square by square ("Springer von Felix vier nach Felix
/// drei"); a peg whose piece nobody knows is named by its squares alone.
pub fn spoken(c: &Correction, v: &Vocabulary) -> String {
    spoken_with_hand(c, v, |_| false)
}

/// `fixes` naming no piece on the holes of `unsure`: a peg there may be the piece believed or
/// another, which an occupancy board cannot tell, so the instruction says the table cannot
/// know which ("die Figur auf …, ich weiß nicht welche, …") rather than guess a name.
pub fn unnamed_on(fixes: Vec<Correction>, unsure: Bitboard) -> Vec<Correction> {
    fixes
        .into_iter()
        .map(|c| match c {
            Correction::Move { from, to, .. } if unsure.contains(from) => Correction::Move {
                piece: None,
                from,
                to,
            },
            Correction::Remove { square, .. } if unsure.contains(square) => Correction::Remove {
                piece: None,
                square,
            },
            other => other,
        })
        .collect()
}

/// [`spoken`], where `holds(piece)` says whether the player holds that piece: a piece to be
/// placed is then asked back ("weißen Bauern zurück auf Hector zwei stellen").
pub fn spoken_with_hand(c: &Correction, v: &Vocabulary, holds: impl Fn(Piece) -> bool) -> String {
    match *c {
        Correction::Place { piece, square } if holds(piece) => {
            phrases::correction_return(piece, square, v)
        }
        Correction::Move {
            piece: Some(p),
            from,
            to,
        } => phrases::correction_move(p.role, p.color, from, to, v),
        Correction::Move {
            piece: None,
            from,
            to,
        } => phrases::correction_move_unknown(from, to, v),
        Correction::Remove {
            piece: Some(p),
            square,
        } => phrases::correction_remove(p, square, v),
        // Nothing says what stands there: "die Figur auf …, ich weiß nicht welche, entfernen".
        Correction::Remove {
            piece: None,
            square,
        } => phrases::correction_remove_unknown(square, v),
        Correction::Place { piece, square } => phrases::correction_place(piece, square, v),
    }
}

pub(crate) fn color_name(piece: Piece) -> &'static str {
    if piece.color.is_white() {
        "white"
    } else {
        "black"
    }
}

/// "white knight", for messages.
pub struct PieceName(pub Piece);

impl fmt::Display for PieceName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", color_name(self.0), role_name(self.0.role))
    }
}

impl fmt::Display for Correction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Correction::Move {
                piece: Some(p),
                from,
                to,
            } => {
                write!(f, "move the {} from {from} to {to}", PieceName(p))
            }
            Correction::Move {
                piece: None,
                from,
                to,
            } => {
                write!(f, "move the piece on {from} to {to}")
            }
            Correction::Remove {
                piece: Some(p),
                square,
            } => {
                write!(f, "remove the {} from {square}", PieceName(p))
            }
            Correction::Remove {
                piece: None,
                square,
            } => {
                write!(f, "remove the piece on {square}")
            }
            Correction::Place { piece, square } => {
                write!(f, "put a {} on {square}", PieceName(piece))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Color;

    fn board(fen: &str) -> Board {
        fen.parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_setup()
            .board
    }

    #[test]
    fn a_knight_one_square_off_is_one_move() {
        let target = Board::new();
        let mut seen = target.clone();
        let n = seen.remove_piece_at(Square::G1).unwrap();
        seen.set_piece_at(Square::F3, n);
        let c = corrections(&Observed::Pieces(seen.clone()), None, &target);
        assert_eq!(
            c,
            vec![Correction::Move {
                piece: Some(n),
                from: Square::F3,
                to: Square::G1
            }]
        );
        assert_eq!(apply(&Observed::Pieces(seen), &c), Observed::Pieces(target));
    }

    #[test]
    fn a_swap_is_two_moves_and_applies() {
        let target = board("4k3/8/8/8/8/8/8/4KBN1 w - - 0 1");
        let seen = board("4k3/8/8/8/8/8/8/4KNB1 w - - 0 1");
        let c = corrections(&Observed::Pieces(seen.clone()), None, &target);
        assert_eq!(c.len(), 2);
        assert!(c.iter().all(|c| matches!(c, Correction::Move { .. })));
        assert_eq!(apply(&Observed::Pieces(seen), &c), Observed::Pieces(target));
    }

    #[test]
    fn a_wrong_piece_is_removed_and_the_right_one_placed() {
        let target = board("4k3/8/8/8/8/8/8/4K1N1 w - - 0 1");
        let seen = board("4k3/8/8/8/8/8/8/4K1B1 w - - 0 1");
        let c = corrections(&Observed::Pieces(seen), None, &target);
        assert_eq!(
            c,
            vec![
                Correction::Remove {
                    piece: Some(Color::White.bishop()),
                    square: Square::G1
                },
                Correction::Place {
                    piece: Color::White.knight(),
                    square: Square::G1
                },
            ]
        );
    }

    #[test]
    fn occupancy_pairs_by_belief_then_by_distance() {
        let target = Board::new();
        let occ = target.occupied() & !Bitboard::from(Square::G1) | Bitboard::from(Square::H3);
        let c = corrections(&Observed::Occupancy(occ), None, &target);
        assert_eq!(
            c,
            vec![Correction::Move {
                piece: None,
                from: Square::H3,
                to: Square::G1
            }]
        );
        let mut believed = target.clone();
        believed.discard_piece_at(Square::G1);
        believed.set_piece_at(Square::H3, Color::White.bishop());
        let c = corrections(&Observed::Occupancy(occ), Some(&believed), &target);
        assert_eq!(c.len(), 2, "a bishop cannot stand in for the knight: {c:?}");
    }

    #[test]
    fn hungarian_finds_the_shortest_total() {
        // Two rooks missing on a1 and h1, two surplus on a2 and h8: a2→a1 (1) + h8→h1 (7).
        let target = board("4k3/8/8/8/8/8/8/R3K2R w - - 0 1");
        let seen = board("4k2R/8/8/8/8/8/R7/4K3 w - - 0 1");
        let c = corrections(&Observed::Pieces(seen), None, &target);
        let mut c2 = c.clone();
        c2.sort_by_key(|c| match c {
            Correction::Move { from, .. } => *from,
            _ => Square::A1,
        });
        assert_eq!(
            c2,
            vec![
                Correction::Move {
                    piece: Some(Color::White.rook()),
                    from: Square::A2,
                    to: Square::A1
                },
                Correction::Move {
                    piece: Some(Color::White.rook()),
                    from: Square::H8,
                    to: Square::H1
                },
            ]
        );
    }
}
