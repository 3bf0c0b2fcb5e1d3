//! The hand's mistakes at the table (issue 24), end to end: the real daemon, a simulated peg
//! board on a pseudo-terminal whose operator's hand knocks, slips, keeps a piece in his hand
//! and drops a peg (`Lf3`/`Pg5`: lift, place), and what the blind player hears. Each scene
//! is the one found at the board, followed by the table's own instructions to the letter: the
//! board ends in sync, no move is played that he never meant, and nothing waits for a key.

pub mod common;

use std::path::Path;
use std::time::Duration;

use common::board::SimulatedBoard;
use common::control::ControlClient;
use common::daemon::{Daemon, Serve};
use common::fs::scratch_dir;

/// `annabella serve` on the peg board at `DIR/peg`, the blind player White, 5 minutes.
fn serve(dir: &Path) -> Daemon {
    let peg = dir.join("peg");
    let speech = format!("transcript:{}", dir.join("transcript.txt").display());
    let daemon = Serve::new(&dir.join("state"))
        .args(["--peg", peg.to_str().unwrap(), "--speech", &speech])
        .args(["--time-control", "300"])
        .start();
    assert!(daemon.ready_after < Duration::from_secs(10));
    daemon
}

/// Waits until the blind player hears exactly `want`; a move played meanwhile fails the test
/// (no move is concluded while his board is being corrected).
fn hears_no_move(watcher: &ControlClient, want: &str) {
    let line = format!("event say blind {want}");
    watcher.expect_event(want, |l| {
        assert!(
            !l.starts_with("event move "),
            "a move was played while the board was corrected: {l} (waiting for {want})"
        );
        l == line
    });
}

/// The table with 1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 played (Black by the control interface, each
/// replicated on the peg board): White, the blind player, to move.
fn italian(dir: &Path) -> (SimulatedBoard, Daemon, ControlClient, ControlClient) {
    italian_on(dir, serve)
}

/// `serve` as above from a configuration file whose peg board has no debounce window: a peg
/// lifted and put back at once is two events, as a hand slower than the contacts' bounce
/// makes them (the simulated hand sends its lines within a millisecond).
fn serve_without_debounce(dir: &Path) -> Daemon {
    let config = dir.join("annabella.toml");
    std::fs::write(
        &config,
        format!(
            r#"
[speech]
backends = "transcript:{transcript}"
lang = "de"

[[table]]
name = "table-1"
peg = "{peg}"
peg_side = "white"
time_control = "300"
debounce_ms = 0
"#,
            transcript = dir.join("transcript.txt").display(),
            peg = dir.join("peg").display(),
        ),
    )
    .unwrap();
    Serve::new(&dir.join("state")).config(&config).start()
}

/// [`italian`] on a daemon that `start` starts.
fn italian_on(
    dir: &Path,
    start: fn(&Path) -> Daemon,
) -> (SimulatedBoard, Daemon, ControlClient, ControlClient) {
    let mut board = SimulatedBoard::on_pty("peg", &dir.join("peg"), &[]);
    let daemon = start(dir);
    let black = daemon.connect("black");
    let mut watcher = daemon.connect("observer");
    assert!(watcher.ask("events").starts_with("ok events"));
    watcher.wait_status("peg connected in-sync");
    let mut black = black;
    for (ply, (white, reply)) in [("e2e4", "e7e5"), ("g1f3", "b8c6"), ("f1c4", "f8c5")]
        .into_iter()
        .enumerate()
    {
        board.hand(white);
        let n = 2 * ply + 1;
        watcher.expect_event(white, |l| {
            l.starts_with(&format!("event move {n} white {white}"))
        });
        let answer = black.ask(&format!("move {reply}"));
        assert!(answer.starts_with(&format!("ok {reply}")), "{answer}");
        board.hand(reply);
        watcher.heard("in Ordnung");
    }
    (board, daemon, black, watcher)
}

