//! The talking clock's arithmetic (FIDE 6, D.2.6): time controls, presses, increments and delays, flags, penalties, announcement thresholds. Pure: every instant is a parameter.
//!
//! Nothing here reads a clock or does I/O. The daemon passes `now` (milliseconds on its
//! monotonic clock, [`Millis`]) into every call, sleeps until [`Clock::next_deadline`], and
//! then asks [`Clock::flagged`] and [`Clock::due_announcements`] what happened. The words are
//! made elsewhere (`annabella_chess::phrases::clock_phrase` takes a [`ClockReport`]'s numbers).
//!
//! Syntax and rules are documented for users in `docs/clock.md`:
//! - [`TimeControl`]: PGN `TimeControl` periods (`40/5400+30:1800+30`), extended with delays
//!   (`300d5` simple/US delay, `5400b30` Bronstein).
//! - [`AnnounceSchedule`]: when the talking clock speaks by itself (`10m@*,1m@5m,10s@1m`).
//! - [`Clock`]: two clocks linked so that only one runs (FIDE 6.1), with [`ClockState`] as the
//!   plain raw parts the storage adapter persists.

use std::fmt;
use std::str::FromStr;

use shakmaty::{ByColor, Color};

use annabella_boards::Millis;

const SECOND: u64 = 1_000;
const MINUTE: u64 = 60 * SECOND;
const HOUR: u64 = 60 * MINUTE;
const DAY: u64 = 24 * HOUR;

/// At most this many `:`-separated periods: real controls have two or three.
pub const MAX_PERIODS: usize = 16;
/// The largest move count of one period.
pub const MAX_PERIOD_MOVES: u32 = 1_000;
/// The longest period, in seconds: a year, so that correspondence-like controls still fit.
pub const MAX_PERIOD_SECONDS: u64 = 366 * 86_400;
/// The largest increment or delay, in seconds (FIDE uses 2–60 s; a day leaves room).
pub const MAX_BONUS_SECONDS: u64 = 86_400;
/// The largest time an arbiter may set or add or take in one decision.
pub const MAX_ARBITER_MS: u64 = 1_000 * DAY;
/// The largest move count an arbiter may set (6.10.2).
pub const MAX_MOVES: u32 = 100_000;
/// FIDE 7.5.5 and 9.5.3: two minutes to the opponent.
pub const PENALTY_MS: u64 = 2 * MINUTE;
/// FIDE A.3 (and blitz): one minute instead of two.
pub const RAPID_PENALTY_MS: u64 = MINUTE;

fn side(color: Color) -> &'static str {
    color.fold_wb("White", "Black")
}

// ---------------------------------------------------------------------------------------------
// Time controls
// ---------------------------------------------------------------------------------------------

/// What a period gives per move besides its main time. Values are whole seconds, as in PGN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Bonus {
    /// Nothing: the main time is all there is.
    #[default]
    None,
    /// Fischer (cumulative) increment, `+30`: added before every move, from move 1 on
    /// (FIDE glossary "Increment"), so each side starts with main time plus one increment.
    Increment(u64),
    /// Simple (US) delay, `d5`: in each move the main time runs only after the delay has
    /// passed (FIDE 6.3.2's "delay mode"). Unused delay is lost.
    Delay(u64),
    /// Bronstein delay, `b5`: the main time runs from the start of the move; after the press
    /// the time used is given back, up to the delay.
    Bronstein(u64),
}

impl Bonus {
    /// The seconds of the increment or delay; 0 for [`Bonus::None`].
    pub fn seconds(self) -> u64 {
        match self {
            Bonus::None => 0,
            Bonus::Increment(s) | Bonus::Delay(s) | Bonus::Bronstein(s) => s,
        }
    }

    fn increment_ms(self) -> u64 {
        match self {
            Bonus::Increment(s) => s.saturating_mul(SECOND),
            _ => 0,
        }
    }

    fn delay_ms(self) -> u64 {
        match self {
            Bonus::Delay(s) => s.saturating_mul(SECOND),
            _ => 0,
        }
    }

    fn bronstein_ms(self) -> u64 {
        match self {
            Bonus::Bronstein(s) => s.saturating_mul(SECOND),
            _ => 0,
        }
    }

