//! His replies by mail through the real daemon and a real SMTP server process (Python's
//! aiosmtpd, with a handler that refuses one recipient for good): a reply answers the
//! opponent's message (`In-Reply-To`, `References`, kept across a restart); the arbiter's undo
//! of a mailed move mails a correction and the replacement a new Message-ID; a new game with a
//! new game id mails its moves under new Message-IDs; a 550 for one game's opponent is told and
//! parked while the other game's reply goes through; a bounce is told and the reply requeued
//! once; after a restart he hears what waits to go out. And the bounce reader on a sample of
//! each common format.

pub mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use annabella::correspondence::message::{Date, GameId, GameMessage, IccfMove, compose};
use annabella::io::maildir::parse_message;
use common::control::ControlClient;
use common::daemon::{Daemon, Serve};
use common::fs::scratch_dir;
use common::mail::maildir;
use common::mail::python;
use common::net::{free_port, wait_for_port};
use common::process::Running;

/// aiosmtpd on `port` delivering into `mailbox`, refusing (550) recipients `refused…`.
fn refusing_smtp_server(port: u16, mailbox: &Path) -> Running {
    let handlers = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mail");
    let server = Running::start_log(
        Command::new(python())
            .env("PYTHONPATH", handlers)
            .args(["-m", "aiosmtpd", "-n", "-l"])
            .arg(format!("127.0.0.1:{port}"))
            .args(["-c", "refusing_smtpd.RefusingMailbox"])
            .arg(mailbox),
    );
    wait_for_port(port);
    server
}

/// The messages delivered to `mailbox/new`, waiting for `count` of them.
fn delivered(mailbox: &Path, count: usize) -> Vec<String> {
    common::mail::delivered(mailbox, count)
        .iter()
        .map(|f| fs::read_to_string(f).unwrap())
        .collect()
}

/// The delivered message with this Message-ID: its headers as sent, then its body decoded
/// (lettre may send a long line quoted-printable).
fn delivered_with(mailbox: &Path, count: usize, message_id: &str) -> String {
    let all = delivered(mailbox, count);
    let raw = all
        .iter()
        .find(|m| m.contains(&format!("Message-ID: {message_id}")))
        .unwrap_or_else(|| panic!("no delivered message {message_id} among {all:#?}"));
    let headers = raw.split("\r\n\r\n").next().unwrap_or(raw);
    let body = parse_message(raw.as_bytes(), "delivered").unwrap().body;
    format!("{headers}\n\n{body}")
}

/// Bob's message with this record, as his mail client leaves it in the player's Maildir.
fn receive(inbox: &Path, n: u32, game: &str, record: &str) {
    let record: Vec<IccfMove> = record
        .split_whitespace()
        .map(|m| IccfMove::new(m).unwrap())
        .collect();
    let (subject, body) = compose(&GameMessage {
        game: GameId::new(game).unwrap(),
        white: "Bob Jones".into(),
        black: "Anna Schmidt".into(),
        record,
        received: Date::new(2026, 11, 20),
        sent: Date::new(2026, 11, 23).unwrap(),
        used_days: 1,
        total_days: [1, 0],
        text: None,
        intents: Vec::new(),
    });
    let message = format!(
        "From: Bob Jones <bob@example.org>\r\nTo: anna@example.org\r\nSubject: {subject}\r\n\
         Message-ID: <{game}.{n}@example.org>\r\nDate: Mon, 23 Nov 2026 10:00:00 +0000\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{}",
        body.replace('\n', "\r\n")
    );
    deliver_file(inbox, &format!("1764000000.{n}_{game}.host"), &message);
}

