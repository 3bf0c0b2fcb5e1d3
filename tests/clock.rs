//! The talking clock's arithmetic, data-driven: scripts of presses and readings against FIDE 6.

use annabella::chess::language::Language;
use annabella::chess::phrases::clock_phrase;
use annabella::table::clock::{
    AnnounceSchedule, Bonus, Clock, ClockError, ClockState, Pace, Period, TimeControl,
    TimeControlError, TimeControlTag,
};
use proptest::prelude::*;
use shakmaty::Color;

/// `90s`, `5m`, `1h30m`, `4m50s`, `250ms` or bare milliseconds: scripts read like a clock.
fn ms(text: &str) -> u64 {
    if text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse().unwrap();
    }
    let mut total = 0;
    let mut rest = text;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap();
        let n: u64 = rest[..digits].parse().unwrap();
        rest = &rest[digits..];
        let (unit, len) = if rest.starts_with("ms") {
            (1, 2)
        } else {
            match rest.as_bytes()[0] {
                b'h' => (3_600_000, 1),
                b'm' => (60_000, 1),
                b's' => (1_000, 1),
                other => panic!("bad unit {} in {text}", other as char),
            }
        };
        total += n * unit;
        rest = &rest[len..];
    }
    total
}

fn color(text: &str) -> Color {
    match text {
        "W" | "w" | "white" => Color::White,
        "B" | "b" | "black" => Color::Black,
        _ => panic!("bad colour {text}"),
    }
}

