//! The mail corpus (`tests/data/mail/corpus/`) through the real daemon: for each message the
//! BCA game is set up at its table to the position the message answers (a new game, the moves
//! of both sides played by their players; the blind player's reply mailed through a real SMTP
//! server process, Python's aiosmtpd), then the message is delivered into his Maildir as a
//! mail program leaves it, and what the daemon did is checked against `expected.toml`: the
//! opponent's move played, a disagreement told, a repeat or a message without a move filed.
//! Forged copies of genuine messages (the same text from strangers) are delivered too, and the
//! daemon is restarted halfway. Prints the figures of `docs/correspondence-mail.md`: genuine
//! messages played, forged played, silent drops, his moves never mailed.

pub mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use common::control::ControlClient;
use common::daemon::{Daemon, Serve};
use common::fs::scratch_dir;
use common::mail::{maildir, smtp_server};
use common::net::free_port;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mail/corpus")
}

fn config(dir: &Path, inbox: &Path, smtp_port: u16) -> PathBuf {
    let path = dir.join("annabella.toml");
    fs::write(
        &path,
        format!(
            r#"
[speech]
backends = "transcript:{transcript}"
lang = "de"

[desk]
peg = "none"
confirm = false

[mail]
maildir = "{inbox}"
smtp = "127.0.0.1:{smtp_port}"
from = "anna@example.net"

[[table]]
name = "bca-7"
kind = "correspondence"
peg_side = "black"
opponent_email = "bob.jones@example.org"
game_id = "BCA-7"
time_control = "20/10d"
day_rules = "bca"
white = "Bob Jones"
black = "Anna Schmidt"
"#,
            transcript = dir.join("transcript.txt").display(),
            inbox = inbox.display(),
        ),
    )
    .unwrap();
    path
}

/// A message delivered as a deliverer leaves it (tmp/, then new/), its time a few seconds
/// back so the reader takes it at its next look.
fn deliver(inbox: &Path, name: &str, raw: &[u8]) {
    let tmp = inbox.join("tmp").join(name);
    fs::write(&tmp, raw).unwrap();
    fs::File::options()
        .write(true)
        .open(&tmp)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(5))
        .unwrap();
    fs::rename(&tmp, inbox.join("new").join(name)).unwrap();
}

/// `5254` as `e2e4`.
fn uci(iccf: &str) -> String {
    iccf.chars()
        .enumerate()
        .map(|(i, c)| {
            let d = c.to_digit(10).unwrap() as u8;
            if i % 2 == 0 {
                (b'a' + d - 1) as char
            } else {
                c
            }
        })
        .take(4)
        .collect()
}

struct Run {
    daemon: Daemon,
    events: ControlClient,
    white: ControlClient,
    black: ControlClient,
    arbiter: ControlClient,
}

fn start(dir: &Path, config: &Path) -> Run {
    let daemon = Serve::new(&dir.join("state")).config(config).start();
    let mut events = daemon.connect("assistant");
    assert_eq!(events.ask("table bca-7"), "ok table bca-7");
    assert!(events.ask("events").starts_with("ok"));
    let connect = |role: &str| {
        let mut c = daemon.connect(role);
        assert_eq!(c.ask("table bca-7"), "ok table bca-7");
        c
    };
    let white = connect("white");
    let black = connect("black");
    let arbiter = connect("arbiter");
    Run {
        daemon,
        events,
        white,
        black,
        arbiter,
    }
}

