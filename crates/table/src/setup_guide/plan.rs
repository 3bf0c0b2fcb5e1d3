//! The fewest hand actions that turn what the peg board holds into a game's position, in an
//! order a hand can follow one instruction at a time.
//!
//! # Fewest actions
//! Pieces of one kind (colour and role) are interchangeable. For each kind, every square that
//! holds a known piece of that kind the target does not want there is *surplus*, and every
//! square that wants that kind and does not hold it is *missing* (a wrong piece makes a square
//! both, for two kinds). Every surplus piece must be lifted once and every missing square filled
//! once; a move does one of each, so a kind needs at least `max(surplus, missing)` actions, and
//! `min(surplus, missing)` moves reach that bound. A peg nobody knows costs one action whatever
//! is done with it: checked by feel where the target wants a piece (it then counts as that
//! piece), removed where the target wants the hole empty.
//!
//! The bound is not always reached, because one instruction is said at a time and a piece can
//! only go into an empty hole. Moves form chains (the piece on b goes to c, so the one on a can
//! go to b), done from their far end; a chain that closes on itself (a knight and a bishop on
//! each other's squares) needs one piece put aside first: one extra action. Pairings within a
//! kind are free, so a cycle is opened wherever it shares a kind with anything else (another
//! chain, a piece to remove, a square to fill from the box), by exchanging two destinations of
//! that kind. Only a group of kinds that touch nothing but each other, every kind as often
//! surplus as missing, keeps one cycle, and that extra action cannot be avoided: the minimum is
//! the sum of the bounds, plus one per such closed group. `tests/setup_guide.rs` compares this
//! with a breadth-first search over every sequence of actions on small boards.
//!
//! # Order
//! The player's hand continues where it just freed a hole (the next piece goes into it);
//! otherwise removals come first (by square), then moves that free a hole another instruction
//! needs, then other moves (the one nearest the hand), then pieces from the box, and the unknown
//! pegs are checked last, so that a player who knows his board is right can say so with the
//! set-up key instead.

use std::fmt;

use shakmaty::{Bitboard, Board, Piece, Square};

use super::contents::{Peg, PegContents};
use crate::corrections::{PieceName, assign, manhattan};

/// More instructions than any two positions need (64 holes, at most two actions each, and a
/// piece put aside per cycle): a plan never exceeds it.
pub const PLAN_LIMIT: usize = 256;

/// One hand action the player is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Instruction {
    /// Lift the piece on `from` and put it on `to` (which is empty).
    Move {
        piece: Piece,
        from: Square,
        to: Square,
    },
    /// Lift the piece on `from` and put it on the empty `to` for now: it frees its hole for a
    /// piece that must come there, and comes on to its own square later.
    Aside {
        piece: Piece,
        from: Square,
        to: Square,
    },
    /// Take the peg on `square` off the board (`None`: a peg nobody knows).
    Remove {
        piece: Option<Piece>,
        square: Square,
    },
    /// Put `piece`, from beside the board, on the empty `square`.
    Place { piece: Piece, square: Square },
    /// The peg on `square` is unknown where the target wants `piece`: feel it, replace it if it
    /// is not that piece, and confirm by lifting it briefly (a lift and a place on `square`).
    Check { piece: Piece, square: Square },
}

/// In English, for logs and the web page ("move the white knight from g1 to f3").
impl fmt::Display for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Instruction::Move { piece, from, to } => {
                write!(f, "move the {} from {from} to {to}", PieceName(piece))
            }
            Instruction::Aside { piece, from, to } => {
                write!(
                    f,
                    "move the {} from {from} to {to} for now",
                    PieceName(piece)
                )
            }
            Instruction::Remove {
                piece: Some(piece),
                square,
            } => write!(f, "remove the {} from {square}", PieceName(piece)),
            Instruction::Remove {
                piece: None,
                square,
            } => write!(f, "remove the piece on {square}"),
            Instruction::Place { piece, square } => {
                write!(f, "put a {} on {square}", PieceName(piece))
            }
            Instruction::Check { piece, square } => {
                write!(f, "check the {} on {square}", PieceName(piece))
            }
        }
    }
}

