//! Recovery at the table, as the blind player lives it: a peg board brought back to the game's
//! occupancy is in sync whatever happened before (a property over any lifts, placements,
//! takebacks, undos and moves made while it differed); following a correction is never an
//! illegal move; "the board is right again" is said once; refusals say why.

use annabella::boards::SensorEvent;
use annabella::chess::language::Language;
use annabella::control::wire::{event_line, reply_line};
use annabella::table::control::Role;
use annabella::table::corrections::Correction;
use annabella::table::detector::TouchMove;
use annabella::table::event::TableEvent;
use annabella::table::state::{BoardId, Effect, Input, Listener, Now, Step, Table, TableSettings};
use shakmaty::{Bitboard, CastlingMode, Color, Move, Position, Square};

const T0: u64 = 1_700_000_000_000;
const START: Bitboard = Bitboard(0xFFFF_0000_0000_FFFF);

fn settings(touch_move: TouchMove) -> TableSettings {
    TableSettings {
        touch_move,
        ..TableSettings::new(
            "t1".parse().unwrap(),
            Color::White,
            Language::german(),
            "5400+30".parse().unwrap(),
        )
    }
}

/// A table with a connected peg board whose holes the harness follows.
struct Harness {
    table: Table,
    now: u64,
    /// The holes that hold a peg, as the harness put them.
    occ: Bitboard,
    /// Everything said, with its listener, and every event line, each with the number of the
    /// step that produced it.
    said: Vec<(usize, Listener, String)>,
    events: Vec<(usize, String)>,
    /// Corrections of the last guidance event for the peg board.
    guide: Vec<Correction>,
    /// The PGN of every archive the table asked for.
    archived: Vec<String>,
    steps: usize,
}

impl Harness {
    fn new(touch_move: TouchMove) -> Harness {
        let (table, out) = Table::new(settings(touch_move), Now::at(T0)).unwrap();
        let mut h = Harness {
            table,
            now: T0,
            occ: START,
            said: Vec::new(),
            events: Vec::new(),
            guide: Vec::new(),
            archived: Vec::new(),
            steps: 0,
        };
        h.take(out);
        let out = h.table.handle(
            Now::at(h.now),
            Input::Link {
                board: BoardId::Peg,
                up: true,
                detail: "/dev/pts/9".into(),
            },
        );
        h.take(out);
        h.sense(SensorEvent::Occupancy(START));
        h
    }

    fn take(&mut self, out: Step) {
        self.steps += 1;
        for e in &out.effects {
            if let Effect::Finished { pgn } = e {
                self.archived.push(pgn.clone());
            }
            if let Effect::Event(e) = e {
                match e {
                    TableEvent::Say(say) => {
                        self.said.push((self.steps, say.listener, say.text.clone()))
                    }
                    TableEvent::Guide {
                        board: BoardId::Peg,
                        corrections,
                    } => self.guide = corrections.clone(),
                    _ => {}
                }
                self.events.push((self.steps, event_line(e)));
            }
        }
    }

    fn sense(&mut self, event: SensorEvent) {
        self.now += 100;
        let out = self.table.handle(
            Now::at(self.now),
            Input::Sensor {
                board: BoardId::Peg,
                event,
            },
        );
        self.take(out);
    }

    /// Lifts the peg from `sq` if there is one.
    fn lift(&mut self, sq: Square) {
        if self.occ.contains(sq) {
            self.occ.discard(sq);
            self.sense(SensorEvent::Lift(sq));
        }
    }

    /// Puts a peg into `sq` if it is empty.
    fn place(&mut self, sq: Square) {
        if !self.occ.contains(sq) {
            self.occ.add(sq);
            self.sense(SensorEvent::Place(sq));
        }
    }

    /// Makes `m`, a move of the game's position, with the hands.
    fn hand_move(&mut self, m: Move) {
        let now = self.table.game().position().clone();
        self.hand_move_from(&now, m);
    }

