//! The peg board's reference firmware (`firmware/`) without hardware: built with avr-gcc, run in
//! simavr by `firmware/sim/pegsim` behind a pseudo-terminal, its switches moved by a hand's
//! lines, read by the real daemon (`annabella serve --peg PATH`). Two whole games, the blind
//! player with White and with Black — touched pieces, en passant, promotion by key, wrong
//! replications, castling on both sides, keys — are heard exactly as with the simulated board
//! (`annabella simulate-board`), and the firmware reports every switch change once, chatter and
//! all. The correspondence desk is turned from game to game and its games listed with the
//! firmware's `KG` and `KL` keys, again as with the simulated board.
//!
//! The tools (gcc-avr, avr-libc, binutils-avr, libsimavr-dev, libelf-dev, pkg-config) come from
//! `scripts/ensure-deps.sh --browser`, which `scripts/test.sh` runs; without them these tests
//! fail and say so.

pub mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::WAIT;
use common::board::SimulatedBoard;
use common::control::ControlClient;
use common::daemon::{Daemon, Serve};
use common::fs::scratch_dir;
use common::process::{BIN, Running};

/// The firmware's ELF and the harness, built once for all tests of this binary.
struct Built {
    elf: PathBuf,
    pegsim: PathBuf,
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `make -C DIR BUILD=OUT`, failing with its output.
fn make(dir: &Path, out: &Path) {
    let output = Command::new("make")
        .arg("-C")
        .arg(dir)
        .arg(format!("BUILD={}", out.display()))
        .output()
        .unwrap_or_else(|e| {
            panic!("make does not run ({e}): run scripts/ensure-deps.sh --browser")
        });
    assert!(
        output.status.success(),
        "make -C {} failed:\n{}\n{}",
        dir.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| {
        for (tool, package) in [
            ("avr-gcc", "gcc-avr"),
            ("avr-size", "binutils-avr"),
            ("pkg-config", "pkg-config"),
            ("make", "make"),
        ] {
            let found = Command::new("sh")
                .args(["-c", &format!("command -v {tool}")])
                .output()
                .is_ok_and(|o| o.status.success());
            assert!(
                found,
                "{tool} is missing (Debian package {package}): run scripts/ensure-deps.sh \
                 --browser, which scripts/test.sh runs, to install the AVR toolchain and simavr"
            );
        }
        assert!(
            Path::new("/usr/lib/avr/include/avr/io.h").exists(),
            "avr-libc is missing: run scripts/ensure-deps.sh --browser"
        );
        let simavr = Command::new("pkg-config")
            .args(["--exists", "simavr"])
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            simavr,
            "simavr's library is missing (libsimavr-dev, libelf-dev): run \
             scripts/ensure-deps.sh --browser"
        );
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("firmware");
        make(&repo().join("firmware"), &out);
        make(&repo().join("firmware/sim"), &out.join("sim"));
        Built {
            elf: out.join("annabella-peg.elf"),
            pegsim: out.join("sim/pegsim"),
        }
    })
}

/// The firmware in simavr behind a pseudo-terminal at `link`; killed when dropped.
struct FirmwareBoard {
    process: Running,
}

impl FirmwareBoard {
    fn start(link: &Path, extra: &[&str]) -> FirmwareBoard {
        let built = built();
        let mut command = Command::new(&built.pegsim);
        command
            .arg(&built.elf)
            .arg("--link")
            .arg(link)
            .args(["--annabella", BIN, "--"])
            .args(extra);
        let mut process = Running::start(&mut command);
        let path = process.expect("the pseudo-terminal's path", |l| l.starts_with("/dev/"));
        assert!(Path::new(&path).exists(), "{path}");
        FirmwareBoard { process }
    }

    /// Stops the harness (SIGTERM) and returns its measurement lines (`measure …`).
    fn measurements(mut self) -> Vec<String> {
        let status = self.process.terminate();
        assert!(status.success(), "pegsim ended with {status}");
        self.process
            .lines_to_end()
            .into_iter()
            .filter(|l| l.starts_with("measure "))
            .collect()
    }
}

/// A board a test moves with `simulate-board`'s lines.
trait Hands {
    fn hand(&mut self, line: &str);
}

impl Hands for SimulatedBoard {
    fn hand(&mut self, line: &str) {
        SimulatedBoard::hand(self, line);
    }
}

impl Hands for FirmwareBoard {
    fn hand(&mut self, line: &str) {
        self.process.type_line(line);
    }
}

