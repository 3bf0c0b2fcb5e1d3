//! The web port under load, against the real daemon: a flood of idle connections and a slow
//! header trickle are held within the caps and closed after their timeouts while the page and
//! the control port keep answering; one address cannot take the whole port; requests naming
//! another host (DNS rebinding) are refused; audio records stream from disk with the daemon's
//! memory flat, a few downloads at once. The figures each test prints are the ones
//! `docs/reliability.md` quotes.

pub mod common;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use annabella::control::web::{
    HEADER_TIMEOUT, MAX_CONNECTIONS_PER_ADDRESS, MAX_DOWNLOADS, MAX_HTTP_CONNECTIONS,
    MAX_PAGES_PER_ADDRESS, STALL_TIMEOUT,
};
use common::WAIT;
use common::control::ControlClient;
use common::daemon::{Daemon, Serve};
use common::fs::scratch_dir;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// The flood: idle connections, from this many loopback addresses (each under its own cap).
const FLOOD: usize = 300;
const FLOOD_ADDRESSES: u8 = 10;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn start(name: &str, args: &[&str]) -> (Daemon, SocketAddr) {
    let dir = scratch_dir(name);
    let daemon = Serve::new(&dir.join("state"))
        .web("127.0.0.1:0")
        .args(args.iter().copied())
        .start();
    let web = daemon.web.expect("the web page's address");
    (daemon, web)
}

/// A connection to `addr` from the loopback address `from` (127.0.0.0/8 is all local).
async fn connect_from(from: Ipv4Addr, addr: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(IpAddr::V4(from), 0)).unwrap();
    socket.connect(addr).await.unwrap()
}

/// Sends `request` and reads the response to its end (the request asks to close).
async fn exchange(stream: &mut TcpStream, request: &str) -> String {
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(WAIT, stream.read_to_end(&mut out))
        .await
        .expect("a whole response in time")
        .unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

async fn get(addr: SocketAddr, path: &str, host: &str, headers: &str) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    exchange(
        &mut stream,
        &format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n{headers}Connection: close\r\n\r\n"),
    )
    .await
}

/// A WebSocket handshake's status line.
async fn upgrade(addr: SocketAddr, host: &str, origin: &str) -> String {
    let stream = TcpStream::connect(addr).await.unwrap();
    handshake(stream, host, origin).await.0
}

