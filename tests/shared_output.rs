//! One loudspeaker for both players (issue 24 point 5), end to end: the real daemon with a
//! simulated peg board for the blind player and a simulated DGT e-board for his opponent, one
//! stand-in espeak-ng serving both (`blind+opponent=espeak-ng`) and a transcript for everyone.
//! Each board's sentence says whose board it is about, the arbiter's touch-move note never
//! reaches the shared loudspeaker, and nothing is said twice in a row on it.

pub mod common;

use std::time::Duration;

use annabella::io::speech::Listener;
use annabella::io::speech::transcript;
use common::board::SimulatedBoard;
use common::control::ControlClient;
use common::daemon::{Daemon, Serve};
use common::fs::scratch_dir;
use common::stand_in::{self, StandIn};

/// The position after 1.e4, as the opponent puts his e-board right by hand.
const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

/// After 1.e4 e5.
const AFTER_E5: &str = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
/// After 1.e4 e5 with the black knight knocked from b8 to a6.
const KNOCKED: &str = "r1bqkbnr/pppp1ppp/n7/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";

struct Table {
    peg: SimulatedBoard,
    eboard: SimulatedBoard,
    daemon: Daemon,
    watcher: ControlClient,
    speaker: StandIn,
    transcript: std::path::PathBuf,
}

