//! `[%ccsnt …]`, the "correspondence chess sent" time stamp that the ICCF webserver writes
//! after each move of a PGN export: when the move was sent, to the minute.
//!
//! The server writes `{[%ccsnt 2019.02.14,17:23]}`: the date as PGN writes dates
//! (`YYYY.MM.DD`), a comma, then the time of day. Readers of the format (Scidb among them)
//! also take a bare date (`[%ccsnt 2011.06.16]`) and a time with seconds
//! (`[%ccsnt 2011.06.16,17:53:02]`), with or without a space after the comma; so does this
//! module, and it writes a stamp back with the precision it was read with, so an import
//! followed by an export gives the same text.
//!
//! The stamp names no time zone. It is kept as the Unix time of the written date and time
//! read as UTC: the day clock only ever takes differences of stamps from one server, and the
//! text written back is the text read.

use std::fmt;

/// Milliseconds in a day.
const DAY_MS: u64 = 86_400_000;

/// How much of the time of day a stamp gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Precision {
    /// `2011.06.16`
    Day,
    /// `2011.06.16,17:53` (what the ICCF server writes)
    Minute,
    /// `2011.06.16,17:53:02`
    Second,
}

/// When a correspondence move was sent, as `%ccsnt` writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SentStamp {
    unix_ms: u64,
    precision: Precision,
}

impl SentStamp {
    /// A stamp at `unix_ms` (read as UTC), to be written with `precision`; the parts finer
    /// than the precision are dropped.
    pub fn new(unix_ms: u64, precision: Precision) -> SentStamp {
        let unit = match precision {
            Precision::Day => DAY_MS,
            Precision::Minute => 60_000,
            Precision::Second => 1000,
        };
        SentStamp {
            unix_ms: unix_ms - unix_ms % unit,
            precision,
        }
    }

    /// The time the stamp names, as Unix milliseconds (the stamp's clock time read as UTC).
    pub fn unix_ms(&self) -> u64 {
        self.unix_ms
    }

    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// Reads the inside of the command: `2019.02.14,17:23`, `2019.02.14`,
    /// `2019.02.14,17:23:02`, `2019.02.14, 17:23`. Dates before 1970 or after 9999, and times
    /// that do not exist, are refused (`None`).
    pub fn parse(text: &str) -> Option<SentStamp> {
        let text = text.trim();
        let (date, time) = match text.split_once(',') {
            Some((d, t)) => (d.trim(), Some(t.trim())),
            None => (text, None),
        };
        let mut parts = date.split('.');
        let year = digits(parts.next()?, 4)?;
        let month = digits(parts.next()?, 2)?;
        let day = digits(parts.next()?, 2)?;
        if parts.next().is_some() || year < 1970 || !date_exists(year, month, day) {
            return None;
        }
        let days = u64::try_from(days_from_civil(year, month, day)).ok()?;
        let (ms, precision) = match time {
            None => (0, Precision::Day),
            Some(t) => {
                let fields: Vec<&str> = t.split(':').collect();
                let (h, m, s, precision) = match fields.as_slice() {
                    [h, m] => (digits(h, 2)?, digits(m, 2)?, 0, Precision::Minute),
                    [h, m, s] => (
                        digits(h, 2)?,
                        digits(m, 2)?,
                        digits(s, 2)?,
                        Precision::Second,
                    ),
                    _ => return None,
                };
                if h > 23 || m > 59 || s > 59 {
                    return None;
                }
                (u64::from((h * 60 + m) * 60 + s) * 1000, precision)
            }
        };
        Some(SentStamp {
            unix_ms: days * DAY_MS + ms,
            precision,
        })
    }

    /// Finds `[%ccsnt …]` in a PGN comment and reads it.
    pub fn find_in_comment(comment: &str) -> Option<SentStamp> {
        let start = comment.find("[%ccsnt")? + "[%ccsnt".len();
        let rest = &comment[start..];
        let end = rest.find(']')?;
        SentStamp::parse(&rest[..end])
    }
}

