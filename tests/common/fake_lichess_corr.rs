//! A small lichess for correspondence games, in-process (axum on 127.0.0.1), from lichess's
//! OpenAPI document: `GET /api/account/playing` (`nowPlaying` with `gameId`, `color`,
//! `isMyTurn`, `secondsLeft`, `speed`), `GET /api/board/game/stream/{id}` (a keep-alive line,
//! then `gameFull` with `state.moves` in UCI split across two chunks), and the Board
//! API's `POST …/move/{uci}`, `…/draw/{yes|no}`, `…/resign` — each refused (400) for the wrong
//! turn or an illegal move, each counted. A bearer token is required; it can be made
//! unreachable (503 to everything).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::extract::{Path, State as AxState};
use axum::http::{HeaderMap, StatusCode};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Position};

/// One correspondence game of the account.
#[derive(Debug, Clone)]
pub struct CorrGame {
    pub id: String,
    /// The account's side.
    pub color: Color,
    pub opponent: String,
    /// UCI moves.
    pub moves: Vec<String>,
    /// "started", "resign", "draw", …
    pub status: String,
    pub winner: Option<Color>,
    pub opponent_offers_draw: bool,
}

impl CorrGame {
    pub fn new(id: &str, color: Color, opponent: &str) -> CorrGame {
        CorrGame {
            id: id.to_owned(),
            color,
            opponent: opponent.to_owned(),
            moves: Vec::new(),
            status: "started".to_owned(),
            winner: None,
            opponent_offers_draw: false,
        }
    }

    fn position(&self) -> Chess {
        let mut pos = Chess::default();
        for m in &self.moves {
            let mv = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(mv);
        }
        pos
    }

    fn my_turn(&self) -> bool {
        self.status == "started" && self.position().turn() == self.color
    }
}

#[derive(Default)]
struct State {
    token: String,
    games: Vec<CorrGame>,
    down: bool,
    /// Every submission: (path, status answered).
    submissions: Vec<(String, u16)>,
    playing_calls: usize,
}

/// The running fake; stopped when dropped.
pub struct FakeLichessCorr {
    pub addr: SocketAddr,
    state: Arc<Mutex<State>>,
    _runtime: tokio::runtime::Runtime,
}

type Shared = Arc<Mutex<State>>;

fn authorized(state: &State, headers: &HeaderMap) -> bool {
    headers
        .get("Authorization")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == format!("Bearer {}", state.token))
}

async fn playing(AxState(state): AxState<Shared>, headers: HeaderMap) -> (StatusCode, String) {
    let mut s = state.lock().unwrap();
    s.playing_calls += 1;
    if s.down {
        return (StatusCode::SERVICE_UNAVAILABLE, String::new());
    }
    if !authorized(&s, &headers) {
        return (
            StatusCode::UNAUTHORIZED,
            "{\"error\":\"No such token\"}".to_owned(),
        );
    }
    let games: Vec<String> = s
        .games
        .iter()
        .filter(|g| g.status == "started")
        .map(|g| {
            format!(
                "{{\"gameId\":\"{}\",\"fullId\":\"{}wxyz\",\"color\":\"{}\",\"fen\":\"{}\",\"isMyTurn\":{},\"secondsLeft\":1209600,\"speed\":\"correspondence\",\"perf\":\"correspondence\",\"opponent\":{{\"id\":\"{}\",\"username\":\"{}\",\"rating\":1500}}}}",
                g.id,
                g.id,
                if g.color == Color::White { "white" } else { "black" },
                shakmaty::fen::Fen::from_position(&g.position(), shakmaty::EnPassantMode::Legal),
                g.my_turn(),
                g.opponent.to_lowercase(),
                g.opponent
            )
        })
        .collect();
    (
        StatusCode::OK,
        format!("{{\"nowPlaying\":[{}]}}", games.join(",")),
    )
}

/// The game's stream: a keep-alive line, then `gameFull` split across two chunks, then the
/// end (lichess would go on; the desk reads the first line and closes).
async fn stream(
    state: AxState<Shared>,
    id: Path<String>,
    headers: HeaderMap,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let (status, line) = first_line(state, id, headers);
    if status != StatusCode::OK {
        return (status, line).into_response();
    }
    let cut = line.len() / 2;
    let chunks: Vec<Result<axum::body::Bytes, std::io::Error>> = vec![
        Ok(axum::body::Bytes::from_static(b"\n")),
        Ok(axum::body::Bytes::from(line[..cut].to_owned())),
        Ok(axum::body::Bytes::from(line[cut..].to_owned())),
    ];
    let body = axum::body::Body::from_stream(futures_util::stream::iter(chunks));
    (StatusCode::OK, body).into_response()
}

