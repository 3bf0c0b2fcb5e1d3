//! Faults and load on the control port, against the real daemon: one address holding idle
//! connections cannot take every slot, the last slots are kept for the players, wrong tokens
//! are limited on the whole daemon however many connections guess, and a guessing flood
//! leaves a few log lines, not one per guess (issue 14).

pub mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::time::Duration;

use common::control::ControlClient;
use common::daemon::{Daemon, Serve};
use common::fs::scratch_dir;

/// A TCP connection to `to` from the local address `from` (any 127.x.y.z is this machine).
fn connect_from(from: IpAddr, to: SocketAddr) -> TcpStream {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .unwrap();
    runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(SocketAddr::new(from, 0)).unwrap();
        let stream = socket.connect(to).await.unwrap();
        let stream = stream.into_std().unwrap();
        stream.set_nonblocking(false).unwrap();
        stream
    })
}

/// The first line the daemon writes on `stream`, if any within a second.
fn first_line(stream: &TcpStream) -> Option<String> {
    stream
        .set_read_timeout(Some(Duration::from_secs(1)))
        .unwrap();
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line).ok()?;
    (!line.is_empty()).then(|| line.trim_end().to_owned())
}

fn ask(stream: &mut TcpStream, line: &str) -> Option<String> {
    writeln!(stream, "{line}").ok()?;
    first_line(stream)
}

fn start(name: &str) -> Daemon {
    Serve::new(&scratch_dir(name).join("state"))
        .args(["--peg", "sim", "--speech", "none"])
        .start()
}

#[test]
fn one_address_cannot_take_every_slot_and_the_last_are_the_players() {
    let daemon = start("faults-slots");
    let attacker: IpAddr = "127.0.0.2".parse().unwrap();
    let second: IpAddr = "127.0.0.3".parse().unwrap();
    // The default cap is 32: 8 kept for the players, the assistant and the arbiter, 12 for
    // one address.
    let mut held = Vec::new();
    for _ in 0..12 {
        held.push(connect_from(attacker, daemon.control));
    }
    let refused = connect_from(attacker, daemon.control);
    assert_eq!(
        first_line(&refused).as_deref(),
        Some(
            "error rate too many connections from your address (at most 12); close one and try again"
        )
    );
    // Another client still gets in and plays, as fast as on an idle daemon.
    let mut white = daemon.connect("white");
    let asked = std::time::Instant::now();
    assert_eq!(white.ask("move e4"), "ok e2e4 e4");
    let latency = asked.elapsed();
    eprintln!("a move with 12 idle connections held by one address: {latency:?}");
    assert!(latency < Duration::from_millis(500), "{latency:?}");
    drop(white);
    // A second address takes its 12 too: every slot anyone may take is held.
    for _ in 0..12 {
        held.push(connect_from(second, daemon.control));
    }
    // An observer now lands in a slot kept for the players: told so and closed once it
    // authenticates; a player and the arbiter get in.
    let mut observer = connect_from("127.0.0.1".parse().unwrap(), daemon.control);
    let reply = ask(&mut observer, &format!("auth {}", daemon.token("observer")));
    assert_eq!(
        reply.as_deref(),
        Some(
            "error rate the last 8 connections are kept for the players, the assistant and the arbiter, and the others are taken; try again later"
        )
    );
    let mut black = daemon.connect("black");
    assert!(black.ask("status").starts_with("ok table table-1 ply 1"));
    let mut arbiter = daemon.connect("arbiter");
    assert!(arbiter.ask("status").starts_with("ok table table-1 ply 1"));
    drop(held);
}

#[test]
fn wrong_tokens_are_limited_on_the_whole_daemon_and_their_log_is_throttled() {
    let daemon = start("faults-tokens");
    let mut limited = 0;
    let mut checked = 0;
    // 50 connections guessing 3 tokens each: each connection would allow 3.
    for _ in 0..50 {
        let mut c = TcpStream::connect(daemon.control).unwrap();
        for guess in 0..3 {
            match ask(&mut c, &format!("auth wrong-token-{guess}")) {
                Some(r) if r.starts_with("error rate too many wrong tokens") => limited += 1,
                Some(r) if r.starts_with("error auth wrong token") => checked += 1,
                _ => {}
            }
        }
    }
    // Five a second after a burst of 20: past it, a wrong token is answered at once and its
    // connection closed, so each further guess costs a connection.
    assert!(limited > 30, "{limited} limited, {checked} checked");
    assert!(checked < 50, "{limited} limited, {checked} checked");
    // The right token works at once, the guessing budget spent or not.
    let mut arbiter = ControlClient::authenticated(daemon.control, &daemon.token("arbiter"));
    assert!(arbiter.ask("status").starts_with("ok"));
    drop(arbiter);
    let log = daemon.stop_and_read_log();
    let wrong = log.iter().filter(|l| l.contains("wrong token")).count();
    assert!(wrong <= 25, "{wrong} log lines for {checked} wrong tokens");
}

