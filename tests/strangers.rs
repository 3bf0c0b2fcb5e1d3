//! Safe among strangers on the ports (issue 23), against the real daemon over real sockets:
//! floods of observers, of idle connections and of wrong tokens, on the control port and on the
//! page, from several loopback addresses, while the players, the assistant and the arbiter log
//! in — each within a second. The figures each test prints are the ones `docs/reliability.md`
//! quotes ("Ports under floods").

pub mod common;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::WAIT;
use common::daemon::{Daemon, Serve};
use common::fs::scratch_dir;
use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::Message;

/// One test at a time: each measures times under a flood, which another test's flood on the
/// same two cores would distort.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// The roles that must always get in.
const ROLES: [&str; 4] = ["white", "black", "assistant", "arbiter"];
/// How long one of them may take to authenticate under any flood.
const WITHIN: Duration = Duration::from_secs(1);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn start(name: &str, args: &[&str]) -> Daemon {
    Serve::new(&scratch_dir(name).join("state"))
        .web("127.0.0.1:0")
        .args(["--peg", "sim"])
        .args(args.iter().copied())
        .start()
}

/// The `i`th attacking address: 127.0.0.2, 127.0.0.3 …
fn attacker(i: usize) -> Ipv4Addr {
    Ipv4Addr::new(127, 0, (2 + i / 250) as u8, (2 + i % 250) as u8)
}

/// A TCP connection to `to` from the loopback address `from`.
async fn connect_from(from: Ipv4Addr, to: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::new(IpAddr::V4(from), 0))?;
    tokio::time::timeout(WAIT, socket.connect(to))
        .await
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::TimedOut))?
}

/// A control connection's line reader.
type Control = BufReader<TcpStream>;

/// Sends `line` and reads the reply (`None`: closed).
async fn ask(control: &mut Control, line: &str) -> Option<String> {
    control
        .get_mut()
        .write_all(format!("{line}\n").as_bytes())
        .await
        .ok()?;
    let mut reply = String::new();
    match tokio::time::timeout(WAIT, control.read_line(&mut reply)).await {
        Ok(Ok(n)) if n > 0 => Some(reply.trim_end().to_owned()),
        _ => None,
    }
}

/// Connects from `from` and sends `auth TOKEN`: the reply, and the connection.
async fn tcp_login(from: Ipv4Addr, to: SocketAddr, token: &str) -> (Option<String>, Control) {
    let stream = connect_from(from, to).await.expect("a connection");
    let mut control = BufReader::new(stream);
    let reply = ask(&mut control, &format!("auth {token}")).await;
    (reply, control)
}

type Page = tokio_tungstenite::WebSocketStream<TcpStream>;

/// Opens a page's WebSocket from `from`: the socket, or the refusal (an HTTP status).
async fn open_page(
    from: Ipv4Addr,
    web: SocketAddr,
    forwarded: Option<&str>,
) -> Result<Page, String> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let stream = connect_from(from, web).await.map_err(|e| e.to_string())?;
    let mut request = format!("ws://{web}/ws").into_client_request().unwrap();
    if let Some(client) = forwarded {
        request
            .headers_mut()
            .insert("x-forwarded-for", client.parse().unwrap());
    }
    match tokio::time::timeout(WAIT, tokio_tungstenite::client_async(request, stream)).await {
        Ok(Ok((page, _))) => Ok(page),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("no handshake in time".to_owned()),
    }
}

/// The page's next text message (`None`: closed).
async fn page_line(page: &mut Page) -> Option<String> {
    loop {
        match tokio::time::timeout(WAIT, page.next()).await {
            Ok(Some(Ok(Message::Text(text)))) => return Some(text.to_string()),
            Ok(Some(Ok(Message::Close(_)))) | Ok(None) | Ok(Some(Err(_))) | Err(_) => return None,
            Ok(Some(Ok(_))) => {}
        }
    }
}

/// A page logs in from `from`: its first reply, and the page.
async fn page_login(
    from: Ipv4Addr,
    web: SocketAddr,
    token: &str,
) -> (Option<String>, Option<Page>) {
    let mut page = match open_page(from, web, None).await {
        Ok(page) => page,
        Err(e) => return (Some(format!("refused: {e}")), None),
    };
    if page
        .send(Message::text(format!("auth {token}")))
        .await
        .is_err()
    {
        return (None, None);
    }
    (page_line(&mut page).await, Some(page))
}