fn first_line(
    AxState(state): AxState<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> (StatusCode, String) {
    let s = state.lock().unwrap();
    if s.down {
        return (StatusCode::SERVICE_UNAVAILABLE, String::new());
    }
    if !authorized(&s, &headers) {
        return (StatusCode::UNAUTHORIZED, String::new());
    }
    let Some(g) = s.games.iter().find(|g| g.id == id) else {
        return (
            StatusCode::NOT_FOUND,
            "{\"error\":\"Not found\"}".to_owned(),
        );
    };
    let (white, black) = match g.color {
        Color::White => ("Anna".to_owned(), g.opponent.clone()),
        Color::Black => (g.opponent.clone(), "Anna".to_owned()),
    };
    let winner = match g.winner {
        Some(Color::White) => ",\"winner\":\"white\"",
        Some(Color::Black) => ",\"winner\":\"black\"",
        None => "",
    };
    let (wdraw, bdraw) = match g.color {
        Color::White => (false, g.opponent_offers_draw),
        Color::Black => (g.opponent_offers_draw, false),
    };
    let line = format!(
        "{{\"type\":\"gameFull\",\"id\":\"{}\",\"speed\":\"correspondence\",\"white\":{{\"id\":\"{}\",\"name\":\"{white}\"}},\"black\":{{\"id\":\"{}\",\"name\":\"{black}\"}},\"initialFen\":\"startpos\",\"state\":{{\"type\":\"gameState\",\"moves\":\"{}\",\"wtime\":1209600000,\"btime\":1209600000,\"winc\":0,\"binc\":0,\"status\":\"{}\"{winner},\"wdraw\":{wdraw},\"bdraw\":{bdraw}}}}}\n",
        g.id,
        white.to_lowercase(),
        black.to_lowercase(),
        g.moves.join(" "),
        g.status,
    );
    (StatusCode::OK, line)
}

fn refuse(s: &mut State, path: String, why: &str) -> (StatusCode, String) {
    s.submissions.push((path, 400));
    (StatusCode::BAD_REQUEST, format!("{{\"error\":\"{why}\"}}"))
}

async fn submit(
    AxState(state): AxState<Shared>,
    Path((id, action, arg)): Path<(String, String, String)>,
    headers: HeaderMap,
) -> (StatusCode, String) {
    let mut s = state.lock().unwrap();
    let path = format!("{id}/{action}/{arg}");
    if s.down {
        s.submissions.push((path, 503));
        return (StatusCode::SERVICE_UNAVAILABLE, String::new());
    }
    if !authorized(&s, &headers) {
        return (StatusCode::UNAUTHORIZED, String::new());
    }
    let Some(i) = s.games.iter().position(|g| g.id == id) else {
        return refuse(&mut s, path, "Not found");
    };
    let g = s.games[i].clone();
    match action.as_str() {
        "move" => {
            if !g.my_turn() {
                return refuse(&mut s, path, "Not your turn, or game already over");
            }
            let legal = arg
                .parse::<UciMove>()
                .ok()
                .and_then(|u| u.to_move(&g.position()).ok());
            if legal.is_none() {
                return refuse(&mut s, path, "Illegal move");
            }
            s.games[i].moves.push(arg);
            s.games[i].opponent_offers_draw = false;
        }
        "draw" if arg == "yes" && g.opponent_offers_draw => {
            s.games[i].status = "draw".to_owned();
        }
        "resign" => {
            s.games[i].status = "resign".to_owned();
            s.games[i].winner = Some(!g.color);
        }
        _ => return refuse(&mut s, path, "Invalid request"),
    }
    s.submissions.push((path, 200));
    (StatusCode::OK, "{\"ok\":true}".to_owned())
}

async fn resign(
    state: AxState<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> (StatusCode, String) {
    submit(
        state,
        Path((id, "resign".to_owned(), String::new())),
        headers,
    )
    .await
}

impl FakeLichessCorr {
    pub fn start(token: &str, games: Vec<CorrGame>) -> FakeLichessCorr {
        let state = Arc::new(Mutex::new(State {
            token: token.to_owned(),
            games,
            ..State::default()
        }));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let app = axum::Router::new()
            .route("/api/account/playing", axum::routing::get(playing))
            .route("/api/board/game/stream/{id}", axum::routing::get(stream))
            .route("/api/board/game/{id}/resign", axum::routing::post(resign))
            .route(
                "/api/board/game/{id}/{action}/{arg}",
                axum::routing::post(submit),
            )
            .with_state(Arc::clone(&state));
        runtime.spawn(async move {
            axum::serve(listener, app).await.ok();
        });
        FakeLichessCorr {
            addr,
            state,
            _runtime: runtime,
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The opponent plays `uci` in game `id`.
    pub fn opponent_moves(&self, id: &str, uci: &str) {
        let mut s = self.state.lock().unwrap();
        let g = s.games.iter_mut().find(|g| g.id == id).unwrap();
        assert!(!g.my_turn(), "not the opponent's turn");
        let ok = uci
            .parse::<UciMove>()
            .ok()
            .and_then(|u| u.to_move(&g.position()).ok());
        assert!(ok.is_some(), "{uci} is not legal");
        g.moves.push(uci.to_owned());
    }

    /// The opponent resigns game `id`: it leaves the playing list.
    pub fn opponent_resigns(&self, id: &str) {
        let mut s = self.state.lock().unwrap();
        let g = s.games.iter_mut().find(|g| g.id == id).unwrap();
        g.status = "resign".to_owned();
        g.winner = Some(g.color);
    }

    pub fn moves(&self, id: &str) -> Vec<String> {
        let s = self.state.lock().unwrap();
        s.games.iter().find(|g| g.id == id).unwrap().moves.clone()
    }

    pub fn status(&self, id: &str) -> String {
        let s = self.state.lock().unwrap();
        s.games.iter().find(|g| g.id == id).unwrap().status.clone()
    }

    pub fn set_down(&self, down: bool) {
        self.state.lock().unwrap().down = down;
    }

    /// Every submission: (`{id}/{action}/{arg}`, status).
    pub fn submissions(&self) -> Vec<(String, u16)> {
        self.state.lock().unwrap().submissions.clone()
    }

    pub fn polls(&self) -> usize {
        self.state.lock().unwrap().playing_calls
    }
}
