//! The table's web page end to end in a real headless Chromium: `annabella serve` on a simulated
//! peg board with the page on, and `tests/web/e2e.mjs` (playwright-core driving the system's
//! Chromium) checking what a person at the table would: peg moves on the page within 500 ms,
//! typed moves announced, refusals in words, the mismatch procedure, the live region, the
//! keyboard alone, 200 % zoom. Needs `chromium` and `node` (scripts/ensure-deps.sh installs
//! them); without them the test fails and says so.

pub mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::fs::scratch_dir;
use common::net::{free_port, wait_for_port};
use common::process::{BIN, Running};

/// The whole browser run; it takes a few seconds.
const BROWSER_BUDGET: Duration = Duration::from_secs(180);

const ASSISTANT: &str = "web-test-assistant-0123456789";
const ARBITER: &str = "web-test-arbiter-0123456789";
const OBSERVER: &str = "web-test-observer-0123456789";

fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// `npm ci` in tests/web when playwright-core is not installed there yet.
fn install_playwright(dir: &Path) {
    if dir
        .join("node_modules/playwright-core/package.json")
        .is_file()
    {
        return;
    }
    let npm = find_program(&["npm"])
        .expect("npm is missing: run `bash scripts/ensure-deps.sh` (installs nodejs and npm)");
    let status = Command::new(npm)
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(dir)
        .status()
        .expect("npm ci runs");
    assert!(status.success(), "npm ci in {} failed", dir.display());
}

#[test]
fn the_table_page_in_a_real_browser() {
    let chromium = find_program(&["chromium", "chromium-browser"]).expect(
        "chromium is missing: run `bash scripts/ensure-deps.sh` (installs chromium and \
         chromium-driver); the web page is tested in a real browser",
    );
    let node = find_program(&["node", "nodejs"])
        .expect("node is missing: run `bash scripts/ensure-deps.sh` (installs nodejs and npm)");
    let e2e_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/web");
    install_playwright(&e2e_dir);

    let dir = scratch_dir("web");
    let link = dir.join("pegboard");
    let transcript = dir.join("transcript.txt");
    let shots = dir.join("screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let config = dir.join("annabella.toml");
    std::fs::write(
        &config,
        format!(
            "[[token]]\ntoken = \"{ASSISTANT}\"\nrole = \"assistant\"\n\n\
             [[token]]\ntoken = \"{ARBITER}\"\nrole = \"arbiter\"\n\n\
             [[token]]\ntoken = \"{OBSERVER}\"\nrole = \"observer\"\n"
        ),
    )
    .unwrap();

    let mut sim = Running::start(Command::new(BIN).args([
        "simulate-board",
        "--protocol",
        "peg",
        "--pty",
        "--link",
        link.to_str().unwrap(),
    ]));
    sim.expect("the pseudo-terminal's path", |l| l.starts_with("/dev/"));

    let web_port = free_port();
    let control_port = free_port();
    let _daemon = Running::start(Command::new(BIN).args([
        "serve",
        "--config",
        config.to_str().unwrap(),
        "--peg",
        link.to_str().unwrap(),
        "--listen",
        &format!("127.0.0.1:{control_port}"),
        "--web",
        &format!("127.0.0.1:{web_port}"),
        "--speech",
        &format!("transcript:{}", transcript.display()),
        "--lang",
        "de",
        "--state-dir",
        dir.join("state").to_str().unwrap(),
    ]));
    let url = format!("http://127.0.0.1:{web_port}/");
    wait_for_port(web_port);

    let started = Instant::now();
    let mut e2e = Running::start(
        Command::new(node)
            .arg(e2e_dir.join("e2e.mjs"))
            .current_dir(&e2e_dir)
            .env("WEB_URL", &url)
            .env("TOKEN_ASSISTANT", ASSISTANT)
            .env("TOKEN_ARBITER", ARBITER)
            .env("TOKEN_OBSERVER", OBSERVER)
            .env("TRANSCRIPT", &transcript)
            .env("OUT_DIR", &shots)
            .env("CHROMIUM", &chromium),
    );
    // The script asks for peg-board moves on its standard output; each is typed on the
    // simulated board and confirmed.
    let outcome = loop {
        let left = BROWSER_BUDGET.saturating_sub(started.elapsed());
        match e2e.next_line(left) {
            Some(line) => {
                if let Some(m) = line.strip_prefix("peg ") {
                    sim.type_line(m);
                    e2e.type_line("typed");
                } else if let Some(result) = line.strip_prefix("done ") {
                    break result.to_owned();
                }
            }
            None => break format!("no end within {BROWSER_BUDGET:?}"),
        }
    };
    let status = e2e.wait();
    eprintln!("screenshots in {}", shots.display());
    assert!(
        outcome == "passed" && status.success(),
        "the browser test failed ({outcome}); its lines above say where; screenshots in {}",
        shots.display()
    );
    let results = std::fs::read_to_string(shots.join("results.json")).unwrap_or_default();
    assert!(
        results.contains("peg_to_page_ms"),
        "no latency figures: {results}"
    );
    // The README's picture is refreshed on request, not by every run.
    if std::env::var_os("ANNABELLA_UPDATE_SCREENSHOT").is_some() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/web-page.png");
        std::fs::copy(shots.join("table.png"), docs).unwrap();
    }
}