/// Runs a script against a clock set to `tc`, announcing by `schedule`. One step per line:
///
/// - `start T` / `start-black T`
/// - `press W T` (must succeed), `press W T = R` (R: the reading after the press),
///   `press W T ! Error` (refused with an error whose Debug form starts with `Error`)
/// - `rem T W=R B=R` (either or both), `delay W T = R`
/// - `flag T -|W|B`, `deadline T = X|-`
/// - `pause T`, `resume T`, `adjust W ±D T`, `set W R T`
/// - `illegal W T` / `illegal-rapid W T` / `claim W T` / `claim-rapid W T` (penalties)
/// - `say T W:R B:R …` (the due announcements, in order; `say T` alone: none)
/// - `moves W=N B=N`, `to-control W=N|-`
fn check(tc: &str, schedule: &str, script: &str) -> Clock {
    let tc: TimeControl = tc.parse().unwrap_or_else(|e| panic!("{tc}: {e}"));
    let schedule: AnnounceSchedule = schedule.parse().unwrap();
    let mut clock = Clock::new(tc).with_schedule(schedule);
    for (number, line) in script.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = format!("line {}: `{line}`", number + 1);
        match words.as_slice() {
            ["start", t] => clock.start(ms(t)).expect(&at),
            ["start-black", t] => clock.start_with(Color::Black, ms(t)).expect(&at),
            ["press", c, t] => {
                clock.press(color(c), ms(t)).expect(&at);
            }
            ["press", c, t, "=", r] => {
                let reading = clock.press(color(c), ms(t)).expect(&at);
                assert_eq!(reading.remaining_ms, ms(r), "{at}");
                assert_eq!(clock.remaining(color(c), ms(t)), ms(r), "{at}");
            }
            ["press", c, t, "!", error] => {
                let before = clock.state();
                let e = clock.press(color(c), ms(t)).expect_err(&at);
                assert!(format!("{e:?}").starts_with(error), "{at}: got {e:?}");
                assert_eq!(
                    clock.state(),
                    before,
                    "{at}: a refused press changed the clock"
                );
            }
            ["rem", t, readings @ ..] => {
                for reading in readings {
                    let (c, r) = reading.split_once('=').expect(&at);
                    assert_eq!(clock.remaining(color(c), ms(t)), ms(r), "{at}: {c}");
                }
            }
            ["delay", c, t, "=", r] => assert_eq!(clock.delay_left(color(c), ms(t)), ms(r), "{at}"),
            ["flag", t, who] => {
                let expected = (*who != "-").then(|| color(who));
                assert_eq!(clock.flagged(ms(t)), expected, "{at}");
            }
            ["deadline", t, "=", x] => {
                let expected = (*x != "-").then(|| ms(x));
                assert_eq!(clock.next_deadline(ms(t)), expected, "{at}");
            }
            ["pause", t] => clock.pause(ms(t)).expect(&at),
            ["resume", t] => clock.resume(ms(t)).expect(&at),
            ["adjust", c, d, t] => {
                let delta = match d.strip_prefix('-') {
                    Some(d) => -(ms(d) as i64),
                    None => ms(d.trim_start_matches('+')) as i64,
                };
                clock.adjust(color(c), delta, ms(t)).expect(&at);
            }
            ["set", c, r, t] => clock.set(color(c), ms(r), ms(t)).expect(&at),
            ["illegal", c, t] => {
                clock
                    .penalty_illegal_move(color(c), false, ms(t))
                    .expect(&at);
            }
            ["illegal-rapid", c, t] => {
                clock
                    .penalty_illegal_move(color(c), true, ms(t))
                    .expect(&at);
            }
            ["claim", c, t] => {
                clock
                    .penalty_wrong_claim(color(c), false, ms(t))
                    .expect(&at);
            }
            ["claim-rapid", c, t] => {
                clock.penalty_wrong_claim(color(c), true, ms(t)).expect(&at);
            }
            ["say", t, said @ ..] => {
                let got: Vec<(Color, u64)> = clock
                    .due_announcements(ms(t))
                    .into_iter()
                    .map(|a| (a.color, a.remaining_ms))
                    .collect();
                let expected: Vec<(Color, u64)> = said
                    .iter()
                    .map(|s| {
                        let (c, r) = s.split_once(':').expect(&at);
                        (color(c), ms(r))
                    })
                    .collect();
                assert_eq!(got, expected, "{at}");
            }
            ["moves", counts @ ..] => {
                for count in counts {
                    let (c, n) = count.split_once('=').expect(&at);
                    assert_eq!(
                        clock.moves_made(color(c)),
                        n.parse::<u32>().unwrap(),
                        "{at}"
                    );
                }
            }
            ["to-control", c_n] => {
                let (c, n) = c_n.split_once('=').expect(&at);
                let expected = (n != "-").then(|| n.parse::<u32>().unwrap());
                assert_eq!(clock.moves_to_control(color(c)), expected, "{at}");
            }
            _ => panic!("{at}: unknown step"),
        }
        // Every step keeps the books balanced for both sides.
        if let Some(t) = words
            .iter()
            .skip(1)
            .find(|w| w.starts_with(char::is_numeric))
        {
            books_balance(&clock, ms(t));
        }
    }
    clock
}

fn books_balance(clock: &Clock, now: u64) {
    for c in Color::ALL {
        let a = clock.accounting(c, now);
        assert_eq!(
            i128::from(a.used_ms) + i128::from(a.remaining_ms),
            i128::from(a.initial_ms) + i128::from(a.bonus_ms) + i128::from(a.arbiter_ms),
            "{c:?} {a:?}"
        );
    }
}

#[test]
fn sudden_death_flag_falls_when_the_time_is_used_up() {
    check(
        "300",
        "none",
        "
        rem 0 W=5m B=5m
        start 0
        deadline 0 = 5m
        rem 100s W=200s B=5m
        press W 100s = 200s
        rem 150s W=200s B=250s
        deadline 150s = 6m40s
        press B 6m40s ! Flagged
        flag 6m39999ms -
        flag 6m40s B
        rem 1h W=200s B=0
        deadline 6m40s = -
        press W 7m ! NotRunning
        ",
    );
}

