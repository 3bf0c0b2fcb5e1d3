//! The set-up guidance on the shared peg board (issue 12): the planner's count against a
//! breadth-first search over every sequence of hand actions on small boards, and a scripted
//! player who follows the instructions one at a time through the board's sensor events, from
//! scrambled boards, from the starting position and from another game's position, and who
//! sometimes does something else.

use std::collections::{HashMap, VecDeque};

use annabella::boards::SensorEvent;
use annabella::chess::language::Language;
use annabella::table::setup_guide::{
    Instruction, PLAN_LIMIT, Peg, PegContents, Progress, SetupGuide, instruction_phrase, plan,
    steps_phrase,
};
use proptest::prelude::*;
use shakmaty::san::San;
use shakmaty::{Bitboard, Board, Chess, Color, Piece, Position, Square};

/// The position after `moves` (SAN, move numbers allowed) from the start.
fn after(moves: &str) -> Board {
    let mut pos = Chess::default();
    for word in moves.split_whitespace() {
        if word.ends_with('.') {
            continue;
        }
        let san: San = word.parse().unwrap_or_else(|_| panic!("{word}"));
        let m = san.to_move(&pos).unwrap_or_else(|_| panic!("{word}"));
        pos.play_unchecked(m);
    }
    pos.board().clone()
}

/// Morphy v the Duke of Brunswick and Count Isouard, Paris 1858, after 9...b5.
const OPERA: &str = "1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 \
                     7. Qb3 Qe7 8. Nc3 c6 9. Bg5 b5";
/// Anderssen v Kieseritzky, London 1851, after 9...c6.
const IMMORTAL: &str = "1. e4 e5 2. f4 exf4 3. Bc4 Qh4+ 4. Kf1 b5 5. Bxb5 Nf6 6. Nf3 Qh6 \
                        7. d3 Nh5 8. Nh4 Qg5 9. Nf5 c6";

/// A player with the real pieces (`truth`) who does what he is told, as the sensors see it.
struct Player {
    truth: Board,
}

impl Player {
    /// The sensor events of one instruction, carried out on the real board. A check replaces
    /// a wrong piece by the right one (lift, put down: the same events).
    fn carry_out(&mut self, i: Instruction) -> Vec<SensorEvent> {
        match i {
            Instruction::Move { piece, from, to } | Instruction::Aside { piece, from, to } => {
                assert_eq!(self.truth.piece_at(from), Some(piece), "{i:?}");
                assert_eq!(self.truth.piece_at(to), None, "{i:?}");
                self.truth.discard_piece_at(from);
                self.truth.set_piece_at(to, piece);
                vec![SensorEvent::Lift(from), SensorEvent::Place(to)]
            }
            Instruction::Remove { piece, square } => {
                let there = self.truth.remove_piece_at(square);
                assert!(there.is_some(), "{i:?}");
                if piece.is_some() {
                    assert_eq!(there, piece, "{i:?}");
                }
                vec![SensorEvent::Lift(square)]
            }
            Instruction::Place { piece, square } => {
                assert_eq!(self.truth.piece_at(square), None, "{i:?}");
                self.truth.set_piece_at(square, piece);
                vec![SensorEvent::Place(square)]
            }
            Instruction::Check { piece, square } => {
                assert!(self.truth.piece_at(square).is_some(), "{i:?}");
                self.truth.set_piece_at(square, piece);
                vec![SensorEvent::Lift(square), SensorEvent::Place(square)]
            }
        }
    }
}

/// Follows the guide from `first` to the end: every event but an instruction's last is
/// `Pending`, the last gives the next instruction or `Done`. The instructions said, in order.
fn follow(
    guide: &mut SetupGuide,
    player: &mut Player,
    first: Option<Instruction>,
) -> Vec<Instruction> {
    let mut said = Vec::new();
    let mut current = first;
    while let Some(i) = current {
        said.push(i);
        assert!(said.len() <= PLAN_LIMIT, "no end: {said:?}");
        let events = player.carry_out(i);
        let (last, before) = events.split_last().unwrap();
        for e in before {
            assert_eq!(guide.observe(e), Progress::Pending, "{i:?} {e:?}");
        }
        current = match guide.observe(last) {
            Progress::Next(next) => Some(next),
            Progress::Done => None,
            other => panic!("{i:?} done, but {other:?}"),
        };
    }
    assert!(guide.is_done());
    assert_eq!(guide.current(), None);
    said
}

