//! ICCF's server (XFCC) at the correspondence desk through the real daemon: an in-process XFCC
//! server (`common::fake_xfcc`, SOAP 1.1 as ICCF's operation pages give it) lists the
//! account's games, which become desk tables (`xfcc-<id>`) on their own; the blind player
//! plays on a simulated peg board on a pseudo-terminal, each move released with `KS` and sent
//! as `MakeAMove`; the opponent's moves come from the server's list. A kill -9 with his move
//! marked but the server down, a start with the server unreachable, an answer lost after the
//! server played the move, and a refusal told in his words: every move reaches the server
//! exactly once (counted by the server), none is lost.

pub mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use common::board::SimulatedBoard;
use common::control::ControlClient;
use common::daemon::Daemon;
use common::fake_xfcc::{FakeGame, FakeXfcc};
use common::fs::scratch_dir;
use common::server_desk::{desk_config, peg_move, said, start_with_secret, until};

const PASSWORD: &str = "s3cret&<pw>";

fn config(dir: &Path, peg: &Path, url: &str) -> PathBuf {
    config_polling(dir, peg, url, 2)
}

fn config_polling(dir: &Path, peg: &Path, url: &str, poll_s: u64) -> PathBuf {
    let server = format!(
        "[xfcc]\nurl = \"{url}\"\nuser = \"anna\"\npassword_env = \"ANNABELLA_XFCC_PASSWORD\"\npoll_s = {poll_s}\n"
    );
    desk_config(dir, peg, &server)
}

fn start(dir: &Path, config: &Path) -> Daemon {
    start_with_secret(dir, config, "ANNABELLA_XFCC_PASSWORD", PASSWORD)
}

/// Follows the desk's set-up instructions until it says the board is ready.
fn follow_set_up(board: &mut SimulatedBoard, c: &ControlClient) {
    for _ in 0..64 {
        let line = c.expect_event("the desk's set-up", |l| {
            l.starts_with("event desk set-up ") || l == "event desk ready"
        });
        if line == "event desk ready" {
            return;
        }
        let code = line.split_whitespace().nth(4).expect("a code");
        let (kind, rest) = code.split_once(':').unwrap();
        let square = |s: &str| s[s.len() - 2..].to_owned();
        match kind {
            "move" | "aside" => {
                let (from, to) = rest.split_once(':').unwrap();
                board.hand(&format!("raw L{}", square(from)));
                board.hand(&format!("raw P{to}"));
            }
            "remove" => board.hand(&format!("raw L{}", square(rest))),
            "place" => board.hand(&format!("raw P{}", square(rest))),
            "check" => {
                board.hand(&format!("raw L{}", square(rest)));
                board.hand(&format!("raw P{}", square(rest)));
            }
            other => panic!("unknown instruction {other}: {line}"),
        }
    }
    panic!("the set-up never ends");
}

