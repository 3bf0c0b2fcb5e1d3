//! A DGT e-board at a hand's pace, as real boards and hands behave: a piece resting on a square on its way, a rook sliding over squares, and what `watch` (the board session) and the daemon make of it.

pub mod common;

use annabella::boards::{Millis, SensorEvent, Timed, gestures};
use annabella::chess::game::Game;
use annabella::cli::board_session::BoardSession;
use annabella::table::detector::TouchMove;
use shakmaty::{Chess, Position, Square, uci::UciMove};

/// A board session on a DGT board, fed events with their times.
struct Hands {
    session: BoardSession,
    pos: Chess,
    now: Millis,
    lines: Vec<String>,
}

impl Hands {
    fn new() -> Hands {
        let mut hands = Hands {
            session: BoardSession::new(
                annabella::boards::Protocol::Dgt,
                Game::new(),
                TouchMove::Off,
                0,
            ),
            pos: Chess::default(),
            now: 1_000,
            lines: Vec::new(),
        };
        hands.session.reconnected();
        let dump = SensorEvent::Pieces(hands.pos.board().clone());
        hands.event(dump);
        hands
    }

    fn event(&mut self, event: SensorEvent) {
        let at = self.now;
        self.session
            .feed(Ok(Timed { at, event }), true, &mut self.lines);
    }

    /// Lets `ms` pass, polling as the live loop does at the session's deadlines.
    fn wait(&mut self, ms: Millis) {
        let end = self.now + ms;
        while let Some(at) = self.session.next_deadline().filter(|&at| at <= end) {
            self.now = self.now.max(at);
            self.session.poll(self.now, &mut self.lines);
        }
        self.now = end;
        self.session.poll(self.now, &mut self.lines);
    }

    /// A move made by hand: its field updates 80 ms apart, then a pause.
    fn play(&mut self, uci: &str) {
        let m = uci.parse::<UciMove>().unwrap().to_move(&self.pos).unwrap();
        for e in gestures::identity_events(&self.pos, m, 0) {
            self.event(e);
            self.now += 80;
        }
        self.pos.play_unchecked(m);
        self.wait(1_500);
    }

    /// A piece lifted from `from`, put on `rest` for `rest_ms`, lifted again and put on `to`.
    fn play_with_rest(&mut self, from: &str, rest: &str, to: &str, rest_ms: Millis) {
        let sq = |s: &str| s.parse::<Square>().unwrap();
        let piece = self.pos.board().piece_at(sq(from)).unwrap();
        for (square, piece, pause) in [
            (sq(from), None, 80),
            (sq(rest), Some(piece), rest_ms),
            (sq(rest), None, 80),
            (sq(to), Some(piece), 0),
        ] {
            self.event(SensorEvent::SquareChanged { square, piece });
            self.wait(pause);
        }
        let m = format!("{from}{to}")
            .parse::<UciMove>()
            .unwrap()
            .to_move(&self.pos)
            .unwrap();
        self.pos.play_unchecked(m);
        self.wait(1_500);
    }

    fn moves(&self) -> Vec<String> {
        self.lines
            .iter()
            .filter(|l| l.starts_with("move "))
            .cloned()
            .collect()
    }
}

#[test]
fn a_pawn_resting_on_its_way_is_the_move_it_ends_on_and_watch_stays_in_step() {
    let mut h = Hands::new();
    h.play("e2e4");
    // Black's pawn rests a second on e6 on its way to e5: the hold concludes e6, then the
    // board shows e5 instead.
    h.play_with_rest("e7", "e6", "e5", 1_000);
    h.play("g1f3");
    h.play("b8c6");
    h.play("f1b5");
    let moves = h.moves();
    assert_eq!(
        moves.last().map(String::as_str),
        Some("move f1b5"),
        "{:#?}",
        h.lines
    );
    assert!(
        !h.lines.iter().any(|l| l.starts_with("mismatch")
            || l.starts_with("error")
            || l.starts_with("replicated")),
        "the session caught up after the rest, with nothing said twice: {:#?}",
        h.lines
    );
    assert_eq!(
        h.lines
            .iter()
            .skip_while(|l| *l != "move e7e6")
            .take(3)
            .map(String::as_str)
            .collect::<Vec<_>>(),
        ["move e7e6", "touched e6 black pawn", "takeback 1"]
    );
    let game: Vec<String> = h
        .session
        .game()
        .moves()
        .iter()
        .map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string())
        .collect();
    assert_eq!(game, ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]);
}

