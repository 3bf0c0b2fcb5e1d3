//! One table's state machine: the game, its scoresheet, the talking clock and both boards, fed
//! with sensor events, link changes, control requests and the passing of time, answering with
//! what to write to the journal, what to say to whom and what to tell subscribers.
//!
//! Pure and sans-IO (as in str0m): [`Table::handle`] and [`Table::request`] take `now` in Unix
//! milliseconds and return [`Output`]s; [`Table::next_deadline`] says when to call again. The
//! actor in `crate::app` performs the outputs *in order*, so a [`Output::Record`] is durable
//! before the announcements after it are spoken or a reply is sent (FIDE D.2.3: a move is made
//! only once announced, and nothing announced may be lost).
//!
//! Every change of the game goes through [`Table::apply`] with a [`Record`], live and when a
//! journal is replayed, so a restored table is the table that was running.
//!
//! # Who hears what
//! - The sighted side's move is announced to the blind player, who then replicates it on his
//!   peg board: the table waits for it, confirms it ("in Ordnung") or says what differs; `KA`
//!   repeats the move he owes.
//! - The blind player's move is announced to the opponent as soon as it is made on the peg
//!   board, and at the same instant his clock stops and the opponent's starts (D.2.3, D.2.4);
//!   it is confirmed to himself when the settings ask for it.
//! - Illegal positions, mismatches and flag falls are urgent: they interrupt a long phrase.

use std::collections::VecDeque;
use std::fmt;
use std::str::FromStr;

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Move, Position, Role};

use crate::boards::debounce::Debouncer;
use crate::boards::{BoardKey, Millis, SensorEvent, Timed};
use crate::chess::game::{EndReason, Game, GameEnd};
use crate::chess::language::Language;
use crate::chess::notation::{Notation, Style, Verbosity, format_move, parse_move};
use crate::chess::phrases::{
    Event, clock_phrase, color_phrase, duration_phrase, event_phrase, move_phrase,
};
use crate::chess::scoresheet::{Headers, Scoresheet, format_clock};
use crate::chess::vocabulary::Vocabulary;
use crate::table::clock::{AnnounceSchedule, Clock, ClockState, TimeControl};
use crate::table::control::{
    Command, ErrorCode, Refusal, Resolve as ResolveChoice, Role as ControlRole, ok_line, one_line,
    permitted,
};
use crate::table::corrections::{Correction, Observed, corrections};
use crate::table::detector::{BoardKind, Conclusion, DetectorSettings, MoveDetector, TouchMove};
use crate::table::reconcile::{
    BoardInput, ClockRecord, ReconcileInput, Sheet, Side, Verdict, read_sheet, reconcile,
};
use crate::table::record::{Record, Source};

/// Who an utterance is meant for. Speech backends and transcripts carry it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Listener {
    /// The blind or visually impaired player at the peg board.
    BlindPlayer,
    /// The sighted opponent (or the assistant relaying for him).
    Opponent,
    /// The arbiter.
    Arbiter,
    /// Everybody at the table.
    Everyone,
}

impl fmt::Display for Listener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Listener::BlindPlayer => "blind",
            Listener::Opponent => "opponent",
            Listener::Arbiter => "arbiter",
            Listener::Everyone => "all",
        })
    }
}

impl FromStr for Listener {
    type Err = String;

    /// The inverse of `Display`, so that transcripts can be read back.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "blind" => Ok(Listener::BlindPlayer),
            "opponent" => Ok(Listener::Opponent),
            "arbiter" => Ok(Listener::Arbiter),
            "all" => Ok(Listener::Everyone),
            _ => Err(format!(
                "unknown listener `{s}`: expected blind, opponent, arbiter or all"
            )),
        }
    }
}

/// Which of the table's two boards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardId {
    /// The blind player's tactile board (occupancy sensors).
    Peg,
    /// The sighted player's electronic board (piece identity), when there is one.
    Normal,
}

impl fmt::Display for BoardId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BoardId::Peg => "peg",
            BoardId::Normal => "normal",
        })
    }
}

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
    pub name: String,
    /// The side the blind player plays on the peg board.
    pub peg_side: Color,
    pub normal: NormalBoard,
    /// The language of announcements (and of replies to connections that chose none).
    pub lang: &'static Language,
    pub verbosity: Verbosity,
    pub name_captured: bool,
    /// Confirm the blind player's own moves aloud.
    pub confirm_own_moves: bool,
    pub touch_move: TouchMove,
    /// Peg-board contact debounce window (0: none).
    pub debounce_ms: Millis,
    pub time_control: TimeControl,
    pub announce: AnnounceSchedule,
    /// The start position of a new game (FEN or X-FEN).
    pub start_fen: Option<String>,
    pub chess960: bool,
}

/// Something the actor must do, in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// Write this to the journal, durably, before performing the outputs after it. `at` is
    /// the time the table applied it, which a replay must use again.
    Record { at: u64, record: Record },
    /// Say this.
    Say {
        listener: Listener,
        text: String,
        urgent: bool,
    },
    /// One line for `events` subscribers, starting with `event `.
    Event(String),
    /// The game is over: archive it.
    Finished { pgn: String },
    /// A two-board reconciliation for the table's record (both sheets, both boards, what was
    /// decided and why), several lines of text for the arbiter and for appeals.
    Resolution { text: String },
}

/// What can happen at a table besides a control request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A decoded sensor event from a board, arriving at `now`.
    Sensor { board: BoardId, event: SensorEvent },
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

/// Why a journal could not be replayed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("journal record {index} ({line:?}): {why}")]
pub struct RestoreError {
    /// 1-based position of the record in the table's journal.
    pub index: usize,
    pub line: String,
    pub why: String,
}

/// A takeback proposed by the two-sheet procedure (D.2.9).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposal {
    /// Back to after this many half-moves (the last move both sheets agree on).
    pub plies: usize,
    /// Why, in words for the players and the arbiter.
    pub explanation: Vec<String>,
}

/// One board with its debouncer and detector.
struct BoardFeed {
    debouncer: Option<Debouncer>,
    detector: MoveDetector,
    connected: bool,
    /// Connected at least once: only a reconnect is said aloud, not the first connect.
    ever_connected: bool,
    /// After a (re)connect: the next snapshot is compared with the game, and said to agree.
    awaiting_snapshot: bool,
    /// The last conclusion left the board differing from the game.
    differs: bool,
    /// While it differs: the correction the player was last told to make (he is guided one
    /// at a time).
    guided: Option<Correction>,
    released: Vec<Timed<SensorEvent>>,
}

impl BoardFeed {
    fn new(
        kind: BoardKind,
        settings: DetectorSettings,
        debounce_ms: Millis,
        game: &Game,
    ) -> BoardFeed {
        BoardFeed {
            debouncer: (kind == BoardKind::Occupancy && debounce_ms > 0)
                .then(|| Debouncer::new(debounce_ms)),
            detector: MoveDetector::new(kind, settings, game),
            connected: false,
            ever_connected: false,
            awaiting_snapshot: true,
            differs: false,
            guided: None,
            released: Vec::new(),
        }
    }

    fn next_deadline(&self) -> Option<Millis> {
        let d = self.debouncer.as_ref().and_then(Debouncer::next_deadline);
        min_opt(d, self.detector.next_deadline())
    }

    /// Whether the board still owes moves the table entered (the opponent's, to replicate).
    fn owes(&self, game: &Game) -> bool {
        self.detector.board_ply() < game.ply_count()
    }
}

fn min_opt(a: Option<Millis>, b: Option<Millis>) -> Option<Millis> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// One table: a game between the blind player at the peg board and a sighted opponent.
pub struct Table {
    s: TableSettings,
    game: Game,
    sheet: Scoresheet,
    clock: Clock,
    /// The clock before each move's press, so that a withdrawn move gives its time back.
    before_press: Vec<ClockState>,
    peg: BoardFeed,
    normal: Option<BoardFeed>,
    draw_offer: Option<Color>,
    /// Each player's scoresheet as moves: a, the blind player's; b, the sighted player's. Both
    /// follow the game unless someone enters or corrects one (D.2.9).
    sheets: [Vec<Move>; 2],
    /// Time used `[white, black]` after each half-move (index 0: the start): the clock record a
    /// takeback goes back to.
    used_after: Vec<[u64; 2]>,
    /// A takeback the reconciliation proposed, waiting for the arbiter.
    proposal: Option<Proposal>,
    /// The side whose sheet lags, asked to confirm the moves read out to him.
    lagging: Option<Side>,
    /// When the game began (Unix milliseconds): the PGN's date.
    began_at: u64,
    /// Illegal moves each side completed, as ruled by the arbiter (7.5.5).
    illegal_moves: [u32; 2],
    /// What the blind player heard last, for `KA`.
    last_to_blind: Option<String>,
    /// The end has been announced and archived (not again after a restore).
    end_reported: bool,
}