#[test]
fn an_xfcc_game_at_the_desk_sends_each_move_once_across_a_kill_and_the_server_down() {
    let dir = scratch_dir("xfcc-desk");
    let fake = FakeXfcc::start(
        "anna",
        PASSWORD,
        vec![FakeGame::new(4711, true, "Anna Blind", "Carol King")],
    );
    let link = dir.join("peg");
    let mut board = SimulatedBoard::on_pty("peg", &link, &[]);
    let config = config(&dir, &link, &fake.url());
    let daemon = start(&dir, &config);

    // The server's game is a desk game of its own, its players, event and days told.
    said(
        &dir,
        "xfcc-4711, WS/M/1234: Anna Blind against Carol King. You have 30 days 5 hours, your opponent 41 days. White to move",
        1,
    );
    let mut c = daemon.watching("assistant", "xfcc-4711");
    assert_eq!(c.ask("focus xfcc-4711"), "ok focus xfcc-4711");
    c.expect_event("the board taken", |l| l == "event desk ready");

    // 1. e4, released with KS: sent once, with movecount 1.
    peg_move(&mut board, "e2", "e4");
    c.expect_event("his move", |l| l.starts_with("event move 1 white e2e4"));
    board.hand("key S");
    until("1. e4 on the server", || fake.moves(4711) == ["e4"]);
    said(&dir, "Move sent to the server", 1);

    // Carol's 1... e5 on the server reaches his ear within a poll.
    let moved = Instant::now();
    fake.opponent_moves(4711, "e5");
    c.expect_event("Carol's move", |l| l.starts_with("event move 2 black e7e5"));
    let to_ear = moved.elapsed();
    peg_move(&mut board, "e7", "e5");
    c.heard("all right");

    // 2. Nf3 released while the server is down: the call fails, its mark stays; kill -9.
    peg_move(&mut board, "g1", "f3");
    c.expect_event("his move", |l| l.starts_with("event move 3 white g1f3"));
    fake.set_down(true);
    board.hand("key S");
    until("2. Nf3 tried while the server is down", || {
        fake.submissions()
            .iter()
            .any(|s| s.1 == 2 && s.2 == "Nf3" && s.3 == "503")
    });
    drop(c);
    daemon.kill9();

    // A start with the server still down: the table is there before any answer.
    let daemon = start(&dir, &config);
    let mut c = daemon.watching("assistant", "xfcc-4711");
    c.wait_status("ply 3");
    // The board comes back to the game he was at.
    c.wait_status("peg connected in-sync");
    said(&dir, "The ICCF server cannot be reached", 1);
    assert_eq!(fake.moves(4711), ["e4", "e5"], "nothing reached the server");

    // The server back: the list shows 2. Nf3 missing, his turn: sent again, once.
    fake.set_down(false);
    until("2. Nf3 on the server", || {
        fake.moves(4711) == ["e4", "e5", "Nf3"]
    });
    said(&dir, "The ICCF server answers again", 1);

    // 2... Nc6; 3. Bb5 is played by the server but its answer is lost: the next list shows
    // it, so it is never sent again.
    fake.opponent_moves(4711, "Nc6");
    c.expect_event("Carol's move", |l| l.starts_with("event move 4 black b8c6"));
    peg_move(&mut board, "b8", "c6");
    peg_move(&mut board, "f1", "b5");
    c.expect_event("his move", |l| l.starts_with("event move 5 white f1b5"));
    fake.swallow_next_answer();
    board.hand("key S");
    until("3. Bb5 on the server", || fake.moves(4711).len() == 5);
    let polls = fake.polls();
    until("two more lists", || fake.polls() >= polls + 2);

    // A refusal is told in his words and not sent again: 3... a6, 4. Ba4 answered
    // YouAreOnLeave.
    fake.opponent_moves(4711, "a6");
    c.expect_event("Carol's move", |l| l.starts_with("event move 6 black a7a6"));
    peg_move(&mut board, "a7", "a6");
    peg_move(&mut board, "b5", "a4");
    c.expect_event("his move", |l| l.starts_with("event move 7 white b5a4"));
    fake.force_next("YouAreOnLeave");
    board.hand("key S");
    said(&dir, "The server says you are on leave", 1);
    let polls = fake.polls();
    until("two more lists", || fake.polls() >= polls + 2);

    // The count: each move the server played was sent once; nothing refused for its number
    // or turn; nothing lost (the server has every move he released before the refusal).
    let subs = fake.submissions();
    let played: Vec<_> = subs
        .iter()
        .filter(|s| s.3.starts_with("Success"))
        .map(|s| (s.1, s.2.clone()))
        .collect();
    assert_eq!(
        played,
        [
            (1, "e4".to_owned()),
            (2, "Nf3".to_owned()),
            (3, "Bb5".to_owned())
        ],
        "{subs:#?}"
    );
    assert!(
        !subs
            .iter()
            .any(|s| s.3 == "InvalidMoveNumber" || s.3 == "NotYourTurn"),
        "{subs:#?}"
    );
    let on_leave = subs.iter().filter(|s| s.3 == "YouAreOnLeave").count();
    assert_eq!(on_leave, 1, "a refused move is not sent again: {subs:#?}");
    assert_eq!(fake.moves(4711), ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
    eprintln!(
        "xfcc figures: calls {}, moves sent twice 0, moves lost 0, server move to his ear {} ms (poll 2 s)",
        subs.len(),
        to_ear.as_millis()
    );
}

#[test]
fn as_black_his_moves_carry_the_full_move_number_and_a_resignation_is_sent_once() {
    let dir = scratch_dir("xfcc-black");
    let mut game = FakeGame::new(4712, false, "Dora Klein", "Anna Blind");
    game.moves = vec!["d4".to_owned()];
    game.message = "Good luck & have fun".to_owned();
    let fake = FakeXfcc::start("anna", PASSWORD, Vec::new());
    let link = dir.join("peg");
    let mut board = SimulatedBoard::on_pty("peg", &link, &[]);
    let config = config(&dir, &link, &fake.url());
    let daemon = start(&dir, &config);
    // A connection open before the game exists reaches its table once the server lists it.
    let mut early = daemon.connect("assistant");
    let polls = fake.polls();
    until("a list without games", || fake.polls() > polls);
    fake.add_game(game);
    said(&dir, "Message from your opponent: Good luck & have fun", 1);
    assert_eq!(early.ask("table xfcc-4712"), "ok table xfcc-4712");
    let mut c = daemon.watching("assistant", "xfcc-4712");
    c.wait_status("ply 1");
    assert_eq!(
        c.ask("message"),
        "ok message Good luck & have fun",
        "KM reads the server's message"
    );
    assert_eq!(c.ask("focus xfcc-4712"), "ok focus xfcc-4712");
    follow_set_up(&mut board, &c);

    // 1... d5: Black's first move is number 1.
    peg_move(&mut board, "d7", "d5");
    c.expect_event("his move", |l| l.starts_with("event move 2 black d7d5"));
    board.hand("key S");
    until("1... d5 on the server", || fake.moves(4712).len() == 2);

    // 2. c4 with a draw offer: told; his 2... e6 declines it and is number 2.
    fake.opponent_moves(4712, "c4");
    fake.edit(4712, |g| g.draw_offered = true);
    c.expect_event("Dora's move", |l| l.starts_with("event move 3 white c2c4"));
    c.expect_event("her offer", |l| l == "event draw-offer white");
    peg_move(&mut board, "c2", "c4");
    c.heard("all right");
    peg_move(&mut board, "e7", "e6");
    c.expect_event("his move", |l| l.starts_with("event move 4 black e7e6"));
    board.hand("key S");
    until("2... e6 on the server", || fake.moves(4712).len() == 4);

    // 3. Nc3; KX KX resigns: the resignation goes out once, the game ends on the server.
    fake.opponent_moves(4712, "Nc3");
    c.expect_event("Dora's move", |l| l.starts_with("event move 5 white b1c3"));
    peg_move(&mut board, "b1", "c3");
    c.heard("all right");
    board.hand("key X");
    c.expect_event("the first KX", |l| l.starts_with("event key peg resign"));
    board.hand("key X");
    c.expect_event("his resignation", |l| l.starts_with("event end 1-0"));
    until("the resignation on the server", || {
        fake.submissions().iter().any(|s| s.2.is_empty())
    });
    let polls = fake.polls();
    until("two more lists", || fake.polls() >= polls + 2);
    let subs = fake.submissions();
    let sent: Vec<_> = subs
        .iter()
        .map(|s| (s.1, s.2.clone(), s.3.clone()))
        .collect();
    assert_eq!(
        sent,
        [
            (1, "d5".to_owned(), "Success".to_owned()),
            (2, "e6".to_owned(), "Success".to_owned()),
            (3, String::new(), "Success".to_owned()),
        ],
        "each call once, Black's second move numbered 2"
    );
    let marks = dir.join("state").join("server-out");
    let left: Vec<_> = fs::read_dir(&marks)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "every call decided: {left:?}");

    // The finished game leaves the server's list: forgotten, its table not made again after a
    // restart (its game is in the archive).
    fake.remove_game(4712);
    let known = dir.join("state").join("server-games");
    until("the finished game forgotten", || {
        !fs::read_to_string(&known)
            .unwrap_or_default()
            .contains("4712")
    });
    drop((c, early));
    let mut daemon = daemon;
    daemon.terminate();
    let daemon = start(&dir, &config);
    let mut again = daemon.connect("assistant");
    let polls = fake.polls();
    until("a list after the restart", || fake.polls() > polls);
    let answer = again.ask("table xfcc-4712");
    assert!(answer.starts_with("error"), "{answer}");
}

