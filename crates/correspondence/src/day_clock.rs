//! The correspondence day clock of one game: each side's days charged, penalties and leave,
//! whose move since when, the reading (days and hours left) and the deadline to check.
//!
//! Pure: every operation takes the wall time as Unix milliseconds (UTC) and nothing here reads
//! a clock. How days are charged is the rule set's ([`crate::day_rules`]).
//!
//! A side's reflection time runs from the moment the opponent moved ([`DayClock::moved`]) to
//! the moment it sends its reply, less the UTC days of its own leave (ICCF: "reflection time
//! is stopped during a valid leave"; the opponent's time runs on). A side exceeds its time
//! when the days charged to it pass the days allowed up to the control its next move counts
//! towards; it stays exceeded even when a later control would add days.

use std::fmt;
use std::str::FromStr;

use shakmaty::Color;

use crate::day_rules::{CorrespondenceControl, Rules};
use crate::message::Date;
use annabella_chess::phrases::duration_phrase;
use annabella_chess::vocabulary::{Vocabulary, fill};

/// Milliseconds in a day of reflection time (24 hours).
pub const DAY_MS: u64 = 86_400_000;
/// Most leave periods kept per side (the yearly allowance bounds them too).
pub const MAX_LEAVES: usize = 64;

/// A period of leave: the UTC days `from` to `to`, both included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Leave {
    pub color: Color,
    pub from: Date,
    pub to: Date,
}

impl Leave {
    /// The first moment of the leave, Unix ms (dates before 1970 count from 1970).
    fn start_ms(&self) -> u64 {
        day_start_ms(self.from.unix_day())
    }

    /// The moment after its last day.
    fn end_ms(&self) -> u64 {
        day_start_ms(self.to.unix_day() + 1)
    }

    /// Its days that fall in calendar year `year`.
    fn days_in_year(&self, year: u32) -> u64 {
        let (Some(first), Some(last)) = (Date::new(year, 1, 1), Date::new(year, 12, 31)) else {
            return 0;
        };
        let from = self.from.unix_day().max(first.unix_day());
        let to = self.to.unix_day().min(last.unix_day());
        u64::try_from(to - from + 1).unwrap_or(0)
    }

    fn overlaps(&self, other: &Leave) -> bool {
        self.from <= other.to && other.from <= self.to
    }
}

/// The journal form: `leave white 2026-12-20 2027-01-05`.
impl fmt::Display for Leave {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "leave {} {} {}",
            color_word(self.color),
            self.from,
            self.to
        )
    }
}

impl FromStr for Leave {
    type Err = LeaveError;

    fn from_str(text: &str) -> Result<Leave, LeaveError> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let bad = || LeaveError::Unreadable(cut(text));
        let ["leave", color, from, to] = words.as_slice() else {
            return Err(bad());
        };
        let color = match *color {
            "white" => Color::White,
            "black" => Color::Black,
            _ => return Err(bad()),
        };
        let from = Date::parse(from).ok_or_else(bad)?;
        let to = Date::parse(to).ok_or_else(bad)?;
        Ok(Leave { color, from, to })
    }
}

/// Why a leave was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LeaveError {
    #[error("leave must end on or after its first day ({from} to {to})")]
    Backwards { from: Date, to: Date },
    #[error("the {rules} rules grant no leave")]
    NotGranted { rules: Rules },
    #[error("{color}'s leave {from} to {to} overlaps the leave {other_from} to {other_to}",
        color = color_word(*.color))]
    Overlaps {
        color: Color,
        from: Date,
        to: Date,
        other_from: Date,
        other_to: Date,
    },
    #[error("{color} would take {asked} days of leave in {year} with {taken} already taken; \
             {allowance} are allowed a year", color = color_word(*.color))]
    OverAllowance {
        color: Color,
        year: u32,
        taken: u64,
        asked: u64,
        allowance: u32,
    },
    #[error("at most {MAX_LEAVES} leave periods per side")]
    TooMany,
    #[error("{0:?} is no leave record: write leave white 2026-12-20 2027-01-05")]
    Unreadable(String),
}

