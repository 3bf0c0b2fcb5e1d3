//! A lichess correspondence game at the correspondence desk through the real daemon: an
//! in-process lichess (`common::fake_lichess_corr`) lists the account's games, the
//! correspondence one becomes a desk table (`lichess-<id>`), its moves read from the first line
//! of its stream; the blind player's moves, released with `KS` on a simulated peg board, are
//! posted once across a kill -9 with lichess down and a start while it is unreachable; his
//! resignation is posted once. Every submission is counted.

pub mod common;

use std::path::{Path, PathBuf};
use std::time::Instant;

use common::board::SimulatedBoard;
use common::daemon::Daemon;
use common::fake_lichess_corr::{CorrGame, FakeLichessCorr};
use common::fs::scratch_dir;
use common::server_desk::{desk_config, peg_move, said, start_with_secret, until};
use shakmaty::Color;

const TOKEN: &str = "lip_test_token";

fn config(dir: &Path, peg: &Path, url: &str) -> PathBuf {
    let server = format!(
        "[lichess]\nurl = \"{url}\"\ntoken_env = \"ANNABELLA_LICHESS_TOKEN\"\npoll_s = 2\n"
    );
    desk_config(dir, peg, &server)
}

fn start(dir: &Path, config: &Path) -> Daemon {
    start_with_secret(dir, config, "ANNABELLA_LICHESS_TOKEN", TOKEN)
}

#[test]
fn a_lichess_correspondence_game_posts_each_move_once_across_a_kill_and_lichess_down() {
    let dir = scratch_dir("lichess-corr");
    let fake = FakeLichessCorr::start(
        TOKEN,
        vec![
            CorrGame::new("abcd1234", Color::White, "Bob"),
            CorrGame::new("efgh5678", Color::Black, "Carol"),
        ],
    );
    let link = dir.join("peg");
    let mut board = SimulatedBoard::on_pty("peg", &link, &[]);
    let config = config(&dir, &link, &fake.url());
    let daemon = start(&dir, &config);
    said(
        &dir,
        "lichess-abcd1234, lichess: Anna against Bob. You have 14 days 0 hours, your opponent 14 days. White to move",
        1,
    );
    let mut c = daemon.watching("assistant", "lichess-abcd1234");
    assert_eq!(c.ask("focus lichess-abcd1234"), "ok focus lichess-abcd1234");
    c.expect_event("the board taken", |l| l == "event desk ready");

    peg_move(&mut board, "e2", "e4");
    c.expect_event("his move", |l| l.starts_with("event move 1 white e2e4"));
    board.hand("key S");
    until("1. e4 on lichess", || fake.moves("abcd1234") == ["e2e4"]);

    let moved = Instant::now();
    fake.opponent_moves("abcd1234", "e7e5");
    c.expect_event("Bob's move", |l| l.starts_with("event move 2 black e7e5"));
    let to_ear = moved.elapsed();
    peg_move(&mut board, "e7", "e5");
    c.heard("all right");

    // 2. Nf3 released while lichess is down; kill -9; a start with lichess still down.
    peg_move(&mut board, "g1", "f3");
    c.expect_event("his move", |l| l.starts_with("event move 3 white g1f3"));
    fake.set_down(true);
    board.hand("key S");
    until("2. Nf3 tried while down", || {
        fake.submissions().iter().any(|s| s.1 == 503)
    });
    drop(c);
    daemon.kill9();
    let daemon = start(&dir, &config);
    let mut c = daemon.watching("assistant", "lichess-abcd1234");
    c.wait_status("ply 3");
    said(&dir, "The lichess server cannot be reached", 1);
    fake.set_down(false);
    until("2. Nf3 on lichess", || {
        fake.moves("abcd1234") == ["e2e4", "e7e5", "g1f3"]
    });

    // KC: lichess takes no claim from a board; he hears what it does instead, and the game
    // goes on at the table as on lichess (the resignation below ends it).
    c.wait_status("peg connected");
    board.hand("key C");
    said(&dir, "lichess takes no draw claim from a board", 1);

    // Bob to move, and KX KX resigns (a resignation needs no turn): posted once.
    board.hand("key X");
    c.expect_event("the first KX", |l| l.starts_with("event key peg resign"));
    board.hand("key X");
    c.expect_event("his resignation", |l| l.starts_with("event end 0-1"));
    until("the resignation on lichess", || {
        fake.status("abcd1234") == "resign"
    });
    let polls = fake.polls();
    until("two more lists", || fake.polls() >= polls + 2);

    // Carol resigns the other game: it leaves the playing list, and its end is recorded.
    let carol = daemon.watching("assistant", "lichess-efgh5678");
    fake.opponent_resigns("efgh5678");
    carol.expect_event("Carol's resignation", |l| l.starts_with("event end 0-1"));
    // Both games ended and left the playing list: forgotten, their tables not made again at
    // the next start.
    let known = dir.join("state").join("server-games");
    until("the finished games forgotten", || {
        let text = std::fs::read_to_string(&known).unwrap_or_default();
        !text.contains("efgh5678") && !text.contains("abcd1234")
    });
    let marks = dir.join("state").join("server-out");
    until("every call decided", || {
        std::fs::read_dir(&marks).map_or(true, |d| d.flatten().next().is_none())
    });

    let done: Vec<String> = fake
        .submissions()
        .iter()
        .filter(|s| s.1 == 200)
        .map(|s| s.0.clone())
        .collect();
    assert_eq!(
        done,
        [
            "abcd1234/move/e2e4",
            "abcd1234/move/g1f3",
            "abcd1234/resign/"
        ],
        "each once: {:#?}",
        fake.submissions()
    );
    assert!(
        !fake.submissions().iter().any(|s| s.1 == 400),
        "nothing refused for its turn: {:#?}",
        fake.submissions()
    );
    eprintln!(
        "lichess figures: submissions {}, moves sent twice 0, moves lost 0, server move to his ear {} ms (poll 2 s)",
        fake.submissions().len(),
        to_ear.as_millis()
    );
}
