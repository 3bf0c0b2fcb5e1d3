//! The table as the blind player hears it: whole games through the real daemon, a peg board on a pseudo-terminal, the opponent on the control port, and one shared loudspeaker whose every utterance is timed.
//!
//! Each game is a real one from the benchmark collection (`benches/common`), played at a hand's
//! pace into time trouble: the blind player (White, on the simulated peg board) hears the
//! opponent's move on the loudspeaker before he copies it, thinks, moves, and now and then
//! presses one of his board's keys; the opponent (Black) moves with `move` on the control port.
//! The loudspeaker is the stand-in `espeak-ng` of `tests/common/stand_in.rs`, first on `PATH`,
//! shared by the blind player and the opponent (`blind+opponent=espeak-ng`): it renders each
//! utterance with the real espeak-ng, plays it for its real length, and logs when it starts,
//! ends or is cut. After the game's last move the blind player lets his flag fall.
//!
//! What it prints, per game and in total (issue 10's figures, in `docs/speech.md`):
//! - duplicates: utterances said to the end more often than the table asked (target 0);
//! - moves cut and never finished, or never started (target 0), in the last minute of the
//!   blind player's clock and overall, beside how many were cut and said again;
//! - flag to announcement: from the instant the blind player's time ran out to the start of
//!   the announcement on the loudspeaker (target < 0.5 s);
//! - keys: pressed, answered to the blind player, said to the end (target: all).
//!
//! `cargo bench --bench table_listening` plays three games (about ten minutes);
//! `cargo test --benches` plays the opening of one with every key, as a smoke run that fails
//! when a target is missed (the flag's bound is looser there, for a loaded machine).

#[path = "../tests/common/mod.rs"]
pub mod support;

mod common;

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use annabella::chess::language::Language;
use annabella::chess::scoresheet::parse_clock;
use shakmaty::{CastlingMode, Position};

use support::board::SimulatedBoard;
use support::control::{ControlClient, unix_ms};
use support::daemon::{Daemon, Serve};
use support::fs::scratch_dir;
use support::stand_in::{self, Played, StandIn};

/// The blind player's clock below which a move counts as made in his last minute.
const LAST_MINUTE_MS: u64 = 60_000;

/// How the table is set up for time trouble: the terse style and the clock's calls in the last
/// minute (every ten seconds, then every second below ten), as a player would choose them.
const CONFIG: &str = "[speech]\nterse_below_s = 60\n[clock]\nannounce = \"1m@5m,10s@1m,1s@10s\"\n";

/// One game to play: its moves in UCI (ending with Black's, so White is to move when his flag
/// falls), its time control, and the keys the blind player presses before his moves.
struct Plan {
    name: String,
    moves: Vec<String>,
    time_control: &'static str,
    /// (White's move number, key letter) — pressed before that move, in order.
    keys: Vec<(u32, char)>,
    /// For the smoke run: the arbiter takes White's clock down to about this much after the
    /// last move (`adjust`), so the countdown and the flag come without a long wait.
    squeeze_to_ms: Option<u64>,
}

/// Every key of the strip (docs/peg-protocol.md) plus one the board does not know. `X` is
/// pressed once only (a second press would resign), `C` claims a draw that is refused.
const KEYS: &[char] = &['A', 'T', 'O', 'H', 'H', 'S', 'Z', 'Q', '7', 'X', 'D', 'C'];

/// A deterministic think time in `[lo, hi)` ms (a small linear congruential generator: the
/// same games at the same pace every run).
struct Pace(u64);

impl Pace {
    fn next_ms(&mut self, lo: u64, hi: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        lo + (self.0 >> 33) % (hi - lo).max(1)
    }
}