/// Why a move could not be charged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DayClockError {
    #[error("the day clock has not been started")]
    NotStarted,
    #[error("it is not {}'s move", color_word(*.0))]
    NotYourTurn(Color),
}

/// What a move cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveCharge {
    /// Days charged for this move.
    pub used_days: u32,
    /// Days charged so far to White and to Black, penalties included.
    pub total_days: [u32; 2],
    /// The mover passed the days allowed up to this move's control.
    pub exceeded: bool,
}

/// One side's clock at a moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SideReading {
    pub moves_made: u32,
    /// Moves still to make up to the next control, the next one included.
    pub moves_to_control: u32,
    /// Days allowed in all up to that control.
    pub limit_days: u64,
    /// Days charged so far: moves, penalties and, for the side to move, the whole days of
    /// the move it is thinking about.
    pub used_days: u64,
    /// `limit_days - used_days`, the clock's days left as messages report them (0 when
    /// exceeded).
    pub days_left: u64,
    /// Reflection time until the side exceeds (leave not counted), 0 when it has: for the
    /// side to move from now, for the side waiting from when its turn comes. It is what is
    /// said ("noch elf Tage"): as the first 24 hours of a move cost nothing, it is a day more
    /// than `days_left` when no doubling comes into it.
    pub until_exceeded_ms: u64,
    pub on_move: bool,
    pub exceeded: bool,
}

impl SideReading {
    /// [`SideReading::until_exceeded_ms`] in whole days and the hours beyond them.
    pub fn days_and_hours_left(&self) -> (u64, u64) {
        (
            self.until_exceeded_ms / DAY_MS,
            self.until_exceeded_ms % DAY_MS / 3_600_000,
        )
    }
}

/// Both clocks at a moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DayReading {
    pub turn: Option<Color>,
    /// White's, then Black's.
    pub sides: [SideReading; 2],
}

impl DayReading {
    pub fn side(&self, color: Color) -> &SideReading {
        &self.sides[index(color)]
    }

    /// The side that has exceeded its time, if one has.
    pub fn exceeded(&self) -> Option<Color> {
        [Color::White, Color::Black]
            .into_iter()
            .find(|&c| self.side(c).exceeded)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Side {
    /// Days charged for moves.
    charged: u64,
    /// Days lost to penalties.
    penalty: u64,
    moves: u32,
    /// Sorted by start, never overlapping.
    leaves: Vec<Leave>,
    /// Exceeded on a move or by a penalty; stays so even when a later control adds days.
    exceeded: bool,
}

impl Side {
    fn used(&self) -> u64 {
        self.charged.saturating_add(self.penalty)
    }
}

/// The day clock of one correspondence game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayClock {
    control: CorrespondenceControl,
    sides: [Side; 2],
    /// Whose move, since when (Unix ms).
    turn: Option<(Color, u64)>,
}

impl DayClock {
    pub fn new(control: CorrespondenceControl) -> DayClock {
        DayClock {
            control,
            sides: Default::default(),
            turn: None,
        }
    }

    pub fn control(&self) -> &CorrespondenceControl {
        &self.control
    }

    /// Whose move it is and since when (Unix ms).
    pub fn turn(&self) -> Option<(Color, u64)> {
        self.turn
    }

    /// Starts (or restarts) `turn`'s reflection time at `at_unix_ms`.
    pub fn start(&mut self, turn: Color, at_unix_ms: u64) {
        self.turn = Some((turn, at_unix_ms));
    }

    /// Stops the clock (the game is over); the days charged stay.
    pub fn stop(&mut self) {
        self.turn = None;
    }