#[test]
fn following_a_correction_plays_no_move_he_never_meant() {
    let dir = scratch_dir("hand-mistakes-follow");
    let (mut board, _daemon, mut black, watcher) = italian(&dir);
    // Knight and bishop knocked into wrong holes.
    for line in ["Lf3", "Lc4", "Pg5", "Pb5"] {
        board.hand(&format!("raw {line}"));
    }
    hears_no_move(
        &watcher,
        // Two of his pieces knocked, his hand empty: a board problem, not an illegal move.
        "Brett stimmt nicht mit der Partie überein. Läufer von Bella fünf nach Cesar vier",
    );
    // He does exactly that: the knight on g5 is not 4.Ng5, and the next instruction comes
    // by itself.
    board.hand("raw Lb5");
    board.hand("raw Pc4");
    hears_no_move(&watcher, "Springer von Gustav fünf nach Felix drei");
    board.hand("key A");
    hears_no_move(&watcher, "Springer von Gustav fünf nach Felix drei");
    board.hand("raw Lg5");
    board.hand("raw Pf3");
    hears_no_move(&watcher, "Brett stimmt wieder");
    let status = black.ask("status");
    assert!(status.contains(" ply 6 "), "no move was played: {status}");
    // And his real move counts.
    board.hand("e1g1");
    watcher.expect_event("4.O-O", |l| l.starts_with("event move 7 white e1g1"));
}

#[test]
fn one_piece_of_his_moved_the_wrong_way_is_an_illegal_move() {
    let dir = scratch_dir("hand-mistakes-wrong-way");
    let (mut board, _daemon, mut black, watcher) = italian(&dir);
    // The bishop moved like a rook: one piece lifted and put down elsewhere, an attempted
    // move (two pieces knocked at once are a board problem, above).
    board.hand("raw Lc4");
    board.hand("raw Pc3");
    watcher.expect_event("the illegal move", |l| {
        assert!(!l.starts_with("event move "), "a move was played: {l}");
        l.starts_with("event say blind Unzulässiger Zug: ")
            && l.ends_with(". Läufer von Cesar drei nach Cesar vier")
    });
    board.hand("raw Lc3");
    board.hand("raw Pc4");
    hears_no_move(&watcher, "Brett stimmt wieder");
    let status = black.ask("status");
    assert!(status.contains(" ply 6 "), "no move was played: {status}");
}

#[test]
fn a_knocked_piece_is_guided_back_while_a_peg_stays_in_his_hand() {
    let dir = scratch_dir("hand-mistakes-knocked");
    let (mut board, _daemon, mut black, watcher) = italian(&dir);
    // The h-pawn in his hand, the black knight knocked from c6 to b4.
    for line in ["Lh2", "Lc6", "Pb4"] {
        board.hand(&format!("raw {line}"));
    }
    // Said at once, naming the piece the table believes is there.
    hears_no_move(
        &watcher,
        "Brett stimmt nicht mit der Partie überein. Springer von Bella vier nach Cesar sechs",
    );
    board.hand("key A");
    hears_no_move(
        &watcher,
        "Brett stimmt nicht mit der Partie überein. Springer von Bella vier nach Cesar sechs",
    );
    board.hand("raw Lb4");
    board.hand("raw Pc6");
    // The piece in his hand is asked for, without a key.
    hears_no_move(&watcher, "weißen Bauern zurück auf Hector zwei stellen");
    board.hand("raw Ph2");
    hears_no_move(&watcher, "Brett stimmt wieder");
    let status = black.ask("status");
    assert!(status.contains(" ply 6 "), "no move was played: {status}");
    board.hand("e1g1");
    watcher.expect_event("4.O-O", |l| l.starts_with("event move 7 white e1g1"));
}