impl Table {
    /// A new game at `now`: the `begin` record and White's clock started.
    pub fn new(settings: TableSettings, now: u64) -> Result<(Table, Vec<Output>), String> {
        let start = Game::from_fen(
            settings
                .start_fen
                .as_deref()
                .unwrap_or("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            settings.chess960,
        )
        .map_err(|e| format!("table {}: start position: {e}", settings.name))?;
        let begin = Record::Begin {
            chess960: settings.chess960,
            time_control: settings.time_control.to_string(),
            fen: start.fen(),
        };
        let mut table = Table::empty(settings, start);
        table.apply(now, &begin)?;
        let mut out = vec![Output::Record {
            at: now,
            record: begin,
        }];
        out.push(Output::Event(format!(
            "event begin {} {}",
            table.s.time_control,
            table.game.fen()
        )));
        Ok((table, out))
    }

    fn empty(s: TableSettings, game: Game) -> Table {
        let board_settings = |kind: BoardKind, mover: Color, touch: TouchMove| {
            let mut d = DetectorSettings::for_kind(kind);
            d.mover = Some(mover);
            d.touch_move = touch;
            d
        };
        let peg = BoardFeed::new(
            BoardKind::Occupancy,
            board_settings(BoardKind::Occupancy, s.peg_side, s.touch_move),
            s.debounce_ms,
            &game,
        );
        let normal = (s.normal == NormalBoard::Identity).then(|| {
            BoardFeed::new(
                BoardKind::Identity,
                // FIDE D.2.5: the sighted player follows the ordinary touch-move rules, which
                // an arbiter judges; the e-board only reports them.
                board_settings(BoardKind::Identity, !s.peg_side, TouchMove::Off),
                0,
                &game,
            )
        });
        let clock = Clock::new(s.time_control.clone()).with_schedule(s.announce.clone());
        Table {
            sheet: Scoresheet::for_game(&game),
            game,
            clock,
            before_press: Vec::new(),
            peg,
            normal,
            draw_offer: None,
            sheets: [Vec::new(), Vec::new()],
            used_after: Vec::new(),
            proposal: None,
            lagging: None,
            illegal_moves: [0, 0],
            began_at: 0,
            last_to_blind: None,
            end_reported: false,
            s,
        }
    }

    /// Rebuilds a table from its journal: `(time, line)` in order, the first a `begin`. The
    /// settings' start position and time control are those of the `begin` record, so a changed
    /// configuration never rewrites a game in progress.
    pub fn restore(
        mut settings: TableSettings,
        journal: &[(u64, String)],
    ) -> Result<Table, RestoreError> {
        let err = |index: usize, line: &str, why: String| RestoreError {
            index: index + 1,
            line: line.chars().take(120).collect(),
            why,
        };
        let Some((_, first)) = journal.first() else {
            return Err(err(0, "", "the journal is empty".to_owned()));
        };
        let Ok(Record::Begin {
            chess960,
            time_control,
            fen,
        }) = first.parse::<Record>()
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
            let record: Record = line.parse().map_err(|why| err(index, line, why))?;
            table
                .apply(*at, &record)
                .map_err(|why| err(index, line, why))?;
        }
        // A finished game was announced and archived before the crash.
        table.end_reported = table.game.is_over();
        // The boards were in play before the restart: their first snapshot may show a move
        // made (or a promotion left pending) while the daemon was down.
        table.peg.ever_connected = true;
        if let Some(normal) = &mut table.normal {
            normal.ever_connected = true;
        }
        Ok(table)
    }

    pub fn name(&self) -> &str {
        &self.s.name
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn sheet(&self) -> &Scoresheet {
        &self.sheet
    }

    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    pub fn settings(&self) -> &TableSettings {
        &self.s
    }

    fn mode(&self) -> CastlingMode {
        self.game.castling_mode()
    }

    fn vocab(&self) -> &'static Vocabulary {
        self.s.lang.vocabulary()
    }

