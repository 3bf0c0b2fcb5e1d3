//! A fake lichess for tests, in process (axum on tokio, in a thread of its own), written from
//! lichess's OpenAPI document (lichess-api.yaml, Board tag; the research notes quote it): the
//! event stream (`gameStart` for every game going on when it opens; one per token, a new one
//! closes the old), the held seek (`POST /api/board/seek`, open until a game is paired), the
//! challenge, a game's stream (`gameFull` first, then `gameState` with ALL moves,
//! `opponentGone`), and the commands (`move/{uci}`, `draw/yes`, `resign`, `claim-victory`).
//! The test plays the opponent. It can split lines across chunks at any byte, sends keep-alive
//! empty lines, drops a stream, goes silent, answers 429, refuses a move, and counts every
//! move submission.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tokio::sync::mpsc;

/// What a stream connection is sent.
enum Chunk {
    Bytes(Vec<u8>),
    /// Ends the connection without the closing chunk: a dropped connection.
    Drop,
}

/// One open stream: where its chunks go.
struct Conn {
    tx: mpsc::UnboundedSender<Chunk>,
}

/// The game being played, as lichess keeps it.
#[derive(Clone, Debug)]
pub struct Game {
    pub id: String,
    /// The blind player's colour.
    pub player_white: bool,
    pub moves: Vec<String>,
    pub wtime: u64,
    pub btime: u64,
    pub status: String,
    pub winner: Option<String>,
    pub wdraw: bool,
    pub bdraw: bool,
    /// The opponent has gone: when the win may be claimed.
    pub gone_until: Option<Instant>,
}

/// Everything the fake saw and holds.
#[derive(Default)]
pub struct Seen {
    /// Every `move/{uci}` submission, in order, with the status answered.
    pub move_posts: Vec<(String, u16)>,
    /// Move submissions when it was not the player's turn: a move sent twice.
    pub duplicates: usize,
    /// Every other command (`draw/yes`, `resign`, `claim-victory`, `seek`, `challenge/bob`).
    pub commands: Vec<String>,
    /// The seeks' forms and the challenges' forms.
    pub seeks: Vec<String>,
    pub challenges: Vec<String>,
    /// How often each stream was opened.
    pub event_streams: usize,
    pub game_streams: usize,
    /// When the fake wrote each opponent move's line (Unix ms), by UCI.
    pub written_at: Vec<(String, u64)>,
}

#[derive(Default)]
struct Inner {
    seen: Seen,
    game: Option<Game>,
    events: Option<Conn>,
    game_conn: Option<Conn>,
    seek: Option<Conn>,
    /// Answers to come: the next move submission refused (400), the next POST answered 429.
    refuse_next_move: bool,
    rate_limit_next: bool,
    /// A game stream opened while silent: its `gameFull` goes out when the silence ends.
    owes_full: bool,
}

type Shared = Arc<(Mutex<Inner>, Flags)>;

/// How the streams behave.
#[derive(Default)]
struct Flags {
    /// Lines go out in pieces of a few bytes each.
    split: AtomicBool,
    /// The game stream sends nothing at all, not even keep-alives.
    silent: AtomicBool,
    /// lichess cannot be reached: every request is answered 503 and no stream opens.
    offline: AtomicBool,
}

/// The running fake.
pub struct FakeLichess {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    shared: Shared,
    _runtime: std::thread::JoinHandle<()>,
}

/// The keep-alive period (lichess: 6–7 s).
const KEEP_ALIVE: Duration = Duration::from_secs(6);

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A stream's body: the chunks sent to it, an empty line after each [`KEEP_ALIVE`] of
/// nothing (unless silent), ended by a drop.
fn body(rx: mpsc::UnboundedReceiver<Chunk>, shared: Shared, game: bool) -> Body {
    let stream = futures_util::stream::unfold((rx, shared), move |(mut rx, shared)| async move {
        loop {
            match tokio::time::timeout(KEEP_ALIVE, rx.recv()).await {
                Ok(Some(Chunk::Bytes(b))) => {
                    return Some((Ok::<Bytes, std::io::Error>(Bytes::from(b)), (rx, shared)));
                }
                Ok(Some(Chunk::Drop)) => {
                    let e = std::io::Error::other("dropped by the fake");
                    return Some((Err(e), (rx, shared)));
                }
                Ok(None) => return None,
                Err(_) if game && shared.1.silent.load(Ordering::SeqCst) => {}
                Err(_) => return Some((Ok(Bytes::from_static(b"\n")), (rx, shared))),
            }
        }
    });
    Body::from_stream(stream)
}