#[test]
fn fischer_increment_is_given_before_every_move_and_accumulates() {
    check(
        "60+10",
        "none",
        "
        # FIDE glossary: the increment is added before each move, from move 1.
        rem 0 W=70s B=70s
        start 0
        press W 5s = 75s
        press B 7s = 78s
        press W 8s = 84s
        press B 9s = 87s
        press W 9s = 94s
        moves W=3 B=2
        # the flag falls at 0 even though an increment would follow the press
        flag 1m35999ms -
        flag 1m36s B
        ",
    );
}

#[test]
fn multi_period_adds_time_after_move_40_and_carries_over() {
    let mut clock = check("40/5400+30:1800+30", "none", "start 0\nto-control W=40");
    let mut now = 0;
    for n in 1..=40u32 {
        for c in Color::ALL {
            now += 60_000;
            let reading = clock.press(c, now).unwrap();
            assert_eq!(reading.moves_made, n);
            let expected = if n < 40 {
                5_430_000 - u64::from(n) * 30_000
            } else {
                // 40 moves of a minute, 40 increments, then the second period's 30 minutes
                // on top of the unused 50 minutes (6.3.2), and move 41's increment.
                5_430_000 - 40 * 30_000 + 1_800_000
            };
            assert_eq!(reading.remaining_ms, expected, "{c:?} move {n}");
            assert_eq!(reading.period_added_ms, if n == 40 { 1_800_000 } else { 0 });
        }
        if n == 39 {
            assert_eq!(clock.moves_to_control(Color::White), Some(1));
        }
    }
    assert_eq!(clock.moves_to_control(Color::White), None);
    assert_eq!(clock.period_index(Color::Black), 1);
    let report = clock.report(now);
    assert_eq!((report.white_ms, report.black_ms), (6_030_000, 6_030_000));
    assert_eq!(report.moves_played, 40);
    assert_eq!(report.running, Some(Color::White));
    books_balance(&clock, now);
}

#[test]
fn move_counts_are_per_side_and_the_report_numbers_moves_like_a_scoresheet() {
    let clock = check(
        "2/60:1/30:120",
        "none",
        "
        start 0
        press W 1s
        moves W=1 B=0
        to-control W=1
        to-control B=2
        press B 2s = 59s
        # White's second move ends the first period: its unused 58 s carry over, 30 s are added
        press W 3s = 88s
        to-control W=1
        press B 4s = 88s
        # the third period, sudden death, adds two minutes
        press W 5s = 3m27s
        to-control W=-
        moves W=3 B=2
        ",
    );
    let report = clock.report(5_000);
    assert_eq!(report.moves_played, 3);
    assert_eq!(report.moves_made.black, 2);
    assert_eq!(report.moves_to_control.black, Some(1));
}

#[test]
fn simple_delay_spares_the_main_time_within_the_delay() {
    check(
        "300d5",
        "none",
        "
        start 0
        rem 3s W=5m
        delay W 3s = 2s
        # within the delay: no main time used
        press W 4s = 5m
        # 8 s: 3 s of main time
        rem 9s B=5m
        rem 12s B=4m57s
        press B 12s = 4m57s
        delay W 12s = 5s
        deadline 12s = 5m17s
        flag 5m16999ms -
        flag 5m17s W
        ",
    );
}

#[test]
fn simple_delay_counts_the_whole_move_across_a_pause() {
    check(
        "300d5",
        "none",
        "
        start 0
        pause 3s
        delay W 1h = 2s
        resume 10s
        rem 12s W=5m
        rem 13s W=4m59s
        press W 13s = 4m59s
        ",
    );
}

#[test]
fn bronstein_gives_back_the_time_used_but_never_more_than_the_delay() {
    check(
        "300b5",
        "none",
        "
        start 0
        # the main time runs from the start of the move
        rem 3s W=4m57s
        press W 3s = 5m
        rem 11s B=4m52s
        press B 11s = 4m57s
        # a flag falls during the move, before any refund
        deadline 11s = 5m11s
        flag 5m11s W
        press W 5m11s ! Flagged
        ",
    );
}