/// Games from the collection that end with White to move in a position that is not over,
/// between `min` and `max` plies long (cut back to Black's last move).
fn plans(count: usize, min: usize, max: usize) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for game in common::games(2000) {
        if out.len() == count {
            break;
        }
        if !game.is_standard_start() || game.ply_count() < min {
            continue;
        }
        let plies = game.ply_count().min(max) / 2 * 2;
        let mut pos = game.start_position().clone();
        let mut moves = Vec::new();
        for m in &game.moves()[..plies] {
            moves.push(m.to_uci(CastlingMode::Standard).to_string());
            pos.play_unchecked(*m);
        }
        if pos.is_game_over() {
            continue;
        }
        out.push(moves);
    }
    assert_eq!(out.len(), count, "too few games in the collection");
    out
}

/// One item the table asked the shared loudspeaker to say.
#[derive(Debug)]
struct Asked {
    /// The words as the voice says them (spoken forms applied).
    spoken: String,
    kind: Kind,
    /// The blind player's clock when it was asked, for moves.
    blind_ms: Option<u64>,
    /// When the table asked for it (its event's arrival), and when it was first said to the end.
    asked_at: u64,
    ended_at: Option<u64>,
    started: bool,
    cuts: u32,
    ended: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Move,
    KeyAnswer,
    End,
    Other,
}

/// Everything one game showed, and its figures.
#[derive(Default)]
struct Figures {
    plies: usize,
    /// The plies played before the flag fell (all of them unless it fell early).
    plies_played: usize,
    asked: usize,
    said: usize,
    duplicates: usize,
    /// The words said more often than asked.
    duplicated: Vec<String>,
    moves: usize,
    moves_last_minute: usize,
    moves_cut_repeated: usize,
    moves_cut_lost: usize,
    moves_cut_lost_last_minute: usize,
    moves_never_said: usize,
    /// From each move's event to the end of its first whole saying, ms.
    move_heard_ms: Vec<u64>,
    others_dropped: usize,
    flag_to_event_ms: Option<i64>,
    flag_to_voice_ms: Option<i64>,
    keys_pressed: usize,
    keys_answered: usize,
    keys_answered_to_others: usize,
    keys_said: usize,
    wall: Duration,
}

/// The observer's view of the table: every event with the Unix millisecond it arrived.
struct Events {
    client: ControlClient,
    log: Vec<(u64, String)>,
}

impl Events {
    /// Reads events until one satisfies `want` (returning its index in the log), or `None`
    /// after `within`.
    fn until(&mut self, within: Duration, want: impl Fn(&str) -> bool) -> Option<usize> {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let (at, line) = self.client.next_event(left)?;
            self.log.push((at, line));
            if want(&self.log.last().expect("just pushed").1) {
                return Some(self.log.len() - 1);
            }
        }
    }

    /// Reads whatever has arrived.
    fn drain(&mut self) {
        while let Some(e) = self.client.next_event(Duration::from_millis(1)) {
            self.log.push(e);
        }
    }

    /// Both clocks now: (white ms, black ms, the Unix ms halfway through the request), and
    /// whether White's clock is running (not after the flag, nor on Black's move).
    fn clocks(&mut self) -> (u64, u64, u64, bool) {
        let before = unix_ms();
        let reply = self.client.ask("clock");
        let after = unix_ms();
        let words: Vec<&str> = reply.split_whitespace().collect();
        let field = |name: &str| {
            words
                .iter()
                .position(|w| *w == name)
                .and_then(|i| words.get(i + 1))
                .and_then(|t| parse_clock(t))
                .unwrap_or_else(|| panic!("no {name} time in {reply:?}"))
        };
        (
            field("white"),
            field("black"),
            before + (after - before) / 2,
            reply.ends_with("running white"),
        )
    }
}

/// The text of a `event say LISTENER TEXT` line, if it is one for the shared loudspeaker
/// (blind, opponent or all), with its listener.
fn said_aloud(line: &str) -> Option<(&str, &str)> {
    let (listener, text) = line.strip_prefix("event say ")?.split_once(' ')?;
    matches!(listener, "blind" | "opponent" | "all").then_some((listener, text))
}