#[test]
fn the_kings_on_the_centre_squares_offer_a_result_not_an_illegal_move() {
    let cases = [
        (("e4", "d5"), "result-offered 1-0"),
        (("d4", "e5"), "result-offered 0-1"),
        (("e4", "e5"), "result-offered 1/2-1/2"),
    ];
    for ((white, black), want) in cases {
        let mut h = Hands::new();
        h.play("e2e4");
        h.play("e7e5");
        h.play("g1f3");
        // DGT's advice: lift both kings, then put them on the centre squares, a moment apart.
        let sq = |s: &str| s.parse::<Square>().unwrap();
        let king = |color| {
            Some(shakmaty::Piece {
                color,
                role: shakmaty::Role::King,
            })
        };
        let (white, black) = (sq(white), sq(black));
        // A king's centre square may hold a piece (e4, e5 here): it is set aside first.
        for square in [white, black] {
            if h.pos.board().piece_at(square).is_some() {
                h.event(SensorEvent::SquareChanged {
                    square,
                    piece: None,
                });
                h.wait(200);
            }
        }
        for (square, piece, pause) in [
            (Square::E1, None, 500),
            (Square::E8, None, 500),
            (white, king(shakmaty::Color::White), 800),
            (black, king(shakmaty::Color::Black), 0),
        ] {
            h.event(SensorEvent::SquareChanged { square, piece });
            h.wait(pause);
        }
        h.wait(1_000);
        assert_eq!(
            h.lines
                .last()
                .map(|l| l.split(' ').take(2).collect::<Vec<_>>().join(" ")),
            Some(want.to_owned()),
            "{:#?}",
            h.lines
        );
        assert!(
            !h.lines.iter().any(|l| l.starts_with("illegal")),
            "{:#?}",
            h.lines
        );
    }
}

/// The recording made with the simulator at a hand's pace (`tests/data/recordings/`): the
/// operator's lines, and the game they play (each `via` rest left out).
fn rest_game() -> (String, Vec<String>) {
    let script = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/recordings/dgt-rests-and-slides.txt"
    ))
    .unwrap();
    let moves = script
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("pause") && *l != "start")
        .map(|l| l.split(" via ").next().unwrap().to_owned())
        .collect();
    (script, moves)
}

/// The game `replay`/`watch` lines leave: each `move` played, each `takeback N` undone.
fn game_of(lines: &[String]) -> Vec<String> {
    let mut game = Vec::new();
    for l in lines {
        if let Some(m) = l.strip_prefix("move ") {
            game.push(m.to_owned());
        } else if let Some(n) = l.strip_prefix("takeback ") {
            for _ in 0..n.parse::<usize>().unwrap() {
                game.pop();
            }
        }
    }
    game
}

#[test]
fn a_recording_with_rests_and_slides_replays_to_its_game_to_the_last_move() {
    let (_, moves) = rest_game();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/recordings/dgt-rests-and-slides.rec"
    );
    let o = common::process::annabella(&["replay", "--protocol", "dgt", path], &[], "");
    assert!(o.status.success(), "{}", common::process::stderr(&o));
    let lines: Vec<String> = common::process::stdout(&o)
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(game_of(&lines), moves, "{lines:#?}");
    // Each rest was taken for the move, then taken back: 5 rests, 6 takebacks (one piece
    // rested twice), and nothing illegal or out of step.
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("takeback")).count(),
        6
    );
    assert!(
        !lines
            .iter()
            .any(|l| l.starts_with("illegal") || l.starts_with("mismatch")),
        "{lines:#?}"
    );
    // The stream ends on a held move: concluded at its end.
    assert_eq!(lines.last().map(String::as_str), Some("move d8d7"));
}