/// Waits until `file` has left `new/`.
fn filed(inbox: &Path, file: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(20);
    while inbox.join("new").join(file).exists() {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    true
}

/// The events seen until `file` has left `new/` and a moment more (what the daemon did).
fn events_until_filed(run: &Run, inbox: &Path, file: &str) -> Vec<String> {
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while inbox.join("new").join(file).exists() && Instant::now() < deadline {
        if let Some((_, l)) = run.events.next_event(Duration::from_millis(100)) {
            seen.push(l);
        }
    }
    // The move's event comes before the file is filed; what is said after it, within a moment.
    while let Some((_, l)) = run.events.next_event(Duration::from_millis(700)) {
        seen.push(l);
    }
    seen
}

#[test]
fn the_corpus_through_the_daemon_with_forgeries_and_a_restart() {
    let dir = scratch_dir("mail-corpus-daemon");
    let inbox = maildir(&dir.join("anna"));
    let outbox = dir.join("bob");
    let port = free_port();
    let _smtp = smtp_server(port, &outbox);
    let config = config(&dir, &inbox, port);
    let manifest: toml::Table =
        toml::from_str(&fs::read_to_string(corpus().join("expected.toml")).unwrap()).unwrap();
    let record: Vec<&str> = manifest["record"].as_str().unwrap().split(' ').collect();
    let cases: Vec<&toml::Table> = manifest["case"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_table().unwrap())
        .filter(|c| c["lang"].as_str() == Some("de"))
        .collect();
    let mut run = start(&dir, &config);
    let (mut genuine, mut played, mut silent, mut forged_played, mut forged) = (0, 0, 0, 0, 0);
    let mut unmailed = 0;
    let mut failures = Vec::new();
    for (n, case) in cases.iter().enumerate() {
        if n == cases.len() / 2 {
            // A restart in the middle: what was played and mailed is kept.
            run.daemon.terminate();
            run = start(&dir, &config);
        }
        let file = case["file"].as_str().unwrap();
        let plies = case["plies"].as_integer().unwrap() as usize;
        let expect = case["expect"].as_str().unwrap();
        // The game set up to the position the message answers.
        // (The arbiter ends the game in progress first: a new one begins only after an end.)
        let reply = run.arbiter.ask("result 1/2-1/2");
        assert!(
            reply.starts_with("ok") || reply.contains("over"),
            "{file}: {reply}"
        );
        let reply = run.arbiter.ask("new-game");
        assert!(reply.starts_with("ok"), "{file}: {reply}");
        for (ply, m) in record[..plies].iter().enumerate() {
            let player = if ply % 2 == 0 {
                &mut run.white
            } else {
                &mut run.black
            };
            let reply = player.ask(&format!("move {m}"));
            assert!(reply.starts_with("ok"), "{file}: move {m}: {reply}");
        }
        if plies > 0 && plies.is_multiple_of(2) {
            // His last move is mailed before the opponent can answer it.
            let deadline = Instant::now() + Duration::from_secs(20);
            let mut mailed = false;
            while !mailed && Instant::now() < deadline {
                mailed = run
                    .events
                    .next_event(Duration::from_millis(100))
                    .is_some_and(|(_, l)| l.starts_with("event mail sent "));
            }
            if !mailed {
                unmailed += 1;
                failures.push(format!("{file}: his move {plies} was not mailed"));
            }
        }
        while run.events.next_event(Duration::from_millis(50)).is_some() {}
        let raw = fs::read(corpus().join(file)).unwrap();
        // A stranger sends the same text first: held, never played.
        if expect == "move" && n % 4 == 0 {
            forged += 1;
            // Only the From field changes: the display name, the game and the record stay.
            let text: String = String::from_utf8_lossy(&raw)
                .split_inclusive('\n')
                .map(|line| {
                    if line.starts_with("From:") {
                        line.replace("bob.jones@example.org", "mallory@evil.example")
                    } else {
                        line.to_owned()
                    }
                })
                .collect();
            assert!(
                text.contains("From: Bob Jones <mallory@evil.example>"),
                "{file}"
            );
            let name = format!("forged-{file}");
            deliver(&inbox, &name, text.as_bytes());
            let seen = events_until_filed(&run, &inbox, &name);
            if seen.iter().any(|l| l.starts_with("event move ")) {
                forged_played += 1;
                failures.push(format!("{file}: the forged copy was played: {seen:?}"));
            }
        }
        deliver(&inbox, file, &raw);
        let seen = events_until_filed(&run, &inbox, file);
        let moved = seen.iter().find(|l| l.starts_with("event move "));
        let told = seen
            .iter()
            .any(|l| l.starts_with("event mail refused") || l.starts_with("event say blind"));
        match expect {
            "move" => {
                genuine += 1;
                let want = format!(
                    "event move {} white {}",
                    plies + 1,
                    uci(case["move"].as_str().unwrap())
                );
                if moved.is_some_and(|l| l.starts_with(&want)) {
                    played += 1;
                } else {
                    if !told {
                        silent += 1;
                    }
                    failures.push(format!("{file}: want {want}, saw {seen:?}"));
                }
            }
            "disagrees" => {
                if moved.is_some() || !seen.iter().any(|l| l.starts_with("event mail refused")) {
                    if !told {
                        silent += 1;
                    }
                    failures.push(format!("{file}: a disagreement not told: {seen:?}"));
                }
            }
            _ => {
                if moved.is_some() {
                    failures.push(format!("{file}: {expect}, but a move was played: {seen:?}"));
                }
            }
        }
        assert!(filed(&inbox, file), "{file} was never filed");
    }
    run.daemon.terminate();
    println!(
        "figures: genuine messages played {played}/{genuine}; forged played {forged_played}/{forged}; \
         silent drops {silent}; his moves never mailed {unmailed}"
    );
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(
        (played, forged_played, silent, unmailed),
        (genuine, 0, 0, 0)
    );
    fs::remove_dir_all(&dir).ok();
}