    fn style(&self) -> Style<'static> {
        let mut style = Style::new(self.s.lang);
        style.verbosity = self.s.verbosity;
        style.name_captured = self.s.name_captured;
        style
    }

    /// The one place where the game, the sheet and the clock change.
    pub fn apply(&mut self, at: u64, record: &Record) -> Result<(), String> {
        match record {
            Record::Begin { .. } => {
                if !self.game.moves().is_empty() {
                    return Err("begin in the middle of a game".to_owned());
                }
                self.clock
                    .start_with(self.game.turn(), at)
                    .map_err(|e| e.to_string())?;
                self.used_after = vec![[0, 0]];
                self.began_at = at;
            }
            Record::Move { uci, source } => {
                let m = UciMove::from_ascii(uci.as_bytes())
                    .map_err(|e| format!("{uci:?} is no UCI move: {e}"))?
                    .to_move(self.game.position())
                    .map_err(|e| format!("{uci} is illegal here: {e}"))?;
                let mover = self.game.turn();
                self.game.play(m).map_err(|e| e.to_string())?;
                self.before_press.push(self.clock.state());
                // A press fails only when the flag already fell or the clock is paused: the
                // move stands on the sheet and the flag is decided by the next tick.
                let reading = self.clock.press(mover, at).ok();
                self.sheet
                    .record(m, source.recorder(), reading.map(|r| r.remaining_ms))
                    .map_err(|e| e.to_string())?;
                // Both players write the move (a lagging sheet stays behind until confirmed).
                for sheet in &mut self.sheets {
                    if sheet.len() + 1 == self.game.ply_count() {
                        sheet.push(m);
                    }
                }
                self.used_after.push([
                    self.clock.used(Color::White, at),
                    self.clock.used(Color::Black, at),
                ]);
                if self.draw_offer == Some(!mover) {
                    // An offer lapses when the player it was made to moves instead (9.1.2.3).
                    self.draw_offer = None;
                }
                if self.game.is_over() {
                    self.clock.pause(at).ok();
                }
            }
            Record::Undo => {
                let state = self
                    .before_press
                    .pop()
                    .ok_or_else(|| "no move to withdraw".to_owned())?;
                self.game
                    .undo()
                    .ok_or_else(|| "no move to withdraw".to_owned())?;
                let plies = self.game.ply_count();
                self.sheet.truncate(plies);
                for sheet in &mut self.sheets {
                    sheet.truncate(plies);
                }
                self.used_after.truncate(plies + 1);
                self.clock = Clock::from_state(self.s.time_control.clone(), state)
                    .map_err(|e| e.to_string())?
                    .with_schedule(self.s.announce.clone());
            }
            Record::DrawOffer { color } => self.draw_offer = Some(*color),
            Record::DrawAgreed => {
                self.game.agree_draw().map_err(|e| e.to_string())?;
                self.clock.pause(at).ok();
            }
            Record::Claim { intended } => {
                let m = match intended {
                    Some(uci) => Some(
                        UciMove::from_ascii(uci.as_bytes())
                            .map_err(|e| format!("{uci:?} is no UCI move: {e}"))?
                            .to_move(self.game.position())
                            .map_err(|e| format!("{uci} is illegal here: {e}"))?,
                    ),
                    None => None,
                };
                self.game.draw_by_claim(m).map_err(|e| e.to_string())?;
                self.clock.pause(at).ok();
            }
            Record::WrongClaim { color } => {
                let one_minute = self.s.time_control.pace().one_minute_penalties();
                self.clock
                    .penalty_wrong_claim(*color, one_minute, at)
                    .map_err(|e| e.to_string())?;
            }
            Record::Resign { color } => {
                self.game.resign(*color).map_err(|e| e.to_string())?;
                self.clock.pause(at).ok();
            }
            Record::Flag { color } => {
                self.game.flag(*color).map_err(|e| e.to_string())?;
                self.clock.pause(at).ok();
            }
            Record::Adjust { color, delta_ms } => {
                self.clock
                    .adjust(*color, *delta_ms, at)
                    .map_err(|e| e.to_string())?;
            }
            Record::Penalty { color } => {
                let count = &mut self.illegal_moves[*color as usize];
                *count += 1;
                if *count >= 2 {
                    let result = self.game.loss_unless_no_mating_material(*color);
                    self.game
                        .arbiter_decision(result)
                        .map_err(|e| e.to_string())?;
                    self.clock.pause(at).ok();
                } else {
                    let one_minute = self.s.time_control.pace().one_minute_penalties();
                    self.clock
                        .penalty_illegal_move(*color, one_minute, at)
                        .map_err(|e| e.to_string())?;
                }
            }
            Record::Pause => self.clock.pause(at).map_err(|e| e.to_string())?,
            Record::Resume => self.clock.resume(at).map_err(|e| e.to_string())?,
            Record::Rebase { charged_ms } => self.clock.rebase(at, *charged_ms),
            Record::Sheet { side, moves } => {
                let mut pos = self.game.start_position().clone();
                let mut sheet = Vec::with_capacity(moves.len());
                for uci in moves {
                    let m = UciMove::from_ascii(uci.as_bytes())
                        .map_err(|e| format!("{uci:?} is no UCI move: {e}"))?
                        .to_move(&pos)
                        .map_err(|e| format!("sheet {side}: {uci} is illegal there: {e}"))?;
                    pos.play_unchecked(m);
                    sheet.push(m);
                }
                self.sheets[side.index()] = sheet;
                self.lagging = None;
            }
            Record::Retract { plies } => {
                let plies = *plies;
                if plies > self.game.ply_count() {
                    return Err(format!(
                        "retract to {plies} half-moves, but the game has {}",
                        self.game.ply_count()
                    ));
                }
                if plies < self.game.ply_count() {
                    let state = self.before_press[plies].clone();
                    self.game.truncate(plies);
                    self.sheet.truncate(plies);
                    self.before_press.truncate(plies);
                    self.used_after.truncate(plies + 1);
                    // The clocks show what they showed when that move was made; the side to
                    // move runs from now (D.2.9: "the arbiter adjusts the clocks").
                    let mut clock = Clock::from_state(self.s.time_control.clone(), state)
                        .map_err(|e| e.to_string())?
                        .with_schedule(self.s.announce.clone());
                    clock.rebase(at, 0);
                    self.clock = clock;
                }
                for sheet in &mut self.sheets {
                    sheet.truncate(plies);
                }
                self.proposal = None;
                self.lagging = None;
                self.draw_offer = None;
            }
        }
        Ok(())
    }

    /// Applies a live record and queues it for the journal ahead of what it causes.
    fn commit(&mut self, now: u64, record: Record, out: &mut Vec<Output>) -> Result<(), String> {
        self.apply(now, &record)?;
        out.push(Output::Record { at: now, record });
        Ok(())
    }

    /// After a restart at `now`: the daemon was last known alive at `last_alive` (its last
    /// heartbeat or journal record). The running clock is charged for the time it ran while
    /// the daemon was up, and for the downtime after it only when `charge_downtime`; then it
    /// runs on from `now`. Both boards are compared with the game when they next report.
    pub fn resume(&mut self, now: u64, last_alive: u64, charge_downtime: bool) -> Vec<Output> {
        let mut out = Vec::new();
        if let Some(since) = self.clock.state().running_since
            && !self.game.is_over()
        {
            let alive = last_alive.max(since).min(now);
            let downtime = now - alive;
            let charged_ms = (alive - since) + if charge_downtime { downtime } else { 0 };
            self.commit(now, Record::Rebase { charged_ms }, &mut out)
                .ok();
            out.push(Output::Event(format!(
                "event resumed downtime-ms {downtime} charged-ms {charged_ms}"
            )));
        }
        out.push(Output::Event(format!(
            "event restored ply {} {}",
            self.game.ply_count(),
            self.game.fen()
        )));
        out
    }

    /// The earliest time something is due: a flag, a clock announcement, a debounce window,
    /// a detector hold.
    pub fn next_deadline(&self, now: u64) -> Option<u64> {
        let boards = min_opt(
            self.peg.next_deadline(),
            self.normal.as_ref().and_then(BoardFeed::next_deadline),
        );
        let clock = if self.game.is_over() {
            None
        } else {
            self.clock.next_deadline(now)
        };
        min_opt(boards, clock)
    }

    /// Handles one input at `now`.
    pub fn handle(&mut self, now: u64, input: Input) -> Vec<Output> {
        let mut out = Vec::new();
        self.check_clock(now, &mut out);
        match input {
            Input::Sensor { board, event } => {
                if let SensorEvent::Key(key) = &event
                    && board == BoardId::Peg
                    && self.key(now, *key, &mut out)
                {
                    // handled as a request of the blind player
                } else {
                    self.feed(board, Timed { at: now, event }, &mut out);
                }
            }
            Input::Link { board, up, detail } => self.link(board, up, &detail, &mut out),
            Input::DecodeError { board, message } => {
                out.push(Output::Event(format!(
                    "event board-error {board} {}",
                    one_line(&message)
                )));
            }
            Input::Tick => {}
        }
        self.poll_boards(now, &mut out);
        out
    }

    // ------------------------------------------------------------------ boards

    fn feed_mut(&mut self, board: BoardId) -> Option<&mut BoardFeed> {
        self.split(board).map(|(feed, _)| feed)
    }

    /// A board's feed together with the game it is judged against.
    fn split(&mut self, board: BoardId) -> Option<(&mut BoardFeed, &Game)> {
        let game = &self.game;
        let feed = match board {
            BoardId::Peg => &mut self.peg,
            BoardId::Normal => self.normal.as_mut()?,
        };
        Some((feed, game))
    }

    fn feed(&mut self, board: BoardId, event: Timed<SensorEvent>, out: &mut Vec<Output>) {
        let Some(feed) = self.feed_mut(board) else {
            out.push(Output::Event(format!(
                "event board-error {board} no such board at this table"
            )));
            return;
        };
        match &mut feed.debouncer {
            Some(d) => d.push(event, &mut feed.released),
            None => feed.released.push(event),
        }
        self.drain(board, out);
    }

    /// Passes released events to the detector and acts on its conclusions.
    fn drain(&mut self, board: BoardId, out: &mut Vec<Output>) {
        let events = match self.feed_mut(board) {
            Some(feed) => std::mem::take(&mut feed.released),
            None => return,
        };
        for event in events {
            let snapshot = matches!(
                event.event,
                SensorEvent::Occupancy(_) | SensorEvent::Pieces(_)
            );
            let mut found = Vec::new();
            if let Some((feed, game)) = self.split(board) {
                feed.detector.handle(game, &event, &mut found);
            }
            let quiet = found.is_empty();
            self.conclude(board, event.at, found, out);
            if quiet {
                self.follow_guidance(board, &event.event, out);
            }
            let agrees = self.feed_mut(board).is_some_and(|feed| {
                snapshot && std::mem::take(&mut feed.awaiting_snapshot) && !feed.differs
            });
            if agrees {
                out.push(Output::Event(format!("event in-sync {board}")));
            }
        }
    }

    fn poll_boards(&mut self, now: u64, out: &mut Vec<Output>) {
        for board in [BoardId::Peg, BoardId::Normal] {
            if let Some(feed) = self.feed_mut(board)
                && let Some(d) = &mut feed.debouncer
            {
                d.poll(now, &mut feed.released);
            }
            self.drain(board, out);
            let mut found = Vec::new();
            if let Some((feed, game)) = self.split(board) {
                feed.detector.poll(game, now, &mut found);
            }
            self.conclude(board, now, found, out);
        }
    }

    /// Acts on conclusions until none are left: a move played into the game makes the other
    /// board owe it (or show it already), so both boards look again after each one.
    fn conclude(
        &mut self,
        board: BoardId,
        now: u64,
        found: Vec<Conclusion>,
        out: &mut Vec<Output>,
    ) {
        let mut queue: VecDeque<(BoardId, Conclusion)> =
            found.into_iter().map(|c| (board, c)).collect();
        // A bound on re-polls: each one follows a ply played, and a board cannot keep
        // concluding new moves without new events.
        let mut polls = 0;
        while let Some((b, c)) = queue.pop_front() {
            let plies = self.game.ply_count();
            self.on_conclusion(b, now, c, out);
            if self.game.ply_count() != plies && polls < 16 {
                polls += 1;
                for other in [BoardId::Peg, BoardId::Normal] {
                    let mut more = Vec::new();
                    if let Some((feed, game)) = self.split(other) {
                        feed.detector.poll(game, now, &mut more);
                    }
                    queue.extend(more.into_iter().map(|c| (other, c)));
                }
            }
        }
    }

    fn on_conclusion(&mut self, board: BoardId, now: u64, c: Conclusion, out: &mut Vec<Output>) {
        // A board that differs from the game at rest starts the two-sheet procedure (D.2.9):
        // with the sheets agreeing it only confirms whose board is wrong, for the record.
        let board_differs = matches!(
            c,
            Conclusion::Illegal { .. } | Conclusion::Mismatch { .. } | Conclusion::Takeback { .. }
        );
        self.react(board, now, c, out);
        if board_differs && self.proposal.is_none() && self.lagging.is_none() {
            self.reconcile_sheets(now, false, out);
        }
    }

    fn react(&mut self, board: BoardId, now: u64, c: Conclusion, out: &mut Vec<Output>) {
        let mode = self.mode();
        out.push(Output::Event(format!("event {board} {}", c.describe(mode))));
        let listener = Self::listener_of(board);
        match c {
            Conclusion::Touched { .. } | Conclusion::Rotated => {}
            Conclusion::Moved { m, warning } => {
                if let Some(w) = warning {
                    out.push(Output::Event(format!(
                        "event touch-move {board} {}",
                        one_line(&w.to_string())
                    )));
                }
                let source = match board {
                    BoardId::Peg => Source::Peg,
                    BoardId::Normal => Source::Normal,
                };
                if let Err(e) = self.play(now, m, source, out) {
                    out.push(Output::Event(format!(
                        "event refused {board} {}",
                        one_line(&e.message)
                    )));
                    let mut again = Vec::new();
                    if let Some((feed, game)) = self.split(board) {
                        feed.detector.resync(game, &mut again);
                    }
                    for c in again {
                        self.on_conclusion(board, now, c, out);
                    }
                }
            }
            Conclusion::Replicated { .. } => {
                self.set_differs(board, false);
                if board == BoardId::Peg {
                    let text = event_phrase(Event::MoveConfirmed, self.vocab());
                    self.say(listener, text, false, out);
                }
            }
            Conclusion::PromotionPending { .. } => {
                let text = event_phrase(Event::PromotionRequest, self.vocab());
                self.say(listener, text, false, out);
            }
            Conclusion::Illegal { corrections, .. } => {
                let header = event_phrase(Event::IllegalMove, self.vocab());
                self.start_guidance(board, header, &corrections, out);
            }
            Conclusion::Mismatch {
                corrections,
                unverifiable,
            } => {
                let header = self.word("board_mismatch");
                self.start_guidance(board, header, &corrections, out);
                if unverifiable {
                    out.push(Output::Event(format!(
                        "event unverifiable {board} an occupancy board cannot tell which piece \
                         stands in a hole"
                    )));
                }
            }
            Conclusion::Takeback { .. } => {
                // A made move is taken back only by the arbiter (or an undo): the board is
                // told how to show the game again.
                let fixes = self.corrections_for(board);
                let header = self.word("board_mismatch");
                self.start_guidance(board, header, &fixes, out);
            }
            Conclusion::InSync => {
                self.set_differs(board, false);
                let text = self.word("board_correct");
                self.say(listener, text, false, out);
            }
        }
    }

    fn word(&self, key: &str) -> String {
        self.vocab().event(key).unwrap_or(key).to_owned()
    }

    fn listener_of(board: BoardId) -> Listener {
        match board {
            BoardId::Peg => Listener::BlindPlayer,
            BoardId::Normal => Listener::Opponent,
        }
    }

    /// The board differs from the game: say so, with the first correction only; the next
    /// ones follow as the player makes them ([`Table::follow_guidance`]).
    fn start_guidance(
        &mut self,
        board: BoardId,
        header: String,
        fixes: &[Correction],
        out: &mut Vec<Output>,
    ) {
        let first = fixes.first().copied();
        if let Some(feed) = self.feed_mut(board) {
            feed.differs = true;
            feed.guided = first;
        }
        let mut words = vec![header];
        words.extend(first.map(|c| crate::table::corrections::spoken(&c, self.vocab())));
        self.say(Self::listener_of(board), words.join(". "), true, out);
        out.push(Output::Event(format!(
            "event guide {board} {}",
            fixes
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        )));
    }

    /// After a hand action on a board that differs: when the correction said last is done,
    /// say the next one; when nothing is left, say the board is right (and, if the board
    /// still owes the opponent's move, repeat it).
    fn follow_guidance(&mut self, board: BoardId, event: &SensorEvent, out: &mut Vec<Output>) {
        let Some(feed) = self.feed_mut(board) else {
            return;
        };
        if !feed.differs {
            return;
        }
        // Mid-gesture a lift is the first half of a move; only a removal ends with one.
        let acts = match event {
            SensorEvent::Lift(sq) => {
                matches!(feed.guided, Some(Correction::Remove { square, .. }) if square == *sq)
            }
            SensorEvent::SquareChanged {
                piece: None,
                square,
            } => {
                matches!(feed.guided, Some(Correction::Remove { square: s, .. }) if s == *square)
            }
            SensorEvent::Key(_) | SensorEvent::Identity(_) => false,
            _ => true,
        };
        if !acts {
            return;
        }
        let owed_ply = feed.detector.board_ply();
        let observed = feed.detector.observed();
        let fixes = self.corrections_for(board);
        let shows_owed_position = owed_ply < self.game.ply_count()
            && self
                .game
                .position_before(owed_ply)
                .is_some_and(|p| observed.matches(p.board()));
        if fixes.is_empty() || shows_owed_position {
            if let Some(feed) = self.feed_mut(board) {
                feed.differs = false;
                feed.guided = None;
            }
            out.push(Output::Event(format!("event in-sync {board}")));
            let mut words = vec![self.word("board_correct")];
            if board == BoardId::Peg {
                words.extend(self.owed_phrase());
            }
            self.say(Self::listener_of(board), words.join(". "), false, out);
            return;
        }
        let first = fixes.first().copied();
        let changed = self.feed_mut(board).is_some_and(|f| f.guided != first);
        if changed {
            if let Some(feed) = self.feed_mut(board) {
                feed.guided = first;
            }
            if let Some(c) = first {
                let text = crate::table::corrections::spoken(&c, self.vocab());
                self.say(Self::listener_of(board), text, false, out);
            }
        }
    }

    fn set_differs(&mut self, board: BoardId, differs: bool) {
        if let Some(feed) = self.feed_mut(board) {
            feed.differs = differs;
            if !differs {
                feed.guided = None;
            }
        }
    }

    fn corrections_for(&mut self, board: BoardId) -> Vec<Correction> {
        let target = self.game.position().board().clone();
        match self.feed_mut(board) {
            Some(feed) => {
                let observed = feed.detector.observed();
                let believed = feed.detector.believed().clone();
                corrections(&observed, Some(&believed), &target)
            }
            None => Vec::new(),
        }
    }

    fn link(&mut self, board: BoardId, up: bool, detail: &str, out: &mut Vec<Output>) {
        let Some(feed) = self.feed_mut(board) else {
            return;
        };
        let was = feed.connected;
        let again = feed.ever_connected;
        feed.connected = up;
        feed.ever_connected |= up;
        if up {
            // Only a board seen before can have had a move made on it while away; at the
            // first connect its snapshot is compared with the game, nothing more.
            if again {
                feed.detector.reconnected();
            }
            feed.awaiting_snapshot = true;
            if let Some(d) = &mut feed.debouncer {
                d.flush(&mut feed.released);
            }
            feed.released.clear();
        }
        out.push(Output::Event(format!(
            "event board {board} {} {}",
            if up { "connected" } else { "disconnected" },
            one_line(detail)
        )));
        let listener = Self::listener_of(board);
        if up && !was && again {
            let text = event_phrase(Event::BoardReconnected, self.vocab());
            self.say(listener, text, false, out);
        } else if !up && was {
            let text = event_phrase(Event::BoardDisconnected, self.vocab());
            self.say(listener, text, true, out);
        }
    }

    /// A key on the peg board's strip that is a request rather than a sensor event.
    fn key(&mut self, now: u64, key: BoardKey, out: &mut Vec<Output>) -> bool {
        match key {
            BoardKey::Repeat => {
                out.push(Output::Event("event key peg repeat".to_owned()));
                let text = self.owed_phrase().or_else(|| self.last_to_blind.clone());
                if let Some(text) = text {
                    self.say(Listener::BlindPlayer, text, false, out);
                }
                true
            }
            BoardKey::Time => {
                out.push(Output::Event("event key peg time".to_owned()));
                let text = self.clock_words(now);
                self.say(Listener::BlindPlayer, text, false, out);
                true
            }
            BoardKey::Other(c) => {
                out.push(Output::Event(format!("event key peg unknown {c}")));
                true
            }
            BoardKey::Promote(_) => false,
        }
    }

    /// The phrase of the first move the peg board still owes (the opponent's move the blind
    /// player has to replicate).
    fn owed_phrase(&self) -> Option<String> {
        let ply = self.peg.detector.board_ply();
        if ply >= self.game.ply_count() {
            return None;
        }
        let pos = self.game.position_before(ply)?;
        let m = *self.game.moves().get(ply)?;
        Some(move_phrase(&pos, m, &self.style()))
    }

    fn clock_words(&self, now: u64) -> String {
        let r = self.clock.report(now);
        clock_phrase(r.white_ms, r.black_ms, r.moves_played, self.vocab())
    }

    fn say(&mut self, listener: Listener, text: String, urgent: bool, out: &mut Vec<Output>) {
        if listener == Listener::BlindPlayer {
            self.last_to_blind = Some(text.clone());
        }
        out.push(Output::Event(format!(
            "event say {listener} {}",
            one_line(&text)
        )));
        out.push(Output::Say {
            listener,
            text,
            urgent,
        });
    }

    // ------------------------------------------------------------------ the clock

    fn check_clock(&mut self, now: u64, out: &mut Vec<Output>) {
        if self.game.is_over() {
            return;
        }
        if let Some(color) = self.clock.flagged(now) {
            if self.commit(now, Record::Flag { color }, out).is_ok() {
                self.announce_end(out);
            }
            return;
        }
        for a in self.clock.due_announcements(now) {
            let text = format!(
                "{} {}",
                color_phrase(a.color, self.vocab()),
                duration_phrase(a.remaining_ms, self.vocab())
            );
            self.say(Listener::BlindPlayer, text, a.remaining_ms < 60_000, out);
        }
    }

    // ------------------------------------------------------------------ moves

    /// Plays an accepted move: journal, clock, announcements.
    fn play(
        &mut self,
        now: u64,
        m: Move,
        source: Source,
        out: &mut Vec<Output>,
    ) -> Result<(), Refusal> {
        if let Some(end) = self.game.outcome() {
            return Err(Refusal::new(
                ErrorCode::State,
                format!("the game is over: {end}"),
            ));
        }
        if self.clock.is_paused() {
            return Err(Refusal::new(
                ErrorCode::State,
                "the arbiter has stopped the clocks; no move until they run again (resume)",
            ));
        }
        let before: Chess = self.game.position().clone();
        let mover = before.turn();
        let uci = UciMove::from_move(m, self.mode()).to_string();
        self.commit(
            now,
            Record::Move {
                uci: uci.clone(),
                source,
            },
            out,
        )
        .map_err(|e| Refusal::new(ErrorCode::Move, e))?;
        let san = format_move(
            &before,
            self.mode(),
            m,
            Notation::San,
            &Style::new(crate::chess::language::Language::english()),
        );
        out.push(Output::Event(format!(
            "event move {} {} {uci} {san} {source}",
            self.game.ply_count(),
            color_name(mover)
        )));
        let phrase = move_phrase(&before, m, &self.style());
        if mover == self.s.peg_side {
            self.say(Listener::Opponent, phrase.clone(), false, out);
            if self.s.confirm_own_moves {
                self.say(Listener::BlindPlayer, phrase, false, out);
            }
        } else {
            self.say(Listener::BlindPlayer, phrase, false, out);
        }
        self.announce_end(out);
        Ok(())
    }

    fn announce_end(&mut self, out: &mut Vec<Output>) {
        let Some(end) = self.game.outcome() else {
            return;
        };
        if self.end_reported {
            return;
        }
        self.end_reported = true;
        let v = self.vocab();
        let mut words = Vec::new();
        let event = match end.reason {
            // Mate is spoken with the move; the result follows.
            EndReason::Checkmate => None,
            EndReason::Stalemate => Some(Event::Stalemate),
            EndReason::InsufficientMaterial => Some(Event::InsufficientMaterial),
            EndReason::FivefoldRepetition => Some(Event::FivefoldRepetition),
            EndReason::SeventyFiveMoveRule => Some(Event::SeventyFiveMoveRule),
            EndReason::Agreement => Some(Event::DrawAgreed),
            EndReason::Claim(crate::chess::game::DrawReason::ThreefoldRepetition) => {
                Some(Event::ThreefoldRepetitionClaim)
            }
            EndReason::Claim(crate::chess::game::DrawReason::FiftyMoveRule) => {
                Some(Event::FiftyMoveClaim)
            }
            EndReason::Resignation { by } if end.result.winner().is_none() => {
                Some(Event::ResignsOpponentCannotMate(by))
            }
            EndReason::Resignation { by } => Some(Event::Resigns(by)),
            EndReason::Timeout { flagged } if end.result.winner().is_none() => {
                Some(Event::FlagOpponentCannotMate(flagged))
            }
            EndReason::Timeout { flagged } => Some(Event::LostOnTime(flagged)),
            EndReason::ArbiterDecision => None,
        };
        if let Some(e) = event {
            words.push(event_phrase(e, v));
        }
        let is_draw_event = matches!(
            event,
            Some(
                Event::Stalemate
                    | Event::InsufficientMaterial
                    | Event::FivefoldRepetition
                    | Event::SeventyFiveMoveRule
                    | Event::DrawAgreed
                    | Event::ThreefoldRepetitionClaim
                    | Event::FiftyMoveClaim
                    | Event::ResignsOpponentCannotMate(_)
                    | Event::FlagOpponentCannotMate(_)
            )
        );
        match end.result.winner() {
            Some(c) => words.push(event_phrase(Event::Wins(c), v)),
            None if !is_draw_event => words.push(event_phrase(Event::Draw, v)),
            None => {}
        }
        out.push(Output::Event(format!(
            "event end {} {}",
            end.result.pgn(),
            one_line(&end.to_string())
        )));
        let urgent = matches!(end.reason, EndReason::Timeout { .. });
        self.say(Listener::Everyone, words.join(". "), urgent, out);
        out.push(Output::Finished { pgn: self.pgn() });
    }

    /// The game so far as PGN, with the clock readings.
    pub fn pgn(&self) -> String {
        self.sheet.to_pgn(&self.headers())
    }

    fn headers(&self) -> Headers {
        Headers {
            event: format!("annabella {}", self.s.name),
            date: pgn_date(self.began_at),
            result: self.game.outcome().map(|e: GameEnd| e.result),
            time_control: Some(self.s.time_control.to_string()),
            ..Headers::default()
        }
    }

    // ------------------------------------------------------------------ requests

    /// A control request from `role`, whose connection reads moves in `lang`. Returns the
    /// reply line and what the request caused.
    pub fn request(
        &mut self,
        now: u64,
        role: ControlRole,
        lang: &Language,
        command: &Command,
    ) -> (String, Vec<Output>) {
        let mut out = Vec::new();
        self.check_clock(now, &mut out);
        let reply = match self.request_inner(now, role, lang, command, &mut out) {
            Ok(text) => ok_line(&text),
            Err(refusal) => refusal.line(),
        };
        self.poll_boards(now, &mut out);
        (reply, out)
    }

    fn request_inner(
        &mut self,
        now: u64,
        role: ControlRole,
        lang: &Language,
        command: &Command,
        out: &mut Vec<Output>,
    ) -> Result<String, Refusal> {
        let turn = self.game.turn();
        match command {
            Command::Undo => {
                let last_mover = !turn;
                permitted(role, command, last_mover)?;
            }
            _ => permitted(role, command, turn)?,
        }
        match command {
            Command::Move { text } => {
                self.running()?;
                let m = parse_move(self.game.position(), self.mode(), text, None, lang)
                    .map_err(|e| Refusal::new(ErrorCode::Move, e.to_string()))?;
                let before = self.game.position().clone();
                self.play(now, m, Source::Control(role), out)?;
                let mut letters = Style::new(lang);
                letters.verbosity = Verbosity::Short;
                Ok(format!(
                    "{} {}",
                    UciMove::from_move(m, self.mode()),
                    format_move(&before, self.mode(), m, Notation::San, &letters)
                ))
            }
            Command::Board => Ok(self.game.fen()),
            Command::Clock | Command::ClockQuiet => {
                let r = self.clock.report(now);
                if *command == Command::Clock
                    && (matches!(role, ControlRole::Player(c) if c == self.s.peg_side)
                        || role == ControlRole::Assistant)
                {
                    // Asked for the blind player (D.2.10: the assistant tells him on request).
                    let words = self.clock_words(now);
                    self.say(Listener::BlindPlayer, words, false, out);
                }
                Ok(format!(
                    "white {} black {} moves {} running {}",
                    format_clock(r.white_ms),
                    format_clock(r.black_ms),
                    r.moves_played,
                    r.running.map_or("none", color_name)
                ))
            }
            Command::Sheet => Ok(self.movetext(lang)),
            Command::Status => Ok(self.status_words()),
            Command::OfferDraw => {
                self.running()?;
                let color = self.claimant(role);
                if self.draw_offer == Some(!color) {
                    self.commit(now, Record::DrawAgreed, out)
                        .map_err(|e| Refusal::new(ErrorCode::State, e))?;
                    self.announce_end(out);
                    Ok("draw agreed".to_owned())
                } else {
                    self.commit(now, Record::DrawOffer { color }, out)
                        .map_err(|e| Refusal::new(ErrorCode::State, e))?;
                    out.push(Output::Event(format!(
                        "event draw-offer {}",
                        color_name(color)
                    )));
                    let text = event_phrase(Event::DrawOffer(color), self.vocab());
                    self.say(Listener::Everyone, text, false, out);
                    Ok(format!("{} offers a draw", color_name(color)))
                }
            }
            Command::ClaimDraw { intended } => {
                self.running()?;
                let claimant = turn;
                if let ControlRole::Player(c) = role
                    && c != claimant
                {
                    return Err(Refusal::new(
                        ErrorCode::Forbidden,
                        format!(
                            "only the player to move ({}) may claim a draw",
                            color_name(claimant)
                        ),
                    ));
                }
                let m = match intended {
                    Some(text) => Some(
                        parse_move(self.game.position(), self.mode(), text, None, lang)
                            .map_err(|e| Refusal::new(ErrorCode::Move, e.to_string()))?,
                    ),
                    None => None,
                };
                match self.game.claim_draw(m) {
                    Ok(reason) => {
                        let intended = m.map(|m| UciMove::from_move(m, self.mode()).to_string());
                        self.commit(now, Record::Claim { intended }, out)
                            .map_err(|e| Refusal::new(ErrorCode::State, e))?;
                        self.announce_end(out);
                        Ok(format!("draw by {reason}"))
                    }
                    Err(why) => {
                        self.commit(now, Record::WrongClaim { color: claimant }, out)
                            .map_err(|e| Refusal::new(ErrorCode::State, e))?;
                        out.push(Output::Event(format!(
                            "event wrong-claim {} {}",
                            color_name(claimant),
                            one_line(&why.to_string())
                        )));
                        Err(Refusal::new(
                            ErrorCode::State,
                            format!(
                                "claim refused: {why}; {} gets the penalty time (FIDE 9.5.3)",
                                color_name(!claimant)
                            ),
                        ))
                    }
                }
            }
            Command::Resign => {
                self.running()?;
                let color = match role {
                    ControlRole::Player(c) => c,
                    // The assistant serves the blind player (D.2.10).
                    ControlRole::Assistant => self.s.peg_side,
                    _ => turn,
                };
                self.commit(now, Record::Resign { color }, out)
                    .map_err(|e| Refusal::new(ErrorCode::State, e))?;
                self.announce_end(out);
                Ok(format!("{} resigns", color_name(color)))
            }
            Command::Undo => {
                let Some(&last) = self.game.moves().last() else {
                    return Err(Refusal::new(ErrorCode::State, "no move to withdraw"));
                };
                if self.game.outcome().is_some_and(|e| declared(e.reason)) {
                    return Err(Refusal::new(
                        ErrorCode::State,
                        "the game was ended by a declaration; only the arbiter can reopen it",
                    ));
                }
                let before = self
                    .game
                    .position_before(self.game.ply_count() - 1)
                    .ok_or_else(|| Refusal::new(ErrorCode::State, "no move to withdraw"))?;
                self.commit(now, Record::Undo, out)
                    .map_err(|e| Refusal::new(ErrorCode::State, e))?;
                self.end_reported = self.game.is_over();
                let uci = UciMove::from_move(last, self.mode()).to_string();
                out.push(Output::Event(format!("event undo {uci}")));
                let withdrawn = move_phrase(&before, last, &self.style());
                let text = format!(
                    "{}: {withdrawn}",
                    self.vocab()
                        .event("move_withdrawn")
                        .unwrap_or("move_withdrawn")
                );
                self.say(Listener::Everyone, text, true, out);
                Ok(format!("withdrawn {uci}"))
            }
            Command::Adjust { color, delta_ms } => {
                self.commit(
                    now,
                    Record::Adjust {
                        color: *color,
                        delta_ms: *delta_ms,
                    },
                    out,
                )
                .map_err(|e| Refusal::new(ErrorCode::State, e))?;
                let left = self.clock.remaining(*color, now);
                out.push(Output::Event(format!(
                    "event clock-adjusted {} {delta_ms:+} {}",
                    color_name(*color),
                    format_clock(left)
                )));
                Ok(format!("{} {}", color_name(*color), format_clock(left)))
            }
            Command::Penalty { color } => {
                self.running()?;
                self.commit(now, Record::Penalty { color: *color }, out)
                    .map_err(|e| Refusal::new(ErrorCode::State, e))?;
                out.push(Output::Event(format!(
                    "event penalty {} illegal move {}",
                    color_name(*color),
                    self.illegal_moves[*color as usize]
                )));
                if self.game.is_over() {
                    self.announce_end(out);
                    Ok(format!(
                        "second illegal move by {}: the game is over",
                        color_name(*color)
                    ))
                } else {
                    Ok(format!(
                        "{} gets the penalty time; {} left",
                        color_name(!*color),
                        format_clock(self.clock.remaining(!*color, now))
                    ))
                }
            }
            Command::Pause | Command::Resume => {
                self.running()?;
                let record = if *command == Command::Pause {
                    Record::Pause
                } else {
                    Record::Resume
                };
                self.commit(now, record, out)
                    .map_err(|e| Refusal::new(ErrorCode::State, e))?;
                out.push(Output::Event(format!("event clock {}", command.keyword())));
                Ok(format!(
                    "clock {}",
                    if *command == Command::Pause {
                        "paused"
                    } else {
                        "running"
                    }
                ))
            }
            Command::SheetOf { side } => Ok(self.sheet_text(*side, lang)),
            Command::Boards => Ok(self.boards_words()),
            Command::Record { side, moves } => {
                self.may_write_sheet(role, *side)?;
                let start = Game::from_position(
                    self.game.start_position().clone(),
                    self.game.castling_mode(),
                );
                let sheet = read_sheet(*side, moves, &start, lang);
                self.commit_sheet(now, *side, &sheet.moves, out)?;
                let mut reply = format!("sheet {side}: {} half-moves", sheet.moves.len());
                if let Some(bad) = &sheet.bad {
                    reply.push_str(&format!(
                        "; ply {} ({}) {:?} is not kept: {}",
                        bad.ply, bad.label, bad.token, bad.reason
                    ));
                }
                let verdict = self.reconcile_sheets(now, false, out);
                Ok(format!("{reply}; {verdict}"))
            }
            Command::Confirm { side } => {
                self.may_write_sheet(role, *side)?;
                if self.lagging != Some(*side) {
                    return Err(Refusal::new(
                        ErrorCode::State,
                        format!("sheet {side} does not lag: nothing to confirm"),
                    ));
                }
                let other = self.sheets[1 - side.index()].clone();
                self.commit_sheet(now, *side, &other, out)?;
                let verdict = self.reconcile_sheets(now, false, out);
                Ok(format!("sheet {side} confirmed; {verdict}"))
            }
            Command::Dispute { side } => {
                self.may_write_sheet(role, *side)?;
                if self.lagging != Some(*side) {
                    return Err(Refusal::new(
                        ErrorCode::State,
                        format!("sheet {side} does not lag: nothing to dispute"),
                    ));
                }
                self.lagging = None;
                let verdict = self.reconcile_sheets(now, true, out);
                Ok(format!("sheet {side} disputed; {verdict}"))
            }
            Command::Resolve { choice } => {
                let plies = match choice {
                    ResolveChoice::Reject => {
                        if self.proposal.take().is_none() {
                            return Err(Refusal::new(
                                ErrorCode::State,
                                "no resolution is proposed",
                            ));
                        }
                        out.push(Output::Event("event resolution rejected".to_owned()));
                        return Ok("the proposed takeback is dropped".to_owned());
                    }
                    ResolveChoice::Confirm => {
                        self.proposal
                            .as_ref()
                            .ok_or_else(|| {
                                Refusal::new(ErrorCode::State, "no resolution is proposed")
                            })?
                            .plies
                    }
                    ResolveChoice::Override { plies } => *plies,
                };
                if plies > self.game.ply_count() {
                    return Err(Refusal::new(
                        ErrorCode::State,
                        format!(
                            "the game has {} half-moves; no takeback to {plies}",
                            self.game.ply_count()
                        ),
                    ));
                }
                let retracted: Vec<String> = self.game.moves()[plies..]
                    .iter()
                    .map(|&m| UciMove::from_move(m, self.mode()).to_string())
                    .collect();
                self.commit(now, Record::Retract { plies }, out)
                    .map_err(|e| Refusal::new(ErrorCode::State, e))?;
                self.end_reported = self.game.is_over();
                let r = self.clock.report(now);
                out.push(Output::Event(format!(
                    "event takeback {plies} retracted {} clocks white {} black {}",
                    if retracted.is_empty() {
                        "-".to_owned()
                    } else {
                        retracted.join(",")
                    },
                    format_clock(r.white_ms),
                    format_clock(r.black_ms)
                )));
                let text = self.word("takeback_done");
                self.say(Listener::Everyone, text, true, out);
                Ok(format!(
                    "back to {plies} half-moves; white {} black {}",
                    format_clock(r.white_ms),
                    format_clock(r.black_ms)
                ))
            }
            Command::Parse { text } => {
                let pos = self.game.position();
                let m = parse_move(pos, self.mode(), text, None, lang)
                    .map_err(|e| Refusal::new(ErrorCode::Move, e.to_string()))?;
                let mut style = Style::new(lang);
                style.verbosity = self.s.verbosity;
                Ok(format!(
                    "{} {} {}",
                    UciMove::from_move(m, self.mode()),
                    format_move(pos, self.mode(), m, Notation::San, &Style::new(lang)),
                    move_phrase(pos, m, &style)
                ))
            }
            Command::Export { format } => {
                let text = self.export(format, lang).ok_or_else(|| {
                    Refusal::new(
                        ErrorCode::Syntax,
                        format!("no export format {format:?}; pgn, iccf, braille or brf"),
                    )
                })?;
                Ok(json_string(&text))
            }
            Command::Promote { piece } => {
                let role = *piece;
                let mut found = Vec::new();
                self.peg
                    .detector
                    .choose_promotion(&self.game, role, &mut found);
                let before = self.game.ply_count();
                self.conclude(BoardId::Peg, now, found, out);
                if self.game.ply_count() > before {
                    let m = self.game.moves().last().copied();
                    Ok(m.map(|m| UciMove::from_move(m, self.mode()).to_string())
                        .unwrap_or_default())
                } else {
                    Ok(format!("{} chosen for the next promotion", role_name(role)))
                }
            }
            Command::Auth { .. }
            | Command::Events
            | Command::Lang { .. }
            | Command::Help
            | Command::Quit
            | Command::Table { .. }
            | Command::Tables => Err(Refusal::new(
                ErrorCode::Syntax,
                format!(
                    "{} is answered by the connection, not the table",
                    command.keyword()
                ),
            )),
        }
    }

    /// The game in an export format: PGN (English SAN, clock comments), the ICCF numeric
    /// score, or the Braille scoresheet in the reader's notation (Unicode or BRF).
    pub fn export(&self, format: &str, lang: &Language) -> Option<String> {
        let mode = self.mode();
        let style = Style::new(lang);
        let headers = self.headers();
        match format.to_ascii_lowercase().as_str() {
            "pgn" => Some(self.sheet.to_pgn(&headers)),
            "iccf" => Some(self.sheet.to_iccf(Some(&headers), |pos, m| {
                format_move(pos, mode, m, Notation::Iccf, &style)
            })),
            f @ ("braille" | "brf") => {
                let doc = self.sheet.to_braille(&headers, |pos, m| {
                    format_move(pos, mode, m, Notation::San, &style)
                });
                Some(if f == "brf" {
                    doc.to_brf()
                } else {
                    doc.to_unicode()
                })
            }
            _ => None,
        }
    }

    /// Journals a player's sheet as these moves.
    fn commit_sheet(
        &mut self,
        now: u64,
        side: Side,
        moves: &[Move],
        out: &mut Vec<Output>,
    ) -> Result<(), Refusal> {
        let moves = moves
            .iter()
            .map(|&m| UciMove::from_move(m, self.mode()).to_string())
            .collect();
        self.commit(now, Record::Sheet { side, moves }, out)
            .map_err(|e| Refusal::new(ErrorCode::State, e))
    }

    /// Who may write a player's sheet: his assistant, the arbiter, or the player himself.
    fn may_write_sheet(&self, role: ControlRole, side: Side) -> Result<(), Refusal> {
        let owner = match side {
            Side::A => self.s.peg_side,
            Side::B => !self.s.peg_side,
        };
        match role {
            ControlRole::Assistant | ControlRole::Arbiter => Ok(()),
            ControlRole::Player(c) if c == owner => Ok(()),
            _ => Err(Refusal::new(
                ErrorCode::Forbidden,
                format!(
                    "sheet {side} is {}'s; only he, the assistant or the arbiter may write it",
                    color_name(owner)
                ),
            )),
        }
    }

    fn sheet_text(&self, side: Side, lang: &Language) -> String {
        let style = Style::new(lang);
        let mut pos = self.game.start_position().clone();
        let mut words = Vec::new();
        for (i, &m) in self.sheets[side.index()].iter().enumerate() {
            if pos.turn() == Color::White {
                words.push(format!("{}.", pos.fullmoves()));
            } else if i == 0 {
                words.push(format!("{}...", pos.fullmoves()));
            }
            words.push(format_move(&pos, self.mode(), m, Notation::San, &style));
            pos.play_unchecked(m);
        }
        words.join(" ")
    }

    /// What each board shows, for the reconciliation: the peg board's occupancy with the pieces
    /// its detector believes in; the e-board's pieces; a virtual board shows the game.
    fn board_input(&self, board: BoardId) -> BoardInput {
        let feed = match board {
            BoardId::Peg => Some(&self.peg),
            BoardId::Normal => self.normal.as_ref(),
        };
        match feed {
            Some(f) => BoardInput {
                observed: f.detector.observed(),
                believed: (f.detector.kind() == BoardKind::Occupancy)
                    .then(|| f.detector.believed().clone()),
            },
            None => BoardInput {
                observed: Observed::Pieces(self.game.position().board().clone()),
                believed: None,
            },
        }
    }

    /// The D.2.9 procedure on both sheets and both boards as they are now: the resolution goes
    /// to the table's record; a lag is read out, a difference becomes a takeback proposal for
    /// the arbiter. Returns the verdict in a few words.
    fn reconcile_sheets(&mut self, now: u64, lag_disputed: bool, out: &mut Vec<Output>) -> String {
        let start = Game::from_position(
            self.game.start_position().clone(),
            self.game.castling_mode(),
        );
        let sheets = [
            Sheet::from_moves(self.sheets[0].clone()),
            Sheet::from_moves(self.sheets[1].clone()),
        ];
        let boards = [
            self.board_input(BoardId::Peg),
            self.board_input(BoardId::Normal),
        ];
        let clocks = ClockRecord {
            used_now: [
                self.clock.used(Color::White, now),
                self.clock.used(Color::Black, now),
            ],
            plies_now: self.game.ply_count(),
            after_ply: self.used_after.iter().map(|u| Some(*u)).collect(),
        };
        let input = ReconcileInput {
            start: &start,
            sheets: [&sheets[0], &sheets[1]],
            boards: [&boards[0], &boards[1]],
            languages: [self.s.lang, self.s.lang],
            clocks: Some(&clocks),
            lag_disputed,
        };
        let r = reconcile(&input);
        out.push(Output::Resolution {
            text: r.record(&input),
        });
        for line in &r.explanation {
            out.push(Output::Event(format!("event explain {}", one_line(line))));
        }
        match &r.verdict {
            Verdict::Agree => {
                self.proposal = None;
                self.lagging = None;
                out.push(Output::Event(format!(
                    "event resolution agree plies {}",
                    r.agreed_plies
                )));
                format!("the sheets agree ({} half-moves)", r.agreed_plies)
            }
            Verdict::Lagging {
                side,
                missing,
                read_out,
            } => {
                self.lagging = Some(*side);
                out.push(Output::Event(format!(
                    "event resolution lagging {side} missing {}",
                    missing
                        .iter()
                        .map(|&m| UciMove::from_move(m, self.mode()).to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                )));
                let listener = match side {
                    Side::A => Listener::BlindPlayer,
                    Side::B => Listener::Opponent,
                };
                let mut words = vec![self.word("sheet_lags")];
                words.extend(read_out.iter().cloned());
                self.say(listener, words.join(". "), false, out);
                format!(
                    "sheet {side} lags by {} half-moves: read out to be confirmed (confirm {side}) or \
                     disputed (dispute {side})",
                    missing.len()
                )
            }
            Verdict::Differ => {
                self.lagging = None;
                let plies = r.agreed_plies;
                self.proposal = Some(Proposal {
                    plies,
                    explanation: r.explanation.clone(),
                });
                let (white, black) = match &r.clocks {
                    Some(c) => (c.used[0], c.used[1]),
                    None => (0, 0),
                };
                out.push(Output::Event(format!(
                    "event resolution proposed takeback-to {plies} retract-a {} retract-b {} \
                     used-white {} used-black {}",
                    join_or_dash(&r.retracted_uci(Side::A)),
                    join_or_dash(&r.retracted_uci(Side::B)),
                    format_clock(white),
                    format_clock(black)
                )));
                let text = self.word("sheets_differ");
                self.say(Listener::Everyone, text, true, out);
                format!(
                    "the sheets differ after {plies} half-moves: a takeback to there is proposed \
                     to the arbiter (resolve confirm, resolve override N, resolve reject)"
                )
            }
        }
    }

    fn running(&self) -> Result<(), Refusal> {
        match self.game.outcome() {
            Some(end) => Err(Refusal::new(
                ErrorCode::State,
                format!("the game is over: {end}"),
            )),
            None => Ok(()),
        }
    }

    /// The side a draw offer from `role` is made for.
    fn claimant(&self, role: ControlRole) -> Color {
        match role {
            ControlRole::Player(c) => c,
            ControlRole::Assistant => self.s.peg_side,
            // The arbiter records an offer for the side that has just moved (9.1.2.1).
            _ => !self.game.turn(),
        }
    }

    fn movetext(&self, lang: &Language) -> String {
        let style = Style::new(lang);
        let mut words = Vec::new();
        for (i, (pos, m)) in self.game.replay().enumerate() {
            if pos.turn() == Color::White {
                words.push(format!("{}.", pos.fullmoves()));
            } else if i == 0 {
                words.push(format!("{}...", pos.fullmoves()));
            }
            words.push(format_move(&pos, self.mode(), m, Notation::San, &style));
        }
        if let Some(end) = self.game.outcome() {
            words.push(end.result.pgn().to_owned());
        }
        words.join(" ")
    }

    fn status_words(&self) -> String {
        let board_state = |feed: &BoardFeed| {
            format!(
                "{} {}",
                if feed.connected {
                    "connected"
                } else {
                    "disconnected"
                },
                if feed.differs {
                    "differs"
                } else if feed.owes(&self.game) {
                    "owes-move"
                } else {
                    "in-sync"
                }
            )
        };
        format!(
            "table {} ply {} turn {} result {} peg {} normal {} draw-offer {} promotion {}",
            self.s.name,
            self.game.ply_count(),
            color_name(self.game.turn()),
            self.game.outcome().map_or("*", |e| e.result.pgn()),
            board_state(&self.peg),
            self.normal
                .as_ref()
                .map_or_else(|| "virtual".to_owned(), board_state),
            self.draw_offer.map_or("none", color_name),
            self.peg
                .detector
                .pending_promotion()
                .map_or_else(|| "none".to_owned(), |(from, to)| format!("{from}{to}"))
        )
    }

    /// What each physical board shows: `peg <link> S<occupancy> <FEN board of the pieces
    /// believed in its holes> normal virtual|<link> <FEN board observed>`.
    fn boards_words(&self) -> String {
        let link = |f: &BoardFeed| {
            if f.connected {
                "connected"
            } else {
                "disconnected"
            }
        };
        let occupancy = match self.peg.detector.observed() {
            Observed::Occupancy(occ) => occ,
            Observed::Pieces(board) => board.occupied(),
        };
        let peg = format!(
            "peg {} {} {}",
            link(&self.peg),
            crate::boards::peg::encode(&crate::boards::SensorEvent::Occupancy(occupancy))
                .unwrap_or_default(),
            self.peg.detector.believed()
        );
        let normal = match &self.normal {
            None => "normal virtual".to_owned(),
            Some(f) => {
                let board = match f.detector.observed() {
                    Observed::Pieces(board) => board,
                    Observed::Occupancy(_) => f.detector.believed().clone(),
                };
                format!("normal {} {board}", link(f))
            }
        };
        format!("{peg} {normal}")
    }
}

