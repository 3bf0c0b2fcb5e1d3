//! The chess clock (FIDE 6.1): two linked clocks of which only one runs — presses, increments and delays, flags, pauses, arbiter decisions and penalties, readings and books, and the raw state the storage adapter persists.

use std::fmt;

use shakmaty::{ByColor, Color};

use annabella_boards::Millis;

use super::schedule::{AnnounceSchedule, Announcement};
use super::time_control::TimeControl;
use super::{MAX_ARBITER_MS, MINUTE};

/// The largest move count an arbiter may set (6.10.2).
pub const MAX_MOVES: u32 = 100_000;
/// FIDE 7.5.5 and 9.5.3: two minutes to the opponent.
pub const PENALTY_MS: u64 = 2 * MINUTE;
/// FIDE A.3 (and blitz): one minute instead of two.
pub const RAPID_PENALTY_MS: u64 = MINUTE;

fn side(color: Color) -> &'static str {
    color.fold_wb("White", "Black")
}

/// The clock's raw parts, for the storage adapter (domain types own no wire format). Taken
/// with [`Clock::state`], checked and restored with [`Clock::from_state`]. All times in ms.
///
/// Accounting, per side, always holds:
/// `used_ms + remaining_ms = first period's main time + bonus_ms + arbiter_ms`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClockState {
    /// Main time left at the last checkpoint (start, press, pause, arbiter decision,
    /// [`Clock::checkpoint`]); the running side's reading is this minus what ran since.
    pub remaining_ms: ByColor<u64>,
    /// Completed moves (presses) per side; the period follows from it.
    pub moves_made: ByColor<u32>,
    /// Whose move it is; `None` before [`Clock::start`].
    pub to_move: Option<Color>,
    /// Since when `to_move`'s clock runs; `None` before the start and while paused.
    pub running_since: Option<Millis>,
    /// Time already spent on the current move before `running_since` (pauses, checkpoints):
    /// the delay and the Bronstein refund count the whole move.
    pub move_used_ms: u64,
    /// Thinking time so far per side (the time its clock ran, up to its flag).
    pub used_ms: ByColor<u64>,
    /// Time the rules gave: increments, later periods' main time, Bronstein refunds, and the
    /// part of each move a simple delay absorbed.
    pub bonus_ms: ByColor<u64>,
    /// Net arbiter decisions and penalties.
    pub arbiter_ms: ByColor<i64>,
    /// Announcement memory: thresholds strictly below this are still to be announced, so
    /// that each is said once and a restart does not repeat them.
    pub armed_below_ms: ByColor<u64>,
}

/// Why the clock refused an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClockError {
    NotStarted,
    AlreadyStarted,
    /// The clock is paused (arbiter, adjournment): resume it first.
    Paused,
    NotPaused,
    /// Only the side whose clock runs completes a move by pressing (6.2.1).
    NotRunning {
        pressed: Color,
        running: Color,
    },
    /// This side's time ran out before the press; the game is decided by 6.9.
    Flagged(Color),
    /// `now` is earlier than the instant the running clock started: a caller's clock error.
    TimeWentBackwards {
        since: Millis,
        now: Millis,
    },
    /// An adjustment would take more time than there is; set the time instead.
    BelowZero {
        color: Color,
        remaining_ms: u64,
        delta_ms: i64,
    },
    /// A value outside what any arbiter could mean.
    Absurd {
        what: &'static str,
        value: u64,
        max: u64,
    },
    /// Raw parts that no sequence of operations produces.
    InvalidState(&'static str),
}

impl fmt::Display for ClockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClockError::NotStarted => f.write_str("the clock has not been started"),
            ClockError::AlreadyStarted => f.write_str("the clock has already been started"),
            ClockError::Paused => f.write_str("the clock is paused: resume it first"),
            ClockError::NotPaused => f.write_str("the clock is not paused"),
            ClockError::NotRunning { pressed, running } => write!(
                f,
                "{} pressed, but {}'s clock is running: only the side whose clock runs \
                 completes a move",
                side(*pressed),
                side(*running)
            ),
            ClockError::Flagged(color) => write!(
                f,
                "{}'s flag has fallen: the time ran out before the press",
                side(*color)
            ),
            ClockError::TimeWentBackwards { since, now } => write!(
                f,
                "time went backwards: the clock runs since {since} ms, now is {now} ms"
            ),
            ClockError::BelowZero {
                color,
                remaining_ms,
                delta_ms,
            } => write!(
                f,
                "{} has {remaining_ms} ms left; taking {} ms would go below zero (set the \
                 time instead)",
                side(*color),
                delta_ms.unsigned_abs()
            ),
            ClockError::Absurd { what, value, max } => {
                write!(f, "{what} of {value} ms is absurd: at most {max} ms")
            }
            ClockError::InvalidState(why) => write!(f, "invalid clock state: {why}"),
        }
    }
}