    /// A zero increment or delay is no bonus: one value, one spelling.
    fn normalized(self) -> Bonus {
        if self.seconds() == 0 {
            Bonus::None
        } else {
            self
        }
    }
}

/// One period of a time control: `moves` moves (or the rest of the game) in `seconds`, plus a
/// per-move [`Bonus`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Period {
    /// Moves to complete in this period; `None`: all the remaining moves (sudden death).
    pub moves: Option<u32>,
    /// Main time this period adds, in whole seconds.
    pub seconds: u64,
    pub bonus: Bonus,
}

impl Period {
    fn seconds_ms(&self) -> u64 {
        self.seconds.saturating_mul(SECOND)
    }
}

impl fmt::Display for Period {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(moves) = self.moves {
            write!(f, "{moves}/")?;
        }
        write!(f, "{}", self.seconds)?;
        match self.bonus {
            Bonus::None => Ok(()),
            Bonus::Increment(s) => write!(f, "+{s}"),
            Bonus::Delay(s) => write!(f, "d{s}"),
            Bonus::Bronstein(s) => write!(f, "b{s}"),
        }
    }
}

/// FIDE's game categories (A.1, B.1), which decide e.g. the size of time penalties (A.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pace {
    /// 10 minutes or less (main time plus 60 times the increment or delay).
    Blitz,
    /// More than 10, less than 60 minutes.
    Rapid,
    /// 60 minutes or more.
    Standard,
}

impl Pace {
    /// Whether time penalties are one minute instead of two (A.3; blitz follows rapid).
    pub fn one_minute_penalties(self) -> bool {
        self != Pace::Standard
    }
}

/// A validated time control: one or more periods, the last one repeating if it has a move
/// count (PGN §9.6.1: "the last field is implicitly repeated").
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TimeControl {
    /// Never empty; only the last period may lack a move count.
    periods: Vec<Period>,
}

impl TimeControl {
    /// Checks the periods: 1 to [`MAX_PERIODS`] of them, move counts 1 to
    /// [`MAX_PERIOD_MOVES`], a sudden-death period only at the end, times within bounds, and
    /// some time to start with. Zero increments or delays are stored as [`Bonus::None`].
    pub fn new(periods: Vec<Period>) -> Result<TimeControl, TimeControlError> {
        if periods.is_empty() {
            return Err(TimeControlError::Empty);
        }
        if periods.len() > MAX_PERIODS {
            return Err(TimeControlError::TooManyPeriods(periods.len()));
        }
        let periods: Vec<Period> = periods
            .into_iter()
            .map(|p| Period {
                bonus: p.bonus.normalized(),
                ..p
            })
            .collect();
        let last = periods.len() - 1;
        for (i, p) in periods.iter().enumerate() {
            let fail = |problem: String| TimeControlError::Period {
                period: i + 1,
                text: p.to_string(),
                problem,
            };
            match p.moves {
                Some(0) => return Err(fail("a period needs at least one move".into())),
                Some(n) if n > MAX_PERIOD_MOVES => {
                    return Err(fail(format!(
                        "{n} moves: at most {MAX_PERIOD_MOVES} moves per period"
                    )));
                }
                None if i != last => {
                    return Err(fail(
                        "without a move count this period lasts for the rest of the game, \
                         so no period can follow it"
                            .into(),
                    ));
                }
                _ => {}
            }
            if p.seconds > MAX_PERIOD_SECONDS {
                return Err(fail(format!(
                    "{} seconds: at most {MAX_PERIOD_SECONDS} seconds (366 days)",
                    p.seconds
                )));
            }
            if p.bonus.seconds() > MAX_BONUS_SECONDS {
                return Err(fail(format!(
                    "an increment or delay of {} seconds: at most {MAX_BONUS_SECONDS} (a day)",
                    p.bonus.seconds()
                )));
            }
            // Bronstein only gives time back after a move, so it cannot save a clock at zero.
            if i == 0 && p.seconds == 0 && matches!(p.bonus, Bonus::None | Bonus::Bronstein(_)) {
                return Err(fail(
                    "the first period gives no time: a flag would fall at the start".into(),
                ));
            }
        }
        Ok(TimeControl { periods })
    }