#[test]
fn watch_follows_the_same_hands_live_and_the_simulator_records_them() {
    let (script, moves) = rest_game();
    let dir = common::fs::scratch_dir("dgt-rests-live");
    let record = dir.join("live.rec");
    let mut board = common::board::SimulatedBoard::on_pty(
        "dgt",
        &dir.join("dgt"),
        &["--record", record.to_str().unwrap()],
    );
    let mut watch = common::process::Running::annabella(&[
        "watch",
        "--protocol",
        "dgt",
        "--device",
        dir.join("dgt").to_str().unwrap(),
    ]);
    watch.expect("the board in sync", |l| l.starts_with("in-sync"));
    for line in script
        .lines()
        .filter(|l| !l.starts_with('#') && *l != "start")
    {
        board.hand(line);
    }
    let mut lines = Vec::new();
    loop {
        let line = watch.expect("watch's lines", |_| true);
        let done = line == "move d8d7";
        lines.push(line);
        if done {
            break;
        }
    }
    assert_eq!(game_of(&lines), moves, "{lines:#?}");
    assert!(
        !lines.iter().any(|l| l.starts_with("illegal")
            || l.starts_with("mismatch")
            || l.starts_with("error")),
        "{lines:#?}"
    );
    // What the board sent, with its timing, replays to the same game.
    board.unplug();
    let o = common::process::annabella(
        &["replay", "--protocol", "dgt", record.to_str().unwrap()],
        &[],
        "",
    );
    let replayed: Vec<String> = common::process::stdout(&o)
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(game_of(&replayed), moves, "{replayed:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A clock on the board: White's time on the left. `white_runs` says whose time runs.
fn clock(white_runs: bool) -> SensorEvent {
    SensorEvent::Clock(annabella::boards::ClockReading {
        left_ms: 60_000,
        right_ms: 60_000,
        running: true,
        right_runs: !white_runs,
    })
}

#[test]
fn with_a_clock_on_the_board_the_move_is_complete_at_the_press() {
    let mut h = Hands::new();
    h.event(clock(true));
    h.play("e2e4");
    // White presses: Black's time runs. The move stands (it was held for the press).
    h.event(clock(false));
    h.wait(100);
    assert_eq!(h.moves(), ["move e2e4"], "{:#?}", h.lines);
    // Black's pawn rests two seconds on e6 on its way to e5: no move until his press, then the
    // move it ended on, with no takeback.
    h.play_with_rest("e7", "e6", "e5", 2_000);
    assert_eq!(h.moves(), ["move e2e4"], "{:#?}", h.lines);
    h.event(clock(true));
    h.wait(100);
    assert_eq!(h.moves(), ["move e2e4", "move e7e5"], "{:#?}", h.lines);
    assert!(
        !h.lines.iter().any(|l| l.starts_with("takeback")),
        "{:#?}",
        h.lines
    );
    // A hand faster than the board's scan: the press arrives before the knight's square.
    let m = "g1f3".parse::<UciMove>().unwrap().to_move(&h.pos).unwrap();
    let events = gestures::identity_events(&h.pos, m, 0);
    let (last, first) = events.split_last().unwrap();
    for e in first {
        h.event(e.clone());
        h.now += 80;
    }
    h.event(clock(false));
    h.now += 200;
    h.event(last.clone());
    h.pos.play_unchecked(m);
    h.wait(100);
    assert_eq!(
        h.moves().last().map(String::as_str),
        Some("move g1f3"),
        "{:#?}",
        h.lines
    );
    let game: Vec<String> = h
        .session
        .game()
        .moves()
        .iter()
        .map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string())
        .collect();
    assert_eq!(game, ["e2e4", "e7e5", "g1f3"]);
}

/// A raw DGT stream (no time of its own) as a board with a clock sends it: the field updates
/// of the hands and, every second, the clock's times; White's time on the left.
struct ClockedStream {
    bytes: Vec<u8>,
    pos: Chess,
    left_ms: u64,
    right_ms: u64,
    right_runs: bool,
}

impl ClockedStream {
    fn new() -> ClockedStream {
        let pos = Chess::default();
        ClockedStream {
            bytes: annabella::boards::dgt::encode_board_dump(pos.board()),
            pos,
            left_ms: 300_000,
            right_ms: 300_000,
            right_runs: false,
        }
    }

    fn frame(&mut self) {
        self.bytes.extend(annabella::boards::dgt::encode_clock(
            &annabella::boards::ClockReading {
                left_ms: self.left_ms,
                right_ms: self.right_ms,
                running: true,
                right_runs: self.right_runs,
            },
        ));
    }

    /// `seconds` of the clock's frames, the running side's time going down.
    fn tick(&mut self, seconds: u64) {
        for _ in 0..seconds {
            if self.right_runs {
                self.right_ms -= 1_000;
            } else {
                self.left_ms -= 1_000;
            }
            self.frame();
        }
    }

    /// The player who moved presses his clock: the other side's time runs.
    fn press(&mut self) {
        self.right_runs = !self.right_runs;
        self.frame();
    }

    fn update(&mut self, square: &str, piece: Option<shakmaty::Piece>) {
        self.bytes
            .extend(annabella::boards::dgt::encode_field_update(
                square.parse().unwrap(),
                piece,
            ));
    }

    fn play(&mut self, uci: &str) {
        let m = uci.parse::<UciMove>().unwrap().to_move(&self.pos).unwrap();
        for e in gestures::identity_events(&self.pos, m, 0) {
            if let SensorEvent::SquareChanged { square, piece } = e {
                self.bytes
                    .extend(annabella::boards::dgt::encode_field_update(square, piece));
            }
        }
        self.pos.play_unchecked(m);
    }
}

#[test]
fn a_raw_recording_with_a_clock_gives_each_move_at_its_press_and_reads_the_result() {
    let pawn = Some(shakmaty::Piece {
        color: shakmaty::Color::Black,
        role: shakmaty::Role::Pawn,
    });
    let king = |color| {
        Some(shakmaty::Piece {
            color,
            role: shakmaty::Role::King,
        })
    };
    let mut s = ClockedStream::new();
    s.tick(1);
    s.play("e2e4");
    s.press();
    s.tick(2);
    // The pawn rests two seconds on e6 on its way to e5: no move until Black's press.
    s.update("e7", None);
    s.update("e6", pawn);
    s.tick(2);
    s.update("e6", None);
    s.update("e5", pawn);
    s.pos
        .play_unchecked("e7e5".parse::<UciMove>().unwrap().to_move(&s.pos).unwrap());
    s.press();
    s.tick(1);
    s.play("g1f3");
    s.press();
    s.tick(1);
    // The game's last move, then the result gesture (1-0): the kings are a result, not an
    // illegal move.
    s.update("e4", None);
    s.update("e1", None);
    s.update("e8", None);
    s.update("e4", king(shakmaty::Color::White));
    s.update("d5", king(shakmaty::Color::Black));
    s.tick(1);
    let o = common::process::annabella(&["replay", "--protocol", "dgt", "-"], &[], &s.bytes);
    assert!(o.status.success(), "{}", common::process::stderr(&o));
    let lines: Vec<String> = common::process::stdout(&o)
        .lines()
        .filter(|l| !l.starts_with("touched"))
        .map(str::to_owned)
        .collect();
    assert_eq!(
        lines,
        [
            "move e2e4",
            "move e7e5",
            "move g1f3",
            "result-offered 1-0 (both kings on the centre squares: white wins); for the arbiter to confirm",
        ],
        "{lines:#?}"
    );
}

mod daemon {
    use std::path::Path;
    use std::time::Duration;

    use annabella::boards::dgt;
    use shakmaty::{Color, Piece, Role, Square};

    use crate::common::board::SimulatedBoard;
    use crate::common::control::ControlClient;
    use crate::common::daemon::{Daemon, Serve};
    use crate::common::fs::scratch_dir;

    /// The daemon with a simulated peg board (White, the blind player) and a simulated DGT
    /// board (Black, the sighted player).
    fn table(dir: &Path) -> (Daemon, SimulatedBoard, SimulatedBoard, ControlClient) {
        let peg = SimulatedBoard::on_pty("peg", &dir.join("peg"), &[]);
        let dgt = SimulatedBoard::on_pty("dgt", &dir.join("dgt"), &[]);
        let speech = format!("transcript:{}", dir.join("transcript.txt").display());
        let normal = format!("dgt:{}", dir.join("dgt").display());
        let daemon = Serve::new(&dir.join("state"))
            .args(["--peg", dir.join("peg").to_str().unwrap()])
            .args(["--normal", &normal, "--speech", &speech])
            .start();
        let mut watcher = daemon.connect("observer");
        assert!(watcher.ask("events").starts_with("ok events"));
        watcher.wait_status("peg connected in-sync");
        watcher.wait_status("normal connected in-sync");
        (daemon, peg, dgt, watcher)
    }

    /// One field update as the simulator's `raw` hex line.
    fn update(square: Square, piece: Option<Piece>) -> String {
        let hex: Vec<String> = dgt::encode_field_update(square, piece)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        format!("raw {}", hex.join(" "))
    }

    const BLACK_PAWN: Option<Piece> = Some(Piece {
        color: Color::Black,
        role: Role::Pawn,
    });

    /// Black's pawn from e7 to e5, resting `rest` on e6 on its way; `meanwhile` runs during
    /// the rest (after the move on e6 was announced). The simulator is then told the position.
    fn pawn_rests_on_e6(
        dgt: &mut SimulatedBoard,
        watcher: &ControlClient,
        meanwhile: impl FnOnce(),
    ) {
        dgt.hand(&update(Square::E7, None));
        std::thread::sleep(Duration::from_millis(80));
        dgt.hand(&update(Square::E6, BLACK_PAWN));
        watcher.heard("Eva sechs");
        meanwhile();
        dgt.hand(&update(Square::E6, None));
        std::thread::sleep(Duration::from_millis(80));
        dgt.hand(&update(Square::E5, BLACK_PAWN));
        std::thread::sleep(Duration::from_millis(600));
        dgt.hand("fen rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    }

    #[test]
    fn a_pawn_that_moves_on_from_its_rest_is_the_move_the_blind_player_hears() {
        let dir = scratch_dir("dgt-rest");
        let (daemon, mut peg, mut dgt, watcher) = table(&dir);
        peg.hand("e2e4");
        watcher.expect_event("1.e4", |l| l.starts_with("event move 1 white e2e4"));
        dgt.hand("e2e4");
        watcher.expect_event("the copy on the e-board", |l| {
            l == "event normal replicated e2e4"
        });
        pawn_rests_on_e6(&mut dgt, &watcher, || {});
        watcher.expect_event("the amend", |l| l == "event undo e7e6");
        watcher.heard("Korrektur");
        watcher.heard("Eva fünf");
        peg.hand("e7e5");
        watcher.heard("in Ordnung");
        peg.hand("g1f3");
        watcher.expect_event("2.Nf3", |l| l.starts_with("event move 3 white g1f3"));
        let mut black = daemon.connect("black");
        // New connections speak English; this one uses the table's German letters.
        assert_eq!(black.ask("lang de"), "ok lang de");
        let sheet = black.ask("sheet");
        assert_eq!(sheet, "ok 1. e4 e5 2. Sf3");
        let transcript = std::fs::read_to_string(dir.join("transcript.txt")).unwrap();
        assert!(
            !transcript.contains("stimmt nicht") && !transcript.contains("Unzulässig"),
            "nobody was told to correct anything: {transcript}"
        );
    }

    #[test]
    fn once_the_blind_player_has_begun_to_copy_the_rest_was_the_move() {
        let dir = scratch_dir("dgt-rest-copied");
        let (_daemon, mut peg, mut dgt, watcher) = table(&dir);
        peg.hand("e2e4");
        watcher.expect_event("1.e4", |l| l.starts_with("event move 1 white e2e4"));
        dgt.hand("e2e4");
        watcher.expect_event("the copy on the e-board", |l| {
            l == "event normal replicated e2e4"
        });
        // He has lifted the pawn on e7 to copy e7-e6 when the opponent's pawn moves on.
        pawn_rests_on_e6(&mut dgt, &watcher, || peg.hand("raw Le7"));
        watcher.expect_event("the e-board told to put it back", |l| {
            l.starts_with("event guide normal") && l.contains("e5") && l.contains("e6")
        });
    }

    #[test]
    fn the_result_gesture_is_put_to_the_arbiter_who_confirms_it() {
        let dir = scratch_dir("dgt-result");
        let (daemon, mut peg, mut dgt, watcher) = table(&dir);
        peg.hand("e2e4");
        watcher.expect_event("1.e4", |l| l.starts_with("event move 1 white e2e4"));
        dgt.hand("e2e4");
        watcher.expect_event("the copy", |l| l == "event normal replicated e2e4");
        dgt.hand("e7e5");
        watcher.expect_event("1...e5", |l| l.starts_with("event move 2 black e7e5"));
        peg.hand("e7e5");
        watcher.heard("in Ordnung");
        // White resigned by word of mouth; the players show 1-0 on the e-board: the pawn on e4
        // set aside, both kings lifted, then put on the light centre squares e4 and d5.
        let king = |color| {
            Some(Piece {
                color,
                role: Role::King,
            })
        };
        for (square, piece) in [
            (Square::E4, None),
            (Square::E1, None),
            (Square::E8, None),
            (Square::E4, king(Color::White)),
            (Square::D5, king(Color::Black)),
        ] {
            dgt.hand(&update(square, piece));
            std::thread::sleep(Duration::from_millis(150));
        }
        watcher.expect_event("the offer", |l| l == "event result-offered normal 1-0");
        watcher.expect_event("told to the arbiter", |l| {
            l == "event say arbiter Ergebnis auf dem Brett angezeigt: Weiß gewinnt. Zum Bestätigen result eingeben"
        });
        let mut black = daemon.connect("black");
        // New connections speak English; this one uses the table's German letters.
        assert_eq!(black.ask("lang de"), "ok lang de");
        assert!(
            black.ask("result 1-0").starts_with("error forbidden"),
            "only the arbiter declares a result"
        );
        let mut arbiter = daemon.connect("arbiter");
        assert_eq!(arbiter.ask("result 1-0"), "ok result 1-0");
        watcher.expect_event("the end", |l| l.starts_with("event end 1-0"));
        assert!(arbiter.ask("result 0-1").starts_with("error state"));
        assert!(arbiter.ask("result 2-0").starts_with("error syntax"));
    }

    /// A clock frame as the simulator's `raw` line: White (left) or Black running.
    fn clock_frame(white_runs: bool) -> String {
        let hex: Vec<String> = dgt::encode_clock(&annabella::boards::ClockReading {
            left_ms: 3_600_000,
            right_ms: 3_600_000,
            running: true,
            right_runs: !white_runs,
        })
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
        format!("raw {}", hex.join(" "))
    }

    #[test]
    fn with_a_clock_the_blind_player_hears_the_move_at_the_press_and_never_the_rest() {
        let dir = scratch_dir("dgt-press");
        let (daemon, mut peg, mut dgt, watcher) = table(&dir);
        dgt.hand(&clock_frame(true));
        peg.hand("e2e4");
        watcher.expect_event("1.e4", |l| l.starts_with("event move 1 white e2e4"));
        // The blind player presses the clock; the sighted player copies e4 on his board.
        dgt.hand(&clock_frame(false));
        dgt.hand("e2e4");
        watcher.expect_event("the copy", |l| l == "event normal replicated e2e4");
        // His pawn rests on e6 (the blind player hears nothing), goes on to e5, and he presses.
        dgt.hand(&update(Square::E7, None));
        std::thread::sleep(Duration::from_millis(80));
        dgt.hand(&update(Square::E6, BLACK_PAWN));
        std::thread::sleep(Duration::from_millis(1_200));
        dgt.hand(&update(Square::E6, None));
        std::thread::sleep(Duration::from_millis(80));
        dgt.hand(&update(Square::E5, BLACK_PAWN));
        std::thread::sleep(Duration::from_millis(800));
        let mut observer = daemon.connect("observer");
        assert!(
            observer.ask("board").contains("rnbqkbnr/pppppppp"),
            "no move before the press"
        );
        dgt.hand(&clock_frame(true));
        watcher.expect_event("1...e5 at the press", |l| {
            assert!(!l.contains("e7e6"), "the rest was taken for a move: {l}");
            l.starts_with("event move 2 black e7e5")
        });
        // The simulator is told the position its hand made (it sends a dump: the same).
        dgt.hand("fen rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
        watcher.heard("Eva fünf");
        peg.hand("e7e5");
        watcher.heard("in Ordnung");
        let transcript = std::fs::read_to_string(dir.join("transcript.txt")).unwrap();
        assert!(
            !transcript.contains("Eva sechs") && !transcript.contains("Korrektur"),
            "{transcript}"
        );
        // The talking clock follows the clock on the board, which shows an hour a side (the
        // table was set to 90 minutes): White's side learned at the press is the left one.
        let clock = observer.ask("clock");
        assert!(
            clock.starts_with("ok white 0:59:") || clock.starts_with("ok white 1:00:00"),
            "{clock}"
        );
        assert!(clock.contains("black 1:00:00"), "{clock}");
    }
}
