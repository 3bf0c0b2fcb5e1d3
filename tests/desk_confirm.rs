//! The blind player at his correspondence desk without sighted help, through the real daemon: a
//! simulated peg board on a pseudo-terminal, a real SMTP server process (Python's aiosmtpd)
//! delivering his replies into the opponents' Maildir, the opponents' messages written as
//! RFC 5322 files into his. The confirm step (`[desk] confirm`, on by default): his move is
//! tentative until `KS`, taken back on the board at no cost, analysis on the board never
//! mailed and the board guided back once he sends; the keys `KD`, `KX KX`, `KC` (on time),
//! `KM`; games named by opponent and colour; the start said once; time over told once.

pub mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use annabella::correspondence::message::{Date, GameId, GameMessage, IccfMove, compose};
use common::board::SimulatedBoard;
use common::control::ControlClient;
use common::daemon::{Daemon, Serve};
use common::fs::scratch_dir;
use common::mail::{maildir, smtp_server};
use common::net::free_port;

/// Carol's message for ICCF-2 as her mail client leaves it in the player's Maildir.
fn receive(inbox: &Path, n: u32, record: &str) {
    let record: Vec<IccfMove> = record
        .split_whitespace()
        .map(|m| IccfMove::new(m).unwrap())
        .collect();
    let (subject, body) = compose(&GameMessage {
        game: GameId::new("ICCF-2").unwrap(),
        white: "Anna Schmidt".into(),
        black: "Carol Smith".into(),
        record,
        received: Date::new(2026, 11, 20),
        sent: Date::new(2026, 11, 23).unwrap(),
        used_days: 1,
        total_days: [0, 1],
        text: None,
        intents: Vec::new(),
    });
    let message = format!(
        "From: Carol Smith <carol@example.org>\r\nTo: anna@example.org\r\nSubject: {subject}\r\n\
         Message-ID: <iccf-2.{n}@example.org>\r\nDate: Mon, 23 Nov 2026 10:00:00 +0000\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{}",
        body.replace('\n', "\r\n")
    );
    let name = format!("1764000000.{n}_iccf.host");
    let tmp = inbox.join("tmp").join(&name);
    fs::write(&tmp, message).unwrap();
    fs::rename(&tmp, inbox.join("new").join(&name)).unwrap();
}

/// Three games by mail; `[desk] confirm` left at its default (on).
fn config(dir: &Path, peg: &Path, inbox: &Path, smtp_port: u16) -> PathBuf {
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
smtp = "127.0.0.1:{smtp_port}"
from = "anna@example.org"

[[table]]
name = "iccf-2"
kind = "correspondence"
peg_side = "white"
opponent_email = "carol@example.org"
game_id = "ICCF-2"
time_control = "10/50d"
white = "Anna Schmidt"
black = "Carol Smith"

[[table]]
name = "bca-7"
kind = "correspondence"
peg_side = "black"
opponent_email = "bob@example.org"
game_id = "BCA-7"
time_control = "20/10d"
day_rules = "bca"
white = "Bob Jones"
black = "Anna Schmidt"

[[table]]
name = "lss-3"
kind = "correspondence"
peg_side = "white"
opponent_email = "dora@example.org"
game_id = "LSS-3"
time_control = "10/50d"
white = "Anna Schmidt"
black = "Dora Klein"
"#,
            transcript = dir.join("transcript.txt").display(),
            peg = peg.display(),
            inbox = inbox.display(),
        ),
    )
    .unwrap();
    path
}

fn start(dir: &Path, config: &Path) -> Daemon {
    Serve::new(&dir.join("state")).config(config).start()
}

/// Waits until the blind player hears words starting with `start`; returns them.
fn hears_start(c: &ControlClient, start: &str) -> String {
    let want = format!("event say blind {start}");
    c.expect_event(start, |l| l.starts_with(&want))
        .trim_start_matches("event say blind ")
        .to_owned()
}