    /// One period for the whole game: `300`, `300+2`, `300d5`.
    pub fn sudden_death(seconds: u64, bonus: Bonus) -> Result<TimeControl, TimeControlError> {
        TimeControl::new(vec![Period {
            moves: None,
            seconds,
            bonus,
        }])
    }

    /// The periods as written (without the implicit repetition of the last one).
    pub fn periods(&self) -> &[Period] {
        &self.periods
    }

    /// Period number `index` (0-based); past the written ones, the last one repeats.
    pub fn period(&self, index: usize) -> &Period {
        // `periods` is never empty (checked in `new`), so the index is always in range.
        let last = self.periods.len().saturating_sub(1);
        &self.periods[index.min(last)]
    }

    /// In which period a side's next move falls after it has completed `moves_made` moves,
    /// and how many of that period's moves it has already completed. The period of move
    /// `moves_made + 1` decides that move's increment or delay.
    pub fn period_of(&self, moves_made: u32) -> (usize, u32) {
        let mut left = moves_made;
        for (i, p) in self.periods.iter().enumerate() {
            match p.moves {
                Some(n) if left >= n => left -= n,
                _ => return (i, left),
            }
        }
        // Every written period had a move count: the last one repeats (PGN §9.6.1).
        let n = self.period(usize::MAX).moves.unwrap_or(u32::MAX).max(1);
        let repeats = (left / n) as usize;
        (self.periods.len().saturating_add(repeats), left % n)
    }

    /// FIDE's category (A.1, B.1): the main time of the periods that start within the first
    /// 60 moves, plus 60 times the first period's increment or delay.
    pub fn pace(&self) -> Pace {
        let mut seconds: u64 = 0;
        let mut covered: u32 = 0;
        for p in &self.periods {
            seconds = seconds.saturating_add(p.seconds);
            match p.moves {
                Some(n) if covered.saturating_add(n) < 60 => covered += n,
                _ => break,
            }
        }
        let total = seconds.saturating_add(self.periods[0].bonus.seconds().saturating_mul(60));
        if total <= 600 {
            Pace::Blitz
        } else if total < 3_600 {
            Pace::Rapid
        } else {
            Pace::Standard
        }
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.periods.iter().enumerate() {
            if i > 0 {
                f.write_str(":")?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

/// Why a time control was refused. Periods are numbered from 1, as a person counts them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeControlError {
    #[error(
        "no time control given: expected e.g. `40/5400+30:1800+30`, `5400+30`, `300`, \
         `300d5`, `-` (no clock) or `?` (unknown)"
    )]
    Empty,
    #[error("`?` says the time control is unknown: there is no clock to run")]
    Unknown,
    #[error("`-` says the game is played without a clock: there is no clock to run")]
    Untimed,
    #[error("{0} periods: at most {MAX_PERIODS}")]
    TooManyPeriods(usize),
    #[error("period {period} (`{text}`): {problem}")]
    Period {
        period: usize,
        text: String,
        problem: String,
    },
}

/// A whole number made of ASCII digits only (no sign, no spaces), or what was wrong with it.
fn whole_number(text: &str, what: &str) -> Result<u64, String> {
    if text.is_empty() {
        return Err(format!("expected {what}, found nothing"));
    }
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("expected {what} (a whole number), found `{text}`"));
    }
    text.parse::<u64>()
        .map_err(|_| format!("{what} `{text}` is far too large"))
}

