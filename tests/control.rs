//! The control interface over real sockets on 127.0.0.1: the server (`control::tcp`)
//! with a stand-in table that answers with fixed lines, and `annabella send`, the built binary,
//! against that server and against a scripted listener.

pub mod common;

use std::io::{BufRead, BufReader as StdBufReader, Write};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use annabella::control::hub::{Hub, Request, TableHandle};
use annabella::control::session_driver::ControlService;
use annabella::control::tcp::{self, ControlSettings};
use annabella::io::tokens::{Grant, Origin, Tokens};
use annabella::table::control::{Role, TableRequest as Request_, permitted};
use annabella::table::event::TableEvent;
use annabella::table::record::Source;
use annabella::table::reply::Answer;
use common::fs::scratch_dir;
use common::net::free_port;
use common::process::{annabella, text};
use shakmaty::Color;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::{broadcast, mpsc, watch};

const WHITE: &str = "white-token-0123456789";
const BLACK: &str = "black-token-0123456789";
const OBSERVER: &str = "observer-token-0123456789";
const ARBITER: &str = "arbiter-token-0123456789";
/// An arbiter token for table-2 only.
const TABLE_2: &str = "table-2-token-0123456789";
const FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const WAIT: Duration = Duration::from_secs(5);

fn tokens() -> Tokens {
    let all = |role| Grant { role, tables: None };
    Tokens::new([
        (WHITE.into(), all(Role::Player(Color::White)), Origin::File),
        (BLACK.into(), all(Role::Player(Color::Black)), Origin::File),
        (OBSERVER.into(), all(Role::Observer), Origin::File),
        (ARBITER.into(), all(Role::Arbiter), Origin::File),
        (
            TABLE_2.into(),
            Grant {
                role: Role::Arbiter,
                tables: Some(Arc::from(vec![Arc::<str>::from("table-2")])),
            },
            Origin::Config,
        ),
    ])
}

/// A running server with two stand-in tables.
struct Server {
    addr: SocketAddr,
    shutdown: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
    /// The tables' event feeds, to publish events the way a table would.
    events: Vec<broadcast::Sender<Arc<TableEvent>>>,
    /// Requests that reached a table.
    asked: Arc<AtomicUsize>,
}

/// White's first move as the table publishes it.
fn e2e4() -> Arc<TableEvent> {
    Arc::new(TableEvent::Move {
        ply: 1,
        color: Color::White,
        uci: "e2e4".into(),
        san: "e4".into(),
        source: Source::Control(Role::Player(Color::White)),
        san_local: "e4".into(),
        words: "Eva vier".into(),
        number: 1,
    })
}

fn explain(line: &str) -> Arc<TableEvent> {
    Arc::new(TableEvent::Explain {
        line: line.to_owned(),
    })
}

/// A stand-in for the table actor: white is to move, and the replies say what arrived (table,
/// role, language), so the tests see what the server forwarded. It applies `permitted` with
/// its side to move, as the real table does.
fn stand_in_table(name: &str, asked: Arc<AtomicUsize>) -> TableHandle {
    let (requests, mut inbox) = mpsc::channel::<Request>(8);
    let (events, _) = broadcast::channel(16);
    let feed = events.clone();
    let table: Arc<str> = Arc::from(name);
    let handle = TableHandle {
        name: table.clone(),
        requests,
        events,
    };
    tokio::spawn(async move {
        while let Some(request) = inbox.recv().await {
            asked.fetch_add(1, Ordering::SeqCst);
            let reply = match permitted(request.role, &request.command, Color::White) {
                Err(refusal) => Err(refusal),
                Ok(()) => Ok(match &request.command {
                    Request_::Move { .. } => {
                        let _ = feed.send(e2e4());
                        Answer::Played {
                            uci: "e2e4".into(),
                            san: "e4".into(),
                        }
                    }
                    Request_::Board => Answer::Position { fen: FEN.into() },
                    Request_::Status => {
                        Answer::Moves(format!("{table} {} {}", request.role, request.lang.code()))
                    }
                    Request_::Promote { piece } => Answer::Moves(format!("promote {piece:?}")),
                    _ => Answer::Moves(String::new()),
                }),
            };
            let _ = request.reply.send(reply);
        }
    });
    handle
}

