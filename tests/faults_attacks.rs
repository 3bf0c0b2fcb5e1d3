//! The fault suite's load half: one real table — its blind player on a simulated peg board
//! behind a line the test can make noisy, the sighted player on the control interface, the
//! page on — under each attack in turn, and then all at once. During every attack both
//! players keep playing, and the suite measures what they feel (a peg move to its
//! announcement, a relayed move to its `ok`), how many of the attacker's connections the
//! daemon holds, its memory and open files before and after, and the log the attack costs.
//! It prints the table of figures that `docs/reliability.md` quotes (issue 14).
//!
//! Re-run: `cargo test --test faults_attacks -- --nocapture`.

pub mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use common::board::SimulatedBoard;
use common::control::{ControlClient, unix_ms};
use common::daemon::{Daemon, Serve};
use common::fs::scratch_dir;
use common::rng::XorShift;
use shakmaty::{Chess, Position};

/// A TCP connection to `to` from the local address `from` (every 127.x.y.z is this machine),
/// so that an attack can come from many addresses.
fn connect_from(from: Ipv4Addr, to: SocketAddr) -> std::io::Result<TcpStream> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4()?;
        socket.bind(SocketAddr::new(IpAddr::V4(from), 0))?;
        let stream = tokio::time::timeout(Duration::from_secs(5), socket.connect(to))
            .await
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::TimedOut))??;
        let stream = stream.into_std()?;
        stream.set_nonblocking(false)?;
        Ok(stream)
    })
}

/// The peg board's line, between the daemon and the simulated board: lines pass whole both
/// ways, and while noise is on, random bytes go to the daemon between them, as on a serial
/// cable with a bad contact. Each line of the board's is sent after a line feed of its own,
/// so noise never glues itself to a real line (a real line ends a burst of noise the same
/// way).
struct NoisyLine {
    /// Where the daemon connects (`--peg tcp:ADDR`).
    addr: SocketAddr,
    to_daemon: Arc<Mutex<Option<TcpStream>>>,
    noise_on: Arc<AtomicBool>,
    noise_bytes: Arc<AtomicU64>,
}

impl NoisyLine {
    fn new(board: &SimulatedBoard) -> NoisyLine {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let board_addr = board.address().trim_start_matches("tcp:").to_owned();
        let to_board = TcpStream::connect(&board_addr).unwrap();
        let to_daemon: Arc<Mutex<Option<TcpStream>>> = Arc::new(Mutex::new(None));
        // The board's lines, to whichever connection the daemon has made last.
        let from_board = BufReader::new(to_board.try_clone().unwrap());
        let daemon_side = to_daemon.clone();
        std::thread::spawn(move || {
            for line in from_board.lines() {
                let Ok(line) = line else { break };
                let mut guard = daemon_side.lock().unwrap();
                if let Some(stream) = guard.as_mut() {
                    let _ = stream.write_all(format!("\n{line}\n").as_bytes());
                }
            }
        });
        // The daemon's requests (`V`, `?`) to the board, from each connection it makes.
        let daemon_side = to_daemon.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { break };
                let mut reader = stream.try_clone().unwrap();
                *daemon_side.lock().unwrap() = Some(stream);
                let mut to_board = to_board.try_clone().unwrap();
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut reader, &mut to_board);
                });
            }
        });
        let noise_on = Arc::new(AtomicBool::new(false));
        let noise_bytes = Arc::new(AtomicU64::new(0));
        let (on, sent, daemon_side) = (noise_on.clone(), noise_bytes.clone(), to_daemon.clone());
        std::thread::spawn(move || {
            let mut noise = XorShift(0x2545_F491_4F6C_DD1D);
            let mut chunk = [0u8; 1024];
            loop {
                if on.load(Ordering::Relaxed) {
                    noise.fill(&mut chunk);
                    if let Some(stream) = daemon_side.lock().unwrap().as_mut()
                        && stream.write_all(&chunk).is_ok()
                    {
                        sent.fetch_add(chunk.len() as u64, Ordering::Relaxed);
                    }
                    // About 1 MiB a second: far more than a faulty cable produces.
                    std::thread::sleep(Duration::from_millis(1));
                } else {
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
        });
        NoisyLine {
            addr,
            to_daemon,
            noise_on,
            noise_bytes,
        }
    }

    fn connected(&self) -> bool {
        self.to_daemon.lock().unwrap().is_some()
    }
}

