//! One table's state machine: the game, its scoresheets, the talking clock and both boards, fed
//! with sensor events, link changes, control requests and the passing of time, answering each
//! with a [`Step`]: the journal records it needs, then what to say to whom and tell subscribers.
//!
//! Pure and sans-IO (as in str0m): [`Table::handle`] and [`Table::request`] take [`Now`] (table
//! time, monotonic, for every clock; wall time for labels only) and return a [`Step`];
//! [`Table::next_deadline`] says when to call again. The actor in `annabella::app` writes a step's
//! records to the journal in one transaction and only then performs its effects (FIDE D.2.3: a
//! move is made only once announced, and nothing announced may be lost). A step whose records
//! the journal refused is given back with [`Table::rollback`]: the table is then exactly as it
//! was before the step, so nothing refused has changed.
//!
//! The table's parts live in files of their own:
//! - `game_state.rs`: what records change, and `apply`, the one place it changes;
//! - `board_pair.rs`: both boards by themselves — feeds, detectors, links, guidance (`Boards`);
//! - `boards.rs`: what the table does with the boards' conclusions (play, confirm, guide);
//! - `key_strip.rs`: what a key of the peg board's strip means (`KeyStrip`);
//! - `keys.rs`: the table's answers to the keys, to the blind player;
//! - `by_mail.rs`: a correspondence table's confirm step (`send`), the opponent's comment,
//!   the claim on time;
//! - `requests.rs`: control requests, one function per kind;
//! - `resume.rs`: the clock across a restart (the gap measured by the adapter) and after a stall;
//! - `two_sheets.rs`: the two-scoresheet procedure (D.2.9) by itself (`TwoSheets`);
//! - `sheets.rs`: that procedure at the table (journal, both boards, words);
//! - `announcer.rs`: what is said to whom, in which words and urgency (`Announcer`);
//! - `words.rs`: what the table says and shows (announcements, status, exports).
//!
//! # Who hears what
//! - The sighted side's move is announced to the blind player, who then replicates it on his
//!   peg board: the table waits for it, confirms it ("in Ordnung") or says what differs; `KA`
//!   repeats the move he owes, or the last move, with its number and colour.
//! - The answers to the peg board's keys are his alone (`keys.rs`); what a key changes in the
//!   game (a draw offer, a resignation, a claim's result) is announced as the request is.
//! - The blind player's move is announced to the opponent as soon as it is made on the peg
//!   board, and at the same instant his clock stops and the opponent's starts (D.2.3, D.2.4);
//!   it is confirmed to himself when the settings ask for it.
//! - Illegal positions, mismatches, takebacks and flag falls are urgent: they interrupt a long
//!   phrase ([`Urgency`]).

use shakmaty::Color;
use shakmaty::uci::UciMove;

use annabella_boards::{Millis, SensorEvent, Timed};
use annabella_chess::game::Game;
use annabella_chess::language::Language;
use annabella_chess::notation::Verbosity;
use annabella_chess::scoresheet::Scoresheet;
mod announcer;
mod apply_error;
mod board_pair;
mod boards;
mod by_mail;
mod day_time;
mod desk_view;
mod game_name;
mod game_state;
mod key_strip;
mod keys;
mod line_errors;
mod new_game;
mod page_view;
mod physical_clock;
mod requests;
mod restore;
mod resume;
mod sheets;
mod two_sheets;
mod words;

use crate::board_feed::min_opt;
use crate::clock::{AnnounceSchedule, Clock, TimeControl};
use crate::control::{ErrorCode, GameTag, Refusal, Role as ControlRole, TableRequest as Command};
use crate::detector::TouchMove;
pub use crate::event::{About, BoardId, Listener, Say, TableEvent, Urgency};
use crate::name::TableName;
use crate::record::{Entry, Record};
pub use crate::reply::{Answer, Reply};
pub use apply_error::ApplyError;
use board_pair::Boards;
pub use desk_view::DeskView;
pub use game_name::spoken_name;
use game_state::GameState;
pub use resume::{Downtime, MAX_WALL_DOWNTIME_MS, RestartGap};
pub use two_sheets::Proposal;

/// What the sighted side plays on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NormalBoard {
    /// No electronic board: his moves come from the control interface (assistant, arbiter,
    /// correspondence player).
    Virtual,
    /// A piece-identity board (DGT) whose moves the table detects.
    Identity,
}