/// Guides from `contents` (the desk's belief) to `target` with a player holding `truth`;
/// checks that the player ends with the target and that exactly the planned number of
/// instructions was said. That number.
fn set_up(contents: PegContents, truth: Board, target: &Board) -> usize {
    let planned = plan(&contents, target).len();
    let (mut guide, first) = SetupGuide::new(contents, target.clone());
    assert_eq!(guide.remaining(), planned);
    let mut player = Player { truth };
    let said = follow(&mut guide, &mut player, first);
    assert_eq!(&player.truth, target);
    assert_eq!(guide.contents().board_if_all_known().as_ref(), Some(target));
    assert_eq!(said.len(), planned, "{said:?}");
    planned
}

#[test]
fn start_to_the_opera_game_after_nine_moves() {
    // White: pawns d2, e2 leave, e4 fills (2); knights b1, g1 leave, c3 fills (2); bishops
    // c1, f1 to c4, g5 (2); queen d1 to b3 (1). Black: pawns b7, c7, d7, e7 leave, b5, c6,
    // e5 fill (4); knight g8 to f6 (1); bishop c8 leaves (1); queen d8 to e7 (1). The only
    // hole that both loses and gains a piece is e7 (pawn off, queen on), and pawns have more
    // to remove than to fill: no cycle. 14 hand actions.
    let start = Board::new();
    let opera = after(OPERA);
    assert_eq!(
        set_up(PegContents::from_board(&start), start.clone(), &opera),
        14
    );
}

#[test]
fn one_game_to_another() {
    // Opera (after 9...b5) to the Immortal (after 9...c6). White: king e1–f1 (1), queen
    // b3–d1 (1), bishops c4, g5 to b5, c1 (2), knight c3 leaves, b1 and f5 fill (2), pawn
    // f2–d3 (1). Black: queen e7–g5 (1), bishop to c8 (1), knight f6–h5 (1), pawns b5, e5 to
    // d7, f4 (2). Holes both emptied and filled: b5 (black pawn for a white bishop) and g5
    // (white bishop for the black queen), in a chain that ends at bishops with holes to
    // spare: no cycle. 12 both ways.
    let opera = after(OPERA);
    let immortal = after(IMMORTAL);
    assert_eq!(
        set_up(PegContents::from_board(&opera), opera.clone(), &immortal),
        12
    );
    assert_eq!(
        set_up(PegContents::from_board(&immortal), immortal.clone(), &opera),
        12
    );
}

#[test]
fn a_board_never_confirmed_is_checked_or_taken_as_it_is() {
    let start = Board::new();
    // Every peg unknown, all in the right holes: one check each.
    let pegs = PegContents::from_occupancy(start.occupied());
    assert_eq!(set_up(pegs.clone(), start.clone(), &start), 32);
    // The set-up key takes them as they are.
    let (mut guide, first) = SetupGuide::new(pegs, start.clone());
    assert!(matches!(first, Some(Instruction::Check { .. })));
    assert_eq!(guide.accept_as_is(), Ok(()));
    assert!(guide.is_done());
    assert_eq!(guide.current(), None);
    // Not while the holes differ: the count of differing holes, and the guidance goes on.
    let pegs = PegContents::from_occupancy(
        start.occupied() & !Bitboard::from(Square::E2) | Bitboard::from(Square::E4),
    );
    let (mut guide, _) = SetupGuide::new(pegs, start.clone());
    assert_eq!(guide.accept_as_is().map_err(|d| d.holes), Err(2));
    assert!(!guide.is_done());
}

#[test]
fn a_peg_on_the_wrong_square_is_planned_again() {
    let start = Board::new();
    let opera = after(OPERA);
    let (mut guide, first) = SetupGuide::new(PegContents::from_board(&start), opera.clone());
    let mut player = Player {
        truth: start.clone(),
    };
    // He follows the removals; the first move he gets wrong.
    let mut current = first;
    let mut said = 0;
    let (piece, from, to) = loop {
        match current {
            Some(Instruction::Move { piece, from, to }) => break (piece, from, to),
            Some(i) => {
                said += 1;
                let events = player.carry_out(i);
                let progress: Vec<Progress> = events.iter().map(|e| guide.observe(e)).collect();
                let Some(&Progress::Next(next)) = progress.last() else {
                    panic!("{i:?}: {progress:?}")
                };
                current = Some(next);
            }
            None => panic!("no move to set up the Opera game"),
        }
    };
    let left = guide.remaining();
    assert_eq!(said + left, 14);
    // Lifted and put back: nothing happened.
    assert_eq!(guide.observe(&SensorEvent::Lift(from)), Progress::Pending);
    assert_eq!(guide.observe(&SensorEvent::Place(from)), Progress::Pending);
    assert_eq!(guide.current(), current);
    // Put on a hole empty in both positions.
    let wrong = [Square::A4, Square::H4, Square::A5, Square::H5]
        .into_iter()
        .find(|&sq| sq != to && player.truth.piece_at(sq).is_none() && opera.piece_at(sq).is_none())
        .unwrap();
    assert_eq!(guide.observe(&SensorEvent::Lift(from)), Progress::Pending);
    let progress = guide.observe(&SensorEvent::Place(wrong));
    player.truth.discard_piece_at(from);
    player.truth.set_piece_at(wrong, piece);
    let Progress::Replanned(again) = progress else {
        panic!("{progress:?}")
    };
    // The desk followed the hand: the piece is known on the wrong hole and goes on from there,
    // in as many actions as were left.
    assert_eq!(guide.contents().hole(wrong), Some(Peg::Known(piece)));
    assert_eq!(guide.remaining(), left);
    assert_eq!(follow(&mut guide, &mut player, Some(again)).len(), left);
    assert_eq!(player.truth, opera);
}