/// One PGN field: `[moves/]seconds[+increment | d delay | b delay]`.
fn parse_period(text: &str) -> Result<Period, String> {
    if text.is_empty() {
        return Err(
            "empty period (a colon at an end, or two in a row): expected \
                    `seconds`, `moves/seconds`, `seconds+increment`, `seconds d delay` \
                    or `seconds b delay`"
                .into(),
        );
    }
    if text.starts_with('*') {
        return Err(
            "a sandclock (`*seconds`, PGN §9.6.1) is not supported: time flows from \
                    one side to the other, which no FIDE control uses"
                .into(),
        );
    }
    let (moves, rest) = match text.split_once('/') {
        Some((moves, rest)) => {
            let n = whole_number(moves, "the number of moves before `/`")?;
            let n = u32::try_from(n)
                .ok()
                .filter(|&n| n <= MAX_PERIOD_MOVES)
                .ok_or_else(|| format!("{n} moves: at most {MAX_PERIOD_MOVES} per period"))?;
            (Some(n), rest)
        }
        None => (None, text),
    };
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (seconds_text, tail) = rest.split_at(digits);
    if seconds_text.is_empty() {
        let after = if moves.is_some() { " after `/`" } else { "" };
        return Err(format!(
            "expected the time in whole seconds{after}, found `{rest}`"
        ));
    }
    let seconds = whole_number(seconds_text, "the seconds")?;
    let mut chars = tail.chars();
    let bonus = match chars.next() {
        None => Bonus::None,
        Some('+') => Bonus::Increment(whole_number(
            chars.as_str(),
            "the increment in whole seconds after `+`",
        )?),
        Some('d' | 'D' | 's' | 'S') => Bonus::Delay(whole_number(
            chars.as_str(),
            "the simple delay in whole seconds after `d`",
        )?),
        Some('b' | 'B') => Bonus::Bronstein(whole_number(
            chars.as_str(),
            "the Bronstein delay in whole seconds after `b`",
        )?),
        Some(_) => {
            return Err(format!(
                "expected `+increment`, `d` and a delay or `b` and a delay after the \
                 seconds, found `{tail}`"
            ));
        }
    };
    Ok(Period {
        moves,
        seconds,
        bonus,
    })
}

impl FromStr for TimeControl {
    type Err = TimeControlError;

    fn from_str(text: &str) -> Result<TimeControl, TimeControlError> {
        let text = text.trim();
        match text {
            "" => return Err(TimeControlError::Empty),
            "?" => return Err(TimeControlError::Unknown),
            "-" => return Err(TimeControlError::Untimed),
            _ => {}
        }
        let fields: Vec<&str> = text.split(':').collect();
        if fields.len() > MAX_PERIODS {
            return Err(TimeControlError::TooManyPeriods(fields.len()));
        }
        let mut periods = Vec::with_capacity(fields.len());
        for (i, field) in fields.iter().enumerate() {
            let period = parse_period(field).map_err(|problem| TimeControlError::Period {
                period: i + 1,
                text: (*field).to_string(),
                problem,
            })?;
            periods.push(period);
        }
        // `new` re-checks the combination (sudden death last, time to start with), and its
        // messages name the period as `Display` writes it, which is the text with `0`
        // bonuses dropped: good enough to find it.
        TimeControl::new(periods)
    }
}

impl TimeControl {
    /// A time control as a person sets it (configuration, flags): the PGN syntax in seconds, or
    /// with explicit units on its times (`90m+30s`, `40/2h+30s:30m+30s`, `5m+3s`). Bare numbers
    /// that look like minutes (`90+30`, `40/120:60`: a move in seconds, an increment as long as
    /// the game) are refused, with the control in seconds suggested: an arbiter who types the
    /// IBCA Olympiad's `90+30` must not start a ninety-second game.
    pub fn parse_setting(text: &str) -> Result<TimeControl, String> {
        let text = text.trim();
        // A number followed by `d` and no digit is days (`20/10d`); `5400d5` is a delay.
        let b = text.as_bytes();
        let day_unit = (1..b.len()).any(|i| {
            b[i] == b'd'
                && b[i - 1].is_ascii_digit()
                && !b.get(i + 1).is_some_and(u8::is_ascii_digit)
        });
        if day_unit || text.chars().any(|c| matches!(c, 'h' | 'm' | 's')) {
            let seconds = with_units_in_seconds(text)?;
            return seconds.parse().map_err(|e: TimeControlError| e.to_string());
        }
        let tc: TimeControl = text.parse().map_err(|e: TimeControlError| e.to_string())?;
        if looks_like_minutes(&tc) {
            let minutes = TimeControl::new(
                tc.periods()
                    .iter()
                    .map(|p| Period {
                        seconds: p.seconds * 60,
                        ..*p
                    })
                    .collect(),
            );
            let suggestion = match minutes {
                Ok(m) => format!(
                    "; for minutes write {m}, or with units ({})",
                    with_units(&tc)
                ),
                Err(_) => String::new(),
            };
            return Err(format!(
                "{text:?} is read in seconds ({}), which looks like minutes were meant{suggestion}",
                describe_seconds(&tc)
            ));
        }
        Ok(tc)
    }
}

