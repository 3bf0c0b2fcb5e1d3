//! The correspondence desk's incoming mail through the real daemon, as strangers and floods
//! reach it: a message whose sender is not the game's opponent is held (never played, never
//! charged) until `mail accept N`; the opponent's second address is his; his move is played
//! within seconds behind thousands of other files, and the flood is told once with a count; a
//! message that arrives while the arbiter has stopped the clocks waits for them. Messages are
//! RFC 5322 files written into the Maildir as a mail client's delivery leaves them; replies go
//! to the outbox (no SMTP server is needed for what is tested here).

pub mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::board::SimulatedBoard;
use common::control::ControlClient;
use common::daemon::Serve;
use common::fs::scratch_dir;
use common::mail::maildir;

/// A message delivered into the Maildir the way a deliverer does it (written in tmp/, renamed
/// into new/).
fn deliver(inbox: &Path, name: &str, from: &str, subject: &str, body: &str) {
    let message = format!(
        "Received: from mx.example.org by mail.example.org; Mon, 23 Nov 2026 10:00:05 +0000\r\n\
         From: {from}\r\nTo: anna@example.org\r\nSubject: {subject}\r\n\
         Message-ID: <{name}@example.org>\r\nDate: Mon, 23 Nov 2026 10:00:00 +0000\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{}",
        body.replace('\n', "\r\n")
    );
    let tmp = inbox.join("tmp").join(name);
    fs::write(&tmp, message).unwrap();
    fs::rename(&tmp, inbox.join("new").join(name)).unwrap();
}

fn config(dir: &Path, inbox: &Path) -> PathBuf {
    config_with_peg(dir, inbox, "none")
}

/// The configuration with the desk's peg board at `peg`.
fn config_with_peg(dir: &Path, inbox: &Path, peg: &str) -> PathBuf {
    let path = dir.join("annabella.toml");
    fs::write(
        &path,
        format!(
            r#"
[speech]
backends = "transcript:{transcript}"
lang = "de"

[desk]
peg = "{peg}"

[mail]
maildir = "{inbox}"
from = "anna@example.org"

[[table]]
name = "iccf-2"
kind = "correspondence"
peg_side = "white"
opponent_email = "carol@example.org"
game_id = "ICCF-2"
time_control = "10/50d"

[[table]]
name = "bca-7"
kind = "correspondence"
peg_side = "black"
opponent_email = ["bob@example.org", "Bob.Jones@example.net"]
game_id = "BCA-7"
time_control = "20/10d"
day_rules = "bca"
white = "Bob Jones"
black = "Anna Schmidt"
"#,
            transcript = dir.join("transcript.txt").display(),
            inbox = inbox.display(),
            peg = peg,
        ),
    )
    .unwrap();
    path
}

/// Waits up to `within` for an event satisfying `want`.
fn await_event(
    c: &ControlClient,
    what: &str,
    within: Duration,
    want: impl Fn(&str) -> bool,
) -> String {
    let deadline = Instant::now() + within;
    let mut seen = Vec::new();
    while let Some((_, line)) = c.next_event(deadline.saturating_duration_since(Instant::now())) {
        if want(&line) {
            return line;
        }
        if seen.len() < 50 {
            seen.push(line);
        }
    }
    panic!("no {what} within {within:?}; saw {seen:#?}");
}