#[test]
fn a_dropped_peg_is_to_be_removed_and_is_no_illegal_move() {
    let dir = scratch_dir("hand-mistakes-dropped");
    let mut board = SimulatedBoard::on_pty("peg", &dir.join("peg"), &[]);
    let daemon = serve(&dir);
    let mut watcher = daemon.connect("observer");
    assert!(watcher.ask("events").starts_with("ok events"));
    watcher.wait_status("peg connected in-sync");
    board.hand("raw Pe4");
    hears_no_move(
        &watcher,
        "Brett stimmt nicht mit der Partie überein. die Figur auf Eva vier, ich weiß nicht welche, entfernen",
    );
    board.hand("raw Le4");
    hears_no_move(&watcher, "Brett stimmt wieder");
    board.hand("e2e4");
    watcher.expect_event("1.e4", |l| l.starts_with("event move 1 white e2e4"));
}

#[test]
fn a_peg_in_the_hole_of_a_piece_he_holds_is_said_to_be_unknown() {
    let dir = scratch_dir("hand-mistakes-unknown");
    let (mut board, _daemon, mut black, watcher) = italian(&dir);
    // The knight in his hand, a spare peg put into its hole (f3), then the knight put on g5:
    // the holes cannot say whether the knight is on f3 and a spare peg on g5 or the other way
    // round, and the table says so instead of naming a piece.
    board.hand("raw Lf3");
    board.hand("raw Pf3");
    board.hand("raw Pg5");
    hears_no_move(
        &watcher,
        "Brett stimmt nicht mit der Partie überein. die Figur auf Gustav fünf, ich weiß nicht welche, entfernen",
    );
    board.hand("raw Lg5");
    hears_no_move(&watcher, "Brett stimmt wieder");
    let status = black.ask("status");
    assert!(status.contains(" ply 6 "), "no move was played: {status}");
}

#[test]
fn a_peg_put_back_into_the_hole_of_the_piece_in_his_hand_is_not_named() {
    let dir = scratch_dir("hand-mistakes-unsure");
    let (mut board, _daemon, mut black, watcher) = italian_on(&dir, serve_without_debounce);
    // The knight moved the wrong way (an illegal move, guided back).
    board.hand("raw Lf3");
    board.hand("raw Pf4");
    watcher.expect_event("the illegal move", |l| {
        assert!(!l.starts_with("event move "), "a move was played: {l}");
        l.starts_with("event say blind Unzulässiger Zug: ")
            && l.ends_with(". Springer von Felix vier nach Felix drei")
    });
    // He lifts it and a peg goes back into f4: the knight, or a spare peg while the knight
    // stays in his hand. The holes cannot tell, and `KA` says so.
    board.hand("raw Lf4");
    board.hand("raw Pf4");
    board.hand("key A");
    watcher.expect_event("the correction again", |l| {
        assert!(!l.starts_with("event move "), "a move was played: {l}");
        l.starts_with("event say blind ")
            && l.ends_with("die Figur auf Felix vier, ich weiß nicht welche, nach Felix drei")
    });
    board.hand("raw Lf4");
    board.hand("raw Pf3");
    hears_no_move(&watcher, "Brett stimmt wieder");
    let status = black.ask("status");
    assert!(status.contains(" ply 6 "), "no move was played: {status}");
}

/// Both times as the `clock` request answers them (a stopped clock reads the same twice).
fn clock(client: &mut ControlClient) -> String {
    let reply = client.ask("clock");
    assert!(reply.starts_with("ok "), "{reply}");
    reply
}