impl std::error::Error for ClockError {}

/// What a press records: the scoresheet's clock reading (`%clk`, remaining after the
/// credits) and the move's own time (`%emt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PressReading {
    pub color: Color,
    /// This side's completed moves, this one included.
    pub moves_made: u32,
    /// Thinking time of this move.
    pub move_ms: u64,
    /// Main time left after the press, increments, refunds and a new period included.
    pub remaining_ms: u64,
    /// Main time of a new period that began with this press (0 when none did).
    pub period_added_ms: u64,
}

/// A snapshot for the talking clock (D.2.6: "the time and the number of moves"); its first
/// three fields are `clock_phrase`'s arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClockReport {
    pub white_ms: u64,
    pub black_ms: u64,
    /// Moves in the game as a scoresheet numbers them: the larger side's count.
    pub moves_played: u32,
    pub moves_made: ByColor<u32>,
    /// Moves each side still has to complete before the next time control; `None` when its
    /// period lasts to the end of the game.
    pub moves_to_control: ByColor<Option<u32>>,
    /// The side whose clock is running (`None` before the start and while paused).
    pub running: Option<Color>,
}

impl ClockReport {
    pub fn remaining_ms(&self, color: Color) -> u64 {
        color.fold_wb(self.white_ms, self.black_ms)
    }
}

/// The books of one side at an instant: `used + remaining = initial + bonus + arbiter`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Accounting {
    pub initial_ms: u64,
    pub used_ms: u64,
    pub remaining_ms: u64,
    pub bonus_ms: u64,
    pub arbiter_ms: i64,
}

/// The running clock's progress since its last checkpoint.
#[derive(Debug, Clone, Copy)]
struct Segment {
    color: Color,
    /// Wall time run, capped at the flag.
    elapsed: u64,
    /// The part a simple delay absorbed.
    absorbed: u64,
    /// The part taken from the main time.
    main: u64,
}

/// A chess clock for two players (FIDE 6.1: two linked clocks, only one running).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clock {
    tc: TimeControl,
    schedule: AnnounceSchedule,
    st: ClockState,
}

impl Clock {
    /// A clock set to `tc`, not yet started: each side shows the first period's time plus
    /// one increment (the increment of move 1 is given before it).
    pub fn new(tc: TimeControl) -> Clock {
        let first = *tc.period(0);
        let increment = first.bonus.increment_ms();
        let start = first.seconds_ms().saturating_add(increment);
        Clock {
            tc,
            schedule: AnnounceSchedule::none(),
            st: ClockState {
                remaining_ms: ByColor::new_with(|_| start),
                moves_made: ByColor::default(),
                to_move: None,
                running_since: None,
                move_used_ms: 0,
                used_ms: ByColor::default(),
                bonus_ms: ByColor::new_with(|_| increment),
                arbiter_ms: ByColor::default(),
                armed_below_ms: ByColor::new_with(|_| start),
            },
        }
    }

    /// The same clock, announcing by `schedule`.
    #[must_use]
    pub fn with_schedule(mut self, schedule: AnnounceSchedule) -> Clock {
        self.schedule = schedule;
        self
    }

    /// Changes when the clock speaks by itself (a setting, not part of the state).
    pub fn set_schedule(&mut self, schedule: AnnounceSchedule) {
        self.schedule = schedule;
    }

    pub fn schedule(&self) -> &AnnounceSchedule {
        &self.schedule
    }

    pub fn time_control(&self) -> &TimeControl {
        &self.tc
    }

    /// The raw parts to persist. Call [`Clock::checkpoint`] first to fold the running
    /// clock's progress into them.
    pub fn state(&self) -> ClockState {
        self.st.clone()
    }

