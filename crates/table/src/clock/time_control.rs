//! Time controls (FIDE 6.3, PGN §9.6.1): periods of moves and seconds with an increment or a delay, as PGN writes them (`40/5400+30:1800+30`, `300d5`, `5400b30`), and FIDE's game categories.

use std::fmt;
use std::str::FromStr;

use super::SECOND;

/// At most this many `:`-separated periods: real controls have two or three.
pub const MAX_PERIODS: usize = 16;
/// The largest move count of one period.
pub const MAX_PERIOD_MOVES: u32 = 1_000;
/// The longest period, in seconds: a year, so that correspondence-like controls still fit.
pub const MAX_PERIOD_SECONDS: u64 = 366 * 86_400;
/// The largest increment or delay, in seconds (FIDE uses 2–60 s; a day leaves room).
pub const MAX_BONUS_SECONDS: u64 = 86_400;

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

    pub(super) fn increment_ms(self) -> u64 {
        match self {
            Bonus::Increment(s) => s.saturating_mul(SECOND),
            _ => 0,
        }
    }

    pub(super) fn delay_ms(self) -> u64 {
        match self {
            Bonus::Delay(s) => s.saturating_mul(SECOND),
            _ => 0,
        }
    }

    pub(super) fn bronstein_ms(self) -> u64 {
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
    pub(super) fn seconds_ms(&self) -> u64 {
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
            check_period(p, i == 0, i == last).map_err(|problem| TimeControlError::Period {
                period: i + 1,
                text: p.to_string(),
                problem,
            })?;
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

/// What is wrong with one period on its own or in its place (`first`, `last`), if anything.
fn check_period(p: &Period, first: bool, last: bool) -> Result<(), PeriodError> {
    match p.moves {
        Some(0) => return Err(PeriodError::NoMoves),
        Some(n) if n > MAX_PERIOD_MOVES => return Err(PeriodError::TooManyMoves(n)),
        None if !last => return Err(PeriodError::SuddenDeathNotLast),
        _ => {}
    }
    if p.seconds > MAX_PERIOD_SECONDS {
        return Err(PeriodError::TooLong(p.seconds));
    }
    if p.bonus.seconds() > MAX_BONUS_SECONDS {
        return Err(PeriodError::BonusTooLong(p.bonus.seconds()));
    }
    // Bronstein only gives time back after a move, so it cannot save a clock at zero.
    if first && p.seconds == 0 && matches!(p.bonus, Bonus::None | Bonus::Bronstein(_)) {
        return Err(PeriodError::NoTimeAtStart);
    }
    Ok(())
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
        problem: PeriodError,
    },
}

/// Why one period (one `:`-separated field) was refused: as written, or in its place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PeriodError {
    #[error(
        "empty period (a colon at an end, or two in a row): expected `seconds`, \
         `moves/seconds`, `seconds+increment`, `seconds d delay` or `seconds b delay`"
    )]
    Empty,
    #[error(
        "a sandclock (`*seconds`, PGN §9.6.1) is not supported: time flows from one side to \
         the other, which no FIDE control uses"
    )]
    Sandclock,
    /// A move count too large as written (`1001/…`); the number may not fit a move counter.
    #[error("{0} moves: at most {MAX_PERIOD_MOVES} per period")]
    MovesWritten(u64),
    #[error("expected the time in whole seconds{}, found `{rest}`", if *.after_moves { " after `/`" } else { "" })]
    NoSeconds { after_moves: bool, rest: String },
    #[error(
        "expected `+increment`, `d` and a delay or `b` and a delay after the seconds, found \
         `{0}`"
    )]
    BadBonus(String),
    #[error(transparent)]
    Number(#[from] NumberError),
    #[error("a period needs at least one move")]
    NoMoves,
    /// A move count too large in a period built as data.
    #[error("{0} moves: at most {MAX_PERIOD_MOVES} moves per period")]
    TooManyMoves(u32),
    #[error(
        "without a move count this period lasts for the rest of the game, so no period can \
         follow it"
    )]
    SuddenDeathNotLast,
    #[error("{0} seconds: at most {MAX_PERIOD_SECONDS} seconds (366 days)")]
    TooLong(u64),
    #[error("an increment or delay of {0} seconds: at most {MAX_BONUS_SECONDS} (a day)")]
    BonusTooLong(u64),
    #[error("the first period gives no time: a flag would fall at the start")]
    NoTimeAtStart,
}

/// Why a whole number was refused; `what` names it as the message says it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NumberError {
    #[error("expected {what}, found nothing")]
    Missing { what: &'static str },
    #[error("expected {what} (a whole number), found `{text}`")]
    NotDigits { what: &'static str, text: String },
    #[error("{what} `{text}` is far too large")]
    TooLarge { what: &'static str, text: String },
}

/// A whole number made of ASCII digits only (no sign, no spaces), or what was wrong with it.
pub(super) fn whole_number(text: &str, what: &'static str) -> Result<u64, NumberError> {
    if text.is_empty() {
        return Err(NumberError::Missing { what });
    }
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(NumberError::NotDigits {
            what,
            text: text.to_owned(),
        });
    }
    text.parse::<u64>().map_err(|_| NumberError::TooLarge {
        what,
        text: text.to_owned(),
    })
}

/// One PGN field: `[moves/]seconds[+increment | d delay | b delay]`.
fn parse_period(text: &str) -> Result<Period, PeriodError> {
    if text.is_empty() {
        return Err(PeriodError::Empty);
    }
    if text.starts_with('*') {
        return Err(PeriodError::Sandclock);
    }
    let (moves, rest) = match text.split_once('/') {
        Some((moves, rest)) => {
            let n = whole_number(moves, "the number of moves before `/`")?;
            let n = u32::try_from(n)
                .ok()
                .filter(|&n| n <= MAX_PERIOD_MOVES)
                .ok_or(PeriodError::MovesWritten(n))?;
            (Some(n), rest)
        }
        None => (None, text),
    };
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (seconds_text, tail) = rest.split_at(digits);
    if seconds_text.is_empty() {
        return Err(PeriodError::NoSeconds {
            after_moves: moves.is_some(),
            rest: rest.to_owned(),
        });
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
        Some(_) => return Err(PeriodError::BadBonus(tail.to_owned())),
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

#[cfg(test)]
mod tests {
    use super::*;

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

    /// The typed errors say what the strings said, word for word.
    #[test]
    fn period_errors_read_as_before() {
        let e = |text: &str| parse_period(text).unwrap_err().to_string();
        assert_eq!(
            e(""),
            "empty period (a colon at an end, or two in a row): expected `seconds`, \
             `moves/seconds`, `seconds+increment`, `seconds d delay` or `seconds b delay`"
        );
        assert_eq!(e("2000/60"), "2000 moves: at most 1000 per period");
        assert_eq!(
            e("40/x"),
            "expected the time in whole seconds after `/`, found `x`"
        );
        assert_eq!(e("x"), "expected the time in whole seconds, found `x`");
        assert_eq!(
            e("300+x"),
            "expected the increment in whole seconds after `+` (a whole number), found `x`"
        );
        assert_eq!(
            e("300+"),
            "expected the increment in whole seconds after `+`, found nothing"
        );
        assert_eq!(
            e("99999999999999999999"),
            "the seconds `99999999999999999999` is far too large"
        );
        assert_eq!(
            e("300x"),
            "expected `+increment`, `d` and a delay or `b` and a delay after the seconds, \
             found `x`"
        );
    }
}