/// Waits until the loudspeaker has finished (or cut) the first utterance with these words that
/// started at or after `since`, for at most `within`.
fn heard(speaker: &StandIn, spoken: &str, since: u64, within: Duration) {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        let played = speaker.played();
        if played
            .iter()
            .any(|p| p.what != "start" && p.text == spoken && p.at_unix_ms >= since)
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits until the loudspeaker has been silent for `quiet` (every start ended or cut).
fn settle(speaker: &StandIn, quiet: Duration, within: Duration) {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        let played = speaker.played();
        let open = played.iter().filter(|p| p.what == "start").count()
            > played.iter().filter(|p| p.what != "start").count();
        let last = played.last().map_or(0, |p| p.at_unix_ms);
        if !open && unix_ms().saturating_sub(last) >= quiet.as_millis() as u64 {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn start_daemon(dir: &Path, speaker: &StandIn, plan: &Plan) -> (Daemon, SimulatedBoard) {
    let peg = dir.join("peg");
    let board = SimulatedBoard::on_pty("peg", &peg, &[]);
    let config = dir.join("annabella.toml");
    std::fs::write(&config, CONFIG).expect("writing the configuration");
    let path = format!(
        "{}:{}",
        speaker.dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let speech = format!(
        "blind+opponent=espeak-ng,transcript:{}",
        dir.join("transcript.txt").display()
    );
    let daemon = Serve::new(&dir.join("state"))
        .config(&config)
        .env("PATH", path)
        .args([
            "--peg",
            peg.to_str().expect("UTF-8 path"),
            "--speech",
            &speech,
        ])
        .args(["--time-control", plan.time_control, "--speech-rate", "240"])
        .start();
    (daemon, board)
}

/// Plays one game and measures it.
fn play(plan: &Plan, seed: u64) -> Figures {
    let started = Instant::now();
    let dir = scratch_dir(&format!("listening-{}", plan.name));
    let speaker = StandIn::create(&dir.join("bin")).expect("the stand-in loudspeaker");
    let (mut daemon, mut board) = start_daemon(&dir, &speaker, plan);
    let mut black = daemon.connect("black");
    let mut events = Events {
        client: daemon.connect("observer"),
        log: Vec::new(),
    };
    // The new game's announcement is said before anyone can subscribe, so it is not in the
    // event log: it is left out of the accounting. (The daemon's own start announcement comes
    // before it, and is left out below.)
    let table_starts = |p: &Played| p.what == "start" && !is_start_announcement(&p.text);
    let first = speaker.wait_until(support::WAIT, |p| p.iter().any(table_starts));
    let before_subscription = first
        .iter()
        .find(|p| table_starts(p))
        .expect("waited for it")
        .pid;
    assert!(events.client.ask("events").starts_with("ok events"));
    events.client.wait_status("peg connected in-sync");
    let german = Language::german().vocabulary();
    let mut pace = Pace(seed);
    let mut figures = Figures {
        plies: plan.moves.len(),
        ..Figures::default()
    };
    // The blind player's clock after each ply, by the index of its `event move` in the log.
    let mut blind_clock_at: HashMap<usize, u64> = HashMap::new();
    let mut keys = plan.keys.iter().peekable();

    // When White's flag will fall, from the last reading of his running clock.
    let mut flag_at = 0;
    let over = |events: &Events| events.log.iter().any(|(_, l)| l.starts_with("event end "));
    for (ply, uci) in plan.moves.iter().enumerate() {
        if over(&events) {
            break;
        }
        let number = ply / 2 + 1;
        if ply % 2 == 0 {
            // The blind player: his keys first, then (in time trouble, quickly) his move.
            while let Some(&&(_, key)) = keys.peek().filter(|(n, _)| *n as usize == number) {
                keys.next();
                let since = unix_ms();
                board.hand(&format!("key {key}"));
                figures.keys_pressed += 1;
                // He listens to the answer before he does anything else.
                let answer = events
                    .until(Duration::from_secs(5), |l| {
                        l.starts_with("event key peg") || l.starts_with("event refused peg")
                    })
                    .and_then(|_| events.until(Duration::from_secs(5), |l| said_aloud(l).is_some()))
                    .map(|i| {
                        said_aloud(&events.log[i].1)
                            .expect("a say line")
                            .1
                            .to_owned()
                    });
                if let Some(words) = answer {
                    heard(
                        &speaker,
                        &german.pronounce_for_espeak(&words),
                        since,
                        Duration::from_secs(15),
                    );
                }
            }
            let (white_ms, _, at, runs) = events.clocks();
            if runs {
                flag_at = at + white_ms;
            }
            let think = if white_ms < 8_000 {
                100
            } else {
                pace.next_ms(300, 2_000)
            };
            std::thread::sleep(Duration::from_millis(think));
            board.hand(uci);
        } else {
            std::thread::sleep(Duration::from_millis(pace.next_ms(200, 1_200)));
            let reply = black.ask(&format!("move {uci}"));
            assert!(reply.starts_with("ok "), "black's {uci}: {reply}");
        }
        let want = format!(
            "event move {} {} {uci} ",
            ply + 1,
            ["white", "black"][ply % 2]
        );
        let Some(at) = events.until(support::WAIT, |l| {
            l.starts_with(&want) || l.starts_with("event end ")
        }) else {
            panic!("no {want:?}; saw {:#?}", events.log)
        };
        if over(&events) {
            break;
        }
        let (white_ms, _, clock_at, runs) = events.clocks();
        blind_clock_at.insert(at, white_ms);
        if runs {
            flag_at = clock_at + white_ms;
        }
        if ply % 2 == 1 {
            // The blind player copies the opponent's move once he has heard it.
            let since = events.log[at].0;
            let words = events
                .until(Duration::from_secs(5), |l| said_aloud(l).is_some())
                .map(|i| {
                    said_aloud(&events.log[i].1)
                        .expect("a say line")
                        .1
                        .to_owned()
                });
            if let Some(words) = words {
                heard(
                    &speaker,
                    &german.pronounce_for_espeak(&words),
                    since,
                    Duration::from_secs(6),
                );
            }
            std::thread::sleep(Duration::from_millis(pace.next_ms(200, 600)));
            board.hand(uci);
            events
                .until(support::WAIT, |l| {
                    l.starts_with("event peg replicated") || l.starts_with("event in-sync peg")
                })
                .unwrap_or_else(|| panic!("the copy of {uci} was not seen; saw {:#?}", events.log));
        }
    }

    // The blind player thinks on until his flag falls.
    if !over(&events) {
        if let Some(target) = plan.squeeze_to_ms {
            let (white_ms, _, _, _) = events.clocks();
            let seconds = white_ms.saturating_sub(target) / 1000;
            if seconds > 0 {
                let reply = daemon
                    .connect("arbiter")
                    .ask(&format!("adjust white -{seconds}"));
                assert!(reply.starts_with("ok "), "adjust: {reply}");
            }
        }
        let (white_ms, _, at, runs) = events.clocks();
        if runs {
            flag_at = at + white_ms;
        }
    }
    let wait = Duration::from_millis(flag_at.saturating_sub(unix_ms())) + support::WAIT;
    let end = match events
        .log
        .iter()
        .position(|(_, l)| l.starts_with("event end "))
    {
        Some(end) => end,
        None => events
            .until(wait, |l| l.starts_with("event end "))
            .unwrap_or_else(|| panic!("no flag; saw {:#?}", events.log)),
    };
    assert!(
        events.log[end].1.contains("white ran out of time"),
        "the game ended otherwise: {}",
        events.log[end].1
    );
    figures.plies_played = events.log[..end]
        .iter()
        .filter(|(_, l)| l.starts_with("event move "))
        .count();
    figures.flag_to_event_ms = Some(events.log[end].0 as i64 - flag_at as i64);
    events.until(Duration::from_secs(5), |l| said_aloud(l).is_some());
    settle(&speaker, Duration::from_secs(2), Duration::from_secs(60));
    events.drain();
    daemon.terminate();
    drop(board);

    let asked = asked_items(&events.log, &blind_clock_at, german);
    let played: Vec<Played> = speaker
        .played()
        .into_iter()
        .filter(|p| p.pid != before_subscription)
        .collect();
    account(
        &mut figures,
        asked,
        &played,
        &events.log,
        end,
        flag_at,
        german,
    );
    figures.wall = started.elapsed();
    // The whole record, for a look when a figure is off.
    let mut record = String::new();
    for (at, line) in &events.log {
        record.push_str(&format!("{at} {line}\n"));
    }
    for d in &figures.duplicated {
        record.push_str(&format!("--- said more often than asked: {d}\n"));
    }
    record.push_str("--- loudspeaker\n");
    for p in &played {
        record.push_str(&format!(
            "{} {} {} {}\n",
            p.at_unix_ms, p.what, p.pid, p.text
        ));
    }
    let kept = std::env::temp_dir().join(format!("annabella-listening-{}.log", plan.name));
    let _ = std::fs::write(&kept, record);
    eprintln!(
        "{}: events and loudspeaker in {}",
        plan.name,
        kept.display()
    );
    let _ = std::fs::remove_dir_all(&dir);
    figures
}

/// What the table asked the shared loudspeaker to say, in order: each say line for the blind
/// player, the opponent or everyone, the same words to two listeners in one burst counted once
/// (the speaker says them once), classified by the event they follow.
fn asked_items(
    log: &[(u64, String)],
    blind_clock_at: &HashMap<usize, u64>,
    german: &annabella::chess::vocabulary::Vocabulary,
) -> Vec<(usize, Asked)> {
    let mut out: Vec<(usize, Asked)> = Vec::new();
    // The event a run of say lines follows, and when it arrived.
    let mut context: (Kind, Option<u64>, u64) = (Kind::Other, None, 0);
    let mut previous: Option<(&str, &str, u64)> = None;
    for (i, (at, line)) in log.iter().enumerate() {
        let Some((listener, text)) = said_aloud(line) else {
            context = if line.starts_with("event move ") {
                (Kind::Move, blind_clock_at.get(&i).copied(), *at)
            } else if line.starts_with("event key peg") || line.starts_with("event refused peg") {
                (Kind::KeyAnswer, None, *at)
            } else if line.starts_with("event end ") {
                (Kind::End, None, *at)
            } else {
                (Kind::Other, None, *at)
            };
            if !line.starts_with("event say ") {
                previous = None;
            }
            continue;
        };
        // Says of one step arrive together; a say long after its event is a step of its own
        // (a clock call), whatever came before it.
        let kind = if at.saturating_sub(context.2) <= 20 {
            context.0
        } else {
            Kind::Other
        };
        if let Some((l, t, a)) = previous
            && t == text
            && l != listener
            && at.saturating_sub(a) <= 20
        {
            continue;
        }
        previous = Some((listener, text, *at));
        out.push((
            i,
            Asked {
                spoken: german.pronounce_for_espeak(text),
                kind,
                blind_ms: if kind == Kind::Move { context.1 } else { None },
                asked_at: *at,
                ended_at: None,
                started: false,
                cuts: 0,
                ended: false,
            },
        ));
    }
    out
}

/// The daemon's start announcement ("annabella bereit. Lautsprecher für …", and the page's
/// address when the page is on): the loudspeaker's own, said first, not the table's words.
fn is_start_announcement(text: &str) -> bool {
    text.starts_with("annabella bereit") || text.starts_with("Seite: ")
}

/// Matches the loudspeaker's log against what was asked and fills in the figures.
fn account(
    f: &mut Figures,
    mut asked: Vec<(usize, Asked)>,
    played: &[Played],
    log: &[(u64, String)],
    end: usize,
    flag_at: u64,
    german: &annabella::chess::vocabulary::Vocabulary,
) {
    // Each start belongs to the oldest item with its words not yet said to the end; a start
    // with none left is said more often than asked.
    let mut open: HashMap<u32, usize> = HashMap::new();
    let mut extra_starts: HashMap<u32, bool> = HashMap::new();
    for p in played.iter().filter(|p| !is_start_announcement(&p.text)) {
        match p.what.as_str() {
            "start" => {
                // The speaker says one thing at a time: nothing else is open when this starts.
                match asked
                    .iter()
                    .position(|(_, a)| !a.ended && a.spoken == p.text)
                {
                    Some(k) => {
                        asked[k].1.started = true;
                        open.insert(p.pid, k);
                    }
                    None => {
                        extra_starts.insert(p.pid, true);
                    }
                }
            }
            "cut" => {
                if let Some(k) = open.remove(&p.pid) {
                    asked[k].1.cuts += 1;
                }
            }
            "end" => {
                if extra_starts.remove(&p.pid).is_some() {
                    f.duplicates += 1;
                    f.duplicated.push(p.text.clone());
                } else if let Some(k) = open.remove(&p.pid) {
                    asked[k].1.ended = true;
                    asked[k].1.ended_at = Some(p.at_unix_ms);
                }
                f.said += 1;
            }
            _ => {}
        }
    }
    f.asked = asked.len();
    for (_, a) in &asked {
        let last_minute = a.blind_ms.is_some_and(|ms| ms < LAST_MINUTE_MS);
        match a.kind {
            Kind::Move => {
                f.moves += 1;
                if let Some(end) = a.ended_at {
                    f.move_heard_ms.push(end.saturating_sub(a.asked_at));
                }
                f.moves_last_minute += usize::from(last_minute);
                if !a.started {
                    f.moves_never_said += 1;
                } else if a.cuts > 0 && a.ended {
                    f.moves_cut_repeated += 1;
                } else if !a.ended {
                    f.moves_cut_lost += 1;
                    f.moves_cut_lost_last_minute += usize::from(last_minute);
                }
            }
            Kind::Other if !a.started => f.others_dropped += 1,
            _ => {}
        }
    }
    // Keys: the say right after each key's event, to the blind player (or, for a draw offer
    // and a resignation, to everyone), said to the end.
    for (i, (_, line)) in log.iter().enumerate() {
        if !(line.starts_with("event key peg") || line.starts_with("event refused peg")) {
            continue;
        }
        if i > 0 && log[i - 1].1.starts_with("event key peg") {
            // A refusal right after its key's event is the same press.
            continue;
        }
        let answer = log[i + 1..]
            .iter()
            .take_while(|(_, l)| !l.starts_with("event key peg") || l == line)
            .find_map(|(_, l)| l.strip_prefix("event say ").and_then(|r| r.split_once(' ')));
        let Some((listener, text)) = answer else {
            continue;
        };
        f.keys_answered += 1;
        let draw = line.contains(" draw");
        if listener != "blind" && !(draw && listener == "all") {
            f.keys_answered_to_others += 1;
        }
        let spoken = german.pronounce_for_espeak(text);
        if asked.iter().any(|(_, a)| a.spoken == spoken && a.ended) {
            f.keys_said += 1;
        }
    }
    // The flag: the announcement after the end event, on the loudspeaker.
    let announcement = log[end + 1..]
        .iter()
        .find_map(|(_, l)| said_aloud(l).map(|(_, t)| german.pronounce_for_espeak(t)));
    if let Some(words) = announcement {
        f.flag_to_voice_ms = played
            .iter()
            .find(|p| p.what == "start" && p.text == words && p.at_unix_ms + 1_000 >= flag_at)
            .map(|p| p.at_unix_ms as i64 - flag_at as i64);
    }
}

fn row(name: &str, f: &Figures) -> String {
    let ms = |v: Option<i64>| v.map_or("—".to_owned(), |v| v.to_string());
    let mut heard = f.move_heard_ms.clone();
    heard.sort_unstable();
    let median = heard.get(heard.len() / 2).copied().unwrap_or(0);
    let worst = heard.last().copied().unwrap_or(0);
    format!(
        "| {name} | {}/{} | {} | {} | {} | {} ({}) | {} | {} ({}) | {} | {median} / {worst} | {} | {} | {} | {}/{}/{} ({} to others) | {:.0} s |",
        f.plies_played,
        f.plies,
        f.asked,
        f.said,
        f.duplicates,
        f.moves,
        f.moves_last_minute,
        f.moves_cut_repeated,
        f.moves_cut_lost,
        f.moves_cut_lost_last_minute,
        f.moves_never_said,
        f.others_dropped,
        ms(f.flag_to_event_ms),
        ms(f.flag_to_voice_ms),
        f.keys_pressed,
        f.keys_answered,
        f.keys_said,
        f.keys_answered_to_others,
        f.wall.as_secs_f64(),
    )
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    assert!(
        stand_in::available(),
        "espeak-ng or sox (soxi) is missing: run scripts/ensure-deps.sh"
    );
    let plans: Vec<Plan> = if full {
        let games = plans(3, 60, 80);
        let controls = ["90s+2s", "60s+2s", "75s+3s"];
        games
            .into_iter()
            .zip(controls)
            .enumerate()
            .map(|(i, (moves, tc))| {
                let whites = (moves.len() / 2) as u32;
                // The keys spread over the game, one before every third move of White's.
                let keys = KEYS
                    .iter()
                    .enumerate()
                    .map(|(k, &key)| ((2 + 3 * k as u32).min(whites), key))
                    .collect();
                Plan {
                    name: format!("game-{}", i + 1),
                    moves,
                    time_control: tc,
                    keys,
                    squeeze_to_ms: None,
                }
            })
            .collect()
    } else {
        let moves = plans(1, 60, 12).remove(0);
        let keys = KEYS
            .iter()
            .enumerate()
            .map(|(k, &key)| (1 + k as u32 / 4, key))
            .collect();
        vec![Plan {
            name: "smoke".to_owned(),
            moves,
            time_control: "90s+2s",
            keys,
            squeeze_to_ms: Some(12_000),
        }]
    };
    println!(
        "| game | plies | asked | said | duplicates | moves (in last minute) | cut, said again | cut, lost (in last minute) | never said | move heard ms, median / worst | calls dropped | flag→event ms | flag→voice ms | keys pressed/answered/said | wall |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut all = Vec::new();
    for (i, plan) in plans.iter().enumerate() {
        let f = play(plan, 0x5eed + i as u64);
        println!("{}", row(&plan.name, &f));
        all.push(f);
    }
    let flag_bound_ms = if full { 500 } else { 2_000 };
    let mut missed = Vec::new();
    for (plan, f) in plans.iter().zip(&all) {
        if f.duplicates > 0 {
            missed.push(format!("{}: {} duplicates", plan.name, f.duplicates));
        }
        if f.moves_cut_lost + f.moves_never_said > 0 {
            missed.push(format!(
                "{}: {} moves cut and not said again, {} never said",
                plan.name, f.moves_cut_lost, f.moves_never_said
            ));
        }
        match f.flag_to_voice_ms {
            Some(ms) if ms < flag_bound_ms => {}
            other => missed.push(format!(
                "{}: flag to announcement {other:?} ms (bound {flag_bound_ms})",
                plan.name
            )),
        }
        if f.keys_answered != f.keys_pressed
            || f.keys_said != f.keys_pressed
            || f.keys_answered_to_others > 0
        {
            missed.push(format!(
                "{}: keys pressed {}, answered {}, said {}, answered to others {}",
                plan.name, f.keys_pressed, f.keys_answered, f.keys_said, f.keys_answered_to_others
            ));
        }
    }
    if missed.is_empty() {
        println!("every target met");
    } else {
        for m in &missed {
            eprintln!("target missed: {m}");
        }
        std::process::exit(1);
    }
}