/// Each role logs in on TCP and on the page, one after the other, all held open at the end:
/// the slowest time, and a description of each.
async fn every_role_logs_in(daemon: &Daemon, tokens: &[(String, String)]) -> (Duration, String) {
    let web = daemon.web.expect("the page is on");
    let here = Ipv4Addr::LOCALHOST;
    let mut slowest = Duration::ZERO;
    let mut held_tcp = Vec::new();
    let mut held_pages = Vec::new();
    let mut report = Vec::new();
    for (role, token) in tokens {
        let asked = Instant::now();
        let (reply, control) = tcp_login(here, daemon.control, token).await;
        let took = asked.elapsed();
        assert!(
            reply
                .as_deref()
                .is_some_and(|r| r.starts_with(&format!("ok {role}"))),
            "{role} on TCP: {reply:?}"
        );
        held_tcp.push(control);
        slowest = slowest.max(took);
        let asked = Instant::now();
        let (reply, page) = page_login(here, web, token).await;
        let page_took = asked.elapsed();
        assert!(
            reply
                .as_deref()
                .is_some_and(|r| r.starts_with(&format!("ok {role}"))),
            "{role} on the page: {reply:?}"
        );
        held_pages.push(page);
        slowest = slowest.max(page_took);
        report.push(format!("{role} {took:.0?}/{page_took:.0?}"));
    }
    // Every one of them is still there.
    for control in &mut held_tcp {
        assert!(
            ask(control, "status")
                .await
                .is_some_and(|s| s.starts_with("ok table"))
        );
    }
    (slowest, report.join(", "))
}

fn role_tokens(daemon: &Daemon) -> Vec<(String, String)> {
    ROLES
        .iter()
        .map(|r| ((*r).to_owned(), daemon.token(r)))
        .collect()
}

#[test]
fn an_observer_flood_on_the_control_port_never_keeps_the_players_out() {
    let _serial = one_at_a_time();
    let daemon = start("strangers-observers-tcp", &["--speech", "none"]);
    let observer = daemon.token("observer");
    let tokens = role_tokens(&daemon);
    runtime().block_on(async {
        // Observers from two addresses take every place they may (and are refused beyond).
        let mut held = Vec::new();
        let mut refused = 0;
        for i in 0..40 {
            let (reply, control) = tcp_login(attacker(i % 2), daemon.control, &observer).await;
            match reply {
                Some(r) if r.starts_with("ok observer") => held.push(control),
                _ => refused += 1,
            }
        }
        let (slowest, report) = every_role_logs_in(&daemon, &tokens).await;
        eprintln!(
            "observer TCP flood ({} held, {refused} refused): {report}; slowest {slowest:?}",
            held.len()
        );
        assert!(slowest < WITHIN, "{slowest:?}");
        assert!(!held.is_empty() && refused > 0);
    });
}

#[test]
fn an_observer_flood_on_the_page_never_keeps_the_players_out() {
    let _serial = one_at_a_time();
    let daemon = start("strangers-observers-page", &["--speech", "none"]);
    let observer = daemon.token("observer");
    let tokens = role_tokens(&daemon);
    let web = daemon.web.unwrap();
    runtime().block_on(async {
        let mut held = Vec::new();
        let mut refused = 0;
        for i in 0..40 {
            let (reply, page) = page_login(attacker(i % 4), web, &observer).await;
            match (reply, page) {
                (Some(r), Some(page)) if r.starts_with("ok observer") => held.push(page),
                _ => refused += 1,
            }
        }
        // The page itself still loads.
        let mut index = TcpStream::connect(web).await.unwrap();
        index
            .write_all(
                format!("GET / HTTP/1.1\r\nHost: {web}\r\nConnection: close\r\n\r\n").as_bytes(),
            )
            .await
            .unwrap();
        let mut body = Vec::new();
        index.read_to_end(&mut body).await.unwrap();
        assert!(
            body.starts_with(b"HTTP/1.1 200"),
            "{}",
            String::from_utf8_lossy(&body)
        );
        let (slowest, report) = every_role_logs_in(&daemon, &tokens).await;
        eprintln!(
            "observer page flood ({} held, {refused} refused): {report}; slowest {slowest:?}",
            held.len()
        );
        assert!(slowest < WITHIN, "{slowest:?}");
        assert!(!held.is_empty() && refused > 0);
    });
}