/// Follows the desk's set-up instructions until it says the board is ready; returns how
/// many there were.
fn follow_set_up(board: &mut SimulatedBoard, c: &ControlClient) -> usize {
    let mut followed = 0;
    loop {
        let line = c.expect_event("the desk's set-up", |l| {
            l.starts_with("event desk set-up ") || l == "event desk ready"
        });
        if line == "event desk ready" {
            return followed;
        }
        followed += 1;
        assert!(followed <= 64, "the set-up never ends: {line}");
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
}

fn peg_move(board: &mut SimulatedBoard, from: &str, to: &str) {
    board.hand(&format!("raw L{from}"));
    board.hand(&format!("raw P{to}"));
}

/// The mails delivered to the opponents, waiting for `count`; exactly `count` (none more).
fn mails(outbox: &Path, count: usize) -> Vec<String> {
    let sent: Vec<String> = common::mail::delivered(outbox, count)
        .iter()
        .map(|f| fs::read_to_string(f).unwrap())
        .collect();
    assert_eq!(sent.len(), count, "{sent:#?}");
    sent
}

/// Everything said so far, once `want` has been said (polled: the transcript is a file).
fn transcript_with(dir: &Path, want: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let text = fs::read_to_string(dir.join("transcript.txt")).unwrap_or_default();
        if text.contains(want) {
            return text;
        }
        assert!(Instant::now() < deadline, "never said {want:?}: {text}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn his_move_waits_for_ks_can_be_taken_back_and_analysis_is_never_mailed() {
    let dir = scratch_dir("desk-confirm");
    let inbox = maildir(&dir.join("anna"));
    let outbox = dir.join("opponents");
    let port = free_port();
    let _smtp = smtp_server(port, &outbox);
    let link = dir.join("peg");
    let mut board = SimulatedBoard::on_pty("peg", &link, &[]);
    let config = config(&dir, &link, &inbox, port);
    let daemon = start(&dir, &config);
    let mut iccf = daemon.watching("assistant", "iccf-2");
    let bca = daemon.watching("assistant", "bca-7");

    assert_eq!(iccf.ask("focus iccf-2"), "ok focus iccf-2");
    iccf.expect_event("the board taken", |l| l == "event desk ready");

    // 1. e4, then the pawn back to e2: his unsent move taken back, no arbiter, no penalty.
    peg_move(&mut board, "e2", "e4");
    iccf.expect_event("his move", |l| l.starts_with("event move 1 white e2e4"));
    peg_move(&mut board, "e4", "e2");
    iccf.expect_event("the takeback", |l| l == "event undo e2e4");
    hears_start(&iccf, "Zug zurückgenommen, nicht gesendet: ");
    iccf.wait_status("ply 0");

    // 1. d4 instead; then he analyses: Carol's 1... d5 and his 2. c4 on his board.
    peg_move(&mut board, "d2", "d4");
    iccf.expect_event("his move", |l| l.starts_with("event move 1 white d2d4"));
    // Each analysis move is named; none is played, none corrected.
    peg_move(&mut board, "d7", "d5");
    iccf.heard("Bauer von David sieben nach David fünf");
    peg_move(&mut board, "c2", "c4");
    iccf.heard("Bauer von Cesar zwei nach Cesar vier");
    hears_start(&iccf, "Analyse. KS sendet Ihren Zug");
    peg_move(&mut board, "g8", "f6");
    iccf.heard("Springer von Gustav acht nach Felix sechs");
    assert!(
        iccf.ask("status").contains("ply 1"),
        "analysis is not played"
    );

    // KS: 1. d4 is read back, sent, and the board guided back to the game (c4 and d5 back).
    board.hand("key S");
    let sent = hears_start(&iccf, "Zug eins, Weiß: ");
    assert!(sent.ends_with(", gesendet"), "{sent}");
    assert_eq!(follow_set_up(&mut board, &iccf), 3);
    let said = transcript_with(&dir, "Stellung aufgebaut");
    assert_eq!(said.matches("Analyse").count(), 1, "said once: {said}");
    let first = mails(&outbox, 1);
    assert!(first[0].contains("ICCF-2: 1. 4244"), "{}", first[0]);
    assert!(
        !first[0].contains("4745") && !first[0].contains("3234"),
        "analysis mailed: {}",
        first[0]
    );

    // A sent move is withdrawn by the arbiter alone; he hears why.
    let refused = iccf.ask("undo");
    assert!(
        refused.starts_with("error state the move was released to be mailed"),
        "{refused}"
    );
    hears_start(&iccf, "Der Zug ist gesendet");
    board.hand("key S");
    iccf.heard("Kein Zug zu senden");

    // Carol answers 1... d5; he copies it and plays 2. c4, then turns away: it stays unsent.
    receive(&inbox, 1, "4244 4745");
    iccf.expect_event("Carol's move", |l| l.starts_with("event move 2 black d7d5"));
    peg_move(&mut board, "d7", "d5");
    iccf.heard("in Ordnung");
    peg_move(&mut board, "c2", "c4");
    iccf.expect_event("his move", |l| l.starts_with("event move 3 white c2c4"));
    board.hand("key G");
    let turned = hears_start(
        &bca,
        "gegen Carol Smith, Sie haben Weiß: Ihr Zug ist noch nicht",
    );
    // One utterance, the next game's first set-up instruction with it: a key cuts all of it.
    assert!(
        turned.contains(". gegen Bob Jones, Sie haben Schwarz. ") && turned.contains("Handgriffe"),
        "{turned}"
    );
    // Back to ICCF-2 (past LSS-3): KS sends 2. c4, and nothing else was ever mailed.
    board.hand("key G");
    board.hand("key G");
    iccf.expect_event("ICCF-2 again", |l| l == "event desk focus");
    follow_set_up(&mut board, &iccf);
    board.hand("key S");
    iccf.expect_event("the reply queued", |l| {
        l.starts_with("event mail queued 3 ")
    });
    let both = mails(&outbox, 2);
    assert!(
        both.iter().any(|m| m.contains("ICCF-2: 2. 3234")),
        "{both:#?}"
    );
}

#[test]
fn the_keys_at_the_desk_name_the_games_and_tell_time_over_once() {
    let dir = scratch_dir("desk-keys");
    let inbox = maildir(&dir.join("anna"));
    let outbox = dir.join("opponents");
    let port = free_port();
    let _smtp = smtp_server(port, &outbox);
    let link = dir.join("peg");
    let mut board = SimulatedBoard::on_pty("peg", &link, &[]);
    let config = config(&dir, &link, &inbox, port);
    let mut daemon = start(&dir, &config);

    // The start names each game once, by opponent and colour; no "Neue Partie".
    let said = transcript_with(
        &dir,
        "Ihre Fernpartien: gegen Carol Smith, Sie haben Weiß: ",
    );
    assert!(
        said.contains(". gegen Dora Klein, Sie haben Weiß: "),
        "{said}"
    );
    assert!(!said.contains("Neue Partie"), "{said}");

    let bca = daemon.watching("assistant", "bca-7");
    let mut arbiter = daemon.watching("arbiter", "bca-7");
    assert_eq!(arbiter.ask("focus bca-7"), "ok focus bca-7");
    bca.expect_event("the board taken", |l| l == "event desk ready");

    // KM: none yet; then Bob's comment, recorded by the arbiter's role (the mail desk's).
    board.hand("key M");
    bca.heard("Keine Nachricht");
    assert_eq!(
        arbiter.ask("comment Schöne Eröffnung, Anna!"),
        "ok comment kept"
    );
    board.hand("key M");
    bca.heard("Nachricht von Bob Jones: Schöne Eröffnung, Anna!");
    let mut assistant = daemon.watching("assistant", "bca-7");
    assert_eq!(
        assistant.ask("message"),
        "ok message Schöne Eröffnung, Anna!"
    );

    // KL names the games; a second KL adds their identifiers.
    board.hand("key L");
    hears_start(
        &bca,
        "gegen Carol Smith, Sie haben Weiß: Weiß am Zug, noch ",
    );
    board.hand("key L");
    hears_start(&bca, "ICCF-2, gegen Carol Smith, Sie haben Weiß: ");

    // Bob's days run out (the arbiter's penalty days under the BCA's rules): told once, with
    // the key to claim; KC claims, and the arbiter's result decides.
    for _ in 0..11 {
        assert!(arbiter.ask("penalty white").starts_with("ok"));
    }
    bca.heard(
        "gegen Bob Jones, Sie haben Schwarz: Weiß hat die Bedenkzeit überschritten. \
         KC zum Reklamieren",
    );
    // Told once: not again after a restart (the desk keeps what it told).
    drop((bca, arbiter, assistant));
    daemon.terminate();
    let daemon = start(&dir, &config);
    let mut bca = daemon.watching("assistant", "bca-7");
    let mut arbiter = daemon.watching("arbiter", "bca-7");
    // The board comes back to BCA-7, the game he was at.
    bca.wait_status("peg connected in-sync");
    board.hand("key C");
    bca.expect_event("the claim", |l| {
        l.ends_with("Schwarz reklamiert die Partie wegen Zeitüberschreitung; der Schiedsrichter entscheidet")
    });
    assert!(arbiter.ask("result 0-1").starts_with("ok"));
    bca.expect_event("the end", |l| l.starts_with("event end 0-1"));
    let said = transcript_with(&dir, "Weiß hat die Bedenkzeit überschritten");
    assert_eq!(
        said.matches("Bedenkzeit überschritten").count(),
        1,
        "{said}"
    );

    // KG to LSS-3 (its start position is on the board already): he plays 1. e4 and sends
    // it, Dora answers 1... e5 and offers a draw; KD accepts it.
    let mut dora = daemon.watching("black", "lss-3");
    board.hand("key G");
    dora.expect_event("LSS-3 taken", |l| l == "event desk ready");
    peg_move(&mut board, "e2", "e4");
    dora.expect_event("his move", |l| l.starts_with("event move 1 white e2e4"));
    board.hand("key S");
    hears_start(&dora, "Zug eins, Weiß: ");
    assert!(dora.ask("move e5").starts_with("ok"));
    peg_move(&mut board, "e7", "e5");
    dora.heard("in Ordnung");
    assert!(dora.ask("offer-draw").starts_with("ok"));
    board.hand("key D");
    dora.expect_event("the agreement", |l| l.starts_with("event end 1/2-1/2"));

    // KG to ICCF-2: KD offers a draw, KX KX resigns.
    let iccf = daemon.watching("assistant", "iccf-2");
    board.hand("key G");
    follow_set_up(&mut board, &iccf);
    board.hand("key D");
    iccf.expect_event("his offer", |l| l == "event draw-offer white");
    board.hand("key X");
    iccf.expect_event("the first KX", |l| l.starts_with("event key peg resign"));
    board.hand("key X");
    iccf.expect_event("his resignation", |l| l.starts_with("event end 0-1"));
}