/// What one attack did, told when it stops.
struct Outcome {
    /// The attacker's connections or attempts, and what became of them.
    note: String,
}

/// An attack running on threads of its own until stopped.
struct Attack {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<String>>,
}

impl Attack {
    fn spawn(workers: Vec<Box<dyn FnOnce(Arc<AtomicBool>) -> String + Send>>) -> Attack {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = workers
            .into_iter()
            .map(|work| {
                let stop = stop.clone();
                std::thread::spawn(move || work(stop))
            })
            .collect();
        Attack { stop, threads }
    }

    fn stop(self) -> Outcome {
        self.stop.store(true, Ordering::Relaxed);
        let notes: Vec<String> = self
            .threads
            .into_iter()
            .map(|t| t.join().expect("an attacking thread"))
            .filter(|n| !n.is_empty())
            .collect();
        Outcome {
            note: notes.join("; "),
        }
    }
}

type Worker = Box<dyn FnOnce(Arc<AtomicBool>) -> String + Send>;

/// The tenth of the attacking addresses 127.0.0.2 … 127.0.0.11 that connection `i` comes from.
fn attacker(i: usize) -> Ipv4Addr {
    Ipv4Addr::new(127, 0, 0, 2 + (i % 10) as u8)
}

/// Whether the daemon has closed `stream` (a read sees the end, or an error), without waiting.
fn closed_by_daemon(stream: &TcpStream) -> bool {
    stream.set_nonblocking(true).ok();
    let mut byte = [0u8; 512];
    let closed = loop {
        match stream.read_at_end(&mut byte) {
            Some(closed) => break closed,
            None => continue,
        }
    };
    stream.set_nonblocking(false).ok();
    closed
}

/// One non-blocking read's verdict on a connection: `Some(true)` closed, `Some(false)` open
/// with nothing more to read, `None` data was read (read again).
trait ReadAtEnd {
    fn read_at_end(&self, buf: &mut [u8]) -> Option<bool>;
}

impl ReadAtEnd for TcpStream {
    fn read_at_end(&self, buf: &mut [u8]) -> Option<bool> {
        match (&*self).read(buf) {
            Ok(0) => Some(true),
            Ok(_) => None,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Some(false),
            Err(_) => Some(true),
        }
    }
}

/// `count` connections from ten addresses, each sending `first` and then holding still.
/// Says how many the daemon still holds when the attack stops.
fn hold_connections(to: SocketAddr, count: usize, first: &'static [u8]) -> Worker {
    Box::new(move |stop| {
        let mut held = Vec::new();
        let mut failed = 0;
        for i in 0..count {
            match connect_from(attacker(i), to) {
                Ok(mut s) => {
                    let _ = s.write_all(first);
                    held.push(s);
                }
                Err(_) => failed += 1,
            }
        }
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let open = held.iter().filter(|s| !closed_by_daemon(s)).count();
        format!(
            "{count} opened ({failed} failed to connect), {open} still open at the end",
            count = held.len()
        )
    })
}

/// `count` connections from ten addresses, each trickling `request` a byte every 200 ms and
/// never finishing it.
fn trickle(to: SocketAddr, count: usize, request: Vec<u8>) -> Worker {
    Box::new(move |stop| {
        let mut conns: Vec<TcpStream> = (0..count)
            .filter_map(|i| connect_from(attacker(i), to).ok())
            .collect();
        let mut at = 0;
        let mut cut = 0;
        while !stop.load(Ordering::Relaxed) {
            let byte = [request[at % request.len()]];
            conns.retain_mut(|s| {
                let alive = s.write_all(&byte).is_ok();
                cut += usize::from(!alive);
                alive
            });
            at += 1;
            std::thread::sleep(Duration::from_millis(200));
        }
        format!("{count} trickling, {cut} cut off by the daemon")
    })
}