    /// Restores a clock from raw parts, refusing parts no sequence of operations produces
    /// (e.g. books that do not balance). The schedule is a setting: add it with
    /// [`Clock::with_schedule`].
    pub fn from_state(tc: TimeControl, state: ClockState) -> Result<Clock, ClockError> {
        if state.to_move.is_none() {
            if state.running_since.is_some() {
                return Err(ClockError::InvalidState(
                    "a clock runs although nobody is to move",
                ));
            }
            if state.move_used_ms != 0 {
                return Err(ClockError::InvalidState(
                    "time spent on a move although nobody is to move",
                ));
            }
        }
        if let Some(color) = state.to_move
            && state.move_used_ms > state.used_ms[color]
        {
            return Err(ClockError::InvalidState(
                "more time on the current move than in the whole game",
            ));
        }
        let initial = i128::from(tc.period(0).seconds_ms());
        for color in Color::ALL {
            let left = i128::from(state.used_ms[color]) + i128::from(state.remaining_ms[color]);
            let right =
                initial + i128::from(state.bonus_ms[color]) + i128::from(state.arbiter_ms[color]);
            if left != right {
                return Err(ClockError::InvalidState(
                    "used + remaining differs from initial + bonus + arbiter",
                ));
            }
        }
        Ok(Clock {
            tc,
            schedule: AnnounceSchedule::none(),
            st: state,
        })
    }

    /// Starts White's clock (6.6).
    pub fn start(&mut self, now: Millis) -> Result<(), ClockError> {
        self.start_with(Color::White, now)
    }

    /// Starts `first`'s clock: for games from a position with Black to move.
    pub fn start_with(&mut self, first: Color, now: Millis) -> Result<(), ClockError> {
        if self.st.to_move.is_some() {
            return Err(ClockError::AlreadyStarted);
        }
        self.st.to_move = Some(first);
        self.st.running_since = Some(now);
        self.st.move_used_ms = 0;
        Ok(())
    }

    /// The side whose clock is running: `None` before the start and while paused.
    pub fn running(&self) -> Option<Color> {
        self.st.running_since.and(self.st.to_move)
    }

    /// Whose move it is, paused or not.
    pub fn to_move(&self) -> Option<Color> {
        self.st.to_move
    }

    pub fn is_paused(&self) -> bool {
        self.st.to_move.is_some() && self.st.running_since.is_none()
    }

    pub fn moves_made(&self, color: Color) -> u32 {
        self.st.moves_made[color]
    }

    /// The period (0-based; past the written ones the last repeats) of `color`'s next move.
    pub fn period_index(&self, color: Color) -> usize {
        self.tc.period_of(self.st.moves_made[color]).0
    }

    /// Moves `color` must still complete before its next time control, if its period has one.
    pub fn moves_to_control(&self, color: Color) -> Option<u32> {
        let (index, done) = self.tc.period_of(self.st.moves_made[color]);
        self.tc.period(index).moves.map(|n| n.saturating_sub(done))
    }

    /// The simple delay of `color`'s current move, in full.
    fn simple_delay_ms(&self, color: Color) -> u64 {
        self.tc.period(self.period_index(color)).bonus.delay_ms()
    }

    /// What is left of the simple delay of `color`'s current (or next) move at the last
    /// checkpoint.
    fn delay_left_at_checkpoint(&self, color: Color) -> u64 {
        let delay = self.simple_delay_ms(color);
        if self.st.to_move == Some(color) {
            delay.saturating_sub(self.st.move_used_ms)
        } else {
            delay
        }
    }

    /// Wall time from the last checkpoint until `color`'s flag falls if its clock runs.
    fn budget(&self, color: Color) -> u64 {
        self.st.remaining_ms[color].saturating_add(self.delay_left_at_checkpoint(color))
    }

    fn segment(&self, now: Millis) -> Option<Segment> {
        let color = self.st.to_move?;
        let since = self.st.running_since?;
        Some(self.segment_of(color, now.saturating_sub(since)))
    }

    fn segment_of(&self, color: Color, wall: u64) -> Segment {
        let delay_left = self.delay_left_at_checkpoint(color);
        let elapsed = wall.min(self.budget(color));
        let absorbed = elapsed.min(delay_left);
        Segment {
            color,
            elapsed,
            absorbed,
            main: elapsed - absorbed,
        }
    }

    /// Books a segment: thinking time, main time, delay absorbed.
    fn book(&mut self, seg: Segment) {
        let c = seg.color;
        self.st.remaining_ms[c] = self.st.remaining_ms[c].saturating_sub(seg.main);
        self.st.used_ms[c] = self.st.used_ms[c].saturating_add(seg.elapsed);
        self.st.bonus_ms[c] = self.st.bonus_ms[c].saturating_add(seg.absorbed);
        self.st.move_used_ms = self.st.move_used_ms.saturating_add(seg.elapsed);
    }

