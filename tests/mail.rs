//! Correspondence mail against the real thing: a real SMTP server process (Python's aiosmtpd,
//! `scripts/ensure-deps.sh` installs it) receiving what the queue sends — exactly once across a
//! restart, retried while the server is down — and real Maildir files with RFC 5322 messages
//! (quoted-printable, a quoted reply, a disagreeing record, an oversize file, garbage).

pub mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant, SystemTime};

use annabella::chess::game::Game;
use annabella::chess::language::Language;
use annabella::chess::notation::{Notation, parse_move};
use annabella::correspondence::message::{
    self, Date, GameId, GameMessage, IccfMove, Verdict, compose,
};
use annabella::io::mail_out::{
    Destination, MailQueue, Outgoing, Security, SendReport, SmtpServer, run_sender,
};
use annabella::io::maildir::{Maildir, Unreadable};
use common::WAIT;
use common::fs::scratch_dir;
use common::mail::{delivered, smtp_server};
use common::net::free_port;

// 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O.
const RUY: &str = "5254 5755 7163 2836 6125 1716 2514 7866 5171 6857 6151 2725 1423 4746 3233 5878";

fn moves(text: &str) -> Vec<IccfMove> {
    text.split_whitespace()
        .map(|t| IccfMove::new(t).unwrap())
        .collect()
}

fn game_of(record: &[IccfMove]) -> Game {
    let mut g = Game::new();
    for m in record {
        let mv = parse_move(
            g.position(),
            g.castling_mode(),
            m.as_str(),
            Some(Notation::Iccf),
            Language::english(),
        )
        .unwrap();
        g.play(mv).unwrap();
    }
    g
}

fn game_message(plies: usize) -> GameMessage {
    GameMessage {
        game: GameId::new("BCA-7").unwrap(),
        white: "Anna Schmidt".into(),
        black: "Bob Jones".into(),
        record: moves(RUY)[..plies].to_vec(),
        received: Date::new(2026, 11, 20),
        sent: Date::new(2026, 11, 23).unwrap(),
        used_days: 3,
        total_days: [12, 9],
        text: Some("Grüße aus Köln — à bientôt".into()),
        intents: Vec::new(),
    }
}

fn outgoing(plies: usize) -> Outgoing {
    let (subject, body) = compose(&game_message(plies));
    Outgoing {
        to: "bob@example.org".into(),
        subject,
        body,
        in_reply_to: Some("<bob.1@example.org>".into()),
        references: Vec::new(),
    }
}

fn server_at(port: u16) -> Destination {
    Destination::Smtp(SmtpServer::new(&format!("127.0.0.1:{port}"), None).unwrap())
}

