//! The table state machine without I/O: sensor events and control requests in, journal records,
//! utterances and event lines out, with time as a parameter; and a journal replayed into the
//! same table.

use annabella::boards::{BoardKey, SensorEvent};
use annabella::chess::language::Language;
use annabella::chess::notation::Verbosity;
use annabella::control::wire::{RefusalLine, event_line, reply_line};
use annabella::table::clock::AnnounceSchedule;
use annabella::table::control::{GameTag, Role, TableRequest as Command};
use annabella::table::record::Record;

use annabella::table::event::TableEvent;
use annabella::table::state::{
    BoardId, Effect, Input, Listener, NormalBoard, Now, Step, Table, TableSettings, Urgency,
};
use shakmaty::{Bitboard, Color, Position, Role as Piece, Square};

const T0: u64 = 1_700_000_000_000;

fn settings(peg_side: Color, tc: &str) -> TableSettings {
    TableSettings::new(
        "t1".parse().unwrap(),
        peg_side,
        Language::german(),
        tc.parse().unwrap(),
    )
}

/// A table, its journal so far, and everything it said.
struct Harness {
    table: Table,
    journal: Vec<(u64, String)>,
    said: Vec<(Listener, String)>,
    events: Vec<String>,
    /// The table's record of two-board resolutions.
    records: Vec<String>,
    now: u64,
}

impl Harness {
    fn new(s: TableSettings) -> Harness {
        let (table, out) = Table::new(s, Now::at(T0)).unwrap();
        let mut h = Harness {
            table,
            journal: Vec::new(),
            said: Vec::new(),
            events: Vec::new(),
            records: Vec::new(),
            now: T0,
        };
        h.take(out);
        h
    }

    fn take(&mut self, out: Step) {
        for entry in &out.records {
            assert_eq!(
                entry.t, self.now,
                "a record carries the time it was applied"
            );
            self.journal.push((self.now, entry.to_string()));
        }
        for e in &out.effects {
            match e {
                Effect::Event(e) => {
                    if let TableEvent::Say(say) = e {
                        self.said.push((say.listener, say.text.clone()));
                    }
                    self.events.push(event_line(e));
                }
                Effect::Finished { .. } => {}
                Effect::Resolution { text } => self.records.push(text.clone()),
            }
        }
    }

    /// The last journal record without its table time (`move e2e4 peg`).
    fn last_record(&self) -> String {
        let (_, line) = self.journal.last().expect("a record");
        let (_t, record) = line.split_once(' ').expect("a stamped record");
        record.to_owned()
    }

    fn at(&mut self, ms: u64) -> &mut Self {
        self.now += ms;
        self
    }

    fn peg(&mut self, event: SensorEvent) {
        let out = self.table.handle(
            Now::at(self.now),
            Input::Sensor {
                board: BoardId::Peg,
                event,
            },
        );
        self.take(out)
    }

    fn lift(&mut self, sq: Square) {
        self.now += 100;
        self.peg(SensorEvent::Lift(sq));
    }

    fn place(&mut self, sq: Square) {
        self.now += 100;
        self.peg(SensorEvent::Place(sq));
    }

    fn ask(&mut self, role: Role, line: &str) -> String {
        // A malformed argument (`export docx`) is refused where the line is read.
        let command = match annabella::table::control::parse_table_line(line.as_bytes()) {
            Ok(command) => command,
            Err(refusal) => return refusal.line(),
        };
        let (reply, out) =
            self.table
                .request(Now::at(self.now), role, Language::german(), &command);
        self.take(out);
        reply_line(&reply)
    }

    fn tick(&mut self) {
        let out = self.table.handle(Now::at(self.now), Input::Tick);
        self.take(out);
    }

    fn last_said(&self, listener: Listener) -> &str {
        self.said
            .iter()
            .rev()
            .find(|(l, _)| *l == listener)
            .map(|(_, t)| t.as_str())
            .unwrap_or("")
    }

    fn connect_peg(&mut self) {
        let out = self.table.handle(
            Now::at(self.now),
            Input::Link {
                board: BoardId::Peg,
                up: true,
                detail: "/dev/pts/9".into(),
            },
        );
        self.take(out);
        let start = Bitboard(0xFFFF_0000_0000_FFFF);
        self.peg(SensorEvent::Occupancy(start));
    }
}

#[test]
fn the_blind_players_move_is_journaled_then_announced_and_the_clock_turns() {
    let mut h = Harness::new(settings(Color::White, "5400+30"));
    let white_at_start = h.table.clock().remaining(Color::White, h.now);
    h.connect_peg();
    assert!(
        h.events.iter().any(|e| e == "event in-sync peg"),
        "{:?}",
        h.events
    );
    h.at(5_000);
    h.lift(Square::E2);
    h.place(Square::E4);
    assert_eq!(h.table.game().ply_count(), 1);
    assert_eq!(h.last_said(Listener::Opponent), "Eva vier");
    assert_eq!(h.last_said(Listener::BlindPlayer), "Eva vier");
    assert_eq!(h.last_record(), "move e2e4 peg");
    // D.2.3/D.2.4: White's clock stopped when the move was made and announced; 5.2 s used,
    // 30 s increment.
    let white = h.table.clock().remaining(Color::White, h.now);
    assert_eq!(white, white_at_start - 5_200 + 30_000);
    assert_eq!(h.table.clock().running(), Some(Color::Black));
    assert!(
        h.events
            .iter()
            .any(|e| e == "event move 1 white e2e4 e4 peg"),
        "{:?}",
        h.events
    );
}

#[test]
fn the_opponents_move_is_announced_replicated_and_confirmed() {
    let mut h = Harness::new(settings(Color::White, "5400+30"));
    h.connect_peg();
    h.lift(Square::E2);
    h.place(Square::E4);
    // The correspondence side sends ICCF numeric notation.
    let reply = h.ask(Role::Player(Color::Black), "move 5755");
    assert_eq!(reply, "ok e7e5 e5");
    assert_eq!(h.last_said(Listener::BlindPlayer), "Eva fünf");
    // KA repeats the move the blind player owes, with its number and colour.
    h.peg(SensorEvent::Key(BoardKey::Repeat));
    assert_eq!(
        h.last_said(Listener::BlindPlayer),
        "Zug eins, Schwarz: Eva fünf"
    );
    h.lift(Square::E7);
    h.place(Square::E5);
    assert_eq!(h.last_said(Listener::BlindPlayer), "in Ordnung");
    assert!(
        h.ask(Role::Observer, "status")
            .contains("peg connected in-sync")
    );
}

#[test]
fn a_wrong_replication_is_corrected_square_by_square() {
    let mut h = Harness::new(settings(Color::White, "5400+30"));
    h.connect_peg();
    h.lift(Square::E2);
    h.place(Square::E4);
    assert_eq!(h.ask(Role::Assistant, "move Sf6"), "ok g8f6 Sf6");
    assert_eq!(h.last_said(Listener::BlindPlayer), "Springer Felix sechs");
    // He puts the knight on h6 instead.
    h.lift(Square::G8);
    h.place(Square::H6);
    let said = h.last_said(Listener::BlindPlayer).to_owned();
    assert!(
        said.contains("Springer von Hector sechs nach Felix sechs"),
        "{said}"
    );
    // The difference started the two-sheet procedure: the sheets agree, so the peg board is
    // the one to correct, and the table's record says so.
    let record = h
        .records
        .last()
        .expect("a resolution in the table's record");
    assert!(record.contains("sheets agree"), "{record}");
    assert!(
        h.events
            .iter()
            .any(|e| e == "event resolution agree plies 2"),
        "{:?}",
        h.events
    );
    assert!(h.ask(Role::Observer, "status").contains("differs"));
    h.lift(Square::H6);
    h.place(Square::F6);
    let said = h.last_said(Listener::BlindPlayer);
    assert!(
        said == "Brett stimmt wieder" || said == "in Ordnung",
        "{said}"
    );
    assert!(
        h.ask(Role::Observer, "status")
            .contains("peg connected in-sync")
    );
}

#[test]
fn promotion_waits_for_the_key_and_names_the_piece() {
    let mut s = settings(Color::White, "300");
    s.start_fen = Some("8/4P3/8/8/8/8/k7/4K3 w - - 0 1".into());
    let mut h = Harness::new(s);
    let out = h.table.handle(
        Now::at(h.now),
        Input::Link {
            board: BoardId::Peg,
            up: true,
            detail: "sim".into(),
        },
    );
    h.take(out);
    let occ = Bitboard::from(Square::E7) | Bitboard::from(Square::A2) | Bitboard::from(Square::E1);
    h.peg(SensorEvent::Occupancy(occ));
    h.lift(Square::E7);
    h.place(Square::E8);
    assert_eq!(h.table.game().ply_count(), 0);
    assert!(
        h.last_said(Listener::BlindPlayer).starts_with("Umwandlung"),
        "{:?}",
        h.said
    );
    h.peg(SensorEvent::Key(BoardKey::Promote(Piece::Knight)));
    assert_eq!(h.table.game().ply_count(), 1);
    assert_eq!(h.last_said(Listener::Opponent), "Eva acht wird Springer");
    assert_eq!(h.last_record(), "move e7e8n peg");
}