/// Sends one NDJSON line on `conn`, in pieces when splitting.
fn send_line(conn: &Conn, line: &str, split: bool) {
    let mut bytes = line.as_bytes().to_vec();
    bytes.push(b'\n');
    if !split {
        conn.tx.send(Chunk::Bytes(bytes)).ok();
        return;
    }
    // Pieces of 1 to 5 bytes, cut anywhere (inside a key, a number, before the newline).
    let mut at = 0;
    let mut n = 1;
    while at < bytes.len() {
        let end = (at + n).min(bytes.len());
        conn.tx.send(Chunk::Bytes(bytes[at..end].to_vec())).ok();
        at = end;
        n = n % 5 + 1;
    }
}

fn state_json(g: &Game) -> serde_json::Value {
    let mut v = serde_json::json!({
        "type": "gameState",
        "moves": g.moves.join(" "),
        "wtime": g.wtime,
        "btime": g.btime,
        "winc": 10000,
        "binc": 10000,
        "status": g.status,
    });
    if let Some(w) = &g.winner {
        v["winner"] = serde_json::json!(w);
    }
    if g.wdraw {
        v["wdraw"] = serde_json::json!(true);
    }
    if g.bdraw {
        v["bdraw"] = serde_json::json!(true);
    }
    v
}

fn full_json(g: &Game) -> serde_json::Value {
    let me = serde_json::json!({"id": "anna", "name": "Anna", "rating": 1650});
    let bob = serde_json::json!({"id": "bob", "name": "Bob", "rating": 1500});
    let (white, black) = if g.player_white { (me, bob) } else { (bob, me) };
    serde_json::json!({
        "type": "gameFull",
        "id": g.id,
        "rated": false,
        "variant": {"key": "standard", "name": "Standard", "short": "Std"},
        "clock": {"initial": 900000, "increment": 10000},
        "speed": "rapid",
        "perf": {"name": "Rapid"},
        "createdAt": 1_700_000_000_000u64,
        "white": white,
        "black": black,
        "initialFen": "startpos",
        "state": state_json(g),
    })
}

fn game_start_json(g: &Game) -> serde_json::Value {
    serde_json::json!({
        "type": "gameStart",
        "game": {
            "fullId": format!("{}abcd", g.id),
            "gameId": g.id,
            "fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "color": if g.player_white { "white" } else { "black" },
            "lastMove": "",
            "source": "lobby",
            "variant": {"key": "standard", "name": "Standard"},
            "speed": "rapid",
            "perf": "rapid",
            "rated": false,
            "hasMoved": false,
            "opponent": {"id": "bob", "username": "Bob", "rating": 1500},
            "isMyTurn": g.player_white,
            "secondsLeft": 900,
            "compat": {"bot": false, "board": true},
            "id": g.id,
        }
    })
}

fn split(shared: &Shared) -> bool {
    shared.1.split.load(Ordering::SeqCst)
}