#[test]
fn only_the_running_side_can_press() {
    check(
        "300",
        "none",
        "
        press W 0 ! NotStarted
        start 0
        press B 1s ! NotRunning
        press W 2s
        press W 3s ! NotRunning
        pause 4s
        press B 5s ! Paused
        resume 5s
        press B 3s ! TimeWentBackwards
        ",
    );
}

#[test]
fn a_pause_stops_the_time_and_resume_goes_on() {
    check(
        "300",
        "none",
        "
        start 0
        pause 10s
        rem 1h W=290s
        flag 1h -
        deadline 1h = -
        resume 1h
        rem 1h10s W=280s
        deadline 1h10s = 1h4m50s
        press W 1h20s = 270s
        ",
    );
}

#[test]
fn penalties_give_the_opponent_two_minutes_or_one_in_rapid() {
    check(
        "5400",
        "none",
        "
        start 0
        illegal W 10s
        rem 10s W=89m50s B=92m
        illegal-rapid B 10s
        rem 10s W=90m50s B=92m
        claim B 20s
        rem 20s W=92m40s B=92m
        claim-rapid W 20s
        rem 20s W=92m40s B=93m
        adjust W -40s 30s
        rem 30s W=91m50s
        set B 1m 30s
        rem 30s B=1m
        ",
    );
}

#[test]
fn arbiter_time_revives_a_fallen_flag() {
    check(
        "60",
        "none",
        "
        start 0
        flag 2m W
        adjust W +30s 2m
        flag 2m -
        rem 2m10s W=20s
        press W 2m10s = 20s
        ",
    );
}

#[test]
fn adjustments_below_zero_and_absurd_values_are_refused() {
    let mut clock = Clock::new("300".parse().unwrap());
    clock.start(0).unwrap();
    assert!(matches!(
        clock.adjust(Color::Black, -301_000, 0),
        Err(ClockError::BelowZero { .. })
    ));
    assert!(matches!(
        clock.adjust(Color::Black, i64::MIN, 0),
        Err(ClockError::Absurd { .. })
    ));
    assert!(matches!(
        clock.set(Color::Black, u64::MAX, 0),
        Err(ClockError::Absurd { .. })
    ));
    assert!(clock.set_moves(Color::Black, u32::MAX).is_err());
    assert!(clock.adjust(Color::Black, -300_000, 0).is_ok());
    assert_eq!(clock.flagged(0), Some(Color::Black));
    let e = clock.adjust(Color::Black, -1, 0).unwrap_err();
    assert!(e.to_string().contains("below zero"), "{e}");
}

#[test]
fn next_deadline_is_the_flag_unless_a_threshold_comes_first() {
    check(
        "600",
        "1m@5m,10s@1m",
        "
        start 0
        # 10 minutes: the 5-minute threshold comes first
        deadline 0 = 5m
        say 4m59s
        say 5m W:5m
        say 5m
        deadline 5m = 6m
        # a late wake-up: only the newest threshold is said, not 1m, 50s, 40s …
        say 9m30s W:30s
        deadline 9m30s = 9m40s
        press W 9m30s = 30s
        # Black's clock has no threshold below 10 minutes before 5 minutes
        deadline 9m30s = 14m30s
        ",
    );
    check(
        "600",
        "none",
        "
        start 0
        deadline 0 = 10m
        deadline 9m = 10m
        ",
    );
}

#[test]
fn thresholds_are_announced_once_in_order() {
    check(
        "1200+30",
        "10m@*,1m@5m,10s@1m",
        "
        start 0
        # start: 20:30, so 20:00 is the first threshold
        say 29s
        say 30s W:20m
        say 10m29s
        say 10m30s W:10m
        say 11m
        say 15m30s W:5m
        # the increment lifts 4:50 to 5:20, less than a step: five minutes is not said again
        press W 15m40s = 5m20s
        press B 15m41s = 20m59s
        say 16m1s
        say 17m1s W:4m
        # a late wake-up: only the newest threshold
        say 20m16s W:50s
        say 20m17s
        # 41 s + 30 s climbs a whole step above 50 s: one minute is armed again
        press W 20m20s = 1m11s
        say 21m18s
        say 21m19s B:20m
        press B 21m20s = 20m29s
        say 21m30s
        say 21m31s W:1m
        ",
    );
}