/// A table's settings, fixed while it runs.
#[derive(Clone, Debug)]
pub struct TableSettings {
    pub name: TableName,
    /// The side the blind player plays on the peg board.
    pub peg_side: Color,
    pub normal: NormalBoard,
    /// The language of announcements (and of replies to connections that chose none).
    pub lang: &'static Language,
    pub verbosity: Verbosity,
    pub name_captured: bool,
    /// Confirm the blind player's own moves aloud.
    pub confirm_own_moves: bool,
    /// Below this much time on the blind player's clock, the terse style: no confirmation of
    /// his own moves, the opponent's in the short form, his own clock calls as the number alone.
    pub terse_below_ms: Option<u64>,
    pub touch_move: TouchMove,
    /// Peg-board contact debounce window (0: none).
    pub debounce_ms: Millis,
    pub time_control: TimeControl,
    pub announce: AnnounceSchedule,
    /// The start position of a new game (FEN or X-FEN).
    pub start_fen: Option<String>,
    pub chess960: bool,
    /// PGN tags every new game gets (players' names, event, site, round).
    pub tags: Vec<(GameTag, String)>,
    /// A game by mail on the desk's shared peg board, with its identifier in the messages:
    /// the board comes and goes with the focus, silently (no "Brett getrennt" each time he
    /// turns to another game), and the opponent's moves are announced with the game's name
    /// and the move's number, as he has many games.
    pub correspondence: Option<String>,
    /// A correspondence game's time control in days and the rules that count them
    /// (`annabella_correspondence::day_rules`); the chess clock then keeps no flag.
    pub days: Option<annabella_correspondence::day_rules::CorrespondenceControl>,
    /// At a correspondence table, the confirm step (`[desk] confirm`): the blind player's move
    /// is tentative until `send` (`KS`); he may take it back on the board or analyse there.
    pub confirm_send: bool,
    /// One voiced output serves both the blind player and the opponent (a loudspeaker between
    /// them): each board's sentences then say whose board they are about.
    pub shared_speaker: bool,
    /// A live game on a server (a lichess table): the opponent's moves, his draw offers and
    /// the game's end come from the server; `KC` claims the win when the opponent has left,
    /// which the server's adapter judges and answers (the table only reports the key).
    pub server_game: bool,
    /// A correspondence game on a server (ICCF's XFCC, lichess): the server judges draw claims
    /// and keeps the days, so `KC` is only reported; the server desk checks the grounds and
    /// sends the claim, or says why it cannot. The table never ends the game on it, which
    /// would leave the server's game running without him.
    pub claims_to_server: bool,
    /// A correspondence game on ICCF's server: his message goes with his next call
    /// (`my-message`, XFCC's `myMessage`).
    pub messages_to_server: bool,
}

impl TableSettings {
    /// A table with the defaults of a plain setup: the sighted side's moves over the control
    /// interface, short announcements, the blind player's own moves confirmed, touch-move
    /// warned, no debounce window, the clock silent unless asked, the standard position.
    pub fn new(
        name: TableName,
        peg_side: Color,
        lang: &'static Language,
        time_control: TimeControl,
    ) -> TableSettings {
        TableSettings {
            name,
            peg_side,
            normal: NormalBoard::Virtual,
            lang,
            verbosity: Verbosity::Short,
            name_captured: false,
            confirm_own_moves: true,
            terse_below_ms: None,
            touch_move: TouchMove::Warn,
            debounce_ms: 0,
            time_control,
            announce: AnnounceSchedule::none(),
            start_fen: None,
            chess960: false,
            tags: Vec::new(),
            correspondence: None,
            days: None,
            confirm_send: false,
            shared_speaker: false,
            server_game: false,
            claims_to_server: false,
            messages_to_server: false,
        }
    }
}

/// The time of an input: table time for everything that counts, wall time for labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Now {
    /// Table time in milliseconds: monotonic (never steps), continued across restarts from
    /// the journal. Every clock reading, deadline and sensor stamp is in table time.
    pub table_ms: Millis,
    /// Wall time (Unix milliseconds): the PGN's date and the downtime after a crash, nothing
    /// else.
    pub unix_ms: u64,
}

impl Now {
    /// Both times the same: tests and tools that have only one clock.
    pub fn at(ms: u64) -> Now {
        Now {
            table_ms: ms,
            unix_ms: ms,
        }
    }
}

