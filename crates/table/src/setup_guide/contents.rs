//! What the desk believes the shared peg board holds: each hole empty, a known piece, or a peg
//! whose piece nobody knows, and the pegs in the player's hand, followed through the board's
//! sensor events.
//!
//! A peg board reports only *where* pegs are ([`SensorEvent::Lift`], [`SensorEvent::Place`],
//! [`SensorEvent::Occupancy`]), never *which* piece a peg carries. The pieces are known by
//! following the hands: a lifted peg is in the hand, and the peg put down next is the one
//! lifted last. What cannot be followed (a peg put down with an empty hand, a hole that filled
//! between two snapshots) is [`Peg::Unknown`], and the set-up guidance asks the player to check
//! it.

use shakmaty::{Bitboard, Board, Piece, Square};

use annabella_boards::SensorEvent;

/// How many pegs the player can be followed holding at once; a further lift forgets the one
/// held longest (a hand holds a few pieces, and a stuck sensor must not grow a list).
pub const HAND_LIMIT: usize = 8;

/// What stands in an occupied hole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Peg {
    /// A piece the desk followed there.
    Known(Piece),
    /// A peg whose piece nobody knows (a board never confirmed, a peg put down from nowhere).
    Unknown,
}

/// The desk's belief about the peg board: every hole, and the pegs in the player's hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PegContents {
    holes: [Option<Peg>; 64],
    /// The lifted pegs, the last lifted at the end; at most [`HAND_LIMIT`].
    hand: Vec<Peg>,
}

impl Default for PegContents {
    fn default() -> Self {
        PegContents::empty()
    }
}

impl PegContents {
    /// An empty board, nothing in the hand.
    pub fn empty() -> PegContents {
        PegContents {
            holes: [None; 64],
            hand: Vec::new(),
        }
    }

    /// A board known piece by piece (the position the player last set up and confirmed).
    pub fn from_board(board: &Board) -> PegContents {
        let mut contents = PegContents::empty();
        for (square, piece) in board {
            contents.holes[square as usize] = Some(Peg::Known(piece));
        }
        contents
    }

    /// A board seen only as occupied holes (a snapshot of a board never confirmed): every peg
    /// unknown.
    pub fn from_occupancy(occupied: Bitboard) -> PegContents {
        PegContents::from_parts(&Board::empty(), occupied)
    }

    /// The pieces of `known`, and an unknown peg on every hole of `unknown` (whatever `known`
    /// has there): a belief restored from [`PegContents::known`] and [`PegContents::unknown`].
    pub fn from_parts(known: &Board, unknown: Bitboard) -> PegContents {
        let mut contents = PegContents::from_board(known);
        for square in unknown {
            contents.holes[square as usize] = Some(Peg::Unknown);
        }
        contents
    }

    /// The known pieces, without the unknown pegs.
    pub fn known(&self) -> Board {
        let mut board = Board::empty();
        for square in Square::ALL {
            if let Some(Peg::Known(piece)) = self.holes[square as usize] {
                board.set_piece_at(square, piece);
            }
        }
        board
    }

    /// What stands on `square`.
    pub fn hole(&self, square: Square) -> Option<Peg> {
        self.holes[square as usize]
    }

    /// The occupied holes, as the board's sensors would report them.
    pub fn occupancy(&self) -> Bitboard {
        self.squares_where(|peg| peg.is_some())
    }

    /// The holes whose peg nobody knows.
    pub fn unknown(&self) -> Bitboard {
        self.squares_where(|peg| peg == Some(Peg::Unknown))
    }

    fn squares_where(&self, keep: impl Fn(Option<Peg>) -> bool) -> Bitboard {
        Square::ALL
            .into_iter()
            .filter(|&sq| keep(self.holes[sq as usize]))
            .collect()
    }

    /// The pegs in the player's hand, the last lifted at the end.
    pub fn held(&self) -> &[Peg] {
        &self.hand
    }

    /// The board as pieces, when no hole holds an unknown peg.
    pub fn board_if_all_known(&self) -> Option<Board> {
        self.unknown().is_empty().then(|| self.known())
    }

    /// Whether the board holds exactly `target`: the same holes occupied, every peg known and
    /// the piece the target has there.
    pub fn holds(&self, target: &Board) -> bool {
        Square::ALL
            .into_iter()
            .all(|sq| self.holes[sq as usize] == target.piece_at(sq).map(Peg::Known))
    }

    /// Follows one sensor event: a lift takes the peg into the hand, a place puts the last
    /// lifted peg down (an unknown one when the hand is empty), a snapshot reconciles.
    /// Events that carry no hole (keys, identity, clocks) change nothing.
    pub fn observe(&mut self, event: &SensorEvent) {
        match event {
            SensorEvent::Lift(square) => {
                // A lift from a hole believed empty means a peg the desk did not know of.
                let peg = self.holes[*square as usize].take().unwrap_or(Peg::Unknown);
                if self.hand.len() >= HAND_LIMIT {
                    self.hand.remove(0);
                }
                self.hand.push(peg);
            }
            SensorEvent::Place(square) => {
                // A place into a hole believed full: the peg believed there was gone.
                let peg = self.hand.pop().unwrap_or(Peg::Unknown);
                self.holes[*square as usize] = Some(peg);
            }
            SensorEvent::Occupancy(occupied) => self.reconcile(*occupied),
            SensorEvent::Pieces(board) => *self = PegContents::from_board(board),
            SensorEvent::SquareChanged { square, piece } => {
                self.holes[*square as usize] = piece.map(Peg::Known);
            }
            SensorEvent::Key(_) | SensorEvent::Identity(_) | SensorEvent::Clock(_) => {}
        }
    }