#[test]
fn requests_respect_roles_and_turns() {
    let mut h = Harness::new(settings(Color::White, "5400+30"));
    assert!(
        h.ask(Role::Observer, "move e4")
            .starts_with("error forbidden an observer may only read")
    );
    assert_eq!(
        h.ask(Role::Player(Color::Black), "move e5"),
        "error forbidden you play black; it is white's move"
    );
    assert!(
        h.ask(Role::Player(Color::White), "move e5")
            .starts_with("error move")
    );
    assert!(h.ask(Role::Assistant, "move Sf4").starts_with("error move"));
    assert_eq!(h.table.game().ply_count(), 0);
    assert!(h.journal.iter().all(|(_, l)| !l.contains(" move ")));
    assert!(h.ask(Role::Observer, "board").starts_with("ok rnbqkbnr/"));
    assert!(h.ask(Role::Observer, "events").starts_with("error syntax"));
}

#[test]
fn undo_gives_the_time_back_and_the_board_is_told() {
    let mut h = Harness::new(settings(Color::Black, "600"));
    h.connect_peg();
    h.at(10_000);
    assert_eq!(h.ask(Role::Assistant, "move d4"), "ok d2d4 d4");
    h.at(3_000);
    // A slip of the tongue: he meant e4 (D.2.8).
    assert_eq!(h.ask(Role::Assistant, "undo"), "ok withdrawn d2d4");
    assert_eq!(h.table.game().ply_count(), 0);
    // Black's clock did not lose the three seconds; White's ran on.
    assert_eq!(h.table.clock().remaining(Color::Black, h.now), 600_000);
    assert_eq!(h.table.clock().remaining(Color::White, h.now), 587_000);
    assert!(
        h.last_said(Listener::Everyone)
            .starts_with("Zug zurückgenommen")
    );
    assert_eq!(h.ask(Role::Assistant, "move e4"), "ok e2e4 e4");
    assert!(
        h.ask(Role::Player(Color::Black), "undo")
            .starts_with("error forbidden")
    );
}

#[test]
fn the_flag_falls_on_a_tick_and_the_result_is_announced() {
    let mut h = Harness::new(settings(Color::White, "60"));
    assert!(
        h.table
            .next_deadline(h.now)
            .is_some_and(|d| d <= T0 + 60_000)
    );
    h.at(60_000);
    h.tick();
    assert_eq!(h.last_record(), "flag white");
    let end = h.last_said(Listener::Everyone);
    // Black has a full army: White loses.
    assert!(end.contains("Weiß hat die Zeit überschritten"), "{end}");
    assert!(
        h.ask(Role::Assistant, "move e4")
            .starts_with("error state the game is over")
    );
}

#[test]
fn the_talking_clock_speaks_on_the_key_and_at_thresholds() {
    let mut s = settings(Color::White, "600");
    s.announce = "1m@5m".parse().unwrap();
    let mut h = Harness::new(s);
    h.peg(SensorEvent::Key(BoardKey::Time));
    assert_eq!(
        h.last_said(Listener::BlindPlayer),
        "Weiß zehn Minuten, Schwarz zehn Minuten, null Züge gespielt. Weiß am Zug"
    );
    h.at(300_000);
    h.tick();
    assert_eq!(h.last_said(Listener::BlindPlayer), "Weiß fünf Minuten");
}

#[test]
fn a_journal_replays_into_the_same_table() {
    let mut h = Harness::new(settings(Color::White, "40/5400+30:1800+30"));
    h.connect_peg();
    h.lift(Square::E2);
    h.place(Square::E4);
    h.at(2_000);
    h.ask(Role::Player(Color::Black), "move 5755");
    h.lift(Square::E7);
    h.place(Square::E5);
    h.at(4_000);
    h.lift(Square::G1);
    h.place(Square::F3);
    h.at(1_000);
    h.ask(Role::Player(Color::Black), "offer-draw");
    let restored = Table::restore(settings(Color::White, "300"), &h.journal).unwrap();
    assert_eq!(restored.game().fen(), h.table.game().fen());
    assert_eq!(restored.sheet().entries(), h.table.sheet().entries());
    assert_eq!(restored.clock().state(), h.table.clock().state());
    assert_eq!(
        restored.settings().time_control.to_string(),
        "40/5400+30:1800+30"
    );

    // A journal written before records carried their table time (the wall time beside each
    // line stood for it) restores the same table.
    let legacy: Vec<(u64, String)> = h
        .journal
        .iter()
        .map(|(at, line)| (*at, line.split_once(' ').unwrap().1.to_owned()))
        .collect();
    let old = Table::restore(settings(Color::White, "300"), &legacy).unwrap();
    assert_eq!(old.game().fen(), h.table.game().fen());
    assert_eq!(old.clock().state(), h.table.clock().state());

    let mut broken = h.journal.clone();
    broken[2].1 = "move e2e5 peg".into();
    let err = Table::restore(settings(Color::White, "300"), &broken)
        .err()
        .unwrap();
    assert_eq!(err.index, 3);
    assert!(err.to_string().contains("e2e5"), "{err}");
    assert!(Table::restore(settings(Color::White, "300"), &[]).is_err());
}

#[test]
fn draws_by_agreement_and_claims() {
    let mut h = Harness::new(settings(Color::White, "600"));
    for (role, mv) in [
        (Role::Assistant, "Sf3"),
        (Role::Player(Color::Black), "Sf6"),
        (Role::Assistant, "Sg1"),
        (Role::Player(Color::Black), "Sg8"),
        (Role::Assistant, "Sf3"),
        (Role::Player(Color::Black), "Sf6"),
        (Role::Assistant, "Sg1"),
    ] {
        assert!(h.ask(role, &format!("move {mv}")).starts_with("ok"));
    }
    // Black writes Sg8, which would repeat the position a third time (9.2.1).
    assert_eq!(
        h.ask(Role::Player(Color::Black), "claim-draw Sg8"),
        "ok draw by threefold repetition"
    );
    assert!(h.events.iter().any(|e| e.starts_with("event end 1/2-1/2")));

    let mut h = Harness::new(settings(Color::White, "600"));
    assert!(
        h.ask(Role::Player(Color::White), "claim-draw")
            .starts_with("error state claim refused")
    );
    // A wrong claim gives the opponent two minutes (9.5.3; 600 s is rapid: one minute).
    assert!(h.table.clock().remaining(Color::Black, h.now) > 600_000);
    h.ask(Role::Assistant, "move e4");
    h.ask(Role::Player(Color::Black), "move e5");
    assert_eq!(
        h.ask(Role::Player(Color::White), "offer-draw"),
        "ok white offers a draw"
    );
    assert_eq!(
        h.ask(Role::Player(Color::Black), "offer-draw"),
        "ok draw agreed"
    );
    assert_eq!(h.last_record(), "agree-draw");
}

#[test]
fn command_parsing_with_a_promote_request() {
    assert_eq!(
        annabella::table::control::parse_table_line(b"promote q").unwrap(),
        Command::Promote {
            piece: Piece::Queen
        }
    );
}

#[test]
fn parse_previews_a_move_and_export_gives_the_sheet() {
    let mut h = Harness::new(settings(Color::White, "600"));
    assert_eq!(
        h.ask(Role::Observer, "parse Sf3"),
        "ok g1f3 Sf3 Springer Felix drei"
    );
    assert_eq!(h.table.game().ply_count(), 0, "parse plays nothing");
    assert!(h.ask(Role::Observer, "parse Sf4").starts_with("error move"));
    h.ask(Role::Assistant, "move e4");
    h.ask(Role::Player(Color::Black), "move 5755");
    let pgn = h.ask(Role::Observer, "export pgn");
    assert!(
        pgn.starts_with("ok \"[Event \\\"annabella t1\\\"]\\n"),
        "{pgn}"
    );
    assert!(pgn.contains("1. e4 {[%clk"), "{pgn}");
    let iccf = h.ask(Role::Observer, "export iccf");
    assert!(iccf.contains("1. 5254 5755"), "{iccf}");
    // Any position of the record, for a page stepping through it.
    assert_eq!(
        h.ask(Role::Observer, "board 0"),
        "ok rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    assert_eq!(
        h.ask(Role::Observer, "board 1"),
        "ok rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    assert_eq!(
        h.ask(Role::Observer, "board 2"),
        h.ask(Role::Observer, "board")
    );
    assert_eq!(
        h.ask(Role::Observer, "board 3"),
        "error syntax the game has 2 half-moves; board takes 0 to 2"
    );
    let braille = h.ask(Role::Observer, "export braille");
    assert!(braille.contains('⠑'), "{braille}");
    assert!(
        h.ask(Role::Observer, "export docx")
            .starts_with("error syntax no export format")
    );
}