/// What can happen at a table besides a control request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A decoded sensor event from a board, arriving now.
    Sensor { board: BoardId, event: SensorEvent },
    /// A decoded sensor event that the board's reader read at table time `read_ms`, reaching
    /// the table now: stamped with when it was read (never later than now, never before the
    /// board's previous event), so a busy table does not squeeze a hand's events together.
    SensorRead {
        board: BoardId,
        event: SensorEvent,
        read_ms: Millis,
    },
    /// A board's link came up (`up`) or went down; `detail` names the device and why.
    Link {
        board: BoardId,
        up: bool,
        detail: String,
    },
    /// A line from a board that could not be decoded (reported, skipped).
    DecodeError { board: BoardId, message: String },
    /// Nothing but time passing (a deadline was reached).
    Tick,
}

/// Something to do once the step's records are durable, in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Tell subscribers; a [`TableEvent::Say`] is also spoken to its listener.
    Event(TableEvent),
    /// The game is over: archive it.
    Finished { pgn: String },
    /// A two-board reconciliation for the table's record (both sheets, both boards, what was
    /// decided and why), several lines of text for the arbiter and for appeals.
    Resolution { text: String },
}

/// What one input did. Write `records` durably (all or none), then perform `effects`; if the
/// journal refuses, give the step back with [`Table::rollback`] and perform nothing.
#[must_use]
#[derive(Default)]
pub struct Step {
    /// Journal entries, in order, with the table time they were applied at.
    pub records: Vec<Entry>,
    /// Each entry's wall time (Unix ms) as the table applied it, which the journal keeps
    /// beside the line: a restart applies it with the same time (a move by mail with the
    /// time its message arrived, a game's beginning with the stamp its replies are keyed by).
    pub walls: Vec<u64>,
    pub effects: Vec<Effect>,
    /// The step begins the table's next game: its records go to a new game of the journal.
    pub begins_game: bool,
    /// The table as it was before the step's first change (only while the step has records).
    undo: Option<Box<GameState>>,
}

impl Step {
    fn event(&mut self, event: TableEvent) {
        self.effects.push(Effect::Event(event));
    }

    /// The events, for callers that look only at them.
    pub fn events(&self) -> impl Iterator<Item = &TableEvent> {
        self.effects.iter().filter_map(|e| match e {
            Effect::Event(e) => Some(e),
            _ => None,
        })
    }

    /// What is said, to whom.
    pub fn said(&self) -> impl Iterator<Item = &Say> {
        self.events().filter_map(|e| match e {
            TableEvent::Say(s) => Some(s),
            _ => None,
        })
    }
}

impl std::fmt::Debug for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Step")
            .field("records", &self.records)
            .field("effects", &self.effects)
            .finish_non_exhaustive()
    }
}

/// Why a journal could not be replayed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("journal record {index} ({line:?}): {why}")]
pub struct RestoreError {
    /// 1-based position of the record in the table's journal.
    pub index: usize,
    pub line: String,
    pub why: String,
}

/// One table: a game between the blind player at the peg board and a sighted opponent.
pub struct Table {
    settings: TableSettings,
    /// Everything the journal records change.
    state: GameState,
    /// The peg board and the sighted player's e-board, if he has one.
    boards: Boards,
    /// What is said to whom, and what the blind player heard last.
    announcer: announcer::Announcer,
    /// What the peg board's keys remember between presses (`KH`, `KX`).
    keys: key_strip::KeyStrip,
    /// The chess clock on the e-board, which the talking clock follows.
    physical_clock: physical_clock::PhysicalClock,
    /// The game's length when he was last told that he analyses (`by_mail.rs`): said once
    /// per unsent move, not at every piece he moves. Not journaled.
    analysis_told: Option<usize>,
}

/// A request refused for the table's state ("not now"), saying why.
fn state(why: impl ToString) -> Refusal {
    Refusal::new(ErrorCode::State, why.to_string())
}

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

impl Table {
    /// A new game at `now`: the `begin` record and White's clock (the side to move's) started.
    pub fn new(settings: TableSettings, now: Now) -> Result<(Table, Step), ApplyError> {
        let start = Game::from_fen(
            settings.start_fen.as_deref().unwrap_or(START_FEN),
            settings.chess960,
        )
        .map_err(|why| ApplyError::StartPosition {
            table: settings.name.to_string(),
            why,
        })?;
        let begin = Record::Begin {
            chess960: settings.chess960,
            time_control: settings.time_control.to_string(),
            fen: start.fen(),
        };
        let mut table = Table::empty(settings, start);
        let mut step = Step::default();
        table.commit(now, begin, &mut step)?;
        for (tag, value) in table.settings.tags.clone() {
            table.commit(now, Record::Tag { tag, value }, &mut step)?;
        }
        if table.settings.correspondence.is_some() {
            // The desk names all his games once at its start (`Desk::greeting`): four tables
            // each saying "Neue Partie" tell him nothing.
            step.event(TableEvent::Begin {
                time_control: table.settings.time_control.to_string(),
                fen: table.state.game.fen(),
            });
        } else {
            table.announce_begin(&mut step);
        }
        Ok((table, step))
    }