/// The files in `dir` once there are `n` (the message is filed just after its move is played).
fn wait_files(dir: &Path, n: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let names = files(dir);
        if names.len() >= n || Instant::now() > deadline {
            return names;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// White's hours left on the `clock` reply (`ok white 239:59:55.853 black …`).
fn white_hours(clock: &str) -> u64 {
    clock
        .split_whitespace()
        .nth(2)
        .and_then(|t| t.split(':').next())
        .and_then(|h| h.parse().ok())
        .unwrap_or_else(|| panic!("no white time in {clock:?}"))
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn a_strangers_message_is_held_and_played_only_when_accepted() {
    let dir = scratch_dir("mail-intake-strangers");
    let inbox = maildir(&dir.join("anna"));
    let config = config(&dir, &inbox);
    let mut daemon = Serve::new(&dir.join("state")).config(&config).start();
    let mut bca = daemon.watching("assistant", "bca-7");
    let days_before = bca.ask("clock");

    // Mallory signs as Bob, with the right game and a legal first move: held, not played.
    deliver(
        &inbox,
        "1795500000.1.host",
        "Bob Jones <mallory@evil.example>",
        "BCA-7: 1. 5254",
        "Game: BCA-7\nMoves:\n1. 5254\n",
    );
    let held = bca.expect_event("the hold", |l| {
        l.starts_with("event mail refused held as number 1")
    });
    assert!(held.contains("mallory@evil.example"), "{held}");
    bca.heard(
        "gegen Bob Jones, Sie haben Schwarz: Nachricht von mallory@evil.example zurückgehalten, der \
         Absender ist nicht Ihr Gegner. Nummer 1",
    );
    // Twelve forged messages with an illegal move: held, and nobody is charged a day.
    for n in 2..=13 {
        deliver(
            &inbox,
            &format!("1795500000.{n}.host"),
            &format!("\"Bob Jones\" <mallory{n}@evil.example>"),
            "BCA-7: 1. 1118",
            "Game: BCA-7\nMoves:\n1. 1118\n",
        );
    }
    let said = bca.expect_event("the holds said once", |l| {
        l.starts_with(
            "event say blind gegen Bob Jones, Sie haben Schwarz: zwölf Nachrichten von fremden Absendern",
        )
    });
    assert!(said.contains("zuletzt Nummer 13"), "{said}");
    assert_eq!(bca.ask("sheet"), "ok", "nothing was played");
    // A penalty day would take 24 of White's 240 hours.
    assert_eq!(white_hours(&days_before), 239, "{days_before}");
    let days_after = bca.ask("clock");
    assert_eq!(
        white_hours(&days_after),
        239,
        "nobody was charged: {days_after}"
    );
    assert!(files(&inbox.join("new")).is_empty());
    let held_files = files(&inbox.join(".Held").join("cur"));
    assert_eq!(held_files.len(), 13, "{held_files:?}");
    assert!(
        held_files.iter().all(|f| !f.ends_with('S')),
        "held unread: {held_files:?}"
    );
    let list = bca.ask("mail held");
    assert!(
        list.starts_with("ok mail held 13: 1 1_1795500000.1.host"),
        "{list}"
    );

    // Bob's exact address, but his receiving server found that DMARC failed: held too.
    let forged = "Authentication-Results: mail.example.org; spf=fail smtp.mailfrom=example.org; \
                  dkim=none; dmarc=fail (p=none) header.from=example.org\r\n\
                  From: Bob Jones <bob@example.org>\r\nTo: anna@example.org\r\nSubject: BCA-7: 1. 5254\r\n\
                  Message-ID: <forged@example.org>\r\n\r\nGame: BCA-7\r\nMoves:\r\n1. 5254\r\n";
    fs::write(inbox.join("tmp").join("1795500000.14.host"), forged).unwrap();
    fs::rename(
        inbox.join("tmp").join("1795500000.14.host"),
        inbox.join("new").join("1795500000.14.host"),
    )
    .unwrap();
    let doubted = bca.expect_event("the forged one held", |l| {
        l.starts_with("event mail refused held as number 14")
    });
    assert!(doubted.contains("DMARC failed"), "{doubted}");

    // Bob writes from his second address, in another case: his move is played.
    deliver(
        &inbox,
        "1795500001.1.host",
        "Bob Jones <bob.jones@EXAMPLE.net>",
        "BCA-7: 1. 6263",
        "Game: BCA-7\nMoves:\n1. 6263\n",
    );
    bca.expect_event("Bob's move", |l| l.starts_with("event move 1 white f2f3"));

    // The arbiter accepts the first held message: it is read again and, its record now
    // behind the game's... no: it disagrees with the game (1. e4 against 1. f3) and is said so.
    let mut arbiter = daemon.connect("arbiter");
    assert_eq!(
        arbiter.ask("mail accept 99"),
        "error syntax no held message has the number 99; 'mail held' lists them"
    );
    let accepted = arbiter.ask("mail accept 1");
    assert!(
        accepted.starts_with("ok mail accepted 1: 1795500000.1.host"),
        "{accepted}"
    );
    bca.expect_event("the accepted message read", |l| {
        l.starts_with("event mail refused the message's record disagrees with the game at 1.")
    });
    assert_eq!(files(&inbox.join(".Held").join("cur")).len(), 13);
    daemon.terminate();
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_held_message_accepted_is_played_even_after_a_restart() {
    let dir = scratch_dir("mail-intake-accept");
    let inbox = maildir(&dir.join("anna"));
    let config = config(&dir, &inbox);
    let mut daemon = Serve::new(&dir.join("state")).config(&config).start();
    let bca = daemon.watching("assistant", "bca-7");
    // Bob writes from his office, an address the configuration does not know.
    deliver(
        &inbox,
        "1795500000.1.host",
        "Bob Jones <bob@office.example.com>",
        "Re: BCA-7",
        "1. 6263\n",
    );
    bca.expect_event("the hold", |l| {
        l.starts_with("event mail refused held as number 1")
    });
    let mut player = daemon.connect("black");
    assert!(
        player
            .ask("mail accept 1")
            .starts_with("ok mail accepted 1")
    );
    // Stopped at once: whether the last look read it before or the next run reads it after
    // the restart, the acceptance holds and the move is played once.
    daemon.terminate();
    drop(bca);
    let mut daemon = Serve::new(&dir.join("state")).config(&config).start();
    let mut bca = daemon.watching("assistant", "bca-7");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let sheet = bca.ask("sheet");
        if sheet != "ok" {
            assert!(sheet.contains("f3") && !sheet.contains("2."), "{sheet}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the accepted move was never played"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(wait_files(&inbox.join("cur"), 1), ["1795500000.1.host:2,S"]);
    assert!(files(&inbox.join(".Held").join("cur")).is_empty());
    daemon.terminate();
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_genuine_move_is_played_within_seconds_behind_a_flood() {
    let dir = scratch_dir("mail-intake-flood");
    let inbox = maildir(&dir.join("anna"));
    let config = config(&dir, &inbox);
    let mut daemon = Serve::new(&dir.join("state")).config(&config).start();
    let iccf = daemon.watching("assistant", "iccf-2");
    let bca = daemon.watching("assistant", "bca-7");
    // 2,000 messages of no game and 300 forged ones for BCA-7, delivered before his.
    for n in 0..2000 {
        deliver(
            &inbox,
            &format!("1795400000.{n:04}.host"),
            &format!("newsletter{n}@lists.example.com"),
            "Club news",
            "The club meets on 2026-12-01 at 19:30. Call 030 1234 5678.\n",
        );
    }
    for n in 0..300 {
        deliver(
            &inbox,
            &format!("1795450000.{n:04}.host"),
            &format!("Bob Jones <mallory{n}@evil.example>"),
            "BCA-7: 1. 5254",
            "Game: BCA-7\nMoves:\n1. 5254\n",
        );
    }
    let sent = Instant::now();
    deliver(
        &inbox,
        "1795500000.1.host",
        "Bob Jones <bob@example.org>",
        "BCA-7: 1. 6263",
        "Game: BCA-7\nMoves:\n1. 6263\n",
    );
    bca.expect_event("Bob's move", |l| l.starts_with("event move 1 white f2f3"));
    let heard_after = sent.elapsed();
    println!("figure: a genuine move behind 2,300 other files played after {heard_after:?}");
    assert!(
        heard_after < Duration::from_secs(5),
        "the move came {heard_after:?} after the message"
    );
    // The holds and the messages of no game are each said once, with their count.
    let holds = await_event(&bca, "the holds", Duration::from_secs(120), |l| {
        l.starts_with("event say blind ") && l.contains("von fremden Absendern")
    });
    assert!(holds.contains("dreihundert"), "{holds}");
    let none = await_event(&iccf, "the summary", Duration::from_secs(120), |l| {
        l.starts_with("event say blind ") && l.contains("gehören zu keiner Partie")
    });
    assert_eq!(
        none,
        "event say blind zweitausend Nachrichten gehören zu keiner Partie"
    );
    // Not said again, and the newsletters stay unread in cur/ for his mail program.
    assert!(
        iccf.next_event(Duration::from_secs(3))
            .is_none_or(|(_, l)| !l.contains("keiner Partie")),
    );
    let cur = files(&inbox.join("cur"));
    assert_eq!(cur.iter().filter(|f| f.ends_with(":2,")).count(), 2000);
    assert_eq!(cur.iter().filter(|f| f.ends_with(":2,S")).count(), 1);
    daemon.terminate();
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_message_for_a_paused_table_waits_for_the_clocks() {
    let dir = scratch_dir("mail-intake-paused");
    let inbox = maildir(&dir.join("anna"));
    let config = config(&dir, &inbox);
    let mut daemon = Serve::new(&dir.join("state")).config(&config).start();
    let bca = daemon.watching("assistant", "bca-7");
    let mut arbiter = daemon.watching("arbiter", "bca-7");
    assert!(arbiter.ask("pause").starts_with("ok"), "paused");
    deliver(
        &inbox,
        "1795500000.1.host",
        "bob@example.org",
        "BCA-7: 1. 6263",
        "Game: BCA-7\nMoves:\n1. 6263\n",
    );
    bca.heard(
        "gegen Bob Jones, Sie haben Schwarz: eine Nachricht wartet, bis die Uhren wieder laufen",
    );
    assert_eq!(files(&inbox.join("new")), ["1795500000.1.host"]);
    assert!(arbiter.ask("resume").starts_with("ok"), "resumed");
    bca.expect_event("Bob's move", |l| l.starts_with("event move 1 white f2f3"));
    assert_eq!(wait_files(&inbox.join("cur"), 1), ["1795500000.1.host:2,S"]);
    daemon.terminate();
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_reply_with_a_photo_attached_is_played() {
    let dir = scratch_dir("mail-intake-photo");
    let inbox = maildir(&dir.join("anna"));
    let config = config(&dir, &inbox);
    let mut daemon = Serve::new(&dir.join("state")).config(&config).start();
    let bca = daemon.watching("assistant", "bca-7");
    // A 3 MiB photo of his board, base64 in lines of 76 as mail programs write it.
    let photo: String = (0..3 * 1024 * 1024 / 57)
        .map(|i| {
            format!(
                "{}\r\n",
                "QUJD"
                    .repeat(19)
                    .replace('Q', if i % 2 == 0 { "Q" } else { "R" })
            )
        })
        .collect();
    let body = format!(
        "--frontier\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nGame: BCA-7\r\nMoves:\r\n1. 6263\r\n\r\nA photo of my board.\r\n\
         --frontier\r\nContent-Type: image/jpeg; name=\"board.jpg\"\r\nContent-Disposition: attachment; filename=\"board.jpg\"\r\n\
         Content-Transfer-Encoding: base64\r\n\r\n{photo}--frontier--\r\n"
    );
    let message = format!(
        "From: Bob Jones <bob@example.org>\r\nTo: anna@example.org\r\nSubject: BCA-7: 1. 6263\r\n\
         Message-ID: <photo@example.org>\r\nDate: Mon, 23 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\n\
         Content-Type: multipart/mixed; boundary=\"frontier\"\r\n\r\n{body}"
    );
    assert!(message.len() > 3 * 1024 * 1024);
    let tmp = inbox.join("tmp").join("1795500000.1.host");
    fs::write(&tmp, message).unwrap();
    fs::rename(&tmp, inbox.join("new").join("1795500000.1.host")).unwrap();
    bca.expect_event("Bob's move", |l| l.starts_with("event move 1 white f2f3"));
    daemon.terminate();
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_key_j_accepts_the_message_held_last() {
    let dir = scratch_dir("mail-intake-key-j");
    let inbox = maildir(&dir.join("anna"));
    let link = dir.join("peg");
    let mut board = SimulatedBoard::on_pty("peg", &link, &[]);
    let config = config_with_peg(&dir, &inbox, &link.display().to_string());
    let mut daemon = Serve::new(&dir.join("state")).config(&config).start();
    let bca = daemon.watching("assistant", "bca-7");
    // With no game turned to, the desk speaks on the first game's voice.
    let iccf = daemon.watching("assistant", "iccf-2");
    // Nothing held yet: he is told so.
    board.hand("raw KJ");
    iccf.heard("Keine Nachricht ist zurückgehalten");
    // Bob writes from his office; he hears it held, presses KJ, and the move is played.
    deliver(
        &inbox,
        "1795500000.1.host",
        "Bob Jones <bob@office.example.com>",
        "Re: BCA-7",
        "Mein Zug: 1. f3\n",
    );
    bca.expect_event("the hold", |l| {
        l.starts_with("event mail refused held as number 1")
    });
    board.hand("raw KJ");
    iccf.heard("Nachricht Nummer 1 angenommen");
    bca.expect_event("the accepted move", |l| {
        l.starts_with("event move 1 white f2f3")
    });
    daemon.terminate();
    fs::remove_dir_all(&dir).ok();
}