/// Whether a control in seconds is implausible as seconds and plausible as minutes.
fn looks_like_minutes(tc: &TimeControl) -> bool {
    let first = tc.period(0);
    tc.periods().iter().enumerate().any(|(i, p)| {
        let bonus = p.bonus.seconds();
        match p.moves {
            // Less than 15 seconds a move for a whole period.
            Some(n) => p.seconds < 15 * u64::from(n),
            None if i == 0 => p.seconds <= 120 || (p.seconds < 600 && bonus * 6 >= p.seconds),
            // A short last period after a long first one (40/7200:60).
            None => p.seconds < 300 && first.seconds >= 3600,
        }
    })
}

fn describe_seconds(tc: &TimeControl) -> String {
    tc.periods()
        .iter()
        .map(|p| {
            let mut s = match p.moves {
                Some(n) => format!("{n} moves in {} s", p.seconds),
                None => format!("{} s", p.seconds),
            };
            if p.bonus.seconds() > 0 {
                s.push_str(&format!(" + {} s a move", p.bonus.seconds()));
            }
            s
        })
        .collect::<Vec<_>>()
        .join(", then ")
}

/// The control written with minutes for its main times (`90m+30s`).
fn with_units(tc: &TimeControl) -> String {
    tc.periods()
        .iter()
        .map(|p| {
            let mut s = match p.moves {
                Some(n) => format!("{n}/{}m", p.seconds),
                None => format!("{}m", p.seconds),
            };
            match p.bonus {
                Bonus::None => {}
                Bonus::Increment(b) => s.push_str(&format!("+{b}s")),
                Bonus::Delay(b) => s.push_str(&format!("d{b}s")),
                Bonus::Bronstein(b) => s.push_str(&format!("b{b}s")),
            }
            s
        })
        .collect::<Vec<_>>()
        .join(":")
}

/// `90m+30s` → `5400+30`: every number with a unit (`h`, `m`, `s`) becomes seconds; a number
/// without one after a unit was used is refused (ambiguous).
fn with_units_in_seconds(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_ascii_digit() {
            out.push(c);
            continue;
        }
        let mut digits = String::from(c);
        while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
            digits.push(d);
            chars.next();
        }
        // A move count (`40/`) has no unit.
        if chars.peek() == Some(&'/') {
            out.push_str(&digits);
            continue;
        }
        // Days, for correspondence chess (`20/10d`); a `d` followed by a number is a delay.
        let delay_next = chars.clone().nth(1).is_some_and(|c| c.is_ascii_digit());
        let factor = match chars.peek() {
            Some('d') if !delay_next => 86_400,
            Some('h') => 3600,
            Some('m') => 60,
            Some('s') => 1,
            _ => {
                return Err(format!(
                    "{text:?}: {digits} has no unit; with units, give each time one (d, h, m or s),                      e.g. 90m+30s or 20/10d"
                ));
            }
        };
        chars.next();
        let n: u64 = digits
            .parse()
            .map_err(|_| format!("{text:?}: {digits} is too large"))?;
        out.push_str(&n.saturating_mul(factor).to_string());
    }
    Ok(out)
}

/// The whole PGN `TimeControl` tag value: unknown (`?`), no clock (`-`), or a control.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TimeControlTag {
    Unknown,
    Untimed,
    Timed(TimeControl),
}

impl FromStr for TimeControlTag {
    type Err = TimeControlError;

    fn from_str(text: &str) -> Result<TimeControlTag, TimeControlError> {
        match text.parse::<TimeControl>() {
            Ok(tc) => Ok(TimeControlTag::Timed(tc)),
            Err(TimeControlError::Unknown) => Ok(TimeControlTag::Unknown),
            Err(TimeControlError::Untimed) => Ok(TimeControlTag::Untimed),
            Err(e) => Err(e),
        }
    }
}