    /// `color` sent its move at `at_unix_ms`: charges it and starts the other side. A time
    /// before the turn began (clocks disagree) counts as no time.
    pub fn moved(&mut self, color: Color, at_unix_ms: u64) -> Result<MoveCharge, DayClockError> {
        let (turn, since) = self.turn.ok_or(DayClockError::NotStarted)?;
        if turn != color {
            return Err(DayClockError::NotYourTurn(color));
        }
        let whole_days = self.reflection_ms(color, since, at_unix_ms) / DAY_MS;
        let charge = self.control.rules.charge(whole_days);
        let limit = self
            .control
            .control
            .limit_days(self.sides[index(color)].moves);
        let side = &mut self.sides[index(color)];
        side.charged = side.charged.saturating_add(charge);
        side.moves = side.moves.saturating_add(1);
        side.exceeded |= side.used() > limit;
        let exceeded = side.exceeded;
        self.turn = Some((!color, at_unix_ms.max(since)));
        Ok(MoveCharge {
            used_days: clamp_u32(charge),
            total_days: [
                clamp_u32(self.sides[0].used()),
                clamp_u32(self.sides[1].used()),
            ],
            exceeded,
        })
    }

    /// `color` loses `days` (an ambiguous or illegal move sent: the rules'
    /// [`RuleSet::illegal_move_days`]).
    pub fn penalize(&mut self, color: Color, days: u32) {
        let limit = self
            .control
            .control
            .limit_days(self.sides[index(color)].moves);
        let side = &mut self.sides[index(color)];
        side.penalty = side.penalty.saturating_add(u64::from(days));
        side.exceeded |= side.used() > limit;
    }

    /// Grants a leave: its days do not count for its side. Refused when it runs backwards,
    /// overlaps a leave of the same side, or passes the yearly allowance.
    pub fn leave(&mut self, leave: Leave) -> Result<(), LeaveError> {
        if leave.to < leave.from {
            return Err(LeaveError::Backwards {
                from: leave.from,
                to: leave.to,
            });
        }
        let Some(allowance) = self.control.leave_days_per_year else {
            return Err(LeaveError::NotGranted {
                rules: self.control.rules,
            });
        };
        let side = &self.sides[index(leave.color)];
        if let Some(other) = side.leaves.iter().find(|l| l.overlaps(&leave)) {
            return Err(LeaveError::Overlaps {
                color: leave.color,
                from: leave.from,
                to: leave.to,
                other_from: other.from,
                other_to: other.to,
            });
        }
        if side.leaves.len() >= MAX_LEAVES {
            return Err(LeaveError::TooMany);
        }
        for year in leave.from.year()..=leave.to.year() {
            let asked = leave.days_in_year(year);
            let taken: u64 = side.leaves.iter().map(|l| l.days_in_year(year)).sum();
            if taken + asked > u64::from(allowance) {
                return Err(LeaveError::OverAllowance {
                    color: leave.color,
                    year,
                    taken,
                    asked,
                    allowance,
                });
            }
        }
        let side = &mut self.sides[index(leave.color)];
        let at = side.leaves.partition_point(|l| l.from < leave.from);
        side.leaves.insert(at, leave);
        Ok(())
    }

    /// The leave periods granted to `color`, in order.
    pub fn leaves(&self, color: Color) -> &[Leave] {
        &self.sides[index(color)].leaves
    }

    /// Both clocks at `now_unix_ms`.
    pub fn reading(&self, now_unix_ms: u64) -> DayReading {
        let read = |color: Color| {
            let side = &self.sides[index(color)];
            let control = &self.control.control;
            let limit = control.limit_days(side.moves);
            let running_ms = match self.turn {
                Some((c, since)) if c == color => self.reflection_ms(color, since, now_unix_ms),
                _ => 0,
            };
            let running_charge = self.control.rules.charge(running_ms / DAY_MS);
            let used = side.used().saturating_add(running_charge);
            let until_exceeded_ms = if side.exceeded || side.used() > limit {
                0
            } else {
                let days = self.control.rules.days_to_exceed(limit - side.used());
                days.saturating_mul(DAY_MS).saturating_sub(running_ms)
            };
            SideReading {
                moves_made: side.moves,
                moves_to_control: control.moves_to_control(side.moves),
                limit_days: limit,
                used_days: used,
                days_left: limit.saturating_sub(used),
                until_exceeded_ms,
                on_move: self.turn.is_some_and(|(c, _)| c == color),
                exceeded: until_exceeded_ms == 0,
            }
        };
        DayReading {
            turn: self.turn.map(|(c, _)| c),
            sides: [read(Color::White), read(Color::Black)],
        }
    }