/// Waits until the transcript of what was spoken holds `text` `count` times (words said at
/// start come before any client could subscribe to the events).
fn transcript_holds(dir: &Path, text: &str, count: usize) {
    let deadline = Instant::now() + common::WAIT;
    loop {
        let heard = fs::read_to_string(dir.join("transcript.txt")).unwrap_or_default();
        if heard.matches(text).count() >= count {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "never heard {text:?} {count} times: {heard}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn deliver_file(inbox: &Path, name: &str, text: &str) {
    let tmp = inbox.join("tmp").join(name);
    fs::write(&tmp, text).unwrap();
    fs::rename(&tmp, inbox.join("new").join(name)).unwrap();
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
# Every move mailed once played: the confirm step has its own tests (`desk_confirm.rs`).
confirm = false

[mail]
maildir = "{inbox}"
smtp = "127.0.0.1:{smtp_port}"
from = "anna@example.org"

[[table]]
name = "bca-7"
kind = "correspondence"
peg_side = "black"
opponent_email = "bob@example.org"
game_id = "BCA-7"
time_control = "20/10d"
white = "Bob Jones"
black = "Anna Schmidt"

[[table]]
name = "iccf-2"
kind = "correspondence"
peg_side = "white"
opponent_email = "refused.carol@example.org"
game_id = "ICCF-2"
time_control = "10/50d"
white = "Anna Schmidt"
black = "Carol Smith"
"#,
            transcript = dir.join("transcript.txt").display(),
            inbox = inbox.display(),
        ),
    )
    .unwrap();
    path
}

fn start(dir: &Path, config: &Path) -> Daemon {
    Serve::new(&dir.join("state")).config(config).start()
}

/// The Message-ID of an `event mail queued PLY ID` line.
fn queued_id(line: &str) -> String {
    line.split_whitespace().nth(4).unwrap().to_owned()
}

fn expect_queued(c: &ControlClient, ply: usize) -> String {
    let want = format!("event mail queued {ply} ");
    queued_id(&c.expect_event("the reply queued", |l| l.starts_with(&want)))
}

fn expect_sent(c: &ControlClient, id: &str) {
    let want = format!("event mail sent {id}");
    c.expect_event("the reply sent", |l| l == want);
}

