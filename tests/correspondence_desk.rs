//! The correspondence desk through the real daemon: two games by mail on the blind player's one
//! peg board (a simulated board on a pseudo-terminal), a real SMTP server process (Python's
//! aiosmtpd) delivering his replies into the opponents' Maildir, the opponents' messages
//! written as RFC 5322 files into his Maildir; a whole game with a restart in the middle; and
//! the set-up guidance followed, instruction by instruction, from a board set up for another
//! game.

pub mod common;

use std::fs;
use std::path::{Path, PathBuf};

use annabella::correspondence::message::{Date, GameId, GameMessage, IccfMove, compose};
use common::board::SimulatedBoard;
use common::control::ControlClient;
use common::daemon::{Daemon, Serve};
use common::fs::scratch_dir;
use common::mail::{maildir, smtp_server};
use common::net::free_port;

/// The messages in `mailbox/new`, waiting up to the tests' patience for `count` of them.
fn delivered(mailbox: &Path, count: usize) -> Vec<String> {
    common::mail::delivered(mailbox, count)
        .iter()
        .map(|f| fs::read_to_string(f).unwrap())
        .collect()
}

/// The opponent's message, as his mail client would leave it in the player's Maildir.
fn receive(inbox: &Path, n: u32, game: &str, record: &str, from: &str) {
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
        "From: {from}\r\nTo: anna@example.org\r\nSubject: {subject}\r\n\
         Message-ID: <{game}.{n}@example.org>\r\nDate: Mon, 23 Nov 2026 10:00:00 +0000\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{}",
        body.replace('\n', "\r\n")
    );
    let name = format!("1764000000.{n}_{game}.host");
    let tmp = inbox.join("tmp").join(&name);
    fs::write(&tmp, message).unwrap();
    fs::rename(&tmp, inbox.join("new").join(&name)).unwrap();
}

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
# Every legal move mailed at once: the confirm step has its own tests (`desk_confirm.rs`).
confirm = false

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