    /// When the side to move runs out of time (Unix ms), its leave days skipped: the moment
    /// to check the clock again. `None` when the clock is not running.
    pub fn deadline(&self) -> Option<u64> {
        let (color, since) = self.turn?;
        let side = &self.sides[index(color)];
        let limit = self.control.control.limit_days(side.moves);
        if side.exceeded || side.used() > limit {
            return Some(since);
        }
        let mut left = self
            .control
            .rules
            .days_to_exceed(limit - side.used())
            .saturating_mul(DAY_MS);
        let mut t = since;
        for leave in &side.leaves {
            let (start, end) = (leave.start_ms(), leave.end_ms());
            if end <= t {
                continue;
            }
            if start > t {
                let gap = start - t;
                if gap >= left {
                    break;
                }
                left -= gap;
            }
            t = end;
        }
        Some(t.saturating_add(left))
    }

    /// Wall time from `from` to `to` less `color`'s leave.
    fn reflection_ms(&self, color: Color, from: u64, to: u64) -> u64 {
        if to <= from {
            return 0;
        }
        let on_leave: u64 = self.sides[index(color)]
            .leaves
            .iter()
            .map(|l| {
                let (s, e) = (l.start_ms().max(from), l.end_ms().min(to));
                e.saturating_sub(s)
            })
            .sum();
        (to - from).saturating_sub(on_leave)
    }
}

/// "noch siebenunddreißig Tage": the time a side has left, for the ear.
pub fn days_left_phrase(side: &SideReading, v: &Vocabulary) -> String {
    let t = v.time();
    if side.exceeded {
        return t
            .time_exceeded
            .clone()
            .unwrap_or_else(|| duration_phrase(0, v));
    }
    // Whole hours, rounded up: a clock that has run for a few seconds still has "zehn Tage",
    // not "neun Tage dreiundzwanzig Stunden".
    let time = duration_phrase(side.until_exceeded_ms.div_ceil(3_600_000) * 3_600_000, v);
    match &t.days_left {
        Some(template) => fill(template, &[("time", &time)]),
        None => time,
    }
}

/// "Weiß noch zwölf Tage, Schwarz noch acht Tage fünf Stunden": both sides, as the talking
/// clock says both times.
pub fn both_sides_phrase(reading: &DayReading, v: &Vocabulary) -> String {
    let white = days_left_phrase(reading.side(Color::White), v);
    let black = days_left_phrase(reading.side(Color::Black), v);
    let template = v
        .time()
        .days_left_both
        .as_deref()
        .unwrap_or("{white}, {black}");
    fill(template, &[("white", &white), ("black", &black)])
}

fn index(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

fn color_word(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn day_start_ms(unix_day: i64) -> u64 {
    u64::try_from(unix_day).unwrap_or(0).saturating_mul(DAY_MS)
}

fn clamp_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A bounded quote of what was read, for an error.
fn cut(text: &str) -> String {
    text.chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use annabella_chess::language::Language;

    const HOUR: u64 = 3_600_000;

    /// Unix ms of `date` (YYYY-MM-DD) at `hours` UTC.
    fn at(date: &str, hours: u64) -> u64 {
        day_start_ms(Date::parse(date).unwrap().unix_day()) + hours * HOUR
    }

    fn clock(control: &str, rules: &str) -> DayClock {
        DayClock::new(CorrespondenceControl::parse(control, rules).unwrap())
    }

    fn leave(color: Color, from: &str, to: &str) -> Leave {
        Leave {
            color,
            from: Date::parse(from).unwrap(),
            to: Date::parse(to).unwrap(),
        }
    }

    #[test]
    fn a_reply_within_24_hours_costs_nothing_then_whole_days_count() {
        let mut c = clock("20/10d", "bca");
        let t0 = at("2026-03-01", 9);
        c.start(Color::White, t0);
        let m = c.moved(Color::White, t0 + 24 * HOUR - 1).unwrap();
        assert_eq!((m.used_days, m.total_days), (0, [0, 0]));
        let t1 = t0 + 24 * HOUR - 1;
        let m = c.moved(Color::Black, t1 + 24 * HOUR).unwrap();
        assert_eq!((m.used_days, m.total_days), (1, [0, 1]));
        let t2 = t1 + 24 * HOUR;
        let m = c.moved(Color::White, t2 + 48 * HOUR - 1).unwrap();
        assert_eq!((m.used_days, m.total_days), (1, [1, 1]));
        let t3 = t2 + 48 * HOUR - 1;
        let m = c.moved(Color::Black, t3 + 48 * HOUR).unwrap();
        assert_eq!((m.used_days, m.total_days, m.exceeded), (2, [1, 3], false));
    }

    #[test]
    fn unused_days_carry_over_to_the_next_period() {
        // Two moves in three days, the days adding up.
        let mut c = clock("2/3d", "bca");
        let mut t = at("2026-03-01", 0);
        c.start(Color::White, t);
        let play = |c: &mut DayClock, t: &mut u64, color: Color, days: u64| {
            *t += days * DAY_MS;
            c.moved(color, *t).unwrap()
        };
        assert_eq!(play(&mut c, &mut t, Color::White, 2).used_days, 2);
        play(&mut c, &mut t, Color::Black, 0);
        assert_eq!(play(&mut c, &mut t, Color::White, 0).total_days, [2, 0]);
        // At the control: two moves made, the next control at four moves with six days.
        let r = c.reading(t);
        let w = r.side(Color::White);
        assert_eq!(
            (w.moves_made, w.moves_to_control, w.limit_days, w.days_left),
            (2, 2, 6, 4)
        );
        play(&mut c, &mut t, Color::Black, 0);
        let m = play(&mut c, &mut t, Color::White, 4);
        assert_eq!((m.total_days[0], m.exceeded), (6, false));
        play(&mut c, &mut t, Color::Black, 0);
        // Move four, one more day: seven days for four moves, one too many.
        let m = play(&mut c, &mut t, Color::White, 1);
        assert_eq!((m.total_days[0], m.exceeded), (7, true));
        // The next period's days do not undo it.
        assert!(c.reading(t).side(Color::White).exceeded);
        assert_eq!(c.reading(t).exceeded(), Some(Color::White));
    }

    #[test]
    fn a_reading_at_the_moment_of_a_control() {
        let mut c = clock("1/2d", "bca");
        let t0 = at("2026-03-01", 0);
        c.start(Color::White, t0);
        let before = c.reading(t0 + 2 * DAY_MS + 5 * HOUR);
        let w = before.side(Color::White);
        // Two days charged on the running move: none left, 19 hours until the third.
        assert_eq!((w.used_days, w.days_left, w.exceeded), (2, 0, false));
        assert_eq!(w.until_exceeded_ms, 19 * HOUR);
        assert_eq!(w.days_and_hours_left(), (0, 19));
        let t1 = t0 + 2 * DAY_MS + 5 * HOUR;
        c.moved(Color::White, t1).unwrap();
        let r = c.reading(t1);
        let w = r.side(Color::White);
        assert_eq!(r.turn, Some(Color::Black));
        assert_eq!(
            (
                w.moves_made,
                w.limit_days,
                w.used_days,
                w.days_left,
                w.on_move
            ),
            (1, 4, 2, 2, false)
        );
        // Waiting: two clock days; it would exceed only after three whole days of thought.
        assert_eq!(w.until_exceeded_ms, 3 * DAY_MS);
    }

    #[test]
    fn an_ambiguous_or_illegal_move_costs_a_day() {
        let mut c = clock("20/10d", "bca");
        c.start(Color::White, 0);
        c.penalize(Color::White, BCA_DAY);
        let r = c.reading(0);
        assert_eq!(
            (
                r.side(Color::White).used_days,
                r.side(Color::White).days_left
            ),
            (1, 9)
        );
        c.penalize(Color::White, 9);
        assert!(!c.reading(0).side(Color::White).exceeded);
        c.penalize(Color::White, 1);
        assert!(c.reading(0).side(Color::White).exceeded);
        assert_eq!(c.deadline(), Some(0));
    }

    const BCA_DAY: u32 = crate::day_rules::BCA.illegal_move_days;

    #[test]
    fn leave_days_do_not_count() {
        let mut c = clock("10/50d", "iccf");
        c.leave(leave(Color::White, "2026-12-24", "2026-12-26"))
            .unwrap();
        c.start(Color::White, at("2026-12-23", 12));
        // Five days on the calendar, three of them leave.
        let m = c.moved(Color::White, at("2026-12-28", 12)).unwrap();
        assert_eq!(m.used_days, 2);
        // Black's time runs on through White's leave.
        c.leave(leave(Color::White, "2026-12-29", "2026-12-30"))
            .unwrap();
        let m = c.moved(Color::Black, at("2026-12-31", 12)).unwrap();
        assert_eq!(m.used_days, 3);
    }

    #[test]
    fn leave_is_refused_when_backwards_overlapping_or_too_long() {
        let mut c = clock("10/50d", "iccf");
        let err = c
            .leave(leave(Color::Black, "2026-05-10", "2026-05-01"))
            .unwrap_err();
        assert!(matches!(err, LeaveError::Backwards { .. }));
        c.leave(leave(Color::Black, "2026-05-01", "2026-05-30"))
            .unwrap();
        let err = c
            .leave(leave(Color::Black, "2026-05-30", "2026-06-02"))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "black's leave 2026-05-30 to 2026-06-02 overlaps the leave 2026-05-01 to 2026-05-30"
        );
        // White may take the same days.
        c.leave(leave(Color::White, "2026-05-01", "2026-05-30"))
            .unwrap();
        // 30 days taken, 15 more fit, 16 do not.
        let err = c
            .leave(leave(Color::Black, "2026-08-01", "2026-08-16"))
            .unwrap_err();
        assert_eq!(
            err,
            LeaveError::OverAllowance {
                color: Color::Black,
                year: 2026,
                taken: 30,
                asked: 16,
                allowance: 45
            }
        );
        c.leave(leave(Color::Black, "2026-08-01", "2026-08-15"))
            .unwrap();
        // Across the new year: each year counts its own days.
        c.leave(leave(Color::White, "2026-12-10", "2027-01-31"))
            .unwrap_err();
        c.leave(leave(Color::White, "2026-12-27", "2027-01-31"))
            .unwrap();
        assert_eq!(c.leaves(Color::White).len(), 2);
        assert_eq!(c.leaves(Color::Black)[1].from.to_string(), "2026-08-01");
        let mut bca = clock("20/10d", "bca");
        let err = bca
            .leave(leave(Color::White, "2026-05-01", "2026-05-02"))
            .unwrap_err();
        assert_eq!(err.to_string(), "the bca rules grant no leave");
    }

    #[test]
    fn exceeding_the_time_and_the_deadline() {
        let mut c = clock("10/50d", "iccf");
        let t0 = at("2026-01-10", 6);
        c.start(Color::White, t0);
        // Doubling: 35 days cost 50, 36 days cost 52.
        assert_eq!(c.deadline(), Some(t0 + 36 * DAY_MS));
        let just = c.reading(t0 + 36 * DAY_MS - 1);
        assert!(!just.side(Color::White).exceeded);
        assert_eq!(just.side(Color::White).used_days, 50);
        let over = c.reading(t0 + 36 * DAY_MS);
        assert!(over.side(Color::White).exceeded);
        assert_eq!(over.exceeded(), Some(Color::White));
        // A leave inside the thinking time moves the deadline by its days.
        c.leave(leave(Color::White, "2026-02-01", "2026-02-05"))
            .unwrap();
        assert_eq!(c.deadline(), Some(t0 + 41 * DAY_MS));
        let m = c.moved(Color::White, t0 + 41 * DAY_MS - 1).unwrap();
        assert_eq!((m.used_days, m.exceeded), (50, false));
    }

    #[test]
    fn a_leave_already_begun_or_over_counts_only_what_is_ahead() {
        let mut c = clock("20/10d", "iccf");
        c.leave(leave(Color::Black, "2026-04-01", "2026-04-03"))
            .unwrap();
        c.leave(leave(Color::Black, "2026-04-10", "2026-04-11"))
            .unwrap();
        c.leave(leave(Color::Black, "2026-04-20", "2026-04-21"))
            .unwrap();
        c.start(Color::Black, at("2026-04-02", 12));
        // 11 days to exceed, counted from the end of the leave begun (04-04 00:00); the second
        // leave (two days) falls inside them and adds its days, the third comes after.
        assert_eq!(c.deadline(), Some(at("2026-04-04", 0) + 13 * DAY_MS));
        let m = c.moved(Color::Black, at("2026-04-16", 23)).unwrap();
        assert_eq!((m.used_days, m.exceeded), (10, false));
    }

    #[test]
    fn moves_out_of_turn_are_refused() {
        let mut c = clock("20/10d", "bca");
        assert_eq!(c.moved(Color::White, 5), Err(DayClockError::NotStarted));
        assert_eq!(c.deadline(), None);
        c.start(Color::Black, 10);
        assert_eq!(
            c.moved(Color::White, 20),
            Err(DayClockError::NotYourTurn(Color::White))
        );
        // A send time before the turn began (clocks disagree) costs nothing.
        assert_eq!(c.moved(Color::Black, 5).unwrap().used_days, 0);
        assert_eq!(c.turn(), Some((Color::White, 10)));
        // A stopped clock charges nothing more and has no deadline.
        c.stop();
        assert_eq!(c.deadline(), None);
        assert_eq!(c.moved(Color::White, 99), Err(DayClockError::NotStarted));
        assert_eq!(c.reading(10 * DAY_MS).turn, None);
        assert_eq!(c.reading(10 * DAY_MS).side(Color::White).used_days, 0);
    }

    #[test]
    fn leave_records_read_back() {
        let l = leave(Color::White, "2026-12-20", "2027-01-05");
        assert_eq!(l.to_string(), "leave white 2026-12-20 2027-01-05");
        assert_eq!(l.to_string().parse::<Leave>(), Ok(l));
        for bad in [
            "leave grey 2026-12-20 2027-01-05",
            "leave white 2026-12-20",
            "holiday",
        ] {
            assert!(
                matches!(bad.parse::<Leave>(), Err(LeaveError::Unreadable(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn every_voice_says_days_left() {
        let mut c = clock("20/10d", "bca");
        c.start(Color::White, 0);
        c.penalize(Color::Black, 11);
        let r = c.reading(DAY_MS + 2 * HOUR);
        for lang in Language::all_builtin() {
            let t = lang.vocabulary().time();
            assert!(
                t.days_left.is_some() && t.days_left_both.is_some() && t.time_exceeded.is_some(),
                "{}",
                lang.code()
            );
            let both = both_sides_phrase(&r, lang.vocabulary());
            assert!(
                !both.contains('{') && !both.chars().any(|c| c.is_ascii_digit()),
                "{both}"
            );
        }
        assert_eq!(
            both_sides_phrase(&r, Language::builtin("es").unwrap().vocabulary()),
            "blancas nueve días y veintidós horas de reflexión, negras tiempo excedido"
        );
    }

    #[test]
    fn days_left_in_words() {
        let de = Language::german().vocabulary();
        let mut c = clock("20/10d", "bca");
        let t0 = at("2026-03-01", 0);
        c.start(Color::Black, t0);
        let r = c.reading(t0 + 30 * HOUR);
        // Ten days on the clock, and the first 24 hours of the move cost nothing.
        assert_eq!(days_left_phrase(r.side(Color::White), de), "noch elf Tage");
        assert_eq!(
            both_sides_phrase(&r, de),
            "Weiß noch elf Tage, Schwarz noch neun Tage achtzehn Stunden"
        );
        let mut long = clock("20/40d", "bca");
        long.start(Color::White, t0);
        long.moved(Color::White, t0 + 4 * DAY_MS).unwrap();
        let r = long.reading(t0 + 3 * DAY_MS);
        assert_eq!(
            days_left_phrase(r.side(Color::White), de),
            "noch siebenunddreißig Tage"
        );
        c.penalize(Color::White, 11);
        let r = c.reading(t0);
        assert_eq!(
            both_sides_phrase(&r, Language::english().vocabulary()),
            "White time exceeded, Black eleven days left"
        );
    }
}