#[test]
fn a_new_period_rearms_the_announcements() {
    check(
        "2/120:600",
        "1m@*",
        "
        start 0
        say 61s W:1m
        press W 62s
        press B 63s
        say 64s
        press W 65s = 10m56s
        # ten minutes were added: 10:00, 9:00 … are armed again
        press B 66s = 11m58s
        deadline 66s = 2m2s
        say 2m1s
        say 2m2s W:10m
        say 3m2s W:9m
        ",
    );
}

#[test]
fn the_state_round_trips_through_raw_parts() {
    let mut clock = check(
        "40/5400d30:1800d30",
        "10m@*",
        "
        start 0
        press W 40s
        press B 50s
        pause 55s
        ",
    );
    let state = clock.state();
    let restored = Clock::from_state(clock.time_control().clone(), state.clone())
        .unwrap()
        .with_schedule(clock.schedule().clone());
    assert_eq!(restored, clock);
    assert_eq!(restored.state(), state);
    // A running clock: checkpoint, persist, restart on a new time base.
    clock.resume(100_000).unwrap();
    clock.checkpoint(130_000).unwrap();
    let saved = clock.state();
    assert_eq!(saved.running_since, Some(130_000));
    assert_eq!(saved.move_used_ms, 35_000);
    let mut back = Clock::from_state(clock.time_control().clone(), saved).unwrap();
    back.rebase(7, 0);
    assert_eq!(
        back.remaining(Color::White, 7),
        clock.remaining(Color::White, 130_000)
    );
    back.rebase(7, 10_000);
    assert_eq!(
        back.remaining(Color::White, 7),
        clock.remaining(Color::White, 140_000)
    );
    // Books that do not balance, and a clock running for nobody, are refused.
    let mut bad = clock.state();
    bad.used_ms.white += 1;
    assert!(Clock::from_state(clock.time_control().clone(), bad).is_err());
    let mut bad = ClockState {
        to_move: None,
        ..clock.state()
    };
    assert!(Clock::from_state(clock.time_control().clone(), bad.clone()).is_err());
    bad.running_since = None;
    bad.move_used_ms = 0;
    assert!(Clock::from_state(clock.time_control().clone(), bad).is_ok());
}

#[test]
fn time_controls_round_trip() {
    for text in [
        "40/5400+30:1800+30",
        "5400+30",
        "300",
        "300d5",
        "5400b30",
        "40/5400d30:1800d30",
        "40/7200:20/3600",
        "40/9000:4500+60",
        "30/300:0+30",
        "0+5",
    ] {
        let tc: TimeControl = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(tc.to_string(), text);
        assert_eq!(tc.to_string().parse::<TimeControl>(), Ok(tc));
    }
    // Other spellings read the same and are written the canonical way.
    for (text, canonical) in [
        (" 300+0 ", "300"),
        ("300S5", "300d5"),
        ("300D5", "300d5"),
        ("5400B30", "5400b30"),
        ("300d0", "300"),
    ] {
        assert_eq!(text.parse::<TimeControl>().unwrap().to_string(), canonical);
    }
    for (text, tag) in [
        ("?", TimeControlTag::Unknown),
        ("-", TimeControlTag::Untimed),
        ("300", TimeControlTag::Timed("300".parse().unwrap())),
    ] {
        assert_eq!(text.parse::<TimeControlTag>(), Ok(tag.clone()));
        assert_eq!(tag.to_string(), text);
    }
    let tc: TimeControl = "40/5400+30:1800+30".parse().unwrap();
    assert_eq!(
        tc.periods()[0],
        Period {
            moves: Some(40),
            seconds: 5400,
            bonus: Bonus::Increment(30)
        }
    );
}