    /// A snapshot: holes that emptied lose their peg; holes that filled hold what the hand held
    /// when that explains it (one hole, one peg in the hand: a missed place), otherwise an
    /// unknown peg each, and as many pegs leave the hand (they went down somewhere).
    fn reconcile(&mut self, occupied: Bitboard) {
        let believed = self.occupancy();
        for square in believed & !occupied {
            self.holes[square as usize] = None;
        }
        let filled = occupied & !believed;
        if filled.count() == 1 && self.hand.len() == 1 {
            if let (Some(square), Some(peg)) = (filled.first(), self.hand.pop()) {
                self.holes[square as usize] = Some(peg);
            }
            return;
        }
        for square in filled {
            self.holes[square as usize] = Some(Peg::Unknown);
            self.hand.pop();
        }
    }

    /// Sets what stands on `square`: the guide knows more than the sensors when the player
    /// follows an instruction (a piece placed from the box, a peg checked by feel).
    pub(crate) fn set(&mut self, square: Square, peg: Option<Peg>) {
        self.holes[square as usize] = peg;
    }

    /// The last lifted peg left the hand without touching the board (into the box).
    pub(crate) fn drop_held(&mut self) -> Option<Peg> {
        self.hand.pop()
    }

    /// The hand is taken as empty (pegs held were put aside where no sensor saw them).
    pub(crate) fn empty_hand(&mut self) {
        self.hand.clear();
    }

    /// The holes alone, for comparing two beliefs regardless of the hand.
    pub(crate) fn same_holes(&self, other: &PegContents) -> bool {
        self.holes == other.holes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Color;

    #[test]
    fn a_lifted_peg_goes_where_it_is_put_down() {
        let mut c = PegContents::from_board(&Board::new());
        c.observe(&SensorEvent::Lift(Square::G1));
        assert_eq!(c.held(), &[Peg::Known(Color::White.knight())]);
        c.observe(&SensorEvent::Place(Square::F3));
        assert_eq!(c.hole(Square::F3), Some(Peg::Known(Color::White.knight())));
        assert_eq!(c.hole(Square::G1), None);
        assert!(c.held().is_empty());
        assert!(c.board_if_all_known().is_some());
    }

    #[test]
    fn a_peg_from_nowhere_is_unknown_and_the_hand_is_a_stack() {
        let mut c = PegContents::from_board(&Board::new());
        c.observe(&SensorEvent::Place(Square::E4));
        assert_eq!(c.hole(Square::E4), Some(Peg::Unknown));
        assert_eq!(c.board_if_all_known(), None);
        // Two pegs held: the one lifted last goes down first.
        c.observe(&SensorEvent::Lift(Square::B1));
        c.observe(&SensorEvent::Lift(Square::C1));
        c.observe(&SensorEvent::Place(Square::C3));
        c.observe(&SensorEvent::Place(Square::D3));
        assert_eq!(c.hole(Square::C3), Some(Peg::Known(Color::White.bishop())));
        assert_eq!(c.hole(Square::D3), Some(Peg::Known(Color::White.knight())));
    }

    #[test]
    fn the_hand_is_bounded() {
        let mut c = PegContents::from_board(&Board::new());
        for sq in Bitboard::from_rank(shakmaty::Rank::First) | Bitboard::from(Square::A2) {
            c.observe(&SensorEvent::Lift(sq));
        }
        assert_eq!(c.held().len(), HAND_LIMIT);
        // The rook from a1 was forgotten; the last lifted (a2) is on top.
        assert_eq!(c.held().last(), Some(&Peg::Known(Color::White.pawn())));
    }

    #[test]
    fn a_snapshot_empties_and_fills_holes() {
        let mut c = PegContents::from_board(&Board::new());
        let occ =
            Board::new().occupied() & !Bitboard::from(Square::E2) | Bitboard::from(Square::E4);
        // A lift was seen, the place was missed: the one held peg is the one that appeared.
        c.observe(&SensorEvent::Lift(Square::E2));
        c.observe(&SensorEvent::Occupancy(occ));
        assert_eq!(c.hole(Square::E4), Some(Peg::Known(Color::White.pawn())));
        assert!(c.held().is_empty());
        // Nothing seen at all: two holes changed, the new one is unknown.
        let occ2 = occ & !Bitboard::from(Square::D2) | Bitboard::from(Square::D4);
        c.observe(&SensorEvent::Occupancy(occ2));
        assert_eq!(c.hole(Square::D2), None);
        assert_eq!(c.hole(Square::D4), Some(Peg::Unknown));
        assert_eq!(c.occupancy(), occ2);
        assert_eq!(c.unknown(), Bitboard::from(Square::D4));
    }

    #[test]
    fn from_occupancy_knows_no_piece() {
        let c = PegContents::from_occupancy(Board::new().occupied());
        assert_eq!(c.unknown(), Board::new().occupied());
        assert!(!c.holds(&Board::new()));
        let start = PegContents::from_board(&Board::new());
        let restored = PegContents::from_parts(&c.known(), c.unknown());
        assert_eq!(restored, c);
        assert_eq!(
            PegContents::from_parts(&start.known(), start.unknown()),
            start
        );
        assert!(PegContents::from_board(&Board::new()).holds(&Board::new()));
    }
}