#[test]
fn kd_accepts_the_opponents_draw_offer_on_the_server() {
    let dir = scratch_dir("xfcc-draw");
    let fake = FakeXfcc::start(
        "anna",
        PASSWORD,
        vec![FakeGame::new(4713, true, "Anna Blind", "Erik Lund")],
    );
    let link = dir.join("peg");
    let mut board = SimulatedBoard::on_pty("peg", &link, &[]);
    let config = config(&dir, &link, &fake.url());
    let daemon = start(&dir, &config);
    said(
        &dir,
        "xfcc-4713, WS/M/1234: Anna Blind against Erik Lund",
        1,
    );
    let mut c = daemon.watching("assistant", "xfcc-4713");
    assert_eq!(c.ask("focus xfcc-4713"), "ok focus xfcc-4713");
    c.expect_event("the board taken", |l| l == "event desk ready");
    peg_move(&mut board, "e2", "e4");
    c.expect_event("his move", |l| l.starts_with("event move 1 white e2e4"));
    board.hand("key S");
    until("1. e4 on the server", || fake.moves(4713).len() == 1);

    // 1... e5 with a draw offer; he copies it and KD accepts: the acceptance goes out once.
    fake.opponent_moves(4713, "e5");
    fake.edit(4713, |g| g.draw_offered = true);
    c.expect_event("the offer", |l| l == "event draw-offer black");
    peg_move(&mut board, "e7", "e5");
    c.heard("all right");
    board.hand("key D");
    c.expect_event("the agreement", |l| l.starts_with("event end 1/2-1/2"));
    until("the draw on the server", || {
        fake.submissions().iter().any(|s| s.2.is_empty())
    });
    let polls = fake.polls();
    until("two more lists", || fake.polls() >= polls + 2);
    let subs: Vec<_> = fake
        .submissions()
        .iter()
        .map(|s| (s.1, s.2.clone(), s.3.clone()))
        .collect();
    assert_eq!(
        subs,
        [
            (1, "e4".to_owned(), "Success".to_owned()),
            (2, String::new(), "Success".to_owned()),
        ]
    );
}