#[test]
fn a_piece_from_the_box_on_the_wrong_hole_is_removed_again() {
    // From an empty board: every piece from the box. The first goes on a wrong hole.
    let start = Board::new();
    let (mut guide, first) = SetupGuide::new(PegContents::empty(), start.clone());
    assert_eq!(guide.remaining(), 32);
    let Some(Instruction::Place { .. }) = first else {
        panic!("{first:?}")
    };
    let progress = guide.observe(&SensorEvent::Place(Square::E4));
    let Progress::Replanned(again) = progress else {
        panic!("{progress:?}")
    };
    // Nobody knows what he put there: it must come off, then the 32 placements.
    assert_eq!(guide.contents().hole(Square::E4), Some(Peg::Unknown));
    assert_eq!(
        again,
        Instruction::Remove {
            piece: None,
            square: Square::E4
        }
    );
    assert_eq!(guide.remaining(), 33);
    let mut truth = Board::empty();
    truth.set_piece_at(Square::E4, Color::White.queen());
    let mut player = Player { truth };
    assert_eq!(follow(&mut guide, &mut player, Some(again)).len(), 33);
    assert_eq!(player.truth, start);
}

#[test]
fn a_removed_piece_put_back_is_still_known() {
    // One pawn too many: removed, put back into its hole, then removed for good.
    let start = Board::new();
    let mut extra = start.clone();
    extra.set_piece_at(Square::E4, Color::White.pawn());
    let (mut guide, first) = SetupGuide::new(PegContents::from_board(&extra), start.clone());
    assert_eq!(
        first,
        Some(Instruction::Remove {
            piece: Some(Color::White.pawn()),
            square: Square::E4
        })
    );
    assert_eq!(
        guide.observe(&SensorEvent::Lift(Square::E4)),
        Progress::Done
    );
    // The pawn went into the box: the hand is empty for the game's first move.
    assert!(guide.contents().held().is_empty());
    let progress = guide.observe(&SensorEvent::Place(Square::E4));
    assert_eq!(progress, Progress::Replanned(first.unwrap()));
    assert_eq!(
        guide.contents().hole(Square::E4),
        Some(Peg::Known(Color::White.pawn()))
    );
    assert_eq!(
        guide.observe(&SensorEvent::Lift(Square::E4)),
        Progress::Done
    );
}

#[test]
fn a_snapshot_that_shows_the_instruction_done_moves_on() {
    // The lift and place were missed; the board's snapshot shows the knight moved.
    let start = Board::new();
    let target = after("1. Nf3");
    let (mut guide, first) = SetupGuide::new(PegContents::from_board(&start), target.clone());
    assert_eq!(
        first,
        Some(Instruction::Move {
            piece: Color::White.knight(),
            from: Square::G1,
            to: Square::F3
        })
    );
    assert_eq!(
        guide.observe(&SensorEvent::Lift(Square::G1)),
        Progress::Pending
    );
    // The place was missed; the snapshot shows where the peg went: the one held.
    assert_eq!(
        guide.observe(&SensorEvent::Occupancy(target.occupied())),
        Progress::Done
    );
}

#[test]
fn the_first_instruction_in_words() {
    let de = Language::german().vocabulary();
    let (guide, first) = SetupGuide::new(PegContents::from_board(&Board::new()), after("1. Nf3"));
    assert_eq!(steps_phrase(guide.remaining(), de), "ein Handgriff");
    assert_eq!(
        instruction_phrase(&first.unwrap(), de),
        "Springer von Gustav eins nach Felix drei"
    );
    let (guide, _) = SetupGuide::new(PegContents::from_board(&Board::new()), after(OPERA));
    assert_eq!(steps_phrase(guide.remaining(), de), "vierzehn Handgriffe");
}