/// Keeps `count` idle WebSockets (never authenticated) open from ten addresses, opening a new
/// one whenever one is closed, until `stop`; counts the pages opened.
async fn idle_pages(
    web: SocketAddr,
    count: usize,
    stop: Arc<AtomicBool>,
    opened: Arc<AtomicUsize>,
) {
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..count {
        let stop = Arc::clone(&stop);
        let opened = Arc::clone(&opened);
        tasks.spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                match open_page(attacker(i % 10), web, None).await {
                    Ok(mut page) => {
                        opened.fetch_add(1, Ordering::Relaxed);
                        // Idle until the daemon closes it (or the test ends).
                        loop {
                            if stop.load(Ordering::Relaxed) {
                                return;
                            }
                            match tokio::time::timeout(Duration::from_millis(100), page.next())
                                .await
                            {
                                Err(_) | Ok(Some(Ok(Message::Text(_) | Message::Ping(_)))) => {}
                                Ok(_) => break,
                            }
                        }
                    }
                    Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
                }
            }
        });
    }
    while tasks.join_next().await.is_some() {}
}

#[test]
fn an_idle_page_flood_from_ten_addresses_never_keeps_the_players_out() {
    let _serial = one_at_a_time();
    let daemon = start("strangers-idle-pages", &["--speech", "none"]);
    let tokens = role_tokens(&daemon);
    let web = daemon.web.unwrap();
    runtime().block_on(async {
        let stop = Arc::new(AtomicBool::new(false));
        let opened = Arc::new(AtomicUsize::new(0));
        let flood = tokio::spawn(idle_pages(web, 40, Arc::clone(&stop), Arc::clone(&opened)));
        // Wait until the flood holds the port.
        let deadline = Instant::now() + WAIT;
        while opened.load(Ordering::Relaxed) < 32 {
            assert!(Instant::now() < deadline, "the flood never filled the port");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let mut slowest = Duration::ZERO;
        let mut logins = 0;
        let rounds = 3;
        for _ in 0..rounds {
            for (role, token) in &tokens {
                let asked = Instant::now();
                let (reply, page) = page_login(Ipv4Addr::LOCALHOST, web, token).await;
                let took = asked.elapsed();
                assert!(
                    reply.as_deref().is_some_and(|r| r.starts_with(&format!("ok {role}"))),
                    "{role}: {reply:?} after {took:?}"
                );
                logins += 1;
                slowest = slowest.max(took);
                drop(page);
            }
        }
        stop.store(true, Ordering::Relaxed);
        let _ = flood.await;
        eprintln!(
            "idle page flood from 10 addresses ({} pages opened): {logins} of {} logins, slowest {slowest:?}",
            opened.load(Ordering::Relaxed),
            rounds * tokens.len()
        );
        assert!(slowest < WITHIN, "{slowest:?}");
    });
}

/// Sends wrong tokens from many addresses, a fresh connection whenever one is closed, until
/// `stop`; counts the wrong tokens answered.
async fn guess_on_tcp(
    control: SocketAddr,
    workers: usize,
    stop: Arc<AtomicBool>,
    answered: Arc<AtomicUsize>,
) {
    let mut tasks = tokio::task::JoinSet::new();
    for w in 0..workers {
        let stop = Arc::clone(&stop);
        let answered = Arc::clone(&answered);
        tasks.spawn(async move {
            let mut n = 0usize;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let from = attacker((w * 7919 + n) % 500);
                let Ok(stream) = connect_from(from, control).await else {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                };
                let mut c = BufReader::new(stream);
                for guess in 0..3 {
                    match ask(&mut c, &format!("auth wrong-{w}-{n}-{guess}")).await {
                        Some(r) if r.starts_with("error") => {
                            answered.fetch_add(1, Ordering::Relaxed);
                        }
                        _ => break,
                    }
                }
            }
        });
    }
    while tasks.join_next().await.is_some() {}
}

