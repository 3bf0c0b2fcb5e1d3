//! The table's web page: an axum server that serves the page embedded in the binary (`web/`),
//! runs a control session over each WebSocket, and hands out the audio record to a token
//! holder.
//!
//! A WebSocket is one more transport of the control protocol, one text message per line: the
//! session ([`crate::control::session`], driven by [`crate::control::session_driver`]) is the same as a
//! TCP connection's, with its authentication, roles, rate limit and connection cap, so the page
//! can do exactly what `nc` can and no more. Nothing goes through the control interface's TCP
//! port.
//!
//! The port is bounded ([`listener`]): connections in all and per address, the time to send
//! headers, silence and request time; a request is answered only when its `Host` names this
//! server, and a WebSocket only when its `Origin` is this server's page. Audio records stream
//! from disk, a few downloads at once.

mod listener;

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, Path as UrlPath, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio::io::AsyncReadExt;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};

use crate::chess::language::Language;
use crate::config::{ControlSettings, TrustedProxies};
use crate::control::session_driver::{ControlService, Incoming, NoSlot, ROOM_WAITERS, Transport};
use crate::io::lines::Line;
use crate::io::speech::BackendSpec;
use crate::table::control::{ErrorCode, MAX_LINE_BYTES, Refusal};
use crate::table::event::TableEvent;
use crate::table::name::TableName;

pub use listener::{
    HEADER_TIMEOUT, MAX_CONNECTIONS_PER_ADDRESS, MAX_HTTP_CONNECTIONS, REQUEST_TIMEOUT,
    STALL_TIMEOUT,
};
use listener::{Hosts, same_origin};

const INDEX_HTML: &str = include_str!("../../web/index.html");
const APP_JS: &str = include_str!("../../web/app.js");
/// The page's other scripts, loaded before `app.js` (`web/index.html`).
const WORDS_JS: &str = include_str!("../../web/words.js");
const CHESS_JS: &str = include_str!("../../web/chess.js");
const EVENTS_JS: &str = include_str!("../../web/events.js");
const RENDER_JS: &str = include_str!("../../web/render.js");
const STYLE_CSS: &str = include_str!("../../web/style.css");

/// Longest line the daemon may send the page: an export (a whole game as one JSON string) is
/// the longest; a Braille score of a long game stays well below this.
pub const MAX_REPLY_BYTES: usize = 1024 * 1024;
/// Largest WebSocket message the page may send and still be answered: a request line is at
/// most [`MAX_LINE_BYTES`], but a longer message (a paste into the move entry) gets the same
/// error line as a long line on TCP and the page stays connected; only a message beyond this
/// bound, which no person types, ends the connection.
const MAX_MESSAGE_BYTES: usize = 64 * 1024;
/// How long the page is given to take its close frame.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(2);
/// Open pages (WebSockets) from one client address by default (`web_pages_per_address` sets
/// it, [`WebSettings::pages_per_address`]): the control interface's share of one address at
/// its default cap (12 of the 24 slots not kept for the players), so one machine cannot take
/// every page's place, and is told so with a 503 before its page opens. Behind a reverse proxy
/// the client is the one a trusted proxy names (`web_trusted_proxies`); otherwise every page
/// through the proxy counts as the proxy's.
pub const MAX_PAGES_PER_ADDRESS: usize = crate::config::DEFAULT_PAGES_PER_ADDRESS;
/// Audio records downloading at once; one more is refused with a reason. Each holds one
/// open file and one [`AUDIO_CHUNK_BYTES`] buffer, whatever the record's size.
pub const MAX_DOWNLOADS: usize = 4;
/// How much of a record is read from disk at a time: the memory one download holds, besides
/// the connection's own buffers.
const AUDIO_CHUNK_BYTES: usize = 64 * 1024;