/// The bridge alone, against a stand-in control interface that answers `ok <request>`: one
/// message is one request, binary and multi-line messages get error lines, and one page more
/// than allowed is refused with a reason.
#[test]
fn the_bridge_forwards_lines_and_bounds_the_pages() {
    use annabella::chess::language::Language;
    use annabella::io::web::{self, WebSettings};
    use futures_util::{SinkExt, StreamExt};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    use tokio_tungstenite::tungstenite::Message;

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let control = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let control_addr = control.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((stream, _)) = control.accept().await {
                tokio::spawn(async move {
                    let (read, mut write) = stream.into_split();
                    let mut lines = tokio::io::BufReader::new(read).lines();
                    write.write_all(b"event hello\n").await.ok();
                    while let Ok(Some(line)) = lines.next_line().await {
                        write
                            .write_all(format!("ok {line}\n").as_bytes())
                            .await
                            .ok();
                    }
                });
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, shutdown) = tokio::sync::watch::channel(false);
        let mut settings = WebSettings::new(Language::german(), &[]);
        settings.max_connections = 1;
        let server = tokio::spawn(web::run(listener, control_addr, settings, shutdown));

        let url = format!("ws://{addr}/ws");
        let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        let greeting = loop {
            match ws.next().await {
                Some(Ok(Message::Text(t))) => break t.to_string(),
                Some(Ok(_)) => continue,
                other => panic!("the bridge closed: {other:?}"),
            }
        };
        assert_eq!(greeting, "event hello");
        ws.send(Message::text("board")).await.unwrap();
        ws.send(Message::text("move e4\nresign")).await.unwrap();
        ws.send(Message::binary(vec![1, 2, 3])).await.unwrap();
        let mut replies = Vec::new();
        while replies.len() < 3 {
            if let Some(Ok(Message::Text(t))) = ws.next().await {
                replies.push(t.to_string());
            }
        }
        replies.sort();
        assert_eq!(replies[2], "ok board", "{replies:?}");
        assert!(replies[0].starts_with("error syntax binary"), "{replies:?}");
        assert!(
            replies[1].starts_with("error syntax one request"),
            "{replies:?}"
        );

        // A second page while the first is open: refused, with the reason.
        match tokio_tungstenite::connect_async(&url).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                assert_eq!(response.status(), 503);
            }
            other => panic!("a second page was not refused: {other:?}"),
        }
        let page = http_get(addr, "/").await;
        assert!(page.starts_with("HTTP/1.1 200"), "{page}");
        assert!(page.contains("Skip to move entry"));
        let words = http_get(addr, "/words.json").await;
        assert!(words.contains("\"Felix\""), "{words}");
        let audio = http_get(addr, "/audio/table-1").await;
        assert!(audio.starts_with("HTTP/1.1 401"), "{audio}");
        let traversal = http_get(addr, "/audio/..%2Fetc").await;
        assert!(!traversal.starts_with("HTTP/1.1 200"), "{traversal}");

        stop.send(true).unwrap();
        drop(ws);
        tokio::time::timeout(Duration::from_secs(10), server)
            .await
            .expect("the server stops on shutdown")
            .unwrap()
            .unwrap();
    });
}

/// A plain HTTP/1.1 GET, the whole response as text.
async fn http_get(addr: std::net::SocketAddr, path: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(
        format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .await
    .unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    String::from_utf8_lossy(&out).into_owned()
}