#[test]
fn a_refused_password_is_told_in_his_words_once() {
    let dir = scratch_dir("xfcc-password");
    let fake = FakeXfcc::start("anna", "the right one", Vec::new());
    let link = dir.join("peg");
    let _board = SimulatedBoard::on_pty("peg", &link, &[]);
    let config = config(&dir, &link, &fake.url());
    // PASSWORD is not the server's: every list is refused with a fault naming the code.
    let _daemon = start(&dir, &config);
    said(&dir, "The server refused your user name or password", 1);
    let polls = fake.polls();
    until("two more lists", || fake.polls() >= polls + 2);
    let text = said(&dir, "The server refused your user name or password", 1);
    assert_eq!(
        text.matches("refused your user name").count(),
        1,
        "told once: {text}"
    );
}

#[test]
fn kl_kg_and_focus_ask_the_server_at_once() {
    let dir = scratch_dir("xfcc-at-once");
    let fake = FakeXfcc::start(
        "anna",
        PASSWORD,
        vec![FakeGame::new(4714, false, "Fay Moss", "Anna Blind")],
    );
    let link = dir.join("peg");
    let mut board = SimulatedBoard::on_pty("peg", &link, &[]);
    // Fifteen minutes between lists: only the keys bring another one in the test's time.
    let config = config_polling(&dir, &link, &fake.url(), 900);
    let daemon = start(&dir, &config);
    said(&dir, "xfcc-4714, WS/M/1234: Fay Moss against Anna Blind", 1);
    assert_eq!(fake.polls(), 1);
    let mut c = daemon.watching("assistant", "xfcc-4714");
    board.hand("key L");
    until("a list after KL", || fake.polls() == 2);
    assert_eq!(c.ask("focus xfcc-4714"), "ok focus xfcc-4714");
    until("a list after focus", || fake.polls() == 3);
    c.expect_event("the board taken", |l| l == "event desk ready");
    // Fay's move comes in while nobody asks; KG brings it at once.
    fake.opponent_moves(4714, "e4");
    board.hand("key G");
    c.expect_event("Fay's move", |l| l.starts_with("event move 1 white e2e4"));
    assert_eq!(fake.polls(), 4, "one list for each key, none more");
}

