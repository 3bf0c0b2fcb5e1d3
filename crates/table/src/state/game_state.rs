//! What a table's journal records change: the game, each half-move's clock history, the chess
//! clock, both players' scoresheets, draw offers and penalties, and what the two-sheet
//! procedure decided from them. [`GameState::apply`] is the one place any of it changes, live
//! and when a journal is replayed; the table clones the state before a step so that a record
//! the journal refuses leaves it exactly as it was.

use std::collections::BTreeMap;

use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Move, Position};

use crate::clock::{Clock, ClockState};
use crate::control::GameTag;
use crate::record::Record;
use crate::state::two_sheets::TwoSheets;
use crate::state::{ApplyError, TableSettings};
use annabella_boards::Millis;
use annabella_chess::ccsnt::{Precision, SentStamp};
use annabella_chess::game::Game;
use annabella_chess::scoresheet::{Recorder, Scoresheet};
use annabella_correspondence::day_clock::Leave;
use annabella_correspondence::day_clock::{DayClock, MoveCharge};

/// What changes a correspondence game's days besides its moves (`day_time.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DayEvent {
    /// The side sent an illegal or ambiguous move: charged its rules' days.
    Penalty(Color),
    /// Days of leave.
    Leave(Leave),
}

/// What one half-move did to the clock, kept so that an undo or a takeback gives the time back
/// and the reconciliation can put the clocks back to any move. One entry per move of the game:
/// cut together with the game, never on its own.
#[derive(Clone, Debug)]
pub(super) struct PlyClock {
    /// The clock just before this move's press: an undo or takeback restores it.
    pub before_press: ClockState,
    /// Time used `[white, black]` right after the press.
    pub used_after: [u64; 2],
    /// Who wrote the move on the scoresheet.
    pub recorder: Recorder,
    /// The mover's clock reading after the press (`%clk`).
    pub reading_ms: u64,
    /// Wall time the move was made (Unix ms): a correspondence move's date of dispatch or
    /// receipt, which correspondence time is counted in.
    pub unix_ms: u64,
}

/// The journaled part of a table (everything but the live boards).
#[derive(Clone)]
pub(super) struct GameState {
    pub game: Game,
    /// One per move of `game`, in step with it.
    pub plies: Vec<PlyClock>,
    pub clock: Clock,
    /// The side whose draw offer stands.
    pub draw_offer: Option<Color>,
    /// Both players' scoresheets and where the two-sheet procedure stands (D.2.9).
    pub sheets: TwoSheets,
    /// When the game began (Unix milliseconds): the PGN's date, a label only.
    pub began_at_unix_ms: u64,
    /// Illegal moves each side completed, as ruled by the arbiter (7.5.5).
    pub illegal_moves: [u32; 2],
    /// The end has been announced and archived (not again after a restore or an undo that
    /// leaves it over).
    pub end_reported: bool,
    /// Table time of the last record applied: table time never goes back.
    pub last_t: Millis,
    /// Wall time of the last record applied (Unix milliseconds), for the downtime after a
    /// crash.
    pub last_unix_ms: u64,
    /// The game's PGN tags set at the table (players' names, event, site, round).
    pub tags: BTreeMap<GameTag, String>,
    /// A correspondence game's time in days (`day_time.rs`): the clock, what each move cost,
    /// and the penalties and leave with the half-move they came at.
    pub days: Option<DayClock>,
    pub day_charges: Vec<Option<MoveCharge>>,
    pub day_events: Vec<(usize, DayEvent)>,
    /// The half-moves the blind player has released to be mailed (`send`); with the confirm
    /// step his last move waits for it (`Table::released_plies`).
    pub sent_plies: usize,
    /// The opponent's last comment, as the journal keeps it (`comment`).
    pub comment: Option<String>,
    /// His last message for the server (`my-message`), with the half-moves released when he
    /// wrote it.
    pub my_message: Option<(usize, String)>,
    /// A claim of the game on time by this side, waiting for the arbiter's result.
    pub time_claim: Option<Color>,
    /// The draw offer the move at this many half-moves let lapse: withdrawing that move (his
    /// tentative move taken back, an undo) lets the offer stand again.
    pub lapsed_offer: Option<(usize, Color)>,
    /// The clock is stopped until the boards show the new game's start position
    /// (`hold-set-up`, `new_game.rs`): the boards being right start it, which they never do
    /// for the arbiter's `pause`. Journaled, so a restart during the set-up waits on.
    pub setup_hold: bool,
}

impl GameState {
    pub fn new(settings: &TableSettings, game: Game) -> GameState {
        GameState {
            game,
            plies: Vec::new(),
            clock: Clock::new(settings.time_control.clone())
                .with_schedule(settings.announce.clone()),
            draw_offer: None,
            sheets: TwoSheets::default(),
            began_at_unix_ms: 0,
            illegal_moves: [0, 0],
            end_reported: false,
            last_t: 0,
            last_unix_ms: 0,
            tags: BTreeMap::new(),
            days: settings.days.map(DayClock::new),
            day_charges: Vec::new(),
            day_events: Vec::new(),
            sent_plies: 0,
            comment: None,
            my_message: None,
            time_claim: None,
            lapsed_offer: None,
            setup_hold: false,
        }
    }

