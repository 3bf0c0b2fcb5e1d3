//! From a hand's last contact on the sighted player's e-board to the announcement, per board
//! family (DGT, Millennium ChessLink, Certabo), over whole games at a hand's pace, measured from
//! outside on the real binary. Each family runs its own daemon: the blind player's peg board and
//! the e-board are simulated boards (`io::simulator`, the same code as `annabella
//! simulate-board`) on pseudo-terminals driven from here; White's moves are made on the peg board
//! and replicated on the e-board, Black's are made on the e-board (measured) and replicated on
//! the peg board. The figure runs from the instant the hand's last action reached the board's
//! output (for Certabo: the instant the board's state changed; its next lines show it) to the
//! blind player's announcement in the transcript. Prints median and worst
//! (`cargo bench --bench boards`: 3 games of up to 80 plies); under `cargo test --benches` a
//! short smoke run. `ANNABELLA_BENCH_GAMES` and `ANNABELLA_BENCH_PLIES` set the size.

mod common;
pub mod harness;

use harness::{Daemon, Transcript, free_port, percentile};

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use annabella::boards::Protocol;
use annabella::chess::game::Game;
use annabella::chess::language::Language;
use annabella::chess::notation::Style;
use annabella::io::simulator::{self, HAND_PACE, SimulatedBoard};
use shakmaty::{CastlingMode, Chess, Move, Position};

/// A simulated board on a pseudo-terminal, answering the daemon and moved from here.
struct PtyBoard {
    board: Arc<Mutex<SimulatedBoard>>,
    writer: Arc<Mutex<std::fs::File>>,
    /// The line a board that reports continuously (Certabo) repeats.
    current: Option<Arc<Mutex<Vec<u8>>>>,
    path: PathBuf,
    _slave: OwnedFd,
}

impl PtyBoard {
    fn open(protocol: Protocol) -> PtyBoard {
        let pty = simulator::open_pty().expect("a pseudo-terminal");
        let board = SimulatedBoard::new(protocol, Game::new(), Language::english().clone());
        let repeat = board.repeat_period();
        let current = repeat.map(|_| Arc::new(Mutex::new(board.snapshot())));
        let board = Arc::new(Mutex::new(board));
        let master = std::fs::File::from(pty.master);
        let mut reader = master.try_clone().expect("clone pty");
        let writer = Arc::new(Mutex::new(master));
        {
            let board = Arc::clone(&board);
            let writer = Arc::clone(&writer);
            std::thread::spawn(move || {
                let mut buf = [0u8; 1024];
                while let Ok(n) = reader.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let reply = board.lock().unwrap().answer(&buf[..n]);
                    if !reply.is_empty() && writer.lock().unwrap().write_all(&reply).is_err() {
                        break;
                    }
                }
            });
        }
        if let (Some(period), Some(current)) = (repeat, &current) {
            let writer = Arc::clone(&writer);
            let current = Arc::clone(current);
            std::thread::spawn(move || {
                loop {
                    std::thread::sleep(period);
                    let line = current.lock().unwrap().clone();
                    if writer.lock().unwrap().write_all(&line).is_err() {
                        break;
                    }
                }
            });
        }
        PtyBoard {
            board,
            writer,
            current,
            path: pty.path,
            _slave: pty.slave,
        }
    }

    /// A hand makes `uci` on the board, one action every [`HAND_PACE`]; returns the instant of
    /// its last contact.
    fn hand(&self, uci: &str) -> Instant {
        let chunks = self
            .board
            .lock()
            .unwrap()
            .operator_line(uci)
            .expect("a legal move");
        let mut last = Instant::now();
        for (i, bytes) in chunks.iter().enumerate() {
            if i > 0 {
                std::thread::sleep(HAND_PACE);
            }
            match &self.current {
                Some(current) => *current.lock().unwrap() = bytes.clone(),
                None => self
                    .writer
                    .lock()
                    .unwrap()
                    .write_all(bytes)
                    .expect("writing to the pty"),
            }
            last = Instant::now();
        }
        last
    }
}

/// A control connection as observer.
struct Observer {
    writer: TcpStream,
    reader: BufReader<TcpStream>,
}

impl Observer {
    fn connect(port: u16, state: &Path) -> Observer {
        let raw = annabella::io::tokens::read_file(&state.join(annabella::io::tokens::TOKENS_FILE))
            .expect("the daemon's tokens");
        let token = annabella::io::tokens::token_for(&raw, "observer".parse().unwrap(), None)
            .expect("an observer token");
        let writer = TcpStream::connect(("127.0.0.1", port)).expect("control connection");
        let mut o = Observer {
            reader: BufReader::new(writer.try_clone().expect("clone")),
            writer,
        };
        assert!(o.ask(&format!("auth {token}")).starts_with("ok"));
        o
    }

    fn ask(&mut self, line: &str) -> String {
        writeln!(self.writer, "{line}").expect("request");
        let mut reply = String::new();
        self.reader.read_line(&mut reply).expect("reply");
        reply
    }