#[test]
fn time_control_errors_name_the_period_and_what_is_expected() {
    for (text, needle) in [
        ("", "no time control"),
        ("?", "unknown"),
        ("-", "without a clock"),
        ("*300", "sandclock"),
        ("40/5400:*300", "period 2 (`*300`)"),
        (
            "40/5400+30:1800x30",
            "period 2 (`1800x30`): expected `+increment`",
        ),
        ("40/5400+30::1800", "period 2 (``): empty period"),
        ("40/5400+30:", "period 2"),
        ("x/5400", "expected the number of moves before `/`"),
        ("40/", "time in whole seconds after `/`"),
        ("40/abc", "found `abc`"),
        (
            "300+",
            "increment in whole seconds after `+`, found nothing",
        ),
        ("300+-5", "increment in whole seconds after `+`"),
        ("300d", "simple delay"),
        ("300b", "Bronstein delay"),
        ("300+5d5", "increment in whole seconds"),
        ("-300", "expected the time in whole seconds"),
        ("5400:1800", "period 1 (`5400`): without a move count"),
        ("0/300", "at least one move"),
        ("1001/300", "at most 1000"),
        ("99999999999999999999999", "far too large"),
        ("99999999999", "at most 31622400 seconds"),
        ("300+100000", "at most 86400"),
        ("0", "gives no time"),
        ("0b5", "gives no time"),
        ("1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17", "at most 16"),
        ("300 + 5", "found ` + 5`"),
    ] {
        let e = text.parse::<TimeControl>().expect_err(text).to_string();
        assert!(e.contains(needle), "{text:?}: {e}");
    }
    assert!(matches!(
        "*60".parse::<TimeControlTag>(),
        Err(TimeControlError::Period { period: 1, .. })
    ));
}

#[test]
fn schedules_parse_display_and_refuse_nonsense() {
    for text in ["10m@*,1m@5m,10s@1m", "1m30s@1h", "none"] {
        let s: AnnounceSchedule = text.parse().unwrap();
        assert_eq!(s.to_string(), text);
    }
    assert_eq!(
        AnnounceSchedule::talking_clock(),
        "10m@*, 1m@5m, 10s@1m".parse().unwrap()
    );
    assert!("off".parse::<AnnounceSchedule>().unwrap().is_empty());
    for (text, needle) in [
        ("10m", "rule 1 (`10m`): expected `step@bound`"),
        ("10m@*,5m@1m", "rule 2 (`5m@1m`): a step of 5m under 1m"),
        ("10@*", "needs a unit"),
        ("10x@*", "unknown unit `x`"),
        ("0s@*", "at most once a second"),
        ("1m@*,10m@*", "already has this bound"),
        ("1m@", "the bound such as"),
        ("30s1m@*", "largest first"),
    ] {
        let e = text
            .parse::<AnnounceSchedule>()
            .expect_err(text)
            .to_string();
        assert!(e.contains(needle), "{text:?}: {e}");
    }
}

#[test]
fn pace_follows_fide_a1_and_b1() {
    for (text, pace) in [
        ("180+2", Pace::Blitz),
        ("600", Pace::Blitz),
        ("601", Pace::Rapid),
        ("900+10", Pace::Rapid),
        ("3000+10", Pace::Standard),
        ("40/5400+30:1800+30", Pace::Standard),
        ("3599", Pace::Rapid),
    ] {
        assert_eq!(text.parse::<TimeControl>().unwrap().pace(), pace, "{text}");
    }
    assert!(Pace::Rapid.one_minute_penalties());
    assert!(!Pace::Standard.one_minute_penalties());
}