/// Connections that send random bytes as fast as the daemon takes them, each beginning with
/// `prefix`, and connect again when the daemon closes them.
fn garbage(to: SocketAddr, seed: u64, prefix: Vec<u8>) -> Worker {
    Box::new(move |stop| {
        let mut noise = XorShift(seed);
        let mut chunk = vec![0u8; 16 * 1024];
        let (mut sent, mut connections) = (0u64, 0u32);
        while !stop.load(Ordering::Relaxed) {
            let Ok(mut s) = connect_from(attacker(seed as usize), to) else {
                std::thread::sleep(Duration::from_millis(50));
                continue;
            };
            connections += 1;
            s.set_write_timeout(Some(Duration::from_millis(200))).ok();
            let mut sink = s.try_clone().unwrap();
            let drain = std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while matches!(sink.read(&mut buf), Ok(n) if n > 0) {}
            });
            if s.write_all(&prefix).is_ok() {
                while !stop.load(Ordering::Relaxed) {
                    noise.fill(&mut chunk);
                    match s.write(&chunk) {
                        Ok(n) if n > 0 => sent += n as u64,
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                        Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                        _ => break,
                    }
                }
            }
            let _ = s.shutdown(std::net::Shutdown::Both);
            let _ = drain.join();
        }
        format!(
            "{:.1} MiB sent on {connections} connections",
            sent as f64 / 1048576.0
        )
    })
}

/// Guesses tokens on fresh connections as fast as the answers come.
fn guess_tokens(to: SocketAddr, seed: u64) -> Worker {
    Box::new(move |stop| {
        let (mut limited, mut checked, mut other) = (0u32, 0u32, 0u32);
        let mut n = seed;
        while !stop.load(Ordering::Relaxed) {
            let Ok(s) = connect_from(attacker(n as usize), to) else {
                continue;
            };
            s.set_read_timeout(Some(Duration::from_secs(2))).ok();
            let mut reader = BufReader::new(s.try_clone().unwrap());
            let mut w = s;
            for _ in 0..3 {
                n += 1;
                let mut reply = String::new();
                if writeln!(w, "auth guess-{n:016x}").is_err()
                    || reader.read_line(&mut reply).unwrap_or(0) == 0
                {
                    break;
                }
                if reply.starts_with("error rate") {
                    limited += 1;
                } else if reply.starts_with("error auth") {
                    checked += 1;
                } else {
                    other += 1;
                }
            }
        }
        format!(
            "{checked} wrong guesses answered, {limited} past the daemon's budget (connection closed), {other} other answers"
        )
    })
}

/// One authenticated observer asking `sheet` and `view` as fast as it can, never waiting for
/// an answer before the next, and connecting again whenever it is closed: the heaviest
/// requests there are, from a client who may ask.
fn request_flood(to: SocketAddr, token: String) -> Worker {
    Box::new(move |stop| {
        let (ok, limited) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let (mut sent, mut connections) = (0u64, 0u32);
        while !stop.load(Ordering::Relaxed) {
            // From a machine of its own: the players' is 127.0.0.1.
            let Ok(mut s) = connect_from(Ipv4Addr::new(127, 0, 0, 12), to) else {
                std::thread::sleep(Duration::from_millis(50));
                continue;
            };
            connections += 1;
            let mut reader = BufReader::new(s.try_clone().unwrap());
            let (ok, limited) = (ok.clone(), limited.clone());
            let read = std::thread::spawn(move || {
                let mut line = String::new();
                while matches!(reader.read_line(&mut line), Ok(n) if n > 0) {
                    let counter = if line.starts_with("ok") {
                        &ok
                    } else {
                        &limited
                    };
                    counter.fetch_add(1, Ordering::Relaxed);
                    line.clear();
                }
            });
            let _ = writeln!(s, "auth {token}");
            s.set_write_timeout(Some(Duration::from_millis(200))).ok();
            while !stop.load(Ordering::Relaxed) {
                match s.write_all(b"sheet\nview\nstatus\nboard\n") {
                    Ok(()) => sent += 4,
                    Err(e)
                        if matches!(
                            e.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                        ) => {}
                    Err(_) => break,
                }
            }
            let _ = s.shutdown(std::net::Shutdown::Both);
            let _ = read.join();
        }
        format!(
            "{sent} requests sent on {connections} connections: {} answered, {} refused (rate)",
            ok.load(Ordering::Relaxed),
            limited.load(Ordering::Relaxed)
        )
    })
}

