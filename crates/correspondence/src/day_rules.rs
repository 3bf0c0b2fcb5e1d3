//! Correspondence time controls and the rule sets that count them, as data: the ICCF
//! webserver's and the Braille Chess Association's email rules, each with its source and the
//! rule text it follows (`docs/correspondence-time.md` explains them with examples).
//!
//! Both rule sets charge whole 24-hour periods of reflection time per move (a reply within 24
//! hours costs nothing); the ICCF rules charge days beyond the twentieth twice. A control
//! `N/Dd` gives D days for the first N moves and D more for each further N moves; unused days
//! carry over.

use std::fmt;
use std::str::FromStr;

/// Most moves in one period of a control.
pub const MAX_CONTROL_MOVES: u32 = 200;
/// Most days in one period of a control.
pub const MAX_CONTROL_DAYS: u32 = 366;

/// A correspondence rule set: how days are charged and what leave is granted.
#[derive(Debug, PartialEq, Eq)]
pub struct RuleSet {
    /// The name a configuration uses: `iccf`, `bca`.
    pub name: &'static str,
    pub title: &'static str,
    /// Where the rules are published.
    pub source: &'static str,
    /// The rule text this set follows (quoted in substance; see the source for the wording).
    pub rule_text: &'static str,
    /// Reflection days of one move beyond this many are charged twice.
    pub double_after_days: Option<u32>,
    /// Days a sent ambiguous or illegal move costs its sender.
    pub illegal_move_days: u32,
    /// Days of leave a player may take per calendar year; `None`: these rules grant none.
    pub leave_days_per_year: Option<u32>,
    /// The control these rules usually come with.
    pub usual_control: DayControl,
}

/// The ICCF webserver rules (ICCF Playing Rules – Server, art. 2.4.2 / 6b).
pub static ICCF: RuleSet = RuleSet {
    name: "iccf",
    title: "ICCF webserver",
    source: "https://www.iccf.com/ (Playing Rules – Server, art. 2.4.2; quoted at \
             https://kszgk.com/?page_id=22360)",
    rule_text: "Playing time is accounted for in whole days (24-hour periods). A player has 24 \
                hours of reflection time to respond to a move before one day is charged. Time \
                charged for one move is the whole number of days used up to 20 days, plus twice \
                the whole number of days used beyond 20 (at least 23 but not 24 days cost 26). \
                Time left when reaching a time control is carried forward. Reflection time is \
                stopped during a valid leave. Standard control: 10 moves in 40 or 50 days; \
                45 days of leave per calendar year unless the event says otherwise.",
    double_after_days: Some(20),
    illegal_move_days: 0,
    leave_days_per_year: Some(45),
    usual_control: DayControl {
        moves: 10,
        days: 50,
    },
};

/// The BCA email tournament rules (BCA Email Tournament Rules 2020, rules 4 and 6).
pub static BCA: RuleSet = RuleSet {
    name: "bca",
    title: "Braille Chess Association email tournaments",
    source: "https://braillechess.org.uk/events/email-rules.php",
    rule_text: "Each player is allocated 10 days of thinking time to complete 20 moves; once 20 \
                moves have been completed a further 10 days is added to any unused time, and so \
                on for each further 20 moves. A day is not used when a player replies to a move \
                within 24 hours; one day is used when he replies within 24 to 48 hours of the \
                receipt of a move. A player sending an ambiguous or illegal move shall replace \
                it with a clear legal move and shall lose one day from his allocated time.",
    double_after_days: None,
    illegal_move_days: 1,
    leave_days_per_year: None,
    usual_control: DayControl {
        moves: 20,
        days: 10,
    },
};

/// The rule sets by name, for configuration and documentation.
pub static RULE_SETS: [&RuleSet; 2] = [&ICCF, &BCA];

/// Which rule set a game is played under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rules {
    Iccf,
    Bca,
}

impl Rules {
    pub fn set(self) -> &'static RuleSet {
        match self {
            Rules::Iccf => &ICCF,
            Rules::Bca => &BCA,
        }
    }

    /// Reflection days of one move charged to the clock: whole days, doubled beyond the
    /// rules' limit.
    pub fn charge(self, whole_days: u64) -> u64 {
        match self.set().double_after_days {
            Some(k) if whole_days > u64::from(k) => {
                u64::from(k).saturating_add((whole_days - u64::from(k)).saturating_mul(2))
            }
            _ => whole_days,
        }
    }

    /// The fewest whole reflection days whose charge passes `spare` days.
    pub fn days_to_exceed(self, spare: u64) -> u64 {
        match self.set().double_after_days.map(u64::from) {
            Some(k) if spare >= k => k + (spare - k) / 2 + 1,
            _ => spare + 1,
        }
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.set().name)
    }
}