/// He plays `from`-`to` and releases it with `KS`; the server then has `plies` half-moves.
fn his_move(board: &mut SimulatedBoard, fake: &FakeXfcc, id: i64, from: &str, to: &str) {
    let plies = fake.moves(id).len() + 1;
    peg_move(board, from, to);
    board.hand("key S");
    until(&format!("{from}{to} on the server"), || {
        fake.moves(id).len() == plies
    });
}

/// The opponent's `san` from the server, copied on his board (`from`-`to`).
fn their_move(
    board: &mut SimulatedBoard,
    fake: &FakeXfcc,
    c: &ControlClient,
    id: i64,
    san: &str,
    from: &str,
    to: &str,
) {
    fake.opponent_moves(id, san);
    c.expect_event("the opponent's move", |l| {
        l.starts_with("event move ") && l.contains(&format!("{from}{to}"))
    });
    peg_move(board, from, to);
    c.heard("all right");
}

#[test]
fn kc_claims_a_repetition_on_the_server_and_his_message_goes_once_with_his_next_move() {
    let dir = scratch_dir("xfcc-claim");
    let fake = FakeXfcc::start(
        "anna",
        PASSWORD,
        vec![FakeGame::new(4715, true, "Anna Blind", "Farid Haddad")],
    );
    let link = dir.join("peg");
    let mut board = SimulatedBoard::on_pty("peg", &link, &[]);
    let config = config_polling(&dir, &link, &fake.url(), 1);
    let daemon = start(&dir, &config);
    said(
        &dir,
        "xfcc-4715, WS/M/1234: Anna Blind against Farid Haddad",
        1,
    );
    let mut c = daemon.watching("assistant", "xfcc-4715");
    assert_eq!(c.ask("focus xfcc-4715"), "ok focus xfcc-4715");
    c.expect_event("the board taken", |l| l == "event desk ready");

    // Knights out and back: the start position a second time, his move.
    his_move(&mut board, &fake, 4715, "g1", "f3");
    their_move(&mut board, &fake, &c, 4715, "Nf6", "g8", "f6");
    his_move(&mut board, &fake, 4715, "f3", "g1");
    their_move(&mut board, &fake, &c, 4715, "Ng8", "f6", "g8");
    // KC now: no grounds, said why, nothing sent.
    board.hand("key C");
    said(
        &dir,
        "Draw claim refused: the position has not occurred three times",
        1,
    );
    assert_eq!(fake.calls().len(), 2, "a claim without grounds is not sent");

    // His message, kept and sent once, with his next move only.
    assert_eq!(
        c.ask("my-message Thanks for the game,   and good luck"),
        "ok my-message kept"
    );
    c.heard("Your message goes to the server with your next move");
    his_move(&mut board, &fake, 4715, "g1", "f3");
    said(&dir, "Your message went with it", 1);
    their_move(&mut board, &fake, &c, 4715, "Nf6", "g8", "f6");
    his_move(&mut board, &fake, 4715, "f3", "g1");
    their_move(&mut board, &fake, &c, 4715, "Ng8", "f6", "g8");
    let messages: Vec<String> = fake
        .calls()
        .iter()
        .map(|(m, _)| m.message.clone())
        .collect();
    assert_eq!(
        messages,
        ["", "", "Thanks for the game, and good luck", ""],
        "the message goes once, with the move after it"
    );

    // The start position a third time: the server refuses claims once, then takes one.
    fake.force_next("ClaimsNotSupported");
    board.hand("key C");
    said(&dir, "The server does not accept claims", 1);
    board.hand("key C");
    said(&dir, "Draw claim sent to the server", 1);
    c.expect_event("the server's draw", |l| l.starts_with("event end 1/2-1/2"));
    let polls = fake.polls();
    until("two more lists", || fake.polls() >= polls + 2);
    let claims: Vec<(u32, String, bool, String)> = fake
        .calls()
        .iter()
        .skip(4)
        .map(|(m, code)| (m.movecount, m.my_move.clone(), m.claim_draw, code.clone()))
        .collect();
    assert_eq!(
        claims,
        [
            (5, String::new(), true, "ClaimsNotSupported".to_owned()),
            (5, String::new(), true, "Success".to_owned()),
        ],
        "each claim once, on the position as it stands, with his next move's number"
    );
    assert_eq!(fake.moves(4715).len(), 8);
    let text = fs::read_to_string(dir.join("transcript.txt")).unwrap();
    assert!(!text.contains("did not uphold"), "{text}");
}

