//! The table's web page: an axum server that serves the page embedded in the binary (`web/`),
//! bridges each WebSocket to a connection of the daemon's own control interface, and hands out
//! the audio record to a token holder.
//!
//! The bridge forwards text lines both ways and decides nothing: authentication, roles and rate
//! limits stay in the control server, so the page can do exactly what `nc` can and no more.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::{Semaphore, mpsc, watch};

use crate::chess::language::Language;
use crate::io::speech::BackendSpec;
use crate::io::speech::wav::file_stem;
use crate::table::control::MAX_LINE_BYTES;

const INDEX_HTML: &str = include_str!("../../web/index.html");
const APP_JS: &str = include_str!("../../web/app.js");
const STYLE_CSS: &str = include_str!("../../web/style.css");

/// Longest line the daemon may send the page: an export (a whole game as one JSON string) is
/// the longest; a Braille score of a long game stays well below this.
pub const MAX_REPLY_BYTES: usize = 1024 * 1024;
/// Largest WebSocket message the page may send: one request line, with room for the framing of
/// multi-byte characters.
const MAX_MESSAGE_BYTES: usize = 4 * MAX_LINE_BYTES;
/// How long the page may leave a line unread before the bridge gives up on it.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the audio route waits for the control interface to judge a token.
const AUTH_TIMEOUT: Duration = Duration::from_secs(5);
/// Largest audio record served: a long game's speech is tens of megabytes.
const MAX_AUDIO_BYTES: u64 = 512 * 1024 * 1024;

/// Spoken events the speech gives urgently; the page's live region interrupts for them too
/// (an `event say` line does not carry the urgency).
const URGENT_EVENTS: &[&str] = &[
    "illegal_move",
    "board_mismatch",
    "board_disconnected",
    "white_lost_on_time",
    "black_lost_on_time",
    "white_flag_draw",
    "black_flag_draw",
    "move_withdrawn",
];

/// What the web server needs besides the control interface's address.
#[derive(Debug, Clone)]
pub struct WebSettings {
    /// The tables' language: the page reads squares and pieces with its words.
    pub lang: &'static Language,
    /// Where the `wav:DIR` speech backends write each game's record (none: no audio export).
    pub wav_dirs: Vec<PathBuf>,
    /// Open WebSockets at once; one more is refused with a reason.
    pub max_connections: usize,
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
            max_connections: 32,
        }
    }
}

#[derive(Clone)]
struct Shared {
    control: SocketAddr,
    settings: Arc<WebSettings>,
    words: Arc<str>,
    slots: Arc<Semaphore>,
    shutdown: watch::Receiver<bool>,
}

/// Serves the page on `listener` until `shutdown` turns true; each WebSocket talks to the
/// control interface at `control`.
pub async fn run(
    listener: tokio::net::TcpListener,
    control: SocketAddr,
    settings: WebSettings,
    shutdown: watch::Receiver<bool>,
) -> std::io::Result<()> {
    let shared = Shared {
        control,
        words: Arc::from(words_json(settings.lang)),
        slots: Arc::new(Semaphore::new(settings.max_connections)),
        settings: Arc::new(settings),
        shutdown: shutdown.clone(),
    };
    let app = router(shared);
    let mut stop = shutdown;
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            while !*stop.borrow() {
                if stop.changed().await.is_err() {
                    break;
                }
            }
        })
        .await
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
        // Phrases the page announces assertively, as the speech says them urgently.
        "urgent": URGENT_EVENTS.iter().filter_map(|k| v.event(k)).collect::<Vec<_>>(),
    })
    .to_string()
}

/// A WebSocket from another site's page is refused: the browser sends the token the user
/// typed only to this page, but a foreign page should not even reach the control interface.
fn same_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        // Not a browser (a test client, a script): the control interface's token decides.
        return true;
    };
    let (Ok(origin), Some(Ok(host))) = (
        origin.to_str(),
        headers.get(header::HOST).map(|h| h.to_str()),
    ) else {
        return false;
    };
    origin
        .split_once("://")
        .is_some_and(|(_, rest)| rest.eq_ignore_ascii_case(host))
}

async fn upgrade(
    State(shared): State<Shared>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    if !same_origin(&headers) {
        return refuse(
            StatusCode::FORBIDDEN,
            "the WebSocket must come from this server's own page (the Origin header names another site)",
        );
    }
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
            bridge(socket, shared.control, shared.shutdown).await;
            drop(slot);
        })
}