fn fast() -> ControlSettings {
    ControlSettings {
        requests_per_second: 1000,
        burst: 1000,
        ..ControlSettings::default()
    }
}

async fn start(settings: ControlSettings) -> Server {
    let asked = Arc::new(AtomicUsize::new(0));
    let tables = vec![
        stand_in_table("table-1", asked.clone()),
        stand_in_table("table-2", asked.clone()),
    ];
    let events = tables.iter().map(|t| t.events.clone()).collect();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (shutdown, stop) = watch::channel(false);
    let task = tokio::spawn(tcp::run(
        listener,
        ControlService::new(Hub::new(tables), tokens(), settings),
        stop,
    ));
    Server {
        addr,
        shutdown,
        task,
        events,
        asked,
    }
}

struct Client {
    reader: BufReader<OwnedReadHalf>,
    writer: OwnedWriteHalf,
}

impl Client {
    async fn connect(addr: SocketAddr) -> Client {
        let (read, writer) = TcpStream::connect(addr).await.unwrap().into_split();
        Client {
            reader: BufReader::new(read),
            writer,
        }
    }

    async fn authenticated(addr: SocketAddr, token: &str) -> Client {
        let mut client = Client::connect(addr).await;
        let reply = client.ask(&format!("auth {token}")).await;
        assert!(reply.starts_with("ok "), "{reply}");
        client
    }

    async fn send(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).await.unwrap();
    }

    /// The next line, or `None` once the server has closed the connection.
    async fn line(&mut self) -> Option<String> {
        let mut line = String::new();
        let n = tokio::time::timeout(WAIT, self.reader.read_line(&mut line))
            .await
            .expect("a line within 5 s")
            .unwrap_or(0);
        (n > 0).then(|| {
            assert!(line.ends_with('\n'), "{line:?}");
            line.trim_end().to_owned()
        })
    }

    async fn ask(&mut self, request: &str) -> String {
        self.send(format!("{request}\n").as_bytes()).await;
        self.line().await.expect("a reply")
    }

    async fn assert_closed(&mut self) {
        assert_eq!(self.line().await, None, "the server should have closed");
    }
}