    fn check_time(&self, now: Millis) -> Result<(), ClockError> {
        match self.st.running_since {
            Some(since) if now < since => Err(ClockError::TimeWentBackwards { since, now }),
            _ => Ok(()),
        }
    }

    /// Folds the running clock's progress up to `now` into the state without changing any
    /// reading: do this before [`Clock::state`] when persisting a running clock.
    pub fn checkpoint(&mut self, now: Millis) -> Result<(), ClockError> {
        self.check_time(now)?;
        if let Some(seg) = self.segment(now) {
            self.book(seg);
            self.st.running_since = Some(now);
        }
        Ok(())
    }

    /// After a restart, when `now` is on a new time base: the running clock restarts at
    /// `now`, charged `downtime_ms` as if it had run that long (0: the downtime is not
    /// charged). Time before the last checkpoint stays booked.
    pub fn rebase(&mut self, now: Millis, downtime_ms: u64) {
        if let (Some(color), Some(_)) = (self.st.to_move, self.st.running_since) {
            let seg = self.segment_of(color, downtime_ms);
            self.book(seg);
            self.st.running_since = Some(now);
        }
    }

    /// Main time `color` has left at `now` (a simple delay in progress is not counted).
    pub fn remaining(&self, color: Color, now: Millis) -> u64 {
        let rem = self.st.remaining_ms[color];
        match self.segment(now) {
            Some(seg) if seg.color == color => rem.saturating_sub(seg.main),
            _ => rem,
        }
    }

    /// What is left of the running side's simple delay in its current move (0 without one).
    pub fn delay_left(&self, color: Color, now: Millis) -> u64 {
        let left = self.delay_left_at_checkpoint(color);
        match self.segment(now) {
            Some(seg) if seg.color == color => left.saturating_sub(seg.absorbed),
            _ => left,
        }
    }

    /// `color`'s thinking time at `now` (the time used, D.2.10).
    pub fn used(&self, color: Color, now: Millis) -> u64 {
        let used = self.st.used_ms[color];
        match self.segment(now) {
            Some(seg) if seg.color == color => used.saturating_add(seg.elapsed),
            _ => used,
        }
    }

    /// `color`'s books at `now`.
    pub fn accounting(&self, color: Color, now: Millis) -> Accounting {
        let absorbed = match self.segment(now) {
            Some(seg) if seg.color == color => seg.absorbed,
            _ => 0,
        };
        Accounting {
            initial_ms: self.tc.period(0).seconds_ms(),
            used_ms: self.used(color, now),
            remaining_ms: self.remaining(color, now),
            bonus_ms: self.st.bonus_ms[color].saturating_add(absorbed),
            arbiter_ms: self.st.arbiter_ms[color],
        }
    }

    /// The instant the running side's flag falls if it does not press first.
    pub fn flag_instant(&self) -> Option<Millis> {
        let color = self.st.to_move?;
        let since = self.st.running_since?;
        Some(since.saturating_add(self.budget(color)))
    }

    /// The side whose flag has fallen at `now` (6.1): the running side first; a stopped side
    /// whose time an arbiter set to zero, unless a simple delay still gives it a move. The
    /// game's result is then decided by 6.9 (`Game::flag`).
    pub fn flagged(&self, now: Millis) -> Option<Color> {
        let running = self.running();
        if let (Some(color), Some(since)) = (running, self.st.running_since)
            && now.saturating_sub(since) >= self.budget(color)
        {
            return Some(color);
        }
        Color::ALL
            .into_iter()
            .find(|&c| Some(c) != running && self.budget(c) == 0)
    }

