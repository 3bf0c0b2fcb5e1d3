//! An XFCC server for tests, in-process (axum on 127.0.0.1), written from ICCF's operation
//! pages (SOAP 1.1, `POST`, `SOAPAction: "http://www.bennedik.com/webservices/XfccBasic/<Op>"`,
//! credentials in the body): `GetMyGames` lists the account's games, `MakeAMove` plays his
//! move after checking the user, the game, the turn, the move number (the full-move number of
//! the move sent) and the move itself, and answers every result code it may. Every call that
//! reaches it is counted; it can be made unreachable (503 to every call), swallow answers (the
//! move played, the answer lost), or answer a code of the test's choosing once.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use annabella::correspondence::xfcc::{MoveCall, parse_call, parse_move_call};
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color, Position};

/// One game on the fake server, as the account's owner sees it.
#[derive(Debug, Clone)]
pub struct FakeGame {
    pub id: i64,
    pub white: String,
    pub black: String,
    pub event: String,
    /// The account plays White.
    pub has_white: bool,
    pub moves: Vec<String>,
    pub draw_offered: bool,
    pub result: String,
    pub message: String,
}

impl FakeGame {
    pub fn new(id: i64, has_white: bool, white: &str, black: &str) -> FakeGame {
        FakeGame {
            id,
            white: white.to_owned(),
            black: black.to_owned(),
            event: "WS/M/1234".to_owned(),
            has_white,
            moves: Vec::new(),
            draw_offered: false,
            result: "Ongoing".to_owned(),
            message: String::new(),
        }
    }

    fn position(&self) -> Option<Chess> {
        let mut pos = Chess::default();
        for m in &self.moves {
            let mv = SanPlus::from_ascii(m.as_bytes())
                .ok()?
                .san
                .to_move(&pos)
                .ok()?;
            pos.play_unchecked(mv);
        }
        Some(pos)
    }

    fn my_turn(&self) -> bool {
        let white_to_move = self.moves.len().is_multiple_of(2);
        self.result == "Ongoing" && white_to_move == self.has_white
    }
}

/// Every call the server saw.
#[derive(Debug, Default, Clone)]
pub struct Seen {
    pub get_my_games: usize,
    /// Each `MakeAMove` that reached the server (also when it was unreachable on purpose or
    /// refused), with the code answered (`503` when none was).
    pub make_a_move: Vec<(MoveCall, String)>,
}

#[derive(Default)]
struct State {
    user: String,
    password: String,
    games: Vec<FakeGame>,
    seen: Seen,
    /// Every call answered 503, nothing done.
    down: bool,
    /// The next MakeAMove is played but its answer lost (503).
    swallow_next: bool,
    /// The next MakeAMove is answered with this code, nothing done.
    force_next: Option<String>,
}

/// Whether the position after `moves` gives grounds for a draw claim: it has occurred three
/// times, or fifty moves of each side passed without a capture or a pawn move (FIDE 9.2, 9.3).
fn claim_grounds(moves: &[String]) -> bool {
    use shakmaty::EnPassantMode;
    use shakmaty::zobrist::Zobrist64;
    let mut pos = Chess::default();
    let mut seen = vec![pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal)];
    for m in moves {
        let Some(mv) = SanPlus::from_ascii(m.as_bytes())
            .ok()
            .and_then(|s| s.san.to_move(&pos).ok())
        else {
            return false;
        };
        pos.play_unchecked(mv);
        seen.push(pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal));
    }
    let now = seen[seen.len() - 1];
    seen.iter().filter(|h| **h == now).count() >= 3 || pos.halfmoves() >= 100
}

/// The running fake server; stopped when dropped.
pub struct FakeXfcc {
    pub addr: SocketAddr,
    state: Arc<Mutex<State>>,
    _runtime: tokio::runtime::Runtime,
}