/// What the web server needs besides the control service.
#[derive(Debug, Clone)]
pub struct WebSettings {
    /// The tables' language: the page reads squares and pieces with its words.
    pub lang: &'static Language,
    /// Where the `wav:DIR` speech backends write each game's record (none: no audio export).
    pub wav_dirs: Vec<PathBuf>,
    /// Open WebSockets at once; one more is refused with a reason (503). Each also needs one of
    /// the control interface's slots: the daemon allows as many pages as those, and
    /// [`ROOM_WAITERS`] more waiting for room, so that pages which never authenticate cannot
    /// shut the page before the control slots make room.
    pub max_connections: usize,
    /// Further names the page is reached by (a reverse proxy's, a name in the local network),
    /// each `name` (at any port) or `name:port`: a request's `Host` must be one of these or the
    /// address the client connected to (`ip:port`, and `localhost:port` on a loopback address).
    /// Configured by `web_hosts = [...]`; none by default.
    pub allowed_hosts: Vec<String>,
    /// The reverse proxies whose `X-Forwarded-For` names the client (`web_trusted_proxies`):
    /// the limits per address then count that client, not the proxy. None by default.
    pub trusted_proxies: TrustedProxies,
    /// Open pages from one client address (`web_pages_per_address`); one more is refused with
    /// a reason (503) and the page tries again by itself. [`MAX_PAGES_PER_ADDRESS`] by default.
    pub pages_per_address: usize,
}

impl WebSettings {
    /// The settings for a daemon speaking `lang` through `speech`.
    pub fn new(lang: &'static Language, speech: &[BackendSpec]) -> WebSettings {
        WebSettings {
            lang,
            wav_dirs: speech
                .iter()
                .filter_map(|b| match b {
                    BackendSpec::Wav(dir) => Some(dir.clone()),
                    _ => None,
                })
                .collect(),
            max_connections: ControlSettings::default().max_connections + ROOM_WAITERS,
            allowed_hosts: Vec::new(),
            trusted_proxies: TrustedProxies::default(),
            pages_per_address: MAX_PAGES_PER_ADDRESS,
        }
    }
}

#[derive(Clone)]
struct Shared {
    control: ControlService,
    settings: Arc<WebSettings>,
    words: Arc<str>,
    slots: Arc<Semaphore>,
    /// Open pages by client address.
    pages: Arc<Mutex<HashMap<IpAddr, usize>>>,
    downloads: Arc<Semaphore>,
    shutdown: watch::Receiver<bool>,
}

/// Serves the page on `listener` until `shutdown` turns true; each WebSocket is a session of
/// `control`, the same service the TCP control interface runs (its tokens, tables, limits and
/// connection slots).
pub async fn run(
    listener: tokio::net::TcpListener,
    control: ControlService,
    settings: WebSettings,
    shutdown: watch::Receiver<bool>,
) -> std::io::Result<()> {
    let shared = Shared {
        control,
        words: Arc::from(words_json(settings.lang)),
        slots: Arc::new(Semaphore::new(settings.max_connections)),
        pages: Arc::default(),
        downloads: Arc::new(Semaphore::new(MAX_DOWNLOADS)),
        shutdown: shutdown.clone(),
        settings: Arc::new(settings),
    };
    let hosts = Hosts::new(&shared.settings.allowed_hosts);
    let proxies = shared.settings.trusted_proxies.clone();
    listener::serve(listener, router(shared), hosts, proxies, shutdown).await
}