    /// Makes `m`, a move of `before`, with the hands: the captured piece off, the piece
    /// lifted and put down (king and rook for castling).
    fn hand_move_from(&mut self, before: &shakmaty::Chess, m: Move) {
        let Some(from) = m.from() else { return };
        if let Move::Castle { king, rook } = m {
            let side = shakmaty::CastlingSide::from_king_side(king < rook);
            let color = before.turn();
            self.lift(king);
            self.lift(rook);
            self.place(side.king_to(color));
            self.place(side.rook_to(color));
            return;
        }
        if let Move::EnPassant { to, .. } = m {
            self.lift(Square::from_coords(to.file(), from.rank()));
        } else if m.is_capture() {
            self.lift(m.to());
        }
        self.lift(from);
        self.place(m.to());
    }

    fn ask(&mut self, role: Role, line: &str) -> String {
        let command = annabella::table::control::parse_table_line(line.as_bytes()).unwrap();
        let (reply, out) =
            self.table
                .request(Now::at(self.now), role, Language::german(), &command);
        self.take(out);
        reply_line(&reply)
    }

    /// The peg board's agreement as `status` reports it.
    fn peg_sync(&mut self) -> String {
        let status = self.ask(Role::Arbiter, "status");
        // `… peg connected in-sync normal …`
        let words: Vec<&str> = status.split_whitespace().collect();
        let at = words
            .iter()
            .position(|w| *w == "peg")
            .expect("the peg board");
        words.get(at + 2).copied().unwrap_or("").to_owned()
    }

    fn said_to_blind_since(&self, step: usize) -> Vec<&str> {
        self.said
            .iter()
            .filter(|(s, l, _)| *s > step && *l == Listener::BlindPlayer)
            .map(|(_, _, t)| t.as_str())
            .collect()
    }

    /// Brings the holes to the game's occupancy one hole at a time (extra pegs off first),
    /// as a player who knows the game would; a move the hands happen to make on the way is
    /// played, so the target is looked at again after every step.
    fn restore_occupancy(&mut self) {
        for _ in 0..200 {
            let target = self.table.game().position().board().occupied();
            if self.occ == target {
                return;
            }
            let extra = self.occ & !target;
            match extra.first() {
                Some(sq) => self.lift(sq),
                None => {
                    if let Some(sq) = (target & !self.occ).first() {
                        self.place(sq)
                    }
                }
            }
        }
        panic!("the holes never reached the game's occupancy");
    }

    /// Performs corrections as the table listed them.
    fn follow(&mut self, fixes: &[Correction]) {
        for c in fixes {
            match *c {
                Correction::Move { from, to, .. } => {
                    self.lift(from);
                    self.place(to);
                }
                Correction::Remove { square, .. } => self.lift(square),
                Correction::Place { square, .. } => self.place(square),
            }
        }
    }
}