/// Ends somebody declared (rather than the position forcing them): a slip of the tongue
/// cannot undo those.
fn declared(reason: EndReason) -> bool {
    matches!(
        reason,
        EndReason::Agreement
            | EndReason::Resignation { .. }
            | EndReason::Timeout { .. }
            | EndReason::Claim(_)
            | EndReason::ArbiterDecision
    )
}

/// `YYYY.MM.DD` (UTC) of a Unix time in milliseconds, for the PGN `Date` tag; the civil date
/// from the day count as in Howard Hinnant's `civil_from_days`.
fn pgn_date(unix_ms: u64) -> String {
    let days = (unix_ms / 86_400_000) as i64 + 719_468;
    let era = days.div_euclid(146_097);
    let doe = days.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

fn join_or_dash(items: &[String]) -> String {
    if items.is_empty() {
        "-".to_owned()
    } else {
        items.join(",")
    }
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn role_name(role: Role) -> &'static str {
    crate::chess::role_name(role)
}

/// `text` as one JSON string literal: an export fits on one reply line.
fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::pgn_date;

    #[test]
    fn pgn_dates() {
        assert_eq!(pgn_date(0), "1970.01.01");
        assert_eq!(pgn_date(951_782_400_000), "2000.02.29");
        assert_eq!(pgn_date(1_795_405_477_028), "2026.11.23");
        assert_eq!(pgn_date(4_107_542_400_000), "2100.03.01");
    }
}