#[tokio::test]
async fn nothing_but_help_and_quit_before_auth_then_the_right_token() {
    let server = start(fast()).await;
    let mut c = Client::connect(server.addr).await;
    assert_eq!(
        c.ask("board").await,
        "error auth board before auth; send auth TOKEN first"
    );
    assert!(c.ask("help").await.starts_with("ok requests: auth, table"));
    assert_eq!(c.ask("auth not-a-token").await, "error auth wrong token");
    assert_eq!(c.ask(&format!("auth {WHITE}")).await, "ok white table-1");
    assert_eq!(
        c.ask(&format!("auth {BLACK}")).await,
        "error state already authenticated as white; connect again for another token"
    );
    assert_eq!(c.ask("board").await, format!("ok {FEN}"));
    assert_eq!(c.ask("quit").await, "ok bye");
    c.assert_closed().await;
    assert_eq!(server.asked.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn three_wrong_tokens_close_the_connection() {
    let server = start(fast()).await;
    let mut c = Client::connect(server.addr).await;
    assert_eq!(c.ask("auth guess-1").await, "error auth wrong token");
    assert_eq!(c.ask("auth guess-2").await, "error auth wrong token");
    assert_eq!(
        c.ask("auth guess-3").await,
        "error auth wrong token (3 times); closing"
    );
    c.assert_closed().await;
}

#[tokio::test]
async fn roles_observer_reads_only_and_a_player_moves_only_his_side() {
    let server = start(fast()).await;
    let mut observer = Client::authenticated(server.addr, OBSERVER).await;
    assert_eq!(
        observer.ask("move e4").await,
        "error forbidden an observer may only read; move changes the game"
    );
    assert_eq!(
        observer.ask("resign").await,
        "error forbidden an observer may only read; resign changes the game"
    );
    // Refused by the server itself: the table never saw them.
    assert_eq!(server.asked.load(Ordering::SeqCst), 0);
    assert_eq!(observer.ask("board").await, format!("ok {FEN}"));
    assert_eq!(observer.ask("status").await, "ok table-1 observer en");

    // The side to move is the table's: it applies `permitted` with the role the server sends.
    let mut black = Client::authenticated(server.addr, BLACK).await;
    assert_eq!(
        black.ask("move e4").await,
        "error forbidden you play black; it is white's move"
    );
    assert_eq!(black.ask("status").await, "ok table-1 black en");
    let mut white = Client::authenticated(server.addr, WHITE).await;
    assert_eq!(white.ask("move e4").await, "ok e2e4 e4");
    let mut arbiter = Client::authenticated(server.addr, ARBITER).await;
    assert_eq!(arbiter.ask("resign").await, "ok");
}

#[tokio::test]
async fn tables_language_and_promotion_are_the_connections() {
    let server = start(fast()).await;
    let mut c = Client::authenticated(server.addr, ARBITER).await;
    assert_eq!(c.ask("tables").await, "ok table-1 table-2");
    assert_eq!(c.ask("table table-2").await, "ok table table-2");
    assert_eq!(c.ask("status").await, "ok table-2 arbiter en");
    assert_eq!(
        c.ask("table table-9").await,
        "error forbidden no table \"table-9\" for this token; tables: table-1, table-2"
    );
    assert_eq!(c.ask("lang de").await, "ok lang de");
    assert_eq!(c.ask("status").await, "ok table-2 arbiter de");
    assert_eq!(c.ask("promote Dame").await, "ok promote Queen");
    assert_eq!(c.ask("promote n").await, "ok promote Knight");
    // Only built-in languages: a network client never makes the daemon read a file.
    assert!(
        c.ask("lang ../../etc/passwd")
            .await
            .starts_with("error syntax no built-in language \"../../etc/passwd\"; one of de, en")
    );
    assert_eq!(c.ask("status").await, "ok table-2 arbiter de");

    let mut limited = Client::connect(server.addr).await;
    assert_eq!(
        limited.ask(&format!("auth {TABLE_2}")).await,
        "ok arbiter table-2"
    );
    assert_eq!(limited.ask("tables").await, "ok table-2");
    // Unknown and not allowed read alike.
    assert_eq!(
        limited.ask("table table-1").await,
        "error forbidden no table \"table-1\" for this token; tables: table-2"
    );
    assert_eq!(limited.ask("status").await, "ok table-2 arbiter en");
}

#[tokio::test]
async fn long_lines_bad_bytes_and_garbage_get_error_lines_and_the_connection_goes_on() {
    let server = start(fast()).await;
    let mut c = Client::authenticated(server.addr, WHITE).await;
    let mut long = vec![b'x'; 600];
    long.push(b'\n');
    c.send(&long).await;
    assert_eq!(
        c.line().await.unwrap(),
        "error syntax line of 600 bytes skipped; at most 512"
    );
    assert_eq!(c.ask("board").await, format!("ok {FEN}"));
    c.send(b"move \xff\xfe e4\n").await;
    assert_eq!(
        c.line().await.unwrap(),
        "error syntax not UTF-8 text (bad byte at offset 5)"
    );
    c.send(b"\0\0\x07\x1b[2J\r\n").await;
    let reply = c.line().await.unwrap();
    assert!(reply.starts_with("error syntax unknown request"), "{reply}");
    assert!(!reply.contains('\x1b'), "{reply:?}");

    // Random bytes: every line gets a one-line reply, none closes the connection.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let garbage: Vec<u8> = (0..4000)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 24) as u8
        })
        .collect();
    let lines = garbage.iter().filter(|&&b| b == b'\n').count();
    c.send(&garbage).await;
    c.send(b"\nboard\n").await;
    for _ in 0..=lines {
        let reply = c.line().await.expect("a reply to each garbage line");
        assert!(reply.starts_with("error "), "{reply:?}");
    }
    assert_eq!(c.line().await.unwrap(), format!("ok {FEN}"));

    // A stream without line feeds is cut off after a bounded skip.
    let mut other = Client::authenticated(server.addr, WHITE).await;
    other.send(&vec![b'y'; 70_000]).await;
    assert_eq!(
        other.line().await.unwrap(),
        "error syntax more than 65536 bytes without a line feed; closing"
    );
    other.assert_closed().await;
}