impl FromStr for Rules {
    type Err = ControlError;

    fn from_str(text: &str) -> Result<Rules, ControlError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "iccf" => Ok(Rules::Iccf),
            "bca" => Ok(Rules::Bca),
            other => Err(ControlError::UnknownRules(cut(other))),
        }
    }
}

/// `moves` moves in `days` days, repeated: `20/10d`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DayControl {
    pub moves: u32,
    pub days: u32,
}

impl DayControl {
    /// Checks the bounds: 1 to [`MAX_CONTROL_MOVES`] moves, 1 to [`MAX_CONTROL_DAYS`] days.
    pub fn new(moves: u32, days: u32) -> Result<DayControl, ControlError> {
        if !(1..=MAX_CONTROL_MOVES).contains(&moves) {
            return Err(ControlError::Moves(moves.to_string()));
        }
        if !(1..=MAX_CONTROL_DAYS).contains(&days) {
            return Err(ControlError::Days(days.to_string()));
        }
        Ok(DayControl { moves, days })
    }

    /// A control whose period a table's `TimeControl` gives in seconds (`20/10d` reads as
    /// 20 moves in 864000 seconds): refused unless the seconds are whole days.
    pub fn from_seconds(moves: u32, seconds: u64) -> Result<DayControl, ControlError> {
        if !seconds.is_multiple_of(86_400) {
            return Err(ControlError::NotWholeDays(seconds));
        }
        let days =
            u32::try_from(seconds / 86_400).map_err(|_| ControlError::NotWholeDays(seconds))?;
        DayControl::new(moves, days)
    }

    /// Days allowed in all up to the control that a side's next move counts towards, when it
    /// has made `moves_made` moves.
    pub fn limit_days(&self, moves_made: u32) -> u64 {
        u64::from(self.days) * (u64::from(moves_made / self.moves) + 1)
    }

    /// Moves still to make up to that control, the next one included.
    pub fn moves_to_control(&self, moves_made: u32) -> u32 {
        self.moves - moves_made % self.moves
    }
}

impl fmt::Display for DayControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}d", self.moves, self.days)
    }
}

impl FromStr for DayControl {
    type Err = ControlError;

    /// Reads `20/10d` (moves/days; `D` works too).
    fn from_str(text: &str) -> Result<DayControl, ControlError> {
        let t = text.trim();
        let (moves, days) = t
            .split_once('/')
            .ok_or_else(|| ControlError::NoSlash(cut(t)))?;
        let number = |s: &str| -> Option<u32> {
            (!s.is_empty() && s.len() <= 6 && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse().ok())
                .flatten()
        };
        let moves_text = moves.trim();
        let moves = number(moves_text).ok_or_else(|| ControlError::Moves(cut(moves_text)))?;
        let days_text = days.trim();
        let Some(days_number) = days_text
            .strip_suffix('d')
            .or_else(|| days_text.strip_suffix('D'))
        else {
            return Err(ControlError::NotDays(cut(days_text)));
        };
        let days = number(days_number.trim()).ok_or_else(|| ControlError::Days(cut(days_text)))?;
        DayControl::new(moves, days)
    }
}

/// A correspondence time control: the moves and days, and the rules that count them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CorrespondenceControl {
    pub control: DayControl,
    pub rules: Rules,
    /// Days of leave per calendar year: the rules' own unless an event sets another number.
    pub leave_days_per_year: Option<u32>,
}

impl CorrespondenceControl {
    pub fn new(control: DayControl, rules: Rules) -> CorrespondenceControl {
        CorrespondenceControl {
            control,
            rules,
            leave_days_per_year: rules.set().leave_days_per_year,
        }
    }

    /// Reads a control (`"10/50d"`) and a rule set's name (`"iccf"`).
    pub fn parse(control: &str, rules: &str) -> Result<CorrespondenceControl, ControlError> {
        Ok(CorrespondenceControl::new(control.parse()?, rules.parse()?))
    }

    /// An event's own leave allowance (ICCF events may grant 30 days instead of 45).
    pub fn with_leave_days_per_year(self, days: Option<u32>) -> CorrespondenceControl {
        CorrespondenceControl {
            leave_days_per_year: days,
            ..self
        }
    }
}