#[test]
fn a_wrong_token_flood_never_keeps_the_right_token_out() {
    let _serial = one_at_a_time();
    let daemon = start("strangers-guessing", &["--speech", "none"]);
    let tokens = role_tokens(&daemon);
    runtime().block_on(async {
        let stop = Arc::new(AtomicBool::new(false));
        let answered = Arc::new(AtomicUsize::new(0));
        let flood = tokio::spawn(guess_on_tcp(
            daemon.control,
            16,
            Arc::clone(&stop),
            Arc::clone(&answered),
        ));
        let deadline = Instant::now() + WAIT;
        while answered.load(Ordering::Relaxed) < 500 {
            assert!(Instant::now() < deadline, "the guessing never got going");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let started = Instant::now();
        // Each role from a fresh address, and from an address that has guessed.
        let mut slowest = Duration::ZERO;
        let mut report = Vec::new();
        for (i, (role, token)) in tokens.iter().enumerate() {
            for from in [attacker(600 + i), attacker(i)] {
                let asked = Instant::now();
                let (reply, _control) = tcp_login(from, daemon.control, token).await;
                let took = asked.elapsed();
                assert!(
                    reply.as_deref().is_some_and(|r| r.starts_with(&format!("ok {role}"))),
                    "{role} from {from}: {reply:?}"
                );
                slowest = slowest.max(took);
                report.push(format!("{role}@{from} {took:.0?}"));
            }
        }
        let guessed = answered.load(Ordering::Relaxed);
        let during = started.elapsed();
        stop.store(true, Ordering::Relaxed);
        let _ = flood.await;
        eprintln!(
            "wrong-token flood on TCP ({} wrong tokens answered in all, {guessed} by the logins' end after {during:.0?}): {}; slowest {slowest:?}",
            answered.load(Ordering::Relaxed),
            report.join(", ")
        );
        assert!(slowest < WITHIN, "{slowest:?}");
    });
    let log = daemon.stop_and_read_log();
    let wrong = log.iter().filter(|l| l.contains("wrong token")).count();
    eprintln!("log: {wrong} lines about wrong tokens");
    assert!(wrong > 0 && wrong < 200, "{wrong} log lines");
}

/// `GET /audio/table-1` with `token` from `from`: the status line.
async fn audio(from: Ipv4Addr, web: SocketAddr, token: &str) -> Option<String> {
    let mut stream = connect_from(from, web).await.ok()?;
    stream
        .write_all(
            format!(
                "GET /audio/table-1 HTTP/1.1\r\nHost: {web}\r\nAuthorization: Bearer {token}\r\n\
                 Connection: close\r\n\r\n"
            )
            .as_bytes(),
        )
        .await
        .ok()?;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n") && head.len() < 200 {
        match tokio::time::timeout(WAIT, stream.read(&mut byte)).await {
            Ok(Ok(1)) => head.push(byte[0]),
            _ => return None,
        }
    }
    Some(String::from_utf8_lossy(&head).trim_end().to_owned())
}