const ENVELOPE_HEAD: &str = "<?xml version=\"1.0\" encoding=\"utf-8\"?><soap:Envelope xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body>";
const ENVELOPE_TAIL: &str = "</soap:Body></soap:Envelope>";
const NS: &str = "http://www.bennedik.com/webservices/XfccBasic";

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn games_answer(games: &[FakeGame]) -> String {
    let mut body = format!("<GetMyGamesResponse xmlns=\"{NS}\"><GetMyGamesResult>");
    for g in games {
        let movetext: String = g
            .moves
            .iter()
            .enumerate()
            .map(|(i, m)| {
                if i.is_multiple_of(2) {
                    format!("{}.{m} ", i / 2 + 1)
                } else {
                    format!("{m} ")
                }
            })
            .collect();
        body.push_str(&format!(
            "<XfccGame><id>{}</id><white>{}</white><black>{}</black><event>{}</event><site>ICCF</site>\
             <myTurn>{}</myTurn><hasWhite>{}</hasWhite><daysPlayer>30</daysPlayer><hoursPlayer>5</hoursPlayer>\
             <minutesPlayer>0</minutesPlayer><daysOpponent>41</daysOpponent><hoursOpponent>0</hoursOpponent>\
             <minutesOpponent>0</minutesOpponent><moves>{}</moves><drawOffered>{}</drawOffered>\
             <result>{}</result><message>{}</message></XfccGame>",
            g.id,
            esc(&g.white),
            esc(&g.black),
            esc(&g.event),
            g.my_turn(),
            g.has_white,
            movetext.trim_end(),
            g.draw_offered,
            g.result,
            esc(&g.message)
        ));
    }
    body.push_str("</GetMyGamesResult></GetMyGamesResponse>");
    format!("{ENVELOPE_HEAD}{body}{ENVELOPE_TAIL}")
}

fn move_answer(code: &str) -> String {
    format!(
        "{ENVELOPE_HEAD}<MakeAMoveResponse xmlns=\"{NS}\"><MakeAMoveResult>{code}</MakeAMoveResult></MakeAMoveResponse>{ENVELOPE_TAIL}"
    )
}

fn fault(text: &str) -> String {
    format!(
        "{ENVELOPE_HEAD}<soap:Fault><faultcode>soap:Client</faultcode><faultstring>{}</faultstring></soap:Fault>{ENVELOPE_TAIL}",
        esc(text)
    )
}

/// What `MakeAMove` does to the games: the code it answers.
fn make_a_move(state: &mut State, user: &str, password: &str, call: &MoveCall) -> String {
    if user != state.user || password != state.password {
        return "AuthenticationFailed".to_owned();
    }
    let Some(game) = state.games.iter_mut().find(|g| g.id == call.game_id) else {
        return "InvalidGameID".to_owned();
    };
    if call.resign {
        game.result = if game.has_white {
            "BlackWins"
        } else {
            "WhiteWins"
        }
        .to_owned();
        return "Success".to_owned();
    }
    if call.accept_draw && call.my_move.is_empty() {
        if !game.draw_offered {
            return "NoDrawWasOffered".to_owned();
        }
        game.result = "Draw".to_owned();
        return "Success".to_owned();
    }
    if !game.my_turn() {
        return "NotYourTurn".to_owned();
    }
    let expected = u32::try_from(game.moves.len() / 2 + 1).unwrap();
    if call.movecount != expected {
        return "InvalidMoveNumber".to_owned();
    }
    let Some(pos) = game.position() else {
        return "ServerError".to_owned();
    };
    // A claim is judged as an arbiter would: on the position after his move, if he sent one
    // (which is played either way, FIDE 9.5), else as it stands; grounds: a draw.
    if !(call.claim_draw && call.my_move.is_empty()) {
        let legal = SanPlus::from_ascii(call.my_move.as_bytes())
            .ok()
            .and_then(|s| s.san.to_move(&pos).ok());
        if legal.is_none() {
            return "InvalidMove".to_owned();
        }
        game.moves.push(call.my_move.clone());
    }
    if call.claim_draw && claim_grounds(&game.moves) {
        game.result = "Draw".to_owned();
    }
    game.draw_offered = false;
    "Success".to_owned()
}

async fn soap(
    axum::extract::State(state): axum::extract::State<Arc<Mutex<State>>>,
    headers: axum::http::HeaderMap,
    body: String,
) -> (axum::http::StatusCode, String) {
    use axum::http::StatusCode;
    let action = headers
        .get("SOAPAction")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let content_type_ok = headers
        .get("Content-Type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/xml"));
    let mut state = state.lock().unwrap();
    if action == format!("\"{NS}/GetMyGames\"") {
        state.seen.get_my_games += 1;
        if state.down {
            return (StatusCode::SERVICE_UNAVAILABLE, String::new());
        }
        let ok = parse_call(&body).ok().is_some_and(|c| {
            c.child("username").map(|n| n.text.as_str()) == Some(state.user.as_str())
                && c.child("password").map(|n| n.text.as_str()) == Some(state.password.as_str())
        });
        if !ok || !content_type_ok {
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                fault("AuthenticationFailed"),
            );
        }
        return (StatusCode::OK, games_answer(&state.games));
    }
    if action == format!("\"{NS}/MakeAMove\"") {
        let Ok((user, password, call)) = parse_move_call(&body) else {
            return (StatusCode::INTERNAL_SERVER_ERROR, fault("bad request"));
        };
        if state.down {
            state.seen.make_a_move.push((call, "503".to_owned()));
            return (StatusCode::SERVICE_UNAVAILABLE, String::new());
        }
        if let Some(code) = state.force_next.take() {
            state.seen.make_a_move.push((call, code.clone()));
            return (StatusCode::OK, move_answer(&code));
        }
        let code = make_a_move(&mut state, &user, &password, &call);
        if std::mem::take(&mut state.swallow_next) {
            state
                .seen
                .make_a_move
                .push((call, format!("{code} (answer lost)")));
            return (StatusCode::SERVICE_UNAVAILABLE, String::new());
        }
        state.seen.make_a_move.push((call, code.clone()));
        return (StatusCode::OK, move_answer(&code));
    }
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        fault(&format!("unknown SOAPAction {action}")),
    )
}