/// Pipes one WebSocket to one control connection, line for message, until either side closes
/// or the daemon stops.
async fn bridge(mut socket: WebSocket, control: SocketAddr, mut shutdown: watch::Receiver<bool>) {
    let stream = match TcpStream::connect(control).await {
        Ok(s) => s,
        Err(e) => {
            let line = format!(
                "error state the web page cannot reach the control interface at {control}: {e}"
            );
            socket.send(Message::Text(line.into())).await.ok();
            socket.send(Message::Close(None)).await.ok();
            return;
        }
    };
    stream.set_nodelay(true).ok();
    let (read, mut write) = stream.into_split();
    let (lines_tx, mut lines) = mpsc::channel::<Result<String, String>>(64);
    let reader = tokio::spawn(read_lines(BufReader::new(read), lines_tx));
    loop {
        tokio::select! {
            incoming = socket.recv() => {
                let text = match incoming {
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Binary(_))) => {
                        if !send(&mut socket, "error syntax binary messages are not requests; send one text line").await {
                            break;
                        }
                        continue;
                    }
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                };
                match request_line(&text) {
                    Ok(line) => {
                        if write.write_all(line.as_bytes()).await.is_err() {
                            break;
                        }
                    }
                    Err(why) => {
                        if !send(&mut socket, &why).await {
                            break;
                        }
                    }
                }
            }
            line = lines.recv() => {
                match line {
                    Some(Ok(line)) => {
                        if !send(&mut socket, &line).await {
                            break;
                        }
                    }
                    Some(Err(why)) => {
                        send(&mut socket, &why).await;
                        break;
                    }
                    None => break,
                }
            }
            _ = shutdown.changed() => {
                // The control server says `event shutdown` itself; the page is told here too in
                // case the control connection is already gone.
                send(&mut socket, "event shutdown").await;
                break;
            }
        }
    }
    reader.abort();
    write.shutdown().await.ok();
    socket.send(Message::Close(None)).await.ok();
}

/// One WebSocket message as one request line, or the error line the page is answered with.
fn request_line(text: &Utf8Bytes) -> Result<String, String> {
    let text = text.as_str();
    let text = text.strip_suffix('\n').unwrap_or(text);
    let text = text.strip_suffix('\r').unwrap_or(text);
    if text.contains(['\n', '\r']) {
        return Err("error syntax one request per message; this one holds a line break".into());
    }
    Ok(format!("{text}\n"))
}

async fn send(socket: &mut WebSocket, line: &str) -> bool {
    matches!(
        tokio::time::timeout(SEND_TIMEOUT, socket.send(Message::Text(line.into()))).await,
        Ok(Ok(()))
    )
}

/// Reads the control interface's lines, each bounded by [`MAX_REPLY_BYTES`].
async fn read_lines(
    mut read: BufReader<tokio::net::tcp::OwnedReadHalf>,
    lines: mpsc::Sender<Result<String, String>>,
) {
    loop {
        match read_bounded_line(&mut read, MAX_REPLY_BYTES).await {
            Ok(Some(line)) => {
                if lines.send(Ok(line)).await.is_err() {
                    return;
                }
            }
            Ok(None) => return,
            Err(why) => {
                lines.send(Err(why)).await.ok();
                return;
            }
        }
    }
}

/// One line without its line feed (and CR), `None` at the end of the stream; a line longer than
/// `max` bytes or not UTF-8 is an error.
async fn read_bounded_line<R: AsyncBufReadExt + Unpin>(
    read: &mut R,
    max: usize,
) -> Result<Option<String>, String> {
    let mut line = Vec::new();
    loop {
        let available = read
            .fill_buf()
            .await
            .map_err(|e| format!("error state the control connection failed: {e}"))?;
        if available.is_empty() {
            return if line.is_empty() {
                Ok(None)
            } else {
                Err("error state the control connection closed in the middle of a line".into())
            };
        }
        let (used, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        line.extend_from_slice(&available[..used]);
        read.consume(used);
        if line.len() > max + 1 {
            return Err(format!(
                "error state the daemon sent a line of more than {max} bytes; the page stops here"
            ));
        }
        if done {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return String::from_utf8(line)
                .map(Some)
                .map_err(|_| "error state the daemon sent a line that is not UTF-8".into());
        }
    }
}

/// `GET /audio/TABLE` with `Authorization: Bearer TOKEN`: the table's current game as recorded
/// by a `wav:DIR` backend, if the token may see that table.
async fn audio(
    State(shared): State<Shared>,
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
    if !valid_table_name(&table) {
        return refuse(
            StatusCode::BAD_REQUEST,
            "a table name is letters, digits, '-', '_' and '.', at most 100 characters",
        );
    }
    match tokio::time::timeout(AUTH_TIMEOUT, may_see(shared.control, token, &table)).await {
        Ok(Ok(())) => {}
        Ok(Err((status, why))) => return refuse(status, &why),
        Err(_) => {
            return refuse(
                StatusCode::GATEWAY_TIMEOUT,
                "the control interface did not judge the token within 5 s",
            );
        }
    }
    let Some(path) = newest_record(&shared.settings.wav_dirs, &table).await else {
        return refuse(
            StatusCode::NOT_FOUND,
            &format!("no audio record of table {table} yet"),
        );
    };
    let bytes = match tokio::fs::metadata(&path).await {
        Ok(m) if m.len() > MAX_AUDIO_BYTES => {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                "the audio record is larger than 512 MiB; copy it from the wav directory",
            );
        }
        Ok(_) => tokio::fs::read(&path).await,
        Err(e) => Err(e),
    };
    let bytes = match bytes {
        Ok(b) => b,
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
    let mut response = Response::new(Body::from(bytes));
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("audio/wav"));
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    response
}