/// `annabella serve` with both boards, `speech` given the transcript's path; both boards in
/// sync.
fn table(name: &str, speech: impl Fn(&str) -> String) -> Table {
    assert!(
        stand_in::available(),
        "espeak-ng or sox (soxi) is missing: run scripts/ensure-deps.sh"
    );
    let dir = scratch_dir(name);
    let speaker = StandIn::create(&dir.join("bin")).unwrap();
    let peg = SimulatedBoard::on_pty("peg", &dir.join("peg"), &[]);
    let eboard = SimulatedBoard::on_pty("dgt", &dir.join("eboard"), &[]);
    let transcript = dir.join("transcript.txt");
    let path = format!(
        "{}:{}",
        speaker.dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let normal = format!("dgt:{}", dir.join("eboard").display());
    let daemon = Serve::new(&dir.join("state"))
        .env("PATH", path)
        .args(["--peg", dir.join("peg").to_str().unwrap()])
        .args(["--normal", &normal])
        .args(["--speech", &speech(transcript.to_str().unwrap())])
        .args(["--time-control", "5400+30", "--speech-rate", "400"])
        .start();
    let mut watcher = daemon.connect("observer");
    assert!(watcher.ask("events").starts_with("ok events"));
    watcher.wait_status("peg connected in-sync");
    watcher.wait_status("normal connected in-sync");
    Table {
        peg,
        eboard,
        daemon,
        watcher,
        speaker,
        transcript,
    }
}

/// Waits for `who` to be told exactly `want`; returns every `event say` line seen meanwhile.
fn told(watcher: &ControlClient, who: &str, want: &str) -> Vec<String> {
    let line = format!("event say {who} {want}");
    let seen = std::cell::RefCell::new(Vec::new());
    watcher.expect_event(want, |l| {
        if l.starts_with("event say ") {
            seen.borrow_mut().push(l.to_owned());
        }
        l == line
    });
    seen.into_inner()
}

/// The scene: a touch-move breach, a wrong replication on the opponent's e-board put right, a
/// black move, two pieces knocked on his peg board and put back as he is told. Returns what
/// the blind player and the opponent were told, in order (the transcript's `event say` lines).
fn play_the_scene(t: &mut Table) -> Vec<String> {
    let mut said = Vec::new();
    // A touched knight, then the pawn moved: the arbiter's note (touch-move, under `warn`).
    t.peg.hand("raw Lg1");
    t.watcher.expect_event("the touched knight", |l| {
        l == "event peg touched g1 white knight"
    });
    t.peg.hand("raw Pg1");
    t.peg.hand("e2e4");
    t.watcher.expect_event("the touch-move note", |l| {
        l.starts_with("event say arbiter berührt, geführt")
    });
    // The opponent copies it wrong on his e-board: his board, in words that say so.
    t.eboard.hand("e2e3");
    said.extend(told(
        &t.watcher,
        "opponent",
        "Das Brett des Gegners stimmt nicht mit der Partie überein. Bauer von Eva drei nach Eva vier",
    ));
    // Put right by hand: the replication is done (no words for a copied move).
    t.eboard.hand(&format!("fen {AFTER_E4}"));
    t.watcher.expect_event("the e-board's replication", |l| {
        l == "event normal replicated e2e4"
    });
    t.eboard.hand("e7e5");
    said.extend(told(&t.watcher, "blind", "Eva fünf"));
    t.peg.hand("e7e5");
    said.extend(told(&t.watcher, "blind", "in Ordnung"));
    // A knight knocked on the e-board, and put back.
    t.eboard.hand(&format!("fen {KNOCKED}"));
    said.extend(told(
        &t.watcher,
        "opponent",
        "Das Brett des Gegners: Unzulässiger Zug: Schwarz ist nicht am Zug. Springer von Anna sechs nach Bella acht",
    ));
    t.eboard.hand(&format!("fen {AFTER_E5}"));
    said.extend(told(
        &t.watcher,
        "opponent",
        "Das Brett des Gegners stimmt wieder",
    ));
    // Both black knights knocked into wrong holes on his peg board.
    for line in ["Lb8", "Pb6", "Lg8", "Ph6"] {
        t.peg.hand(&format!("raw {line}"));
    }
    said.extend(told(
        &t.watcher,
        "blind",
        "Ihr Brett stimmt nicht mit der Partie überein. Springer von Bella sechs nach Bella acht",
    ));
    t.peg.hand("raw Lb6");
    t.peg.hand("raw Pb8");
    said.extend(told(
        &t.watcher,
        "blind",
        "Ihr Brett: Springer von Hector sechs nach Gustav acht",
    ));
    t.peg.hand("raw Lh6");
    t.peg.hand("raw Pg8");
    said.extend(told(&t.watcher, "blind", "Ihr Brett stimmt wieder"));
    said
}

/// The file at `path` once it holds `line`.
fn written(path: &std::path::Path, line: &str) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text.contains(line) {
            return text;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{} never got {line:?}: {text}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// What the stand-in loudspeaker began and what it said to the end, in order, once `count`
/// utterances have been said to the end.
fn heard(speaker: &StandIn, count: usize) -> (Vec<String>, Vec<String>) {
    let played = speaker.wait_until(Duration::from_secs(90), |p| {
        p.iter().filter(|p| p.what == "end").count() >= count
    });
    let texts = |what: &str| -> Vec<String> {
        played
            .iter()
            .filter(|p| p.what == what)
            .map(|p| p.text.clone())
            .collect()
    };
    (texts("start"), texts("end"))
}

#[test]
fn a_shared_loudspeaker_says_whose_board_keeps_the_arbiters_notes_and_never_repeats() {
    let mut t = table("shared-output", |transcript| {
        format!("blind+opponent=espeak-ng,transcript:{transcript}")
    });
    let said = play_the_scene(&mut t);
    let german = annabella::chess::language::Language::german().vocabulary();
    // What the loudspeaker should say: every line to the blind player, the opponent or all
    // (the transcript has its own thread: its last line is waited for).
    let transcript = written(&t.transcript, "Ihr Brett stimmt wieder");
    let mut expected: Vec<String> = Vec::new();
    for (_, who, text) in transcript.lines().filter_map(transcript::parse_line) {
        // Words said to both players in one step are said once by their loudspeaker.
        let spoken = german.pronounce_for_espeak(text);
        if who != Listener::Arbiter && expected.last() != Some(&spoken) {
            expected.push(spoken);
        }
    }
    // The table told no listener the same words twice in a row.
    for listener in [Listener::BlindPlayer, Listener::Opponent] {
        let to: Vec<&str> = transcript
            .lines()
            .filter_map(transcript::parse_line)
            .filter(|(_, who, _)| *who == listener || *who == Listener::Everyone)
            .map(|(_, _, text)| text)
            .collect();
        let twice = to.windows(2).filter(|w| w[0] == w[1]).count();
        assert_eq!(twice, 0, "told {listener} twice in a row: {to:#?}");
    }
    // The loudspeaker also says its ready phrase at start (the transcript does not have it).
    let (started, ended) = heard(&t.speaker, expected.len() + 1);
    let not_ready = |texts: Vec<String>| -> Vec<String> {
        texts
            .into_iter()
            .filter(|s| !s.starts_with("annabella bereit"))
            .collect()
    };
    let (started, ended) = (not_ready(started), not_ready(ended));
    t.daemon.terminate();
    eprintln!("said: {said:#?}\nloudspeaker: {started:#?}");
    // The arbiter's note is his: in the transcript, never on the players' loudspeaker.
    assert!(transcript.contains("berührt, geführt"), "{transcript}");
    assert!(
        !started.iter().any(|s| s.contains("berührt")),
        "the arbiter's note on the players' loudspeaker: {started:#?}"
    );
    // Each board's sentence names whose board it is.
    let boards: Vec<&String> = started
        .iter()
        .filter(|s| s.contains("stimmt") || s.contains("Unzulässig") || s.contains(" von "))
        .collect();
    // Six corrections and verdicts, and "stimmt wieder" after the wrong copy put right.
    assert_eq!(boards.len(), 7, "{started:#?}");
    for s in boards {
        assert!(
            s.starts_with("Ihr Brett") || s.starts_with("Das Brett des Gegners"),
            "a board's sentence that does not say whose: {s}"
        );
    }
    // Nothing twice in a row (a cut utterance said again comes after what cut it).
    let repeats = started.windows(2).filter(|w| w[0] == w[1]).count();
    eprintln!(
        "duplicates on a shared output: {repeats} ({} utterances begun, {} said to the end)",
        started.len(),
        ended.len()
    );
    assert_eq!(repeats, 0, "said twice in a row: {started:#?}");
    // Each utterance said to the end once (urgent guidance goes before what waits).
    let (mut ended, mut expected) = (ended, expected);
    ended.sort();
    expected.sort();
    assert_eq!(ended, expected, "each utterance said once");
}

/// The peg board alone, one voice for everyone (an output without listeners): his board's
/// sentences say "Ihr Brett" too, since the opponent's wooden board stands beside it.
#[test]
fn with_the_peg_board_alone_one_voice_for_everyone_says_ihr_brett() {
    assert!(
        stand_in::available(),
        "espeak-ng or sox (soxi) is missing: run scripts/ensure-deps.sh"
    );
    let dir = scratch_dir("shared-output-peg-only");
    let speaker = StandIn::create(&dir.join("bin")).unwrap();
    let mut peg = SimulatedBoard::on_pty("peg", &dir.join("peg"), &[]);
    let path = format!(
        "{}:{}",
        speaker.dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut daemon = Serve::new(&dir.join("state"))
        .env("PATH", path)
        .args(["--peg", dir.join("peg").to_str().unwrap()])
        .args(["--speech", "espeak-ng", "--speech-rate", "400"])
        .start();
    let mut watcher = daemon.connect("observer");
    assert!(watcher.ask("events").starts_with("ok events"));
    watcher.wait_status("peg connected in-sync");
    // A peg dropped into an empty hole, and taken out again.
    peg.hand("raw Pe4");
    // (The table cannot know which piece the dropped peg is, and says so.)
    let wrong = "Ihr Brett stimmt nicht mit der Partie überein. die Figur auf Eva vier, ich weiß nicht welche, entfernen";
    told(&watcher, "blind", wrong);
    peg.hand("raw Le4");
    told(&watcher, "blind", "Ihr Brett stimmt wieder");
    let played = speaker.wait_until(Duration::from_secs(60), |p| {
        p.iter()
            .any(|p| p.what == "end" && p.text == "Ihr Brett stimmt wieder")
    });
    daemon.terminate();
    let started: Vec<&str> = played
        .iter()
        .filter(|p| p.what == "start")
        .map(|p| p.text.as_str())
        .collect();
    let german = annabella::chess::language::Language::german().vocabulary();
    assert!(
        started.contains(&german.pronounce_for_espeak(wrong).as_str()),
        "{started:#?}"
    );
    assert_eq!(started.windows(2).filter(|w| w[0] == w[1]).count(), 0);
}