    /// Completes `color`'s move (6.2.1): its clock stops, a Bronstein refund, a new period's
    /// time (unused time carries over, 6.3.2) and the next move's increment are credited,
    /// and the opponent's clock starts. Only the running side may press, and not after its
    /// flag fell. At a table with a blind player, call this only once the move is made *and
    /// announced* (D.2.3, D.2.4).
    pub fn press(&mut self, color: Color, now: Millis) -> Result<PressReading, ClockError> {
        let to_move = self.st.to_move.ok_or(ClockError::NotStarted)?;
        let since = self.st.running_since.ok_or(ClockError::Paused)?;
        if color != to_move {
            return Err(ClockError::NotRunning {
                pressed: color,
                running: to_move,
            });
        }
        self.check_time(now)?;
        if now - since >= self.budget(color) {
            return Err(ClockError::Flagged(color));
        }
        self.checkpoint(now)?;
        let move_ms = self.st.move_used_ms;
        let done = self.st.moves_made[color];
        let (old_period, _) = self.tc.period_of(done);
        let mut gained = self.tc.period(old_period).bonus.bronstein_ms().min(move_ms);
        let moves_made = done.saturating_add(1);
        let (new_period, _) = self.tc.period_of(moves_made);
        let mut period_added_ms: u64 = 0;
        for index in old_period.saturating_add(1)..=new_period {
            period_added_ms = period_added_ms.saturating_add(self.tc.period(index).seconds_ms());
        }
        gained = gained
            .saturating_add(period_added_ms)
            .saturating_add(self.tc.period(new_period).bonus.increment_ms());
        self.st.moves_made[color] = moves_made;
        self.st.remaining_ms[color] = self.st.remaining_ms[color].saturating_add(gained);
        self.st.bonus_ms[color] = self.st.bonus_ms[color].saturating_add(gained);
        self.rearm_after_gain(color);
        self.st.to_move = Some(!color);
        self.st.running_since = Some(now);
        self.st.move_used_ms = 0;
        Ok(PressReading {
            color,
            moves_made,
            move_ms,
            remaining_ms: self.st.remaining_ms[color],
            period_added_ms,
        })
    }

    /// Stops the running clock (6.11: arbiter, adjournment, end of the game). The time spent
    /// on the current move is kept for its delay and refund.
    pub fn pause(&mut self, now: Millis) -> Result<(), ClockError> {
        if self.st.to_move.is_none() {
            return Err(ClockError::NotStarted);
        }
        if self.st.running_since.is_none() {
            return Err(ClockError::Paused);
        }
        self.checkpoint(now)?;
        self.st.running_since = None;
        Ok(())
    }

    /// Restarts the clock of the side to move after a pause (6.11.3).
    pub fn resume(&mut self, now: Millis) -> Result<(), ClockError> {
        if self.st.to_move.is_none() {
            return Err(ClockError::NotStarted);
        }
        if self.st.running_since.is_some() {
            return Err(ClockError::NotPaused);
        }
        self.st.running_since = Some(now);
        Ok(())
    }

    /// An arbiter's decision (7.1, D.2.9): adds (or takes, if negative) `delta_ms` to
    /// `color`'s time; returns the new time. Taking more than is left is refused: use
    /// [`Clock::set`] for that. The announcement schedule restarts from the new time.
    pub fn adjust(&mut self, color: Color, delta_ms: i64, now: Millis) -> Result<u64, ClockError> {
        if delta_ms.unsigned_abs() > MAX_ARBITER_MS {
            return Err(ClockError::Absurd {
                what: "a time adjustment",
                value: delta_ms.unsigned_abs(),
                max: MAX_ARBITER_MS,
            });
        }
        self.checkpoint(now)?;
        let rem = self.st.remaining_ms[color];
        let new = if delta_ms >= 0 {
            rem.saturating_add(delta_ms.unsigned_abs())
        } else {
            rem.checked_sub(delta_ms.unsigned_abs())
                .ok_or(ClockError::BelowZero {
                    color,
                    remaining_ms: rem,
                    delta_ms,
                })?
        };
        self.arbiter_book(color, new);
        Ok(new)
    }

    /// An arbiter sets `color`'s time to `ms` (6.10.2, D.2.9).
    pub fn set(&mut self, color: Color, ms: u64, now: Millis) -> Result<(), ClockError> {
        if ms > MAX_ARBITER_MS {
            return Err(ClockError::Absurd {
                what: "a clock time",
                value: ms,
                max: MAX_ARBITER_MS,
            });
        }
        self.checkpoint(now)?;
        self.arbiter_book(color, ms);
        Ok(())
    }

    fn arbiter_book(&mut self, color: Color, new: u64) {
        let delta = i128::from(new) - i128::from(self.st.remaining_ms[color]);
        let total = i128::from(self.st.arbiter_ms[color]) + delta;
        self.st.arbiter_ms[color] =
            i64::try_from(total).unwrap_or(if total < 0 { i64::MIN } else { i64::MAX });
        self.st.remaining_ms[color] = new;
        self.st.armed_below_ms[color] = new;
    }

    /// An arbiter corrects `color`'s move counter (6.10.2); the period follows from it. Times
    /// are not changed: set them with [`Clock::set`].
    pub fn set_moves(&mut self, color: Color, moves: u32) -> Result<(), ClockError> {
        if moves > MAX_MOVES {
            return Err(ClockError::Absurd {
                what: "a move count",
                value: u64::from(moves),
                max: u64::from(MAX_MOVES),
            });
        }
        self.st.moves_made[color] = moves;
        Ok(())
    }