    fn empty(settings: TableSettings, game: Game) -> Table {
        Table {
            boards: Boards::new(&settings, &game),
            state: GameState::new(&settings, game),
            announcer: announcer::Announcer::new(&settings),
            keys: key_strip::KeyStrip::default(),
            physical_clock: physical_clock::PhysicalClock::default(),
            analysis_told: None,
            settings,
        }
    }

    /// Rebuilds a table from its journal: `(wall time, line)` in order, the first a `begin`.
    /// The settings' start position and time control are those of the `begin` record, so a
    /// changed configuration never rewrites a game in progress.
    pub fn restore(
        mut settings: TableSettings,
        journal: &[(u64, String)],
    ) -> Result<Table, RestoreError> {
        let err = |index: usize, line: &str, why: String| RestoreError {
            index: index + 1,
            line: line.chars().take(120).collect(),
            why,
        };
        let Some((first_at, first)) = journal.first() else {
            return Err(err(0, "", "the journal is empty".to_owned()));
        };
        let Ok(Entry {
            record:
                Record::Begin {
                    chess960,
                    time_control,
                    fen,
                },
            ..
        }) = Entry::parse(first, *first_at)
        else {
            return Err(err(
                0,
                first,
                "the first record is not a begin record".to_owned(),
            ));
        };
        settings.chess960 = chess960;
        settings.start_fen = Some(fen.clone());
        settings.time_control = time_control
            .parse()
            .map_err(|e| err(0, first, format!("time control: {e}")))?;
        let start = Game::from_fen(&fen, chess960).map_err(|e| err(0, first, e.to_string()))?;
        let mut table = Table::empty(settings, start);
        for (index, (at, line)) in journal.iter().enumerate() {
            let entry = Entry::parse(line, *at).map_err(|why| err(index, line, why.to_string()))?;
            table
                .state
                .apply(&table.settings, entry.t, *at, &entry.record)
                .map_err(|why| err(index, line, why.to_string()))?;
        }
        // A finished game was announced and archived before the crash.
        table.state.end_reported = table.state.game.is_over();
        // The boards were in play before the restart: their first snapshot may show a move
        // made (or a promotion left pending) while the daemon was down.
        table.boards.restored();
        Ok(table)
    }

    pub fn name(&self) -> &str {
        &self.settings.name
    }

    pub fn game(&self) -> &Game {
        &self.state.game
    }

    /// The game's scoresheet: moves, who wrote them, clock readings.
    pub fn sheet(&self) -> Scoresheet {
        self.state.scoresheet()
    }

    pub fn clock(&self) -> &Clock {
        &self.state.clock
    }

    pub fn settings(&self) -> &TableSettings {
        &self.settings
    }

    /// The table time of the last record: a restored table's time goes on from here.
    pub fn table_time(&self) -> Millis {
        self.state.last_t
    }

    /// Applies a live record to a copy of the game state, and keeps the copy only if the
    /// record applies whole. The record goes to the journal ahead of what it causes.
    fn commit(&mut self, now: Now, record: Record, out: &mut Step) -> Result<(), ApplyError> {
        let mut next = self.state.clone();
        next.apply(&self.settings, now.table_ms, now.unix_ms, &record)?;
        let before = std::mem::replace(&mut self.state, next);
        if out.undo.is_none() {
            out.undo = Some(Box::new(before));
        }
        out.records.push(Entry {
            t: now.table_ms.max(self.state.last_t),
            record,
        });
        out.walls.push(now.unix_ms);
        Ok(())
    }

    /// The journal refused `step`'s records: the game, the clocks and the sheets go back to
    /// what they were before it. The boards keep what they physically show; they are compared
    /// with the game again on the next input, so a move the journal could not keep is guided
    /// back on the board that made it.
    pub fn rollback(&mut self, step: Step) {
        if let Some(before) = step.undo {
            self.state = *before;
        }
    }