/// What `/proc` says of the daemon: resident memory and open files.
#[derive(Clone, Copy)]
struct Usage {
    rss_kb: u64,
    files: usize,
}

fn usage(pid: u32) -> Usage {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let rss_kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    let files = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0);
    Usage { rss_kb, files }
}

/// Samples the daemon's usage every 25 ms until stopped; returns the peaks.
fn sample_peaks(pid: u32, stop: Arc<AtomicBool>) -> JoinHandle<Usage> {
    std::thread::spawn(move || {
        let mut peak = usage(pid);
        while !stop.load(Ordering::Relaxed) {
            let now = usage(pid);
            peak.rss_kb = peak.rss_kb.max(now.rss_kb);
            peak.files = peak.files.max(now.files);
            std::thread::sleep(Duration::from_millis(25));
        }
        peak
    })
}

/// Legal moves chosen from a fixed seed, never a promotion (the peg board would wait for a
/// key) and never one that ends the game.
struct Moves {
    position: Chess,
    noise: XorShift,
}

impl Moves {
    fn next(&mut self) -> String {
        let legal = self.position.legal_moves();
        let playable: Vec<_> = legal
            .iter()
            .filter(|m| m.promotion().is_none())
            .filter(|m| {
                let mut after = self.position.clone();
                after.play_unchecked(**m);
                !after.is_game_over()
            })
            .cloned()
            .collect();
        assert!(!playable.is_empty(), "no move keeps the game going");
        let m = playable[self.noise.below(playable.len() as u64) as usize];
        let uci = m.to_uci(shakmaty::CastlingMode::Standard).to_string();
        self.position.play_unchecked(m);
        uci
    }
}

/// The table the attacks are aimed at, and its two players.
struct Table {
    daemon: Daemon,
    board: SimulatedBoard,
    line: NoisyLine,
    black: ControlClient,
    watcher: ControlClient,
    moves: Moves,
    ply: usize,
}

/// What the players felt during one phase.
struct Felt {
    /// From the peg move made to its announcement (includes the 300 ms the table waits for
    /// the hand to be still).
    blind_ms: Vec<u64>,
    /// From the sighted player's `move` request to its `ok`.
    sighted_ms: Vec<u64>,
    /// From the blind player's replication of that move to "in Ordnung".
    replicated_ms: Vec<u64>,
    /// From a player's new connection to its `auth` answered `ok` (a player whose
    /// connection dropped, coming back).
    newcomer_ms: Vec<u64>,
}

impl Table {
    fn start(dir: &std::path::Path) -> Table {
        let board = SimulatedBoard::on_tcp("peg");
        let line = NoisyLine::new(&board);
        let daemon = Serve::new(&dir.join("state"))
            .web("127.0.0.1:0")
            .args(["--peg", &format!("tcp:{}", line.addr), "--speech", "none"])
            .args(["--time-control", "5400+30"])
            .start();
        let black = daemon.connect("black");
        let mut watcher = daemon.connect("observer");
        assert!(watcher.ask("events").starts_with("ok events"));
        watcher.wait_status("peg connected in-sync");
        assert!(line.connected());
        Table {
            daemon,
            board,
            line,
            black,
            watcher,
            moves: Moves {
                position: Chess::default(),
                noise: XorShift(0x9E37_79B9_7F4A_7C15),
            },
            ply: 0,
        }
    }