    /// Time used `[white, black]` after `ply` half-moves (0: the start).
    pub fn used_after(&self, ply: usize) -> [u64; 2] {
        match ply {
            0 => [0, 0],
            n => self.plies[n - 1].used_after,
        }
    }

    /// The game as a scoresheet: the moves with who wrote them and the clock readings.
    pub fn scoresheet(&self) -> Scoresheet {
        let mut sheet = Scoresheet::for_game(&self.game);
        for (i, (&m, ply)) in self.game.moves().iter().zip(&self.plies).enumerate() {
            // The moves were played into the game from the same start: always legal here.
            // A correspondence move keeps when it was sent (`%ccsnt`), not a clock reading.
            let reading = self.days.is_none().then_some(ply.reading_ms);
            if sheet.record(m, ply.recorder, reading).is_err() {
                break;
            }
            if self.days.is_some() {
                sheet.set_sent(i, Some(SentStamp::new(ply.unix_ms, Precision::Minute)));
            }
        }
        sheet
    }

    fn resolve(pos: &Chess, uci: &UciMove) -> Result<Move, ApplyError> {
        uci.to_move(pos)
            .map_err(|why| ApplyError::IllegalMove { uci: *uci, why })
    }

    fn restored_clock(
        &self,
        settings: &TableSettings,
        state: ClockState,
    ) -> Result<Clock, ApplyError> {
        Ok(Clock::from_state(settings.time_control.clone(), state)?
            .with_schedule(settings.announce.clone()))
    }

    /// Cuts the game and everything kept per move back to `plies` half-moves.
    fn cut(&mut self, plies: usize) {
        self.game.truncate(plies);
        self.plies.truncate(plies);
        self.days_cut(plies);
        self.sheets.truncate(plies);
        // A move withdrawn is no longer released; its replacement waits for its own `send`.
        self.sent_plies = self.sent_plies.min(plies);
        // The move that let an offer lapse is withdrawn: the offer stands again.
        if let Some((at, color)) = self.lapsed_offer
            && at > plies
        {
            self.lapsed_offer = None;
            self.draw_offer = Some(color);
        }
    }