/// Plays `uci` on a board through the events a hand produces there.
fn hand(h: &mut Harness, board: BoardId, uci: &str) {
    use annabella::boards::gestures::{identity_events, peg_events};
    use shakmaty::uci::UciMove;
    // The board's own position: the game's, or the one before the owed move.
    let pos = h.table.game().position().clone();
    let m = UciMove::from_ascii(uci.as_bytes())
        .unwrap()
        .to_move(&pos)
        .unwrap();
    let events = match board {
        BoardId::Peg => peg_events(&pos, m, 0),
        BoardId::Normal => identity_events(&pos, m, 0),
    };
    for e in events {
        h.now += 50;
        let out = h
            .table
            .handle(Now::at(h.now), Input::Sensor { board, event: e });
        h.take(out);
    }
    // An e-board's conclusions wait for the board to be quiet.
    h.now += 1_000;
    h.tick();
}

#[test]
fn a_sighted_opponent_on_an_e_board_plays_against_the_peg_board() {
    let mut s = settings(Color::White, "600");
    s.normal = NormalBoard::Identity;
    let mut h = Harness::new(s);
    h.connect_peg();
    let out = h.table.handle(
        Now::at(h.now),
        Input::Link {
            board: BoardId::Normal,
            up: true,
            detail: "dgt".into(),
        },
    );
    h.take(out);
    let start = shakmaty::Chess::default().board().clone();
    let out = h.table.handle(
        Now::at(h.now),
        Input::Sensor {
            board: BoardId::Normal,
            event: SensorEvent::Pieces(start),
        },
    );
    h.take(out);
    assert!(
        h.events.iter().any(|e| e == "event in-sync normal"),
        "{:?}",
        h.events
    );

    hand(&mut h, BoardId::Peg, "d2d4");
    assert_eq!(h.table.game().ply_count(), 1);
    assert!(
        h.ask(Role::Observer, "status")
            .contains("normal connected owes-move")
    );
    // The sighted player carries out the blind player's move on his board, then replies.
    let pos_before = h.table.game().position_before(0).unwrap();
    let d4 = shakmaty::uci::UciMove::from_ascii(b"d2d4")
        .unwrap()
        .to_move(&pos_before)
        .unwrap();
    for e in annabella::boards::gestures::identity_events(&pos_before, d4, 0) {
        h.now += 50;
        let out = h.table.handle(
            Now::at(h.now),
            Input::Sensor {
                board: BoardId::Normal,
                event: e,
            },
        );
        h.take(out);
    }
    h.now += 1_000;
    h.tick();
    assert!(
        h.ask(Role::Observer, "status")
            .contains("normal connected in-sync"),
        "{:?}",
        h.events
    );
    hand(&mut h, BoardId::Normal, "g8f6");
    assert_eq!(h.table.game().ply_count(), 2);
    assert_eq!(h.last_said(Listener::BlindPlayer), "Springer Felix sechs");
    assert_eq!(h.last_record(), "move g8f6 normal");
}

#[test]
fn the_blind_player_is_guided_one_correction_at_a_time() {
    let mut h = Harness::new(settings(Color::White, "600"));
    h.connect_peg();
    h.lift(Square::E2);
    h.place(Square::E4);
    h.ask(Role::Player(Color::Black), "move e5");
    // Instead of replicating e7-e5 he moves one of his own pawns.
    h.lift(Square::D2);
    h.place(Square::D4);
    assert_eq!(
        h.last_said(Listener::BlindPlayer),
        "Brett stimmt nicht mit der Partie überein. Bauer von David vier nach David zwei"
    );
    h.lift(Square::D4);
    h.place(Square::D2);
    // Back where he was: the board is right, and he still owes Black's move.
    assert_eq!(
        h.last_said(Listener::BlindPlayer),
        "Brett stimmt wieder. Eva fünf"
    );
    h.lift(Square::E7);
    h.place(Square::E5);
    assert_eq!(h.last_said(Listener::BlindPlayer), "in Ordnung");

    // Two corrections, one at a time: a knight and a bishop knocked out of place.
    h.lift(Square::G1);
    h.place(Square::F3);
    assert_eq!(h.last_said(Listener::Opponent), "Springer Felix drei");
    h.ask(Role::Player(Color::Black), "move Sc6");
    h.lift(Square::B8);
    h.place(Square::C6);
    let said_before = h.said.len();
    // Neither is a legal move: the bishop cannot pass g2, a knight does not move like that.
    h.lift(Square::F1);
    h.place(Square::H3);
    h.lift(Square::F3);
    h.place(Square::F5);
    let guidance: Vec<String> = h.said[said_before..]
        .iter()
        .filter(|(l, _)| *l == Listener::BlindPlayer)
        .map(|(_, t)| t.clone())
        .collect();
    let last = guidance.last().cloned().unwrap_or_default();
    assert!(last.contains(" von "), "{guidance:?}");
    assert_eq!(h.table.game().ply_count(), 4, "nothing was played");
    let (from, to) = if last.contains("Hector drei") {
        (Square::H3, Square::F1)
    } else {
        (Square::F5, Square::F3)
    };
    h.lift(from);
    h.place(to);
    let next = h.last_said(Listener::BlindPlayer).to_owned();
    assert!(next.contains(" von ") && next != last, "{next}");
    let (from, to) = if next.contains("Hector drei") {
        (Square::H3, Square::F1)
    } else {
        (Square::F5, Square::F3)
    };
    h.lift(from);
    h.place(to);
    assert_eq!(h.last_said(Listener::BlindPlayer), "Brett stimmt wieder");
}

#[test]
fn the_arbiter_adjusts_clocks_penalises_illegal_moves_and_stops_the_clocks() {
    let mut h = Harness::new(settings(Color::White, "5400+30"));
    assert!(
        h.ask(Role::Assistant, "adjust white +60")
            .starts_with("error forbidden only the arbiter may adjust")
    );
    let white = h.table.clock().remaining(Color::White, h.now);
    assert!(
        h.ask(Role::Arbiter, "adjust white -60")
            .starts_with("ok white ")
    );
    assert_eq!(
        h.table.clock().remaining(Color::White, h.now),
        white - 60_000
    );
    assert_eq!(h.last_record(), "adjust white -60000");
    // 7.5.5: the first illegal move gives the opponent two minutes (standard play)…
    let black = h.table.clock().remaining(Color::Black, h.now);
    assert!(
        h.ask(Role::Arbiter, "penalty white")
            .starts_with("ok black gets the penalty time")
    );
    assert_eq!(
        h.table.clock().remaining(Color::Black, h.now),
        black + 120_000
    );
    assert_eq!(h.ask(Role::Arbiter, "pause"), "ok clock paused");
    assert!(
        h.ask(Role::Assistant, "move e4")
            .starts_with("error state the arbiter has stopped")
    );
    assert_eq!(h.ask(Role::Arbiter, "resume"), "ok clock running");
    assert_eq!(h.ask(Role::Assistant, "move e4"), "ok e2e4 e4");
    // …the second loses.
    assert_eq!(
        h.ask(Role::Arbiter, "penalty white"),
        "ok second illegal move by white: the game is over"
    );
    assert!(h.events.iter().any(|e| e.starts_with("event end 0-1")));
    let restored = Table::restore(settings(Color::White, "60"), &h.journal).unwrap();
    assert_eq!(restored.game().outcome(), h.table.game().outcome());
    assert_eq!(restored.clock().state(), h.table.clock().state());
    for bad in [
        "adjust purple 5",
        "adjust white",
        "adjust white soon",
        "penalty",
        "pause now",
    ] {
        let refused = annabella::table::control::parse_table_line(bad.as_bytes()).unwrap_err();
        assert!(refused.line().starts_with("error syntax"), "{bad}");
    }
}

/// Plays the first moves: the blind player (White) on the peg board, Black over the control
/// interface, each replicated.
fn opening(h: &mut Harness, moves: &[(&str, &str)]) {
    for (white, black) in moves {
        hand(h, BoardId::Peg, white);
        let reply = h.ask(Role::Player(Color::Black), &format!("move {black}"));
        assert!(reply.starts_with("ok"), "{reply}");
        hand_owed(h);
    }
}

/// The blind player replicates the move his board owes.
fn hand_owed(h: &mut Harness) {
    let ply = h.table.game().ply_count() - 1;
    let pos = h.table.game().position_before(ply).unwrap();
    let m = h.table.game().moves()[ply];
    for e in annabella::boards::gestures::peg_events(&pos, m, 0) {
        h.now += 50;
        let out = h.table.handle(
            Now::at(h.now),
            Input::Sensor {
                board: BoardId::Peg,
                event: e,
            },
        );
        h.take(out);
    }
}