/// A WebSocket handshake on `stream`: the response's head, and the stream (an open page when
/// the head says 101).
async fn handshake(mut stream: TcpStream, host: &str, origin: &str) -> (String, TcpStream) {
    stream
        .write_all(
            format!(
                "GET /ws HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\nConnection: Upgrade\r\n\
                 Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
                 Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    let mut head = vec![0u8; 512];
    let n = tokio::time::timeout(WAIT, stream.read(&mut head))
        .await
        .expect("a response in time")
        .unwrap();
    (String::from_utf8_lossy(&head[..n]).into_owned(), stream)
}

fn proc_status(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

fn open_files(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count()
}

/// What became of one connection of the flood.
struct Held {
    /// From connecting to the server's closing it.
    closed_after: Duration,
    /// What the server wrote before closing (a refusal, or nothing).
    said: String,
}

#[test]
fn idle_and_slow_connections_are_capped_and_closed() {
    let (daemon, web) = start("web-limits-flood", &[]);
    let pid = daemon.pid();
    let observer = daemon.token("observer");
    let files_before = open_files(pid);
    runtime().block_on(async {
        // A slowloris: the request's headers, one line every 400 ms, never finished.
        // It takes one of the connections, so the flood is held in the others.
        let started = Instant::now();
        let mut s = connect_from(Ipv4Addr::LOCALHOST, web).await;
        let slowloris = tokio::spawn(async move {
            s.write_all(format!("GET / HTTP/1.1\r\nHost: {web}\r\n").as_bytes())
                .await
                .unwrap();
            let mut byte = [0u8; 1];
            loop {
                tokio::select! {
                    read = s.read(&mut byte) => {
                        if !matches!(read, Ok(n) if n > 0) { break; }
                    }
                    () = tokio::time::sleep(Duration::from_millis(400)) => {
                        if s.write_all(b"X-Slow: a\r\n").await.is_err() { break; }
                    }
                }
                assert!(
                    started.elapsed() < WAIT,
                    "the slow header trickle was never closed"
                );
            }
            started.elapsed()
        });

        let closed = Arc::new(AtomicUsize::new(0));
        let flood_started = Instant::now();
        let mut flood = Vec::new();
        for i in 0..FLOOD {
            let from = Ipv4Addr::new(127, 0, 0, 2 + (i % usize::from(FLOOD_ADDRESSES)) as u8);
            let mut stream = connect_from(from, web).await;
            let closed = Arc::clone(&closed);
            let connected = Instant::now();
            flood.push(tokio::spawn(async move {
                let mut said = Vec::new();
                let _ = tokio::time::timeout(WAIT, stream.read_to_end(&mut said)).await;
                closed.fetch_add(1, Ordering::SeqCst);
                Held {
                    closed_after: connected.elapsed(),
                    said: String::from_utf8_lossy(&said).into_owned(),
                }
            }));
        }
        let flood_took = flood_started.elapsed();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let held = FLOOD - closed.load(Ordering::SeqCst);
        let files_during = open_files(pid);
        println!(
            "flood: {FLOOD} idle connections in {flood_took:?}; the daemon held {held} of them \
             and the slowloris, open files {files_before} before, {files_during} during"
        );
        assert_eq!(held, MAX_HTTP_CONNECTIONS - 1, "the connection cap");
        assert!(
            files_during <= files_before + MAX_HTTP_CONNECTIONS + 2,
            "open files {files_before} -> {files_during}"
        );

        // A person's page loads (the longest-silent idle connection makes room) and the
        // control port answers, while the flood is held.
        tokio::time::sleep(Duration::from_millis(1_200)).await;
        let asked = Instant::now();
        let page = get(web, "/", &web.to_string(), "").await;
        let page_took = asked.elapsed();
        assert!(page.starts_with("HTTP/1.1 200"), "{page}");
        let asked = Instant::now();
        let status = tokio::task::block_in_place(|| {
            ControlClient::authenticated(daemon.control, &observer).ask("status")
        });
        let control_took = asked.elapsed();
        assert!(status.starts_with("ok"), "{status}");
        println!("during the flood: GET / in {page_took:?}, a control request in {control_took:?}");

        // Each connection of the flood was refused at once, closed later to make room for a
        // newer one (only the page's, unless the flood itself took over a second), or held
        // until the header timeout closed it.
        let (mut refused, mut made_room, mut timed_out) = (0, 0, 0);
        let mut latest = Duration::ZERO;
        for held in flood {
            let held = held.await.unwrap();
            latest = latest.max(held.closed_after);
            if held.said.starts_with("HTTP/1.1 503") {
                assert!(held.said.contains("too many connections"), "{}", held.said);
                assert!(
                    held.closed_after < HEADER_TIMEOUT / 2,
                    "{:?}",
                    held.closed_after
                );
                refused += 1;
            } else if held.closed_after >= HEADER_TIMEOUT - Duration::from_millis(500) {
                timed_out += 1;
            } else {
                assert!(held.said.is_empty(), "{}", held.said);
                made_room += 1;
            }
        }
        println!(
            "flood: {refused} refused at once, {made_room} closed to make room, {timed_out} \
             closed by the header timeout, the last after {latest:?}"
        );
        assert!(refused > 0 && made_room > 0);
        // The ones held when the page came, but the one that made room for it.
        assert_eq!(timed_out, MAX_HTTP_CONNECTIONS - 2);
        assert_eq!(refused + made_room + timed_out, FLOOD);
        assert!(
            latest < HEADER_TIMEOUT + Duration::from_secs(3),
            "{latest:?}"
        );

        let trickled = slowloris.await.unwrap();
        println!("slowloris closed after {trickled:?}");
        assert!(
            trickled >= HEADER_TIMEOUT - Duration::from_millis(500)
                && trickled < HEADER_TIMEOUT + Duration::from_secs(2),
            "{trickled:?}"
        );
        // Every connection of the flood is gone from the daemon.
        let files_after = open_files(pid);
        assert!(
            files_after <= files_before + 2,
            "{files_before} -> {files_after}"
        );
    });
}

#[test]
fn one_address_cannot_take_the_port_and_other_hosts_are_refused() {
    let (_daemon, web) = start("web-limits-hosts", &[]);
    runtime().block_on(async {
        let greedy = Ipv4Addr::new(127, 0, 0, 77);
        let mut streams = Vec::new();
        for _ in 0..MAX_CONNECTIONS_PER_ADDRESS + 8 {
            streams.push(connect_from(greedy, web).await);
        }
        // The ones over the address's share are told so and closed at once.
        let mut refused = 0;
        for stream in &mut streams {
            let mut said = vec![0u8; 512];
            if let Ok(Ok(n)) =
                tokio::time::timeout(Duration::from_millis(100), stream.read(&mut said)).await
            {
                let said = String::from_utf8_lossy(&said[..n]);
                assert!(said.starts_with("HTTP/1.1 503"), "{said}");
                assert!(said.contains("from your address"), "{said}");
                refused += 1;
            }
        }
        assert_eq!(refused, 8);
        // Another address is served at once.
        let page = get(web, "/", &web.to_string(), "").await;
        assert!(page.starts_with("HTTP/1.1 200"), "{page}");
        drop(streams);

        // A kept-alive connection that asks nothing more is closed by the header timeout.
        let mut kept = TcpStream::connect(web).await.unwrap();
        kept.write_all(format!("GET /style.css HTTP/1.1\r\nHost: {web}\r\n\r\n").as_bytes())
            .await
            .unwrap();
        let answered = Instant::now();
        let mut rest = Vec::new();
        tokio::time::timeout(WAIT, kept.read_to_end(&mut rest))
            .await
            .expect("the idle kept-alive connection is closed")
            .unwrap();
        let idle = answered.elapsed();
        assert!(rest.starts_with(b"HTTP/1.1 200"));
        assert!(
            idle >= HEADER_TIMEOUT - Duration::from_millis(500)
                && idle < HEADER_TIMEOUT + Duration::from_secs(2),
            "{idle:?}"
        );
        println!("an idle kept-alive connection was closed after {idle:?}");

        let local = format!("localhost:{}", web.port());
        assert!(get(web, "/", &local, "").await.starts_with("HTTP/1.1 200"));
        let evil = get(web, "/", "evil.example", "").await;
        assert!(evil.starts_with("HTTP/1.1 421"), "{evil}");
        assert!(
            evil.contains(&format!("this server answers to {web}")),
            "{evil}"
        );
        let evil_port = get(
            web,
            "/words.json",
            &format!("evil.example:{}", web.port()),
            "",
        )
        .await;
        assert!(evil_port.starts_with("HTTP/1.1 421"), "{evil_port}");
        let no_host = {
            let mut s = TcpStream::connect(web).await.unwrap();
            exchange(&mut s, "GET / HTTP/1.0\r\n\r\n").await
        };
        assert!(no_host.starts_with("HTTP/1.0 400"), "{no_host}");

        // DNS rebinding: another name for this address, in Host and Origin alike.
        let rebound = upgrade(web, "evil.example", "http://evil.example").await;
        assert!(rebound.starts_with("HTTP/1.1 421"), "{rebound}");
        let foreign = upgrade(web, &web.to_string(), "http://evil.example").await;
        assert!(foreign.starts_with("HTTP/1.1 403"), "{foreign}");
        let own = upgrade(web, &web.to_string(), &format!("http://{web}")).await;
        assert!(own.starts_with("HTTP/1.1 101"), "{own}");
        let own_name = upgrade(web, &local, &format!("http://{local}")).await;
        assert!(own_name.starts_with("HTTP/1.1 101"), "{own_name}");

        // Pages: one address gets its share of them, another address still gets one.
        let origin = format!("http://{web}");
        let mut pages = Vec::new();
        for _ in 0..MAX_PAGES_PER_ADDRESS {
            let stream = connect_from(greedy, web).await;
            let (head, page) = handshake(stream, &web.to_string(), &origin).await;
            assert!(head.starts_with("HTTP/1.1 101"), "{head}");
            pages.push(page);
        }
        let stream = connect_from(greedy, web).await;
        let (over, _) = handshake(stream, &web.to_string(), &origin).await;
        assert!(over.starts_with("HTTP/1.1 503"), "{over}");
        assert!(
            over.contains(&format!(
                "too many open pages from your address (at most {MAX_PAGES_PER_ADDRESS})"
            )),
            "{over}"
        );
        let other = upgrade(web, &web.to_string(), &origin).await;
        assert!(other.starts_with("HTTP/1.1 101"), "{other}");
        // A closed page gives its address's place back.
        drop(pages.pop());
        let closed = Instant::now();
        loop {
            let stream = connect_from(greedy, web).await;
            let (again, _) = handshake(stream, &web.to_string(), &origin).await;
            if again.starts_with("HTTP/1.1 101") {
                break;
            }
            assert!(closed.elapsed() < WAIT, "the closed page's place: {again}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
}

/// Resident memory of `pid`, in KiB.
fn rss_kib(pid: u32) -> u64 {
    proc_status(pid, "VmRSS:")
}

#[test]
fn audio_records_stream_from_disk_a_few_at_once() {
    const RECORD: u64 = 50 * 1024 * 1024;
    let dir = scratch_dir("web-limits-audio");
    let wav = dir.join("wav");
    std::fs::create_dir_all(&wav).unwrap();
    // Sparse: 50 MiB to send, nothing to write.
    let file = std::fs::File::create(wav.join("table-1-999999.wav")).unwrap();
    file.set_len(RECORD).unwrap();
    drop(file);
    let speech = format!("wav:{}", wav.display());
    let (daemon, web) = start("web-limits-audio-daemon", &["--speech", &speech]);
    let pid = daemon.pid();
    let bearer = format!("Authorization: Bearer {}\r\n", daemon.token("arbiter"));
    runtime().block_on(async {
        let host = web.to_string();
        // The baseline: the daemon after serving the page once.
        assert!(get(web, "/", &host, "").await.starts_with("HTTP/1.1 200"));
        let before = rss_kib(pid);

        let request = format!(
            "GET /audio/table-1 HTTP/1.1\r\nHost: {host}\r\n{bearer}Connection: close\r\n\r\n"
        );
        let peak = Arc::new(std::sync::atomic::AtomicU64::new(before));
        let sampling = {
            let peak = Arc::clone(&peak);
            tokio::spawn(async move {
                loop {
                    peak.fetch_max(rss_kib(pid), Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            })
        };
        // MAX_DOWNLOADS slow readers: 64 KiB every 20 ms for two seconds, then the rest.
        let started = Instant::now();
        let mut downloads = Vec::new();
        for _ in 0..MAX_DOWNLOADS {
            let mut s = TcpStream::connect(web).await.unwrap();
            s.write_all(request.as_bytes()).await.unwrap();
            downloads.push(tokio::spawn(async move {
                let mut total = 0u64;
                let mut buf = vec![0u8; 64 * 1024];
                let slow_until = Instant::now() + Duration::from_secs(2);
                loop {
                    let n = s.read(&mut buf).await.unwrap();
                    if n == 0 {
                        return total;
                    }
                    total += n as u64;
                    if Instant::now() < slow_until {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                }
            }));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let fifth = get(web, "/audio/table-1", &host, &bearer).await;
        assert!(fifth.starts_with("HTTP/1.1 503"), "{fifth}");
        assert!(
            fifth.contains(&format!(
                "too many audio downloads at once (at most {MAX_DOWNLOADS})"
            )),
            "{fifth}"
        );
        for download in downloads {
            let total = tokio::time::timeout(WAIT * 2, download)
                .await
                .expect("the download ends")
                .unwrap();
            // The status line and headers, then every byte of the record.
            assert!(total > RECORD && total < RECORD + 1024, "{total}");
        }
        let took = started.elapsed();
        sampling.abort();
        let peak = peak.load(Ordering::SeqCst);
        println!(
            "audio: {MAX_DOWNLOADS} downloads of {} MiB in {took:?}; daemon RSS {} KiB before, \
             {} KiB at most during (+{} KiB)",
            RECORD >> 20,
            before,
            peak,
            peak.saturating_sub(before)
        );
        assert!(
            peak.saturating_sub(before) < 32 * 1024,
            "RSS {before} KiB -> {peak} KiB"
        );

        // The slots came back: one more download starts.
        let mut again = TcpStream::connect(web).await.unwrap();
        again.write_all(request.as_bytes()).await.unwrap();
        let mut head = vec![0u8; 256];
        let n = again.read(&mut head).await.unwrap();
        assert!(head[..n].starts_with(b"HTTP/1.1 200"));
        // A client that stops reading is cut off after the stall timeout, and its slot freed.
        let stalled = Instant::now();
        tokio::time::sleep(STALL_TIMEOUT + Duration::from_secs(2)).await;
        let mut drained = 0u64;
        loop {
            match tokio::time::timeout(WAIT, again.read(&mut head)).await {
                Ok(Ok(0)) | Ok(Err(_)) => break,
                Ok(Ok(n)) => drained += n as u64,
                Err(_) => panic!("the stalled download was not closed"),
            }
        }
        assert!(drained < RECORD, "{drained}");
        println!(
            "a stalled download was closed after at most {:?} ({} KiB had been sent)",
            stalled.elapsed(),
            drained >> 10
        );
        let after = get(web, "/audio/table-1", &host, &bearer).await;
        assert!(after.starts_with("HTTP/1.1 200"));
    });
}