fn valid_table_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 100
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Asks the control interface whether `token` is valid and may use `table`.
async fn may_see(
    control: SocketAddr,
    token: &str,
    table: &str,
) -> Result<(), (StatusCode, String)> {
    let unreachable = |e: std::io::Error| {
        (
            StatusCode::BAD_GATEWAY,
            format!("the control interface at {control} cannot be reached: {e}"),
        )
    };
    if token.contains(['\n', '\r']) || table.contains(['\n', '\r']) {
        return Err((StatusCode::BAD_REQUEST, "a line break in the token".into()));
    }
    let stream = TcpStream::connect(control).await.map_err(unreachable)?;
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    let mut ask = async |line: String| -> Result<String, (StatusCode, String)> {
        write
            .write_all(line.as_bytes())
            .await
            .map_err(unreachable)?;
        loop {
            match read_bounded_line(&mut read, 4096).await {
                Ok(Some(reply)) if reply.starts_with("event ") => continue,
                Ok(Some(reply)) => return Ok(reply),
                Ok(None) => {
                    return Err((
                        StatusCode::BAD_GATEWAY,
                        "the control interface closed the connection".into(),
                    ));
                }
                Err(why) => return Err((StatusCode::BAD_GATEWAY, why)),
            }
        }
    };
    let auth = ask(format!("auth {token}\n")).await?;
    if !auth.starts_with("ok") {
        return Err((StatusCode::FORBIDDEN, auth));
    }
    let chosen = ask(format!("table {table}\n")).await?;
    ask("quit\n".to_owned()).await.ok();
    if chosen.starts_with("ok") {
        Ok(())
    } else {
        Err((StatusCode::FORBIDDEN, chosen))
    }
}

/// The newest `<table>-<game>.wav` in the WAV directories: the file name is built from a
/// directory listing, never from the request, so no path leaves the directories.
async fn newest_record(dirs: &[PathBuf], table: &str) -> Option<PathBuf> {
    let prefix = format!("{}-", file_stem(table));
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

    #[tokio::test]
    async fn lines_are_bounded_and_split() {
        let data: &[u8] = b"ok one\r\nevent two\nlast";
        let mut r = BufReader::new(data);
        assert_eq!(
            read_bounded_line(&mut r, 64).await,
            Ok(Some("ok one".into()))
        );
        assert_eq!(
            read_bounded_line(&mut r, 64).await,
            Ok(Some("event two".into()))
        );
        assert!(read_bounded_line(&mut r, 64).await.is_err());
        let long = [b'x'; 100];
        let mut r = BufReader::new(&long[..]);
        assert!(
            read_bounded_line(&mut r, 10)
                .await
                .unwrap_err()
                .contains("more than 10 bytes")
        );
        let mut r = BufReader::new(&b""[..]);
        assert_eq!(read_bounded_line(&mut r, 10).await, Ok(None));
        let mut r = BufReader::new(&b"\xff\xfe\n"[..]);
        assert!(read_bounded_line(&mut r, 10).await.is_err());
    }

    #[test]
    fn one_message_is_one_request() {
        assert_eq!(request_line(&"move e4".into()), Ok("move e4\n".into()));
        assert_eq!(request_line(&"move e4\r\n".into()), Ok("move e4\n".into()));
        assert!(request_line(&"move e4\nresign".into()).is_err());
    }

    #[test]
    fn table_names_never_leave_the_directory() {
        assert!(valid_table_name("table-1"));
        for bad in [
            "",
            "..",
            "../etc",
            "a/b",
            ".hidden",
            "a b",
            &"x".repeat(101),
        ] {
            assert!(!valid_table_name(bad), "{bad:?}");
        }
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
            newest_record(&dirs, "table-1").await,
            Some(dir.path().join("table-1-12.wav"))
        );
        assert_eq!(newest_record(&dirs, "table-2").await, None);
        assert_eq!(
            newest_record(&[dir.path().join("gone")], "table-1").await,
            None
        );
    }

    #[test]
    fn foreign_pages_are_refused() {
        let mut h = HeaderMap::new();
        assert!(same_origin(&h));
        h.insert(header::HOST, HeaderValue::from_static("127.0.0.1:7480"));
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://127.0.0.1:7480"),
        );
        assert!(same_origin(&h));
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("https://evil.example"),
        );
        assert!(!same_origin(&h));
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