#[test]
fn two_sheets_follow_the_game_and_a_corrected_one_is_compared_as_moves() {
    let mut h = Harness::new(settings(Color::White, "600"));
    h.connect_peg();
    opening(&mut h, &[("e2e4", "e7e5"), ("g1f3", "b8c6")]);
    assert_eq!(h.ask(Role::Observer, "sheet a"), "ok 1. e4 e5 2. Sf3 Sc6");
    assert_eq!(h.ask(Role::Observer, "sheet b"), "ok 1. e4 e5 2. Sf3 Sc6");
    // The assistant enters the sighted player's paper sheet, in ICCF numeric notation: the
    // same moves, so the sheets agree.
    let reply = h.ask(Role::Assistant, "record b 1. 5254 5755 2. 7163 2836");
    assert_eq!(
        reply,
        "ok sheet b: 4 half-moves; the sheets agree (4 half-moves)"
    );
    assert!(h.records.last().unwrap().contains("sheets agree"));
    // Only his own player, the assistant or the arbiter may write a sheet.
    assert!(
        h.ask(Role::Player(Color::White), "record b e4")
            .starts_with("error forbidden sheet b is black's")
    );
}

#[test]
fn sheets_that_differ_are_taken_back_to_where_they_agree_when_the_arbiter_confirms() {
    let mut h = Harness::new(settings(Color::White, "600"));
    h.connect_peg();
    opening(&mut h, &[("e2e4", "e7e5")]);
    let clock_after_two = h.table.clock().state().remaining_ms;
    h.at(5_000);
    opening(&mut h, &[("g1f3", "b8c6"), ("f1c4", "g8f6")]);
    // The blind player's board differs from the game (a pawn pushed where it cannot go):
    // with a board that differs, differing sheets decide where the game goes back to (D.2.9).
    // (With both boards showing the game, a differing sheet is only corrected: see
    // tests/recovery.rs.)
    h.lift(Square::A2);
    h.place(Square::A5);
    // The sighted player wrote 2... d6 where the board shows Nc6.
    let reply = h.ask(Role::Assistant, "record b e4 e5 Sf3 d6 Lc4 Sf6");
    assert!(
        reply.contains("the sheets differ after 3 half-moves"),
        "{reply}"
    );
    assert!(
        h.events.iter().any(|e| {
            e.starts_with(
        "event resolution proposed takeback-to 3 retract-a b8c6,f1c4,g8f6 retract-b d7d6,f1c4,g8f6"
    )
        }),
        "{:?}",
        h.events
    );
    assert!(
        h.last_said(Listener::Everyone)
            .starts_with("Die Partieformulare weichen")
    );
    assert_eq!(
        h.table.game().ply_count(),
        6,
        "nothing is taken back before the arbiter decides"
    );
    assert!(
        h.ask(Role::Assistant, "resolve confirm")
            .starts_with("error forbidden only the arbiter may resolve")
    );
    let reply = h.ask(Role::Arbiter, "resolve confirm");
    assert!(reply.starts_with("ok back to 3 half-moves"), "{reply}");
    assert_eq!(h.table.game().ply_count(), 3);
    assert_eq!(h.ask(Role::Observer, "sheet a"), "ok 1. e4 e5 2. Sf3");
    assert_eq!(h.ask(Role::Observer, "sheet b"), "ok 1. e4 e5 2. Sf3");
    assert_eq!(h.last_record(), "retract 3");
    // The clocks read what they read when 2. Nf3 was made; Black, to move, runs from now.
    let white_then = h.table.clock().state().remaining_ms[Color::White];
    assert!(white_then < clock_after_two[Color::White] + 30_000);
    // The peg board shows the position before the takeback: it is guided back, piece by piece.
    let said = h.last_said(Listener::BlindPlayer).to_owned();
    assert!(
        said.starts_with("Brett stimmt nicht") || said.contains(" von "),
        "{said}"
    );
    // The journal replays into the same table.
    let restored = Table::restore(settings(Color::White, "60"), &h.journal).unwrap();
    assert_eq!(restored.game().fen(), h.table.game().fen());
    assert_eq!(restored.clock().state(), h.table.clock().state());
}

#[test]
fn a_lagging_sheet_is_read_out_and_confirmed_or_disputed() {
    let mut h = Harness::new(settings(Color::White, "600"));
    h.connect_peg();
    opening(&mut h, &[("e2e4", "e7e5"), ("g1f3", "b8c6")]);
    // The blind player's Braille sheet, dictated: he has not written Black's last move yet.
    let reply = h.ask(Role::Assistant, "record a e4 e5 Sf3");
    assert!(reply.contains("sheet a lags by 1 half-moves"), "{reply}");
    assert_eq!(
        h.last_said(Listener::BlindPlayer),
        "Auf Ihrem Partieformular fehlen Züge; bitte bestätigen. Springer Cesar sechs"
    );
    assert!(
        h.ask(Role::Observer, "confirm a")
            .starts_with("error forbidden")
    );
    assert_eq!(
        h.ask(Role::Player(Color::White), "confirm a"),
        "ok sheet a confirmed; the sheets agree (4 half-moves)"
    );
    assert_eq!(h.ask(Role::Observer, "sheet a"), "ok 1. e4 e5 2. Sf3 Sc6");
    // Disputed instead: the sheets differ, and a takeback is proposed.
    h.ask(Role::Assistant, "record a e4 e5 Sf3");
    let reply = h.ask(Role::Assistant, "dispute a");
    assert!(
        reply.contains("the sheets differ after 3 half-moves"),
        "{reply}"
    );
    assert_eq!(
        h.ask(Role::Arbiter, "resolve reject"),
        "ok the proposed takeback is dropped"
    );
    assert!(
        h.ask(Role::Arbiter, "resolve confirm")
            .starts_with("error state no resolution")
    );
    // The arbiter may decide another point himself.
    assert!(
        h.ask(Role::Arbiter, "resolve override 2")
            .starts_with("ok back to 2 half-moves")
    );
    assert_eq!(h.table.game().ply_count(), 2);
    assert!(
        h.ask(Role::Arbiter, "resolve override 9")
            .starts_with("error state")
    );
}

#[test]
fn a_restart_finds_the_move_made_meanwhile_and_a_pending_promotion() {
    let mut s = settings(Color::White, "300");
    s.start_fen = Some("8/4P3/8/8/8/8/k7/4K3 w - - 0 1".into());
    let mut h = Harness::new(s.clone());
    let start =
        Bitboard::from(Square::E7) | Bitboard::from(Square::A2) | Bitboard::from(Square::E1);
    let out = h.table.handle(
        Now::at(h.now),
        Input::Link {
            board: BoardId::Peg,
            up: true,
            detail: "pty".into(),
        },
    );
    h.take(out);
    h.peg(SensorEvent::Occupancy(start));
    // The daemon dies; meanwhile the pawn reaches e8.
    let mut table = Table::restore(s, &h.journal).unwrap();
    let now = h.now + 60_000;
    let out = table.resume(Now::at(now), h.now, false);
    assert!(
        out.records
            .iter()
            .any(|e| matches!(e.record, Record::Rebase { charged_ms: 0 }))
    );
    let _ = table.handle(
        Now::at(now),
        Input::Link {
            board: BoardId::Peg,
            up: true,
            detail: "pty".into(),
        },
    );
    let after =
        Bitboard::from(Square::E8) | Bitboard::from(Square::A2) | Bitboard::from(Square::E1);
    let out = table.handle(
        Now::at(now + 10),
        Input::Sensor {
            board: BoardId::Peg,
            event: SensorEvent::Occupancy(after),
        },
    );
    let said: Vec<String> = out.said().map(|s| s.text.clone()).collect();
    assert!(said.iter().any(|t| t.starts_with("Umwandlung")), "{said:?}");
    let (reply, _) = table.request(
        Now::at(now + 20),
        Role::Assistant,
        Language::german(),
        &Command::Promote {
            piece: Piece::Queen,
        },
    );
    assert_eq!(reply_line(&reply), "ok e7e8q");
    assert_eq!(table.game().ply_count(), 1);
}

#[test]
fn downtime_is_charged_only_when_the_configuration_says_so() {
    let mut h = Harness::new(settings(Color::White, "600"));
    h.at(10_000);
    // The daemon was last alive 10 s into the game and comes back a minute later.
    let alive = h.now;
    let back = alive + 60_000;
    for (charge, white_left) in [(false, 590_000), (true, 530_000)] {
        let mut table = Table::restore(settings(Color::White, "600"), &h.journal).unwrap();
        let _ = table.resume(Now::at(back), alive, charge);
        assert_eq!(
            table.clock().remaining(Color::White, back),
            white_left,
            "charge {charge}"
        );
        assert_eq!(table.clock().running(), Some(Color::White));
    }
}