#[test]
fn smtp_sends_each_message_once_across_a_restart() {
    let dir = scratch_dir("mail-smtp");
    let (state, mailbox) = (dir.join("state"), dir.join("mailbox"));
    let port = free_port();
    let _server = smtp_server(port, &mailbox);
    let to = server_at(port);
    let queue = MailQueue::open(&state, "Anna Schmidt <anna@example.org>").unwrap();
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_795_400_000);
    let first = queue.enqueue(&outgoing(15), now, 1).unwrap();
    let second = queue
        .enqueue(&outgoing(15), now + Duration::from_secs(1), 2)
        .unwrap();
    assert_ne!(first, second);
    assert_eq!(queue.pending().unwrap().len(), 2);
    let (sent, failure) = queue.deliver(&to);
    assert!(failure.is_none(), "{failure:?}");
    assert_eq!(sent, 2);
    assert!(queue.pending().unwrap().is_empty());

    // What the server received reads back through the Maildir reader and the message parser.
    assert_eq!(delivered(&mailbox, 2).len(), 2);
    let mut inbox = Maildir::open(&mailbox).unwrap();
    let scan = inbox.scan(10, settled(), |_| Some(0)).unwrap();
    assert!(scan.problems.is_empty(), "{:?}", scan.problems);
    assert_eq!(scan.messages.len(), 2);
    let mut ids: Vec<String> = scan
        .messages
        .iter()
        .map(|m| format!("<{}>", m.message_id.clone().unwrap()))
        .collect();
    ids.sort();
    let mut want = vec![first.clone(), second];
    want.sort();
    assert_eq!(ids, want);
    for m in &scan.messages {
        assert_eq!(m.from.as_deref(), Some("anna@example.org"));
        assert!(m.body.contains("Grüße aus Köln — à bientôt"), "{}", m.body);
        let p = message::parse(&m.subject, &m.body).unwrap();
        let sent = game_of(&moves(RUY)[..15]);
        assert_eq!(
            message::check_against(&p, &sent, Language::english()),
            Verdict::NothingNew { behind: 0 }
        );
        assert_eq!(p.game.as_ref().unwrap().as_str(), "BCA-7");
        inbox.mark_handled(&m.file, true).unwrap();
    }

    // A restart: a new queue over the same state directory sends only what is still queued.
    queue
        .enqueue(&outgoing(15), now + Duration::from_secs(2), 3)
        .unwrap();
    drop(queue);
    let restarted = MailQueue::open(&state, "anna@example.org").unwrap();
    let queued = restarted.pending().unwrap();
    assert_eq!(queued.len(), 1);
    let kept = queued[0].clone();
    let (sent, failure) = restarted.deliver(&to);
    assert!(failure.is_none(), "{failure:?}");
    assert_eq!(sent, 1);
    assert_eq!(delivered(&mailbox, 1).len(), 1);
    let again = restarted.deliver(&to);
    assert_eq!((again.0, again.1.is_none()), (0, true));

    // The one window left: the server accepted, the process died before the file was removed.
    // The same bytes go again with the same Message-ID, which tells the duplicate.
    fs::write(&kept.path, &kept.bytes).unwrap();
    let resent = MailQueue::open(&state, "anna@example.org")
        .unwrap()
        .deliver(&to);
    assert_eq!((resent.0, resent.1.is_none()), (1, true));
    let scan = inbox.scan(10, settled(), |_| Some(0)).unwrap();
    assert_eq!(scan.messages.len(), 2);
    assert_eq!(scan.messages[0].message_id, scan.messages[1].message_id);
    assert_eq!(
        format!("<{}>", scan.messages[0].message_id.clone().unwrap()),
        kept.message_id
    );
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_server_that_is_down_is_retried_until_it_accepts() {
    let dir = scratch_dir("mail-retry");
    let (state, mailbox) = (dir.join("state"), dir.join("mailbox"));
    let port = free_port();
    let queue = MailQueue::open(&state, "anna@example.org").unwrap();
    let id = queue.enqueue(&outgoing(15), SystemTime::now(), 42).unwrap();
    let (wake, woken) = channel();
    let (events, heard) = channel();
    let sender_queue = queue.clone();
    let to = server_at(port);
    let sender = std::thread::spawn(move || {
        run_sender(
            &sender_queue,
            &to,
            &woken,
            Duration::from_millis(100),
            |report| {
                let heard = match report {
                    SendReport::Sent { .. } => (1, None),
                    SendReport::Deferred { error, .. } | SendReport::Parked { error, .. } => {
                        (0, Some(error.to_string()))
                    }
                };
                events.send(heard).ok();
            },
        );
    });
    // Nothing listens: failures, each reported, the message still queued.
    for _ in 0..2 {
        let (sent, failure) = heard.recv_timeout(WAIT).unwrap();
        assert_eq!(sent, 0);
        assert!(failure.unwrap().starts_with("SMTP"));
    }
    assert_eq!(queue.pending().unwrap().len(), 1);
    // The server comes up: the next attempt delivers it, once.
    let _server = smtp_server(port, &mailbox);
    let deadline = Instant::now() + WAIT;
    loop {
        let (sent, failure) = heard.recv_timeout(WAIT).unwrap();
        if sent == 1 {
            assert!(failure.is_none());
            break;
        }
        assert!(Instant::now() < deadline, "never delivered");
    }
    assert!(queue.pending().unwrap().is_empty());
    let files = delivered(&mailbox, 1);
    assert_eq!(files.len(), 1);
    let text = fs::read_to_string(&files[0]).unwrap();
    assert!(text.contains(id.trim_matches(['<', '>'])), "{text}");
    assert!(text.contains("In-Reply-To: <bob.1@example.org>"), "{text}");
    // A message enqueued later is sent when the sender is woken.
    queue.enqueue(&outgoing(15), SystemTime::now(), 43).unwrap();
    wake.send(()).unwrap();
    let (sent, failure) = heard.recv_timeout(WAIT).unwrap();
    assert_eq!((sent, failure), (1, None));
    assert_eq!(delivered(&mailbox, 2).len(), 2);
    drop(wake);
    sender.join().unwrap();
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn without_a_server_messages_go_to_the_outbox_and_plain_smtp_stays_on_loopback() {
    let dir = scratch_dir("mail-outbox");
    let queue = MailQueue::open(&dir, "anna@example.org").unwrap();
    let id = queue.enqueue(&outgoing(15), SystemTime::now(), 7).unwrap();
    let outbox = Destination::Outbox(dir.join("outbox"));
    let (sent, failure) = queue.deliver(&outbox);
    assert!(failure.is_none(), "{failure:?}");
    assert_eq!(sent, 1);
    let files: Vec<PathBuf> = fs::read_dir(dir.join("outbox"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1);
    let text = fs::read_to_string(&files[0]).unwrap();
    assert!(text.contains(&format!("Message-ID: {id}")), "{text}");
    assert!(text.contains("To: bob@example.org"), "{text}");
    assert!(queue.pending().unwrap().is_empty());

    let refused = SmtpServer::new("mail.example.org:25", Some(Security::Plain))
        .unwrap_err()
        .to_string();
    assert!(refused.contains("loopback"), "{refused}");
    assert_eq!(
        SmtpServer::new("smtp.example.org:465", Some(Security::Tls))
            .unwrap()
            .security,
        Security::Tls
    );
    assert_eq!(
        SmtpServer::new("[::1]:25", None).unwrap().security,
        Security::Plain
    );
    for (address, want) in [
        ("mailhost", "\"mailhost\" is not HOST:PORT"),
        (
            "mailhost:0",
            "\"mailhost:0\": the port is not a number from 1 to 65535",
        ),
        (":25", "\":25\": no host"),
        (
            "mail.example.org:25",
            "\"mail.example.org:25\": plain SMTP is allowed only to a loopback address; \
             use smtp_security = \"starttls\" or \"tls\"",
        ),
    ] {
        let security = Some(Security::Plain);
        let err = SmtpServer::new(address, security).unwrap_err().to_string();
        assert_eq!(err, want, "{address}");
    }
    // A queued file spoilt by hand is set aside instead of blocking the queue; a temporary
    // file a crash left is removed when the queue opens.
    fs::write(queue.dir().join("1.0000000000000000.eml"), "garbage").unwrap();
    fs::write(queue.dir().join(".2.eml.tmp"), "half").unwrap();
    let queue = MailQueue::open(&dir, "anna@example.org").unwrap();
    assert!(!queue.dir().join(".2.eml.tmp").exists());
    assert!(queue.pending().unwrap().is_empty());
    assert!(queue.dir().join("1.0000000000000000.eml.bad").exists());
    // A bad recipient is refused before anything is queued.
    let mut bad = outgoing(15);
    bad.to = "not an address".into();
    assert!(queue.enqueue(&bad, SystemTime::now(), 8).is_err());
    assert!(queue.pending().unwrap().is_empty());
    fs::remove_dir_all(&dir).ok();
}

fn maildir(dir: &Path) -> PathBuf {
    let root = dir.join("Mail");
    for sub in ["new", "cur", "tmp"] {
        fs::create_dir_all(root.join(sub)).unwrap();
    }
    root
}

/// Bob's reply, quoted-printable, his move at the top and Anna's message quoted below.
fn quoted_printable_reply() -> String {
    let (subject, body) = compose(&game_message(15));
    let quoted: String = body.lines().map(|l| format!("> {l}\r\n")).collect();
    let text =
        format!("8... 5878\r\n\r\nSch=C3=B6ne Gr=C3=BC=C3=9Fe, Bob\r\n\r\nAnna wrote:\r\n{quoted}");
    format!(
        "From: Bob Jones <bob@example.org>\r\nTo: anna@example.org\r\nSubject: Re: {subject}\r\n\
         Date: Tue, 24 Nov 2026 08:00:00 +0100\r\nMessage-ID: <bob.2@example.org>\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Transfer-Encoding: quoted-printable\r\n\r\n{text}"
    )
}

#[test]
fn a_maildir_is_read_and_handled_messages_move_to_cur() {
    let dir = scratch_dir("mail-maildir");
    let root = maildir(&dir);
    let new = root.join("new");
    fs::write(new.join("1795500000.1.host"), quoted_printable_reply()).unwrap();
    // The same move written by hand in a base64 body, without a number.
    let b64 = "NTg3OAoKPiBHYW1lOiBCQ0EtNwo+IE1vdmVzOgo+IDEuIDUyNTQgNTc1NSAyLiA3MTYzIDI4MzYg\r\nMy4gNjEyNSAxNzE2IDQuIDI1MTQgNzg2NiA1LiA1MTcxIDY4NTcgNi4gNjE1MSAyNzI1IDcuIDE0\r\nMjMgNDc0NiA4LiAzMjMzCg==\r\n";
    fs::write(
        new.join("1795500001.2.host"),
        format!("From: bob@example.org\r\nSubject: Re: BCA-7\r\nMessage-ID: <bob.3@example.org>\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n{b64}"),
    )
    .unwrap();
    // A record that disagrees with the game at Black's sixth move.
    let mut wrong = game_message(16);
    wrong.record[11] = IccfMove::new("7776").unwrap();
    let (subject, body) = compose(&wrong);
    fs::write(
        new.join("1795500002.3.host"),
        format!(
            "From: bob@example.org\nSubject: {subject}\nMessage-ID: <bob.4@example.org>\n\n{body}"
        ),
    )
    .unwrap();
    // An oversize file and garbage: left in new/, reported once.
    fs::write(
        new.join("1795500003.4.host"),
        vec![b'x'; (annabella::io::maildir::MAX_MESSAGE_BYTES + 1) as usize],
    )
    .unwrap();
    fs::write(
        new.join("1795500004.5.host"),
        [0u8, 159, 146, 150, 255, 10, 0],
    )
    .unwrap();
    fs::write(new.join(".hidden"), "not a message").unwrap();

    let mut inbox = Maildir::open(&root).unwrap();
    let scan = inbox.scan(100, settled(), |_| Some(0)).unwrap();
    assert_eq!(scan.messages.len(), 3, "{:?}", scan.messages);
    assert!(
        matches!(
            &scan.problems[..],
            [Unreadable::TooLarge { file: a, .. }, Unreadable::NotMail { file: b }]
                if a == "1795500003.4.host" && b == "1795500004.5.host"
        ),
        "{:?}",
        scan.problems
    );

    let game = game_of(&moves(RUY)[..15]);
    let read: Vec<_> = scan
        .messages
        .iter()
        .map(|m| message::parse(&m.subject, &m.body).unwrap())
        .collect();
    assert!(scan.messages[0].body.contains("Schöne Grüße, Bob"));
    assert_eq!(scan.messages[0].from.as_deref(), Some("bob@example.org"));
    assert_eq!(
        scan.messages[0].message_id.as_deref(),
        Some("bob.2@example.org")
    );
    assert_eq!(scan.messages[0].date_unix, Some(1_795_503_600));
    for p in &read[..2] {
        assert_eq!(p.game.as_ref().unwrap().as_str(), "BCA-7");
        match message::check_against(p, &game, Language::english()) {
            Verdict::NewMove { ply: 15, mv } => assert!(mv.is_castle()),
            v => panic!("{v:?}"),
        }
    }
    let Verdict::NewMove { mv, .. } = message::check_against(&read[0], &game, Language::german())
    else {
        panic!("no new move")
    };
    let id = read[0].game.clone().unwrap();
    let summary = message::summary_for_ear(&read[0], &id, &game, mv, Language::german());
    assert!(
        summary.starts_with("Partie BCA-7, Bob Jones: Zug acht, Schwarz: ")
            && summary.contains("Rochade")
            && summary.ends_with("Bedenkzeit drei Tage"),
        "{summary}"
    );
    let Verdict::Disagrees(d) = message::check_against(&read[2], &game, Language::english()) else {
        panic!("the wrong record was taken")
    };
    assert_eq!(d.first, "6...");
    assert!(d.message_record.contains("6. 6151 7776"), "{d}");
    assert!(d.game_record.contains("6. 6151 2725"), "{d}");

    for m in &scan.messages {
        inbox.mark_handled(&m.file, true).unwrap();
    }
    let mut cur: Vec<String> = fs::read_dir(root.join("cur"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    cur.sort();
    assert_eq!(
        cur,
        [
            "1795500000.1.host:2,S",
            "1795500001.2.host:2,S",
            "1795500002.3.host:2,S"
        ]
    );
    // The unreadable stay, and are not reported again.
    let again = inbox.scan(100, settled(), |_| Some(0)).unwrap();
    assert!(
        again.messages.is_empty() && again.problems.is_empty(),
        "{again:?}"
    );
    assert!(new.join("1795500003.4.host").exists() && new.join("1795500004.5.host").exists());
    // A new delivery is found on the next look; a bound on the count is kept.
    fs::write(new.join("1795500005.6.host"), quoted_printable_reply()).unwrap();
    fs::write(new.join("1795500006.7.host"), quoted_printable_reply()).unwrap();
    assert_eq!(
        inbox
            .scan(1, settled(), |_| Some(0))
            .unwrap()
            .messages
            .len(),
        1
    );
    assert!(Maildir::open(&dir.join("nothing")).is_err());
    assert!(inbox.mark_handled("../escape", true).is_err());
    fs::remove_dir_all(&dir).ok();
}

/// A look taken after every file written by the test has settled (the Maildir reader leaves a
/// file younger than a second for a later look, as one may still be being written).
fn settled() -> std::time::SystemTime {
    std::time::SystemTime::now() + std::time::Duration::from_secs(5)
}