#[test]
fn the_report_feeds_the_spoken_clock() {
    let mut clock = Clock::new("40/5400+30:1800+30".parse().unwrap());
    clock.start(0).unwrap();
    clock.press(Color::White, 10 * 60_000).unwrap();
    let report = clock.report(12 * 60_000 + 30_000);
    let en = Language::builtin("en").unwrap();
    assert_eq!(
        clock_phrase(
            report.white_ms,
            report.black_ms,
            report.moves_played,
            en.vocabulary()
        ),
        "White one hour twenty-one minutes, Black one hour twenty-eight minutes, one move played"
    );
    assert_eq!(report.moves_to_control.white, Some(39));
    assert_eq!(report.remaining_ms(Color::Black), 5_430_000 - 150_000);
}

#[test]
fn error_messages_read_well() {
    let mut clock = Clock::new("300".parse().unwrap());
    clock.start(0).unwrap();
    let e = clock.press(Color::Black, 1).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Black pressed, but White's clock is running: only the side whose clock runs \
         completes a move"
    );
    assert_eq!(clock.start(0), Err(ClockError::AlreadyStarted));
    assert_eq!(clock.resume(0), Err(ClockError::NotPaused));
}

/// An operation of the random walk: a press by either side, a pause, a resume, an
/// adjustment, each after a random wait.
#[derive(Debug, Clone)]
enum Op {
    Press(bool, u64),
    Pause(u64),
    Resume(u64),
    Adjust(bool, i64, u64),
    Announce(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (any::<bool>(), 0u64..200_000).prop_map(|(w, t)| Op::Press(w, t)),
        1 => (0u64..100_000).prop_map(Op::Pause),
        1 => (0u64..100_000).prop_map(Op::Resume),
        1 => (any::<bool>(), -100_000i64..100_000, 0u64..10_000).prop_map(|(w, d, t)| Op::Adjust(w, d, t)),
        2 => (0u64..100_000).prop_map(Op::Announce),
    ]
}