// ---------------------------------------------------------------------------------------------
// The planner against a breadth-first search over every sequence of hand actions.

/// The holes of the small boards: a corner of six.
const REGION: [Square; 6] = [
    Square::A1,
    Square::B1,
    Square::C1,
    Square::A2,
    Square::B2,
    Square::C2,
];

/// Three kinds, interchangeable within a kind.
fn kinds() -> [Piece; 3] {
    [
        Color::White.knight(),
        Color::White.bishop(),
        Color::Black.pawn(),
    ]
}

/// A hole of a small board: 0 empty, 1 an unknown peg, 2 + k a piece of kind k.
type Holes = [u8; 6];

fn peg_code(peg: Option<Peg>) -> u8 {
    match peg {
        None => 0,
        Some(Peg::Unknown) => 1,
        Some(Peg::Known(p)) => 2 + kinds().iter().position(|&k| k == p).unwrap() as u8,
    }
}

/// The fewest hand actions from `start` to `target` (which has no unknown pegs): a lift and
/// put-down elsewhere, a removal, a piece from the box, or a check of an unknown peg where the
/// target wants a piece (it becomes that piece). A piece put aside beside the board is a
/// removal and a placement, which costs what a move aside and back costs.
fn fewest_actions(start: Holes, target: Holes) -> usize {
    let mut dist: HashMap<Holes, usize> = HashMap::from([(start, 0)]);
    let mut queue = VecDeque::from([start]);
    while let Some(h) = queue.pop_front() {
        let d = dist[&h];
        if h == target {
            return d;
        }
        let mut next = Vec::new();
        for s in 0..6 {
            if h[s] == 0 {
                for k in 0..3 {
                    let mut n = h;
                    n[s] = 2 + k;
                    next.push(n);
                }
                continue;
            }
            let mut n = h;
            n[s] = 0;
            next.push(n);
            for t in (0..6).filter(|&t| h[t] == 0) {
                let mut n = h;
                n[t] = h[s];
                n[s] = 0;
                next.push(n);
            }
            if h[s] == 1 && target[s] != 0 {
                let mut n = h;
                n[s] = target[s];
                next.push(n);
            }
        }
        for n in next {
            if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(n) {
                e.insert(d + 1);
                queue.push_back(n);
            }
        }
    }
    unreachable!("every board can be emptied and filled")
}

#[test]
fn the_search_counts_a_piece_put_aside_for_a_cycle() {
    // Knight and bishop on each other's holes: three actions, as the planner says.
    let (n, b) = (2, 3);
    assert_eq!(fewest_actions([n, b, 0, 0, 0, 0], [b, n, 0, 0, 0, 0]), 3);
    // Three kinds rotated over three holes: four.
    assert_eq!(fewest_actions([2, 3, 4, 0, 0, 0], [3, 4, 2, 0, 0, 0]), 4);
    // With a spare knight to take away, the swap needs no aside.
    assert_eq!(fewest_actions([n, b, n, 0, 0, 0], [b, n, 0, 0, 0, 0]), 3);
    let mut target = Board::empty();
    target.set_piece_at(Square::A1, kinds()[1]);
    target.set_piece_at(Square::B1, kinds()[0]);
    let mut swapped = Board::empty();
    swapped.set_piece_at(Square::A1, kinds()[0]);
    swapped.set_piece_at(Square::B1, kinds()[1]);
    assert_eq!(plan(&PegContents::from_board(&swapped), &target).len(), 3);
}