/// Follows the desk's set-up instructions on `board` until it says the board is ready;
/// returns how many instructions there were and the plan's announced length.
fn follow_set_up(board: &mut SimulatedBoard, c: &ControlClient) -> (usize, usize) {
    let mut planned = None;
    let mut followed = 0;
    loop {
        let line = c.expect_event("the desk's set-up", |l| {
            l.starts_with("event desk plan ")
                || l.starts_with("event desk set-up ")
                || l == "event desk ready"
        });
        if line == "event desk ready" {
            return (followed, planned.unwrap_or(0));
        }
        if let Some(n) = line.strip_prefix("event desk plan ") {
            planned.get_or_insert(n.parse().unwrap());
            continue;
        }
        let code = line
            .split_whitespace()
            .nth(4)
            .expect("an instruction's code");
        followed += 1;
        assert!(followed <= 64, "the set-up never ends: {line}");
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

/// The blind player's move on the peg board: a lift and a place (and the captured piece off
/// first).
fn peg_move(board: &mut SimulatedBoard, from: &str, to: &str) {
    board.hand(&format!("raw L{from}"));
    board.hand(&format!("raw P{to}"));
}

#[test]
fn a_whole_game_by_mail_on_the_shared_peg_board_with_a_restart() {
    let dir = scratch_dir("correspondence-desk");
    let inbox = maildir(&dir.join("anna"));
    let outbox = dir.join("opponents");
    let port = free_port();
    let _smtp = smtp_server(port, &outbox);
    let link = dir.join("peg");
    let mut board = SimulatedBoard::on_pty("peg", &link, &[]);
    let config = config(&dir, &link, &inbox, port);
    let mut daemon = start(&dir, &config);
    let mut iccf = daemon.watching("assistant", "iccf-2");
    let mut bca = daemon.watching("assistant", "bca-7");

    // He turns to ICCF-2 (he is White there): the board shows its start position, so it is
    // the game's at once; he plays 1. e4 and the reply goes out.
    assert_eq!(iccf.ask("focus iccf-2"), "ok focus iccf-2");
    iccf.expect_event("the board taken", |l| l == "event desk ready");
    peg_move(&mut board, "e2", "e4");
    iccf.expect_event("his move", |l| l.starts_with("event move 1 white e2e4"));
    iccf.expect_event("the reply queued", |l| {
        l.starts_with("event mail queued 1 ")
    });
    let sent = delivered(&outbox, 1);
    assert_eq!(sent.len(), 1, "{sent:#?}");
    assert!(sent[0].contains("To: carol@example.org"), "{}", sent[0]);
    assert!(sent[0].contains("ICCF-2: 1. 5254"), "{}", sent[0]);

    // Bob's first move for BCA-7 arrives by mail while the board is on ICCF-2.
    receive(&inbox, 1, "BCA-7", "6263", "bob@example.org");
    bca.expect_event("the mail move", |l| {
        l.starts_with("event move 1 white f2f3")
    });
    bca.heard("gegen Bob Jones, Sie haben Schwarz. Zug eins, Weiß: Felix drei");
    bca.expect_event("the message", |l| l.starts_with("event mail received 1 "));
    // The days his move cost as the BCA's rules count them from the message's arrival (a
    // reply within 24 hours costs none), not the "Time used: 1 day" his message claims.
    bca.heard("Bedenkzeit null Tage");

    // He lists his games, then turns to BCA-7: from 1. e4 on the board to 1. f3 takes two
    // moves of a pawn each.
    let games = bca.ask("games");
    assert_eq!(
        games,
        "ok games ICCF-2, gegen Carol Smith, Sie haben Weiß: Schwarz am Zug, noch \
         sechsunddreißig Tage. BCA-7, gegen Bob Jones, Sie haben Schwarz: Schwarz am Zug, noch \
         elf Tage, eine neue Nachricht"
    );
    assert_eq!(bca.ask("focus bca-7"), "ok focus bca-7");
    iccf.expect_event("the board leaves", |l| l == "event desk away");
    let (followed, planned) = follow_set_up(&mut board, &bca);
    assert_eq!((followed, planned), (2, 2));
    peg_move(&mut board, "e7", "e5");
    bca.expect_event("his move", |l| l.starts_with("event move 2 black e7e5"));
    bca.expect_event("the reply queued", |l| {
        l.starts_with("event mail queued 2 ")
    });
    let sent = delivered(&outbox, 2);
    assert!(
        sent.iter()
            .any(|m| m.contains("BCA-7: 1... 5755") && m.contains("To: bob@example.org")),
        "{sent:#?}"
    );

    // A message whose record is not the game's is reported, quoting both, and not applied.
    receive(&inbox, 2, "BCA-7", "6264 5755 7274", "bob@example.org");
    let refused = bca.expect_event("the refusal", |l| l.starts_with("event mail refused "));
    assert!(
        refused.contains("6264") && refused.contains("6263"),
        "{refused}"
    );
    // An illegal move (g2-g5) costs its sender a day under the BCA's rules.
    receive(&inbox, 4, "BCA-7", "6263 5755 7275", "bob@example.org");
    bca.heard(
        "gegen Bob Jones, Sie haben Schwarz: Nachricht nicht übernommen: Zug zwei, Weiß ist nicht zulässig oder nicht eindeutig",
    );
    // Leave: the BCA's email rules grant none; the ICCF's do.
    assert!(
        bca.ask("leave black 2026-12-20 2026-12-24")
            .starts_with("error state ")
    );
    assert_eq!(
        iccf.ask("leave white 2026-12-20 2026-12-24"),
        "ok leave white 2026-12-20 2026-12-24"
    );

    // Carol's reply for ICCF-2 arrives while the board is on BCA-7: a message waiting there.
    receive(&inbox, 5, "ICCF-2", "5254 5755", "carol@example.org");
    iccf.expect_event("carol's move", |l| l.starts_with("event move 2 black e7e5"));

    // A restart: the desk comes back on BCA-7 and the board as it is; nothing is sent twice,
    // and the message waiting for ICCF-2 still is.
    drop(iccf);
    drop(bca);
    daemon.terminate();
    // He hears what waits at his other game as the desk comes back.
    let transcript = dir.join("transcript.txt");
    let said_before = fs::read_to_string(&transcript).unwrap_or_default().len();
    let daemon = start(&dir, &config);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let said = fs::read_to_string(&transcript).unwrap_or_default();
        // (A transcript begun afresh is read from its start.)
        let from = if said.len() < said_before {
            0
        } else {
            said_before
        };
        if said[from..].lines().any(|l| {
            l.contains("gegen Carol Smith, Sie haben Weiß: Weiß am Zug")
                && l.contains("eine neue Nachricht")
        }) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the waiting message was not told after the restart: {}",
            &said[from..]
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let mut bca = daemon.watching("assistant", "bca-7");
    assert!(bca.ask("status").contains("ply 2"), "restored");
    let games = bca.ask("games");
    let iccf_entry = games.split(". BCA-7").next().unwrap_or_default();
    assert!(
        iccf_entry.starts_with("ok games ICCF-2, gegen Carol Smith, Sie haben Weiß: Weiß am Zug")
            && iccf_entry.ends_with("eine neue Nachricht"),
        "{games}"
    );
    receive(&inbox, 3, "BCA-7", "6263 5755 7274", "bob@example.org");
    bca.expect_event("the mail move", |l| {
        l.starts_with("event move 3 white g2g4")
    });
    // He copies Bob's move on his board, then mates: 2... Qh4#.
    peg_move(&mut board, "g2", "g4");
    bca.heard("in Ordnung");
    peg_move(&mut board, "d8", "h4");
    bca.expect_event("his mate", |l| l.starts_with("event move 4 black d8h4"));
    let archived = bca.expect_event("the archive", |l| l.starts_with("event archived "));
    bca.expect_event("the reply queued", |l| {
        l.starts_with("event mail queued 4 ")
    });
    // His two moves, his leave at ICCF-2 (mailed as an intent) and the mate.
    let sent = delivered(&outbox, 4);
    assert_eq!(sent.len(), 4, "one message per move, none twice: {sent:#?}");
    let last = sent
        .iter()
        .find(|m| m.contains("2... 4884"))
        .expect("the mate's reply");
    assert!(
        last.contains("1. 6263 5755") && last.contains("2. 7274 4884"),
        "{last}"
    );
    // The days as the BCA's rules charged them: Bob's penalty day, nothing else.
    assert!(
        last.contains("Time total: White 1 day, Black 0 days"),
        "{last}"
    );
    // Every message was handled and kept in cur/.
    assert_eq!(fs::read_dir(inbox.join("new")).unwrap().count(), 0);
    assert_eq!(fs::read_dir(inbox.join("cur")).unwrap().count(), 5);
    // The finished game's PGN keeps when each move was sent; its score is in Braille too.
    let pgn = fs::read_to_string(archived.trim_start_matches("event archived ")).unwrap();
    assert_eq!(pgn.matches("[%ccsnt ").count(), 4, "{pgn}");
    let brf = fs::read_to_string(dir.join("state/braille/bca-7.brf")).unwrap();
    assert!(brf.contains('4'), "{brf}");
}

#[test]
fn set_up_from_a_board_left_for_another_game_counts_its_instructions() {
    let dir = scratch_dir("correspondence-set-up");
    let inbox = maildir(&dir.join("anna"));
    let outbox = dir.join("opponents");
    let port = free_port();
    let _smtp = smtp_server(port, &outbox);
    let link = dir.join("peg");
    // The board still holds another game's position: 1. d4 d5 2. c4 e6.
    let other = "rnbqkbnr/ppp2ppp/4p3/3p4/2PP4/8/PP2PPPP/RNBQKBNR w KQkq - 0 3";
    let mut board = SimulatedBoard::on_pty("peg", &link, &["--fen", other]);
    let config = config(&dir, &link, &inbox, port);
    let daemon = start(&dir, &config);
    let mut bca = daemon.watching("assistant", "bca-7");
    // BCA-7 stands at 1. e4 e5 2. Nf3 Nc6 (played by the assistant, the board elsewhere).
    for m in ["1. 5254", "1... 5755", "2. 7163", "2... 2836"] {
        assert!(bca.ask(&format!("move {m}")).starts_with("ok"), "{m}");
    }
    // The first key G turns the board to the first game, ICCF-2, which is the start
    // position; the second to BCA-7.
    let iccf = daemon.watching("assistant", "iccf-2");
    board.hand("key G");
    iccf.expect_event("ICCF-2 taken", |l| l == "event desk focus");
    board.hand("key G");
    iccf.expect_event("ICCF-2 left", |l| l == "event desk away");
    bca.expect_event("BCA-7's turn", |l| l == "event desk focus");
    let (followed, planned) = follow_set_up(&mut board, &bca);
    // At the first G the board, never seen set up, was taken to hold ICCF-2's start position
    // wherever that has a piece; only the four pegs of 1. d4 d5 2. c4 e6 were unknown. From
    // there to BCA-7: those four come off (c4 d4 d5 e6), three pieces move (Ng1-f3, Nb8-c6, and
    // the pawn on e2 to d2, one of the pawns needed there), and four pawns go on (c2 e4 e5 d7):
    // eleven hand actions, said one at a time.
    assert_eq!((followed, planned), (11, 11));
    bca.wait_status("peg connected in-sync");
    // Bob's 3. Bb5 comes in; he copies it and answers 3... a6 on his board.
    assert!(bca.ask("move 3. 6125").starts_with("ok"));
    peg_move(&mut board, "f1", "b5");
    bca.heard("in Ordnung");
    peg_move(&mut board, "a7", "a6");
    bca.expect_event("his move", |l| l.starts_with("event move 6 black a7a6"));
}
