//! The talking clock's arithmetic (FIDE 6, D.2.6): time controls, presses, increments and delays, flags, penalties, announcement thresholds. Pure: every instant is a parameter.
//!
//! Nothing here reads a clock or does I/O. The daemon passes `now` (milliseconds on its
//! monotonic clock, [`Millis`](annabella_boards::Millis)) into every call, sleeps until
//! [`Clock::next_deadline`], and then asks [`Clock::flagged`] and [`Clock::due_announcements`]
//! what happened. The words are made elsewhere (`annabella_chess::phrases::clock_phrase` takes
//! a [`ClockReport`]'s numbers).
//!
//! Syntax and rules are documented for users in `docs/clock.md`:
//! - [`time_control`]: [`TimeControl`], PGN `TimeControl` periods (`40/5400+30:1800+30`),
//!   extended with delays (`300d5` simple/US delay, `5400b30` Bronstein), and FIDE's [`Pace`].
//! - [`setting`]: a time control as a person types it (`90m+30s`), with minutes typed as
//!   seconds caught.
//! - [`schedule`]: [`AnnounceSchedule`], when the talking clock speaks by itself
//!   (`10m@*,1m@5m,10s@1m`).
//! - [`chess_clock`]: [`Clock`], two clocks linked so that only one runs (FIDE 6.1), with
//!   [`ClockState`] as the plain raw parts the storage adapter persists.

pub mod chess_clock;
pub mod schedule;
pub mod setting;
pub mod time_control;

pub use chess_clock::{
    Accounting, Clock, ClockError, ClockReport, ClockState, MAX_MOVES, PENALTY_MS, PressReading,
    RAPID_PENALTY_MS,
};
pub use schedule::{
    AnnounceRule, AnnounceSchedule, Announcement, DurationError, MAX_ANNOUNCE_RULES, RuleError,
    ScheduleError,
};
pub use setting::{SettingError, UnitsError};
pub use time_control::{
    Bonus, MAX_BONUS_SECONDS, MAX_PERIOD_MOVES, MAX_PERIOD_SECONDS, MAX_PERIODS, NumberError, Pace,
    Period, PeriodError, TimeControl, TimeControlError, TimeControlTag,
};

// The units every part counts in: the clock keeps milliseconds, people write seconds and up.
const SECOND: u64 = 1_000;
const MINUTE: u64 = 60 * SECOND;
const HOUR: u64 = 60 * MINUTE;
const DAY: u64 = 24 * HOUR;

/// The largest time an arbiter may set or add or take in one decision; also the longest step
/// or bound of an announcement rule.
pub const MAX_ARBITER_MS: u64 = 1_000 * DAY;
