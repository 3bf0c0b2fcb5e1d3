//! The table's actor as the daemon runs it, on tokio's paused clock: a journal that refuses
//! writes (a full disk) must leave the game exactly as before, with the daemon serving on and a
//! restart succeeding from what was journaled; and a wall clock stepped back or forward in
//! mid-game must change no player's time.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use annabella::app::table_actor::{BoardMessage, Journal, TableActor};
use annabella::boards::SensorEvent;
use annabella::chess::language::Language;
use annabella::control::hub::TableHandle;
use annabella::control::wire::{event_line, reply_line};
use annabella::io::clock::TableClock;
use annabella::io::link::LinkEvent;
use annabella::io::speech::Speaker;
use annabella::table::control::{Role, TableRequest as Command, parse_table_line as parse_line};
use annabella::table::event::TableEvent;
use annabella::table::state::{BoardId, Table, TableSettings};
use shakmaty::{Bitboard, Color, Square};
use tokio::sync::{broadcast, mpsc, watch};

/// An in-memory journal that can be told to refuse every write, as a full disk does. `lines`
/// are the current game's.
#[derive(Default)]
struct FlakyJournal {
    lines: Mutex<Vec<(u64, String)>>,
    games: AtomicU64,
    full: AtomicBool,
}

/// What the full disk says, in SQLite's words.
#[derive(Debug, thiserror::Error)]
#[error("database or disk is full")]
struct DiskFull;

impl Journal for FlakyJournal {
    type Error = DiskFull;

    async fn append(&self, _table: &str, lines: Vec<(u64, String)>) -> Result<(), DiskFull> {
        if self.full.load(Ordering::SeqCst) {
            return Err(DiskFull);
        }
        self.lines.lock().unwrap().extend(lines);
        Ok(())
    }

    async fn begin(&self, _table: &str, lines: Vec<(u64, String)>) -> Result<u64, DiskFull> {
        if self.full.load(Ordering::SeqCst) {
            return Err(DiskFull);
        }
        *self.lines.lock().unwrap() = lines;
        Ok(self.games.fetch_add(1, Ordering::SeqCst) + 2)
    }

    async fn archive(&self, _table: &str, _pgn: String) -> Result<PathBuf, DiskFull> {
        Ok(PathBuf::from("/dev/null"))
    }
}

fn settings(tc: &str) -> TableSettings {
    TableSettings {
        confirm_own_moves: false,
        ..TableSettings::new(
            "t1".parse().unwrap(),
            Color::White,
            Language::german(),
            tc.parse().unwrap(),
        )
    }
}

/// A running actor: its handle, the board channel, the journal, and the wall clock it reads.
struct Running {
    handle: TableHandle,
    boards: mpsc::Sender<BoardMessage>,
    journal: Arc<FlakyJournal>,
    wall: Arc<AtomicU64>,
    events: broadcast::Receiver<Arc<TableEvent>>,
    _shutdown: watch::Sender<bool>,
    _records: tempfile::TempDir,
}

const WALL0: u64 = 1_790_000_000_000;

async fn start(tc: &str) -> Running {
    let journal = Arc::new(FlakyJournal::default());
    let wall = Arc::new(AtomicU64::new(WALL0));
    let read_wall = Arc::clone(&wall);
    let clock = TableClock::with_wall(0, Arc::new(move || read_wall.load(Ordering::SeqCst)));
    let (table, step) = Table::new(settings(tc), clock.now()).unwrap();
    let (events_tx, events) = broadcast::channel(1024);
    let records = tempfile::tempdir().unwrap();
    let mut actor = TableActor {
        table,
        clock,
        journal: Arc::clone(&journal),
        speaker: Arc::new(Speaker::new(&[])),
        voice: "de".into(),
        game_id: "t1-1".into(),
        game_stem: "t1".into(),
        events: events_tx.clone(),
        record_dir: records.path().to_owned(),
        desk: None,
        cassette: false,
    };
    actor.perform(step).await.unwrap();
    let (requests_tx, requests) = mpsc::channel(8);
    let (boards, boards_rx) = mpsc::channel(64);
    let (shutdown, shutdown_rx) = watch::channel(false);
    tokio::spawn(actor.run(requests, boards_rx, shutdown_rx));
    Running {
        handle: TableHandle {
            name: Arc::from("t1"),
            requests: requests_tx,
            events: events_tx,
        },
        boards,
        journal,
        wall,
        events,
        _shutdown: shutdown,
        _records: records,
    }
}

