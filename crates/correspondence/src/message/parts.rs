//! The parts of a game message: the game's identifier, a move in ICCF numeric notation, a
//! date, how a half-move is numbered, and the bounds on what a message holds.

use std::fmt;

use shakmaty::Color;

/// The longest free text kept, in characters.
pub const MAX_TEXT_CHARS: usize = 4000;
/// The longest player name kept, in characters.
pub const MAX_NAME_CHARS: usize = 100;
/// The longest game identifier.
pub const MAX_GAME_ID_CHARS: usize = 40;
/// Days beyond this are not a time anyone used.
pub const MAX_DAYS: u32 = 100_000;

/// A game's identifier as both players write it: "BCA-7", "WS/2026/3", "ICCF.123456".
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameId(String);

impl GameId {
    /// Letters, digits and `-._/#`, starting with a letter or digit, at most
    /// [`MAX_GAME_ID_CHARS`].
    pub fn new(text: &str) -> Option<GameId> {
        let t = text.trim();
        let ok = !t.is_empty()
            && t.chars().count() <= MAX_GAME_ID_CHARS
            && t.starts_with(|c: char| c.is_ascii_alphanumeric())
            && t.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._/#".contains(c));
        ok.then(|| GameId(t.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One half-move in ICCF numeric notation, its shape checked (squares 11–88, promotion 1–4);
/// whether it is legal is for [`check_against`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IccfMove(String);

impl IccfMove {
    /// Reads `5254`, `27281`; check and annotation marks (`+`, `#`, `!`, `?`) are dropped.
    pub fn new(text: &str) -> Option<IccfMove> {
        let t = text.trim_end_matches(['+', '#', '!', '?']);
        let b = t.as_bytes();
        let square = |f: u8, r: u8| (b'1'..=b'8').contains(&f) && (b'1'..=b'8').contains(&r);
        let ok = (4..=5).contains(&b.len())
            && square(b[0], b[1])
            && square(b[2], b[3])
            && (b.len() == 4 || (b'1'..=b'4').contains(&b[4]));
        ok.then(|| IccfMove(t.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for IccfMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A calendar date (proleptic Gregorian), as correspondence rules count days.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    year: u16,
    month: u8,
    day: u8,
}

impl Date {
    /// A date that exists, years 1900 to 9999.
    pub fn new(year: u32, month: u32, day: u32) -> Option<Date> {
        if !(1900..=9999).contains(&year) || !(1..=12).contains(&month) || day == 0 {
            return None;
        }
        let leap =
            year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
        let days = match month {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        (day <= days).then_some(Date {
            year: year as u16,
            month: month as u8,
            day: day as u8,
        })
    }

    /// The UTC date of a Unix time in milliseconds (the adapter passes the wall clock).
    pub fn from_unix_ms(ms: i64) -> Date {
        let days = ms.div_euclid(86_400_000).clamp(-25_567, 2_932_896); // 1900..=9999
        let (year, month, day) = annabella_chess::ccsnt::civil_from_days(days);
        Date::new(year as u32, month, day).unwrap_or(Date {
            year: 1970,
            month: 1,
            day: 1,
        })
    }

    /// Days since 1970-01-01 (negative before), the inverse of [`Date::from_unix_ms`].
    pub fn unix_day(self) -> i64 {
        annabella_chess::ccsnt::days_from_civil(
            u32::from(self.year),
            u32::from(self.month),
            u32::from(self.day),
        )
    }

    /// The calendar year.
    pub fn year(self) -> u32 {
        u32::from(self.year)
    }

    /// Reads `2026-11-20`, `2026/11/20` and `20.11.2026`.
    pub fn parse(text: &str) -> Option<Date> {
        let t = text.trim();
        let parts: Vec<&str> = t.split(['-', '/', '.']).collect();
        let [a, b, c] = parts.as_slice() else {
            return None;
        };
        let num = |s: &str| -> Option<u32> {
            (!s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse().ok())
                .flatten()
        };
        let (a, b, c) = (num(a)?, num(b)?, num(c)?);
        if a >= 1000 {
            Date::new(a, b, c)
        } else {
            Date::new(c, b, a)
        }
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// The move at `ply` (0-based) with its number and colour.
pub(super) fn numbered(ply: usize) -> (u32, Color) {
    let number = (ply / 2 + 1) as u32;
    let color = if ply.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    };
    (number, color)
}

/// A name or line of text made safe for one header line: no control characters, bounded.
pub(super) fn one_line(text: &str, max: usize) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(max)
        .collect::<String>()
        .trim()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_ids() {
        assert_eq!(Date::parse("20.11.2026"), Date::new(2026, 11, 20));
        assert_eq!(Date::parse("2026/11/20"), Date::new(2026, 11, 20));
        assert_eq!(Date::parse("2026-02-29"), None);
        assert_eq!(Date::parse("2028-02-29").unwrap().to_string(), "2028-02-29");
        assert_eq!(Date::from_unix_ms(0).to_string(), "1970-01-01");
        assert_eq!(
            Date::from_unix_ms(1_795_996_800_000).to_string(),
            "2026-11-30"
        );
        assert_eq!(
            Date::from_unix_ms(951_782_400_000).to_string(),
            "2000-02-29"
        );
        assert_eq!(Date::from_unix_ms(i64::MIN).to_string(), "1900-01-01");
        assert!(GameId::new("WS/2026/3").is_some());
        assert!(GameId::new("-x").is_none());
        assert!(GameId::new("a b").is_none());
        assert!(IccfMove::new("9911").is_none());
        assert!(IccfMove::new("27285").is_none());
        assert_eq!(IccfMove::new("2728+").unwrap().as_str(), "2728");
    }
}