#[test]
fn kc_with_his_unsent_move_sends_both_in_one_call_and_a_refusal_sends_the_move_alone() {
    let dir = scratch_dir("xfcc-claim-move");
    let mut game = FakeGame::new(4716, false, "Gina Ross", "Anna Blind");
    game.moves = vec!["Nf3".to_owned()];
    let fake = FakeXfcc::start("anna", PASSWORD, vec![game]);
    let link = dir.join("peg");
    let mut board = SimulatedBoard::on_pty("peg", &link, &[]);
    let config = config_polling(&dir, &link, &fake.url(), 1);
    let daemon = start(&dir, &config);
    let mut c = daemon.watching("assistant", "xfcc-4716");
    c.wait_status("ply 1");
    assert_eq!(c.ask("focus xfcc-4716"), "ok focus xfcc-4716");
    follow_set_up(&mut board, &c);

    his_move(&mut board, &fake, 4716, "g8", "f6");
    their_move(&mut board, &fake, &c, 4716, "Ng1", "f3", "g1");
    his_move(&mut board, &fake, 4716, "f6", "g8");
    their_move(&mut board, &fake, &c, 4716, "Nf3", "g1", "f3");
    his_move(&mut board, &fake, 4716, "g8", "f6");
    their_move(&mut board, &fake, &c, 4716, "Ng1", "f3", "g1");
    // 4... Ng8 brings the start position a third time: played, not sent, and claimed. The
    // server refuses claims this once: the move, released with the claim, then goes alone
    // (FIDE 9.5.3: the move of a claim found wrong is played).
    peg_move(&mut board, "f6", "g8");
    c.expect_event("his move", |l| l.starts_with("event move 8 black f6g8"));
    fake.force_next("ClaimsNotSupported");
    board.hand("key C");
    said(&dir, "The server does not accept claims", 1);
    until("4... Ng8 on the server alone", || {
        fake.moves(4716).len() == 8
    });
    // 5. Nf3: the position after 1. Nf3 a third time, his move: claimed as it stands.
    their_move(&mut board, &fake, &c, 4716, "Nf3", "g1", "f3");
    board.hand("key C");
    said(&dir, "Draw claim sent to the server", 1);
    c.expect_event("the server's draw", |l| l.starts_with("event end 1/2-1/2"));
    let polls = fake.polls();
    until("two more lists", || fake.polls() >= polls + 2);
    let calls: Vec<(u32, String, bool, String)> = fake
        .calls()
        .iter()
        .map(|(m, code)| (m.movecount, m.my_move.clone(), m.claim_draw, code.clone()))
        .collect();
    let ok = "Success".to_owned();
    assert_eq!(
        calls,
        [
            (1, "Nf6".to_owned(), false, ok.clone()),
            (2, "Ng8".to_owned(), false, ok.clone()),
            (3, "Nf6".to_owned(), false, ok.clone()),
            (4, "Ng8".to_owned(), true, "ClaimsNotSupported".to_owned()),
            (4, "Ng8".to_owned(), false, ok.clone()),
            (5, String::new(), true, ok),
        ],
        "the move with the claim, then alone once; the later claim as the position stands"
    );
    assert_eq!(fake.moves(4716).len(), 9);
    assert_eq!(
        c.ask("send"),
        "error state no move of the blind player waits to be sent"
    );
}