#[test]
fn boards_shows_what_each_board_shows_and_status_names_a_pending_promotion() {
    let mut h = Harness::new(settings(Color::White, "600"));
    h.connect_peg();
    assert_eq!(
        h.ask(Role::Observer, "boards"),
        "ok peg connected SFFFF00000000FFFF rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR normal virtual"
    );
    assert!(h.ask(Role::Observer, "status").ends_with(" promotion none"));
    // After 1. Nh3 e5, not yet replicated: the holes and the pieces believed in them.
    h.lift(Square::G1);
    h.place(Square::H3);
    h.ask(Role::Player(Color::Black), "move e5");
    assert_eq!(
        h.ask(Role::Observer, "boards"),
        "ok peg connected SFFFF00000080FFBF rnbqkbnr/pppppppp/8/8/8/7N/PPPPPPPP/RNBQKB1R normal virtual"
    );

    let mut s = settings(Color::White, "300");
    s.start_fen = Some("8/4P3/8/8/8/8/k7/4K3 w - - 0 1".into());
    let mut h = Harness::new(s);
    let out = h.table.handle(
        Now::at(h.now),
        Input::Link {
            board: BoardId::Peg,
            up: true,
            detail: "sim".into(),
        },
    );
    h.take(out);
    let occ = Bitboard::from(Square::E7) | Bitboard::from(Square::A2) | Bitboard::from(Square::E1);
    h.peg(SensorEvent::Occupancy(occ));
    h.lift(Square::E7);
    h.place(Square::E8);
    let status = h.ask(Role::Observer, "status");
    assert!(status.ends_with(" promotion e7e8"), "{status}");
    assert_eq!(h.ask(Role::Assistant, "promote n"), "ok e7e8n");
    assert!(h.ask(Role::Observer, "status").ends_with(" promotion none"));
}

#[test]
fn a_refused_clock_press_refuses_the_move() {
    // The journal of a move recorded while the arbiter had stopped the clocks (as the old
    // table wrote it, swallowing the refusal): the replay names the press, not a wrong clock.
    let journal = vec![
        (
            T0,
            format!(
                "{T0} begin 0 300 {}",
                shakmaty::fen::Fen::from_position(
                    &shakmaty::Chess::default(),
                    shakmaty::EnPassantMode::Legal
                )
            ),
        ),
        (T0 + 1_000, format!("{} pause", T0 + 1_000)),
        (T0 + 2_000, format!("{} move e2e4 peg", T0 + 2_000)),
    ];
    let err = Table::restore(settings(Color::White, "300"), &journal)
        .err()
        .expect("refused");
    assert_eq!(err.index, 3);
    assert!(err.why.contains("the clock refused the press"), "{err}");
}

#[test]
fn urgency_belongs_to_what_is_said() {
    // Clock calls under a minute, a withdrawn move and a takeback interrupt; a move does not.
    let mut s = settings(Color::White, "70");
    s.announce = "10s@1m".parse().unwrap();
    let mut h = Harness::new(s);
    let out = h.table.handle(Now::at(h.now + 10_000), Input::Tick);
    assert!(out.said().all(|s| s.urgency == Urgency::Polite), "{out:?}");
    h.take(out);
    let out = h.table.handle(Now::at(h.now + 20_000), Input::Tick);
    let said: Vec<_> = out.said().cloned().collect();
    assert!(
        said.iter()
            .any(|s| s.urgency == Urgency::Urgent && s.text.contains("Sekunden")),
        "{said:?}"
    );
    h.take(out);
    h.now += 20_000;
    let (_, out) = h.table.request(
        Now::at(h.now),
        Role::Player(Color::White),
        Language::german(),
        &annabella::table::control::parse_table_line(b"move e4").unwrap(),
    );
    assert!(out.said().all(|s| s.urgency == Urgency::Polite), "{out:?}");
    h.take(out);
    let (_, out) = h.table.request(
        Now::at(h.now),
        Role::Player(Color::White),
        Language::german(),
        &Command::Undo,
    );
    assert!(out.said().any(|s| s.urgency == Urgency::Urgent), "{out:?}");
    h.take(out);
}

/// What a random session at a table may do.
#[derive(Debug, Clone)]
enum Op {
    /// The side to move plays its `n`th legal move (modulo their number).
    Move(usize),
    /// The player who moved last withdraws it.
    Undo,
    OfferDraw,
    Resign,
    /// The arbiter adds or takes seconds.
    Adjust(bool, i8),
    Pause,
    Resume,
    Tick,
}

fn op() -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    prop_oneof![
        8 => any::<usize>().prop_map(Op::Move),
        1 => Just(Op::Undo),
        1 => Just(Op::OfferDraw),
        1 => Just(Op::Resign),
        1 => (any::<bool>(), any::<i8>()).prop_map(|(w, s)| Op::Adjust(w, s)),
        1 => Just(Op::Pause),
        1 => Just(Op::Resume),
        2 => Just(Op::Tick),
    ]
}

/// Everything a journal must bring back: position, the sheet with its clock readings, the clock.
fn fingerprint(t: &Table) -> (String, String, annabella::table::clock::ClockState) {
    (t.game().fen(), t.pgn(), t.clock().state())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Any session, with any of its journal writes refused: a refused step leaves the table
    /// exactly as before it, and the journal of the accepted steps always restores the very
    /// table that is running.
    #[test]
    fn a_refused_step_changes_nothing_and_the_journal_always_restores(
        ops in proptest::collection::vec((op(), 0u64..30_000, proptest::prelude::any::<bool>()), 1..60)
    ) {
        use shakmaty::Position;
        let mut s = settings(Color::White, "60+2");
        s.announce = AnnounceSchedule::none();
        let (mut table, begin) = Table::new(s.clone(), Now::at(T0)).unwrap();
        let mut journal: Vec<(u64, String)> =
            begin.records.iter().map(|e| (T0, e.to_string())).collect();
        let mut now = T0;
        for (op, wait, refuse) in ops {
            now += wait;
            let at = Now::at(now);
            let turn = table.game().turn();
            let line = match &op {
                Op::Move(n) => {
                    let legal = table.game().position().legal_moves();
                    if legal.is_empty() {
                        None
                    } else {
                        let m = legal[n % legal.len()];
                        Some((Role::Player(turn), format!("move {}", m.to_uci(shakmaty::CastlingMode::Standard))))
                    }
                }
                Op::Undo => Some((Role::Player(!turn), "undo".to_owned())),
                Op::OfferDraw => Some((Role::Player(turn), "offer-draw".to_owned())),
                Op::Resign => Some((Role::Player(turn), "resign".to_owned())),
                Op::Adjust(white, secs) => Some((
                    Role::Arbiter,
                    format!("adjust {} {:+}", if *white { "white" } else { "black" }, secs),
                )),
                Op::Pause => Some((Role::Arbiter, "pause".to_owned())),
                Op::Resume => Some((Role::Arbiter, "resume".to_owned())),
                Op::Tick => None,
            };
            let before = fingerprint(&table);
            let step = match line {
                Some((role, line)) => {
                    let command = annabella::table::control::parse_table_line(line.as_bytes()).unwrap();
                    table.request(at, role, Language::english(), &command).1
                }
                None => table.handle(at, Input::Tick),
            };
            if refuse && !step.records.is_empty() {
                table.rollback(step);
                proptest::prop_assert_eq!(fingerprint(&table), before, "{:?} refused", op);
            } else {
                journal.extend(step.records.iter().map(|e| (now, e.to_string())));
            }
            let restored = Table::restore(s.clone(), &journal)
                .map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
            proptest::prop_assert_eq!(fingerprint(&restored), fingerprint(&table), "after {:?}", op);
        }
    }
}

#[test]
fn the_next_game_begins_when_the_arbiter_says_so_with_its_tags_and_time_control() {
    let mut s = settings(Color::White, "40/5400+30:1800+30");
    s.tags = vec![(GameTag::Event, "Vereinsmeisterschaft".into())];
    let mut h = Harness::new(s.clone());
    assert_eq!(
        h.last_said(Listener::Everyone),
        "Neue Partie. Bedenkzeit eine Stunde dreißig Minuten für vierzig Züge plus dreißig \
         Sekunden pro Zug; danach dreißig Minuten plus dreißig Sekunden pro Zug"
    );
    h.ask(Role::Player(Color::White), "move e4");
    let refused = h.ask(Role::Arbiter, "new-game");
    assert!(
        refused.starts_with("error state the game is not over"),
        "{refused}"
    );
    assert_eq!(
        h.ask(Role::Player(Color::White), "new-game"),
        "error forbidden only the arbiter may new-game; you are white"
    );
    assert_eq!(
        h.ask(Role::Arbiter, "tag white Anna   Müller"),
        "ok white Anna Müller"
    );
    assert!(
        h.table.pgn().contains("[White \"Anna Müller\"]"),
        "{}",
        h.table.pgn()
    );
    assert!(h.table.pgn().contains("[Event \"Vereinsmeisterschaft\"]"));
    h.ask(Role::Player(Color::Black), "resign");
    assert!(h.table.game().is_over());

    // The next game, from a position: its own journal (the store starts a new game for it).
    let fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";
    let (reply, step) = h.table.request(
        Now::at(h.now),
        Role::Arbiter,
        Language::german(),
        &annabella::table::control::parse_table_line(format!("new-game fen {fen}").as_bytes())
            .unwrap(),
    );
    assert_eq!(reply_line(&reply), format!("ok new game {fen}"));
    assert!(step.begins_game);
    let lines: Vec<(u64, String)> = step
        .records
        .iter()
        .map(|e| (h.now, e.to_string()))
        .collect();
    assert_eq!(lines.len(), 2, "begin and the configured tag: {lines:?}");
    assert!(step.said().any(|s| s.text.starts_with("Neue Partie")));
    h.take(step);
    assert_eq!(h.table.game().fen(), fen);
    assert!(!h.table.game().is_over());
    let pgn = h.table.pgn();
    assert!(
        !pgn.contains("Anna"),
        "a new game's players are set anew: {pgn}"
    );
    assert!(pgn.contains("Vereinsmeisterschaft"), "{pgn}");
    // The new game's journal alone restores it.
    let restored = Table::restore(s, &lines).unwrap();
    assert_eq!(restored.game().fen(), fen);
    assert_eq!(restored.pgn(), h.table.pgn());
}