#[test]
fn replies_follow_corrections_restarts_and_new_games_with_their_thread() {
    let dir = scratch_dir("mail-replies-thread");
    let inbox = maildir(&dir.join("anna"));
    let outbox = dir.join("opponents");
    let port = free_port();
    let _smtp = refusing_smtp_server(port, &outbox);
    let config = config(&dir, &inbox, port);
    let mut daemon = start(&dir, &config);
    let mut bca = daemon.watching("assistant", "bca-7");
    let mut arbiter = daemon.watching("arbiter", "bca-7");

    // Bob's 1. f3 comes in; he answers 1... e5: the reply answers Bob's message.
    receive(&inbox, 1, "BCA-7", "6263");
    bca.expect_event("Bob's move", |l| l.starts_with("event move 1 white f2f3"));
    assert!(bca.ask("move 1... 5755").starts_with("ok"));
    let first = expect_queued(&bca, 2);
    expect_sent(&bca, &first);
    bca.heard("Antwort an Bob Jones gesendet");
    let mail = delivered_with(&outbox, 1, &first);
    assert!(
        mail.contains("In-Reply-To: <BCA-7.1@example.org>"),
        "{mail}"
    );
    assert!(mail.contains("References: <BCA-7.1@example.org>"), "{mail}");

    // The arbiter withdraws the mailed 1... e5: a correction with the record as it stands.
    assert!(arbiter.ask("undo").starts_with("ok withdrawn"));
    let correction = expect_queued(&bca, 1);
    assert_ne!(correction, first);
    expect_sent(&bca, &correction);
    let mail = delivered_with(&outbox, 2, &correction);
    assert!(mail.contains("withdrawn by the arbiter"), "{mail}");
    assert!(mail.contains("1... 5755"), "{mail}");
    assert!(mail.contains("Subject: BCA-7: 1. 6263"), "{mail}");
    // His replacement (the same 1... e5, thought over) goes out under a Message-ID of its own.
    assert!(bca.ask("move 1... 5755").starts_with("ok"));
    let replacement = expect_queued(&bca, 2);
    assert!(![&first, &correction].contains(&&replacement));
    expect_sent(&bca, &replacement);

    // A restart: the thread is kept. Bob's 2. g4 answered with 2... Qh4#.
    daemon.terminate();
    let daemon = start(&dir, &config);
    let bca = daemon.watching("assistant", "bca-7");
    let mut arbiter = daemon.watching("arbiter", "bca-7");
    receive(&inbox, 2, "BCA-7", "6263 5755 7274");
    bca.expect_event("Bob's move", |l| l.starts_with("event move 3 white g2g4"));
    let mut bca = bca;
    assert!(bca.ask("move 2... 4884").starts_with("ok"));
    let mate = expect_queued(&bca, 4);
    expect_sent(&bca, &mate);
    let mail = delivered_with(&outbox, 4, &mate);
    assert!(
        mail.contains("In-Reply-To: <BCA-7.2@example.org>"),
        "{mail}"
    );
    let references = mail
        .lines()
        .skip_while(|l| !l.starts_with("References:"))
        .take_while(|l| l.starts_with("References:") || l.starts_with(' '))
        .collect::<String>();
    for id in ["<BCA-7.1@example.org>", "<BCA-7.2@example.org>", &first] {
        assert!(references.contains(id), "{id} not in {references}");
    }

    // The game is over; the arbiter begins BCA-8 at the table. Its moves are mailed under the
    // new id, with Message-IDs never used before, and no thread of the old game.
    assert!(
        arbiter
            .ask("new-game game_id BCA-8")
            .starts_with("ok new game")
    );
    assert!(bca.ask("move 1. 5254").starts_with("ok"));
    assert!(bca.ask("move 1... 5755").starts_with("ok"));
    let new_game = expect_queued(&bca, 2);
    assert!(new_game.contains("BCA-8"), "{new_game}");
    assert!(![&first, &correction, &replacement, &mate].contains(&&new_game));
    expect_sent(&bca, &new_game);
    let mail = delivered_with(&outbox, 5, &new_game);
    assert!(mail.contains("Subject: BCA-8: 1... 5755"), "{mail}");
    assert!(mail.contains("Game: BCA-8"), "{mail}");
    assert!(!mail.contains("References:"), "{mail}");

    // The new id is the journal's: after a restart Bob's message for BCA-8 is read and the
    // reply answers it under BCA-8.
    drop(bca);
    drop(arbiter);
    let mut daemon = daemon;
    daemon.terminate();
    let daemon = start(&dir, &config);
    let mut bca = daemon.watching("assistant", "bca-7");
    receive(&inbox, 1, "BCA-8", "5254 5755 7163");
    bca.expect_event("Bob's move in BCA-8", |l| {
        l.starts_with("event move 3 white g1f3")
    });
    assert!(bca.ask("move 2... 2836").starts_with("ok"));
    let answer = expect_queued(&bca, 4);
    expect_sent(&bca, &answer);
    let mail = delivered_with(&outbox, 6, &answer);
    assert!(mail.contains("Game: BCA-8"), "{mail}");
    assert!(
        mail.contains("In-Reply-To: <BCA-8.1@example.org>"),
        "{mail}"
    );
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_refused_recipient_is_parked_and_told_while_the_other_game_goes_through_and_bounces_requeue() {
    let dir = scratch_dir("mail-replies-refused");
    let inbox = maildir(&dir.join("anna"));
    let outbox = dir.join("opponents");
    let port = free_port();
    let _smtp = refusing_smtp_server(port, &outbox);
    let config = config(&dir, &inbox, port);
    let daemon = start(&dir, &config);
    let mut iccf = daemon.watching("assistant", "iccf-2");
    let mut bca = daemon.watching("assistant", "bca-7");

    // His 1. e4 to Carol: her address is refused for good (550): told, parked.
    assert!(iccf.ask("move 1. 5254").starts_with("ok"));
    let refused = expect_queued(&iccf, 1);
    let line = iccf.expect_event("the refusal", |l| l.starts_with("event mail undelivered "));
    assert!(line.contains(&refused) && line.contains("550"), "{line}");
    iccf.expect_event("the refusal told", |l| {
        l.starts_with("event say blind Antwort an Carol Smith nicht zugestellt: ")
    });
    // Bob's game is not held back.
    receive(&inbox, 1, "BCA-7", "6263");
    bca.expect_event("Bob's move", |l| l.starts_with("event move 1 white f2f3"));
    assert!(bca.ask("move 1... 5755").starts_with("ok"));
    let to_bob = expect_queued(&bca, 2);
    expect_sent(&bca, &to_bob);
    // `mail retry` tries the parked reply again: refused again, told again.
    assert_eq!(iccf.ask("mail retry"), "ok mail 1 requeued");
    iccf.expect_event("the second refusal", |l| {
        l.starts_with(&format!("event mail undelivered {refused}"))
    });

    // A bounce of the reply to Bob (Postfix's RFC 3464 report): told, the reply sent again,
    // once; a second bounce of it is told and not requeued.
    let bounce = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mail/bounces/postfix-rfc3464.eml"),
    )
    .unwrap()
    .replace("{message_id}", &to_bob)
    .replace("{subject}", "BCA-7: 1... 5755 (Bob Jones - Anna Schmidt)");
    deliver_file(&inbox, "1764000100.b1.host", &bounce);
    bca.expect_event("the bounce", |l| {
        l.starts_with(&format!("event mail bounced {to_bob}")) && l.contains("550")
    });
    bca.heard("Antwort an Bob Jones nicht zugestellt");
    expect_sent(&bca, &to_bob);
    let copies = delivered(&outbox, 2)
        .iter()
        .filter(|m| m.contains(&format!("Message-ID: {to_bob}")))
        .count();
    assert_eq!(copies, 2);
    deliver_file(&inbox, "1764000200.b2.host", &bounce);
    bca.expect_event("the second bounce", |l| {
        l.starts_with(&format!("event mail bounced {to_bob}"))
    });
    // A bounce that quotes only the subject (qmail's, its Message-ID line lost) is matched by
    // it: the subject begins with the game's id.
    let by_subject = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mail/bounces/qmail.eml"),
    )
    .unwrap()
    .replace("Message-ID: {message_id}\n", "")
    .replace("{subject}", "BCA-7: 1... 5755 (Bob Jones - Anna Schmidt)");
    deliver_file(&inbox, "1764000250.b4.host", &by_subject);
    bca.expect_event("the bounce by subject", |l| {
        l.starts_with(&format!("event mail bounced {to_bob}"))
    });
    // A bounce naming none of his replies is logged, never said: the next event at the table
    // is his own next reply, not a bounce.
    let other = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mail/bounces/not-ours.eml"),
    )
    .unwrap();
    deliver_file(&inbox, "1764000300.b3.host", &other);
    receive(&inbox, 2, "BCA-7", "6263 5755 7274");
    bca.expect_event("Bob's move", |l| l.starts_with("event move 3 white g2g4"));
    assert!(bca.ask("move 2... 4884").starts_with("ok"));
    let line = bca.expect_event("the next reply", |l| {
        l.starts_with("event mail bounced ") || l.starts_with("event mail queued 4 ")
    });
    assert!(line.starts_with("event mail queued 4 "), "{line}");
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn after_a_restart_he_hears_what_waits_to_go_out() {
    let dir = scratch_dir("mail-replies-waiting");
    let inbox = maildir(&dir.join("anna"));
    let outbox = dir.join("opponents");
    // No server listens yet: the replies wait in the queue.
    let port = free_port();
    let config = config(&dir, &inbox, port);
    let mut daemon = start(&dir, &config);
    let mut bca = daemon.watching("assistant", "bca-7");
    let mut arbiter = daemon.watching("arbiter", "bca-7");
    receive(&inbox, 1, "BCA-7", "6263");
    bca.expect_event("Bob's move", |l| l.starts_with("event move 1 white f2f3"));
    assert!(bca.ask("move 1... 5755").starts_with("ok"));
    expect_queued(&bca, 2);
    assert!(arbiter.ask("undo").starts_with("ok withdrawn"));
    expect_queued(&bca, 1);
    daemon.terminate();

    let _daemon = start(&dir, &config);
    transcript_holds(&dir, "zwei Antworten an Bob Jones warten auf Versand", 1);
    // The server comes up: both go out, each told.
    let _smtp = refusing_smtp_server(port, &outbox);
    transcript_holds(&dir, "Antwort an Bob Jones gesendet", 2);
    assert_eq!(delivered(&outbox, 2).len(), 2);
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn his_draw_offer_and_resignation_are_mailed_once_each() {
    let dir = scratch_dir("mail-replies-intents");
    let inbox = maildir(&dir.join("anna"));
    let outbox = dir.join("opponents");
    let port = free_port();
    let _smtp = refusing_smtp_server(port, &outbox);
    let config = config(&dir, &inbox, port);
    let mut daemon = start(&dir, &config);
    let mut bca = daemon.watching("assistant", "bca-7");
    receive(&inbox, 1, "BCA-7", "6263");
    bca.expect_event("Bob's move", |l| l.starts_with("event move 1 white f2f3"));
    // His draw offer before his move is mailed at once, with the record as it stands.
    assert!(bca.ask("offer-draw").starts_with("ok"));
    let offer = expect_queued(&bca, 1);
    expect_sent(&bca, &offer);
    // His move follows; the offer, still standing, is not mailed again.
    assert!(bca.ask("move 1... 5755").starts_with("ok"));
    let reply = expect_queued(&bca, 2);
    assert_ne!(reply, offer);
    // A restart does not mail the standing offer again; his resignation is mailed once.
    daemon.terminate();
    let daemon = start(&dir, &config);
    let mut bca = daemon.watching("assistant", "bca-7");
    assert!(bca.ask("resign").starts_with("ok"));
    let resign = expect_queued(&bca, 2);
    assert!(![&offer, &reply].contains(&&resign));
    expect_sent(&bca, &resign);
    // The mark names each intent once.
    let mark = fs::read_to_string(dir.join("state/mail-sent/bca-7")).unwrap();
    let intents: Vec<&str> = mark.lines().filter(|l| l.starts_with("intent ")).collect();
    assert_eq!(intents, ["intent offer.1", "intent resign"], "{mark}");
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn accepting_the_opponents_draw_offer_is_mailed() {
    let dir = scratch_dir("mail-replies-accept");
    let inbox = maildir(&dir.join("anna"));
    let outbox = dir.join("opponents");
    let port = free_port();
    let _smtp = refusing_smtp_server(port, &outbox);
    let config = config(&dir, &inbox, port);
    let daemon = start(&dir, &config);
    let mut bca = daemon.watching("assistant", "bca-7");
    let mut bob = daemon.watching("white", "bca-7");
    receive(&inbox, 1, "BCA-7", "6263");
    bca.expect_event("Bob's move", |l| l.starts_with("event move 1 white f2f3"));
    assert!(bca.ask("move 1... 5755").starts_with("ok"));
    expect_queued(&bca, 2);
    receive(&inbox, 2, "BCA-7", "6263 5755 7274");
    bca.expect_event("Bob's move", |l| l.starts_with("event move 3 white g2g4"));
    // Bob's offer (as the reading of his mail would make it), then his acceptance.
    let offered = bob.ask("offer-draw");
    assert!(offered.starts_with("ok"), "{offered}");
    let agreed = bca.ask("offer-draw");
    assert!(agreed.starts_with("ok"), "{agreed}");
    let accepted = expect_queued(&bca, 3);
    expect_sent(&bca, &accepted);
    let mark = fs::read_to_string(dir.join("state/mail-sent/bca-7")).unwrap();
    let intents: Vec<&str> = mark.lines().filter(|l| l.starts_with("intent ")).collect();
    assert_eq!(intents, ["intent accept"], "{mark}");
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_mark_of_the_old_format_is_read_and_nothing_is_mailed_twice() {
    let dir = scratch_dir("mail-replies-old-mark");
    let inbox = maildir(&dir.join("anna"));
    let outbox = dir.join("opponents");
    let port = free_port();
    let _smtp = refusing_smtp_server(port, &outbox);
    let config = config(&dir, &inbox, port);
    let mut daemon = start(&dir, &config);
    let mut bca = daemon.watching("assistant", "bca-7");
    receive(&inbox, 1, "BCA-7", "6263");
    bca.expect_event("Bob's move", |l| l.starts_with("event move 1 white f2f3"));
    assert!(bca.ask("move 1... 5755").starts_with("ok"));
    let first = expect_queued(&bca, 2);
    expect_sent(&bca, &first);
    daemon.terminate();
    // The mark as the last version wrote it: the last half-move queued, one number.
    fs::write(dir.join("state/mail-sent/bca-7"), "2\n").unwrap();
    let daemon = start(&dir, &config);
    let mut bca = daemon.watching("assistant", "bca-7");
    receive(&inbox, 2, "BCA-7", "6263 5755 7274");
    bca.expect_event("Bob's move", |l| l.starts_with("event move 3 white g2g4"));
    assert!(bca.ask("move 2... 4884").starts_with("ok"));
    // The next reply queued is the new one, not 1... e5 again.
    let line = bca.expect_event("the next reply", |l| l.starts_with("event mail queued "));
    assert!(line.starts_with("event mail queued 4 "), "{line}");
    let mate = queued_id(&line);
    expect_sent(&bca, &mate);
    // `mail resend`: the last reply again with its record, a new Message-ID naming the
    // original in References.
    assert_eq!(
        bca.ask("mail resend bca-7"),
        format!("ok mail resent {mate}")
    );
    let again = expect_queued(&bca, 4);
    assert_ne!(again, mate);
    expect_sent(&bca, &again);
    let mail = delivered_with(&outbox, 3, &again);
    assert!(mail.contains(&mate), "{mail}");
    assert!(mail.contains("has not been answered"), "{mail}");
    assert!(mail.contains("2... 4884"), "{mail}");
    assert!(
        bca.ask("mail resend nowhere")
            .starts_with("error syntax no correspondence table")
    );
    let mark = fs::read_to_string(dir.join("state/mail-sent/bca-7")).unwrap();
    assert!(mark.starts_with("annabella-replies 2\n"), "{mark}");
    assert!(mark.contains("record 6263 5755 7274 4884"), "{mark}");
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_mark_reads_back_as_written_bounded_and_tells_a_reply_unanswered_for_14_days() {
    use annabella::io::mail_out::{ReplyMark, SentReply, bracketed};
    let dir = scratch_dir("mail-replies-mark");
    let day = 24 * 3600 * 1000;
    let mut mark = ReplyMark::new("BCA-7", 1_764_000_000_000);
    mark.ply = 2;
    mark.record = vec!["6263".into(), "5755".into()];
    mark.received = Some(("<BCA-7.1@example.org>".into(), 1_764_000_100_000));
    for n in 0..60 {
        mark.thread_add(&format!("t{n}@example.org"));
    }
    mark.sent.push(SentReply {
        message_id: "<annabella.bca-7.2@example.org>".into(),
        ply: 2,
        accepted_ms: Some(1_764_000_200_000),
        requeued: true,
        overdue_told: false,
    });
    mark.intents.push("offer.1".into());
    mark.write(&dir, "bca-7").unwrap();
    let back = ReplyMark::read(&dir.join("bca-7")).unwrap().unwrap();
    assert_eq!(back, mark);
    // The thread keeps its newest 40, in angle brackets.
    assert_eq!(back.thread.len(), 40);
    assert_eq!(back.thread.last().unwrap(), "<t59@example.org>");
    // The old format: one number.
    fs::write(dir.join("old"), "7\n").unwrap();
    assert_eq!(ReplyMark::read(&dir.join("old")), Some(Err(7)));
    assert_eq!(ReplyMark::read(&dir.join("none")), None);
    // 14 days after the server accepted it, with no message since: told, with the days.
    let accepted = 1_764_000_200_000;
    assert_eq!(mark.unanswered(accepted + 13 * day, 14 * day), None);
    assert_eq!(
        mark.unanswered(accepted + 15 * day, 14 * day),
        Some(("<annabella.bca-7.2@example.org>".to_owned(), 15))
    );
    // An answer since, or told already: not again.
    let mut answered = mark.clone();
    answered.received = Some(("<BCA-7.2@example.org>".into(), accepted + day));
    assert_eq!(answered.unanswered(accepted + 15 * day, 14 * day), None);
    let mut told = mark.clone();
    told.sent[0].overdue_told = true;
    assert_eq!(told.unanswered(accepted + 15 * day, 14 * day), None);
    // Message-IDs get their angle brackets; one that would break a header is refused.
    assert_eq!(bracketed("a.b@c").as_deref(), Some("<a.b@c>"));
    assert_eq!(bracketed(" <a.b@c> ").as_deref(), Some("<a.b@c>"));
    assert_eq!(bracketed("a b@c"), None);
    assert_eq!(bracketed("<a\r\nBcc: x@y>"), None);
    assert_eq!(bracketed("<>"), None);
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn each_common_bounce_format_names_the_reply_that_bounced() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mail/bounces");
    let id = "<annabella.bca-7.BCA-7.1764000000000.2@example.org>";
    let subject = "BCA-7: 1... 5755 (Bob Jones - Anna Schmidt)";
    for name in [
        "postfix-rfc3464.eml",
        "gmail-dsn.eml",
        "exim.eml",
        "qmail.eml",
        "exchange-undeliverable.eml",
    ] {
        let raw = fs::read_to_string(samples.join(name))
            .unwrap()
            .replace("{message_id}", id)
            .replace("{subject}", subject);
        let m = parse_message(raw.as_bytes(), name).unwrap();
        let bounce = m
            .bounce
            .unwrap_or_else(|| panic!("{name} not read as a bounce"));
        assert_eq!(bounce.original_ids, vec![id.to_owned()], "{name}");
        assert_eq!(bounce.original_subject.as_deref(), Some(subject), "{name}");
        assert!(
            bounce.reason.contains("550") || bounce.reason.contains("couldn't be delivered"),
            "{name}: {}",
            bounce.reason
        );
    }
    let other = fs::read_to_string(samples.join("not-ours.eml")).unwrap();
    let m = parse_message(other.as_bytes(), "not-ours.eml").unwrap();
    assert_eq!(
        m.bounce.unwrap().original_ids,
        vec!["<holiday-greetings.17@example.org>".to_owned()]
    );
    // A game message from the opponent is no bounce.
    let genuine = "From: Bob Jones <bob@example.org>\r\nSubject: BCA-7: 1. 6263\r\n\
                   Message-ID: <BCA-7.1@example.org>\r\n\r\nGame: BCA-7\r\n1. 6263\r\n";
    assert!(
        parse_message(genuine.as_bytes(), "g")
            .unwrap()
            .bounce
            .is_none()
    );
}