impl Instruction {
    /// The holes as they are once the instruction is done.
    pub(crate) fn apply_to(&self, contents: &mut PegContents) {
        match *self {
            Instruction::Move { piece, from, to } | Instruction::Aside { piece, from, to } => {
                contents.set(from, None);
                contents.set(to, Some(Peg::Known(piece)));
            }
            Instruction::Remove { square, .. } => contents.set(square, None),
            Instruction::Place { piece, square } | Instruction::Check { piece, square } => {
                contents.set(square, Some(Peg::Known(piece)));
            }
        }
    }
}

/// The pairing of surplus pieces with missing squares, one kind at a time.
struct Pairing {
    /// (square, the known piece on it that must leave)
    surplus: Vec<(Square, Piece)>,
    /// (square, the piece it wants)
    missing: Vec<(Square, Piece)>,
    /// For each surplus piece, the missing square it moves to.
    to: Vec<Option<usize>>,
    /// For each missing square, the surplus piece that comes.
    from: Vec<Option<usize>>,
}

impl Pairing {
    fn new(surplus: Vec<(Square, Piece)>, missing: Vec<(Square, Piece)>) -> Pairing {
        let mut pairing = Pairing {
            to: vec![None; surplus.len()],
            from: vec![None; missing.len()],
            surplus,
            missing,
        };
        // As many moves as possible, the shortest in total; the cycles are opened after.
        let known: Vec<(Square, Option<Piece>)> = pairing
            .surplus
            .iter()
            .map(|&(sq, p)| (sq, Some(p)))
            .collect();
        for (i, j) in assign(&known, &pairing.missing) {
            pairing.to[i] = Some(j);
            pairing.from[j] = Some(i);
        }
        pairing
    }

    fn distance(&self, i: usize, j: usize) -> i64 {
        manhattan(self.surplus[i].0, self.missing[j].0)
    }

    /// The surplus pieces on each cycle of moves: the piece on a square goes where the next
    /// one stands, and the last one goes to the first one's square.
    fn cycles(&self) -> Vec<Vec<usize>> {
        let mut surplus_at = [None; 64];
        for (i, &(sq, _)) in self.surplus.iter().enumerate() {
            surplus_at[sq as usize] = Some(i);
        }
        // The surplus piece that stands on the square surplus piece `i` goes to.
        let next = |i: usize| self.to[i].and_then(|j| surplus_at[self.missing[j].0 as usize]);
        let mut seen = vec![false; self.surplus.len()];
        let mut cycles = Vec::new();
        for start in 0..self.surplus.len() {
            if seen[start] {
                continue;
            }
            let mut path = Vec::new();
            let mut at = Some(start);
            while let Some(i) = at {
                if seen[i] {
                    break;
                }
                seen[i] = true;
                path.push(i);
                at = next(i);
            }
            // A walk that ends on a piece of its own path closed a cycle from there on.
            if let Some(end) = at
                && let Some(pos) = path.iter().position(|&i| i == end)
            {
                cycles.push(path.split_off(pos));
            }
        }
        cycles
    }

    /// Opens or merges cycles while one shares a kind with anything outside it, each time with
    /// the exchange that lengthens the hand's way the least. Each exchange removes one cycle.
    fn open_cycles(&mut self) {
        loop {
            let cycles = self.cycles();
            let mut best: Option<(i64, Splice)> = None;
            for cycle in &cycles {
                for splice in self.splices(cycle) {
                    let cost = self.splice_cost(splice);
                    if best.is_none_or(|(c, _)| cost < c) {
                        best = Some((cost, splice));
                    }
                }
            }
            match best {
                Some((_, splice)) => self.splice(splice),
                None => return,
            }
        }
    }