#[test]
fn a_reached_time_control_is_announced() {
    let mut h = Harness::new(settings(Color::White, "2/60:60"));
    h.ask(Role::Player(Color::White), "move e4");
    h.ask(Role::Player(Color::Black), "move e5");
    assert!(
        !h.said.iter().any(|(_, t)| t.contains("Zeitkontrolle")),
        "{:?}",
        h.said
    );
    // White's second move completes his first period (two moves in a minute).
    h.ask(Role::Player(Color::White), "move Sf3");
    assert_eq!(
        h.last_said(Listener::Everyone),
        "Weiß: Zeitkontrolle erreicht, eine Minute dazu"
    );
    h.ask(Role::Player(Color::Black), "move Sc6");
    assert_eq!(
        h.last_said(Listener::Everyone),
        "Schwarz: Zeitkontrolle erreicht, eine Minute dazu"
    );
    let calls = h
        .said
        .iter()
        .filter(|(_, t)| t.contains("Zeitkontrolle"))
        .count();
    h.ask(Role::Player(Color::White), "move Lc4");
    assert_eq!(
        h.said
            .iter()
            .filter(|(_, t)| t.contains("Zeitkontrolle"))
            .count(),
        calls,
        "the last period has no control"
    );
}

#[test]
fn a_new_game_from_a_position_guides_the_peg_board_to_its_set_up() {
    let mut h = Harness::new(settings(Color::White, "5400+30"));
    h.connect_peg();
    h.ask(Role::Player(Color::White), "resign");
    let reply = h.ask(
        Role::Arbiter,
        "new-game fen 4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
    );
    assert!(reply.starts_with("ok new game"), "{reply}");
    // The board still shows the standard position: the blind player is told to set it up.
    let said = h.last_said(Listener::BlindPlayer).to_owned();
    assert!(
        said.starts_with("Brett stimmt nicht mit der Partie überein."),
        "{said}"
    );
    assert!(h.events.iter().any(|e| e.starts_with("event guide peg ")));
    // The clock waits for the set-up (issue 24): stopped in the same step, no move taken.
    assert!(
        h.events.iter().any(|e| e == "event clock pause"),
        "{:?}",
        h.events
    );
    h.now += 60_000;
    let refused = h.ask(Role::Player(Color::White), "move e3");
    assert!(refused.starts_with("error state "), "{refused}");
    let clock = h.ask(Role::Arbiter, "clock");
    assert_eq!(
        clock, "ok white 1:30:30 black 1:30:30 moves 0 running none",
        "not a millisecond ran a minute after new-game"
    );
    // The arbiter's word starts it (the board is still not set up).
    assert_eq!(h.ask(Role::Arbiter, "resume"), "ok clock running");
    assert!(
        h.ask(Role::Player(Color::White), "move e3")
            .starts_with("ok e2e3")
    );
}

// The peg board's keys (docs/peg-protocol.md): every answer is the blind player's alone.

impl Harness {
    fn key(&mut self, key: BoardKey) {
        self.now += 100;
        self.peg(SensorEvent::Key(key));
    }

    /// Presses `key` and returns what the blind player heard, checking nobody else heard it.
    fn key_answer(&mut self, key: BoardKey) -> String {
        let before = self.said.len();
        self.key(key);
        let new = &self.said[before..];
        assert_eq!(new.len(), 1, "one answer to {key:?}: {new:?}");
        assert_eq!(new[0].0, Listener::BlindPlayer, "{new:?}");
        new[0].1.clone()
    }
}

#[test]
fn key_a_says_the_last_move_with_its_number_and_colour_also_after_a_replication() {
    let mut h = Harness::new(settings(Color::White, "600"));
    h.connect_peg();
    assert_eq!(h.key_answer(BoardKey::Repeat), "Noch kein Zug gespielt");
    assert!(
        h.events.iter().any(|e| e == "event key peg repeat"),
        "{:?}",
        h.events
    );
    hand(&mut h, BoardId::Peg, "e2e4");
    assert_eq!(h.key_answer(BoardKey::Repeat), "Zug eins, Weiß: Eva vier");
    h.ask(Role::Player(Color::Black), "move e5");
    // The move he owes, before he replicated it…
    assert_eq!(
        h.key_answer(BoardKey::Repeat),
        "Zug eins, Schwarz: Eva fünf"
    );
    hand_owed(&mut h);
    assert_eq!(h.last_said(Listener::BlindPlayer), "in Ordnung");
    // …and after: the move again, not the confirmation.
    assert_eq!(
        h.key_answer(BoardKey::Repeat),
        "Zug eins, Schwarz: Eva fünf"
    );
    // While his board differs, the correction he was told last.
    h.lift(Square::F1);
    h.place(Square::F3);
    let guidance = h.last_said(Listener::BlindPlayer).to_owned();
    assert!(guidance.starts_with("Unzulässiger Zug"), "{guidance}");
    assert_eq!(h.key_answer(BoardKey::Repeat), guidance);
}

#[test]
fn key_t_says_both_clocks_whose_turn_and_the_moves_to_the_time_control() {
    let mut h = Harness::new(settings(Color::White, "40/5400+30:1800+30"));
    h.connect_peg();
    assert_eq!(
        h.key_answer(BoardKey::Time),
        "Weiß eine Stunde dreißig Minuten, Schwarz eine Stunde dreißig Minuten, null Züge \
         gespielt. Weiß am Zug. Noch vierzig Züge bis zur Zeitkontrolle"
    );
    assert!(
        h.events.iter().any(|e| e == "event key peg time"),
        "{:?}",
        h.events
    );
    opening(&mut h, &[("e2e4", "e7e5")]);
    hand(&mut h, BoardId::Peg, "g1f3");
    let said = h.key_answer(BoardKey::Time);
    assert!(
        said.ends_with(
            "zwei Züge gespielt. Schwarz am Zug. Noch achtunddreißig Züge bis zur Zeitkontrolle"
        ),
        "{said}"
    );
    // Sudden death has no control to count down to.
    let mut h = Harness::new(settings(Color::White, "600"));
    let said = h.key_answer(BoardKey::Time);
    assert!(!said.contains("Zeitkontrolle"), "{said}");
}

#[test]
fn key_o_says_his_own_time_only() {
    let mut h = Harness::new(settings(Color::Black, "600"));
    h.connect_peg();
    h.ask(Role::Player(Color::White), "move e4");
    h.at(89_900);
    assert_eq!(
        h.key_answer(BoardKey::OwnTime),
        "Ihre Zeit: acht Minuten dreißig Sekunden"
    );
    assert!(
        h.events.iter().any(|e| e == "event key peg own-time"),
        "{:?}",
        h.events
    );
}

#[test]
fn key_h_steps_back_one_move_at_each_press_and_another_key_starts_it_again() {
    let mut h = Harness::new(settings(Color::White, "600"));
    h.connect_peg();
    opening(&mut h, &[("e2e4", "e7e5"), ("g1f3", "b8c6")]);
    let mut heard = Vec::new();
    for _ in 0..6 {
        heard.push(h.key_answer(BoardKey::History));
    }
    assert_eq!(
        heard,
        [
            "Zug zwei, Schwarz: Springer Cesar sechs",
            "Zug zwei, Weiß: Springer Felix drei",
            "Zug eins, Schwarz: Eva fünf",
            "Zug eins, Weiß: Eva vier",
            "Keine früheren Züge",
            "Keine früheren Züge",
        ]
    );
    assert!(
        h.events.iter().any(|e| e == "event key peg history"),
        "{:?}",
        h.events
    );
    h.key_answer(BoardKey::OwnTime);
    assert_eq!(
        h.key_answer(BoardKey::History),
        "Zug zwei, Schwarz: Springer Cesar sechs"
    );
    assert_eq!(
        h.key_answer(BoardKey::History),
        "Zug zwei, Weiß: Springer Felix drei"
    );
    // A move played starts the stepping again from the new last move.
    hand(&mut h, BoardId::Peg, "f1c4");
    assert_eq!(
        h.key_answer(BoardKey::History),
        "Zug drei, Weiß: Läufer Cesar vier"
    );
}

