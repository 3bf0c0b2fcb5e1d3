//! The daemon's speed and size, measured from outside on the real binary: latency from the last
//! byte of a peg-board event on a pseudo-terminal (and from a `move` line on TCP) to the
//! utterance reaching the transcript backend, with many tables active; resident memory; time
//! from start to ready. Prints the figures (`cargo bench --bench daemon`); under `cargo test` it
//! runs a small smoke version.

pub mod harness;

use harness::{Daemon, Transcript, free_port, percentile};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use shakmaty::{Chess, Move, Position};

/// One simulated peg board: the master side of a pseudo-terminal. A thread answers the daemon's
/// snapshot requests with the occupancy the bench last set.
struct Board {
    master: std::fs::File,
    path: PathBuf,
    occupancy: std::sync::Arc<std::sync::atomic::AtomicU64>,
    _slave: OwnedFd,
}

impl Board {
    fn open() -> Board {
        use nix::sys::termios;
        let pair = nix::pty::openpty(None, None).expect("openpty");
        let mut attrs = termios::tcgetattr(pair.slave.as_fd()).expect("tcgetattr");
        termios::cfmakeraw(&mut attrs);
        termios::tcsetattr(pair.slave.as_fd(), termios::SetArg::TCSANOW, &attrs)
            .expect("tcsetattr");
        let path = nix::unistd::ttyname(pair.slave.as_fd()).expect("ttyname");
        let master = std::fs::File::from(pair.master);
        let occupancy =
            std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0xFFFF_0000_0000_FFFF));
        let mut reader = master.try_clone().expect("clone pty");
        let mut writer = master.try_clone().expect("clone pty");
        let occ = std::sync::Arc::clone(&occupancy);
        std::thread::spawn(move || {
            let mut buf = [0u8; 256];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if buf[..n].contains(&b'?') {
                    let snapshot =
                        format!("S{:016X}\n", occ.load(std::sync::atomic::Ordering::SeqCst));
                    if writer.write_all(snapshot.as_bytes()).is_err() {
                        break;
                    }
                }
            }
        });
        Board {
            master,
            path,
            occupancy,
            _slave: pair.slave,
        }
    }

    /// Writes a move's events; returns the instant the last byte was written.
    fn play(&mut self, pos: &Chess, m: Move) -> Instant {
        let events = annabella::boards::gestures::peg_events(pos, m, 0);
        let mut last = Instant::now();
        for e in &events {
            if let Some(line) = annabella::boards::peg::encode(e) {
                self.master
                    .write_all(format!("{line}\n").as_bytes())
                    .expect("writing to the pty");
                last = Instant::now();
            }
        }
        let mut after = pos.clone();
        after.play_unchecked(m);
        self.occupancy.store(
            after.board().occupied().0,
            std::sync::atomic::Ordering::SeqCst,
        );
        last
    }
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

/// The moves each table plays: a real opening, the peg side (White) and the control side
/// alternating.
const GAME: &[&str] = &[
    "e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6", "b1c3", "a7a6", "c1e3", "e7e5",
    "d4b3", "c8e6", "f2f3", "f8e7", "d1d2", "e8g8", "e1c1", "b8d7", "g2g4", "b7b5",
];