#[tokio::test]
async fn one_connection_too_many_is_told_so_and_closed() {
    let server = start(ControlSettings {
        max_connections: 2,
        ..fast()
    })
    .await;
    let first = Client::authenticated(server.addr, WHITE).await;
    let _second = Client::authenticated(server.addr, BLACK).await;
    let mut third = Client::connect(server.addr).await;
    // Talking at once does not cost it the explanation.
    third.send(b"auth guess\n").await;
    assert_eq!(
        third.line().await.unwrap(),
        "error rate too many connections (at most 2); try again later"
    );
    third.assert_closed().await;
    // A slot comes free when a connection goes.
    drop(first);
    let mut fourth = None;
    for _ in 0..50 {
        let mut c = Client::connect(server.addr).await;
        let reply = c.ask(&format!("auth {WHITE}")).await;
        if reply.starts_with("ok ") {
            fourth = Some(c);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(fourth.is_some(), "no slot came free");
}

#[tokio::test]
async fn a_flood_is_refused_then_cut_off() {
    let server = start(ControlSettings {
        requests_per_second: 1,
        burst: 3,
        ..ControlSettings::default()
    })
    .await;
    let mut c = Client::authenticated(server.addr, OBSERVER).await;
    c.send("board\n".repeat(40).as_bytes()).await;
    let mut replies = Vec::new();
    while let Some(line) = c.line().await {
        replies.push(line);
    }
    // `auth` took one of the three; a slow test machine may have earned one more.
    let served = replies
        .iter()
        .take_while(|r| **r == format!("ok {FEN}"))
        .count();
    assert!((2..=3).contains(&served), "{replies:?}");
    assert!(
        replies[served].starts_with("error rate more than 1 requests a second (bursts of 3)"),
        "{replies:?}"
    );
    assert_eq!(
        replies.last().unwrap(),
        "error rate flood of requests; closing"
    );
    assert_eq!(replies.len(), served + 10, "{replies:?}");
}

#[tokio::test]
async fn unauthenticated_connections_time_out() {
    let server = start(ControlSettings {
        auth_timeout: Duration::from_millis(500),
        ..fast()
    })
    .await;
    let mut idle = Client::connect(server.addr).await;
    let mut busy = Client::authenticated(server.addr, OBSERVER).await;
    assert_eq!(
        idle.line().await.unwrap(),
        "error auth no auth within 0.5 s of connecting; closing"
    );
    idle.assert_closed().await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(busy.ask("board").await, format!("ok {FEN}"));
}

#[tokio::test]
async fn events_are_forwarded_between_replies_and_follow_the_table() {
    let server = start(fast()).await;
    let mut watcher = Client::authenticated(server.addr, OBSERVER).await;
    assert_eq!(watcher.ask("events").await, "ok events table-1");
    let mut white = Client::authenticated(server.addr, WHITE).await;
    assert_eq!(white.ask("move e4").await, "ok e2e4 e4");
    assert_eq!(
        watcher.line().await.unwrap(),
        "event move 1 white e2e4 e4 white"
    );
    // The unsubscribed mover gets replies only.
    assert_eq!(white.ask("board").await, format!("ok {FEN}"));

    // An event is a line of its own between replies.
    server.events[0]
        .send(Arc::new(TableEvent::ClockRunning { running: false }))
        .unwrap();
    assert_eq!(watcher.line().await.unwrap(), "event clock pause");
    assert_eq!(watcher.ask("board").await, format!("ok {FEN}"));

    // After `table`, the subscription is the new table's.
    assert_eq!(watcher.ask("table table-2").await, "ok table table-2");
    // Nobody listens to table-1 any more.
    assert!(server.events[0].send(explain("from table-1")).is_err());
    server.events[1].send(explain("from table-2")).unwrap();
    assert_eq!(watcher.line().await.unwrap(), "event explain from table-2");
}

#[tokio::test]
async fn shutdown_says_so_and_closes_every_connection() {
    let server = start(fast()).await;
    let mut subscribed = Client::authenticated(server.addr, OBSERVER).await;
    assert_eq!(subscribed.ask("events").await, "ok events table-1");
    let mut fresh = Client::connect(server.addr).await;
    // The connection is accepted (its task runs) before shutdown.
    assert!(fresh.ask("help").await.starts_with("ok "));
    server.shutdown.send(true).unwrap();
    for c in [&mut subscribed, &mut fresh] {
        assert_eq!(c.line().await.unwrap(), "event shutdown");
        c.assert_closed().await;
    }
    tokio::time::timeout(WAIT, server.task)
        .await
        .expect("run returns after shutdown")
        .unwrap();
    assert!(TcpStream::connect(server.addr).await.is_err());
}

// ---- annabella send ----

/// A listener that plays the daemon from a script of (expected request, reply lines) and
/// returns what it received.
fn scripted(
    script: Vec<(&'static str, Vec<&'static str>)>,
) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let handle = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        stream.set_read_timeout(Some(WAIT)).unwrap();
        let mut reader = StdBufReader::new(stream.try_clone().unwrap());
        let mut writer = stream;
        let mut received = Vec::new();
        for (expected, replies) in script {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                break;
            }
            let line = line.trim_end().to_owned();
            assert_eq!(line, expected);
            received.push(line);
            for reply in replies {
                writer.write_all(format!("{reply}\n").as_bytes()).unwrap();
            }
        }
        // Whatever else the client sends before it hangs up.
        let mut line = String::new();
        while reader.read_line(&mut line).unwrap_or(0) > 0 {
            received.push(line.trim_end().to_owned());
            line.clear();
        }
        received
    });
    (addr, handle)
}