#[test]
fn key_x_resigns_only_on_a_second_press_within_five_seconds() {
    let mut h = Harness::new(settings(Color::White, "600"));
    h.connect_peg();
    let ask_again = "Zum Aufgeben die Taste noch einmal drücken";
    assert_eq!(h.key_answer(BoardKey::Resign), ask_again);
    assert!(
        h.events.iter().any(|e| e == "event key peg resign"),
        "{:?}",
        h.events
    );
    // Too late: the second press only asks again.
    h.at(5_000);
    assert_eq!(h.key_answer(BoardKey::Resign), ask_again);
    // Another key in between cancels it.
    h.key_answer(BoardKey::OwnTime);
    assert_eq!(h.key_answer(BoardKey::Resign), ask_again);
    assert!(!h.table.game().is_over());
    assert!(h.journal.iter().all(|(_, r)| !r.contains("resign")));
    // Within five seconds: he resigns, and both players hear it.
    h.at(4_000);
    h.key(BoardKey::Resign);
    assert!(h.table.game().is_over());
    assert_eq!(h.last_record(), "resign white");
    assert_eq!(
        h.last_said(Listener::Everyone),
        "Weiß gibt auf. Schwarz gewinnt"
    );
    assert_eq!(h.key_answer(BoardKey::Resign), "Die Partie ist beendet");
}

#[test]
fn key_d_offers_a_draw_or_accepts_the_offer_that_stands() {
    let mut h = Harness::new(settings(Color::White, "600"));
    h.connect_peg();
    hand(&mut h, BoardId::Peg, "e2e4");
    h.key(BoardKey::Draw);
    assert_eq!(h.last_record(), "offer-draw white");
    assert_eq!(h.last_said(Listener::Everyone), "Weiß bietet Remis an");
    assert!(h.events.iter().any(|e| e == "event key peg draw"));
    h.ask(Role::Player(Color::Black), "move e5");
    hand_owed(&mut h);
    // The opponent offers; the key accepts.
    assert_eq!(
        h.ask(Role::Player(Color::Black), "offer-draw"),
        "ok black offers a draw"
    );
    h.key(BoardKey::Draw);
    assert_eq!(h.last_record(), "agree-draw");
    assert!(h.table.game().is_over());
    assert_eq!(h.last_said(Listener::Everyone), "Remis vereinbart");
    assert_eq!(h.key_answer(BoardKey::Draw), "Die Partie ist beendet");
}

#[test]
fn at_a_lichess_table_key_c_is_only_reported_for_its_adapter_to_judge() {
    let mut s = settings(Color::White, "600");
    s.server_game = true;
    let mut h = Harness::new(s);
    h.connect_peg();
    let said = h.said.len();
    h.key(BoardKey::Claim);
    assert_eq!(
        h.said.len(),
        said,
        "the table says nothing: {:?}",
        &h.said[said..]
    );
    assert!(h.events.iter().any(|e| e == "event key peg claim"));
    assert!(
        h.journal.iter().all(|(_, r)| !r.starts_with("wrong-claim")),
        "no draw claim, no penalty: {:?}",
        h.journal
    );
}

#[test]
fn key_c_claims_a_draw_and_a_wrong_claim_is_explained_with_its_penalty() {
    let mut h = Harness::new(settings(Color::White, "600"));
    h.connect_peg();
    let black_before = h.table.clock().remaining(Color::Black, h.now);
    assert_eq!(
        h.key_answer(BoardKey::Claim),
        "Remisreklamation abgelehnt: Die Stellung ist nicht dreimal vorgekommen, und erst null \
         Züge ohne Schlagen oder Bauernzug. Schwarz erhält eine Minute gutgeschrieben"
    );
    // FIDE 9.5.3 as `claim-draw` applies it (600 s is rapid: one minute).
    assert_eq!(h.last_record(), "wrong-claim white");
    assert_eq!(
        h.table.clock().remaining(Color::Black, h.now),
        black_before + 60_000
    );
    assert!(h.events.iter().any(|e| e == "event key peg claim"));
    hand(&mut h, BoardId::Peg, "g1f3");
    assert_eq!(
        h.key_answer(BoardKey::Claim),
        "Remis reklamieren können Sie nur, wenn Sie am Zug sind"
    );
    // The knights go out and back twice: the start position stands a third time.
    for (i, (black, white)) in [
        ("g8f6", "f3g1"),
        ("f6g8", "g1f3"),
        ("g8f6", "f3g1"),
        ("f6g8", ""),
    ]
    .into_iter()
    .enumerate()
    {
        assert!(
            h.ask(Role::Player(Color::Black), &format!("move {black}"))
                .starts_with("ok"),
            "{i}"
        );
        hand_owed(&mut h);
        if !white.is_empty() {
            hand(&mut h, BoardId::Peg, white);
        }
    }
    h.key(BoardKey::Claim);
    assert_eq!(h.last_record(), "claim-draw");
    assert!(h.table.game().is_over());
    assert_eq!(
        h.last_said(Listener::Everyone),
        "Remis durch dreimalige Stellungswiederholung"
    );
}

#[test]
fn key_s_confirms_his_lagging_scoresheet() {
    let mut h = Harness::new(settings(Color::White, "600"));
    h.connect_peg();
    assert_eq!(
        h.key_answer(BoardKey::ConfirmSheet),
        "Es gibt nichts zu bestätigen"
    );
    opening(&mut h, &[("e2e4", "e7e5"), ("g1f3", "b8c6")]);
    let reply = h.ask(Role::Assistant, "record a e4 e5 Sf3");
    assert!(reply.contains("sheet a lags by 1 half-moves"), "{reply}");
    h.key(BoardKey::ConfirmSheet);
    assert_eq!(
        h.last_said(Listener::BlindPlayer),
        "Partieformular bestätigt"
    );
    assert!(h.events.iter().any(|e| e == "event key peg confirm-sheet"));
    assert!(
        h.events
            .iter()
            .any(|e| e == "event resolution agree plies 4")
    );
    assert_eq!(h.ask(Role::Observer, "sheet a"), "ok 1. e4 e5 2. Sf3 Sc6");
    assert_eq!(
        h.key_answer(BoardKey::ConfirmSheet),
        "Es gibt nichts zu bestätigen"
    );
}

#[test]
fn key_z_takes_the_pegs_as_the_games_pieces_when_the_holes_match() {
    let mut h = Harness::new(settings(Color::White, "600"));
    h.connect_peg();
    hand(&mut h, BoardId::Peg, "e2e4");
    assert_eq!(h.ask(Role::Player(Color::Black), "move Sf6"), "ok g8f6 Sf6");
    // He puts the knight on h6 instead: two holes differ, and he hears the first correction.
    h.lift(Square::G8);
    h.place(Square::H6);
    assert_eq!(
        h.key_answer(BoardKey::SetUp),
        "Aufstellung stimmt nicht: zwei Felder weichen ab. Springer von Hector sechs nach Felix \
         sechs"
    );
    assert!(h.events.iter().any(|e| e == "event key peg set-up"));
    h.lift(Square::H6);
    h.lift(Square::G7);
    h.place(Square::F6);
    let said = h.key_answer(BoardKey::SetUp);
    assert!(
        said.starts_with("Aufstellung stimmt nicht: Ein Feld weicht ab. "),
        "{said}"
    );
    assert!(said.contains("Gustav sieben"), "{said}");
    h.place(Square::G7);
    // The holes are the game's: the pegs are taken as its pieces.
    assert_eq!(
        h.key_answer(BoardKey::SetUp),
        "Aufstellung übernommen, das Brett stimmt mit der Partie überein"
    );
    assert!(
        h.events.iter().any(|e| e == "event in-sync peg"),
        "{:?}",
        h.events
    );
    assert!(
        h.ask(Role::Observer, "status")
            .contains("peg connected in-sync")
    );
    let boards = h.ask(Role::Observer, "boards");
    assert!(!boards.contains("differs"), "{boards}");
    // And the game goes on from there.
    hand(&mut h, BoardId::Peg, "d2d4");
    assert_eq!(h.last_record(), "move d2d4 peg");
}

#[test]
fn an_unknown_key_gets_a_short_answer() {
    let mut h = Harness::new(settings(Color::White, "600"));
    assert_eq!(h.key_answer(BoardKey::Other('7')), "Taste unbekannt");
    assert_eq!(h.events[h.events.len() - 2], "event key peg unknown 7");
}