/// Why a correspondence time control could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    #[error("{0:?} is no correspondence time control: write moves/days, e.g. 20/10d")]
    NoSlash(String),
    #[error("the move count {0:?} must be a whole number from 1 to {MAX_CONTROL_MOVES}")]
    Moves(String),
    #[error("correspondence time is counted in days: write {0:?} with a d, e.g. 10d")]
    NotDays(String),
    #[error("the days {0:?} must be a whole number from 1 to {MAX_CONTROL_DAYS}, then d")]
    Days(String),
    #[error("unknown correspondence rules {0:?}: known are iccf and bca")]
    UnknownRules(String),
    #[error("{0} seconds are not whole days: a correspondence control counts days")]
    NotWholeDays(u64),
}

/// A bounded quote of what was read, for an error.
fn cut(text: &str) -> String {
    text.chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_controls_in_days() {
        let c: DayControl = "20/10d".parse().unwrap();
        assert_eq!((c.moves, c.days), (20, 10));
        assert_eq!(c.to_string(), "20/10d");
        let c: DayControl = " 10 / 50 D ".parse().unwrap();
        assert_eq!((c.moves, c.days), (10, 50));
    }

    #[test]
    fn errors_name_what_was_wrong() {
        let err = |t: &str| t.parse::<DayControl>().unwrap_err();
        assert_eq!(err("20-10d"), ControlError::NoSlash("20-10d".into()));
        assert_eq!(err("x/10d"), ControlError::Moves("x".into()));
        assert_eq!(err("0/10d"), ControlError::Moves("0".into()));
        assert_eq!(err("20/10"), ControlError::NotDays("10".into()));
        assert_eq!(err("20/0d"), ControlError::Days("0".into()));
        assert_eq!(err("20/400d"), ControlError::Days("400".into()));
        assert_eq!(err("20/d"), ControlError::Days("d".into()));
        assert!(err("20/10").to_string().contains("counted in days"));
        let rules = "fide".parse::<Rules>().unwrap_err();
        assert_eq!(
            rules.to_string(),
            "unknown correspondence rules \"fide\": known are iccf and bca"
        );
        assert_eq!(
            CorrespondenceControl::parse("10/50d", "ICCF").unwrap(),
            CorrespondenceControl::new(DayControl::new(10, 50).unwrap(), Rules::Iccf)
        );
    }

    #[test]
    fn a_table_control_in_seconds_converts_when_whole_days() {
        assert_eq!(
            DayControl::from_seconds(20, 864_000),
            Ok(DayControl {
                moves: 20,
                days: 10
            })
        );
        assert_eq!(
            DayControl::from_seconds(20, 864_001),
            Err(ControlError::NotWholeDays(864_001))
        );
    }

    #[test]
    fn iccf_doubles_days_beyond_twenty_and_bca_does_not() {
        let iccf: Vec<u64> = [0, 1, 19, 20, 21, 23].map(|d| Rules::Iccf.charge(d)).into();
        // "at least 23 days but not 24 will be charged 26 days" (the ICCF rule's example).
        assert_eq!(iccf, [0, 1, 19, 20, 22, 26]);
        assert_eq!(Rules::Bca.charge(23), 23);
    }

    #[test]
    fn days_to_exceed_is_the_first_day_whose_charge_passes() {
        for rules in [Rules::Iccf, Rules::Bca] {
            for spare in 0..120 {
                let d = rules.days_to_exceed(spare);
                assert!(rules.charge(d) > spare, "{rules} {spare}");
                assert!(rules.charge(d - 1) <= spare, "{rules} {spare}");
            }
        }
    }

    #[test]
    fn controls_accumulate() {
        let c = DayControl::new(10, 50).unwrap();
        assert_eq!((c.limit_days(0), c.moves_to_control(0)), (50, 10));
        assert_eq!((c.limit_days(9), c.moves_to_control(9)), (50, 1));
        assert_eq!((c.limit_days(10), c.moves_to_control(10)), (100, 10));
        assert_eq!((c.limit_days(25), c.moves_to_control(25)), (150, 5));
    }

    #[test]
    fn rule_sets_are_named_sourced_and_distinct() {
        for set in RULE_SETS {
            let rules: Rules = set.name.parse().unwrap();
            assert!(std::ptr::eq(rules.set(), set));
            assert!(set.source.contains("https://"), "{}", set.name);
            assert!(!set.rule_text.is_empty());
        }
        assert_eq!(BCA.usual_control.to_string(), "20/10d");
        assert_eq!(BCA.illegal_move_days, 1);
        assert_eq!(ICCF.leave_days_per_year, Some(45));
        let bca = CorrespondenceControl::parse("20/10d", "bca").unwrap();
        assert_eq!(bca.leave_days_per_year, None);
        assert_eq!(
            bca.with_leave_days_per_year(Some(14)).leave_days_per_year,
            Some(14)
        );
    }
}