fn small_board() -> impl Strategy<Value = (PegContents, Board, Board)> {
    // Each hole: empty, an unknown peg or one of the kinds now; empty or a kind wanted. An
    // unknown peg is really a piece of any kind.
    (
        proptest::collection::vec((0u8..5, 0usize..3), 6),
        proptest::collection::vec(prop_oneof![Just(0u8), 2u8..5], 6),
    )
        .prop_map(|(now, want)| {
            let mut truth = Board::empty();
            let mut unknown = Bitboard::EMPTY;
            let mut target = Board::empty();
            for (i, &sq) in REGION.iter().enumerate() {
                match now[i] {
                    (0, _) => {}
                    (1, really) => {
                        truth.set_piece_at(sq, kinds()[really]);
                        unknown.add(sq);
                    }
                    (k, _) => truth.set_piece_at(sq, kinds()[usize::from(k - 2)]),
                }
                if want[i] != 0 {
                    target.set_piece_at(sq, kinds()[usize::from(want[i] - 2)]);
                }
            }
            (PegContents::from_parts(&truth, unknown), truth, target)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The planner needs exactly as many hand actions as the best sequence there is, and its
    /// instructions, followed one at a time through the sensors, set the position up.
    #[test]
    fn the_plan_is_as_short_as_any(board in small_board()) {
        let (contents, truth, target) = board;
        let holes: Holes = std::array::from_fn(|i| peg_code(contents.hole(REGION[i])));
        let want: Holes = std::array::from_fn(|i| peg_code(target.piece_at(REGION[i]).map(Peg::Known)));
        let best = fewest_actions(holes, want);
        let planned = plan(&contents, &target);
        prop_assert_eq!(planned.len(), best, "{:?}", planned);
        prop_assert_eq!(set_up(contents, truth, &target), best);
    }
}

// ---------------------------------------------------------------------------------------------
// Scrambled boards: a real game's position, pieces removed, added, swapped and moved, and some
// pegs that the desk did not see come (unknown).

#[derive(Debug, Clone)]
enum Scramble {
    /// Take off the piece on the n-th occupied hole.
    Remove(usize),
    /// Put a piece (kind index) on the n-th empty hole.
    Add(usize, usize),
    /// Exchange the pieces on two occupied holes.
    Swap(usize, usize),
    /// Move the n-th occupied hole's piece to the m-th empty hole.
    Move(usize, usize),
}

const ALL_PIECES: [(Color, shakmaty::Role); 12] = {
    use shakmaty::Role::*;
    [
        (Color::White, Pawn),
        (Color::White, Knight),
        (Color::White, Bishop),
        (Color::White, Rook),
        (Color::White, Queen),
        (Color::White, King),
        (Color::Black, Pawn),
        (Color::Black, Knight),
        (Color::Black, Bishop),
        (Color::Black, Rook),
        (Color::Black, Queen),
        (Color::Black, King),
    ]
};

fn nth(bb: Bitboard, n: usize) -> Option<Square> {
    let count = bb.count();
    (count > 0).then(|| bb.into_iter().nth(n % count)).flatten()
}

fn scramble(board: &Board, ops: &[Scramble]) -> Board {
    let mut b = board.clone();
    for op in ops {
        match *op {
            Scramble::Remove(n) => {
                if let Some(sq) = nth(b.occupied(), n) {
                    b.discard_piece_at(sq);
                }
            }
            Scramble::Add(n, k) => {
                if let Some(sq) = nth(!b.occupied(), n) {
                    let (color, role) = ALL_PIECES[k % 12];
                    b.set_piece_at(sq, Piece { color, role });
                }
            }
            Scramble::Swap(n, m) => {
                if let (Some(a), Some(c)) = (nth(b.occupied(), n), nth(b.occupied(), m)) {
                    let (pa, pc) = (b.piece_at(a), b.piece_at(c));
                    if let (Some(pa), Some(pc)) = (pa, pc) {
                        b.set_piece_at(a, pc);
                        b.set_piece_at(c, pa);
                    }
                }
            }
            Scramble::Move(n, m) => {
                if let (Some(a), Some(c)) = (nth(b.occupied(), n), nth(!b.occupied(), m))
                    && let Some(p) = b.remove_piece_at(a)
                {
                    b.set_piece_at(c, p);
                }
            }
        }
    }
    b
}

fn scramble_op() -> impl Strategy<Value = Scramble> {
    prop_oneof![
        any::<usize>().prop_map(Scramble::Remove),
        (any::<usize>(), 0usize..12).prop_map(|(n, k)| Scramble::Add(n, k)),
        (any::<usize>(), any::<usize>()).prop_map(|(n, m)| Scramble::Swap(n, m)),
        (any::<usize>(), any::<usize>()).prop_map(|(n, m)| Scramble::Move(n, m)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// From the Opera game scrambled (some pegs unknown) to the Opera game or the Immortal:
    /// followed one at a time, the instructions reach the position, as many as planned.
    #[test]
    fn a_scrambled_board_is_set_up_one_instruction_at_a_time(
        ops in proptest::collection::vec(scramble_op(), 0..24),
        unknown in proptest::collection::vec(any::<usize>(), 0..6),
        immortal in any::<bool>(),
    ) {
        let truth = scramble(&after(OPERA), &ops);
        let target = after(if immortal { IMMORTAL } else { OPERA });
        // The desk saw these pegs come without knowing from where.
        let unknown: Bitboard = unknown.into_iter().filter_map(|n| nth(truth.occupied(), n)).collect();
        let contents = PegContents::from_parts(&truth, unknown);
        let n = set_up(contents, truth, &target);
        prop_assert!(n <= PLAN_LIMIT);
    }
}
