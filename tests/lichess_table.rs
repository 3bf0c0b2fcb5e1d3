//! A live lichess game at a table (`kind = "lichess"`, issue 26 point 3), end to end: the real
//! daemon, a simulated peg board on a pseudo-terminal, the stand-in loudspeaker, and a fake
//! lichess (tests/common/fake_lichess.rs) that cuts its lines into pieces, drops its streams,
//! goes unreachable, refuses a move, answers 429 and counts every move submitted. The daemon
//! is killed (-9) twice in the middle of the game. Figures: moves sent twice, moves lost, and
//! the time from the fake writing the opponent's move to the loudspeaker starting to say it
//! (docs/servers.md, "A live lichess game at the table").

pub mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::board::SimulatedBoard;
use common::control::ControlClient;
use common::daemon::{Daemon, Serve};
use common::fake_lichess::FakeLichess;
use common::fs::scratch_dir;
use common::stand_in::{self, Played, StandIn};

/// The configuration with the table's own `time_control` (which lichess's game overrides).
fn write_config(dir: &Path, lichess: &str, control: &str) -> PathBuf {
    let path = dir.join("annabella.toml");
    std::fs::write(
        &path,
        format!(
            r#"
[speech]
backends = "espeak-ng"
rate = 400
lang = "en"

[lichess]
url = "{lichess}"
token_env = "ANNABELLA_LICHESS_TOKEN"

[[table]]
name = "live"
kind = "lichess"
peg = "{peg}"
peg_side = "white"
time_control = "{control}"
"#,
            peg = dir.join("peg").display(),
        ),
    )
    .unwrap();
    path
}

