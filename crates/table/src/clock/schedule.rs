//! The talking clock's announcement schedule (D.2.6): at which remaining times it speaks by itself (`10m@*,1m@5m,10s@1m`), and the durations its rules are written in.

use std::fmt;
use std::str::FromStr;

use shakmaty::Color;

use super::time_control::{NumberError, whole_number};
use super::{HOUR, MAX_ARBITER_MS, MINUTE, SECOND};

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
        problem: RuleError,
    },
}

/// Why one announcement rule was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error(
        "expected `step@bound`, e.g. `1m@5m` (every minute from 5 minutes down) or `10m@*` \
         (every 10 minutes at any time)"
    )]
    NoAt,
    #[error(transparent)]
    Duration(#[from] DurationError),
    #[error("announce at most once a second, in whole seconds")]
    TooOften,
    #[error("the step is far too long")]
    StepTooLong,
    #[error(
        "a step of {} under {} would never be announced: the bound must be at least the step",
        format_duration(*.every_ms),
        format_duration(*.below_ms)
    )]
    NeverReached { every_ms: u64, below_ms: u64 },
    #[error("the bound is far too long")]
    BoundTooLong,
    #[error("another rule already has this bound: one step per bound")]
    SameBound,
}

/// Why a duration (`1h30m`) could not be read; `what` names it as the message says it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    #[error("expected {what} such as `10m` or `30s`, found nothing")]
    Missing { what: &'static str },
    #[error("expected {what} as a number and a unit (`h`, `m`, `s`), found `{text}`")]
    NoNumber { what: &'static str, text: String },
    #[error("{what} `{text}` needs a unit after `{number}`: `h`, `m` or `s`")]
    NoUnit {
        what: &'static str,
        text: String,
        number: String,
    },
    #[error("{what} `{text}`: unknown unit `{unit}`; use `h`, `m` or `s`")]
    UnknownUnit {
        what: &'static str,
        text: String,
        unit: char,
    },
    #[error("{what} `{text}`: write the units largest first, each once (`1h30m`)")]
    UnitOrder { what: &'static str, text: String },
    #[error(transparent)]
    Number(#[from] NumberError),
    #[error("{what} `{text}` is far too long")]
    TooLong { what: &'static str, text: String },
}

/// `1h30m`, `90s`, `5m`: units `h`, `m`, `s`, largest first, each at most once; a unit is
/// required because a bare `10` could be seconds or minutes.
fn parse_duration(text: &str, what: &'static str) -> Result<u64, DurationError> {
    if text.is_empty() {
        return Err(DurationError::Missing { what });
    }
    let text_owned = || text.to_owned();
    let mut total: u64 = 0;
    let mut rest = text;
    let mut last_unit = u64::MAX;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let (number, tail) = rest.split_at(digits);
        if number.is_empty() {
            return Err(DurationError::NoNumber {
                what,
                text: text_owned(),
            });
        }
        let mut chars = tail.chars();
        let unit = match chars.next() {
            Some('h') => HOUR,
            Some('m') => MINUTE,
            Some('s') => SECOND,
            None => {
                return Err(DurationError::NoUnit {
                    what,
                    text: text_owned(),
                    number: number.to_owned(),
                });
            }
            Some(unit) => {
                return Err(DurationError::UnknownUnit {
                    what,
                    text: text_owned(),
                    unit,
                });
            }
        };
        if unit >= last_unit {
            return Err(DurationError::UnitOrder {
                what,
                text: text_owned(),
            });
        }
        last_unit = unit;
        let n = whole_number(number, what)?;
        total = n
            .checked_mul(unit)
            .and_then(|ms| total.checked_add(ms))
            .filter(|&ms| ms <= MAX_ARBITER_MS)
            .ok_or_else(|| DurationError::TooLong {
                what,
                text: text_owned(),
            })?;
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
            check_rule(rule, &rules[..i]).map_err(|problem| ScheduleError::Rule {
                rule: i + 1,
                text: rule_text(rule),
                problem,
            })?;
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
    pub(super) fn rearm_level(&self, announced: u64) -> u64 {
        self.at_or_above(announced.saturating_add(1))
            .unwrap_or_else(|| {
                let step = self.rules.iter().map(|r| r.every_ms).max().unwrap_or(0);
                announced.saturating_add(step)
            })
    }
}

/// What is wrong with `rule` after the rules `before` it, if anything.
fn check_rule(rule: &AnnounceRule, before: &[AnnounceRule]) -> Result<(), RuleError> {
    if rule.every_ms < SECOND || !rule.every_ms.is_multiple_of(SECOND) {
        return Err(RuleError::TooOften);
    }
    if rule.every_ms > MAX_ARBITER_MS {
        return Err(RuleError::StepTooLong);
    }
    if let Some(below_ms) = rule.below_ms {
        if below_ms < rule.every_ms {
            return Err(RuleError::NeverReached {
                every_ms: rule.every_ms,
                below_ms,
            });
        }
        if below_ms > MAX_ARBITER_MS {
            return Err(RuleError::BoundTooLong);
        }
    }
    if before.iter().any(|r| r.below_ms == rule.below_ms) {
        return Err(RuleError::SameBound);
    }
    Ok(())
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
            let rule = parse_rule(part).map_err(|problem| ScheduleError::Rule {
                rule: i + 1,
                text: (*part).to_string(),
                problem,
            })?;
            rules.push(rule);
        }
        AnnounceSchedule::new(rules)
    }
}

/// One `step@bound` rule, its durations read but not yet checked.
fn parse_rule(part: &str) -> Result<AnnounceRule, RuleError> {
    let (every, below) = part.split_once('@').ok_or(RuleError::NoAt)?;
    let every_ms = parse_duration(every.trim(), "the step")?;
    let below = below.trim();
    let below_ms = if below == "*" {
        None
    } else {
        Some(parse_duration(below, "the bound")?)
    };
    Ok(AnnounceRule { every_ms, below_ms })
}

/// A threshold the running side's time has just reached: say `remaining_ms` (the threshold
/// itself, a round number) to `color`'s listeners.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Announcement {
    pub color: Color,
    pub remaining_ms: u64,
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

    /// The typed errors say what the strings said, word for word.
    #[test]
    fn schedule_errors_read_as_before() {
        let e = |text: &str| text.parse::<AnnounceSchedule>().unwrap_err().to_string();
        assert_eq!(
            e("1m"),
            "announcement rule 1 (`1m`): expected `step@bound`, e.g. `1m@5m` (every minute \
             from 5 minutes down) or `10m@*` (every 10 minutes at any time)"
        );
        assert_eq!(
            e("10m@*,5m@1m"),
            "announcement rule 2 (`5m@1m`): a step of 5m under 1m would never be announced: \
             the bound must be at least the step"
        );
        assert_eq!(
            e("1m@5m,2m@5m"),
            "announcement rule 2 (`2m@5m`): another rule already has this bound: one step per \
             bound"
        );
        assert_eq!(
            e("500@*"),
            "announcement rule 1 (`500@*`): the step `500` needs a unit after `500`: `h`, `m` \
             or `s`"
        );
        assert_eq!(
            e("1m@5x"),
            "announcement rule 1 (`1m@5x`): the bound `5x`: unknown unit `x`; use `h`, `m` or `s`"
        );
        assert_eq!(
            e("1s1m@*"),
            "announcement rule 1 (`1s1m@*`): the step `1s1m`: write the units largest first, \
             each once (`1h30m`)"
        );
        assert_eq!(
            e("@*"),
            "announcement rule 1 (`@*`): expected the step such as `10m` or `30s`, found nothing"
        );
        assert_eq!(
            e("1m@h"),
            "announcement rule 1 (`1m@h`): expected the bound as a number and a unit (`h`, \
             `m`, `s`), found `h`"
        );
        assert_eq!(
            e("1m@99999h"),
            "announcement rule 1 (`1m@99999h`): the bound `99999h` is far too long"
        );
    }
}