fn uci(m: Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

/// Words of the German voice that instruct the blind player to change his board.
fn is_instruction(text: &str) -> bool {
    [
        "entfernen",
        "stellen",
        " nach ",
        "stimmt nicht",
        "Unzulässig",
    ]
    .iter()
    .any(|w| text.contains(w))
}

#[test]
fn pegs_guessed_wrong_after_an_undo_do_not_keep_a_right_board_wrong() {
    // The loop in small: after an undo and pieces moved while the board differed, the
    // table guessed a pawn in the knight's hole b1 and asked for "pawn from b1 to c2" with
    // every hole filled. Holes that are the game's are the game's pieces, whatever was
    // guessed on the way.
    let mut h = Harness::new(TouchMove::Strict);
    h.hand_move(uci_move(&h, "c2c4"));
    assert!(h.ask(Role::Arbiter, "undo").starts_with("ok"));
    h.place(Square::A4);
    h.hand_move(uci_move(&h, "b1a3"));
    h.restore_occupancy();
    let last = h.steps - 1;
    assert_eq!(h.said_to_blind_since(last), ["Brett stimmt wieder"]);
    let right = h.said_to_blind_since(0);
    assert_eq!(
        right.iter().filter(|t| t.contains("stimmt wieder")).count(),
        1,
        "{right:?}"
    );
    assert_eq!(h.peg_sync(), "in-sync");
    // Lifting the knight and putting it back is no instruction.
    let step = h.steps;
    h.lift(Square::B1);
    h.place(Square::B1);
    let said = h.said_to_blind_since(step);
    assert!(!said.iter().any(|t| is_instruction(t)), "{said:?}");
    assert_eq!(h.peg_sync(), "in-sync");
}

fn uci_move(h: &Harness, uci: &str) -> Move {
    uci.parse::<shakmaty::uci::UciMove>()
        .unwrap()
        .to_move(h.table.game().position())
        .unwrap()
}

#[test]
fn following_the_corrections_after_a_takeback_is_never_an_illegal_move() {
    // In the order given and in the reverse order: each correction followed is no move.
    for reverse in [false, true] {
        let mut h = Harness::new(TouchMove::Warn);
        for (white, black) in [("e2e4", "e7e5"), ("g1f3", "b8c6"), ("f1b5", "a7a6")] {
            h.hand_move(uci_move(&h, white));
            let owed = uci_move(&h, black);
            h.ask(Role::Player(Color::Black), &format!("move {black}"));
            h.hand_move(owed);
        }
        // The blind player takes two moves back on his board by hand: a6 to a7, b5 to f1.
        let step = h.steps;
        h.lift(Square::A6);
        h.place(Square::A7);
        h.lift(Square::B5);
        h.place(Square::F1);
        assert!(
            h.events
                .iter()
                .any(|(s, e)| *s > step && e.starts_with("event peg takeback")),
            "{:?}",
            h.events
        );
        let mut fixes = h.guide.clone();
        assert_eq!(fixes.len(), 2, "{fixes:?}");
        if reverse {
            fixes.reverse();
        }
        let step = h.steps;
        h.follow(&fixes);
        let said = h.said_to_blind_since(step);
        assert!(!said.iter().any(|t| t.contains("Unzulässig")), "{said:?}");
        assert_eq!(said.last(), Some(&"Brett stimmt wieder"), "{said:?}");
        let right = said.iter().filter(|t| t.contains("stimmt wieder")).count();
        assert_eq!(right, 1, "said once: {said:?}");
        let in_sync = h
            .events
            .iter()
            .filter(|(s, e)| *s > step && e == "event in-sync peg")
            .count();
        assert_eq!(in_sync, 1, "{:?}", h.events);
        assert_eq!(h.peg_sync(), "in-sync");
    }
}

/// One thing done at the table in the property below.
#[derive(Debug, Clone)]
enum Op {
    /// A peg out of (or into) the hole with this number, if there is one.
    Lift(u8),
    Place(u8),
    /// The blind player makes a legal move of the game with his hands (the n-th legal one),
    /// whether or not his board agrees with the game.
    HandMove(usize),
    /// The sighted player's move (the n-th legal one) entered on the control interface.
    Opponent(usize),
    /// The blind player replicates what his board owes.
    Replicate,
    /// The arbiter withdraws the last move.
    Undo,
}

fn op() -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    prop_oneof![
        3 => (0u8..64).prop_map(Op::Lift),
        3 => (0u8..64).prop_map(Op::Place),
        4 => any::<usize>().prop_map(Op::HandMove),
        4 => any::<usize>().prop_map(Op::Opponent),
        3 => Just(Op::Replicate),
        1 => Just(Op::Undo),
    ]
}