#[test]
fn the_next_game_starts_when_the_boards_are_set_up() {
    let dir = scratch_dir("hand-mistakes-new-game");
    let mut board = SimulatedBoard::on_pty("peg", &dir.join("peg"), &[]);
    let daemon = serve(&dir);
    let mut black = daemon.connect("black");
    let mut arbiter = daemon.connect("arbiter");
    let mut watcher = daemon.connect("observer");
    assert!(watcher.ask("events").starts_with("ok events"));
    watcher.wait_status("peg connected in-sync");
    board.hand("e2e4");
    watcher.expect_event("1.e4", |l| l.starts_with("event move 1 white e2e4"));
    assert!(black.ask("move e7e5").starts_with("ok e7e5"));
    board.hand("e7e5");
    watcher.heard("in Ordnung");
    assert_eq!(black.ask("resign"), "ok black resigns");
    let reply = arbiter.ask("new-game");
    assert!(reply.starts_with("ok new game"), "{reply}");
    // The game is announced first, then the set-up is guided; the clock stands still.
    let order = std::cell::RefCell::new(Vec::new());
    watcher.expect_event("the first instruction", |l| {
        if l.starts_with("event say ") || l.starts_with("event clock ") {
            order.borrow_mut().push(l.to_owned());
        }
        l.starts_with("event say blind Brett stimmt nicht")
    });
    let mut order = order.into_inner();
    order.retain(|l| !l.contains("gibt auf"));
    assert!(
        order[0].starts_with("event say all Neue Partie. Bedenkzeit fünf Minuten"),
        "{order:#?}"
    );
    assert!(order.iter().any(|l| l == "event clock pause"), "{order:#?}");
    let before = clock(&mut arbiter);
    assert_eq!(
        before,
        "ok white 0:05:00 black 0:05:00 moves 0 running none"
    );
    // His move waits for the set-up.
    board.hand("raw Le4");
    board.hand("raw Pe2");
    watcher.heard("Bauer von Eva fünf nach Eva sieben");
    board.hand("raw Le5");
    board.hand("raw Pe7");
    let said = std::cell::RefCell::new(Vec::new());
    watcher.expect_event("the clock started", |l| {
        if l.starts_with("event say ") {
            said.borrow_mut().push(l.to_owned());
        }
        l == "event clock resume"
    });
    let said = said.into_inner();
    assert!(
        said.iter()
            .any(|l| l == "event say blind Brett stimmt wieder"),
        "{said:#?}"
    );
    assert!(
        !said.iter().any(|l| l.contains("fünf Minuten")),
        "no clock call before move 1: {said:#?}"
    );
    // Not a millisecond of his time ran before the board was set up; now it runs.
    let after = clock(&mut arbiter);
    assert!(after.ends_with("running white"), "{after}");
    // No clock call before his first move either (a 5-minute game starts at five minutes).
    board.hand("d2d4");
    watcher.expect_event("1.d4", |l| {
        assert!(
            !(l.starts_with("event say ") && l.contains("fünf Minuten")),
            "a clock call before move 1: {l}"
        );
        l.starts_with("event move 1 white d2d4")
    });
    let transcript = std::fs::read_to_string(dir.join("transcript.txt")).unwrap_or_default();
    // At most the time control at each game's start (the transcript may lag, never lead).
    assert!(
        transcript.matches("fünf Minuten").count() <= 2,
        "a clock call: {transcript}"
    );
}

