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

use common::WAIT;
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

/// `npm ci` in tests/web when playwright-core or axe-core is not installed there yet.
fn install_playwright(dir: &Path) {
    let installed = |package: &str| {
        dir.join("node_modules")
            .join(package)
            .join("package.json")
            .is_file()
    };
    if installed("playwright-core") && installed("axe-core") {
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
    // A configuration that holds tokens must be its owner's alone (on Unix, by its mode).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
    }

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
    let serve_args = [
        "serve".to_owned(),
        "--config".to_owned(),
        config.display().to_string(),
        "--peg".to_owned(),
        link.display().to_string(),
        "--listen".to_owned(),
        format!("127.0.0.1:{control_port}"),
        "--web".to_owned(),
        format!("127.0.0.1:{web_port}"),
        "--speech".to_owned(),
        format!("transcript:{}", transcript.display()),
        "--lang".to_owned(),
        "de".to_owned(),
        "--state-dir".to_owned(),
        dir.join("state").display().to_string(),
    ];
    let mut daemon = Running::start(Command::new(BIN).args(&serve_args));
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
    // simulated board and confirmed. `restart` stops the daemon (SIGTERM, as a service
    // manager would) and starts it again on the same state directory and ports, with the
    // pages left open: they must reconnect by themselves.
    let outcome = loop {
        let left = BROWSER_BUDGET.saturating_sub(started.elapsed());
        match e2e.next_line(left) {
            Some(line) => {
                if let Some(m) = line.strip_prefix("peg ") {
                    sim.type_line(m);
                    e2e.type_line("typed");
                } else if line == "restart" {
                    daemon.terminate();
                    daemon = Running::start(Command::new(BIN).args(&serve_args));
                    wait_for_port(web_port);
                    e2e.type_line("restarted");
                } else if line == "stop" {
                    // An outage as long as the script wants: it says `start` when the pages
                    // have tried to reconnect often enough.
                    daemon.terminate();
                    e2e.type_line("stopped");
                } else if line == "start" {
                    daemon = Running::start(Command::new(BIN).args(&serve_args));
                    wait_for_port(web_port);
                    e2e.type_line("started");
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

/// The page's WebSocket is a control session of its own: the web server runs on a control
/// service built from stand-in tables and tokens, and no control interface listens anywhere —
/// there is no TCP port the page could reach. One message is one request; binary, multi-line
/// and overlong messages get error lines; the pages are bounded by their own cap and by the
/// control connections' cap they share; the audio route checks tokens as a session does.
#[test]
fn the_page_is_a_control_session_without_the_control_port() {
    use std::sync::Arc;

    use annabella::chess::language::Language;
    use annabella::control::hub::{Hub, Request, TableHandle};
    use annabella::control::session_driver::ControlService;
    use annabella::control::tcp::ControlSettings;
    use annabella::control::web::{self, WebSettings};
    use annabella::io::tokens::{Grant, Origin, Tokens};
    use annabella::table::control::Role;
    use annabella::table::event::{About, Listener, Say, TableEvent, Urgency};
    use futures_util::{SinkExt, StreamExt};
    use tokio::sync::{broadcast, mpsc};
    use tokio_tungstenite::tungstenite::Message;

    const TABLE_2_ONLY: &str = "web-test-table-2-0123456789";

    /// A table that answers `ok <keyword>` (the board with a position), as the real one would
    /// answer through the hub.
    fn stand_in(name: &str) -> TableHandle {
        let (requests, mut inbox) = mpsc::channel::<Request>(8);
        let (events, _) = broadcast::channel(16);
        tokio::spawn(async move {
            while let Some(request) = inbox.recv().await {
                use annabella::table::reply::Answer;
                let reply = match request.command.keyword() {
                    "board" => Answer::Position {
                        fen: "8/8/8/8/8/8/8/8 w - - 0 1".to_owned(),
                    },
                    keyword => Answer::Moves(format!(
                        "{keyword} {} {}",
                        request.role,
                        request.lang.code()
                    )),
                };
                let _ = request.reply.send(Ok(reply));
            }
        });
        TableHandle {
            name: Arc::from(name),
            requests,
            events,
        }
    }

    async fn next_text(
        ws: &mut tokio_tungstenite::WebSocketStream<
            tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
        >,
    ) -> Option<String> {
        loop {
            match tokio::time::timeout(WAIT, ws.next())
                .await
                .expect("a message in time")
            {
                Some(Ok(Message::Text(t))) => return Some(t.to_string()),
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return None,
                Some(Ok(_)) => continue,
            }
        }
    }

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let tables = vec![stand_in("table-1"), stand_in("table-2")];
        let feed = tables[0].events.clone();
        let tokens = Tokens::new([
            (
                ASSISTANT.to_owned(),
                Grant {
                    role: Role::Assistant,
                    tables: None,
                },
                Origin::Config,
            ),
            (
                TABLE_2_ONLY.to_owned(),
                Grant {
                    role: Role::Observer,
                    tables: Some(Arc::from(vec![Arc::<str>::from("table-2")])),
                },
                Origin::Config,
            ),
        ]);
        let control = ControlService::new(
            Hub::new(tables),
            tokens,
            ControlSettings {
                max_connections: 2,
                ..ControlSettings::default()
            },
        );
        let wav = tempfile::tempdir().unwrap();
        std::fs::write(wav.path().join("table-1-3.wav"), b"RIFF-record").unwrap();
        let (stop, shutdown) = tokio::sync::watch::channel(false);
        // Two web servers on one control service: one allowing a single page, one allowing
        // more pages than there are control connection slots.
        let mut servers = Vec::new();
        let mut addrs = Vec::new();
        for pages in [1, 5] {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            addrs.push(listener.local_addr().unwrap());
            let mut settings = WebSettings::new(Language::german(), &[]);
            settings.max_connections = pages;
            settings.wav_dirs = vec![wav.path().to_path_buf()];
            servers.push(tokio::spawn(web::run(
                listener,
                control.clone(),
                settings,
                shutdown.clone(),
            )));
        }
        let (addr, roomy) = (addrs[0], addrs[1]);

        let url = format!("ws://{addr}/ws");
        let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        ws.send(Message::text("board")).await.unwrap();
        assert_eq!(
            next_text(&mut ws).await.unwrap(),
            "error auth board before auth; send auth TOKEN first"
        );
        ws.send(Message::text(format!("auth {ASSISTANT}\r\n")))
            .await
            .unwrap();
        assert_eq!(next_text(&mut ws).await.unwrap(), "ok assistant table-1");
        ws.send(Message::text("events")).await.unwrap();
        assert_eq!(next_text(&mut ws).await.unwrap(), "ok events table-1");
        // Events reach the page as objects with their fields by name (never by word position).
        feed.send(Arc::new(TableEvent::Takeback {
            plies: 2,
            retracted: vec!["g1f3".into(), "b8c6".into()],
            white_ms: 61_000,
            black_ms: 59_000,
        }))
        .unwrap();
        let event: serde_json::Value =
            serde_json::from_str(&next_text(&mut ws).await.unwrap()).unwrap();
        assert_eq!(event["event"], "takeback");
        assert_eq!(event["plies"], 2);
        assert_eq!(event["white"], "0:01:01");
        assert_eq!(event["retracted"][1], "b8c6");
        feed.send(Arc::new(TableEvent::Say(Say {
            listener: Listener::BlindPlayer,
            text: "Rücknahme".into(),
            urgency: Urgency::Urgent,
            about: About::Other,
            lang: "de",
            id: 7,
        })))
        .unwrap();
        let event: serde_json::Value =
            serde_json::from_str(&next_text(&mut ws).await.unwrap()).unwrap();
        assert_eq!(event["event"], "say");
        assert_eq!(event["urgent"], true);
        assert_eq!(event["lang"], "de");
        assert_eq!(event["id"], 7);
        assert_eq!(event["about"], "other");
        assert_eq!(event["line"], "event say blind Rücknahme");
        ws.send(Message::text("board")).await.unwrap();
        ws.send(Message::text("move e4\nresign")).await.unwrap();
        ws.send(Message::binary(vec![1, 2, 3])).await.unwrap();
        ws.send(Message::text("x".repeat(600))).await.unwrap();
        // A 3 KiB paste is refused in words; the page stays connected.
        ws.send(Message::text("e".repeat(3 * 1024))).await.unwrap();
        ws.send(Message::text("lang de")).await.unwrap();
        ws.send(Message::text("status")).await.unwrap();
        let mut replies = Vec::new();
        while replies.len() < 7 {
            replies.push(next_text(&mut ws).await.expect("a reply"));
        }
        assert_eq!(
            replies,
            [
                "ok 8/8/8/8/8/8/8/8 w - - 0 1",
                "error syntax one request per message; this one holds a line break",
                "error syntax binary messages are not requests; send one text line",
                "error syntax line of 600 bytes skipped; at most 512",
                "error syntax line of 3072 bytes skipped; at most 512",
                "ok lang de",
                "ok status assistant de",
            ]
        );

        // A second page on the first server, while the first is open: refused, with the reason.
        match tokio_tungstenite::connect_async(&url).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                assert_eq!(response.status(), 503);
            }
            other => panic!("a second page was not refused: {other:?}"),
        }
        // The second server takes the last control connection slot (authenticated: a
        // connection that is not makes room for a newcomer after a second); one more page is
        // told so in the protocol's words and closed.
        let roomy_url = format!("ws://{roomy}/ws");
        let (mut second, _) = tokio_tungstenite::connect_async(&roomy_url).await.unwrap();
        second
            .send(Message::text(format!("auth {ASSISTANT}")))
            .await
            .unwrap();
        assert_eq!(
            next_text(&mut second).await.unwrap(),
            "ok assistant table-1"
        );
        let (mut third, _) = tokio_tungstenite::connect_async(&roomy_url).await.unwrap();
        assert_eq!(
            next_text(&mut third).await.unwrap(),
            "error rate too many connections (at most 2); try again later"
        );
        assert_eq!(next_text(&mut third).await, None);

        let page = http_get(addr, "/", "").await;
        assert!(page.starts_with("HTTP/1.1 200"), "{page}");
        assert!(page.contains("Skip to move entry"));
        let words = http_get(addr, "/words.json", "").await;
        assert!(words.contains("\"Felix\""), "{words}");
        let audio = http_get(addr, "/audio/table-1", "").await;
        assert!(audio.starts_with("HTTP/1.1 401"), "{audio}");
        let traversal = http_get(addr, "/audio/..%2Fetc", "").await;
        assert!(!traversal.starts_with("HTTP/1.1 200"), "{traversal}");
        // The audio route's token check is the sessions'.
        let bearer = |token: &str| format!("Authorization: Bearer {token}\r\n");
        let wrong = http_get(addr, "/audio/table-1", &bearer("not-a-token-at-all")).await;
        assert!(wrong.starts_with("HTTP/1.1 403"), "{wrong}");
        assert!(wrong.ends_with("error auth wrong token\n"), "{wrong}");
        let elsewhere = http_get(addr, "/audio/table-1", &bearer(TABLE_2_ONLY)).await;
        assert!(elsewhere.starts_with("HTTP/1.1 403"), "{elsewhere}");
        assert!(
            elsewhere.ends_with(
                "error forbidden no table \"table-1\" for this token; tables: table-2\n"
            ),
            "{elsewhere}"
        );
        let record = http_get(addr, "/audio/table-1", &bearer(ASSISTANT)).await;
        assert!(record.starts_with("HTTP/1.1 200"), "{record}");
        assert!(record.ends_with("RIFF-record"), "{record}");
        let none_yet = http_get(addr, "/audio/table-2", &bearer(TABLE_2_ONLY)).await;
        assert!(none_yet.starts_with("HTTP/1.1 404"), "{none_yet}");

        // Shutdown: every page is told, then closed; the servers stop.
        stop.send(true).unwrap();
        assert_eq!(next_text(&mut ws).await.unwrap(), "event shutdown");
        assert_eq!(next_text(&mut ws).await, None);
        assert_eq!(next_text(&mut second).await.unwrap(), "event shutdown");
        for server in servers {
            tokio::time::timeout(Duration::from_secs(10), server)
                .await
                .expect("the server stops on shutdown")
                .unwrap()
                .unwrap();
        }
    });
}

/// A plain HTTP/1.1 GET with `headers` (each ending in CRLF), the whole response as text.
async fn http_get(addr: std::net::SocketAddr, path: &str, headers: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(
        format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{headers}Connection: close\r\n\r\n")
            .as_bytes(),
    )
    .await
    .unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

/// The login form can never put the token in a URL: it posts, and the token field has no
/// name, so a form sent before the scripts run carries nothing (issue 23).
#[test]
fn the_login_form_never_puts_the_token_in_a_url() {
    let html = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web/index.html"),
    )
    .unwrap();
    let form = html
        .split("<form id=\"login-form\"")
        .nth(1)
        .and_then(|rest| rest.split("</form>").next())
        .expect("the login form");
    assert!(form.starts_with(" method=\"post\""), "{form}");
    let input = form
        .split("<input")
        .nth(1)
        .and_then(|rest| rest.split('>').next())
        .expect("the token field");
    assert!(
        input.contains("id=\"token\"") && !input.contains("name="),
        "{input}"
    );
}

/// The page's English fallbacks (`LABELS` in web/words.js) and the labels of `[words.page]`
/// are the same keys with the same placeholders, and every label the scripts and the HTML ask
/// for by name (`L('key'`, `Ln('key'`, `LN('key'`, `data-l="key"`, `data-l-label="key"`)
/// is one of them: a text added to the page in English only, or a key misspelt, fails here
/// (issue 24, point 8). Every built-in language has every key (src/control/web.rs checks it).
#[test]
fn every_page_text_is_a_label_of_every_language() {
    use annabella::chess::page_words::PAGE_KEYS;
    use std::collections::{BTreeMap, BTreeSet};

    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    let read = |name: &str| std::fs::read_to_string(web.join(name)).unwrap();
    let words = read("words.js");
    let block = words
        .split("const LABELS = {\n")
        .nth(1)
        .and_then(|rest| rest.split("\n};").next())
        .expect("the LABELS object in web/words.js");
    // One label a line: `  key: 'English text',`.
    let labels: BTreeMap<&str, &str> = block
        .lines()
        .map(|line| {
            let (key, text) = line
                .trim()
                .split_once(": '")
                .unwrap_or_else(|| panic!("web/words.js LABELS: not `key: 'text',`: {line}"));
            (key, text.trim_end_matches("',"))
        })
        .collect();
    let placeholders = |text: &str| -> BTreeSet<String> {
        text.split('{')
            .skip(1)
            .filter_map(|rest| rest.split_once('}').map(|(name, _)| name.to_owned()))
            .collect()
    };
    let declared: BTreeMap<&str, BTreeSet<String>> = PAGE_KEYS
        .iter()
        .map(|(key, names)| (*key, names.iter().map(|n| (*n).to_owned()).collect()))
        .collect();
    let js: BTreeSet<&str> = labels.keys().copied().collect();
    let rust: BTreeSet<&str> = declared.keys().copied().collect();
    assert_eq!(
        js.difference(&rust).collect::<Vec<_>>(),
        Vec::<&&str>::new(),
        "in LABELS, not in PAGE_KEYS"
    );
    assert_eq!(
        rust.difference(&js).collect::<Vec<_>>(),
        Vec::<&&str>::new(),
        "in PAGE_KEYS, not in LABELS"
    );
    for (key, text) in &labels {
        assert_eq!(&placeholders(text), &declared[key], "placeholders of {key}");
    }
    // Every key asked for by name exists.
    let mut asked = 0;
    for name in [
        "words.js",
        "chess.js",
        "events.js",
        "render.js",
        "app.js",
        "index.html",
    ] {
        let source = read(name);
        for opener in ["L('", "Ln('", "LN('", "data-l=\"", "data-l-label=\""] {
            for rest in source.split(opener).skip(1) {
                let key: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                assert!(
                    labels.contains_key(key.as_str()),
                    "web/{name} asks for the label {key:?}, which LABELS and PAGE_KEYS lack"
                );
                asked += 1;
            }
        }
    }
    assert!(asked > 200, "only {asked} labels asked for by name");
}

/// Issue 24's lost move, on the real daemon's page wire: with `confirm_own_moves = false`,
/// 4.Nxd4 on the peg board is said to the opponent and 4…Nxd4 relayed at once to the blind
/// player, both "Springer schlägt David vier": two utterances, so two identities, and the page
/// (which reads each identity once) reads both.
#[test]
fn two_utterances_in_the_same_words_have_two_identities() {
    use common::board::SimulatedBoard;
    use common::daemon::Serve;
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;

    let dir = scratch_dir("web-ids");
    let mut board = SimulatedBoard::on_pty("peg", &dir.join("peg"), &[]);
    let config = dir.join("annabella.toml");
    std::fs::write(&config, "[speech]\nconfirm_own_moves = false\n").unwrap();
    let speech = format!("transcript:{}", dir.join("transcript.txt").display());
    let peg = dir.join("peg");
    let daemon = Serve::new(&dir.join("state"))
        .config(&config)
        .web("127.0.0.1:0")
        .args([
            "--peg",
            peg.to_str().unwrap(),
            "--speech",
            &speech,
            "--lang",
            "de",
        ])
        .start();
    let web = daemon.web.expect("the page's address");
    let mut assistant = daemon.connect("assistant");
    assistant.wait_status("peg connected in-sync");

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut ws = rt.block_on(async {
        let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{web}/ws"))
            .await
            .unwrap();
        for line in [
            format!("auth {}", daemon.token("observer")),
            "events".into(),
        ] {
            ws.send(Message::text(line)).await.unwrap();
        }
        ws
    });

    let mut ply = 0;
    let mut played = |board: &mut SimulatedBoard, hand: &str, relayed: Option<&str>| {
        if let Some(m) = relayed {
            assert!(assistant.ask(&format!("move {m}")).starts_with("ok"), "{m}");
        }
        board.hand(hand);
        ply += 1;
        assistant.wait_status(&format!(" ply {ply} "));
        assistant.wait_status("peg connected in-sync");
    };
    played(&mut board, "e2e4", None);
    played(&mut board, "e7e5", Some("e5"));
    played(&mut board, "g1f3", None);
    played(&mut board, "b8c6", Some("Nc6"));
    played(&mut board, "d2d4", None);
    played(&mut board, "e5d4", Some("exd4"));
    board.hand("f3d4");
    assistant.wait_status(" ply 7 ");
    // At once: the relayed reply.
    assert!(assistant.ask("move Nxd4").starts_with("ok"));

    let phrase = "Springer schlägt David vier";
    let said: Vec<serde_json::Value> = rt.block_on(async {
        let mut said = Vec::new();
        while said.len() < 2 {
            let message = tokio::time::timeout(WAIT, ws.next())
                .await
                .expect("both utterances within the wait")
                .expect("the page's connection open")
                .unwrap();
            let Message::Text(text) = message else {
                continue;
            };
            let Ok(event) = serde_json::from_str::<serde_json::Value>(&text) else {
                continue;
            };
            if event["event"] == "say" && event["text"] == phrase {
                said.push(event);
            }
        }
        said
    });
    assert_eq!(said[0]["listener"], "opponent", "{said:?}");
    assert_eq!(said[1]["listener"], "blind", "{said:?}");
    assert_eq!(said[0]["about"], "move");
    let ids: Vec<u64> = said.iter().map(|e| e["id"].as_u64().unwrap()).collect();
    assert!(ids[0] > 0 && ids[1] > 0 && ids[0] != ids[1], "{said:?}");
}