/// The inside of the command, as the ICCF server writes it: `2019.02.14,17:23`.
impl fmt::Display for SentStamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let days = self.unix_ms / DAY_MS;
        let (y, m, d) = civil_from_days(days as i64);
        write!(f, "{y:04}.{m:02}.{d:02}")?;
        let secs = self.unix_ms % DAY_MS / 1000;
        let (h, min, s) = (secs / 3600, secs / 60 % 60, secs % 60);
        match self.precision {
            Precision::Day => Ok(()),
            Precision::Minute => write!(f, ",{h:02}:{min:02}"),
            Precision::Second => write!(f, ",{h:02}:{min:02}:{s:02}"),
        }
    }
}

/// 1 to `max_len` ASCII digits.
fn digits(text: &str, max_len: usize) -> Option<u32> {
    (!text.is_empty() && text.len() <= max_len && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

fn date_exists(year: u32, month: u32, day: u32) -> bool {
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day) && year <= 9999
}

/// Days since 1970-01-01 of a proleptic Gregorian date (years counted from March, so the
/// leap day ends the year; 400-year eras of 146097 days).
pub fn days_from_civil(year: u32, month: u32, day: u32) -> i64 {
    let y = i64::from(year) - i64::from(month <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(month) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day number since 1970-01-01: (year, month, day).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_the_server_form() {
        let s = SentStamp::parse("2019.02.14,17:23").unwrap();
        assert_eq!(s.precision(), Precision::Minute);
        // 2019-02-14 is day 17941 since 1970-01-01.
        assert_eq!(s.unix_ms(), 17_941 * DAY_MS + (17 * 60 + 23) * 60_000);
        assert_eq!(s.to_string(), "2019.02.14,17:23");
    }

    #[test]
    fn reads_a_bare_date_and_seconds_and_a_space() {
        let d = SentStamp::parse("2011.06.16").unwrap();
        assert_eq!(
            (d.precision(), d.to_string()),
            (Precision::Day, "2011.06.16".into())
        );
        let s = SentStamp::parse("2011.06.16, 17:53:02").unwrap();
        assert_eq!(s.precision(), Precision::Second);
        assert_eq!(s.to_string(), "2011.06.16,17:53:02");
        assert_eq!(s.unix_ms() - d.unix_ms(), ((17 * 60 + 53) * 60 + 2) * 1000);
    }

    #[test]
    fn refuses_what_is_no_time() {
        for bad in [
            "",
            "2019.02.30,10:00",
            "2019.13.01",
            "2019.02.14,24:00",
            "2019.02.14,17:60",
            "2019.02.14,17",
            "2019.02.14,17:23:02:01",
            "1969.12.31",
            "19.02.14",
            "2019-02-14,17:23",
            "2019.02.14,aa:bb",
        ] {
            assert_eq!(SentStamp::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn finds_the_stamp_beside_a_clock() {
        let s = SentStamp::find_in_comment("[%clk 1:00:00] [%ccsnt 2018.10.02,12:56]").unwrap();
        assert_eq!(s.to_string(), "2018.10.02,12:56");
        assert_eq!(SentStamp::find_in_comment("[%clk 1:00:00]"), None);
        assert_eq!(SentStamp::find_in_comment("[%ccsnt 2018.10.02,12:56"), None);
    }

    #[test]
    fn civil_days_round_trip() {
        for days in [-719_468, -1, 0, 59, 60, 10_957, 17_941, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y as u32, m, d), days);
        }
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }

    #[test]
    fn new_drops_finer_parts() {
        let s = SentStamp::new(17_941 * DAY_MS + 61_999, Precision::Minute);
        assert_eq!(s.to_string(), "2019.02.14,00:01");
        assert_eq!(SentStamp::new(5, Precision::Day).to_string(), "1970.01.01");
    }
}