#[test]
fn send_authenticates_sends_each_request_and_prints_replies_and_events() {
    let (addr, daemon) = scripted(vec![
        ("auth tok-0123456789abcdef", vec!["ok white table-1"]),
        ("table table-2", vec!["ok table table-2"]),
        ("lang de", vec!["ok lang de"]),
        (
            "move Springer Felix drei",
            vec!["event move 1 white g1f3 Sf3", "ok g1f3 Sf3"],
        ),
        (
            "board",
            vec![Box::leak(format!("ok {FEN}").into_boxed_str())],
        ),
    ]);
    let o = annabella(
        &[
            "send",
            "--connect",
            &addr,
            "--token",
            "tok-0123456789abcdef",
            "--table",
            "table-2",
            "--lang",
            "de",
            "move Springer Felix drei",
            "board",
        ],
        &[],
        "",
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        format!("event move 1 white g1f3 Sf3\nok g1f3 Sf3\nok {FEN}\n")
    );
    assert_eq!(daemon.join().unwrap().len(), 5);
}

#[test]
fn send_stops_at_an_error_reply_with_status_1() {
    let (addr, daemon) = scripted(vec![
        ("auth tok-0123456789abcdef", vec!["ok white table-1"]),
        ("move e5", vec!["error move illegal: no pawn can reach e5"]),
    ]);
    let o = annabella(
        &["send", "--connect", &addr, "move e5", "board"],
        &[("ANNABELLA_TOKEN", "tok-0123456789abcdef")],
        "",
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout), "");
    assert_eq!(
        text(&o.stderr),
        "error move illegal: no pawn can reach e5\n"
    );
    // `board` was never sent.
    assert_eq!(
        daemon.join().unwrap(),
        ["auth tok-0123456789abcdef", "move e5"]
    );
}