impl fmt::Display for TimeControlTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControlTag::Unknown => f.write_str("?"),
            TimeControlTag::Untimed => f.write_str("-"),
            TimeControlTag::Timed(tc) => write!(f, "{tc}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Announcement schedule
// ---------------------------------------------------------------------------------------------

/// One rule of the talking clock: announce every multiple of `every_ms` at or below
/// `below_ms` (`None`: at any time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AnnounceRule {
    pub every_ms: u64,
    pub below_ms: Option<u64>,
}

/// When the talking clock speaks by itself: the union of its rules' thresholds. A threshold
/// is a remaining time `t > 0` that is a multiple of some rule's `every` with `t` at or below
/// that rule's bound. Empty: it speaks only on request.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct AnnounceSchedule {
    rules: Vec<AnnounceRule>,
}

/// At most this many rules in a schedule.
pub const MAX_ANNOUNCE_RULES: usize = 16;

/// Why an announcement schedule was refused. Rules are numbered from 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    #[error("{0} announcement rules: at most {MAX_ANNOUNCE_RULES}")]
    TooManyRules(usize),
    #[error("announcement rule {rule} (`{text}`): {problem}")]
    Rule {
        rule: usize,
        text: String,
        problem: String,
    },
}

/// `1h30m`, `90s`, `5m`: units `h`, `m`, `s`, largest first, each at most once; a unit is
/// required because a bare `10` could be seconds or minutes.
fn parse_duration(text: &str, what: &str) -> Result<u64, String> {
    if text.is_empty() {
        return Err(format!(
            "expected {what} such as `10m` or `30s`, found nothing"
        ));
    }
    let mut total: u64 = 0;
    let mut rest = text;
    let mut last_unit = u64::MAX;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let (number, tail) = rest.split_at(digits);
        if number.is_empty() {
            return Err(format!(
                "expected {what} as a number and a unit (`h`, `m`, `s`), found `{text}`"
            ));
        }
        let mut chars = tail.chars();
        let unit = match chars.next() {
            Some('h') => HOUR,
            Some('m') => MINUTE,
            Some('s') => SECOND,
            None => {
                return Err(format!(
                    "{what} `{text}` needs a unit after `{number}`: `h`, `m` or `s`"
                ));
            }
            Some(other) => {
                return Err(format!(
                    "{what} `{text}`: unknown unit `{other}`; use `h`, `m` or `s`"
                ));
            }
        };
        if unit >= last_unit {
            return Err(format!(
                "{what} `{text}`: write the units largest first, each once (`1h30m`)"
            ));
        }
        last_unit = unit;
        let n = whole_number(number, what)?;
        total = n
            .checked_mul(unit)
            .and_then(|ms| total.checked_add(ms))
            .filter(|&ms| ms <= MAX_ARBITER_MS)
            .ok_or_else(|| format!("{what} `{text}` is far too long"))?;
        rest = chars.as_str();
    }
    Ok(total)
}

/// Writes milliseconds (whole seconds) the way [`parse_duration`] reads them.
fn format_duration(ms: u64) -> String {
    let seconds = ms / SECOND;
    let (h, m, s) = (seconds / 3_600, seconds / 60 % 60, seconds % 60);
    let mut out = String::new();
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if m > 0 {
        out.push_str(&format!("{m}m"));
    }
    if s > 0 || out.is_empty() {
        out.push_str(&format!("{s}s"));
    }
    out
}

impl AnnounceSchedule {
    /// No announcements by themselves: the clock speaks only on request.
    pub fn none() -> AnnounceSchedule {
        AnnounceSchedule::default()
    }

    /// Every 10 minutes, every minute from 5 minutes down, every 10 seconds from one minute
    /// down: `10m@*,1m@5m,10s@1m`.
    pub fn talking_clock() -> AnnounceSchedule {
        AnnounceSchedule {
            rules: vec![
                AnnounceRule {
                    every_ms: 10 * MINUTE,
                    below_ms: None,
                },
                AnnounceRule {
                    every_ms: MINUTE,
                    below_ms: Some(5 * MINUTE),
                },
                AnnounceRule {
                    every_ms: 10 * SECOND,
                    below_ms: Some(MINUTE),
                },
            ],
        }
    }