    /// Applies one record at table time `t` (wall time `unix_ms`, a label). On an error the
    /// state may be half-changed: callers apply to a copy (live) or give up (replay).
    pub fn apply(
        &mut self,
        settings: &TableSettings,
        t: Millis,
        unix_ms: u64,
        record: &Record,
    ) -> Result<(), ApplyError> {
        // Table time is monotonic; a journal written before it was (wall time) is read as if
        // it had been, so a wall clock stepped back there cannot fail a replay.
        let t = t.max(self.last_t);
        match record {
            Record::Begin { chess960, fen, .. } => {
                // A game begins afresh: the first record of a journal, or the arbiter's next
                // game once the last one is over (its own journal game).
                if !self.game.moves().is_empty() && !self.game.is_over() {
                    return Err(ApplyError::BeginMidGame);
                }
                let game = Game::from_fen(fen, *chess960)?;
                *self = GameState::new(settings, game);
                self.days_begin(unix_ms);
                self.clock.start_with(self.game.turn(), t)?;
                self.began_at_unix_ms = unix_ms;
            }
            Record::Tag { tag, value } => {
                self.tags.insert(*tag, value.clone());
            }
            Record::Move { uci, source } => {
                let m = Self::resolve(self.game.position(), uci)?;
                let mover = self.game.turn();
                let before_press = self.clock.state();
                // A refused press refuses the move: the flag is decided before any move is
                // taken, and a paused clock takes no move, so this never happens in play; if it
                // does, the move must not stand with the clock running for its mover.
                let reading = self.clock.press(mover, t).map_err(ApplyError::Press)?;
                self.game.play(m)?;
                self.days_moved(mover, unix_ms);
                self.plies.push(PlyClock {
                    before_press,
                    used_after: [
                        self.clock.used(Color::White, t),
                        self.clock.used(Color::Black, t),
                    ],
                    recorder: source.recorder(),
                    reading_ms: reading.remaining_ms,
                    unix_ms,
                });
                // Both players write the move (a lagging sheet stays behind until confirmed).
                self.sheets.follow_move(m, self.game.ply_count());
                if self.draw_offer == Some(!mover) {
                    // An offer lapses when the player it was made to moves instead (9.1.2.3).
                    self.draw_offer = None;
                    self.lapsed_offer = Some((self.game.ply_count(), !mover));
                }
                if self.game.is_over() {
                    self.stop_clock(t);
                }
            }
            Record::Undo => {
                let last = self.plies.last().ok_or(ApplyError::NoMoveToWithdraw)?;
                let clock = self.restored_clock(settings, last.before_press.clone())?;
                let plies = self.game.ply_count() - 1;
                self.cut(plies);
                self.clock = clock;
            }
            Record::DrawOffer { color } => self.draw_offer = Some(*color),
            Record::Send => self.sent_plies = self.game.ply_count(),
            Record::Comment { text } => self.comment = Some(text.clone()),
            Record::MyMessage { plies, text } => self.my_message = Some((*plies, text.clone())),
            Record::TimeClaim { color } => self.time_claim = Some(*color),
            Record::SheetsPending {
                lagging,
                takeback,
                explanation,
            } => {
                if let Some(plies) = *takeback
                    && plies > self.game.ply_count()
                {
                    return Err(ApplyError::RetractPastEnd {
                        plies,
                        has: self.game.ply_count(),
                    });
                }
                self.sheets.set_pending(*lagging, *takeback, explanation);
            }
            Record::DrawAgreed => {
                self.game.agree_draw()?;
                self.stop_clock(t);
            }
            Record::Claim { intended } => {
                let m = match intended {
                    Some(uci) => Some(Self::resolve(self.game.position(), uci)?),
                    None => None,
                };
                self.game.draw_by_claim(m)?;
                self.stop_clock(t);
            }
            Record::WrongClaim { color } => {
                let one_minute = settings.time_control.pace().one_minute_penalties();
                self.clock.penalty_wrong_claim(*color, one_minute, t)?;
            }
            Record::Resign { color } => {
                self.game.resign(*color)?;
                self.stop_clock(t);
            }
            Record::Flag { color } => {
                self.game.flag(*color)?;
                self.stop_clock(t);
            }
            Record::Result { result } => {
                self.game.arbiter_decision(*result)?;
                self.stop_clock(t);
            }
            Record::Adjust { color, delta_ms } => {
                self.clock.adjust(*color, *delta_ms, t)?;
            }
            Record::Penalty { color } => {
                let count = &mut self.illegal_moves[*color as usize];
                *count += 1;
                if *count >= 2 {
                    let result = self.game.loss_unless_no_mating_material(*color);
                    self.game.arbiter_decision(result)?;
                    self.stop_clock(t);
                } else {
                    let one_minute = settings.time_control.pace().one_minute_penalties();
                    self.clock.penalty_illegal_move(*color, one_minute, t)?;
                }
            }
            // The arbiter's `pause` while the table holds the clock for the set-up makes the
            // stop his: the clock is already stopped, and only his `resume` starts it.
            Record::Pause if self.setup_hold => self.setup_hold = false,
            Record::Pause => self.clock.pause(t)?,
            Record::HoldForSetUp => {
                self.clock.pause(t)?;
                self.setup_hold = true;
            }
            Record::Resume => {
                self.clock.resume(t)?;
                self.setup_hold = false;
            }
            Record::Rebase { charged_ms } => self.clock.rebase(t, *charged_ms),
            Record::DayPenalty { color } => self.days_event(DayEvent::Penalty(*color))?,
            Record::Leave { leave } => self.days_event(DayEvent::Leave(*leave))?,
            Record::Sheet { side, moves } => {
                let mut pos = self.game.start_position().clone();
                let mut sheet = Vec::with_capacity(moves.len());
                for uci in moves {
                    let m = uci
                        .to_move(&pos)
                        .map_err(|why| ApplyError::IllegalOnSheet {
                            side: *side,
                            uci: *uci,
                            why,
                        })?;
                    pos.play_unchecked(m);
                    sheet.push(m);
                }
                self.sheets.set(*side, sheet);
            }
            Record::Retract { plies } => {
                let plies = *plies;
                if plies > self.game.ply_count() {
                    return Err(ApplyError::RetractPastEnd {
                        plies,
                        has: self.game.ply_count(),
                    });
                }
                if plies < self.game.ply_count() {
                    // The clocks show what they showed when that move was made; the side to
                    // move runs from now (D.2.9: "the arbiter adjusts the clocks").
                    let mut clock =
                        self.restored_clock(settings, self.plies[plies].before_press.clone())?;
                    clock.rebase(t, 0);
                    self.cut(plies);
                    self.clock = clock;
                }
                self.sheets.retracted(plies);
                self.draw_offer = None;
            }
        }
        self.last_t = t;
        self.last_unix_ms = unix_ms;
        Ok(())
    }

    /// The game ended: both clocks stop. A clock already paused (the arbiter stopped it) stays
    /// so; nothing else can refuse a pause.
    fn stop_clock(&mut self, t: Millis) {
        if !self.clock.is_paused() {
            // Not paused and started (a game in progress): pause cannot fail.
            let _ = self.clock.pause(t);
        }
    }
}