    /// FIDE 7.5.5: after `offender`'s first completed illegal move the opponent gets two
    /// minutes; one in rapid and blitz (`one_minute`, A.3; see [`Pace`](super::Pace)). Returns the
    /// opponent's new time. (The second illegal move loses: that is the game's business.)
    pub fn penalty_illegal_move(
        &mut self,
        offender: Color,
        one_minute: bool,
        now: Millis,
    ) -> Result<u64, ClockError> {
        self.adjust(!offender, penalty(one_minute), now)
    }

    /// FIDE 9.5.3: a wrong draw claim gives the opponent two minutes; one in rapid and blitz
    /// (A.3 covers Article 9 as well). Returns the opponent's new time.
    pub fn penalty_wrong_claim(
        &mut self,
        claimant: Color,
        one_minute: bool,
        now: Millis,
    ) -> Result<u64, ClockError> {
        self.adjust(!claimant, penalty(one_minute), now)
    }

    /// Both times and the move counts, for the talking clock and the control interface.
    pub fn report(&self, now: Millis) -> ClockReport {
        let moves_made = self.st.moves_made;
        ClockReport {
            white_ms: self.remaining(Color::White, now),
            black_ms: self.remaining(Color::Black, now),
            moves_played: moves_made.white.max(moves_made.black),
            moves_made,
            moves_to_control: ByColor::new_with(|c| self.moves_to_control(c)),
            running: self.running(),
        }
    }

    /// After a gain (a press), re-arm the announcements only once the time has climbed a
    /// whole step above the last one announced: a Fischer increment that lifts 4:50 to 5:20
    /// must not make "five minutes" be said again at every move.
    fn rearm_after_gain(&mut self, color: Color) {
        let rem = self.st.remaining_ms[color];
        let armed = self.st.armed_below_ms[color];
        if rem > armed && rem >= self.schedule.rearm_level(armed) {
            self.st.armed_below_ms[color] = rem;
        }
    }

    /// The thresholds reached since the last call, each announced once: per side at most
    /// the lowest one reached (when several were passed at once, e.g. the daemon woke late,
    /// only the newest is worth saying). Nothing for a side whose flag fell.
    /// Whether [`Clock::due_announcements`] would announce something at `now`; it changes
    /// nothing, so a caller can tell before it lets the clock's announcement memory change.
    pub fn announcement_due(&self, now: Millis) -> bool {
        Color::ALL.into_iter().any(|color| {
            let rem = self.remaining(color, now);
            rem > 0
                && self
                    .schedule
                    .at_or_above(rem)
                    .is_some_and(|t| t < self.st.armed_below_ms[color])
        })
    }

    pub fn due_announcements(&mut self, now: Millis) -> Vec<Announcement> {
        let mut due = Vec::new();
        for color in Color::ALL {
            let rem = self.remaining(color, now);
            if rem == 0 {
                continue;
            }
            if let Some(t) = self.schedule.at_or_above(rem)
                && t < self.st.armed_below_ms[color]
            {
                self.st.armed_below_ms[color] = t;
                due.push(Announcement {
                    color,
                    remaining_ms: t,
                });
            }
        }
        due
    }

    /// When the daemon must next look: the running side's flag, or its next announcement
    /// threshold, whichever comes first (`now` if one is due already). `None` when no clock
    /// runs or the flag has already fallen (ask [`Clock::flagged`]).
    pub fn next_deadline(&self, now: Millis) -> Option<Millis> {
        let color = self.running()?;
        let since = self.st.running_since?;
        let flag_at = since.saturating_add(self.budget(color));
        if now >= flag_at {
            return None;
        }
        let rem = self.remaining(color, now);
        let armed = self.st.armed_below_ms[color];
        if self.schedule.at_or_above(rem).is_some_and(|t| t < armed) {
            return Some(now);
        }
        let next = self
            .schedule
            .at_or_below(rem.min(armed).saturating_sub(1))
            .map(|t| {
                since
                    .saturating_add(self.delay_left_at_checkpoint(color))
                    .saturating_add(self.st.remaining_ms[color].saturating_sub(t))
            });
        Some(next.map_or(flag_at, |at| at.min(flag_at)))
    }
}

fn penalty(one_minute: bool) -> i64 {
    if one_minute {
        RAPID_PENALTY_MS as i64
    } else {
        PENALTY_MS as i64
    }
}