    /// Checks the rules: whole seconds, at least a second apart (speech needs time), a bound
    /// no smaller than its step (or the rule could never fire), no bound twice.
    pub fn new(rules: Vec<AnnounceRule>) -> Result<AnnounceSchedule, ScheduleError> {
        if rules.len() > MAX_ANNOUNCE_RULES {
            return Err(ScheduleError::TooManyRules(rules.len()));
        }
        for (i, rule) in rules.iter().enumerate() {
            let fail = |problem: String| ScheduleError::Rule {
                rule: i + 1,
                text: rule_text(rule),
                problem,
            };
            if rule.every_ms < SECOND || rule.every_ms % SECOND != 0 {
                return Err(fail(
                    "announce at most once a second, in whole seconds".into(),
                ));
            }
            if rule.every_ms > MAX_ARBITER_MS {
                return Err(fail("the step is far too long".into()));
            }
            if let Some(below) = rule.below_ms {
                if below < rule.every_ms {
                    return Err(fail(format!(
                        "a step of {} under {} would never be announced: the bound must be \
                         at least the step",
                        format_duration(rule.every_ms),
                        format_duration(below)
                    )));
                }
                if below > MAX_ARBITER_MS {
                    return Err(fail("the bound is far too long".into()));
                }
            }
            if rules[..i].iter().any(|r| r.below_ms == rule.below_ms) {
                return Err(fail(
                    "another rule already has this bound: one step per bound".into(),
                ));
            }
        }
        Ok(AnnounceSchedule { rules })
    }

    pub fn rules(&self) -> &[AnnounceRule] {
        &self.rules
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Whether `ms` is a threshold.
    pub fn is_threshold(&self, ms: u64) -> bool {
        self.at_or_above(ms) == Some(ms) && ms > 0
    }

    /// The smallest threshold at or above `ms`.
    pub fn at_or_above(&self, ms: u64) -> Option<u64> {
        self.rules
            .iter()
            .filter_map(|rule| {
                let t = ms
                    .div_ceil(rule.every_ms)
                    .max(1)
                    .saturating_mul(rule.every_ms);
                rule.below_ms.is_none_or(|below| t <= below).then_some(t)
            })
            .min()
    }

    /// The largest threshold at or below `ms`.
    pub fn at_or_below(&self, ms: u64) -> Option<u64> {
        self.rules
            .iter()
            .filter_map(|rule| {
                let cap = rule.below_ms.map_or(ms, |below| below.min(ms));
                let t = cap - cap % rule.every_ms;
                (t > 0).then_some(t)
            })
            .max()
    }

    /// How far the time must climb above an announced threshold before it is announced
    /// again: to the next threshold, or one largest step when there is none above.
    fn rearm_level(&self, announced: u64) -> u64 {
        self.at_or_above(announced.saturating_add(1))
            .unwrap_or_else(|| {
                let step = self.rules.iter().map(|r| r.every_ms).max().unwrap_or(0);
                announced.saturating_add(step)
            })
    }
}

fn rule_text(rule: &AnnounceRule) -> String {
    let below = rule
        .below_ms
        .map_or_else(|| "*".to_string(), format_duration);
    format!("{}@{below}", format_duration(rule.every_ms))
}

impl fmt::Display for AnnounceSchedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.rules.is_empty() {
            return f.write_str("none");
        }
        let texts: Vec<String> = self.rules.iter().map(rule_text).collect();
        f.write_str(&texts.join(","))
    }
}

impl FromStr for AnnounceSchedule {
    type Err = ScheduleError;