fn ok() -> Response {
    (StatusCode::OK, r#"{"ok":true}"#).into_response()
}

fn error(status: StatusCode, text: &str) -> Response {
    (status, serde_json::json!({ "error": text }).to_string()).into_response()
}

/// A POST answered 429 when the test asked for it.
fn rate_limited(inner: &mut Inner) -> Option<Response> {
    if std::mem::take(&mut inner.rate_limit_next) {
        return Some(error(StatusCode::TOO_MANY_REQUESTS, "Too many requests"));
    }
    None
}

fn offline(shared: &Shared) -> Option<Response> {
    shared
        .1
        .offline
        .load(Ordering::SeqCst)
        .then(|| error(StatusCode::SERVICE_UNAVAILABLE, "unreachable"))
}

async fn event_stream(State(shared): State<Shared>) -> Response {
    if let Some(r) = offline(&shared) {
        return r;
    }
    let (tx, rx) = mpsc::unbounded_channel();
    let conn = Conn { tx };
    {
        let mut inner = shared.0.lock().unwrap();
        inner.seen.event_streams += 1;
        if let Some(g) = inner.game.as_ref().filter(|g| g.status == "started") {
            send_line(&conn, &game_start_json(g).to_string(), split(&shared));
        }
        // One event stream per token: the new one closes the old.
        inner.events = Some(conn);
    }
    Response::new(body(rx, shared, false))
}

async fn game_stream(State(shared): State<Shared>, Path(id): Path<String>) -> Response {
    if let Some(r) = offline(&shared) {
        return r;
    }
    let (tx, rx) = mpsc::unbounded_channel();
    let conn = Conn { tx };
    let mut inner = shared.0.lock().unwrap();
    inner.seen.game_streams += 1;
    let Some(g) = inner.game.clone().filter(|g| g.id == id) else {
        return error(StatusCode::NOT_FOUND, "No such game");
    };
    if shared.1.silent.load(Ordering::SeqCst) {
        inner.owes_full = true;
    } else {
        send_line(&conn, &full_json(&g).to_string(), split(&shared));
    }
    inner.game_conn = Some(conn);
    drop(inner);
    Response::new(body(rx, shared, true))
}

async fn seek(State(shared): State<Shared>, form: String) -> Response {
    if let Some(r) = offline(&shared) {
        return r;
    }
    let (tx, rx) = mpsc::unbounded_channel();
    let mut inner = shared.0.lock().unwrap();
    if let Some(r) = rate_limited(&mut inner) {
        return r;
    }
    inner.seen.commands.push("seek".into());
    inner.seen.seeks.push(form);
    inner.seek = Some(Conn { tx });
    drop(inner);
    Response::new(body(rx, shared, false))
}

async fn challenge(
    State(shared): State<Shared>,
    Path(user): Path<String>,
    form: String,
) -> Response {
    if let Some(r) = offline(&shared) {
        return r;
    }
    let mut inner = shared.0.lock().unwrap();
    if let Some(r) = rate_limited(&mut inner) {
        return r;
    }
    inner.seen.commands.push(format!("challenge/{user}"));
    inner.seen.challenges.push(form);
    (
        StatusCode::OK,
        serde_json::json!({"id": "ch4llenge", "status": "created"}).to_string(),
    )
        .into_response()
}

async fn board_move(
    State(shared): State<Shared>,
    Path((id, uci)): Path<(String, String)>,
) -> Response {
    let mut inner = shared.0.lock().unwrap();
    if let Some(r) = offline(&shared) {
        inner.seen.move_posts.push((uci, 503));
        return r;
    }
    if let Some(r) = rate_limited(&mut inner) {
        inner.seen.move_posts.push((uci, 429));
        return r;
    }
    let refuse = std::mem::take(&mut inner.refuse_next_move);
    let Some(g) = inner.game.as_mut().filter(|g| g.id == id) else {
        return error(StatusCode::NOT_FOUND, "No such game");
    };
    let his_turn = (g.moves.len() % 2 == 0) == g.player_white && g.status == "started";
    let status = if refuse {
        StatusCode::BAD_REQUEST
    } else if !his_turn {
        inner.seen.duplicates += 1;
        StatusCode::BAD_REQUEST
    } else {
        g.moves.push(uci.clone());
        if g.player_white {
            g.wdraw = false;
        } else {
            g.bdraw = false;
        }
        StatusCode::OK
    };
    inner.seen.move_posts.push((uci, status.as_u16()));
    if status != StatusCode::OK {
        return error(status, "Not your turn, or game already over");
    }
    push_state(&mut inner, split(&shared));
    ok()
}

async fn command(
    State(shared): State<Shared>,
    Path((id, what)): Path<(String, String)>,
) -> Response {
    if let Some(r) = offline(&shared) {
        return r;
    }
    let mut inner = shared.0.lock().unwrap();
    if let Some(r) = rate_limited(&mut inner) {
        inner.seen.commands.push(format!("{what} 429"));
        return r;
    }
    inner.seen.commands.push(what.clone());
    let Some(g) = inner.game.as_mut().filter(|g| g.id == id) else {
        return error(StatusCode::NOT_FOUND, "No such game");
    };
    let me = if g.player_white { "white" } else { "black" };
    let them = if g.player_white { "black" } else { "white" };
    match what.as_str() {
        "draw/yes" => {
            let they_offer = if g.player_white { g.bdraw } else { g.wdraw };
            if they_offer {
                g.status = "draw".into();
            } else if g.player_white {
                g.wdraw = true;
            } else {
                g.bdraw = true;
            }
        }
        "resign" => {
            g.status = "resign".into();
            g.winner = Some(them.into());
        }
        "claim-victory" => match g.gone_until {
            Some(at) if at <= Instant::now() => {
                g.status = "timeout".into();
                g.winner = Some(me.into());
            }
            _ => return error(StatusCode::BAD_REQUEST, "Cannot claim victory now"),
        },
        _ => return error(StatusCode::NOT_FOUND, "No such command"),
    }
    push_state(&mut inner, split(&shared));
    ok()
}

async fn draw(shared: State<Shared>, Path((id, answer)): Path<(String, String)>) -> Response {
    command(shared, Path((id, format!("draw/{answer}")))).await
}

/// Sends the game's state on its stream (all moves); closes the stream when it is over.
fn push_state(inner: &mut Inner, split: bool) {
    let Some(g) = inner.game.clone() else {
        return;
    };
    if let Some(conn) = &inner.game_conn {
        send_line(conn, &state_json(&g).to_string(), split);
        if let Some((uci, _)) = g.moves.last().map(|m| (m.clone(), ())) {
            let opponents = (g.moves.len() % 2 == 1) != g.player_white;
            if opponents {
                inner.seen.written_at.push((uci, unix_ms()));
            }
        }
    }
    if g.status != "started" {
        inner.game_conn = None;
    }
}

impl FakeLichess {
    /// Starts the fake on a port of 127.0.0.1.
    pub fn start() -> FakeLichess {
        let shared: Shared = Arc::new((Mutex::new(Inner::default()), Flags::default()));
        let app = Router::new()
            .route("/api/stream/event", get(event_stream))
            .route("/api/board/game/stream/{id}", get(game_stream))
            .route("/api/board/seek", post(seek))
            .route("/api/challenge/{user}", post(challenge))
            .route("/api/board/game/{id}/move/{uci}", post(board_move))
            .route("/api/board/game/{id}/draw/{answer}", post(draw))
            .route("/api/board/game/{id}/{what}", post(command))
            .with_state(Arc::clone(&shared));
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let runtime = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                axum::serve(listener, app).await.unwrap();
            });
        });
        FakeLichess {
            url,
            shared,
            _runtime: runtime,
        }
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.shared.0.lock().unwrap()
    }

    /// What the fake saw so far, read by `f`.
    pub fn seen<T>(&self, f: impl FnOnce(&Seen) -> T) -> T {
        f(&self.inner().seen)
    }

    /// The game as lichess holds it.
    pub fn game(&self) -> Option<Game> {
        self.inner().game.clone()
    }

    /// Waits until `done` holds for what the fake saw and holds (long enough for lichess's
    /// one-minute pause after a 429 on a loaded machine).
    pub fn wait(&self, what: &str, done: impl Fn(&Seen, Option<&Game>) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(150);
        loop {
            {
                let inner = self.inner();
                if done(&inner.seen, inner.game.as_ref()) {
                    return;
                }
            }
            assert!(
                Instant::now() < deadline,
                "the fake lichess never saw {what}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Lines are cut into pieces of a few bytes from now on (or not).
    pub fn split_lines(&self, on: bool) {
        self.shared.1.split.store(on, Ordering::SeqCst);
    }

    /// The game's stream sends nothing at all, keep-alives neither (or sends again).
    pub fn silent(&self, on: bool) {
        self.shared.1.silent.store(on, Ordering::SeqCst);
        let mut inner = self.inner();
        if !on
            && std::mem::take(&mut inner.owes_full)
            && let (Some(conn), Some(g)) = (&inner.game_conn, &inner.game)
        {
            send_line(conn, &full_json(g).to_string(), split(&self.shared));
        }
    }

    pub fn refuse_next_move(&self) {
        self.inner().refuse_next_move = true;
    }

    pub fn rate_limit_next_post(&self) {
        self.inner().rate_limit_next = true;
    }

    /// Whether a seek's connection is open (closing it cancels the seek).
    pub fn seek_held(&self) -> bool {
        self.inner()
            .seek
            .as_ref()
            .is_some_and(|conn| !conn.tx.is_closed())
    }

    /// Pairs the seek (or the challenge): a game `id` begins, the player with `white`; the
    /// seek's connection is closed and the event stream says `gameStart`.
    pub fn pair(&self, id: &str, white: bool) {
        let mut inner = self.inner();
        let g = Game {
            id: id.to_owned(),
            player_white: white,
            moves: Vec::new(),
            wtime: 900_000,
            btime: 900_000,
            status: "started".into(),
            winner: None,
            wdraw: false,
            bdraw: false,
            gone_until: None,
        };
        inner.seek = None;
        if let Some(conn) = &inner.events {
            send_line(conn, &game_start_json(&g).to_string(), split(&self.shared));
        }
        inner.game = Some(g);
    }

    /// A line on the event stream (a challenge declined, …).
    pub fn event(&self, line: serde_json::Value) {
        let inner = self.inner();
        if let Some(conn) = &inner.events {
            send_line(conn, &line.to_string(), split(&self.shared));
        }
    }

    /// The opponent plays `uci` with his clock at `left_ms`.
    pub fn opponent_moves(&self, uci: &str, left_ms: u64) {
        let mut inner = self.inner();
        let g = inner.game.as_mut().expect("a game");
        g.moves.push(uci.to_owned());
        if g.player_white {
            g.btime = left_ms;
        } else {
            g.wtime = left_ms;
        }
        push_state(&mut inner, split(&self.shared));
    }

    /// lichess aborts the game (the opponent did not make his first move in time).
    pub fn abort(&self) {
        let mut inner = self.inner();
        inner.game.as_mut().expect("a game").status = "aborted".into();
        push_state(&mut inner, split(&self.shared));
    }

    /// The opponent offers a draw.
    pub fn opponent_offers_draw(&self) {
        let mut inner = self.inner();
        let g = inner.game.as_mut().expect("a game");
        if g.player_white {
            g.bdraw = true;
        } else {
            g.wdraw = true;
        }
        push_state(&mut inner, split(&self.shared));
    }

    /// The opponent leaves (`gone`) with `claim_s` seconds until the win may be claimed, or
    /// comes back.
    pub fn opponent_gone(&self, gone: bool, claim_s: u64) {
        let mut inner = self.inner();
        let g = inner.game.as_mut().expect("a game");
        g.gone_until = gone.then(|| Instant::now() + Duration::from_secs(claim_s));
        let line = serde_json::json!({
            "type": "opponentGone", "gone": gone, "claimWinInSeconds": claim_s,
        });
        if let Some(conn) = &inner.game_conn {
            send_line(conn, &line.to_string(), split(&self.shared));
        }
    }

    /// lichess cannot be reached (`true`: its streams drop, every request fails) or can again.
    pub fn offline(&self, on: bool) {
        self.shared.1.offline.store(on, Ordering::SeqCst);
        if on {
            self.drop_game_stream();
            self.drop_event_stream();
        }
    }

    /// Drops the game's stream as a broken connection does.
    pub fn drop_game_stream(&self) {
        if let Some(conn) = self.inner().game_conn.take() {
            conn.tx.send(Chunk::Drop).ok();
        }
    }

    /// Drops the event stream.
    pub fn drop_event_stream(&self) {
        if let Some(conn) = self.inner().events.take() {
            conn.tx.send(Chunk::Drop).ok();
        }
    }
}