    /// Three moves each: White on the peg board, Black by a request, the peg board replicating
    /// it; and Black's assistant connecting anew after each.
    fn play(&mut self, felt: &mut Felt) {
        for _ in 0..3 {
            let white = self.moves.next();
            self.ply += 1;
            let made = unix_ms();
            self.board.hand(&white);
            let want = format!("event move {} white {white} ", self.ply);
            let at = self.event_at(&want, |l| l.starts_with(&want));
            felt.blind_ms.push(at.saturating_sub(made));

            let black = self.moves.next();
            self.ply += 1;
            let asked = Instant::now();
            let reply = self.black.ask(&format!("move {black}"));
            felt.sighted_ms.push(asked.elapsed().as_millis() as u64);
            assert!(
                reply.starts_with(&format!("ok {black}")),
                "{black}: {reply}"
            );
            let made = unix_ms();
            self.board.hand(&black);
            // "in Ordnung", or, when the line's noise held the hand's lines apart long
            // enough for the board to be told it differed meanwhile, "Brett stimmt wieder".
            let at = self.event_at("the replication", |l| {
                l == "event say blind in Ordnung"
                    || l.starts_with("event say blind Brett stimmt wieder")
            });
            felt.replicated_ms.push(at.saturating_sub(made));

            let asked = Instant::now();
            let mut assistant = self.daemon.connect("assistant");
            felt.newcomer_ms.push(asked.elapsed().as_millis() as u64);
            assert!(assistant.ask("status").starts_with("ok table"));
        }
    }

    /// When the watcher received the first event satisfying `want` (Unix ms).
    fn event_at(&self, what: &str, want: impl Fn(&str) -> bool) -> u64 {
        let deadline = Instant::now() + common::WAIT;
        let (mut seen, mut last) = (0, std::collections::VecDeque::new());
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.watcher.next_event(left) {
                Some((at, line)) if want(&line) => return at,
                Some((_, line)) => {
                    seen += 1;
                    // The line's noise is reported a few times a second; what the table did
                    // besides is what tells why the move did not come.
                    if line.starts_with("event board-error") {
                        continue;
                    }
                    if last.len() == 8 {
                        last.pop_front();
                    }
                    last.push_back(line);
                }
                None => panic!(
                    "no {what} within {:?}; {seen} other events, the last {last:#?}",
                    common::WAIT
                ),
            }
        }
    }
}

/// One row of the suite's table.
struct Row {
    attack: &'static str,
    felt: Felt,
    before: Usage,
    peak: Usage,
    after: Usage,
    log_bytes: usize,
    outcome: String,
}

/// The row as a line of the table `docs/reliability.md` shows.
fn row_line(row: &Row) -> String {
    let mb = |kb: u64| format!("{:.1}", kb as f64 / 1024.0);
    format!(
        "| {} | {} | {} | {} | {} | {} → {} → {} | {} → {} → {} | {:.1} kB | {} |",
        row.attack,
        median_max(&row.felt.blind_ms),
        median_max(&row.felt.sighted_ms),
        median_max(&row.felt.replicated_ms),
        median_max(&row.felt.newcomer_ms),
        mb(row.before.rss_kb),
        mb(row.peak.rss_kb),
        mb(row.after.rss_kb),
        row.before.files,
        row.peak.files,
        row.after.files,
        row.log_bytes as f64 / 1024.0,
        row.outcome
    )
}

fn median_max(ms: &[u64]) -> String {
    let mut v = ms.to_vec();
    v.sort_unstable();
    match v.as_slice() {
        [] => "–".to_owned(),
        v => format!("{}/{}", v[v.len() / 2], v[v.len() - 1]),
    }
}