    /// Every exchange that joins `cycle` to something of the same kind outside it.
    fn splices(&self, cycle: &[usize]) -> Vec<Splice> {
        let mut out = Vec::new();
        for &i in cycle {
            let Some(j) = self.to[i] else { continue };
            let piece = self.surplus[i].1;
            for (u, &(_, other)) in self.surplus.iter().enumerate() {
                if other != piece || cycle.contains(&u) {
                    continue;
                }
                out.push(match self.to[u] {
                    Some(v) => Splice::Exchange { i, j, u, v },
                    None => Splice::HandOver { i, j, u },
                });
            }
            for (v, &(_, wanted)) in self.missing.iter().enumerate() {
                if wanted == piece && self.from[v].is_none() {
                    out.push(Splice::Redirect { i, j, v });
                }
            }
        }
        out
    }

    fn splice_cost(&self, splice: Splice) -> i64 {
        let d = |i, j| self.distance(i, j);
        match splice {
            Splice::Exchange { i, j, u, v } => d(i, v) + d(u, j) - d(i, j) - d(u, v),
            Splice::HandOver { i, j, u } => d(u, j) - d(i, j),
            Splice::Redirect { i, j, v } => d(i, v) - d(i, j),
        }
    }

    fn splice(&mut self, splice: Splice) {
        match splice {
            Splice::Exchange { i, j, u, v } => {
                (self.to[i], self.to[u]) = (Some(v), Some(j));
                (self.from[v], self.from[j]) = (Some(i), Some(u));
            }
            Splice::HandOver { i, j, u } => {
                (self.to[i], self.to[u]) = (None, Some(j));
                self.from[j] = Some(u);
            }
            Splice::Redirect { i, j, v } => {
                self.to[i] = Some(v);
                (self.from[v], self.from[j]) = (Some(i), None);
            }
        }
    }
}

/// One exchange of destinations within a kind; `i` goes to `j` on a cycle.
#[derive(Debug, Clone, Copy)]
enum Splice {
    /// `u` goes to `v` elsewhere: `i` goes to `v` and `u` to `j`.
    Exchange {
        i: usize,
        j: usize,
        u: usize,
        v: usize,
    },
    /// `u` was to be removed: it goes to `j`, and `i` is removed instead.
    HandOver { i: usize, j: usize, u: usize },
    /// `v` was to be filled from the box: `i` goes there, and `j` is filled from the box.
    Redirect { i: usize, j: usize, v: usize },
}

/// The fewest hand actions that bring `contents` to `target`, in an order the player can follow
/// one at a time (each instruction possible when it is said). Pegs in the hand are not on the
/// board and take no part. Empty when the board already holds the target.
pub fn plan(contents: &PegContents, target: &Board) -> Vec<Instruction> {
    let mut surplus = Vec::new();
    let mut missing = Vec::new();
    let mut removals = Vec::new();
    let mut checks = Vec::new();
    for square in Square::ALL {
        let want = target.piece_at(square);
        match (contents.hole(square), want) {
            (None, None) => {}
            (Some(Peg::Known(have)), Some(want)) if have == want => {}
            (Some(Peg::Unknown), Some(piece)) => checks.push(Instruction::Check { piece, square }),
            (Some(Peg::Unknown), None) => removals.push((square, None)),
            (Some(Peg::Known(have)), want) => {
                surplus.push((square, have));
                if let Some(want) = want {
                    missing.push((square, want));
                }
            }
            (None, Some(want)) => missing.push((square, want)),
        }
    }
    let mut pairing = Pairing::new(surplus, missing);
    pairing.open_cycles();

    let mut moves = Vec::new();
    for (i, &(from, piece)) in pairing.surplus.iter().enumerate() {
        match pairing.to[i] {
            Some(j) => moves.push((piece, from, pairing.missing[j].0)),
            None => removals.push((from, Some(piece))),
        }
    }
    let places: Vec<(Square, Piece)> = pairing
        .missing
        .iter()
        .zip(&pairing.from)
        .filter(|(_, from)| from.is_none())
        .map(|(&m, _)| m)
        .collect();
    let mut schedule = Schedule {
        occupied: contents.occupancy(),
        target,
        removals,
        moves,
        places,
        out: Vec::new(),
    };
    schedule.run();
    let mut out = schedule.out;
    out.extend(checks);
    out.truncate(PLAN_LIMIT);
    out
}

