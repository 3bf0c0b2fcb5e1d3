//! Fuzz target: any text as a time control (PGN syntax, a setting with units, a PGN tag, a
//! correspondence control) and as an announcement schedule: read or refused, never a panic;
//! what is read writes back to text that reads as the same; then a clock with them runs
//! through arbitrary presses, pauses and adjustments without a panic, its next deadline never
//! in the past.
#![no_main]

use annabella::correspondence::day_rules::DayControl;
use annabella::table::clock::{AnnounceSchedule, Clock, TimeControl, TimeControlTag};
use libfuzzer_sys::fuzz_target;
use shakmaty::Color;

fn round_trip<T>(value: &T, text: &str)
where
    T: std::str::FromStr + std::fmt::Display + PartialEq + std::fmt::Debug,
    T::Err: std::fmt::Debug,
{
    let written = value.to_string();
    let again = written.parse::<T>();
    assert!(
        again.as_ref().is_ok_and(|v| v == value),
        "{text:?} read as {value:?}, written {written:?}, read back as {again:?}"
    );
}

fuzz_target!(|input: (&str, &str, Vec<(u8, u32, i32)>)| {
    let (control, schedule, ops) = input;
    let parsed = control.parse::<TimeControl>();
    if let Ok(tc) = &parsed {
        round_trip(tc, control);
    }
    if let Ok(tag) = control.parse::<TimeControlTag>() {
        round_trip(&tag, control);
    }
    let setting = TimeControl::parse_setting(control);
    if let Ok(tc) = &setting {
        round_trip(tc, control);
    }
    if let Ok(days) = control.parse::<DayControl>() {
        round_trip(&days, control);
    }
    let announce = schedule.parse::<AnnounceSchedule>();
    if let Ok(s) = &announce {
        round_trip(s, schedule);
    }

    let Some(tc) = parsed.ok().or(setting.ok()) else {
        return;
    };
    let mut clock = Clock::new(tc).with_schedule(announce.unwrap_or_default());
    let mut now: u64 = 0;
    let _ = clock.start(now);
    let mut side = Color::White;
    for (op, dt, delta) in ops.into_iter().take(256) {
        now = now.saturating_add(u64::from(dt));
        match op % 10 {
            0..=2 => {
                if clock.press(side, now).is_ok() {
                    side = !side;
                }
            }
            3 => {
                let _ = clock.pause(now);
            }
            4 => {
                let _ = clock.resume(now);
            }
            5 => {
                let _ = clock.adjust(side, i64::from(delta) * 1000, now);
            }
            6 => {
                let _ = clock.penalty_illegal_move(side, delta & 1 == 0, now);
            }
            7 => {
                let _ = clock.set(!side, u64::from(delta.unsigned_abs()), now);
            }
            8 => clock.rebase(now, u64::from(dt)),
            _ => {
                let _ = clock.due_announcements(now);
            }
        }
        let _ = clock.report(now);
        let _ = clock.flagged(now);
        let _ = clock.moves_to_control(side);
        if let Some(deadline) = clock.next_deadline(now) {
            assert!(deadline >= now, "deadline {deadline} before now {now}");
        }
        // A clock restored from its state is the same clock.
        let restored = Clock::from_state(clock.time_control().clone(), clock.state());
        assert!(restored.is_ok_and(|c| c.report(now) == clock.report(now)));
    }
});