fn time_control() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("60".to_string()),
        Just("3/60+2:2/30b3:20d5".to_string()),
        Just("40/5400+30:1800+30".to_string()),
        Just("2/10:1/5".to_string()),
        (1u64..400, 0u64..20, 0usize..4).prop_map(|(s, b, kind)| {
            let bonus = ["", "+", "d", "b"][kind];
            if bonus.is_empty() {
                format!("{s}")
            } else {
                format!("{s}{bonus}{b}")
            }
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Random play never panics, never underflows, and the books always balance: time used
    /// plus time left is the initial time plus everything credited.
    #[test]
    fn random_presses_keep_the_books(tc in time_control(), ops in prop::collection::vec(op(), 0..120)) {
        let tc: TimeControl = tc.parse().unwrap();
        let mut clock = Clock::new(tc).with_schedule(AnnounceSchedule::talking_clock());
        let mut now: u64 = 1_000;
        clock.start(now).unwrap();
        let mut presses = [0u32; 2];
        for op in ops {
            let before = clock.state();
            match op {
                Op::Press(white, wait) => {
                    now += wait;
                    let c = if white { Color::White } else { Color::Black };
                    let deadline = clock.next_deadline(now - wait);
                    let flag_at = clock.flag_instant();
                    match clock.press(c, now) {
                        Ok(r) => {
                            presses[usize::from(!white)] += 1;
                            prop_assert_eq!(r.moves_made, presses[usize::from(!white)]);
                            prop_assert!(flag_at.is_some_and(|f| now < f));
                        }
                        Err(_) => prop_assert_eq!(clock.state(), before),
                    }
                    if let (Some(d), Some(f)) = (deadline, flag_at) {
                        prop_assert!(d <= f);
                    }
                }
                Op::Pause(wait) => { now += wait; let _ = clock.pause(now); }
                Op::Resume(wait) => { now += wait; let _ = clock.resume(now); }
                Op::Adjust(white, delta, wait) => {
                    now += wait;
                    let c = if white { Color::White } else { Color::Black };
                    let _ = clock.adjust(c, delta, now);
                }
                Op::Announce(wait) => {
                    now += wait;
                    for a in clock.due_announcements(now) {
                        prop_assert!(clock.schedule().is_threshold(a.remaining_ms));
                        prop_assert!(a.remaining_ms >= clock.remaining(a.color, now));
                    }
                    prop_assert!(clock.due_announcements(now).is_empty());
                }
            }
            for c in Color::ALL {
                let a = clock.accounting(c, now);
                prop_assert_eq!(
                    i128::from(a.used_ms) + i128::from(a.remaining_ms),
                    i128::from(a.initial_ms) + i128::from(a.bonus_ms) + i128::from(a.arbiter_ms)
                );
                prop_assert!(a.remaining_ms <= clock.state().remaining_ms[c]);
            }
            if let Some(d) = clock.next_deadline(now) {
                prop_assert!(d >= now);
            }
            let restored = Clock::from_state(clock.time_control().clone(), clock.state());
            prop_assert!(restored.is_ok());
        }
    }

    /// Nothing typed as a time control or a schedule makes the parsers panic, and whatever
    /// they accept is written back as text they read to the same value.
    #[test]
    fn parsers_never_panic(text in "[0-9/:+dDbBsS*?@,hm -]{0,24}") {
        if let Ok(tc) = text.parse::<TimeControl>() {
            prop_assert_eq!(tc.to_string().parse::<TimeControl>(), Ok(tc));
        }
        if let Ok(s) = text.parse::<AnnounceSchedule>() {
            prop_assert_eq!(s.to_string().parse::<AnnounceSchedule>(), Ok(s));
        }
    }
}

/// A control as an arbiter sets it: minutes typed as seconds are caught, units are accepted.
#[test]
fn a_time_control_set_in_minutes_by_mistake_is_refused_with_the_seconds_suggested() {
    use annabella::table::clock::TimeControl;
    for (text, suggestion) in [
        ("90+30", "5400+30"),
        ("40/120:60", "40/7200:3600"),
        ("40/7200:60", "40/432000:3600"),
        ("60", "3600"),
    ] {
        let e = TimeControl::parse_setting(text).unwrap_err().to_string();
        assert!(e.contains("looks like minutes"), "{text}: {e}");
        assert!(
            e.contains(&format!("write {suggestion}")) || text == "40/7200:60",
            "{text}: {e}"
        );
    }
    let e = TimeControl::parse_setting("90+30").unwrap_err().to_string();
    assert!(e.contains("(90m+30s)"), "{e}");
    for (text, seconds) in [
        ("5400+30", "5400+30"),
        ("180+2", "180+2"),
        ("300", "300"),
        ("40/5400+30:1800+30", "40/5400+30:1800+30"),
        ("900+10", "900+10"),
        ("90m+30s", "5400+30"),
        ("40/2h+30s:30m+30s", "40/7200+30:1800+30"),
        ("5m+3s", "300+3"),
        ("25md5s", "1500d5"),
        ("1500d5", "1500d5"),
        // Correspondence: ten days per twenty moves, or 30 days.
        ("20/10d", "20/864000"),
        ("30d", "2592000"),
    ] {
        let tc = TimeControl::parse_setting(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(tc.to_string(), seconds, "{text}");
    }
    assert!(
        TimeControl::parse_setting("90m+30")
            .unwrap_err()
            .to_string()
            .contains("30 has no unit")
    );
}

#[test]
fn a_day_or_more_is_said_in_days_and_hours() {
    use annabella::chess::language::Language;
    use annabella::chess::phrases::duration_phrase;
    let de = Language::german().vocabulary();
    assert_eq!(
        duration_phrase(37 * 86_400_000, de),
        "siebenunddreißig Tage"
    );
    assert_eq!(
        duration_phrase(86_400_000 + 3_600_000, de),
        "ein Tag eine Stunde"
    );
    assert_eq!(
        duration_phrase(23 * 3_600_000, de),
        "dreiundzwanzig Stunden"
    );
    let en = Language::builtin("en").unwrap().vocabulary();
    assert_eq!(duration_phrase(10 * 86_400_000, en), "ten days");
}