    /// `every@below` rules separated by commas (`10m@*,1m@5m,10s@1m`); `*` is "at any
    /// time"; `none`, `off` or nothing: no announcements.
    fn from_str(text: &str) -> Result<AnnounceSchedule, ScheduleError> {
        let text = text.trim();
        if text.is_empty() || text.eq_ignore_ascii_case("none") || text.eq_ignore_ascii_case("off")
        {
            return Ok(AnnounceSchedule::none());
        }
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        if parts.len() > MAX_ANNOUNCE_RULES {
            return Err(ScheduleError::TooManyRules(parts.len()));
        }
        let mut rules = Vec::with_capacity(parts.len());
        for (i, part) in parts.iter().enumerate() {
            let fail = |problem: String| ScheduleError::Rule {
                rule: i + 1,
                text: (*part).to_string(),
                problem,
            };
            let Some((every, below)) = part.split_once('@') else {
                return Err(fail(
                    "expected `step@bound`, e.g. `1m@5m` (every minute from 5 minutes down) \
                     or `10m@*` (every 10 minutes at any time)"
                        .into(),
                ));
            };
            let every_ms = parse_duration(every.trim(), "the step").map_err(fail)?;
            let below = below.trim();
            let below_ms = if below == "*" {
                None
            } else {
                Some(parse_duration(below, "the bound").map_err(fail)?)
            };
            rules.push(AnnounceRule { every_ms, below_ms });
        }
        AnnounceSchedule::new(rules)
    }
}

/// A threshold the running side's time has just reached: say `remaining_ms` (the threshold
/// itself, a round number) to `color`'s listeners.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Announcement {
    pub color: Color,
    pub remaining_ms: u64,
}

// ---------------------------------------------------------------------------------------------
// The clock
// ---------------------------------------------------------------------------------------------

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
    /// minutes; one in rapid and blitz (`one_minute`, A.3; see [`Pace`]). Returns the
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_and_write_alike() {
        for (text, ms) in [
            ("10m", 10 * MINUTE),
            ("1h30m", 90 * MINUTE),
            ("90s", 90 * SECOND),
            ("1h0m5s", HOUR + 5 * SECOND),
        ] {
            assert_eq!(parse_duration(text, "x"), Ok(ms), "{text}");
        }
        assert_eq!(format_duration(90 * SECOND), "1m30s");
        assert_eq!(format_duration(HOUR + 5 * SECOND), "1h5s");
        for bad in [
            "",
            "10",
            "m",
            "5x",
            "30s1m",
            "1m1m",
            "99999999999999999999h",
        ] {
            assert!(parse_duration(bad, "x").is_err(), "{bad}");
        }
    }

    #[test]
    fn fields_parse_alone() {
        assert_eq!(
            parse_period("40/5400+30"),
            Ok(Period {
                moves: Some(40),
                seconds: 5400,
                bonus: Bonus::Increment(30)
            })
        );
        assert_eq!(parse_period("300S5").map(|p| p.bonus), Ok(Bonus::Delay(5)));
        assert_eq!(
            parse_period("5400B30").map(|p| p.bonus),
            Ok(Bonus::Bronstein(30))
        );
        assert!(parse_period("+30").is_err());
        assert!(parse_period("40/").is_err());
        assert!(parse_period("300+").is_err());
        assert!(parse_period("300+30d5").is_err());
    }

    #[test]
    fn thresholds_are_the_union_of_the_rules() {
        let s = AnnounceSchedule::talking_clock();
        assert_eq!(s.at_or_above(4 * MINUTE + 1), Some(5 * MINUTE));
        assert_eq!(s.at_or_above(5 * MINUTE + 1), Some(10 * MINUTE));
        assert_eq!(s.at_or_below(9 * MINUTE), Some(5 * MINUTE));
        assert_eq!(s.at_or_below(59 * SECOND), Some(50 * SECOND));
        assert_eq!(s.at_or_below(9 * SECOND), None);
        assert!(s.is_threshold(10 * SECOND));
        assert!(!s.is_threshold(0));
        assert_eq!(s.rearm_level(5 * MINUTE), 10 * MINUTE);
        let bounded: AnnounceSchedule = "1m@5m".parse().unwrap();
        assert_eq!(bounded.rearm_level(5 * MINUTE), 6 * MINUTE);
    }

    #[test]
    fn period_of_repeats_the_last_counted_period() {
        let tc: TimeControl = "40/7200:20/3600".parse().unwrap();
        assert_eq!(tc.period_of(39), (0, 39));
        assert_eq!(tc.period_of(40), (1, 0));
        assert_eq!(tc.period_of(60), (2, 0));
        assert_eq!(tc.period_of(75), (2, 15));
        assert_eq!(tc.period_of(80), (3, 0));
        assert_eq!(tc.period(3).seconds, 3600);
        assert!(tc.period_of(u32::MAX).1 < 20);
    }
}
