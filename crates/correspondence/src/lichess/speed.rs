//! The time controls of a live lichess game: `15+10` (minutes + seconds a move) as typed, and
//! the speed lichess gives it. lichess estimates a game's length as the base time plus forty
//! increments and names the speed from it (bullet below 180 s, blitz below 480 s, rapid below
//! 1500 s, classical above); through the Board API a seek must be Rapid or slower, a direct
//! challenge Blitz or slower (lichess-api.yaml, Board tag: "Rapid, Classical and Correspondence
//! only. For direct challenges … Blitz is also possible").

use std::fmt;
use std::str::FromStr;

/// A real-time control: base minutes and the increment in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LiveControl {
    pub minutes: u32,
    pub increment_s: u32,
}

/// lichess's speeds, slowest last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Speed {
    UltraBullet,
    Bullet,
    Blitz,
    Rapid,
    Classical,
}

impl Speed {
    pub fn name(self) -> &'static str {
        match self {
            Speed::UltraBullet => "ultraBullet",
            Speed::Bullet => "bullet",
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
        }
    }
}

/// Rapid begins at this estimate (seconds): the slowest a Board API seek may be.
pub const RAPID_FROM_S: u32 = 480;
/// Blitz begins at this estimate: the fastest a direct challenge may be.
pub const BLITZ_FROM_S: u32 = 180;
/// The longest base time and increment a seek takes (`time`, `increment`: 0–180).
pub const MAX_SEEK_MINUTES: u32 = 180;
pub const MAX_SEEK_INCREMENT_S: u32 = 180;
/// A challenge's increment is 0–60 s (`clock.increment`), its base at most 10800 s.
pub const MAX_CHALLENGE_INCREMENT_S: u32 = 60;

/// Why a control was refused before anything was sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    #[error("{0:?}: a time control is minutes+seconds, e.g. 15+10")]
    Syntax(String),
    #[error(
        "{control} is {speed} ({estimate_s} s estimated): lichess lets a board seek only Rapid \
         or slower (at least {min_s} s: minutes × 60 + 40 × increment)",
        speed = speed.name()
    )]
    TooFast {
        control: LiveControl,
        speed: Speed,
        estimate_s: u32,
        min_s: u32,
    },
    #[error("{0}: lichess takes at most {1}")]
    TooLong(LiveControl, &'static str),
}

impl LiveControl {
    /// lichess's estimate of the game's length in seconds.
    pub fn estimate_s(self) -> u32 {
        self.minutes
            .saturating_mul(60)
            .saturating_add(self.increment_s.saturating_mul(40))
    }

    pub fn speed(self) -> Speed {
        match self.estimate_s() {
            e if e < 30 => Speed::UltraBullet,
            e if e < BLITZ_FROM_S => Speed::Bullet,
            e if e < RAPID_FROM_S => Speed::Blitz,
            e if e < 1500 => Speed::Rapid,
            _ => Speed::Classical,
        }
    }

    /// The base time in seconds (a challenge's `clock.limit`).
    pub fn limit_s(self) -> u32 {
        self.minutes.saturating_mul(60)
    }

    /// A seek through the Board API: Rapid or slower, within the seek's bounds.
    pub fn check_seek(self) -> Result<(), ControlError> {
        if self.minutes > MAX_SEEK_MINUTES || self.increment_s > MAX_SEEK_INCREMENT_S {
            return Err(ControlError::TooLong(self, "180 minutes and 180 seconds"));
        }
        self.at_least(RAPID_FROM_S)
    }

    /// A direct challenge: Blitz or slower, at most 180 minutes and 60 seconds a move.
    pub fn check_challenge(self) -> Result<(), ControlError> {
        if self.minutes > MAX_SEEK_MINUTES || self.increment_s > MAX_CHALLENGE_INCREMENT_S {
            return Err(ControlError::TooLong(self, "180 minutes and 60 seconds"));
        }
        self.at_least(BLITZ_FROM_S)
    }

    fn at_least(self, min_s: u32) -> Result<(), ControlError> {
        if self.estimate_s() < min_s {
            return Err(ControlError::TooFast {
                control: self,
                speed: self.speed(),
                estimate_s: self.estimate_s(),
                min_s,
            });
        }
        Ok(())
    }
}

impl fmt::Display for LiveControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{}", self.minutes, self.increment_s)
    }
}

impl FromStr for LiveControl {
    type Err = ControlError;

    fn from_str(s: &str) -> Result<LiveControl, ControlError> {
        let bad = || ControlError::Syntax(s.chars().take(40).collect());
        let (m, i) = s.trim().split_once('+').ok_or_else(bad)?;
        let number = |t: &str| {
            (!t.is_empty() && t.len() <= 4 && t.bytes().all(|b| b.is_ascii_digit()))
                .then(|| t.parse::<u32>().ok())
                .flatten()
        };
        match (number(m), number(i)) {
            (Some(minutes), Some(increment_s)) => Ok(LiveControl {
                minutes,
                increment_s,
            }),
            _ => Err(bad()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> LiveControl {
        s.parse().unwrap()
    }

    #[test]
    fn speeds_follow_the_estimate() {
        assert_eq!(c("15+10").speed(), Speed::Rapid);
        assert_eq!(c("30+20").speed(), Speed::Classical);
        assert_eq!(c("5+3").speed(), Speed::Blitz);
        assert_eq!(c("1+0").speed(), Speed::Bullet);
        assert_eq!(c("0+0").speed(), Speed::UltraBullet);
        // 8 minutes flat is 480 s: the first Rapid.
        assert_eq!(c("8+0").speed(), Speed::Rapid);
        assert_eq!(c("7+2").speed(), Speed::Rapid);
        assert_eq!(c("7+1").speed(), Speed::Blitz);
    }

    #[test]
    fn a_seek_below_rapid_is_refused_with_the_reason() {
        assert!(c("15+10").check_seek().is_ok());
        let e = c("5+3").check_seek().unwrap_err();
        assert!(matches!(
            e,
            ControlError::TooFast {
                estimate_s: 420,
                ..
            }
        ));
        assert!(e.to_string().contains("blitz"), "{e}");
        assert!(c("181+0").check_seek().is_err());
    }

    #[test]
    fn a_challenge_may_be_blitz_but_not_bullet() {
        assert!(c("5+3").check_challenge().is_ok());
        assert!(c("3+0").check_challenge().is_ok());
        assert!(c("2+0").check_challenge().is_err());
        assert!(c("30+61").check_challenge().is_err());
    }

    #[test]
    fn controls_are_read_strictly() {
        for bad in ["15", "15+", "+10", "a+b", "15+10+2", "99999+1", "-1+0", ""] {
            assert!(bad.parse::<LiveControl>().is_err(), "{bad}");
        }
        assert_eq!(c(" 90+30 ").to_string(), "90+30");
    }
}