/// `annabella serve` on the peg board at `DIR/peg`, speaking into `DIR/transcript.txt`, with
/// further flags.
fn serve(dir: &Path, extra: &[&str]) -> Daemon {
    let peg = dir.join("peg");
    let speech = format!("transcript:{}", dir.join("transcript.txt").display());
    Serve::new(&dir.join("state"))
        .args(["--peg", peg.to_str().unwrap(), "--speech", &speech])
        .args(["--time-control", "5400+30"])
        .args(extra.iter().copied())
        .start()
}

/// Everything said so far, as `listener text` lines (the transcript without its times), once
/// its last line is `last`.
fn heard_until(dir: &Path, last: &str) -> Vec<String> {
    let deadline = Instant::now() + WAIT;
    loop {
        let text = std::fs::read_to_string(dir.join("transcript.txt")).unwrap_or_default();
        let lines: Vec<String> = text
            .lines()
            .filter_map(|l| l.split_once(' ').map(|(_, said)| said.to_owned()))
            .collect();
        if lines.last().is_some_and(|l| l == last) {
            return lines;
        }
        assert!(
            Instant::now() < deadline,
            "the transcript never ended with {last:?}: {lines:#?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One game on the blind player's peg board (White) against moves over the control interface;
/// returns what was said.
fn play_white(board: &mut dyn Hands, daemon: &Daemon, dir: &Path) -> Vec<String> {
    let mut black = daemon.connect("black");
    // New connections speak English; this one uses the table's German letters.
    assert_eq!(black.ask("lang de"), "ok lang de");
    let mut watcher = daemon.connect("observer");
    assert!(watcher.ask("events").starts_with("ok events"));
    watcher.wait_status("peg connected in-sync");

    // A touched piece (FIDE D.2.2): the knight lifted and put back; the pawn moved instead is
    // a touch-move offence, reported as such.
    board.hand("raw Lg1");
    watcher.expect_event("the touched knight", |l| {
        l == "event peg touched g1 white knight"
    });
    board.hand("raw Pg1");
    board.hand("e2e4");
    watcher.expect_event("the touch-move warning", |l| {
        l.starts_with("event touch-move peg the white knight on g1 was touched first")
    });
    watcher.expect_event("1.e4", |l| l.starts_with("event move 1 white e2e4"));
    assert_eq!(black.ask("move 4745"), "ok d7d5 d5");
    watcher.heard("David fünf");
    board.hand("d7d5");
    watcher.heard("in Ordnung");
    board.hand("e4e5");
    watcher.expect_event("2.e5", |l| l.starts_with("event move 3 white e4e5"));
    assert_eq!(black.ask("move 6765"), "ok f7f5 f5");
    board.hand("f7f5");
    watcher.heard("in Ordnung");
    // En passant.
    board.hand("e5f6");
    watcher.expect_event("3.exf6 e.p.", |l| l.starts_with("event move 5 white e5f6"));
    assert_eq!(black.ask("move 7886"), "ok g8h6 Sh6");
    board.hand("g8h6");
    watcher.heard("in Ordnung");
    board.hand("f6g7");
    watcher.expect_event("4.fxg7", |l| l.starts_with("event move 7 white f6g7"));
    assert_eq!(black.ask("move 8667"), "ok h6f7 Sf7");
    board.hand("h6f7");
    watcher.heard("in Ordnung");
    // Promotion with capture: the table asks, the key on the strip answers.
    board.hand("g7h8q");
    watcher.expect_event("promotion pending", |l| {
        l.starts_with("event peg promotion-pending")
    });
    watcher.expect_event("5.gxh8=Q", |l| l.starts_with("event move 9 white g7h8q"));
    assert_eq!(black.ask("move 6788"), "ok f7h8 Sxh8");
    board.hand("f7h8");
    watcher.heard("in Ordnung");
    board.hand("Nf3");
    watcher.expect_event("6.Nf3", |l| l.starts_with("event move 11 white g1f3"));
    assert_eq!(black.ask("move 3874"), "ok c8g4 Lg4");
    watcher.heard("Läufer Gustav vier");
    // He replicates the bishop move wrongly and is guided back.
    board.hand("raw Lc8");
    board.hand("raw Pf5");
    watcher.expect_event("the correction", |l| {
        l.starts_with("event say blind Brett stimmt nicht") && l.contains("Felix fünf")
    });
    board.hand("raw Lf5");
    board.hand("raw Pg4");
    watcher.expect_event("the board right again", |l| {
        l == "event say blind in Ordnung" || l.starts_with("event say blind Brett stimmt wieder")
    });
    // The board's hand learns the position it now shows.
    let fen = black.ask("board");
    board.hand(&format!("fen {}", fen.trim_start_matches("ok ")));
    board.hand("f1e2");
    watcher.expect_event("7.Be2", |l| l.starts_with("event move 13 white f1e2"));
    // The last move again, from the key strip.
    board.hand("key A");
    watcher.expect_event("KA", |l| l == "event key peg repeat");
    watcher.heard("Zug sieben, Weiß: Läufer Eva zwei");
    assert_eq!(black.ask("move 5756"), "ok e7e6 e6");
    board.hand("e7e6");
    watcher.heard("in Ordnung");
    // Castling.
    board.hand("O-O");
    watcher.expect_event("8.O-O", |l| {
        l.starts_with("event move 15 white e1g1 O-O peg")
    });
    // The correspondence desk's keys: a table at a board has no other game to turn to or list.
    board.hand("key G");
    watcher.expect_event("KG", |l| l == "event key peg next-game");
    watcher.heard("Das geht jetzt nicht");
    board.hand("key L");
    watcher.expect_event("KL", |l| l == "event key peg list-games");
    watcher.heard("Das geht jetzt nicht");
    assert_eq!(black.ask("resign"), "ok black resigns");
    heard_until(dir, "all Schwarz gibt auf. Weiß gewinnt")
}

/// A `measure NAME key=value …` line's value of `key`.
fn measured(lines: &[String], name: &str, key: &str) -> f64 {
    let line = lines
        .iter()
        .find(|l| l.starts_with(&format!("measure {name} ")))
        .unwrap_or_else(|| panic!("no measure {name} in {lines:#?}"));
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(&format!("{key}=")))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {key}= in {line}"))
}

/// The opponent's move over the control interface, and its replication on the peg board.
fn replicate(
    board: &mut dyn Hands,
    opponent: &mut ControlClient,
    watcher: &ControlClient,
    m: &str,
) {
    let reply = opponent.ask(&format!("move {m}"));
    let uci = reply
        .strip_prefix("ok ")
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("move {m}: {reply}"))
        .to_owned();
    watcher.expect_event("the opponent's move", |l| {
        l.starts_with("event move ") && l.contains(&uci)
    });
    board.hand(&uci);
    watcher.heard("in Ordnung");
}

/// A second game, the blind player with Black: en passant, a promotion to a knight with
/// capture and check, a touched piece, a wrong replication, queen-side castling.
fn play_black(board: &mut dyn Hands, daemon: &Daemon, dir: &Path) -> Vec<String> {
    let mut white = daemon.connect("white");
    // New connections speak English; this one uses the table's German letters.
    assert_eq!(white.ask("lang de"), "ok lang de");
    let mut watcher = daemon.connect("observer");
    assert!(watcher.ask("events").starts_with("ok events"));
    watcher.wait_status("peg connected in-sync");
    replicate(board, &mut white, &watcher, "a2a3");
    board.hand("d5");
    watcher.expect_event("1...d5", |l| l.starts_with("event move 2 black d7d5"));
    replicate(board, &mut white, &watcher, "h2h3");
    board.hand("d4");
    watcher.expect_event("2...d4", |l| l.starts_with("event move 4 black d5d4"));
    replicate(board, &mut white, &watcher, "e2e4");
    board.hand("dxe3");
    watcher.expect_event("3...dxe3 e.p.", |l| {
        l.starts_with("event move 6 black d4e3")
    });
    replicate(board, &mut white, &watcher, "a3a4");
    board.hand("exf2+");
    watcher.expect_event("4...exf2+", |l| l.starts_with("event move 8 black e3f2"));
    // He replicates the king's move on the wrong square, and is guided back.
    let reply = white.ask("move e1e2");
    assert!(reply.starts_with("ok e1e2"), "{reply}");
    watcher.expect_event("5.Ke2", |l| l.starts_with("event move 9 white e1e2"));
    board.hand("raw Le1");
    board.hand("raw Pe3");
    watcher.expect_event("the board differs", |l| {
        l.starts_with("event say blind Brett stimmt nicht")
    });
    board.hand("raw Le3");
    board.hand("raw Pe2");
    watcher.expect_event("the board right again", |l| {
        l == "event say blind in Ordnung" || l.starts_with("event say blind Brett stimmt wieder")
    });
    // The board's hand learns the position it now shows.
    let fen = white.ask("board");
    board.hand(&format!("fen {}", fen.trim_start_matches("ok ")));
    // Promotion to a knight, capturing, with check: the key says which piece.
    board.hand("fxg1=N+");
    watcher.expect_event("promotion pending", |l| {
        l.starts_with("event peg promotion-pending")
    });
    watcher.expect_event("5...fxg1=N+", |l| {
        l.starts_with("event move 10 black f2g1n")
    });
    replicate(board, &mut white, &watcher, "h1g1");
    // A touched piece: the queen lifted and put back; the knight moved instead.
    board.hand("raw Ld8");
    watcher.expect_event("the touched queen", |l| {
        l == "event peg touched d8 black queen"
    });
    board.hand("raw Pd8");
    board.hand("Nc6");
    watcher.expect_event("the touch-move warning", |l| {
        l.starts_with("event touch-move peg the black queen on d8 was touched first")
    });
    watcher.expect_event("6...Nc6", |l| l.starts_with("event move 12 black b8c6"));
    replicate(board, &mut white, &watcher, "a4a5");
    board.hand("Bf5");
    watcher.expect_event("7...Bf5", |l| l.starts_with("event move 14 black c8f5"));
    replicate(board, &mut white, &watcher, "h3h4");
    board.hand("Qd7");
    watcher.expect_event("8...Qd7", |l| l.starts_with("event move 16 black d8d7"));
    replicate(board, &mut white, &watcher, "h4h5");
    board.hand("O-O-O");
    watcher.expect_event("9...O-O-O", |l| {
        l.starts_with("event move 18 black e8c8 O-O-O peg")
    });
    board.hand("key H");
    watcher.expect_event("KH", |l| l == "event key peg history");
    watcher.heard("Zug neun, Schwarz: Lange Rochade");
    assert_eq!(white.ask("resign"), "ok white resigns");
    heard_until(dir, "all Weiß gibt auf. Schwarz gewinnt")
}

/// `DIR/annabella.toml`: the correspondence desk with its peg board at `DIR/peg` and two games
/// by mail (no `[mail]`: nothing is read or sent, the desk alone is tried), speaking German into
/// `DIR/transcript.txt`.
fn desk_config(dir: &Path) -> PathBuf {
    let path = dir.join("annabella.toml");
    std::fs::write(
        &path,
        format!(
            r#"
[speech]
backends = "transcript:{transcript}"
lang = "de"

[desk]
peg = "{peg}"

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
opponent_email = "bob@example.org"
game_id = "BCA-7"
time_control = "20/10d"
"#,
            transcript = dir.join("transcript.txt").display(),
            peg = dir.join("peg").display(),
        ),
    )
    .unwrap();
    path
}

/// A client on the correspondence table `table` hearing its events.
fn watching(daemon: &Daemon, table: &str) -> ControlClient {
    let mut c = daemon.connect("assistant");
    assert_eq!(
        c.ask(&format!("table {table}")),
        format!("ok table {table}")
    );
    assert!(c.ask("events").starts_with("ok events"));
    c
}

/// The correspondence desk worked from the key strip: `KG` turns the shared peg board to the
/// next game (from the last back to the first), `KL` says the games with whose move it is, and
/// a move on the board goes to the game it is turned to. Returns what was said.
fn work_the_desk(board: &mut dyn Hands, daemon: &Daemon, dir: &Path) -> Vec<String> {
    let mut iccf = watching(daemon, "iccf-2");
    let mut bca = watching(daemon, "bca-7");
    // The board shows the start position, which is each game's: every turn is ready at once.
    assert_eq!(iccf.ask("focus iccf-2"), "ok focus iccf-2");
    iccf.expect_event("the board taken", |l| l == "event desk ready");
    board.hand("key G");
    iccf.expect_event("the board leaves", |l| l == "event desk away");
    bca.expect_event("KG turns to BCA-7", |l| l == "event desk focus");
    bca.heard("Partie BCA-7. Weiß am Zug. Noch kein Zug gespielt. Weiß noch elf Tage, Schwarz noch elf Tage");
    bca.expect_event("the board taken", |l| l == "event desk ready");
    board.hand("key L");
    // Without the players' names a game is named by its identifier.
    bca.heard(
        "Partie ICCF-2: Weiß am Zug, noch sechsunddreißig Tage. Partie BCA-7: Weiß am Zug, noch elf \
         Tage",
    );
    board.hand("key G");
    bca.expect_event("the board leaves", |l| l == "event desk away");
    iccf.expect_event("KG turns back to ICCF-2", |l| l == "event desk focus");
    iccf.heard("Partie ICCF-2. Weiß am Zug. Noch kein Zug gespielt. Weiß noch sechsunddreißig Tage, Schwarz noch sechsunddreißig Tage");
    iccf.expect_event("the board taken", |l| l == "event desk ready");
    board.hand("e2e4");
    iccf.expect_event("his move in ICCF-2", |l| {
        l.starts_with("event move 1 white e2e4")
    });
    board.hand("key L");
    let list = "Partie ICCF-2: Schwarz am Zug, noch sechsunddreißig Tage. Partie BCA-7: Weiß am Zug, noch \
         elf Tage";
    iccf.heard(list);
    let status = bca.ask("status");
    assert!(
        status.contains("ply 0"),
        "the move went to ICCF-2 alone: {status}"
    );
    // The desk's state words for a turn are cut by its next words when those come before the
    // loudspeaker reached them (a second key turns on at once): whether they reach the
    // transcript depends on the speaker's pace, not on the board. Each was heard above as an
    // event; the transcripts are compared without them.
    heard_until(dir, &format!("blind {list}"))
        .into_iter()
        .filter(|l| !l.contains("Noch kein Zug gespielt"))
        .collect()
}

#[test]
fn the_firmware_keys_turn_and_list_the_correspondence_desk() {
    let dir = scratch_dir("firmware-desk");
    let sim_dir = dir.join("simulated");
    let fw_dir = dir.join("firmware");
    std::fs::create_dir_all(&sim_dir).unwrap();
    std::fs::create_dir_all(&fw_dir).unwrap();

    let mut simulated = SimulatedBoard::on_pty("peg", &sim_dir.join("peg"), &[]);
    let daemon = Serve::new(&sim_dir.join("state"))
        .config(&desk_config(&sim_dir))
        .start();
    let on_simulated = work_the_desk(&mut simulated, &daemon, &sim_dir);
    drop(daemon);
    drop(simulated);

    let mut firmware = FirmwareBoard::start(&fw_dir.join("peg"), &[]);
    let daemon = Serve::new(&fw_dir.join("state"))
        .config(&desk_config(&fw_dir))
        .start();
    let on_firmware = work_the_desk(&mut firmware, &daemon, &fw_dir);
    drop(daemon);
    assert_eq!(on_firmware, on_simulated);
    // KG, KL, KG, KL and the lift and placement of e2e4, each once, and nothing else.
    let m = firmware.measurements();
    eprintln!("pegsim measured:\n{}", m.join("\n"));
    assert_eq!(measured(&m, "lines", "keys"), 4.0, "{m:#?}");
    assert_eq!(measured(&m, "lines", "lift-place"), 2.0, "{m:#?}");
    assert_eq!(measured(&m, "lines", "hand-changes"), 6.0, "{m:#?}");
    assert_eq!(measured(&m, "lines", "unanswered"), 0.0, "{m:#?}");
    assert_eq!(measured(&m, "lines", "other"), 0.0, "{m:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}

type Game = fn(&mut dyn Hands, &Daemon, &Path) -> Vec<String>;

/// Plays `game` on the simulated board and on the firmware, each with a daemon of its own
/// started with `serve_flags`; checks that both heard the same, and returns the harness's
/// measurements.
fn on_both_boards(name: &str, serve_flags: &[&str], game: Game) -> Vec<String> {
    let dir = scratch_dir(name);
    let sim_dir = dir.join("simulated");
    let fw_dir = dir.join("firmware");
    std::fs::create_dir_all(&sim_dir).unwrap();
    std::fs::create_dir_all(&fw_dir).unwrap();

    let mut simulated = SimulatedBoard::on_pty("peg", &sim_dir.join("peg"), &[]);
    let daemon = serve(&sim_dir, serve_flags);
    let on_simulated = game(&mut simulated, &daemon, &sim_dir);
    drop(daemon);
    drop(simulated);

    let mut firmware = FirmwareBoard::start(&fw_dir.join("peg"), &[]);
    let daemon = serve(&fw_dir, serve_flags);
    let on_firmware = game(&mut firmware, &daemon, &fw_dir);
    drop(daemon);
    assert_eq!(on_firmware, on_simulated);
    eprintln!("heard on both boards:\n{}", on_firmware.join("\n"));
    let m = firmware.measurements();
    eprintln!("pegsim measured:\n{}", m.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
    m
}

/// Every lift, placement and key press reached the host once, chatter and all, and nothing else
/// did; the latency is the debounce (8 scans of 1 ms) after the chatter, in simulated time, and
/// a scan fits in its millisecond.
fn check_measurements(m: &[String]) {
    let changes = measured(m, "lines", "hand-changes");
    assert!(changes >= 40.0, "{m:#?}");
    assert_eq!(
        measured(m, "lines", "lift-place") + measured(m, "lines", "keys"),
        changes,
        "{m:#?}"
    );
    assert_eq!(measured(m, "lines", "unanswered"), 0.0, "{m:#?}");
    assert_eq!(measured(m, "lines", "other"), 0.0, "{m:#?}");
    assert!(measured(m, "lines", "snapshots") >= 2.0, "{m:#?}");
    assert!(measured(m, "latency-us", "min") >= 7000.0, "{m:#?}");
    assert!(measured(m, "latency-us", "max") <= 15000.0, "{m:#?}");
    assert!(measured(m, "scan-us", "max") < 1000.0, "{m:#?}");
    let period = measured(m, "scan-us", "period-us");
    assert!((990.0..=1010.0).contains(&period), "{m:#?}");
}

#[test]
fn the_firmware_plays_white_heard_as_on_the_simulated_board() {
    let m = on_both_boards("firmware-white", &[], play_white);
    check_measurements(&m);
}

#[test]
fn the_firmware_plays_black_heard_as_on_the_simulated_board() {
    let m = on_both_boards("firmware-black", &["--peg-side", "black"], play_black);
    check_measurements(&m);
}

#[test]
fn to_stdout_writes_the_lines_a_hand_makes_stamped() {
    let out = common::process::annabella(
        &["simulate-board", "--protocol", "peg", "--to-stdout"],
        &[],
        "e4\nkey q\nraw Lh1\nfen 8/8/8/8/8/8/8/K6k w - - 0 1\n",
    );
    assert!(out.status.success(), "{}", common::process::stderr(&out));
    let text = common::process::stdout(&out);
    let (stamps, lines): (Vec<u64>, Vec<&str>) = text
        .lines()
        .map(|l| {
            let (stamp, line) = l.split_once(' ').expect("@<ms> LINE");
            let ms = stamp
                .strip_prefix('@')
                .and_then(|ms| ms.parse::<u64>().ok());
            (ms.unwrap_or_else(|| panic!("{l}: no stamp")), line)
        })
        .unzip();
    assert_eq!(
        lines,
        [
            "SFFFF00000000FFFF",
            "Le2",
            "Pe4",
            "KQ",
            "Lh1",
            "S0000000000000081"
        ]
    );
    assert!(stamps.is_sorted(), "{text}");
    // The hand's pace between the lift and the placement of one move.
    assert!(stamps[2] - stamps[1] >= 60, "{text}");
    let dgt = common::process::annabella(
        &["simulate-board", "--protocol", "dgt", "--to-stdout"],
        &[],
        "",
    );
    assert!(!dgt.status.success());
    assert!(common::process::stderr(&dgt).contains("--to-stdout"));
}

/// A host that asks the firmware for its identity and a snapshot gets them, after the lines it
/// sent by itself at power-up; a line it does not know is ignored.
#[test]
fn the_firmware_answers_the_host() {
    use std::io::{Read, Write};
    let dir = scratch_dir("firmware-host");
    let link = dir.join("peg");
    let board = FirmwareBoard::start(&link, &["--fen", "4k3/8/8/8/8/8/8/4K2R w K - 0 1"]);
    let mut port = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&link)
        .unwrap();
    let mut reader = port.try_clone().unwrap();
    let (tx, chunks) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 256];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    port.write_all(b"hello\nV\r\n ? \n").unwrap();
    let want = "Vannabella-peg 1.0 atmega328p reed-matrix\nS1000000000000090\n";
    let both = format!("{want}{want}");
    let mut got = String::new();
    let deadline = Instant::now() + WAIT;
    while got.len() < both.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        let chunk = chunks
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("only {got:?} within {WAIT:?}"));
        got.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert_eq!(got, both);
    drop(board);
    let _ = std::fs::remove_dir_all(&dir);
}