impl FakeXfcc {
    /// Starts the server for `user` with `password` and these games.
    pub fn start(user: &str, password: &str, games: Vec<FakeGame>) -> FakeXfcc {
        let state = Arc::new(Mutex::new(State {
            user: user.to_owned(),
            password: password.to_owned(),
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
            .route("/XfccBasic.asmx", axum::routing::post(soap))
            .with_state(Arc::clone(&state));
        runtime.spawn(async move {
            axum::serve(listener, app).await.ok();
        });
        FakeXfcc {
            addr,
            state,
            _runtime: runtime,
        }
    }

    /// The service's address for `[xfcc] url`.
    pub fn url(&self) -> String {
        format!("http://{}/XfccBasic.asmx", self.addr)
    }

    /// The opponent plays `san` in game `id` (checked legal and his turn).
    pub fn opponent_moves(&self, id: i64, san: &str) {
        let mut state = self.state.lock().unwrap();
        let game = state.games.iter_mut().find(|g| g.id == id).unwrap();
        assert!(!game.my_turn(), "not the opponent's turn in {id}");
        let pos = game.position().unwrap();
        let ok = SanPlus::from_ascii(san.as_bytes())
            .ok()
            .and_then(|s| s.san.to_move(&pos).ok());
        assert!(ok.is_some(), "{san} is not legal in {id}");
        game.moves.push(san.to_owned());
    }

    /// Game `id` leaves the account's list (finished and archived on the server).
    pub fn remove_game(&self, id: i64) {
        self.state.lock().unwrap().games.retain(|g| g.id != id);
    }

    /// A new game for the account (a tournament began).
    pub fn add_game(&self, game: FakeGame) {
        self.state.lock().unwrap().games.push(game);
    }

    /// Changes game `id` (a draw offer, a message, a result).
    pub fn edit(&self, id: i64, f: impl FnOnce(&mut FakeGame)) {
        let mut state = self.state.lock().unwrap();
        f(state.games.iter_mut().find(|g| g.id == id).unwrap());
    }

    /// Game `id`'s moves as the server has them.
    pub fn moves(&self, id: i64) -> Vec<String> {
        let state = self.state.lock().unwrap();
        state
            .games
            .iter()
            .find(|g| g.id == id)
            .unwrap()
            .moves
            .clone()
    }

    /// Every call answered 503 (`true`) or served again.
    pub fn set_down(&self, down: bool) {
        self.state.lock().unwrap().down = down;
    }

    /// The next move is played but its answer lost.
    pub fn swallow_next_answer(&self) {
        self.state.lock().unwrap().swallow_next = true;
    }

    /// The next MakeAMove is answered `code` and changes nothing.
    pub fn force_next(&self, code: &str) {
        self.state.lock().unwrap().force_next = Some(code.to_owned());
    }

    /// The MakeAMove calls so far: (game, movecount, move, code).
    pub fn submissions(&self) -> Vec<(i64, u32, String, String)> {
        let state = self.state.lock().unwrap();
        state
            .seen
            .make_a_move
            .iter()
            .map(|(c, code)| (c.game_id, c.movecount, c.my_move.clone(), code.clone()))
            .collect()
    }

    /// The MakeAMove calls so far as sent, with the code answered.
    pub fn calls(&self) -> Vec<(MoveCall, String)> {
        self.state.lock().unwrap().seen.make_a_move.clone()
    }

    /// How many GetMyGames calls reached the server.
    pub fn polls(&self) -> usize {
        self.state.lock().unwrap().seen.get_my_games
    }

    /// Which side is to move in game `id`.
    pub fn turn(&self, id: i64) -> Color {
        let state = self.state.lock().unwrap();
        let g = state.games.iter().find(|g| g.id == id).unwrap();
        g.position().unwrap().turn()
    }
}