    /// Asks `status` until it contains `want`.
    fn wait_status(&mut self, want: &str) {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let status = self.ask("status");
            if status.contains(want) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "status never showed {want:?}: {status}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// The moves of `game` up to its first promotion (a promoted piece needs a spare piece on an
/// e-board, which is a matter of the set, not of the speed).
fn playable(game: &Game) -> Vec<Move> {
    game.moves()
        .iter()
        .take_while(|m| !m.is_promotion())
        .copied()
        .collect()
}

/// Plays `games` on a table whose sighted player has an e-board of `protocol`; the latencies of
/// Black's moves made on it.
fn measure(protocol: Protocol, name: &str, games: &[Vec<Move>]) -> Vec<Duration> {
    let dir = std::env::temp_dir().join(format!("annabella-boards-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("bench dir");
    let transcript_path = dir.join("transcript.txt");
    let port = free_port();
    let lang = Language::english();
    let mut latencies = Vec::new();
    for moves in games {
        let _ = std::fs::remove_dir_all(dir.join("state"));
        let peg = PtyBoard::open(Protocol::Peg);
        let eboard = PtyBoard::open(protocol);
        let config = format!(
            "listen = \"127.0.0.1:{port}\"\nweb_listen = \"off\"\nstate_dir = \"{}\"\n\
             [speech]\nbackends = \"transcript:{}\"\nlang = \"en\"\n\
             [clock]\ntime_control = \"5400+30\"\nannounce = \"none\"\n\
             [[table]]\nname = \"t\"\npeg = \"{}\"\ndebounce_ms = 0\nnormal = \"{name}:{}\"\n",
            dir.join("state").display(),
            transcript_path.display(),
            peg.path.display(),
            eboard.path.display(),
        );
        let config_path = dir.join("annabella.toml");
        std::fs::write(&config_path, config).expect("writing the config");
        let _ = std::fs::remove_file(&transcript_path);
        let mut child = Command::new(env!("CARGO_BIN_EXE_annabella"))
            .args(["serve", "--config"])
            .arg(&config_path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .env("RUST_LOG", "warn,annabella=info")
            .spawn()
            .expect("starting annabella serve");
        let stderr = child.stderr.take().expect("stderr");
        let daemon = Daemon {
            child,
            dir: dir.join("state"),
        };
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if line.contains("ready") {
                    ready_tx.send(()).ok();
                }
                if line.contains("ERROR") || line.contains("WARN") {
                    eprintln!("daemon: {line}");
                }
            }
        });
        ready_rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the daemon did not report ready");
        let mut transcript = Transcript::open(&transcript_path);
        let mut observer = Observer::connect(port, &dir.join("state"));
        observer.wait_status("peg connected in-sync");
        observer.wait_status("normal connected in-sync");
        // Both boards' first snapshots judged (a Certabo board's calibration learned).
        std::thread::sleep(Duration::from_millis(600));
        let mut pos = Chess::default();
        for &m in moves {
            let uci = m.to_uci(CastlingMode::Standard).to_string();
            let spoken = annabella::chess::phrases::move_phrase(&pos, m, &Style::new(lang));
            if pos.turn().is_white() {
                peg.hand(&uci);
                transcript.wait_for(&format!("opponent {spoken}"));
                eboard.hand(&uci);
                observer.wait_status("normal connected in-sync");
            } else {
                let last_contact = eboard.hand(&uci);
                let heard = transcript.wait_for(&format!("blind {spoken}"));
                latencies.push(heard - last_contact);
                peg.hand(&uci);
                transcript.wait_for("blind ");
                observer.wait_status("peg connected in-sync");
            }
            pos.play_unchecked(m);
            if pos.is_game_over() {
                break;
            }
        }
        drop(daemon);
    }
    let _ = std::fs::remove_dir_all(&dir);
    latencies
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (count, plies) = if full { (3, 80) } else { (1, 6) };
    // The size can be set for either run: ANNABELLA_BENCH_GAMES, ANNABELLA_BENCH_PLIES.
    let var = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (count, plies) = (
        var("ANNABELLA_BENCH_GAMES", count),
        var("ANNABELLA_BENCH_PLIES", plies),
    );
    let standard = Game::new().start_fen();
    let games: Vec<Vec<Move>> = common::games(200)
        .into_iter()
        .filter(|g| g.start_fen() == standard)
        .map(|g| {
            let mut moves = playable(&g);
            moves.truncate(plies);
            moves
        })
        .filter(|m| m.len() >= plies.min(40))
        .take(count)
        .collect();
    assert!(!games.is_empty(), "no game to play");
    let plies: usize = games.iter().map(Vec::len).sum();
    println!(
        "boards: {} games ({plies} plies), hand pace {} ms; last contact on the e-board → the blind \
         player's announcement",
        games.len(),
        HAND_PACE.as_millis()
    );
    for (protocol, name) in [
        (Protocol::Dgt, "dgt"),
        (Protocol::Millennium, "millennium"),
        (Protocol::Certabo, "certabo"),
    ] {
        let mut samples = measure(protocol, name, &games);
        samples.sort();
        println!(
            "  {name:<10}: {} moves, median {:.0} ms, p90 {:.0} ms, worst {:.0} ms",
            samples.len(),
            percentile(&samples, 0.5).as_secs_f64() * 1e3,
            percentile(&samples, 0.9).as_secs_f64() * 1e3,
            samples.last().map_or(0.0, |d| d.as_secs_f64() * 1e3),
        );
    }
}