    /// The earliest table time something is due: a flag, a clock announcement, a debounce
    /// window, a detector hold.
    pub fn next_deadline(&self, now: Millis) -> Option<Millis> {
        let boards = self.boards.next_deadline();
        let clock = if self.state.game.is_over() || self.settings.days.is_some() {
            None
        } else {
            self.state.clock.next_deadline(now)
        };
        min_opt(boards, clock)
    }

    /// The game state for a change that is no record (the talking clock's memory of what it
    /// said, the end reported; what the two-sheet procedure decides is a `sheets-pending`
    /// record): the state as it was before the step's first change is kept for
    /// [`Table::rollback`]. Inputs that change nothing copy nothing.
    fn state_mut(&mut self, out: &mut Step) -> &mut GameState {
        if out.undo.is_none() {
            out.undo = Some(Box::new(self.state.clone()));
        }
        &mut self.state
    }

    fn end_step(mut out: Step) -> Step {
        if out.records.is_empty() {
            out.undo = None;
        }
        out
    }

    /// Handles one input at `now`.
    pub fn handle(&mut self, now: Now, input: Input) -> Step {
        let mut out = Step::default();
        self.check_clock(now, &mut out);
        match input {
            Input::Sensor { board, event } => {
                self.sensor(board, event, now.table_ms, now, &mut out)
            }
            Input::SensorRead {
                board,
                event,
                read_ms,
            } => {
                let at = self.boards.stamp(board, read_ms, now.table_ms);
                self.sensor(board, event, at, now, &mut out)
            }
            Input::Link { board, up, detail } => self.link(board, up, &detail, &mut out),
            Input::DecodeError { board, message } => {
                // A few a second; the rest counted (`line_errors`).
                if let Some(b) = self.boards.get_mut(board)
                    && let Some(held_back) = b.line_errors.admit(now.table_ms)
                {
                    let message = line_errors::with_held_back(message, held_back);
                    out.event(TableEvent::BoardError { board, message });
                }
            }
            Input::Tick => {}
        }
        self.poll_boards(now, &mut out);
        Self::end_step(out)
    }

    /// One sensor event of `board`, stamped `at` (table time): a key of the peg board's strip is
    /// answered, anything else goes through the board's debouncer and detector.
    fn sensor(&mut self, board: BoardId, event: SensorEvent, at: Millis, now: Now, out: &mut Step) {
        let reading = match &event {
            SensorEvent::Clock(r) if board == BoardId::Normal => Some(*r),
            _ => None,
        };
        let handled = match &event {
            SensorEvent::Key(key) if board == BoardId::Peg => self.key(now, *key, out),
            _ => false,
        };
        if !handled {
            self.feed(board, Timed { at, event }, now, out);
        }
        if let Some(r) = reading {
            self.follow_physical_clock(now, &r, out);
        }
    }

    /// A control request from `role`, whose connection reads moves in `lang`. Returns the
    /// reply and what the request caused.
    pub fn request(
        &mut self,
        now: Now,
        role: ControlRole,
        lang: &Language,
        command: &Command,
    ) -> (Reply, Step) {
        let mut out = Step::default();
        self.check_clock(now, &mut out);
        let reply = self.answer(now, role, lang, command, &mut out);
        self.poll_boards(now, &mut out);
        (reply, Self::end_step(out))
    }

    /// The flag and the talking clock's announcements, before any input is judged.
    fn check_clock(&mut self, now: Now, out: &mut Step) {
        // A correspondence game's time is its days (`day_time.rs`): its chess clock only
        // measures, it neither calls nor flags.
        if self.state.game.is_over() || self.settings.days.is_some() {
            return;
        }
        if let Some(color) = self.state.clock.flagged(now.table_ms) {
            match self.commit(now, Record::Flag { color }, out) {
                Ok(()) => self.announce_end(out),
                Err(e) => out.event(TableEvent::JournalError {
                    message: format!("the flag could not be recorded: {e}"),
                }),
            }
            return;
        }
        if !self.state.clock.announcement_due(now.table_ms) {
            return;
        }
        let due = self.state_mut(out).clock.due_announcements(now.table_ms);
        for a in due {
            let terse = self.terse(now);
            let say = self.announcer.clock_call(a.color, a.remaining_ms, terse);
            out.event(TableEvent::Say(say));
        }
    }

    /// A move as the game's castling mode writes it in UCI.
    fn uci(&self, m: shakmaty::Move) -> UciMove {
        UciMove::from_move(m, self.state.game.castling_mode())
    }
}