#[test]
fn the_table_plays_on_under_every_attack_and_nothing_is_lost() {
    let dir = scratch_dir("faults-attacks");
    let mut table = Table::start(&dir);
    let control = table.daemon.control;
    let web = table.daemon.web.expect("the page is on");
    let observer = table.daemon.token("observer");
    let pid = table.daemon.pid();
    let host = format!("Host: {web}\r\n");
    let ws_upgrade = format!(
        "GET /ws HTTP/1.1\r\n{host}Upgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .into_bytes();
    let slow_get = format!("GET / HTTP/1.1\r\n{host}X-Slow: ").into_bytes();

    type Plan = (&'static str, fn(&Targets) -> Vec<Worker>, bool);
    struct Targets {
        control: SocketAddr,
        web: SocketAddr,
        observer: String,
        ws_upgrade: Vec<u8>,
        slow_get: Vec<u8>,
    }
    let targets = Targets {
        control,
        web,
        observer,
        ws_upgrade,
        slow_get,
    };
    let plans: Vec<Plan> = vec![
        ("none", |_| vec![], false),
        (
            "300 idle web connections",
            |t| vec![hold_connections(t.web, 300, b"")],
            false,
        ),
        (
            "64 slow web requests (a header byte every 200 ms)",
            |t| vec![trickle(t.web, 64, t.slow_get.clone())],
            false,
        ),
        (
            "random bytes to the web port (4 connections)",
            |t| (1..=4).map(|i| garbage(t.web, i, Vec::new())).collect(),
            false,
        ),
        (
            "random bytes on WebSockets (4 connections)",
            |t| {
                (5..=8)
                    .map(|i| garbage(t.web, i, t.ws_upgrade.clone()))
                    .collect()
            },
            false,
        ),
        (
            "200 idle control connections",
            |t| vec![hold_connections(t.control, 200, b"")],
            false,
        ),
        (
            "64 slow control requests (a byte every 200 ms)",
            |t| {
                vec![trickle(
                    t.control,
                    64,
                    b"auth wrong-token-trickled-slowly".to_vec(),
                )]
            },
            false,
        ),
        (
            "random bytes to the control port (4 connections)",
            |t| {
                (9..=12)
                    .map(|i| garbage(t.control, i, Vec::new()))
                    .collect()
            },
            false,
        ),
        (
            "wrong tokens (4 guessers)",
            |t| (0..4).map(|i| guess_tokens(t.control, i << 32)).collect(),
            false,
        ),
        (
            "an observer asking as fast as it can",
            |t| vec![request_flood(t.control, t.observer.clone())],
            false,
        ),
        ("random bytes on the peg board's line", |_| vec![], true),
        (
            "all of these at once",
            |t| {
                let mut all = vec![
                    hold_connections(t.web, 300, b""),
                    trickle(t.web, 32, t.slow_get.clone()),
                    garbage(t.web, 21, Vec::new()),
                    garbage(t.web, 22, t.ws_upgrade.clone()),
                    hold_connections(t.control, 200, b""),
                    trickle(t.control, 32, b"auth wrong-token-trickled-slowly".to_vec()),
                    garbage(t.control, 23, Vec::new()),
                    request_flood(t.control, t.observer.clone()),
                ];
                all.extend((0..2).map(|i| guess_tokens(t.control, (i + 8) << 32)));
                all
            },
            true,
        ),
    ];

    let mut rows = Vec::new();
    for (name, workers, peg_noise) in plans {
        std::thread::sleep(Duration::from_millis(300));
        let before = usage(pid);
        let log_before = table.daemon.log_bytes_now();
        let sampling = Arc::new(AtomicBool::new(false));
        let sampler = sample_peaks(pid, sampling.clone());
        let noise_before = table.line.noise_bytes.load(Ordering::Relaxed);
        let attack = Attack::spawn(workers(&targets));
        table.line.noise_on.store(peg_noise, Ordering::Relaxed);
        // Let the attack build up before the players move.
        std::thread::sleep(Duration::from_millis(700));
        let mut felt = Felt {
            blind_ms: Vec::new(),
            sighted_ms: Vec::new(),
            replicated_ms: Vec::new(),
            newcomer_ms: Vec::new(),
        };
        table.play(&mut felt);
        table.line.noise_on.store(false, Ordering::Relaxed);
        let mut outcome = attack.stop();
        if peg_noise {
            let sent = table.line.noise_bytes.load(Ordering::Relaxed) - noise_before;
            let note = format!("{:.1} MiB of noise on the line", sent as f64 / 1048576.0);
            outcome.note = [note, outcome.note]
                .into_iter()
                .filter(|n| !n.is_empty())
                .collect::<Vec<_>>()
                .join("; ");
        }
        sampling.store(true, Ordering::Relaxed);
        let peak = sampler.join().unwrap();
        // What the attack left behind once its connections are gone.
        std::thread::sleep(Duration::from_millis(500));
        let after = usage(pid);
        let log_bytes = table.daemon.log_bytes_now() - log_before;
        let row = Row {
            attack: name,
            felt,
            before,
            peak,
            after,
            log_bytes,
            outcome: outcome.note,
        };
        eprintln!("{}", row_line(&row));
        rows.push(row);
    }

    // The table, as docs/reliability.md shows it.
    eprintln!(
        "\n| attack | peg move → announced, ms (median/worst) | relayed move → ok | replication → \"in Ordnung\" | a player connects → auth ok | RSS before → peak → after, MB | open files before → peak → after | log | the attacker |"
    );
    eprintln!("|---|---|---|---|---|---|---|---|---|");
    for row in &rows {
        eprintln!("{}", row_line(row));
    }
    eprintln!();

    // Nothing was lost: every move is in the game, and after a restart still is.
    let plies = table.ply;
    let status = table.black.ask("status");
    assert!(status.contains(&format!("ply {plies} ")), "{status}");
    let board_before = table.black.ask("board");
    let first = &rows[0];
    for row in &rows {
        // No attack may keep a player waiting: generous bounds for a loaded machine, far
        // below what a starved table shows (seconds, or never).
        let worst = |ms: &[u64]| ms.iter().copied().max().unwrap_or(0);
        assert!(
            worst(&row.felt.sighted_ms) < 2_000,
            "{}: a relayed move took {:?} ms",
            row.attack,
            row.felt.sighted_ms
        );
        assert!(
            worst(&row.felt.newcomer_ms) < 2_000,
            "{}: a player took {:?} ms to get in",
            row.attack,
            row.felt.newcomer_ms
        );
        assert!(
            worst(&row.felt.blind_ms) < 3_000,
            "{}: a peg move took {:?} ms to be announced",
            row.attack,
            row.felt.blind_ms
        );
        // Memory comes back: no attack leaves more than 32 MB behind.
        assert!(
            row.after.rss_kb < first.before.rss_kb + 32 * 1024,
            "{}: RSS {} kB after, {} kB at the start",
            row.attack,
            row.after.rss_kb,
            first.before.rss_kb
        );
        // The log of an attack stays small: throttled, never a line per attempt.
        assert!(
            row.log_bytes < 256 * 1024,
            "{}: {} bytes of log",
            row.attack,
            row.log_bytes
        );
    }
    let Table {
        mut daemon, board, ..
    } = table;
    daemon.terminate();
    drop(daemon);
    drop(board);
    let daemon = Serve::new(&dir.join("state"))
        .args(["--peg", "sim", "--speech", "none"])
        .start();
    let mut black = daemon.connect("black");
    let status = black.ask("status");
    assert!(status.contains(&format!("ply {plies} ")), "{status}");
    assert_eq!(black.ask("board"), board_before);
}