fn run(h: &mut Harness, op: &Op) {
    let game = h.table.game();
    let legal = game.position().legal_moves();
    let turn = game.turn();
    match *op {
        Op::Lift(n) => h.lift(Square::new(u32::from(n))),
        Op::Place(n) => h.place(Square::new(u32::from(n))),
        Op::HandMove(n) if turn == Color::White && !legal.is_empty() => {
            h.hand_move(legal[n % legal.len()])
        }
        Op::Opponent(n) if turn == Color::Black && !legal.is_empty() => {
            let m = legal[n % legal.len()];
            h.ask(Role::Player(Color::Black), &format!("move {}", uci(m)));
        }
        Op::Replicate => {
            let ply = h.table.game().ply_count();
            if turn == Color::White
                && let Some(&m) = h.table.game().moves().last()
                && let Some(before) = h.table.game().position_before(ply - 1)
            {
                h.hand_move_from(&before, m);
            }
        }
        Op::Undo => {
            h.ask(Role::Arbiter, "undo");
        }
        _ => {}
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Any sequence of lifts and placements, takebacks, undos and moves made while the board
    /// differed, that ends with the peg board's holes equal to the game's, ends in sync, with
    /// no instruction after the last hole is filled.
    #[test]
    fn the_games_occupancy_is_in_sync_whatever_happened_before(
        ops in proptest::collection::vec(op(), 0..40),
        touch_strict in proptest::prelude::any::<bool>(),
    ) {
        let touch = if touch_strict { TouchMove::Strict } else { TouchMove::Warn };
        let mut h = Harness::new(touch);
        for op in &ops {
            run(&mut h, op);
        }
        h.restore_occupancy();
        let last = h.steps - 1;
        let said: Vec<String> =
            h.said_to_blind_since(last).into_iter().map(str::to_owned).collect();
        proptest::prop_assert!(
            !said.iter().any(|t| is_instruction(t)),
            "instructed after the last hole: {:?}", said
        );
        let sync = h.peg_sync();
        proptest::prop_assert!(
            sync == "in-sync" || sync == "owes-move",
            "peg {} after {:?}; said {:?}", sync, ops, h.said_to_blind_since(0)
        );
        // Touching a piece and putting it back changes nothing.
        let step = h.steps;
        if let Some(sq) = h.occ.first() {
            h.lift(sq);
            h.place(sq);
        }
        let said: Vec<String> =
            h.said_to_blind_since(step).into_iter().map(str::to_owned).collect();
        proptest::prop_assert!(!said.iter().any(|t| is_instruction(t)), "{:?}", said);
    }
}

#[test]
fn an_illegal_move_says_why_once() {
    let mut h = Harness::new(TouchMove::Warn);
    for (white, black) in [("e2e4", "e7e5"), ("d2d4", "f8b4")] {
        h.hand_move(uci_move(&h, white));
        h.ask(Role::Player(Color::Black), &format!("move {black}"));
        h.hand_move(uci_move_before(&h, black));
    }
    // 3. a2-a3 leaves the king in check from b4.
    let step = h.steps;
    h.lift(Square::A2);
    h.place(Square::A3);
    let said = h.said_to_blind_since(step);
    assert_eq!(
        said,
        ["Unzulässiger Zug: der König stünde im Schach. Bauer von Anna drei nach Anna zwei"]
    );
    // Following the correction is no new illegal move; the board is right again, once.
    let step = h.steps;
    h.lift(Square::A3);
    h.place(Square::A2);
    assert_eq!(h.said_to_blind_since(step), ["Brett stimmt wieder"]);
}

/// Two knights knocked one after the other: the second knock leaves the same first
/// correction, which is not said again (issue 24: "one correction was said twice in a row");
/// the second knight's follows when the first is back.
#[test]
fn a_second_knock_with_the_same_first_correction_is_not_said_twice() {
    let mut h = Harness::new(TouchMove::Warn);
    h.hand_move(uci_move(&h, "e2e4"));
    h.ask(Role::Player(Color::Black), "move e7e5");
    h.hand_move(uci_move_before(&h, "e7e5"));
    let step = h.steps;
    h.lift(Square::B8);
    h.place(Square::B6);
    h.lift(Square::G8);
    h.place(Square::H6);
    let first =
        "Brett stimmt nicht mit der Partie überein. Springer von Bella sechs nach Bella acht";
    assert_eq!(h.said_to_blind_since(step), [first]);
    let step = h.steps;
    h.lift(Square::B6);
    h.place(Square::B8);
    h.lift(Square::H6);
    h.place(Square::G8);
    assert_eq!(
        h.said_to_blind_since(step),
        [
            "Springer von Hector sechs nach Gustav acht",
            "Brett stimmt wieder"
        ]
    );
    // Asked for with KA, it is said again.
    h.lift(Square::B8);
    h.place(Square::B6);
    let step = h.steps;
    h.sense(SensorEvent::Key(annabella::boards::BoardKey::Repeat));
    assert_eq!(h.said_to_blind_since(step), [first]);
}

#[test]
fn a_strict_touch_move_refusal_says_why_once() {
    let mut h = Harness::new(TouchMove::Strict);
    let step = h.steps;
    // The knight on g1 is touched first, then the one on b1 is moved.
    h.lift(Square::G1);
    h.place(Square::G1);
    h.lift(Square::B1);
    h.place(Square::C3);
    assert_eq!(h.table.game().ply_count(), 0);
    let said = h.said_to_blind_since(step);
    let why: Vec<_> = said
        .iter()
        .filter(|t| t.contains("der Springer auf Gustav eins wurde zuerst berührt"))
        .collect();
    assert_eq!(why.len(), 1, "{said:?}");
    assert_eq!(said.len(), 1, "{said:?}");
    let step = h.steps;
    h.lift(Square::C3);
    h.place(Square::B1);
    assert_eq!(h.said_to_blind_since(step), ["Brett stimmt wieder"]);
    // The knight on g1 it is.
    h.lift(Square::G1);
    h.place(Square::F3);
    assert_eq!(h.table.game().ply_count(), 1);
}

#[test]
fn a_touch_move_breach_under_warn_stands_and_the_arbiter_hears_it() {
    let mut h = Harness::new(TouchMove::Warn);
    let step = h.steps;
    h.lift(Square::G1);
    h.place(Square::G1);
    h.lift(Square::B1);
    h.place(Square::C3);
    assert_eq!(h.table.game().ply_count(), 1, "under warn the move stands");
    let to_arbiter: Vec<&str> = h
        .said
        .iter()
        .filter(|(s, l, _)| *s > step && *l == Listener::Arbiter)
        .map(|(_, _, t)| t.as_str())
        .collect();
    assert_eq!(
        to_arbiter,
        ["berührt, geführt: der Springer auf Gustav eins wurde zuerst berührt"]
    );
    assert!(
        !h.said_to_blind_since(step)
            .iter()
            .any(|t| t.contains("berührt, geführt")),
        "the blind player is not told off under warn"
    );
}

#[test]
fn a_move_made_while_the_clocks_are_stopped_is_refused_with_the_reason() {
    let mut h = Harness::new(TouchMove::Warn);
    assert!(h.ask(Role::Arbiter, "pause").starts_with("ok"));
    let step = h.steps;
    h.hand_move(uci_move(&h, "e2e4"));
    let said = h.said_to_blind_since(step);
    assert_eq!(
        said.first().copied(),
        Some("Die Uhren sind angehalten; kein Zug, bis der Schiedsrichter sie wieder startet"),
        "{said:?}"
    );
    assert_eq!(h.table.game().ply_count(), 0);
}

/// A move of the position before the game's last move (the one the board owes).
fn uci_move_before(h: &Harness, uci: &str) -> Move {
    let game = h.table.game();
    let before = game.position_before(game.ply_count() - 1).unwrap();
    uci.parse::<shakmaty::uci::UciMove>()
        .unwrap()
        .to_move(&before)
        .unwrap()
}

#[test]
fn a_sheet_that_differs_while_both_boards_show_the_game_is_corrected_not_taken_back() {
    // The game: both boards showed the same game; one scoresheet had 2...e6 for
    // 2...d6, and the table proposed retracting seven half-moves.
    let mut h = Harness::new(TouchMove::Warn);
    for (white, black) in [
        ("e2e4", "c7c5"),
        ("g1f3", "d7d6"),
        ("d2d4", "c5d4"),
        ("f3d4", "g8f6"),
    ] {
        h.hand_move(uci_move(&h, white));
        h.ask(Role::Player(Color::Black), &format!("move {black}"));
        h.hand_move(uci_move_before(&h, black));
    }
    assert_eq!(h.peg_sync(), "in-sync");
    let step = h.steps;
    let reply = h.ask(Role::Assistant, "record b e4 c5 Sf3 e6 d4 cxd4 Sxd4 Sf6");
    assert!(
        reply.contains("a sheet to correct, not a takeback"),
        "{reply}"
    );
    assert!(reply.contains("2...e6 written, 2...d6 played"), "{reply}");
    assert!(
        !h.events
            .iter()
            .any(|(s, e)| *s > step && e.starts_with("event resolution proposed")),
        "{:?}",
        h.events
    );
    // The sheet's writer (the sighted player) is told which move, in words; nobody else.
    let to_opponent: Vec<_> = h
        .said
        .iter()
        .filter(|(s, l, _)| *s > step && *l == Listener::Opponent)
        .map(|(_, _, t)| t.as_str())
        .collect();
    assert_eq!(
        to_opponent,
        [
            "Bitte das Partieformular verbessern: Zug zwei von Schwarz ist David sechs, nicht Eva sechs"
        ]
    );
    assert!(h.said_to_blind_since(step).is_empty());
    assert!(
        h.said
            .iter()
            .all(|(s, l, _)| *s <= step || *l != Listener::Everyone)
    );
    // The game stands; there is nothing for the arbiter to confirm.
    assert_eq!(h.table.game().ply_count(), 8);
    assert!(h.ask(Role::Arbiter, "resolve confirm").starts_with("error"));
    // Corrected, the sheets agree.
    let reply = h.ask(Role::Assistant, "record b e4 c5 Sf3 d6 d4 cxd4 Sxd4 Sf6");
    assert!(reply.contains("the sheets agree"), "{reply}");
}

#[test]
fn the_arbiters_rejection_of_a_takeback_is_said_to_everyone() {
    let mut h = Harness::new(TouchMove::Warn);
    for (white, black) in [("e2e4", "e7e5"), ("g1f3", "b8c6")] {
        h.hand_move(uci_move(&h, white));
        h.ask(Role::Player(Color::Black), &format!("move {black}"));
        h.hand_move(uci_move_before(&h, black));
    }
    // The blind player's board differs (a pawn where it cannot go), and the sheets differ.
    h.lift(Square::A2);
    h.place(Square::A5);
    let reply = h.ask(Role::Assistant, "record b e4 e5 Sf3 d6");
    assert!(reply.contains("the sheets differ"), "{reply}");
    let step = h.steps;
    assert!(h.ask(Role::Arbiter, "resolve reject").starts_with("ok"));
    let everyone: Vec<_> = h
        .said
        .iter()
        .filter(|(s, l, _)| *s > step && *l == Listener::Everyone)
        .map(|(_, _, t)| t.as_str())
        .collect();
    assert_eq!(
        everyone,
        ["Der Schiedsrichter hat entschieden: keine Rücknahme, die Partie geht weiter"]
    );
}

#[test]
fn undo_after_mate_is_the_arbiters_alone_and_everyone_hears_the_game_goes_on() {
    let mut h = Harness::new(TouchMove::Warn);
    h.hand_move(uci_move(&h, "f2f3"));
    h.ask(Role::Player(Color::Black), "move e7e5");
    h.hand_move(uci_move_before(&h, "e7e5"));
    h.hand_move(uci_move(&h, "g2g4"));
    h.ask(Role::Player(Color::Black), "move d8h4");
    assert!(h.table.game().is_over());
    assert_eq!(h.archived.len(), 1);
    assert!(
        h.archived[0].contains("[Result \"0-1\"]"),
        "{}",
        h.archived[0]
    );
    // The game was decided: no player takes a move back (not now: the game is over).
    for role in [Role::Player(Color::Black), Role::Assistant] {
        let reply = h.ask(role, "undo");
        assert!(reply.starts_with("error state the game is over"), "{reply}");
    }
    assert!(h.table.game().is_over());
    // The arbiter may reopen it: everyone hears the game goes on, and the archive is
    // rewritten with the game as it stands.
    let step = h.steps;
    assert_eq!(h.ask(Role::Arbiter, "undo"), "ok withdrawn d8h4");
    assert!(!h.table.game().is_over());
    let everyone: Vec<_> = h
        .said
        .iter()
        .filter(|(s, l, _)| *s > step && *l == Listener::Everyone)
        .map(|(_, _, t)| t.as_str())
        .collect();
    assert_eq!(everyone.len(), 1, "{everyone:?}");
    assert!(
        everyone[0].starts_with("Zug zurückgenommen")
            && everyone[0].ends_with(
                "Der Schiedsrichter hat die Partie wieder geöffnet; die Partie geht weiter"
            ),
        "{everyone:?}"
    );
    assert_eq!(h.archived.len(), 2);
    assert!(
        h.archived[1].contains("[Result \"*\"]"),
        "{}",
        h.archived[1]
    );
    // Finished again, the archive is replaced by the new end.
    h.ask(Role::Player(Color::Black), "move d8h4");
    assert_eq!(h.archived.len(), 3);
    assert!(h.archived[2].contains("[Result \"0-1\"]"));
}