/// Waits until the transcript has something ending in `text` said to `listener` at or after
/// `since` (Unix ms): what a restarted daemon says before a new connection could subscribe to
/// its events.
fn transcript_says(dir: &Path, since: u64, listener: &str, text: &str) {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let to = format!(" {listener} ");
    loop {
        let transcript = std::fs::read_to_string(dir.join("transcript.txt")).unwrap_or_default();
        let said = transcript.lines().any(|l| {
            l.contains(&to)
                && l.ends_with(text)
                && l.split(' ')
                    .next()
                    .and_then(|ms| ms.parse::<u64>().ok())
                    .is_some_and(|ms| ms >= since)
        });
        if said {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{text:?} never said to {listener} after {since}:\n{transcript}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The table after 1.e4 e5 and Black's resignation: the game is over, the peg board shows
/// the two pawns moved.
fn a_finished_game(dir: &Path) -> (SimulatedBoard, Daemon, ControlClient) {
    let mut board = SimulatedBoard::on_pty("peg", &dir.join("peg"), &[]);
    let daemon = serve(dir);
    let mut black = daemon.connect("black");
    let mut watcher = daemon.connect("observer");
    assert!(watcher.ask("events").starts_with("ok events"));
    watcher.wait_status("peg connected in-sync");
    board.hand("e2e4");
    watcher.expect_event("1.e4", |l| l.starts_with("event move 1 white e2e4"));
    assert!(black.ask("move e7e5").starts_with("ok e7e5"));
    board.hand("e7e5");
    watcher.heard("in Ordnung");
    assert_eq!(black.ask("resign"), "ok black resigns");
    watcher.expect_event("the result", |l| l.starts_with("event end "));
    (board, daemon, watcher)
}

/// The rest of the set-up after 1.e4 e5 (the white pawn back already), with the clock still
/// stopped until the last peg, then started by the board being right: no time ran before.
fn finish_the_set_up(board: &mut SimulatedBoard, daemon: &Daemon) {
    let mut arbiter = daemon.connect("arbiter");
    let mut watcher = daemon.connect("observer");
    assert!(watcher.ask("events").starts_with("ok events"));
    assert_eq!(
        clock(&mut arbiter),
        "ok white 0:05:00 black 0:05:00 moves 0 running none"
    );
    board.hand("raw Le5");
    board.hand("raw Pe7");
    let said = std::cell::RefCell::new(Vec::new());
    watcher.expect_event("the clock started", |l| {
        if l.starts_with("event say ") {
            said.borrow_mut().push(l.to_owned());
        }
        l == "event clock resume"
    });
    let said = said.into_inner();
    assert!(
        said.iter()
            .any(|l| l == "event say blind Brett stimmt wieder"),
        "{said:#?}"
    );
    let after = clock(&mut arbiter);
    assert!(after.ends_with("running white"), "{after}");
    board.hand("d2d4");
    watcher.expect_event("1.d4", |l| l.starts_with("event move 1 white d2d4"));
}

#[test]
fn a_restart_during_the_set_up_waits_on_and_starts_the_clock_when_it_is_done() {
    let dir = scratch_dir("hand-mistakes-restart-set-up");
    let (mut board, daemon, watcher) = a_finished_game(&dir);
    let mut arbiter = daemon.connect("arbiter");
    let reply = arbiter.ask("new-game");
    assert!(reply.starts_with("ok new game"), "{reply}");
    watcher.heard("Brett stimmt nicht mit der Partie überein. Bauer von Eva vier nach Eva zwei");
    board.hand("raw Le4");
    board.hand("raw Pe2");
    watcher.heard("Bauer von Eva fünf nach Eva sieben");
    drop((watcher, arbiter));
    daemon.kill9();
    // The same state directory: the journal says the clock waits for the set-up.
    let restarted = unix_ms();
    let daemon = serve(&dir);
    let mut arbiter = daemon.connect("arbiter");
    arbiter.wait_status("peg connected differs");
    // The guidance goes on by itself (the peg board came back still differing; after the
    // restart the table cannot know which piece the peg on e5 is, and says so).
    transcript_says(
        &dir,
        restarted,
        "blind",
        "Brett stimmt nicht mit der Partie überein. die Figur auf Eva fünf, ich weiß nicht welche, nach Eva sieben",
    );
    finish_the_set_up(&mut board, &daemon);
}

#[test]
fn a_game_begun_at_a_restart_waits_for_the_set_up() {
    let dir = scratch_dir("hand-mistakes-begun-at-restart");
    let (mut board, daemon, watcher) = a_finished_game(&dir);
    drop(watcher);
    daemon.kill9();
    // The last game is over: the restarted daemon begins the next one, announced first, then
    // the set-up guided, the clock stopped until it is done.
    let restarted = unix_ms();
    let daemon = serve(&dir);
    let mut arbiter = daemon.connect("arbiter");
    arbiter.wait_status("peg connected differs");
    transcript_says(
        &dir,
        restarted,
        "all",
        "Neue Partie. Bedenkzeit fünf Minuten",
    );
    transcript_says(
        &dir,
        restarted,
        "blind",
        // A board this game's table has never seen: which piece each peg is it cannot know.
        "Brett stimmt nicht mit der Partie überein. die Figur auf Eva vier, ich weiß nicht welche, nach Eva zwei",
    );
    let transcript = std::fs::read_to_string(dir.join("transcript.txt")).unwrap_or_default();
    // Each output writes its own lines (everyone's and his may interleave within one
    // millisecond): the game is announced no later than the guidance begins.
    let said_at = |text: &str| {
        transcript
            .lines()
            .rev()
            .find(|l| l.contains(text))
            .and_then(|l| l.split(' ').next()?.parse::<u64>().ok())
            .unwrap()
    };
    assert!(
        said_at("Neue Partie") <= said_at("Eva vier, ich weiß nicht welche, nach Eva zwei"),
        "the game is announced first: {transcript}"
    );
    assert_eq!(
        clock(&mut arbiter),
        "ok white 0:05:00 black 0:05:00 moves 0 running none"
    );
    board.hand("raw Le4");
    board.hand("raw Pe2");
    transcript_says(&dir, restarted, "blind", "nach Eva sieben");
    finish_the_set_up(&mut board, &daemon);
}

// ------------------------------------------------------------- the property, without a daemon

use annabella::boards::{SensorEvent, Timed};
use annabella::chess::game::Game;
use annabella::table::corrections::Correction;
use annabella::table::detector::{BoardKind, Conclusion, DetectorSettings, MoveDetector};
use proptest::prelude::*;
use shakmaty::{Board, Color, Piece, Position, Square};

/// One slip of the hand.
#[derive(Debug, Clone, Copy)]
enum Slip {
    /// A piece knocked (or put) from an occupied hole into an empty one.
    Knock(u8, u8),
    /// A piece taken into the hand and kept there.
    Keep(u8),
    /// A peg from beside the board dropped into an empty hole.
    Drop(u8),
    /// The last piece kept in the hand put into an empty hole.
    PutHeld(u8),
    /// A peg put into the hole of a piece he holds: one from beside the board, another piece
    /// he holds, or one knocked there (`what` % 3), which occupancy cannot tell from the
    /// held piece put back.
    IntoHeldHole { hole: u8, what: u8, from: u8 },
}

fn slip() -> impl Strategy<Value = Slip> {
    prop_oneof![
        (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Slip::Knock(a, b)),
        any::<u8>().prop_map(Slip::Keep),
        any::<u8>().prop_map(Slip::Drop),
        any::<u8>().prop_map(Slip::PutHeld),
        (any::<u8>(), any::<u8>(), any::<u8>()).prop_map(|(hole, what, from)| Slip::IntoHeldHole {
            hole,
            what,
            from
        }),
    ]
}

/// The blind player's real pieces, his hand, and the peg board's detector reading them.
struct Hand {
    game: Game,
    detector: MoveDetector,
    truth: Board,
    /// The pieces in his hand, each with the hole it was lifted from.
    held: Vec<(Piece, Square)>,
    t: u64,
    seen: Vec<Conclusion>,
    /// Holes a peg went into while the piece lifted from there was in his hand (not lifted
    /// since): the table cannot know which piece stands there, and must not name one.
    unsure: shakmaty::Bitboard,
    /// A peg went into a held piece's hole at some point: the holes may end right with the
    /// wrong pieces in them, which no occupancy board can see.
    ambiguous: bool,
}

impl Hand {
    fn new() -> Hand {
        let mut game = Game::new();
        for uci in ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"] {
            let m = shakmaty::uci::UciMove::from_ascii(uci.as_bytes())
                .unwrap()
                .to_move(game.position())
                .unwrap();
            game.play(m).unwrap();
        }
        let mut settings = DetectorSettings::for_kind(BoardKind::Occupancy);
        settings.mover = Some(Color::White);
        let detector = MoveDetector::new(BoardKind::Occupancy, settings, &game);
        let truth = game.position().board().clone();
        Hand {
            game,
            detector,
            truth,
            held: Vec::new(),
            t: 0,
            seen: Vec::new(),
            unsure: shakmaty::Bitboard::EMPTY,
            ambiguous: false,
        }
    }

    fn event(&mut self, event: SensorEvent) {
        self.t += 100;
        let mut out = Vec::new();
        self.detector
            .handle(&self.game, &Timed { at: self.t, event }, &mut out);
        self.seen.extend(out);
    }

    fn lift(&mut self, sq: Square) -> Piece {
        let piece = self.truth.remove_piece_at(sq).expect("a piece to lift");
        self.unsure.discard(sq);
        self.event(SensorEvent::Lift(sq));
        piece
    }

    fn place(&mut self, sq: Square, piece: Piece) {
        assert!(self.truth.piece_at(sq).is_none());
        self.truth.set_piece_at(sq, piece);
        if self.held_game_holes().contains(sq) {
            self.unsure.add(sq);
            self.ambiguous = true;
        }
        self.event(SensorEvent::Place(sq));
        if self.detector.observed().occupied() == self.game.position().board().occupied() {
            // The holes are the game's: the table takes the pegs for the game's pieces.
            self.unsure = shakmaty::Bitboard::EMPTY;
        }
    }

    fn nth(set: shakmaty::Bitboard, n: u8) -> Option<Square> {
        let n = usize::from(n) % set.count().max(1);
        set.into_iter().nth(n)
    }

    fn slip(&mut self, s: Slip) {
        let occupied = self.truth.occupied();
        // Pegs land in holes the game leaves empty here; `IntoHeldHole` puts them into the
        // hole of a piece he holds, which the sensors cannot tell from that piece.
        let empty = !occupied & !self.game.position().board().occupied();
        let held_holes = self.held_game_holes() & !occupied;
        match s {
            Slip::Knock(a, b) => {
                if let (Some(from), Some(to)) = (Self::nth(occupied, a), Self::nth(empty, b)) {
                    let p = self.lift(from);
                    self.place(to, p);
                }
            }
            Slip::Keep(a) => {
                if let Some(sq) = Self::nth(occupied, a) {
                    let p = self.lift(sq);
                    self.held.push((p, sq));
                }
            }
            Slip::Drop(b) => {
                if let Some(sq) = Self::nth(empty, b) {
                    self.place(sq, Piece::from_char('P').unwrap());
                }
            }
            Slip::PutHeld(b) => {
                if let (Some(sq), Some(&(p, _))) = (Self::nth(empty, b), self.held.last()) {
                    self.held.pop();
                    self.place(sq, p);
                }
            }
            Slip::IntoHeldHole { hole, what, from } => {
                let Some(sq) = Self::nth(held_holes, hole) else {
                    return;
                };
                match what % 3 {
                    0 => self.place(sq, Piece::from_char('P').unwrap()),
                    1 => {
                        // Another piece he holds (not the one from this hole).
                        if let Some(i) = self.held.iter().rposition(|&(_, o)| o != sq) {
                            let (p, _) = self.held.remove(i);
                            self.place(sq, p);
                        }
                    }
                    _ => {
                        if let Some(a) = Self::nth(occupied, from) {
                            let p = self.lift(a);
                            self.place(sq, p);
                        }
                    }
                }
            }
        }
    }

    /// The board was told wrong and has not been in sync since (a correction is due).
    fn told_wrong(&self) -> bool {
        let mut wrong = false;
        for c in &self.seen {
            match c {
                Conclusion::Illegal { .. }
                | Conclusion::Mismatch { .. }
                | Conclusion::Takeback { .. } => wrong = true,
                Conclusion::InSync => wrong = false,
                _ => {}
            }
        }
        wrong
    }

    /// The holes of the game's pieces he holds (a spare peg he holds has none).
    fn held_game_holes(&self) -> shakmaty::Bitboard {
        let game = self.game.position().board();
        self.held
            .iter()
            .filter(|&&(p, origin)| game.piece_at(origin) == Some(p))
            .map(|&(_, origin)| origin)
            .collect()
    }

    /// The instruction names a piece on a hole where the table cannot know which stands.
    fn names_the_unknowable(&self, c: Correction) -> bool {
        match c {
            Correction::Move {
                piece: Some(_),
                from,
                ..
            } => self.unsure.contains(from),
            Correction::Remove {
                piece: Some(_),
                square,
            } => self.unsure.contains(square),
            _ => false,
        }
    }

    /// Does the instruction to the letter; returns whether the piece it named was there (a
    /// move that names none: not known to be).
    fn follow(&mut self, c: Correction) -> bool {
        match c {
            Correction::Move { piece, from, to } => {
                // A move of a peg the table could not name (and said so) guarantees nothing
                // about which piece ends where.
                let named_right = piece.is_some_and(|p| self.truth.piece_at(from) == Some(p));
                let p = self.lift(from);
                self.place(to, p);
                named_right
            }
            Correction::Remove { piece, square } => {
                let named_right = piece.is_none_or(|p| self.truth.piece_at(square) == Some(p));
                self.lift(square);
                named_right
            }
            Correction::Place { piece, square } => {
                // From his hand when he holds it, else from beside the board.
                if let Some(i) = self.held.iter().position(|&(h, _)| h == piece) {
                    self.held.remove(i);
                }
                self.place(square, piece);
                true
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Any knocks, slips, pieces kept in hand and dropped pegs after 3...Bc5 (into holes the
    /// game leaves empty, or into the hole of a piece he holds), then the table's instructions
    /// followed one at a time: once the board was told wrong no move is played, and the
    /// instructions end with the board showing the game; no instruction names a piece on a
    /// hole where occupancy cannot know which stands; when every move the instructions asked
    /// for named its piece, every piece named was the one on its square and no peg went into a
    /// held piece's hole, the real pieces are the game's.
    #[test]
    fn following_the_instructions_always_ends_in_sync_and_plays_no_move(
        slips in prop::collection::vec(slip(), 1..6),
    ) {
        let mut h = Hand::new();
        for s in slips {
            let told = h.told_wrong();
            let before = h.seen.len();
            h.slip(s);
            if told {
                prop_assert!(
                    !h.seen[before..].iter().any(|c| matches!(c, Conclusion::Moved { .. })),
                    "a move during a correction: {:?}", h.seen
                );
            }
        }
        // A slip that was one legal move before anything was wrong is his move.
        prop_assume!(!h.seen.iter().any(|c| matches!(c, Conclusion::Moved { .. })));
        // Nothing said: a peg in the hand on its way (a move being made), nothing to follow.
        prop_assume!(h.told_wrong());
        let target = h.game.position().board().clone();
        let mut all_named_right = true;
        let mut said = Vec::new();
        let mut steps = 0;
        while h.detector.observed().occupied() != target.occupied() {
            let fixes = h.detector.corrections_to(&target);
            prop_assert!(!fixes.is_empty(), "the board differs, but no instruction");
            prop_assert!(
                !h.names_the_unknowable(fixes[0]),
                "{:?} names a piece the table cannot know ({:?}): {:?}", fixes[0], h.unsure, h.seen
            );
            said.push(fixes[0]);
            all_named_right &= h.follow(fixes[0]);
            steps += 1;
            prop_assert!(steps <= 40, "no end: {:?} after {:?}", said, h.seen);
        }
        prop_assert!(
            !h.seen.iter().any(|c| matches!(c, Conclusion::Moved { .. })),
            "a move while following: {:?}", h.seen
        );
        prop_assert_eq!(h.game.ply_count(), 6);
        if all_named_right && !h.ambiguous {
            prop_assert_eq!(&h.truth, &target, "the pieces are not the game's: {:?} {:?}", said, h.seen);
        }
    }
}