#[test]
fn in_time_trouble_the_blind_player_hears_the_fewest_words() {
    let mut s = settings(Color::White, "90");
    s.verbosity = Verbosity::Long;
    s.terse_below_ms = Some(60_000);
    let mut h = Harness::new(s);
    // Plenty of time: his own move confirmed, the opponent's in the long form.
    h.ask(Role::Player(Color::White), "move e4");
    let confirmations = h
        .said
        .iter()
        .filter(|(l, _)| *l == Listener::BlindPlayer)
        .count();
    assert_eq!(confirmations, 1, "{:?}", h.said);
    h.at(1_000);
    h.ask(Role::Player(Color::Black), "move Sc6");
    assert_eq!(
        h.last_said(Listener::BlindPlayer),
        "Springer Bella acht Cesar sechs"
    );
    // Forty seconds later he has fifty left: no confirmation, the reply short.
    h.at(40_000);
    h.ask(Role::Player(Color::White), "move d4");
    assert_eq!(h.last_said(Listener::Opponent), "David zwei David vier");
    assert_eq!(
        h.last_said(Listener::BlindPlayer),
        "Springer Bella acht Cesar sechs"
    );
    h.at(1_000);
    h.ask(Role::Player(Color::Black), "move Sf6");
    assert_eq!(h.last_said(Listener::BlindPlayer), "Springer Felix sechs");
}

#[test]
fn in_time_trouble_his_own_clock_call_is_the_number_alone() {
    let mut s = settings(Color::White, "70");
    s.announce = "10s@1m".parse().unwrap();
    s.terse_below_ms = Some(55_000);
    let mut h = Harness::new(s);
    h.at(10_000);
    h.tick();
    assert_eq!(h.last_said(Listener::BlindPlayer), "Weiß eine Minute");
    h.at(10_000);
    h.tick();
    assert_eq!(h.last_said(Listener::BlindPlayer), "fünfzig Sekunden");
}

#[test]
fn numbered_moves_are_checked_against_the_game() {
    let mut h = Harness::new(settings(Color::White, "600"));
    h.connect_peg();
    h.lift(Square::E2);
    h.place(Square::E4);
    let black = Role::Player(Color::Black);
    // The wrong number, either way, names both.
    assert_eq!(
        h.ask(black, "move 2... 5755"),
        "error move move 2 is black's; the game is at move 1 for black"
    );
    assert_eq!(
        h.ask(black, "move 1. 5755"),
        "error move move 1 is white's; the game is at move 1 for black"
    );
    let huge = h.ask(black, "move 99999999999999. e5");
    assert!(huge.starts_with("error move move number"), "{huge}");
    assert_eq!(h.ask(black, "move 1...5755"), "ok e7e5 e5");
    h.lift(Square::E7);
    h.place(Square::E5);
    h.lift(Square::G1);
    h.place(Square::F3);
    // White's move quoted before Black's (`2. 7163 2836`): it must be the one played.
    assert_eq!(
        h.ask(black, "move 2. 6264 2836"),
        "error move white's move 2 was 7163, not 6264"
    );
    assert_eq!(h.ask(black, "move 2. 7163 2836"), "ok b8c6 Sc6");
}

#[test]
fn view_gives_a_late_page_the_last_move_and_the_end_in_the_tables_words() {
    let mut h = Harness::new(settings(Color::Black, "600"));
    let start: serde_json::Value =
        serde_json::from_str(h.ask(Role::Observer, "view").strip_prefix("ok ").unwrap()).unwrap();
    assert_eq!(start["last_move"], serde_json::Value::Null);
    assert_eq!(start["lang"], "de");
    assert_eq!(start["peg_side"], "black");
    assert_eq!(start["result"], "*");
    for m in ["f3", "e5", "g4", "Dh4"] {
        assert!(
            h.ask(Role::Assistant, &format!("move {m}"))
                .starts_with("ok"),
            "{m}"
        );
    }
    let view: serde_json::Value =
        serde_json::from_str(h.ask(Role::Observer, "view").strip_prefix("ok ").unwrap()).unwrap();
    assert_eq!(view["ply"], 4);
    assert_eq!(view["last_move"]["san_local"], "Dh4#");
    assert_eq!(view["last_move"]["words"], "Dame Hector vier Matt");
    assert_eq!(view["last_move"]["number"], 2);
    assert_eq!(view["last_move"]["color"], "black");
    assert_eq!(view["result"], "0-1");
    assert_eq!(
        view["end"]["words"],
        "Dame Hector vier Matt. Schwarz gewinnt"
    );
    assert_eq!(view["peg"]["sync"], "owes-move");
    assert_eq!(view["procedure"], serde_json::Value::Null);
    // The move event carries the same letters and words for the page.
    assert!(
        h.events
            .iter()
            .any(|e| e.starts_with("event move 4 black d8h4 Qh4#"))
    );
}

/// A capture's three lines reach a table that was busy (a flood on the line): all in one
/// moment, although the board's reader read them 60 ms apart. Stamped when they arrived, the
/// captured piece's lift and the capturing piece's placement on one square fall within the
/// debounce window and vanish as contact chatter, and the move never counts (found by
/// `tests/faults_attacks.rs` under every attack at once); stamped when they were read, it does.
#[test]
fn a_capture_read_apart_but_handled_together_is_played() {
    let mut s = settings(Color::White, "600");
    // The daemon's window (the harness's other tests switch the filter off).
    s.debounce_ms = annabella::boards::debounce::DEFAULT_WINDOW;
    let mut h = Harness::new(s.clone());
    h.connect_peg();
    hand(&mut h, BoardId::Peg, "e2e4");
    h.ask(Role::Player(Color::Black), "move d7d5");
    hand_owed(&mut h);
    assert_eq!(h.table.game().ply_count(), 2);
    let read = h.now + 100;
    h.now += 500;
    for (i, event) in [
        SensorEvent::Lift(Square::E4),
        SensorEvent::Lift(Square::D5),
        SensorEvent::Place(Square::D5),
    ]
    .into_iter()
    .enumerate()
    {
        let out = h.table.handle(
            Now::at(h.now),
            Input::SensorRead {
                board: BoardId::Peg,
                event,
                read_ms: read + 60 * i as u64,
            },
        );
        h.take(out);
    }
    h.now += 1_000;
    h.tick();
    assert_eq!(h.table.game().ply_count(), 3, "{:#?}", h.events);
    assert_eq!(h.last_record(), "move e4d5 peg");

    // The same lines stamped on arrival: the capture is lost (what the table did before).
    let mut h = Harness::new(s);
    h.connect_peg();
    hand(&mut h, BoardId::Peg, "e2e4");
    h.ask(Role::Player(Color::Black), "move d7d5");
    hand_owed(&mut h);
    h.now += 500;
    for event in [
        SensorEvent::Lift(Square::E4),
        SensorEvent::Lift(Square::D5),
        SensorEvent::Place(Square::D5),
    ] {
        let out = h.table.handle(
            Now::at(h.now),
            Input::Sensor {
                board: BoardId::Peg,
                event,
            },
        );
        h.take(out);
    }
    h.now += 1_000;
    h.tick();
    assert_eq!(h.table.game().ply_count(), 2);
}

/// The sighted player copies the blind player's move wrongly on his e-board, hears that his
/// board differs, and puts it right: he hears that it is right again (before, nothing was said
/// on this path and he could not know the table had seen his fix).
#[test]
fn a_wrong_copy_on_the_e_board_put_right_is_told_right_again() {
    let mut s = settings(Color::White, "600");
    s.normal = NormalBoard::Identity;
    let mut h = Harness::new(s);
    h.connect_peg();
    let out = h.table.handle(
        Now::at(h.now),
        Input::Link {
            board: BoardId::Normal,
            up: true,
            detail: "dgt".into(),
        },
    );
    h.take(out);
    let start = shakmaty::Chess::default().board().clone();
    let show = |h: &mut Harness, board: shakmaty::Board| {
        h.now += 50;
        let out = h.table.handle(
            Now::at(h.now),
            Input::Sensor {
                board: BoardId::Normal,
                event: SensorEvent::Pieces(board),
            },
        );
        h.take(out);
        h.now += 1_000;
        h.tick();
    };
    show(&mut h, start.clone());
    hand(&mut h, BoardId::Peg, "d2d4");
    assert_eq!(h.table.game().ply_count(), 1);
    // d2-d3 instead of d2-d4.
    let mut wrong = start.clone();
    let pawn = wrong.remove_piece_at(Square::D2).unwrap();
    wrong.set_piece_at(Square::D3, pawn);
    show(&mut h, wrong);
    assert!(
        h.last_said(Listener::Opponent).contains("stimmt nicht"),
        "{:?}",
        h.said
    );
    let mut right = start.clone();
    let pawn = right.remove_piece_at(Square::D2).unwrap();
    right.set_piece_at(Square::D4, pawn);
    show(&mut h, right);
    assert!(
        h.ask(Role::Observer, "status")
            .contains("normal connected in-sync"),
        "{:?}",
        h.events
    );
    assert_eq!(
        h.last_said(Listener::Opponent),
        "Brett stimmt wieder",
        "{:?}",
        h.said
    );
}
