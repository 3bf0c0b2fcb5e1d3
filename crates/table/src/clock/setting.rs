//! A time control as a person sets it (configuration, flags): PGN seconds or times with units (`90m+30s`, `20/10d`), and a control in minutes typed as seconds (`90+30`) refused with the right spelling suggested.

use super::time_control::{Bonus, Period, TimeControl, TimeControlError};

/// Why a time control setting was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingError {
    #[error(transparent)]
    Units(#[from] UnitsError),
    #[error(transparent)]
    Control(#[from] TimeControlError),
    /// Read in seconds, the control is implausible; `minutes` is the same control read in
    /// minutes, when that is a valid one.
    #[error(
        "{text:?} is read in seconds ({}), which looks like minutes were meant{}",
        describe_seconds(.read),
        minutes_suggestion(.read, .minutes.as_ref())
    )]
    LooksLikeMinutes {
        text: String,
        read: TimeControl,
        minutes: Option<TimeControl>,
    },
}

/// Why a control written with units (`90m+30s`) could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnitsError {
    // The run of spaces is in the message as it always was (a line break lost its `\`).
    #[error(
        "{text:?}: {digits} has no unit; with units, give each time one (d, h, m or s),                      e.g. 90m+30s or 20/10d"
    )]
    NoUnit { text: String, digits: String },
    #[error("{text:?}: {digits} is too large")]
    TooLarge { text: String, digits: String },
}

impl TimeControl {
    /// A time control as a person sets it (configuration, flags): the PGN syntax in seconds, or
    /// with explicit units on its times (`90m+30s`, `40/2h+30s:30m+30s`, `5m+3s`). Bare numbers
    /// that look like minutes (`90+30`, `40/120:60`: a move in seconds, an increment as long as
    /// the game) are refused, with the control in seconds suggested: an arbiter who types the
    /// IBCA Olympiad's `90+30` must not start a ninety-second game.
    pub fn parse_setting(text: &str) -> Result<TimeControl, SettingError> {
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
            return Ok(seconds.parse()?);
        }
        let tc: TimeControl = text.parse()?;
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
            return Err(SettingError::LooksLikeMinutes {
                text: text.to_owned(),
                read: tc,
                minutes: minutes.ok(),
            });
        }
        Ok(tc)
    }
}

/// `; for minutes write 5400+30, or with units (90m+30s)`, or nothing without a valid control
/// in minutes.
fn minutes_suggestion(read: &TimeControl, minutes: Option<&TimeControl>) -> String {
    match minutes {
        Some(m) => format!(
            "; for minutes write {m}, or with units ({})",
            with_units(read)
        ),
        None => String::new(),
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

/// The control in words, in seconds (`90 s + 30 s a move`).
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
fn with_units_in_seconds(text: &str) -> Result<String, UnitsError> {
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
                return Err(UnitsError::NoUnit {
                    text: text.to_owned(),
                    digits,
                });
            }
        };
        chars.next();
        let n: u64 = digits.parse().map_err(|_| UnitsError::TooLarge {
            text: text.to_owned(),
            digits: digits.clone(),
        })?;
        out.push_str(&n.saturating_mul(factor).to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The typed errors say what the strings said, word for word.
    #[test]
    fn setting_errors_read_as_before() {
        let e = |text: &str| TimeControl::parse_setting(text).unwrap_err().to_string();
        assert_eq!(
            e("90+30"),
            "\"90+30\" is read in seconds (90 s + 30 s a move), which looks like minutes were \
             meant; for minutes write 5400+30, or with units (90m+30s)"
        );
        assert_eq!(
            e("90m+30"),
            "\"90m+30\": 30 has no unit; with units, give each time one (d, h, m or s),                      e.g. 90m+30s or 20/10d"
        );
        assert_eq!(
            e("99999999999999999999999m"),
            "\"99999999999999999999999m\": 99999999999999999999999 is too large"
        );
        assert_eq!(e("?"), TimeControlError::Unknown.to_string());
        assert!(
            e("1m:").starts_with("period 2 (``): empty period"),
            "{}",
            e("1m:")
        );
    }
}