fn router(shared: Shared) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { asset(INDEX_HTML, "text/html; charset=utf-8") }),
        )
        .route(
            "/index.html",
            get(|| async { asset(INDEX_HTML, "text/html; charset=utf-8") }),
        )
        .route(
            "/app.js",
            get(|| async { asset(APP_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/words.js",
            get(|| async { asset(WORDS_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/chess.js",
            get(|| async { asset(CHESS_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/events.js",
            get(|| async { asset(EVENTS_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/render.js",
            get(|| async { asset(RENDER_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/style.css",
            get(|| async { asset(STYLE_CSS, "text/css; charset=utf-8") }),
        )
        .route("/words.json", get(words))
        .route("/ws", get(upgrade))
        .route("/audio/{table}", get(audio))
        .fallback(|| async {
            refuse(
                StatusCode::NOT_FOUND,
                "no such page; the table's page is at /",
            )
        })
        .with_state(shared)
}

fn asset(body: &'static str, content_type: &'static str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    // The page runs only its own script: no inline code, nothing from elsewhere.
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; connect-src 'self'; img-src 'self' blob: data:; \
             media-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
        ),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    response
}

fn refuse(status: StatusCode, why: &str) -> Response {
    let mut response = (status, format!("{why}\n")).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

async fn words(State(shared): State<Shared>) -> Response {
    let mut response = shared.words.to_string().into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// The words the page needs to read the board aloud, in the tables' language, so that the page
/// says squares and pieces exactly as the speech does.
pub fn words_json(lang: &Language) -> String {
    use shakmaty::{Color, File, Piece, Rank, Role};
    let v = lang.vocabulary();
    let roles = [
        ("king", Role::King),
        ("queen", Role::Queen),
        ("rook", Role::Rook),
        ("bishop", Role::Bishop),
        ("knight", Role::Knight),
        ("pawn", Role::Pawn),
    ];
    let pieces = |color: Option<Color>| {
        let mut map = serde_json::Map::new();
        for (key, role) in roles {
            let word = match color {
                Some(color) => v.named_piece(Piece { color, role }),
                None => v.piece(role),
            };
            map.insert(key.to_owned(), word.into());
        }
        serde_json::Value::Object(map)
    };
    let letters: serde_json::Map<String, serde_json::Value> = roles
        .iter()
        .map(|(key, role)| ((*key).to_owned(), lang.letter(*role).to_string().into()))
        .collect();
    serde_json::json!({
        "code": lang.code(),
        "name": lang.name(),
        "languages": Language::builtin_codes(),
        "files": File::ALL.iter().map(|f| v.file(*f)).collect::<Vec<_>>(),
        "ranks": Rank::ALL.iter().map(|r| v.rank(*r)).collect::<Vec<_>>(),
        "white": v.color(Color::White),
        "black": v.color(Color::Black),
        "pieces": pieces(None),
        "white_pieces": pieces(Some(Color::White)),
        "black_pieces": pieces(Some(Color::Black)),
        "letters": letters,
        // Durations in the table's words ("{n} Minuten"), and the page's own labels.
        "time": {
            "hour_one": v.time().hour_one,
            "hours": v.time().hours,
            "minute_one": v.time().minute_one,
            "minutes": v.time().minutes,
            "second_one": v.time().second_one,
            "seconds": v.time().seconds,
        },
        "page": v.page.labels(),
    })
    .to_string()
}

async fn upgrade(
    State(shared): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    if !same_origin(&headers) {
        return refuse(
            StatusCode::FORBIDDEN,
            "the WebSocket must come from this server's own page (the Origin header names another site)",
        );
    }
    let client = client_address(&shared.settings.trusted_proxies, peer, &headers);
    let most = shared.settings.pages_per_address;
    let Some(address_page) = AddressPage::take(&shared.pages, client, most) else {
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            &format!(
                "too many open pages from your address (at most {most}); close one or try again later"
            ),
        );
    };
    let Ok(slot) = Arc::clone(&shared.slots).try_acquire_owned() else {
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            &format!(
                "too many open pages (at most {}); close one or try again later",
                shared.settings.max_connections
            ),
        );
    };
    ws.max_message_size(MAX_MESSAGE_BYTES)
        .max_frame_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| async move {
            let control = &shared.control;
            let mut transport = PageTransport {
                socket,
                write_timeout: control.settings().write_timeout,
            };
            let page = if client == peer.ip().to_canonical() {
                format!("web page {peer}")
            } else {
                format!("web page {client} through {peer}")
            };
            // A page is a control connection like any other: it needs one of their slots (its
            // client's share, the last kept for the players), and when all are taken, one
            // that has not authenticated makes room for it.
            let control_slot = match control.slot_for(client) {
                Ok(slot) => Ok(slot),
                Err(NoSlot::Full(refusal)) => match control.room_waiter(client) {
                    Some(place) => control.slot_once_room_is_made(client, place).await,
                    None => Err(NoSlot::Full(refusal)),
                },
                Err(refusal) => Err(refusal),
            };
            match control_slot {
                Ok(control_slot) => {
                    let reserved = control_slot.reserved;
                    control
                        .converse_in(
                            transport,
                            &page,
                            Some(client),
                            shared.shutdown.clone(),
                            reserved,
                        )
                        .await;
                    drop(control_slot);
                }
                Err(refusal) => {
                    tracing::warn!(peer = page, "web page refused: {}", refusal.line());
                    transport.send(refusal.line()).await;
                    transport.close().await;
                }
            }
            drop(slot);
            drop(address_page);
        })
}

/// The client a request comes from: the connection's address, or the client a trusted proxy
/// names in `X-Forwarded-For`.
fn client_address(proxies: &TrustedProxies, peer: SocketAddr, headers: &HeaderMap) -> IpAddr {
    if proxies.is_empty() {
        return peer.ip().to_canonical();
    }
    let forwarded: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    proxies.client(peer.ip(), &forwarded)
}

/// One open page of a client address, counted until it is dropped.
struct AddressPage {
    pages: Arc<Mutex<HashMap<IpAddr, usize>>>,
    address: IpAddr,
}

impl AddressPage {
    /// A place for one more page from `address`, unless it has `most`.
    fn take(
        pages: &Arc<Mutex<HashMap<IpAddr, usize>>>,
        address: IpAddr,
        most: usize,
    ) -> Option<AddressPage> {
        let mut open = pages.lock().ok()?;
        let count = open.entry(address).or_insert(0);
        if *count >= most {
            return None;
        }
        *count += 1;
        Some(AddressPage {
            pages: Arc::clone(pages),
            address,
        })
    }
}

impl Drop for AddressPage {
    fn drop(&mut self) {
        if let Ok(mut open) = self.pages.lock()
            && let Some(count) = open.get_mut(&self.address)
        {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.address);
            }
        }
    }
}

/// A WebSocket as a session's transport: each text message is one request line, each line the
/// session writes one text message.
struct PageTransport {
    socket: WebSocket,
    /// A page that does not take a message for this long is disconnected.
    write_timeout: Duration,
}

impl Transport for PageTransport {
    async fn next(&mut self) -> Incoming {
        loop {
            match self.socket.recv().await {
                Some(Ok(Message::Text(text))) => {
                    return match request_line(&text) {
                        Ok(line) => Incoming::Line(line),
                        Err(refusal) => Incoming::Refused(refusal),
                    };
                }
                Some(Ok(Message::Binary(_))) => {
                    return Incoming::Refused(Refusal::new(
                        ErrorCode::Syntax,
                        "binary messages are not requests; send one text line",
                    ));
                }
                // Answered by the WebSocket layer itself.
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return Incoming::Closed,
            }
        }
    }

    async fn send(&mut self, line: &str) -> bool {
        if line.len() > MAX_REPLY_BYTES {
            let why = format!(
                "error state the daemon sent a line of more than {MAX_REPLY_BYTES} bytes; the page stops here"
            );
            self.send_text(&why).await;
            return false;
        }
        self.send_text(line).await
    }

    /// The page reads an event's fields by name: one JSON object per event.
    async fn send_event(&mut self, event: &TableEvent) -> bool {
        self.send(&event_json(event).to_string()).await
    }

    async fn close(&mut self) {
        let _ = tokio::time::timeout(CLOSE_TIMEOUT, self.socket.send(Message::Close(None))).await;
    }
}

pub use crate::control::wire::event_json;

impl PageTransport {
    async fn send_text(&mut self, line: &str) -> bool {
        matches!(
            tokio::time::timeout(
                self.write_timeout,
                self.socket.send(Message::Text(line.into()))
            )
            .await,
            Ok(Ok(()))
        )
    }
}

/// One WebSocket message as one request line (a line feed and a carriage return at its end
/// are dropped), or why it is none. A line over [`MAX_LINE_BYTES`] is skipped as on TCP.
fn request_line(text: &Utf8Bytes) -> Result<Line, Refusal> {
    let text = text.as_str();
    let text = text.strip_suffix('\n').unwrap_or(text);
    let text = text.strip_suffix('\r').unwrap_or(text);
    if text.contains(['\n', '\r']) {
        return Err(Refusal::new(
            ErrorCode::Syntax,
            "one request per message; this one holds a line break",
        ));
    }
    if text.len() > MAX_LINE_BYTES {
        return Ok(Line::TooLong(text.len()));
    }
    Ok(Line::Text(text.as_bytes().to_vec()))
}

/// `GET /audio/TABLE` with `Authorization: Bearer TOKEN`: the table's current game as recorded
/// by a `wav:DIR` backend, if the token may see that table.
async fn audio(
    State(shared): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    UrlPath(table): UrlPath<String>,
    headers: HeaderMap,
) -> Response {
    let Some(token) = headers
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
    else {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "the audio record needs the header Authorization: Bearer TOKEN",
        );
    };
    if shared.settings.wav_dirs.is_empty() {
        return refuse(
            StatusCode::NOT_FOUND,
            "no audio record: the daemon runs no wav:DIR speech backend",
        );
    }
    // The one rule for a table's name (the configuration's); its records are found by the
    // name's file stem, never by the request's text.
    let table = match TableName::new(&table) {
        Ok(name) => name,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, &e.to_string()),
    };
    // The control sessions' own check: a wrong token and a table the token may not use are
    // refused with the line a session would give; a wrong token counts against the daemon's
    // budget of wrong tokens and is logged, as on the control port.
    let client = client_address(&shared.settings.trusted_proxies, peer, &headers);
    if let Err(refusal) = shared
        .control
        .authorize(token, &table, &format!("audio record {client}"))
    {
        return refuse(
            StatusCode::FORBIDDEN,
            &crate::control::wire::RefusalLine::line(&refusal),
        );
    }
    let Some(path) = newest_record(&shared.settings.wav_dirs, &table).await else {
        return refuse(
            StatusCode::NOT_FOUND,
            &format!("no audio record of table {table} yet"),
        );
    };
    let Ok(download) = Arc::clone(&shared.downloads).try_acquire_owned() else {
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            &format!(
                "too many audio downloads at once (at most {MAX_DOWNLOADS}); try again when one has finished"
            ),
        );
    };
    let opened = match tokio::fs::File::open(&path).await {
        Ok(file) => file.metadata().await.map(|m| (file, m.len())),
        Err(e) => Err(e),
    };
    let (file, len) = match opened {
        Ok(opened) => opened,
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "audio record not read");
            return refuse(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the audio record could not be read; the daemon's log says why",
            );
        }
    };
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("record.wav")
        .to_owned();
    let mut response = Response::new(stream_record(file, len, download));
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("audio/wav"));
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    response
}

/// The first `len` bytes of `file` (a record still being written grows past the length its
/// response announced), read a chunk at a time as the client takes them; the download's slot
/// is given back when the body ends or the client goes.
fn stream_record(file: tokio::fs::File, len: u64, download: OwnedSemaphorePermit) -> Body {
    let state = (Some(file.take(len)), download);
    Body::from_stream(futures_util::stream::unfold(
        state,
        |(file, download)| async move {
            let mut file = file?;
            let mut chunk = vec![0u8; AUDIO_CHUNK_BYTES];
            match file.read(&mut chunk).await {
                Ok(0) => None,
                Ok(n) => {
                    chunk.truncate(n);
                    Some((Ok(axum::body::Bytes::from(chunk)), (Some(file), download)))
                }
                // The error ends the body (the client sees a cut download), and the stream.
                Err(e) => {
                    tracing::warn!(error = %e, "audio record: reading failed mid-download");
                    Some((Err(e), (None, download)))
                }
            }
        },
    ))
}

/// The newest `<table>-<game>.wav` in the WAV directories: the file name is built from a
/// directory listing, never from the request, so no path leaves the directories.
async fn newest_record(dirs: &[PathBuf], table: &TableName) -> Option<PathBuf> {
    let prefix = format!("{}-", table.file_stem());
    let mut best: Option<(u64, PathBuf)> = None;
    for dir in dirs {
        let Ok(mut entries) = tokio::fs::read_dir(dir).await else {
            continue;
        };
        while let Ok(Some(entry)) = entries.next_entry().await {
            let name = entry.file_name();
            let Some(game) = name
                .to_str()
                .and_then(|n| n.strip_prefix(&prefix))
                .and_then(|n| n.strip_suffix(".wav"))
                .and_then(|n| n.parse::<u64>().ok())
            else {
                continue;
            };
            let is_file = entry.file_type().await.is_ok_and(|t| t.is_file());
            if is_file && best.as_ref().is_none_or(|(g, _)| game > *g) {
                best = Some((game, entry.path()));
            }
        }
    }
    best.map(|(_, p)| p).filter(|p| is_inside(p, dirs))
}

fn is_inside(path: &Path, dirs: &[PathBuf]) -> bool {
    dirs.iter().any(|d| path.parent() == Some(d.as_path()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::wire::RefusalLine;

    #[test]
    fn one_message_is_one_request() {
        let text = |s: &str| Ok(Line::Text(s.as_bytes().to_vec()));
        assert_eq!(request_line(&"move e4".into()), text("move e4"));
        assert_eq!(request_line(&"move e4\r\n".into()), text("move e4"));
        assert_eq!(
            request_line(&"move e4\nresign".into()).unwrap_err().line(),
            "error syntax one request per message; this one holds a line break"
        );
        assert_eq!(
            request_line(&"x".repeat(600).as_str().into()),
            Ok(Line::TooLong(600))
        );
        assert_eq!(
            request_line(&"x".repeat(512).as_str().into()),
            text(&"x".repeat(512))
        );
    }

    #[test]
    fn every_builtin_language_serves_every_page_label() {
        use crate::chess::page_words::PAGE_KEYS;
        for code in Language::builtin_codes() {
            let lang = Language::builtin(code).unwrap();
            let words: serde_json::Value = serde_json::from_str(&words_json(lang)).unwrap();
            for (key, _) in PAGE_KEYS {
                assert!(words["page"][key].is_string(), "{code}: {key}");
            }
            assert_eq!(
                words["page"].as_object().unwrap().len(),
                PAGE_KEYS.len(),
                "{code}"
            );
            // The page fills {n}, {n_m} or {n_f} with the count (words.js, durationWords).
            let minutes = words["time"]["minutes"].as_str().unwrap();
            assert!(
                ["{n}", "{n_m}", "{n_f}"]
                    .iter()
                    .any(|n| minutes.contains(n)),
                "{code}: {minutes}"
            );
        }
        // A language file whose labels are wrong is refused when it is read, naming the key.
        let de = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/config/voices/de.toml"
        ))
        .unwrap();
        let wrong = de.replace("tag = \"Kopfzeile setzen\"", "tag = \"{name} setzen\"");
        let err = Language::from_toml(&wrong).err().unwrap().to_string();
        assert!(
            err.contains("words.page.tag: unknown placeholder {name}"),
            "{err}"
        );
        let without: String = de.split("\n[words.page]").next().unwrap().to_owned();
        assert!(
            Language::from_toml(&without)
                .unwrap()
                .vocabulary()
                .page
                .labels()
                .is_empty()
        );
    }

    #[test]
    fn the_pages_of_one_address_stop_at_the_configured_limit() {
        let pages = Arc::new(Mutex::new(HashMap::new()));
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let open: Vec<_> = (0..3)
            .map(|_| AddressPage::take(&pages, a, 3).unwrap())
            .collect();
        assert!(AddressPage::take(&pages, a, 3).is_none());
        assert!(AddressPage::take(&pages, b, 3).is_some());
        drop(open);
        assert!(AddressPage::take(&pages, a, 3).is_some());
    }

    #[tokio::test]
    async fn the_audio_record_is_the_tables_newest_game() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "table-1-2.wav",
            "table-1-12.wav",
            "table-10-40.wav",
            "table-1-x.wav",
            "table-1-99.txt",
        ] {
            std::fs::write(dir.path().join(name), b"RIFF").unwrap();
        }
        std::fs::create_dir(dir.path().join("table-1-100.wav")).unwrap();
        let dirs = [dir.path().to_path_buf()];
        assert_eq!(
            newest_record(&dirs, &"table-1".parse().unwrap()).await,
            Some(dir.path().join("table-1-12.wav"))
        );
        assert_eq!(
            newest_record(&dirs, &"table-2".parse().unwrap()).await,
            None
        );
        assert_eq!(
            newest_record(&[dir.path().join("gone")], &"table-1".parse().unwrap()).await,
            None
        );
    }

    #[test]
    fn the_words_are_the_speech_words() {
        let json: serde_json::Value =
            serde_json::from_str(&words_json(Language::german())).unwrap();
        assert_eq!(json["files"][5], "Felix");
        assert_eq!(json["ranks"][2], "drei");
        assert_eq!(json["pieces"]["knight"], "Springer");
        assert_eq!(json["code"], "de");
        assert_eq!(json["white_pieces"]["knight"], "weißer Springer");
        let english: serde_json::Value =
            serde_json::from_str(&words_json(Language::english())).unwrap();
        assert_eq!(english["black_pieces"]["queen"], "black queen");
    }
}