#[test]
fn send_reads_requests_from_stdin_and_goes_on_after_an_error() {
    let (addr, daemon) = scripted(vec![
        ("auth tok-0123456789abcdef", vec!["ok white table-1"]),
        ("castle", vec!["error syntax unknown request \"castle\""]),
        ("board", vec!["ok fen"]),
    ]);
    let o = annabella(
        &[
            "send",
            "--connect",
            &addr,
            "--token",
            "tok-0123456789abcdef",
            "-",
        ],
        &[],
        "# a comment\ncastle\n\nboard\n",
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout), "ok fen\n");
    assert!(text(&o.stderr).contains("error syntax unknown request"));
    assert_eq!(daemon.join().unwrap().len(), 3);
}

/// `send` reads replies with the daemon's own bounded line reader: a reply over 1 MiB is not
/// held, cut or split into lines; `send` stops and says so.
#[test]
fn send_refuses_an_overlong_reply_without_holding_it() {
    let huge: &'static str = Box::leak(format!("ok {}", "x".repeat(1024 * 1024)).into_boxed_str());
    let (addr, daemon) = scripted(vec![
        ("auth tok-0123456789abcdef", vec!["ok white table-1"]),
        ("sheet", vec![huge, "ok after"]),
    ]);
    let o = annabella(
        &["send", "--connect", &addr, "sheet", "board"],
        &[("ANNABELLA_TOKEN", "tok-0123456789abcdef")],
        "",
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "");
    assert!(
        text(&o.stderr).contains(&format!(
            "{addr} sent a line of 1048579 bytes; at most 1048576"
        )),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(
        daemon.join().unwrap(),
        ["auth tok-0123456789abcdef", "sheet"]
    );
}

#[test]
fn send_without_a_daemon_exits_2_naming_the_address() {
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    let o = annabella(
        &["send", "--connect", &addr, "--token", "x", "board"],
        &[],
        "",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains(&format!("cannot connect to {addr}")),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn send_refuses_a_request_with_a_line_break_and_a_missing_token() {
    let o = annabella(
        &[
            "send",
            "--connect",
            "127.0.0.1:1",
            "--token",
            "t",
            "move e4\nresign",
        ],
        &[],
        "",
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("request 1 contains a line break"));
    let o = annabella(&["send", "--state-dir", "/nonexistent", "board"], &[], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("no token: give --token"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn send_reads_the_roles_token_from_the_state_directory() {
    let dir = scratch_dir("send");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
        .open(dir.join("tokens.toml"))
        .unwrap()
        .write_all(
            b"[[token]]\ntoken = \"white-0123456789abcdef\"\nrole = \"white\"\n\
              [[token]]\ntoken = \"arbiter-0123456789abcdef\"\nrole = \"arbiter\"\n",
        )
        .unwrap();
    let (addr, daemon) = scripted(vec![
        ("auth arbiter-0123456789abcdef", vec!["ok arbiter table-1"]),
        ("status", vec!["ok running"]),
    ]);
    let o = annabella(
        &[
            "send",
            "--connect",
            &addr,
            "--state-dir",
            dir.to_str().unwrap(),
            "--role",
            "arbiter",
            "status",
        ],
        &[],
        "",
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "ok running\n");
    daemon.join().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn send_talks_to_the_real_server() {
    let server = start(fast()).await;
    let addr = server.addr.to_string();
    let run = |args: Vec<String>| {
        tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            annabella(&args, &[("ANNABELLA_TOKEN", BLACK)], "")
        })
    };
    let o = run(vec![
        "send".into(),
        "--connect".into(),
        addr.clone(),
        "--lang".into(),
        "fr".into(),
        "status".into(),
        "move e5".into(),
    ])
    .await
    .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout), "ok table-1 black fr\n");
    assert_eq!(
        text(&o.stderr),
        "error forbidden you play black; it is white's move\n"
    );
    let o = run(vec![
        "send".into(),
        "--connect".into(),
        addr,
        "--token".into(),
        "wrong-token".into(),
        "board".into(),
    ])
    .await
    .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stderr), "error auth wrong token\n");
}

#[tokio::test]
async fn send_events_prints_event_lines_until_the_daemon_closes() {
    let server = start(fast()).await;
    let addr = server.addr.to_string();
    let watcher = tokio::task::spawn_blocking(move || {
        annabella(
            &["send", "--connect", &addr, "events"],
            &[("ANNABELLA_TOKEN", OBSERVER)],
            "",
        )
    });
    for _ in 0..250 {
        if server.events[0].receiver_count() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.events[0].send(e2e4()).unwrap();
    // Published just before shutdown: it still reaches the subscriber, before the goodbye.
    server.shutdown.send(true).unwrap();
    let o = watcher.await.unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "ok events table-1\nevent move 1 white e2e4 e4 white\nevent shutdown\n"
    );
}

/// Without correspondence tables there is no desk: its requests are answered by the server and
/// never reach the table.
#[tokio::test]
async fn desk_requests_without_a_desk_never_reach_the_table() {
    let server = start(fast()).await;
    let mut white = Client::authenticated(server.addr, WHITE).await;
    assert_eq!(
        white.ask("games").await,
        "error state games is answered by the correspondence desk, and this daemon has no \
         correspondence table"
    );
    let mut observer = Client::authenticated(server.addr, OBSERVER).await;
    assert_eq!(
        observer.ask("focus bca-7").await,
        "error forbidden an observer may only read; focus changes the game"
    );
    assert_eq!(server.asked.load(Ordering::SeqCst), 0);
}

/// The keywords in backquotes at the start of each piece of `cell`: `` `board N` `` is `board`.
fn keywords_in(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|code| code.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// `docs/control-protocol.md` lists every request the parser accepts under the one that answers
/// it, and no request the parser does not know; its roles table names the arbiter's requests and
/// the observer's as `REQUESTS` declares them.
#[test]
fn the_protocol_document_lists_every_request_under_its_answerer() {
    use annabella::table::control::{Access, Answerer, REQUESTS};
    use std::collections::BTreeSet;
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/control-protocol.md"),
    )
    .unwrap();
    let requests = doc
        .split("\n## Requests\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("a Requests section");
    let mut listed: Vec<(Answerer, String)> = Vec::new();
    let mut answerer = None;
    for line in requests.lines() {
        if let Some(heading) = line.strip_prefix("### ") {
            answerer = Some(match heading {
                h if h.contains("answered by the server") => Answerer::Connection,
                h if h.contains("answered by the desk") => Answerer::Desk,
                h if h.contains("table") => Answerer::Table,
                h => panic!("a section for whom? {h}"),
            });
        } else if line.starts_with("| `") {
            let first_cell = line.split(" | ").next().unwrap();
            let answerer = answerer.expect("a row under a heading");
            listed.extend(keywords_in(first_cell).into_iter().map(|k| (answerer, k)));
        }
    }
    for spec in REQUESTS {
        assert!(
            listed.contains(&(spec.answerer, spec.keyword.to_owned())),
            "docs/control-protocol.md does not list `{}` under {:?}",
            spec.keyword,
            spec.answerer
        );
    }
    for (answerer, keyword) in &listed {
        assert!(
            REQUESTS
                .iter()
                .any(|s| s.keyword == keyword && s.answerer == *answerer),
            "docs/control-protocol.md lists `{keyword}` under {answerer:?}; the parser does not"
        );
    }
    let roles = doc.split("\n## Roles\n").nth(1).expect("a Roles section");
    let row = |role: &str| -> BTreeSet<String> {
        let line = roles
            .lines()
            .find(|l| l.starts_with(&format!("| `{role}` |")))
            .unwrap_or_else(|| panic!("a row for {role}"));
        keywords_in(line.split(" | ").nth(1).unwrap())
            .into_iter()
            .collect()
    };
    let declared = |keep: &dyn Fn(&annabella::table::control::RequestSpec) -> bool| {
        REQUESTS
            .iter()
            .filter(|s| keep(s))
            .map(|s| s.keyword.to_owned())
            .collect::<BTreeSet<_>>()
    };
    assert_eq!(
        row("arbiter"),
        declared(&|s| s.access == Access::Arbiter),
        "the arbiter's requests"
    );
    assert_eq!(
        row("observer"),
        declared(&|s| s.access == Access::Anyone && s.answerer != Answerer::Connection),
        "what an observer may read (besides the connection's requests)"
    );
}