fn start(dir: &Path, speaker: &StandIn) -> (Daemon, ControlClient) {
    let path = format!(
        "{}:{}",
        speaker.dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let daemon = Serve::new(&dir.join("state"))
        .config(&dir.join("annabella.toml"))
        .env("PATH", path)
        .env("ANNABELLA_LICHESS_TOKEN", "lip_fake")
        .start();
    let mut watcher = daemon.watching("observer", "live");
    watcher.wait_status("peg connected");
    (daemon, watcher)
}

/// One test's live table: the stand-in loudspeaker, the fake lichess, the peg board on a
/// pseudo-terminal, the daemon with an observer watching the table, and one player's
/// connection at it (`role`).
struct Live {
    dir: PathBuf,
    speaker: StandIn,
    fake: FakeLichess,
    board: SimulatedBoard,
    daemon: Daemon,
    watcher: ControlClient,
    player: ControlClient,
}

/// Starts a test's live table in `scratch_dir(name)` with the table's `control`; `split`
/// makes lichess split its lines anywhere from the start.
fn open_live(name: &str, control: &str, role: &str, split: bool) -> Live {
    assert!(
        stand_in::available(),
        "espeak-ng or sox (soxi) is missing: run scripts/ensure-deps.sh"
    );
    let dir = scratch_dir(name);
    let speaker = StandIn::create(&dir.join("bin")).unwrap();
    let fake = FakeLichess::start();
    fake.split_lines(split);
    write_config(&dir, &fake.url, control);
    let board = SimulatedBoard::on_pty("peg", &dir.join("peg"), &[]);
    let (daemon, watcher) = start(&dir, &speaker);
    let mut player = daemon.connect(role);
    assert_eq!(player.ask("table live"), "ok table live");
    Live {
        dir,
        speaker,
        fake,
        board,
        daemon,
        watcher,
        player,
    }
}

/// Waits until the blind player hears words starting with `start`; returns them.
fn blind_hears(watcher: &ControlClient, start: &str) -> String {
    let line = watcher.expect_event(start, |l| {
        l.strip_prefix("event say blind ")
            .is_some_and(|said| said.starts_with(start))
    });
    line.trim_start_matches("event say blind ").to_owned()
}

/// Waits until the loudspeaker has said everything it started.
fn quiet(speaker: &StandIn) {
    speaker.wait_until(Duration::from_secs(120), |p| {
        p.iter()
            .filter(|s| s.what == "start")
            .all(|s| p.iter().any(|e| e.pid == s.pid && e.what != "start"))
    });
}

/// The opponent plays `uci` while the loudspeaker is quiet; returns the milliseconds from the
/// fake writing it to the loudspeaker starting to say it.
fn opponent_moves(
    fake: &FakeLichess,
    speaker: &StandIn,
    watcher: &ControlClient,
    uci: &str,
    ply: usize,
) -> u64 {
    quiet(speaker);
    let before = speaker.played().len();
    fake.opponent_moves(uci, 890_000);
    watcher.expect_event(uci, |l| {
        l.starts_with(&format!("event move {ply} ")) && l.contains(uci)
    });
    let written = fake.seen(|s| {
        s.written_at
            .iter()
            .rev()
            .find(|(m, _)| m == uci)
            .map(|(_, t)| *t)
    });
    let written = written.expect("the fake wrote the move");
    let played: Vec<Played> = speaker.wait_until(Duration::from_secs(60), |p| {
        p[before.min(p.len())..].iter().any(|s| s.what == "start")
    });
    let started = played[before..]
        .iter()
        .find(|s| s.what == "start")
        .expect("the move was said");
    started.at_unix_ms.saturating_sub(written)
}

/// How many half-moves the table and lichess differ by (the table's `ply` against lichess's
/// move list; the lists themselves are compared at the end of the game).
fn same_game(fake: &FakeLichess, watcher: &mut ControlClient) -> usize {
    let moves = fake.game().expect("a game").moves;
    let status = watcher.ask("status");
    let ply = status
        .split_whitespace()
        .skip_while(|w| *w != "ply")
        .nth(1)
        .and_then(|n| n.parse::<usize>().ok());
    (moves.len() as isize - ply.unwrap_or(0) as isize).unsigned_abs()
}

#[test]
fn a_lichess_game_survives_split_lines_a_lost_connection_a_refusal_and_two_kills() {
    let Live {
        dir,
        speaker,
        fake,
        mut board,
        daemon,
        mut watcher,
        player: mut white,
    } = open_live("lichess-table", "900+10", "white", true);

    // The seek, held open until lichess pairs it; the game starts on the table.
    assert_eq!(white.ask("seek 15+10"), "ok seeking 15+10 casual");
    blind_hears(
        &watcher,
        "Looking for an opponent on lichess, 15 minutes plus 10 seconds",
    );
    fake.wait("the seek", |s, _| s.seeks.len() == 1);
    assert!(fake.seen(|s| s.seeks[0].contains("time=15") && s.seeks[0].contains("color=white")));
    fake.pair("g4me0001", true);
    blind_hears(
        &watcher,
        "Game on lichess against Bob, rating 1500, 15 minutes plus 10 seconds",
    );

    // His move goes out; the opponent's comes in, announced and guided on his board.
    board.hand("e2e4");
    fake.wait("e2e4", |_, g| g.is_some_and(|g| g.moves == ["e2e4"]));
    let mut latencies = vec![opponent_moves(&fake, &speaker, &watcher, "e7e5", 2)];
    board.hand("e7e5");
    watcher.wait_status("peg connected in-sync");

    // lichess unreachable: he hears it once; his move waits and goes out when it is back.
    fake.offline(true);
    blind_hears(&watcher, "The connection to lichess has dropped");
    board.hand("g1f3");
    watcher.expect_event("Nf3", |l| l.starts_with("event move 3 white g1f3"));
    fake.wait("g1f3 tried", |s, _| {
        s.move_posts.iter().any(|(m, st)| m == "g1f3" && *st == 503)
    });
    fake.offline(false);
    blind_hears(&watcher, "The connection to lichess is back");
    fake.wait("g1f3", |_, g| g.is_some_and(|g| g.moves.len() == 3));
    latencies.push(opponent_moves(&fake, &speaker, &watcher, "b8c6", 4));
    board.hand("b8c6");
    watcher.wait_status("peg connected in-sync");

    // Killed with his move journaled and lichess unreachable: sent after the restart, once.
    fake.offline(true);
    board.hand("f1c4");
    watcher.expect_event("Bc4", |l| l.starts_with("event move 5 white f1c4"));
    fake.wait("f1c4 tried", |s, _| {
        s.move_posts.iter().any(|(m, _)| m == "f1c4")
    });
    daemon.kill9();
    fake.offline(false);
    let (daemon, mut watcher) = start(&dir, &speaker);
    fake.wait("f1c4 after the restart", |_, g| {
        g.is_some_and(|g| g.moves.len() == 5)
    });
    latencies.push(opponent_moves(&fake, &speaker, &watcher, "g8f6", 6));
    board.hand("g8f6");
    watcher.wait_status("peg connected in-sync");

    // Killed again with everything confirmed: nothing is sent twice, nothing lost.
    let posts = fake.seen(|s| s.move_posts.len());
    let streams = fake.seen(|s| s.game_streams);
    daemon.kill9();
    let (daemon, mut watcher) = start(&dir, &speaker);
    fake.wait("the game stream again", |s, _| s.game_streams > streams);
    watcher.wait_status("peg connected in-sync");
    assert_eq!(
        same_game(&fake, &mut watcher),
        0,
        "{}",
        watcher.ask("status")
    );

    // A move lichess refuses: told, taken back on the table, his board guided back.
    fake.refuse_next_move();
    board.hand("d2d3");
    blind_hears(&watcher, "lichess refused your move");
    watcher.expect_event("the withdrawal", |l| l.starts_with("event undo d2d3"));
    // His hand puts the pawn back (the simulator set up as the table's position).
    board.hand("fen r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4");
    watcher.wait_status("peg connected in-sync");
    board.hand("d2d4");
    fake.wait("d2d4", |_, g| g.is_some_and(|g| g.moves.len() == 7));
    latencies.push(opponent_moves(&fake, &speaker, &watcher, "e5d4", 8));
    board.hand("e5d4");
    watcher.wait_status("peg connected in-sync");

    // The opponent leaves: told with the time; KC claims the win once it may be claimed.
    fake.opponent_gone(true, 10);
    blind_hears(
        &watcher,
        "Your opponent has left the game. You may claim the win in",
    );
    board.hand("key C");
    blind_hears(&watcher, "You may claim the win in");
    let mut tries = 0;
    while !fake.seen(|s| s.commands.iter().any(|c| c == "claim-victory")) || tries == 0 {
        std::thread::sleep(Duration::from_millis(1000));
        board.hand("key C");
        tries += 1;
        assert!(tries < 60, "the claim never went out");
    }
    watcher.expect_event("the end", |l| l.starts_with("event end 1-0"));
    assert!(watcher.ask("status").contains("result 1-0"));

    let (duplicates, posts_after, accepted) = fake.seen(|s| {
        (
            s.duplicates,
            s.move_posts.len(),
            s.move_posts.iter().filter(|(_, st)| *st == 200).count(),
        )
    });
    let moves = fake.game().unwrap().moves;
    let lost = same_game(&fake, &mut watcher);
    assert_eq!(lost, 0, "the table and lichess hold different games");
    assert_eq!(duplicates, 0, "moves sent twice");
    assert_eq!(
        accepted, 4,
        "his moves e4 Nf3 Bc4 d4 each taken once: {moves:?}"
    );
    assert_eq!(
        moves,
        [
            "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d4", "e5d4"
        ]
    );
    assert!(posts_after > posts);
    latencies.sort_unstable();
    eprintln!(
        "lichess figures: moves sent twice {duplicates}, moves lost {lost}, {} submissions \
         ({accepted} taken); server's move to the loudspeaker: {latencies:?} ms \
         (median {} ms, max {} ms)",
        posts_after,
        latencies[latencies.len() / 2],
        latencies[latencies.len() - 1]
    );
    drop(daemon);
}

#[test]
fn a_seek_below_rapid_is_refused_at_once_and_a_429_is_said() {
    let Live {
        dir: _dir,
        speaker: _speaker,
        fake,
        board: _board,
        daemon: _daemon,
        watcher,
        player: mut assistant,
    } = open_live("lichess-seek", "900+10", "assistant", false);
    let refused = assistant.ask("seek 5+3");
    assert!(
        refused.starts_with("error state 5+3 is blitz (420 s estimated)"),
        "{refused}"
    );
    blind_hears(
        &watcher,
        "lichess does not let a board seek 5 minutes plus 3 seconds",
    );
    assert_eq!(fake.seen(|s| s.seeks.len()), 0, "nothing went to lichess");
    // A seek he no longer wants: cancelled, its connection closed.
    assert_eq!(assistant.ask("seek 15+10"), "ok seeking 15+10 casual");
    fake.wait("the seek", |s, _| s.seeks.len() == 1);
    assert!(fake.seek_held());
    assert_eq!(assistant.ask("seek cancel"), "ok seek cancelled");
    blind_hears(&watcher, "Seek cancelled");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while fake.seek_held() {
        assert!(
            std::time::Instant::now() < deadline,
            "the seek's connection stays open"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        assistant.ask("seek cancel"),
        "error state no seek is running"
    );
    assert!(
        assistant
            .ask("challenge bob 1+0")
            .starts_with("error state")
    );

    fake.rate_limit_next_post();
    let answer = assistant.ask("challenge bob 30+20");
    assert!(answer.starts_with("error state lichess:"), "{answer}");
    blind_hears(&watcher, "lichess asks us to wait");
    fake.event(serde_json::json!({
        "type": "challengeDeclined",
        "challenge": {"id": "c1", "destUser": {"id": "bob", "name": "Bob"}, "declineReason": "Not now"},
    }));
    blind_hears(&watcher, "Bob has declined the challenge");
}

#[test]
fn a_silent_stream_is_opened_again_the_clocks_follow_lichess_and_kd_accepts_a_draw() {
    // A configured control with a move period, which lichess's game has not.
    let Live {
        dir: _dir,
        speaker: _speaker,
        fake,
        mut board,
        daemon: _daemon,
        mut watcher,
        player: mut white,
    } = open_live("lichess-draw", "40/5400+30:1800+30", "white", false);
    assert_eq!(white.ask("seek 30+20 rated"), "ok seeking 30+20 rated");
    fake.wait("the seek", |s, _| s.seeks.len() == 1);
    assert!(fake.seen(|s| s.seeks[0].contains("rated=true")));
    fake.pair("g4me0002", true);
    blind_hears(&watcher, "Game on lichess against Bob");
    board.hand("e2e4");
    fake.wait("e2e4", |_, g| g.is_some_and(|g| g.moves == ["e2e4"]));

    // The talking clock follows lichess's: Black has 10 minutes left after his move.
    fake.opponent_moves("e7e5", 600_000);
    watcher.expect_event("e5", |l| l.starts_with("event move 2 black e7e5"));
    board.hand("e7e5");
    watcher.wait_status("peg connected in-sync");
    let clock = watcher.ask("clock quiet");
    assert!(
        clock.contains("black 0:10:00") || clock.contains("black 0:09:59"),
        "{clock}"
    );
    // KT: lichess's clocks, and no move period the configuration's control would have.
    board.hand("key T");
    let said = blind_hears(&watcher, "White");
    assert!(!said.contains("time control"), "{said}");

    // Silence, keep-alives too: after 15 s the stream is taken for dead and opened again.
    let opened = fake.seen(|s| s.game_streams);
    let silent_at = std::time::Instant::now();
    fake.silent(true);
    blind_hears(&watcher, "The connection to lichess has dropped");
    let noticed = silent_at.elapsed();
    // 15 s after the last byte, which came at most one keep-alive period (6 s) before.
    assert!(noticed >= Duration::from_secs(9), "{noticed:?}");
    fake.wait("the stream opened again", |s, _| s.game_streams > opened);
    fake.silent(false);
    blind_hears(&watcher, "The connection to lichess is back");
    eprintln!("lichess figures: a silent stream noticed after {noticed:?}");

    // The opponent's offer is told; KD accepts it on lichess.
    fake.opponent_offers_draw();
    watcher.expect_event("the offer", |l| l == "event draw-offer black");
    board.hand("key D");
    fake.wait("draw/yes", |s, g| {
        s.commands.iter().any(|c| c == "draw/yes") && g.is_some_and(|g| g.status == "draw")
    });
    watcher.wait_status("result 1/2-1/2");
    assert_eq!(fake.seen(|s| s.duplicates), 0);
}

#[test]
fn a_challenge_a_move_answered_429_sent_once_after_the_pause_and_kx_kx_resigning() {
    let Live {
        dir: _dir,
        speaker: _speaker,
        fake,
        mut board,
        daemon: _daemon,
        mut watcher,
        player: mut white,
    } = open_live("lichess-429", "900+10", "white", false);
    // A challenge may be Blitz; lichess has it, he hears it was sent.
    assert_eq!(white.ask("challenge bob 5+3"), "ok challenged bob 5+3");
    blind_hears(&watcher, "Challenge sent to bob, 5 minutes plus 3 seconds");
    assert!(fake.seen(|s| s.challenges[0].contains("clock.limit=300")
        && s.challenges[0].contains("clock.increment=3")));
    fake.pair("g4me0003", true);
    blind_hears(&watcher, "Game on lichess against Bob");
    fake.rate_limit_next_post();
    board.hand("d2d4");
    blind_hears(
        &watcher,
        "lichess asks us to wait. I will try again in one minute",
    );
    let asked = std::time::Instant::now();
    fake.wait("d2d4 after the pause", |_, g| {
        g.is_some_and(|g| g.moves == ["d2d4"])
    });
    let waited = asked.elapsed();
    assert!(waited >= Duration::from_secs(58), "{waited:?}");
    let posts = fake.seen(|s| s.move_posts.clone());
    assert_eq!(
        posts,
        [("d2d4".to_owned(), 429), ("d2d4".to_owned(), 200)],
        "tried once, sent once after the pause"
    );
    assert_eq!(fake.seen(|s| s.duplicates), 0);
    eprintln!("lichess figures: a move answered 429 sent again after {waited:?}");

    // The opponent leaves and comes back; then KX KX resigns on lichess.
    fake.opponent_gone(true, 30);
    blind_hears(&watcher, "Your opponent has left the game");
    fake.opponent_gone(false, 0);
    blind_hears(&watcher, "Your opponent is back");
    board.hand("key X");
    board.hand("key X");
    fake.wait("the resignation", |s, g| {
        s.commands.iter().any(|c| c == "resign") && g.is_some_and(|g| g.status == "resign")
    });
    watcher.wait_status("result 0-1");
}

#[test]
fn an_aborted_game_is_taken_back_and_the_next_one_starts() {
    let Live {
        dir: _dir,
        speaker: _speaker,
        fake,
        mut board,
        daemon: _daemon,
        mut watcher,
        player: mut white,
    } = open_live("lichess-abort", "900+10", "white", false);
    assert_eq!(white.ask("seek 15+10"), "ok seeking 15+10 casual");
    fake.wait("the seek", |s, _| s.seeks.len() == 1);
    fake.pair("g4me0004", true);
    blind_hears(&watcher, "Game on lichess against Bob");
    board.hand("e2e4");
    fake.wait("e2e4", |_, g| g.is_some_and(|g| g.moves == ["e2e4"]));
    // Bob never moves: lichess aborts the game, which never counted.
    fake.abort();
    blind_hears(&watcher, "The game was aborted on lichess");
    watcher.wait_status("ply 0 turn white result *");
    board.hand("start");
    watcher.wait_status("peg connected in-sync");
    assert_eq!(white.ask("seek 15+10"), "ok seeking 15+10 casual");
    fake.wait("the second seek", |s, _| s.seeks.len() == 2);
    fake.pair("g4me0005", true);
    blind_hears(&watcher, "Game on lichess against Bob");
    board.hand("d2d4");
    fake.wait("d2d4", |_, g| {
        g.is_some_and(|g| g.id == "g4me0005" && g.moves == ["d2d4"])
    });
    assert_eq!(fake.seen(|s| s.duplicates), 0);
}

/// The event stream names every game of the account: a correspondence game (the desk's) and a
/// second live game begun on the website never take the table from the game he plays.
#[test]
fn games_of_the_desk_and_of_the_website_leave_the_table_its_game() {
    let Live {
        dir: _dir,
        speaker,
        fake,
        mut board,
        daemon: _daemon,
        watcher,
        player: mut white,
    } = open_live("lichess-others", "900+10", "white", false);
    assert_eq!(white.ask("seek 15+10"), "ok seeking 15+10 casual");
    fake.wait("the seek", |s, _| {
        s.seeks.len() == 1 && s.event_streams >= 1
    });
    let other = |id: &str, speed: &str| {
        serde_json::json!({"type": "gameStart", "game": {
            "fullId": format!("{id}wxyz"), "gameId": id, "id": id,
            "fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "color": "white", "lastMove": "", "source": "friend",
            "variant": {"key": "standard", "name": "Standard"},
            "speed": speed, "perf": speed, "rated": false, "hasMoved": false,
            "opponent": {"id": "carl", "username": "Carl", "rating": 1400},
            "isMyTurn": true, "secondsLeft": 259200,
            "compat": {"bot": false, "board": true}}})
    };
    // A correspondence game of his, named while he waits for his seek.
    fake.event(other("c0rresp1", "correspondence"));
    fake.pair("g4me0006", true);
    blind_hears(&watcher, "Game on lichess against Bob");
    // A rapid game begun on the website while he plays this one.
    fake.event(other("w3bs1te1", "rapid"));
    board.hand("e2e4");
    fake.wait("e2e4", |_, g| {
        g.is_some_and(|g| g.id == "g4me0006" && g.moves == ["e2e4"])
    });
    opponent_moves(&fake, &speaker, &watcher, "e7e5", 2);
    board.hand("e7e5");
    board.hand("g1f3");
    fake.wait("g1f3", |_, g| g.is_some_and(|g| g.moves.len() == 3));
    assert_eq!(
        fake.seen(|s| s.game_streams),
        1,
        "only his game's stream was opened"
    );
    assert_eq!(fake.seen(|s| s.duplicates), 0);
}

/// A command lichess never got is told as lichess out of reach, not as refused: trying again
/// later may work.
#[test]
fn a_challenge_while_lichess_is_down_is_told_as_unreachable() {
    let Live {
        dir: _dir,
        speaker: _speaker,
        fake,
        board: _board,
        daemon: _daemon,
        watcher,
        player: mut white,
    } = open_live("lichess-down", "900+10", "white", false);
    fake.offline(true);
    let answer = white.ask("challenge bob 30+20");
    assert!(answer.starts_with("error state lichess:"), "{answer}");
    blind_hears(
        &watcher,
        "lichess cannot be reached; please try again later.",
    );
    fake.offline(false);
    assert_eq!(white.ask("challenge bob 30+20"), "ok challenged bob 30+20");
}