#[test]
fn the_open_file_limit_is_raised_to_what_the_system_allows() {
    let dir = scratch_dir("faults-nofile");
    // As under systemd: a low soft limit below the hard one.
    let daemon = Serve::new(&dir.join("state"))
        .wrapped(["sh", "-c", "ulimit -Sn 256 && exec \"$@\"", "sh"])
        .args(["--peg", "sim", "--speech", "none"])
        .start();
    let log = daemon.stop_and_read_log();
    let line = log
        .iter()
        .find(|l| l.contains("open-file limit raised"))
        .unwrap_or_else(|| panic!("no raised limit in {log:#?}"));
    assert!(line.contains("from=256"), "{line}");
}

/// 1 MiB of random bytes on the line of an e-board of `family` (its serial-to-network bridge):
/// a few log lines, and the table answers on.
fn garbage_on_the_e_boards_line(family: &str) {
    use std::io::Read;
    use std::time::Instant;
    // The test is the DGT board's serial-to-network bridge: the daemon connects to it.
    let bridge = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = bridge.local_addr().unwrap().port();
    let daemon = Serve::new(&scratch_dir(&format!("faults-garbage-{family}")).join("state"))
        .args(["--peg", "sim", "--speech", "none"])
        .args(["--normal", &format!("{family}:tcp:127.0.0.1:{port}")])
        .start();
    let (mut line, _) = bridge.accept().unwrap();
    // What the daemon sends (its greeting) is read and dropped on a thread of its own.
    let mut reader = line.try_clone().unwrap();
    std::thread::spawn(move || {
        let mut sink = [0u8; 4096];
        while matches!(reader.read(&mut sink), Ok(n) if n > 0) {}
    });
    let baseline = daemon.log_bytes_so_far();
    let writer = std::thread::spawn(move || {
        // 1 MiB of noise, from a fixed seed, in chunks as a line delivers them.
        let mut noise = common::rng::XorShift(0x9E37_79B9_7F4A_7C15);
        let mut chunk = vec![0u8; 4096];
        for _ in 0..256 {
            noise.fill(&mut chunk);
            if line.write_all(&chunk).is_err() {
                break;
            }
        }
        line
    });
    // Meanwhile the table answers at once.
    let mut arbiter = daemon.connect("arbiter");
    let mut slowest = Duration::ZERO;
    for _ in 0..20 {
        let asked = Instant::now();
        assert!(arbiter.ask("status").starts_with("ok table table-1"));
        slowest = slowest.max(asked.elapsed());
        std::thread::sleep(Duration::from_millis(50));
    }
    let _line = writer.join().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert!(arbiter.ask("status").starts_with("ok table table-1"));
    drop(arbiter);
    let log = daemon.stop_and_read_log();
    let bytes: usize = log.iter().map(|l| l.len() + 1).sum::<usize>() - baseline;
    eprintln!(
        "1 MiB of garbage on the {family} line: {bytes} bytes of log; slowest status during it {slowest:?}"
    );
    assert!(
        bytes < 64 * 1024,
        "{bytes} bytes of log for 1 MiB of garbage"
    );
    assert!(slowest < Duration::from_millis(500), "{slowest:?}");
}

#[test]
fn garbage_on_a_dgt_boards_line_is_a_few_log_lines_and_the_table_answers_on() {
    garbage_on_the_e_boards_line("dgt");
}

#[test]
fn garbage_on_a_millennium_boards_line_is_a_few_log_lines_and_the_table_answers_on() {
    garbage_on_the_e_boards_line("millennium");
}

#[test]
fn garbage_on_a_certabo_boards_line_is_a_few_log_lines_and_the_table_answers_on() {
    garbage_on_the_e_boards_line("certabo");
}