impl Running {
    async fn ask(&self, role: Role, line: &str) -> String {
        let command: Command = parse_line(line.as_bytes()).unwrap();
        reply_line(&self.handle.ask(role, Language::german(), command).await)
    }

    async fn peg(&self, event: SensorEvent) {
        self.boards
            .send((
                BoardId::Peg,
                LinkEvent::Decoded(Ok(annabella::boards::Timed { at: 0, event })),
            ))
            .await
            .unwrap();
    }

    /// Every event line published so far.
    fn drain_events(&mut self) -> Vec<String> {
        let mut lines = Vec::new();
        while let Ok(event) = self.events.try_recv() {
            lines.push(event_line(&event));
        }
        lines
    }

    /// Remaining time of both sides, from `clock quiet` (`white 0:04:50 black 0:05:00 …`).
    async fn clocks(&self) -> (String, String) {
        let reply = self.ask(Role::Arbiter, "clock quiet").await;
        let w: Vec<&str> = reply.split(' ').collect();
        assert_eq!(w[1], "white", "{reply}");
        (w[2].to_owned(), w[4].to_owned())
    }
}

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[tokio::test(start_paused = true)]
async fn a_refused_journal_write_changes_nothing_and_the_table_serves_on() {
    let mut t = start("300").await;
    assert_eq!(
        t.ask(Role::Player(Color::White), "move e4").await,
        "ok e2e4 e4"
    );
    let after_e4 = t.ask(Role::Arbiter, "board").await;
    let clocks_before = t.clocks().await;
    let journaled = t.journal.lines.lock().unwrap().len();

    // The disk is full: a correspondence move is refused and nothing of it happened.
    t.journal.full.store(true, Ordering::SeqCst);
    t.drain_events();
    let reply = t.ask(Role::Player(Color::Black), "move 5755").await;
    assert!(
        reply.starts_with("error state the journal could not record this (database or disk is full); nothing changed"),
        "{reply}"
    );
    assert_eq!(t.ask(Role::Arbiter, "board").await, after_e4);
    assert_eq!(t.clocks().await, clocks_before);
    let events = t.drain_events();
    assert!(
        events
            .iter()
            .any(|e| e.starts_with("event journal-error database or disk is full")),
        "{events:?}"
    );
    assert!(
        !events
            .iter()
            .any(|e| e.starts_with("event move") || e.starts_with("event say")),
        "nothing of a refused move is published or said: {events:?}"
    );
    // Other requests that journal are refused alike; those that don't are answered.
    assert!(
        t.ask(Role::Arbiter, "adjust white +60")
            .await
            .starts_with("error state the journal")
    );
    assert_eq!(t.clocks().await, clocks_before);
    assert!(
        t.ask(Role::Arbiter, "status")
            .await
            .starts_with("ok table t1 ply 1 turn black")
    );

    // Space is freed: the next append works, and the journal restores the very same table.
    t.journal.full.store(false, Ordering::SeqCst);
    tokio::time::advance(Duration::from_secs(3)).await;
    assert_eq!(
        t.ask(Role::Player(Color::Black), "move 5755").await,
        "ok e7e5 e5"
    );
    let lines = t.journal.lines.lock().unwrap().clone();
    assert_eq!(lines.len(), journaled + 1, "{lines:?}");
    let restored = Table::restore(settings("300"), &lines).unwrap();
    assert_eq!(
        restored.game().fen(),
        t.ask(Role::Arbiter, "board")
            .await
            .trim_start_matches("ok ")
    );
    assert_eq!(restored.game().ply_count(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_peg_move_the_journal_refuses_is_guided_back() {
    let mut t = start("300").await;
    t.boards
        .send((BoardId::Peg, LinkEvent::Connected("pty".into())))
        .await
        .unwrap();
    let start = Bitboard::from_rank(shakmaty::Rank::First)
        | Bitboard::from_rank(shakmaty::Rank::Second)
        | Bitboard::from_rank(shakmaty::Rank::Seventh)
        | Bitboard::from_rank(shakmaty::Rank::Eighth);
    t.peg(SensorEvent::Occupancy(start)).await;
    t.journal.full.store(true, Ordering::SeqCst);
    t.peg(SensorEvent::Lift(Square::E2)).await;
    t.peg(SensorEvent::Place(Square::E4)).await;
    // The board's events are handled in order before the request.
    assert_eq!(
        t.ask(Role::Arbiter, "board").await,
        format!("ok {START_FEN}")
    );
    let events = t.drain_events();
    assert!(
        events.iter().any(|e| e.starts_with("event journal-error")),
        "{events:?}"
    );
    assert!(
        !events.iter().any(|e| e.starts_with("event move ")),
        "{events:?}"
    );
    // The blind player is told his board no longer shows the game, and how to put it back.
    let guidance: Vec<&String> = events
        .iter()
        .filter(|e| e.starts_with("event say blind"))
        .collect();
    assert!(
        guidance
            .iter()
            .any(|e| e.contains("Eva vier") && e.contains("Eva zwei")),
        "{events:?}"
    );
    // With space again, the blind player puts the pawn back and plays his move.
    t.journal.full.store(false, Ordering::SeqCst);
    t.peg(SensorEvent::Lift(Square::E4)).await;
    t.peg(SensorEvent::Place(Square::E2)).await;
    t.peg(SensorEvent::Lift(Square::E2)).await;
    t.peg(SensorEvent::Place(Square::E4)).await;
    let status = t.ask(Role::Arbiter, "status").await;
    assert!(
        status.starts_with("ok table t1 ply 1 turn black"),
        "{status}"
    );
    let lines = t.journal.lines.lock().unwrap().clone();
    assert_eq!(
        Table::restore(settings("300"), &lines)
            .unwrap()
            .game()
            .ply_count(),
        1
    );
}

#[tokio::test(start_paused = true)]
async fn a_wall_clock_stepped_back_or_forward_changes_no_players_time() {
    let t = start("300").await;
    tokio::time::advance(Duration::from_secs(4)).await;
    assert_eq!(
        t.ask(Role::Player(Color::White), "move e4").await,
        "ok e2e4 e4"
    );
    // Ten seconds pass for Black while the wall clock is stepped an hour back.
    tokio::time::advance(Duration::from_secs(5)).await;
    t.wall.fetch_sub(3_600_000, Ordering::SeqCst);
    tokio::time::advance(Duration::from_secs(5)).await;
    assert_eq!(
        t.ask(Role::Player(Color::Black), "move e5").await,
        "ok e7e5 e5"
    );
    assert_eq!(
        t.clocks().await,
        ("0:04:56".to_owned(), "0:04:50".to_owned())
    );
    // Now two hours forward (NTP after a boot without a real-time clock) while White thinks 7 s.
    tokio::time::advance(Duration::from_secs(3)).await;
    t.wall.fetch_add(7_200_000, Ordering::SeqCst);
    tokio::time::advance(Duration::from_secs(4)).await;
    assert_eq!(
        t.clocks().await,
        ("0:04:49".to_owned(), "0:04:50".to_owned())
    );
    assert_eq!(
        t.ask(Role::Player(Color::White), "move Sf3").await,
        "ok g1f3 Sf3"
    );
    assert_eq!(
        t.clocks().await,
        ("0:04:49".to_owned(), "0:04:50".to_owned())
    );
    // The journal replays to the same clocks.
    let lines = t.journal.lines.lock().unwrap().clone();
    let restored = Table::restore(settings("300"), &lines).unwrap();
    let at = restored.table_time();
    assert_eq!(restored.clock().remaining(Color::White, at), 289_000);
    assert_eq!(restored.clock().remaining(Color::Black, at), 290_000);
}