/// The instructions in the order they are said, found by playing them on the holes.
struct Schedule<'a> {
    occupied: Bitboard,
    target: &'a Board,
    /// (square, piece if known)
    removals: Vec<(Square, Option<Piece>)>,
    /// (piece, from, to)
    moves: Vec<(Piece, Square, Square)>,
    /// (square, piece)
    places: Vec<(Square, Piece)>,
    out: Vec<Instruction>,
}

impl Schedule<'_> {
    /// The holes some pending instruction must put a piece into.
    fn needed(&self) -> Bitboard {
        let moved: Bitboard = self.moves.iter().map(|&(_, _, to)| to).collect();
        let placed: Bitboard = self.places.iter().map(|&(sq, _)| sq).collect();
        moved | placed
    }

    fn run(&mut self) {
        let mut freed: Option<Square> = None;
        // Where the hand was last: of two moves it may do next, the nearer.
        let mut hand = Square::A1;
        while self.out.len() < PLAN_LIMIT {
            let needed = self.needed();
            let instruction = self
                .continue_into(freed)
                .or_else(|| self.removal(needed))
                .or_else(|| self.ready_move(hand, |from| needed.contains(from)))
                .or_else(|| self.ready_move(hand, |_| true))
                .or_else(|| self.ready_place())
                .or_else(|| self.aside(needed));
            let Some(instruction) = instruction else {
                return;
            };
            hand = match instruction {
                Instruction::Move { to, .. } | Instruction::Aside { to, .. } => to,
                Instruction::Remove { square, .. }
                | Instruction::Place { square, .. }
                | Instruction::Check { square, .. } => square,
            };
            freed = match instruction {
                Instruction::Move { from, .. } | Instruction::Aside { from, .. } => Some(from),
                Instruction::Remove { square, .. } => Some(square),
                _ => None,
            };
            match instruction {
                Instruction::Move { from, to, .. } | Instruction::Aside { from, to, .. } => {
                    self.occupied.discard(from);
                    self.occupied.add(to);
                }
                Instruction::Remove { square, .. } => self.occupied.discard(square),
                Instruction::Place { square, .. } | Instruction::Check { square, .. } => {
                    self.occupied.add(square);
                }
            }
            self.out.push(instruction);
        }
    }

    /// The piece that goes into the hole the hand just emptied, if any.
    fn continue_into(&mut self, freed: Option<Square>) -> Option<Instruction> {
        let freed = freed?;
        if let Some(k) = self.moves.iter().position(|&(_, _, to)| to == freed) {
            let (piece, from, to) = self.moves.remove(k);
            return Some(Instruction::Move { piece, from, to });
        }
        let k = self.places.iter().position(|&(sq, _)| sq == freed)?;
        let (square, piece) = self.places.remove(k);
        Some(Instruction::Place { piece, square })
    }

    /// A removal, one that frees a needed hole first.
    fn removal(&mut self, needed: Bitboard) -> Option<Instruction> {
        let k = self
            .removals
            .iter()
            .enumerate()
            .min_by_key(|(_, (sq, _))| (!needed.contains(*sq), *sq))
            .map(|(k, _)| k)?;
        let (square, piece) = self.removals.remove(k);
        Some(Instruction::Remove { piece, square })
    }

    /// A move into an empty hole whose origin satisfies `prefer`, the one starting nearest
    /// the hand.
    fn ready_move(&mut self, hand: Square, prefer: impl Fn(Square) -> bool) -> Option<Instruction> {
        let k = self
            .moves
            .iter()
            .enumerate()
            .filter(|(_, (_, from, to))| !self.occupied.contains(*to) && prefer(*from))
            .min_by_key(|(_, (_, from, _))| (manhattan(hand, *from), *from))
            .map(|(k, _)| k)?;
        let (piece, from, to) = self.moves.remove(k);
        Some(Instruction::Move { piece, from, to })
    }

    fn ready_place(&mut self) -> Option<Instruction> {
        let k = self
            .places
            .iter()
            .position(|&(sq, _)| !self.occupied.contains(sq))?;
        let (square, piece) = self.places.remove(k);
        Some(Instruction::Place { piece, square })
    }

    /// Every pending move waits for a hole another pending move empties: they are cycles. One
    /// piece goes aside to the nearest hole nobody needs, and later on from there; with no such
    /// hole on the board, beside the board (removed, and placed later), at the same cost.
    fn aside(&mut self, needed: Bitboard) -> Option<Instruction> {
        let free = !(self.occupied | self.target.occupied() | needed);
        let (k, parking) = self
            .moves
            .iter()
            .enumerate()
            .map(|(k, &(_, from, _))| {
                let nearest = free.into_iter().min_by_key(|&sq| (manhattan(from, sq), sq));
                (k, nearest)
            })
            .min_by_key(|&(k, nearest)| {
                let from = self.moves[k].1;
                (nearest.map_or(i64::MAX, |sq| manhattan(from, sq)), from)
            })?;
        let (piece, from, to) = self.moves.remove(k);
        Some(match parking {
            Some(aside) => {
                self.moves.push((piece, aside, to));
                Instruction::Aside {
                    piece,
                    from,
                    to: aside,
                }
            }
            None => {
                self.places.push((to, piece));
                Instruction::Remove {
                    piece: Some(piece),
                    square: from,
                }
            }
        })
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

    /// Plays `plan` on `contents` checking each instruction is possible when it is said.
    fn follow(contents: &PegContents, plan: &[Instruction]) -> PegContents {
        let mut c = contents.clone();
        for i in plan {
            match *i {
                Instruction::Move { piece, from, to } | Instruction::Aside { piece, from, to } => {
                    assert_eq!(c.hole(from), Some(Peg::Known(piece)), "{i:?}");
                    assert_eq!(c.hole(to), None, "{i:?}");
                }
                Instruction::Remove { piece, square } => {
                    assert_eq!(c.hole(square), Some(piece.map_or(Peg::Unknown, Peg::Known)));
                }
                Instruction::Place { square, .. } => assert_eq!(c.hole(square), None, "{i:?}"),
                Instruction::Check { square, .. } => {
                    assert_eq!(c.hole(square), Some(Peg::Unknown), "{i:?}");
                }
            }
            i.apply_to(&mut c);
        }
        c
    }

    #[test]
    fn instructions_read_in_english() {
        let check = Instruction::Check {
            piece: Color::Black.queen(),
            square: Square::D8,
        };
        assert_eq!(check.to_string(), "check the black queen on d8");
        let aside = Instruction::Aside {
            piece: Color::White.knight(),
            from: Square::G1,
            to: Square::H3,
        };
        assert_eq!(
            aside.to_string(),
            "move the white knight from g1 to h3 for now"
        );
    }

    #[test]
    fn nothing_to_do_is_an_empty_plan() {
        let start = Board::new();
        assert!(plan(&PegContents::from_board(&start), &start).is_empty());
    }

    #[test]
    fn a_swap_puts_one_piece_aside() {
        let target = board("4k3/8/8/8/8/8/8/4KBN1 w - - 0 1");
        let seen = PegContents::from_board(&board("4k3/8/8/8/8/8/8/4KNB1 w - - 0 1"));
        let p = plan(&seen, &target);
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(matches!(p[0], Instruction::Aside { .. }), "{p:?}");
        assert!(follow(&seen, &p).holds(&target));
    }

    #[test]
    fn a_swap_next_to_a_spare_piece_of_its_kind_needs_no_aside() {
        // Bishop and knight swapped on f1/g1, and a second white knight on h3 that must go:
        // the knight on f1 is removed, the bishop goes to f1 and the h3 knight to g1.
        let target = board("4k3/8/8/8/8/8/8/4KBN1 w - - 0 1");
        let seen = PegContents::from_board(&board("4k3/8/8/8/8/7N/8/4KNB1 w - - 0 1"));
        let p = plan(&seen, &target);
        // Knights: surplus f1, h3; missing g1 → 2. Bishops: surplus g1, missing f1 → 1.
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(
            !p.iter().any(|i| matches!(i, Instruction::Aside { .. })),
            "{p:?}"
        );
        assert!(follow(&seen, &p).holds(&target));
    }

    #[test]
    fn a_three_cycle_costs_one_extra() {
        // Three kinds rotated over f1, g1 and h1, nothing else to do: one piece goes aside.
        let target = board("4k3/8/8/8/8/8/8/4KBNR w - - 0 1");
        let seen = PegContents::from_board(&board("4k3/8/8/8/8/8/8/4KNRB w - - 0 1"));
        let p = plan(&seen, &target);
        assert_eq!(p.len(), 4, "{p:?}");
        assert!(follow(&seen, &p).holds(&target));
    }

    #[test]
    fn unknown_pegs_are_checked_last_or_removed() {
        let target = board("4k3/8/8/8/8/8/8/4K1N1 w - - 0 1");
        let mut seen = PegContents::from_occupancy(
            Bitboard::from(Square::E8) | Bitboard::from(Square::E1) | Bitboard::from(Square::A5),
        );
        seen.set(Square::E1, Some(Peg::Known(Color::White.king())));
        let p = plan(&seen, &target);
        assert_eq!(
            p,
            vec![
                Instruction::Remove {
                    piece: None,
                    square: Square::A5
                },
                Instruction::Place {
                    piece: Color::White.knight(),
                    square: Square::G1
                },
                Instruction::Check {
                    piece: Color::Black.king(),
                    square: Square::E8
                },
            ]
        );
        assert!(follow(&seen, &p).holds(&target));
    }

    #[test]
    fn the_hand_continues_into_the_hole_it_freed() {
        // A chain: the rook on a1 goes to a2, the pawn on a2 to a3, the pawn's a3 is empty.
        let target = board("4k3/8/8/8/8/P7/R7/4K3 w - - 0 1");
        let seen = PegContents::from_board(&board("4k3/8/8/8/8/8/P7/R3K3 w - - 0 1"));
        let p = plan(&seen, &target);
        assert_eq!(
            p,
            vec![
                Instruction::Move {
                    piece: Color::White.pawn(),
                    from: Square::A2,
                    to: Square::A3
                },
                Instruction::Move {
                    piece: Color::White.rook(),
                    from: Square::A1,
                    to: Square::A2
                },
            ]
        );
    }

    #[test]
    fn a_full_board_with_no_free_hole_sets_aside_beside_the_board() {
        // Every hole full in both: a swap of two pieces can only go through the box.
        let mut full = Board::empty();
        for sq in Square::ALL {
            full.set_piece_at(sq, Color::White.pawn());
        }
        full.set_piece_at(Square::A1, Color::White.rook());
        full.set_piece_at(Square::B1, Color::White.knight());
        let mut seen = full.clone();
        seen.set_piece_at(Square::A1, Color::White.knight());
        seen.set_piece_at(Square::B1, Color::White.rook());
        let seen = PegContents::from_board(&seen);
        let p = plan(&seen, &full);
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(matches!(p[0], Instruction::Remove { piece: Some(_), .. }));
        assert!(matches!(p[2], Instruction::Place { .. }));
        assert!(follow(&seen, &p).holds(&full));
    }
}