fn token(dir: &Path, role: &str) -> String {
    let raw = annabella::io::tokens::read_file(&dir.join(annabella::io::tokens::TOKENS_FILE))
        .expect("the daemon's tokens");
    annabella::io::tokens::token_for(&raw, role.parse().expect("a role"), None)
        .expect("a token for the role")
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let tables: usize = if full { 50 } else { 2 };
    let plies = if full { GAME.len() } else { 4 };
    let dir = std::env::temp_dir().join(format!("annabella-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("bench dir");
    let transcript = dir.join("transcript.txt");
    let port = free_port();
    let mut boards: Vec<Board> = (0..tables).map(|_| Board::open()).collect();
    let mut config = format!(
        "listen = \"127.0.0.1:{port}\"\nweb_listen = \"off\"\nstate_dir = \"{}\"\n[speech]\nbackends = \"transcript:{}\"\n\
         lang = \"en\"\n[clock]\ntime_control = \"5400+30\"\nannounce = \"none\"\n\
         [control]\nmax_connections = 128\n",
        dir.join("state").display(),
        transcript.display()
    );
    for (i, b) in boards.iter().enumerate() {
        // No debounce: its window is a deliberate hold (30 ms by default), not processing.
        config.push_str(&format!(
            "[[table]]\nname = \"t{i}\"\npeg = \"{}\"\ndebounce_ms = 0\n",
            b.path.display()
        ));
    }
    let config_path = dir.join("annabella.toml");
    std::fs::write(&config_path, config).expect("writing the config");

    let started = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_annabella"))
        .args(["serve", "--config"])
        .arg(&config_path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .env("RUST_LOG", "warn,annabella=info")
        .spawn()
        .expect("starting annabella serve");
    let mut daemon = Daemon { child, dir };
    let stderr = daemon.child.stderr.take().expect("stderr");
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains("ready") {
                ready_tx.send(Instant::now()).ok();
            }
            if line.contains("ERROR") || line.contains("WARN") {
                eprintln!("daemon: {line}");
            }
        }
    });
    let ready_at = ready_rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the daemon did not report ready");
    let startup = ready_at - started;

    let mut transcript = Transcript::open(&transcript);
    let mut conns: Vec<(TcpStream, BufReader<TcpStream>)> = Vec::new();
    let black = token(&daemon.dir.join("state"), "black");
    for i in 0..tables {
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("control connection");
        stream.set_nodelay(true).ok();
        let mut reader = BufReader::new(stream.try_clone().expect("clone"));
        let mut w = stream;
        writeln!(w, "auth {black}\ntable t{i}").expect("auth");
        for _ in 0..2 {
            let mut line = String::new();
            reader.read_line(&mut line).expect("reply");
            assert!(line.starts_with("ok"), "{line}");
        }
        conns.push((w, reader));
    }
    // Every board connected and agreeing with the game.
    std::thread::sleep(Duration::from_millis(500));

    let mut peg_latency = Vec::new();
    let mut tcp_latency = Vec::new();
    let mut positions: Vec<Chess> = vec![Chess::default(); tables];
    for (ply, uci_text) in GAME.iter().enumerate().take(plies) {
        for t in 0..tables {
            let pos = positions[t].clone();
            let uci: shakmaty::uci::UciMove = uci_text.parse().expect("uci");
            let m = uci.to_move(&pos).expect("legal");
            let spoken = annabella::chess::phrases::move_phrase(
                &pos,
                m,
                &annabella::chess::notation::Style::new(
                    annabella::chess::language::Language::english(),
                ),
            );
            if ply % 2 == 0 {
                let sent = boards[t].play(&pos, m);
                let heard = transcript.wait_for(&format!("opponent {spoken}"));
                peg_latency.push(heard - sent);
            } else {
                let (w, r) = &mut conns[t];
                let line = format!("move {uci_text}\n");
                w.write_all(line.as_bytes()).expect("move");
                let sent = Instant::now();
                let heard = transcript.wait_for(&format!("blind {spoken}"));
                tcp_latency.push(heard - sent);
                let mut reply = String::new();
                r.read_line(&mut reply).expect("reply");
                assert!(reply.starts_with("ok"), "{reply}");
                // The blind player replicates the move on his board.
                boards[t].play(&pos, m);
                transcript.wait_for("blind ");
            }
            positions[t].play_unchecked(m);
        }
    }
    let rss = rss_kib(daemon.child.id());
    peg_latency.sort();
    tcp_latency.sort();
    println!(
        "daemon: {tables} tables, {} peg moves, {} control moves",
        peg_latency.len(),
        tcp_latency.len()
    );
    for (name, samples) in [
        ("peg event → speech", &peg_latency),
        ("tcp move → speech", &tcp_latency),
    ] {
        if samples.is_empty() {
            continue;
        }
        println!(
            "  {name}: median {:.3} ms, p90 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
            percentile(samples, 0.5).as_secs_f64() * 1e3,
            percentile(samples, 0.9).as_secs_f64() * 1e3,
            percentile(samples, 0.99).as_secs_f64() * 1e3,
            samples.last().map_or(0.0, |d| d.as_secs_f64() * 1e3),
        );
    }
    println!("  resident memory: {:.1} MB", rss as f64 / 1024.0);
    println!("  start-up to ready: {:.0} ms", startup.as_secs_f64() * 1e3);
}