#[test]
fn idle_connections_from_many_addresses_make_room_for_a_player() {
    use std::time::Instant;
    let daemon = Serve::new(&scratch_dir("faults-room").join("state"))
        .web("127.0.0.1:0")
        .args(["--peg", "sim", "--speech", "none"])
        .start();
    // Ten addresses take every slot (32: 10 × 3, and 2 more) and never authenticate.
    let mut held = Vec::new();
    for i in 0..32u8 {
        let from = IpAddr::from([127, 0, 0, 2 + i % 10]);
        held.push(connect_from(from, daemon.control));
    }
    // The port is full: a player arriving now waits until the oldest idle connection has
    // held its slot a second, which then makes room for him.
    let arrived = Instant::now();
    let mut white = daemon.connect("white");
    let waited = arrived.elapsed();
    eprintln!("a player got in {waited:?} after a ten-address idle flood filled the port");
    assert!(white.ask("status").starts_with("ok table table-1"));
    assert!(waited < Duration::from_secs(3), "{waited:?}");
    // An idle connection that had waited longest was told why it was closed.
    let told = |held: &[TcpStream]| {
        held.iter()
            .filter_map(|c| {
                c.set_read_timeout(Some(Duration::from_millis(30))).unwrap();
                let mut line = String::new();
                BufReader::new(c).read_line(&mut line).ok()?;
                Some(line.trim_end().to_owned())
            })
            .filter(|l| {
                l == "error rate every connection is taken and this one had not authenticated; \
                      it makes room for a newcomer; connect again and send auth TOKEN at once"
            })
            .count()
    };
    assert_eq!(told(&held), 1);
    // An authenticated connection is never displaced: the arbiter, coming next, displaces
    // another idle one, and the player's connection stays.
    let mut arbiter = daemon.connect("arbiter");
    assert!(arbiter.ask("status").starts_with("ok table"));
    assert!(white.ask("status").starts_with("ok table"));
    // A page, which takes one of the same slots, gets one the same way.
    let web = daemon.web.expect("the page is on");
    let token = daemon.token("observer");
    let answer = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(async move {
            use futures_util::{SinkExt, StreamExt};
            use tokio_tungstenite::tungstenite::Message;
            let (mut page, _) = tokio_tungstenite::connect_async(format!("ws://{web}/ws"))
                .await
                .unwrap();
            page.send(Message::text(format!("auth {token}")))
                .await
                .unwrap();
            loop {
                match page.next().await {
                    Some(Ok(Message::Text(text))) => break text.to_string(),
                    Some(Ok(_)) => continue,
                    other => break format!("{other:?}"),
                }
            }
        });
    assert_eq!(answer, "ok observer table-1");
    drop(held);
}

#[test]
fn a_guessing_flood_from_elsewhere_never_keeps_a_player_out() {
    let daemon = start("faults-guessing");
    let mut limited = 0;
    // Guessers on three addresses spend the budget of wrong tokens.
    for i in 0..60u8 {
        let from = IpAddr::from([127, 0, 0, 2 + i % 3]);
        let mut c = connect_from(from, daemon.control);
        if let Some(r) = ask(&mut c, &format!("auth wrong-token-{i}"))
            && r.starts_with("error rate too many wrong tokens")
        {
            limited += 1;
        }
    }
    assert!(limited > 20, "{limited} guesses past the budget");
    // The player's token is checked at once.
    let mut white = daemon.connect("white");
    assert!(white.ask("status").starts_with("ok table table-1"));
    // From a guessing address too: every token is looked at; the budget bounds only what
    // wrong ones cost.
    let mut guesser = connect_from(IpAddr::from([127, 0, 0, 2]), daemon.control);
    let reply = ask(&mut guesser, &format!("auth {}", daemon.token("black")));
    assert_eq!(reply.as_deref(), Some("ok black table-1"));
}

#[test]
fn with_its_log_pipe_closed_the_daemon_stops_at_once_on_sigterm() {
    use std::process::{Command, Stdio};
    use std::time::Instant;
    let state = scratch_dir("faults-log-pipe").join("state");
    let mut child = Command::new(env!("CARGO_BIN_EXE_annabella"))
        .args([
            "serve",
            "--peg",
            "sim",
            "--speech",
            "none",
            "--web",
            "127.0.0.1:0",
        ])
        .args(["--listen", "127.0.0.1:0", "--state-dir"])
        .arg(&state)
        .env("RUST_LOG", "info")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut log = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    let mut address = None;
    while address.is_none() {
        line.clear();
        assert!(log.read_line(&mut line).unwrap() > 0, "no ready line");
        address = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix("address="))
            .and_then(|a| a.parse::<SocketAddr>().ok());
    }
    // The log's reader goes away (a pipe to a collector that died); the daemon goes on and
    // logs: a connection, a move typed on the simulated board, a wrong token.
    drop(log);
    let mut c = TcpStream::connect(address.unwrap()).unwrap();
    let _ = ask(&mut c, "auth wrong-token");
    let stdin = child.stdin.as_mut().unwrap();
    writeln!(stdin, "e2e4").unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let cpu = |pid: u32| -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
        // utime and stime, the 14th and 15th fields (11th and 12th after the name).
        fields.get(11).and_then(|v| v.parse().ok()).unwrap_or(0)
            + fields.get(12).and_then(|v| v.parse().ok()).unwrap_or(0)
    };
    let before = cpu(child.id());
    let asked = Instant::now();
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if asked.elapsed() > Duration::from_secs(10) {
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = asked.elapsed();
    if status.is_none() {
        let spent = cpu(child.id()) - before;
        let _ = child.kill();
        panic!("still running 10 s after SIGTERM, {spent} ticks of CPU meanwhile");
    }
    eprintln!("with its log pipe closed, SIGTERM ended the daemon in {took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}