#[test]
fn a_wrong_token_flood_on_the_audio_record_is_budgeted_logged_and_never_keeps_the_right_token_out()
{
    let _serial = one_at_a_time();
    let dir = scratch_dir("strangers-audio");
    let wav = dir.join("wav");
    std::fs::create_dir_all(&wav).unwrap();
    std::fs::write(wav.join("table-1-999999.wav"), b"RIFF").unwrap();
    let speech = format!("wav:{}", wav.display());
    let mut daemon = start("strangers-audio-daemon", &["--speech", &speech]);
    let web = daemon.web.unwrap();
    let arbiter = daemon.token("arbiter");
    let wrongs = runtime().block_on(async {
        let stop = Arc::new(AtomicBool::new(false));
        let sent = Arc::new(AtomicUsize::new(0));
        let mut flood = tokio::task::JoinSet::new();
        for w in 0..8 {
            let stop = Arc::clone(&stop);
            let sent = Arc::clone(&sent);
            flood.spawn(async move {
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    if audio(attacker(w * 37 + n % 37), web, &format!("wrong-{w}-{n}"))
                        .await
                        .is_some()
                    {
                        sent.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
        let deadline = Instant::now() + WAIT;
        while sent.load(Ordering::Relaxed) < 300 {
            assert!(Instant::now() < deadline, "the guessing never got going");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let mut slowest = Duration::ZERO;
        for i in 0..5 {
            let asked = Instant::now();
            let status = audio(attacker(900 + i), web, &arbiter).await;
            slowest = slowest.max(asked.elapsed());
            assert!(
                status.as_deref().is_some_and(|s| s.starts_with("HTTP/1.1 200")),
                "{status:?}"
            );
        }
        stop.store(true, Ordering::Relaxed);
        while flood.join_next().await.is_some() {}
        let wrongs = sent.load(Ordering::Relaxed);
        eprintln!("wrong-token flood on /audio ({wrongs} requests): the right token in {slowest:?} at worst");
        assert!(slowest < WITHIN, "{slowest:?}");
        wrongs
    });
    // Within a log window of one second or two, the wrong tokens are logged (throttled).
    let _ = daemon.expect_log("a wrong token on /audio logged", |l| {
        l.contains("wrong token") && l.contains("audio record")
    });
    let log = daemon.stop_and_read_log();
    let lines = log.iter().filter(|l| l.contains("wrong token")).count();
    eprintln!("{wrongs} wrong tokens on /audio: {lines} log lines");
    assert!(lines < 200, "{lines}");
}

#[test]
fn behind_a_trusted_proxy_the_pages_limits_count_the_forwarded_client() {
    let _serial = one_at_a_time();
    let dir = scratch_dir("strangers-proxy");
    let config = dir.join("annabella.toml");
    std::fs::write(&config, "web_trusted_proxies = [\"127.0.0.1\"]\n").unwrap();
    let daemon = Serve::new(&dir.join("state"))
        .config(&config)
        .web("127.0.0.1:0")
        .args(["--peg", "sim", "--speech", "none"])
        .start();
    let web = daemon.web.unwrap();
    let observer = daemon.token("observer");
    runtime().block_on(async {
        // Through the proxy (127.0.0.1), twenty clients each open a page: each its own share.
        let mut held = Vec::new();
        for i in 0..20 {
            let client = format!("192.0.2.{}", i + 1);
            let mut page = open_page(Ipv4Addr::LOCALHOST, web, Some(&client))
                .await
                .expect("a page through the proxy");
            page.send(Message::text(format!("auth {observer}"))).await.unwrap();
            let reply = page_line(&mut page).await;
            assert!(reply.as_deref().is_some_and(|r| r.starts_with("ok observer")), "{i}: {reply:?}");
            held.push(page);
        }
        drop(held);
        // An address that is no proxy is its own client, whatever it forwards: its share
        // of the slots (12 of the 24 anyone may take) ends there.
        let mut held = Vec::new();
        let mut refused = 0;
        for i in 0..20 {
            let Ok(mut page) = open_page(attacker(0), web, Some(&format!("198.51.100.{i}"))).await
            else {
                refused += 1;
                continue;
            };
            page.send(Message::text(format!("auth {observer}"))).await.unwrap();
            match page_line(&mut page).await {
                Some(r) if r.starts_with("ok observer") => held.push(page),
                _ => refused += 1,
            }
        }
        eprintln!(
            "through a trusted proxy: 20 clients, 20 pages; from an untrusted address forwarding 20 names: {} pages, {refused} refused",
            held.len()
        );
        assert_eq!(held.len(), 12);
    });
}

fn find_program(names: &[&str]) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// The page in a real browser, every control slot held: it says in words that there is no
/// room and logs in by itself once a place is free.
#[test]
fn a_page_without_room_says_so_and_logs_in_by_itself_once_there_is_room() {
    let _serial = one_at_a_time();
    use common::process::Running;
    use std::process::Command;
    let chromium = find_program(&["chromium", "chromium-browser"])
        .expect("chromium is missing: run `bash scripts/ensure-deps.sh`");
    let node = find_program(&["node", "nodejs"])
        .expect("node is missing: run `bash scripts/ensure-deps.sh`");
    let e2e_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/web");
    if !e2e_dir
        .join("node_modules/playwright-core/package.json")
        .is_file()
    {
        let npm =
            find_program(&["npm"]).expect("npm is missing: run `bash scripts/ensure-deps.sh`");
        let status = Command::new(npm)
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&e2e_dir)
            .status()
            .expect("npm ci runs");
        assert!(status.success(), "npm ci in {} failed", e2e_dir.display());
    }
    let dir = scratch_dir("strangers-no-room");
    let config = dir.join("annabella.toml");
    std::fs::write(&config, "[control]\nmax_connections = 2\n").unwrap();
    let daemon = Serve::new(&dir.join("state"))
        .config(&config)
        .web("127.0.0.1:0")
        .args(["--peg", "sim", "--speech", "none"])
        .start();
    let web = daemon.web.unwrap();
    // Both places are held by authenticated connections, which are never displaced.
    let mut held = vec![daemon.connect("observer"), daemon.connect("arbiter")];
    let mut page = Running::start(
        Command::new(node)
            .arg(e2e_dir.join("no_room.mjs"))
            .current_dir(&e2e_dir)
            .env("WEB_URL", format!("http://{web}/"))
            .env("TOKEN", daemon.token("white"))
            .env("CHROMIUM", &chromium),
    );
    let full = page.next_line(Duration::from_secs(60));
    assert_eq!(
        full.as_deref(),
        Some("full"),
        "the page never said there was no room"
    );
    drop(held.remove(0));
    page.type_line("freed");
    let done = page.next_line(Duration::from_secs(60)).unwrap_or_default();
    let status = page.wait();
    let ms = done.strip_prefix("done passed ").unwrap_or("?");
    eprintln!(
        "a page refused for want of room: said so, then logged in {ms} ms after a place was freed"
    );
    assert!(
        done.starts_with("done passed") && status.success(),
        "{done}"
    );
    drop(held);
}
