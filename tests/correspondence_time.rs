//! Time in days on a real ICCF webserver game: its `%ccsnt` stamps read from PGN, fed into the
//! day clock, checked against figures worked out by hand from the stamps, and written back.
//!
//! The game (tests/data/iccf/, see its README for source and licence) is ICCF game 1049523,
//! FIN/WS/47, Hoogkamer–Mäkelä 2018, 0-1 in 66 moves. Its export gives no time control; the
//! clock below uses the ICCF rules with the standard 10 moves in 50 days. White's first move is
//! charged nothing (the game's start time is not in the export): the clock starts at its stamp.

use annabella::chess::ccsnt::SentStamp;
use annabella::chess::pgn::{ImportedGame, read_games};
use annabella::correspondence::day_clock::{DAY_MS, DayClock};
use annabella::correspondence::day_rules::CorrespondenceControl;
use shakmaty::Color;

const GAME: &str = include_str!("data/iccf/fin-ws-47-hoogkamer-makela.pgn");

fn game() -> ImportedGame {
    let mut games = read_games(GAME);
    assert_eq!(games.len(), 1);
    games.remove(0).expect("the ICCF export imports")
}

fn stamps(g: &ImportedGame) -> Vec<SentStamp> {
    g.sent
        .iter()
        .map(|s| s.expect("every move has a stamp"))
        .collect()
}

fn stamp(text: &str) -> u64 {
    SentStamp::parse(text).unwrap().unix_ms()
}

#[test]
fn every_move_keeps_its_sent_stamp() {
    let g = game();
    assert_eq!(g.game.ply_count(), 132);
    let s = stamps(&g);
    assert_eq!(s[0].to_string(), "2018.10.02,12:56");
    assert_eq!(s[15].to_string(), "2018.11.23,04:22");
    assert_eq!(s[131].to_string(), "2019.02.18,18:09");
    // Never earlier than the move before (59. gxh6 gxh6 were sent in the same minute).
    assert!(s.windows(2).all(|w| w[0].unix_ms() <= w[1].unix_ms()));
    assert_eq!(s[116].unix_ms(), s[117].unix_ms());
}

/// Plays the stamps through an ICCF 10/50d clock; returns the clock and each move's charge.
fn replay(g: &ImportedGame, upto: usize) -> (DayClock, Vec<u32>) {
    let s = stamps(g);
    let mut clock = DayClock::new(CorrespondenceControl::parse("10/50d", "iccf").unwrap());
    clock.start(Color::White, s[0].unix_ms());
    let mut charges = Vec::new();
    for (ply, at) in s.iter().enumerate().take(upto) {
        let color = if ply % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        charges.push(clock.moved(color, at.unix_ms()).unwrap().used_days);
    }
    (clock, charges)
}

#[test]
fn the_day_clock_charges_the_stamps_as_worked_out_by_hand() {
    let g = game();
    let (_, charges) = replay(&g, 20);
    // By hand, each reply's whole days from the stamp before it:
    // 1...d5 0 (38 min)      2.c4 0 (14 h 46)        2...c6 3 (3 d 0 h 03)
    // 3.cxd5 0               3...cxd5 0              4.Bf4 0
    // 4...Nc6 4 (4 d 23 h)   5.e3 1 (1 d 11 h 19)    5...Qb6 1 (1 d 3 h 13)
    // 6.Nc3 0                6...Nf6 8 (8 d 23 h 29) 7.Bd3 0
    // 7...a6 6 (6 d 21 h 53) 8.Nge2 1 (1 d 1 h 46)
    // 8...e6 22 d 10 h 56: 20 days, then 2 days doubled = 24
    // 9.O-O 0  9...Be7 1 (1 d 21 h 11)  10.Na4 0 (11 h 25)  10...Qd8 9 (9 d 3 h 01)
    assert_eq!(
        charges,
        [0, 0, 0, 3, 0, 0, 0, 4, 1, 1, 0, 8, 0, 6, 1, 24, 0, 1, 0, 9]
    );
    // 11...Nb4, 21 days 6 h 39 min after 11.h3: 20 + 2 = 22.
    let (_, charges) = replay(&g, 22);
    assert_eq!(charges[21], 22);
}

#[test]
fn totals_and_the_ten_move_control() {
    let g = game();
    let (clock, _) = replay(&g, 132);
    let end = stamps(&g)[131].unix_ms();
    let r = clock.reading(end);
    // Summed by hand over all 66 moves each: White 18 days, Black 84.
    assert_eq!(r.side(Color::White).used_days, 18);
    assert_eq!(r.side(Color::Black).used_days, 84);
    assert_eq!(
        (
            r.side(Color::White).limit_days,
            r.side(Color::White).days_left
        ),
        (350, 332)
    );
    // By the stamps alone Black's tenth move passes 50 days (22 + 24 + 1 + 9 = 56). The
    // server did not rule so: the event's control was another, or Black had leave, which the
    // stamps cannot show. The clock says what the stamps say.
    let (clock, _) = replay(&g, 20);
    let r = clock.reading(stamp("2018.12.04,20:01"));
    assert!(r.side(Color::Black).exceeded);
    assert_eq!(r.side(Color::Black).used_days, 56);
    // At White's control (ten moves made, two days used): the next ten moves and 100 days.
    let w = r.side(Color::White);
    assert_eq!(
        (w.moves_made, w.moves_to_control, w.limit_days, w.days_left),
        (10, 10, 100, 98)
    );
    assert!(w.on_move);
}

#[test]
fn a_reading_and_the_deadline_in_the_middle_of_a_long_think() {
    let g = game();
    // After 8.Nge2 (2018.10.31,17:26), Black thinks about 8...e6 with 22 days used.
    let (clock, _) = replay(&g, 15);
    // 28 days to spare: 20 single, then 8 doubled (4 days): exceeded after 25 whole days.
    let since = stamp("2018.10.31,17:26");
    assert_eq!(clock.deadline(), Some(since + 25 * DAY_MS));
    let now = stamp("2018.11.15,00:00");
    let b = *clock.reading(now).side(Color::Black);
    assert_eq!((b.used_days, b.days_left, b.exceeded), (36, 14, false));
    // 25 days less 14 days 6 h 34 min.
    assert_eq!(b.until_exceeded_ms, 10 * DAY_MS + (17 * 60 + 26) * 60_000);
}

#[test]
fn export_writes_the_same_stamps_back() {
    let g = game();
    let pgn = g.scoresheet().to_pgn(&g.headers());
    let written: Vec<&str> = pgn
        .match_indices("[%ccsnt ")
        .map(|(i, _)| &pgn[i..i + "[%ccsnt 2018.10.02,12:56]".len()])
        .collect();
    let read: Vec<&str> = GAME
        .match_indices("[%ccsnt ")
        .map(|(i, _)| &GAME[i..i + "[%ccsnt 2018.10.02,12:56]".len()])
        .collect();
    assert_eq!(written.len(), 132);
    assert_eq!(written, read);
    assert!(
        pgn.contains("1. d4 {[%ccsnt 2018.10.02,12:56]} 1... d5 {[%ccsnt 2018.10.02,13:34]}"),
        "{pgn}"
    );
    // And the export reads back to the same game and stamps.
    let again = read_games(&pgn).remove(0).unwrap();
    assert_eq!(again.sent, g.sent);
    assert_eq!(again.game.moves(), g.game.moves());
}
