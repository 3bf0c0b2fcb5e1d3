//! The client for the servers annabella plays on (lichess, ICCF's XFCC, the broadcast push):
//! HTTP/1.1 over rustls, one short request at a time per server, a 429 pause every later
//! request waits out, bounded bodies, and the long-lived NDJSON streams read line by line with
//! their keep-alives visible and an idle limit.
//!
//! Why our own, on hyper (already the page's server): the dozen calls need exactly what the
//! general clients hide — the keep-alive lines (to tell a silent stream from a quiet one), a
//! per-read idle limit, and the servers' "one request at a time" rule — and they would bring a
//! second TLS stack.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HOST, RETRY_AFTER, USER_AGENT};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::time::Instant;

/// Largest body of a short request's answer read (a lichess game list, an XFCC game list).
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;
/// Largest line of a stream (a `gameFull` of a long game is a few kilobytes).
pub const MAX_LINE_BYTES: usize = 1024 * 1024;
/// Most of an error answer's body kept for the message.
const MAX_ERROR_BODY_CHARS: usize = 500;
/// How long connecting (TCP and TLS) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a short request may take from connecting to its whole answer; also how long a
/// stream may take to answer with its headers.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// The shortest pause after a 429: lichess asks for a minute ("waiting one minute before
/// retrying will be sufficient").
pub const MIN_RATE_LIMIT_PAUSE: Duration = Duration::from_secs(60);
/// The longest pause a server's `Retry-After` may impose (a wrong header must not silence the
/// game for a day).
const MAX_RATE_LIMIT_PAUSE: Duration = Duration::from_secs(15 * 60);

/// What went wrong, with where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpError {
    /// The server's address cannot be used.
    BadUrl(String),
    Connect(String),
    Tls(String),
    /// The request took longer than it may.
    Timeout,
    /// A stream sent nothing at all, not even a keep-alive, for longer than allowed.
    Idle,
    /// An answer or a line larger than the bounds.
    TooLarge,
    Io(String),
    /// HTTP 429: the server asks us to wait this long; every request of this client waits.
    RateLimited {
        wait: Duration,
    },
    /// Any other answer than 2xx, with the start of its body.
    Status {
        status: u16,
        body: String,
    },
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HttpError::BadUrl(why) => write!(f, "bad server address: {why}"),
            HttpError::Connect(why) => write!(f, "cannot connect: {why}"),
            HttpError::Tls(why) => write!(f, "TLS failed: {why}"),
            HttpError::Timeout => write!(f, "the server did not answer in time"),
            HttpError::Idle => write!(f, "the stream has been silent too long"),
            HttpError::TooLarge => write!(f, "the server's answer is larger than allowed"),
            HttpError::Io(why) => write!(f, "connection failed: {why}"),
            HttpError::RateLimited { wait } => {
                write!(f, "too many requests: waiting {} s", wait.as_secs())
            }
            HttpError::Status { status, body } if body.is_empty() => {
                write!(f, "the server answered {status}")
            }
            HttpError::Status { status, body } => {
                write!(f, "the server answered {status}: {body}")
            }
        }
    }
}

impl std::error::Error for HttpError {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

/// A request's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    Empty,
    /// `application/x-www-form-urlencoded`.
    Form(Vec<(String, String)>),
    Raw {
        content_type: String,
        bytes: Vec<u8>,
    },
}

/// One request, its path relative to the client's base address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: Method,
    /// Appended to the base's path; may be empty and may carry a `?query`.
    pub path: String,
    pub body: Body,
    pub headers: Vec<(String, String)>,
}

impl HttpRequest {
    pub fn get(path: impl Into<String>) -> HttpRequest {
        HttpRequest {
            method: Method::Get,
            path: path.into(),
            body: Body::Empty,
            headers: Vec::new(),
        }
    }

    pub fn post_form(path: impl Into<String>, pairs: Vec<(String, String)>) -> HttpRequest {
        HttpRequest {
            method: Method::Post,
            path: path.into(),
            body: Body::Form(pairs),
            headers: Vec::new(),
        }
    }

    pub fn post_raw(
        path: impl Into<String>,
        content_type: impl Into<String>,
        bytes: Vec<u8>,
    ) -> HttpRequest {
        HttpRequest {
            method: Method::Post,
            path: path.into(),
            body: Body::Raw {
                content_type: content_type.into(),
                bytes,
            },
            headers: Vec::new(),
        }
    }

    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> HttpRequest {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// A short request's answer (2xx).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpResponse {
    pub status: u16,
    pub body: Vec<u8>,
}

/// One line of an NDJSON stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamLine {
    /// An empty line: the server is there and has nothing to say.
    KeepAlive,
    /// One JSON document (not yet parsed).
    Json(String),
}

/// The client of one server account: clone it freely, the clones share the one-at-a-time
/// rule and the pause.
#[derive(Clone)]
pub struct HttpClient {
    inner: Arc<Inner>,
}

impl fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the token.
        f.debug_struct("HttpClient")
            .field("host", &self.inner.host)
            .field("port", &self.inner.port)
            .field("tls", &self.inner.tls.is_some())
            .finish()
    }
}

/// The accounts' clients alive, by address and token (see [`HttpClient::new`]).
type Accounts = Mutex<Vec<((String, Option<String>), std::sync::Weak<Inner>)>>;
static ACCOUNTS: std::sync::OnceLock<Accounts> = std::sync::OnceLock::new();

struct Inner {
    host: String,
    port: u16,
    /// The base address's path without its trailing `/`.
    base_path: String,
    bearer: Option<String>,
    /// `None` for plain HTTP (loopback only).
    tls: Option<tokio_rustls::TlsConnector>,
    /// Held for the whole of each short request.
    one_at_a_time: tokio::sync::Mutex<()>,
    /// Until when a 429 asks us to wait.
    paused_until: Mutex<Option<Instant>>,
}

impl HttpClient {
    /// A client of the server at `base_url` (`https://lichess.org`,
    /// `https://www.iccf.com/XfccBasic.asmx`, `http://127.0.0.1:8080` for a local test server:
    /// plain HTTP only to this machine, since the requests carry passwords and tokens).
    ///
    /// Clients made for the same address and token are one client: lichess's one request at a
    /// time is per account, and the live table and the correspondence desk play on the same one.
    pub fn new(base_url: &str, bearer: Option<String>) -> Result<HttpClient, HttpError> {
        let key = (base_url.trim_end_matches('/').to_owned(), bearer.clone());
        let mut accounts = lock(ACCOUNTS.get_or_init(Default::default));
        accounts.retain(|(_, inner)| inner.strong_count() > 0);
        if let Some(inner) = accounts
            .iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, inner)| inner.upgrade())
        {
            return Ok(HttpClient { inner });
        }
        let client = HttpClient::fresh(base_url, bearer)?;
        accounts.push((key, Arc::downgrade(&client.inner)));
        Ok(client)
    }

    fn fresh(base_url: &str, bearer: Option<String>) -> Result<HttpClient, HttpError> {
        let uri: hyper::Uri = base_url
            .parse()
            .map_err(|e| HttpError::BadUrl(format!("{base_url:?}: {e}")))?;
        let host = uri
            .host()
            .ok_or_else(|| HttpError::BadUrl(format!("{base_url:?} names no host")))?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let tls = match uri.scheme_str() {
            Some("https") => true,
            Some("http") if is_loopback(&host) => false,
            Some("http") => {
                return Err(HttpError::BadUrl(format!(
                    "{base_url:?}: plain http is allowed only to this machine; use https"
                )));
            }
            _ => {
                return Err(HttpError::BadUrl(format!(
                    "{base_url:?}: the address must begin with https://"
                )));
            }
        };
        if uri.query().is_some() {
            return Err(HttpError::BadUrl(format!(
                "{base_url:?}: the base address may not carry a ?query"
            )));
        }
        let port = uri.port_u16().unwrap_or(if tls { 443 } else { 80 });
        let tls = tls.then(|| {
            let roots = rustls_roots();
            let config = tokio_rustls::rustls::ClientConfig::builder_with_provider(Arc::new(
                tokio_rustls::rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            .map(|b| b.with_root_certificates(roots).with_no_client_auth());
            config.map(|c| tokio_rustls::TlsConnector::from(Arc::new(c)))
        });
        let tls = match tls {
            Some(Ok(connector)) => Some(connector),
            Some(Err(e)) => return Err(HttpError::Tls(e.to_string())),
            None => None,
        };
        Ok(HttpClient {
            inner: Arc::new(Inner {
                host,
                port,
                base_path: uri.path().trim_end_matches('/').to_owned(),
                bearer,
                tls,
                one_at_a_time: tokio::sync::Mutex::new(()),
                paused_until: Mutex::new(None),
            }),
        })
    }

    /// How long the server's last 429 still asks us to wait, if it does.
    pub fn paused_for(&self) -> Option<Duration> {
        let until = (*lock(&self.inner.paused_until))?;
        until
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
    }

    /// One short request, after any other of this client's requests and any pause: the whole
    /// answer, or why not.
    pub async fn request(&self, req: HttpRequest) -> Result<HttpResponse, HttpError> {
        let _turn = self.inner.one_at_a_time.lock().await;
        self.wait_out_pause().await;
        tokio::time::timeout(REQUEST_TIMEOUT, async {
            let (response, _connection) = self.send(req).await?;
            let status = response.status().as_u16();
            let body = read_bounded(response.into_body(), MAX_BODY_BYTES).await?;
            Ok(HttpResponse { status, body })
        })
        .await
        .map_err(|_| HttpError::Timeout)?
    }

    /// A long-lived NDJSON stream (the lichess event and game streams, a held seek): opened
    /// after any pause, but beside the short requests, which it would otherwise block for hours.
    pub async fn open_stream(&self, req: HttpRequest) -> Result<NdjsonStream, HttpError> {
        self.wait_out_pause().await;
        let (response, connection) = tokio::time::timeout(REQUEST_TIMEOUT, self.send(req))
            .await
            .map_err(|_| HttpError::Timeout)??;
        Ok(NdjsonStream {
            body: response.into_body(),
            buffer: Vec::new(),
            closed: false,
            _connection: connection,
        })
    }

    async fn wait_out_pause(&self) {
        while let Some(wait) = self.paused_for() {
            tokio::time::sleep(wait).await;
        }
    }

    /// Connects, sends and reads the answer's head; a 429 or another failure status is the
    /// error (and a 429 pauses the client).
    async fn send(
        &self,
        req: HttpRequest,
    ) -> Result<(hyper::Response<Incoming>, AbortOnDrop), HttpError> {
        let request = self.build(req)?;
        let tcp = tokio::time::timeout(
            CONNECT_TIMEOUT,
            tokio::net::TcpStream::connect((self.inner.host.as_str(), self.inner.port)),
        )
        .await
        .map_err(|_| HttpError::Connect(format!("{}: timed out", self.where_())))?
        .map_err(|e| HttpError::Connect(format!("{}: {e}", self.where_())))?;
        tcp.set_nodelay(true).ok();
        let (response, connection) = match &self.inner.tls {
            None => exchange(tcp, request).await?,
            Some(connector) => {
                let name =
                    tokio_rustls::rustls::pki_types::ServerName::try_from(self.inner.host.clone())
                        .map_err(|e| HttpError::BadUrl(format!("{}: {e}", self.inner.host)))?;
                let stream = tokio::time::timeout(CONNECT_TIMEOUT, connector.connect(name, tcp))
                    .await
                    .map_err(|_| HttpError::Tls(format!("{}: timed out", self.where_())))?
                    .map_err(|e| HttpError::Tls(format!("{}: {e}", self.where_())))?;
                exchange(stream, request).await?
            }
        };
        let status = response.status().as_u16();
        if status == 429 {
            let wait = rate_limit_pause(response.headers().get(RETRY_AFTER));
            *lock(&self.inner.paused_until) = Some(Instant::now() + wait);
            return Err(HttpError::RateLimited { wait });
        }
        if !(200..300).contains(&status) {
            let body = read_bounded(response.into_body(), MAX_ERROR_BODY_CHARS * 4)
                .await
                .unwrap_or_default();
            let body: String = String::from_utf8_lossy(&body)
                .trim()
                .chars()
                .take(MAX_ERROR_BODY_CHARS)
                .collect();
            return Err(HttpError::Status { status, body });
        }
        Ok((response, connection))
    }

    fn where_(&self) -> String {
        format!("{}:{}", self.inner.host, self.inner.port)
    }

    fn build(&self, req: HttpRequest) -> Result<hyper::Request<Full<Bytes>>, HttpError> {
        let path = format!("{}{}", self.inner.base_path, req.path);
        let path = if path.starts_with('/') {
            path
        } else {
            format!("/{path}")
        };
        let default_port = if self.inner.tls.is_some() { 443 } else { 80 };
        let host = match (self.inner.host.contains(':'), self.inner.port) {
            (false, p) if p == default_port => self.inner.host.clone(),
            (false, p) => format!("{}:{p}", self.inner.host),
            (true, p) => format!("[{}]:{p}", self.inner.host),
        };
        let mut builder = hyper::Request::builder()
            .method(match req.method {
                Method::Get => hyper::Method::GET,
                Method::Post => hyper::Method::POST,
            })
            .uri(&path)
            .header(HOST, host)
            .header(USER_AGENT, concat!("annabella/", env!("CARGO_PKG_VERSION")));
        if let Some(token) = &self.inner.bearer {
            builder = builder.header(AUTHORIZATION, format!("Bearer {token}"));
        }
        for (name, value) in &req.headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        let body = match req.body {
            Body::Empty => Bytes::new(),
            Body::Form(pairs) => {
                builder = builder.header(CONTENT_TYPE, "application/x-www-form-urlencoded");
                Bytes::from(form_encode(&pairs))
            }
            Body::Raw {
                content_type,
                bytes,
            } => {
                builder = builder.header(CONTENT_TYPE, content_type);
                Bytes::from(bytes)
            }
        };
        builder
            .body(Full::new(body))
            .map_err(|e| HttpError::BadUrl(format!("{path:?}: {e}")))
    }
}

/// An open NDJSON stream; dropping it closes the connection.
pub struct NdjsonStream {
    body: Incoming,
    /// Bytes after the last complete line.
    buffer: Vec<u8>,
    closed: bool,
    _connection: AbortOnDrop,
}

impl fmt::Debug for NdjsonStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NdjsonStream")
            .field("buffered", &self.buffer.len())
            .field("closed", &self.closed)
            .finish()
    }
}

impl NdjsonStream {
    /// The next line, joined across however the network split it: `Ok(None)` when the server
    /// closed the stream, `Err(Idle)` when nothing at all came for `idle`.
    pub async fn next(&mut self, idle: Duration) -> Result<Option<StreamLine>, HttpError> {
        loop {
            if let Some(line) = take_line(&mut self.buffer) {
                return line.map(Some);
            }
            if self.closed {
                // A last line without its newline is still a line.
                if self.buffer.is_empty() {
                    return Ok(None);
                }
                let rest = std::mem::take(&mut self.buffer);
                return Ok(Some(to_line(&rest)));
            }
            match tokio::time::timeout(idle, self.body.frame()).await {
                Err(_) => return Err(HttpError::Idle),
                Ok(None) => self.closed = true,
                Ok(Some(Err(e))) => return Err(HttpError::Io(e.to_string())),
                Ok(Some(Ok(frame))) => {
                    if let Ok(data) = frame.into_data() {
                        self.buffer.extend_from_slice(&data);
                        let pending = self.buffer.iter().position(|&b| b == b'\n');
                        if pending.is_none() && self.buffer.len() > MAX_LINE_BYTES {
                            return Err(HttpError::TooLarge);
                        }
                    }
                }
            }
        }
    }
}

/// The first complete line of `buffer`, taken out of it; a line past [`MAX_LINE_BYTES`] is an
/// error (the stream is then not one we can follow).
fn take_line(buffer: &mut Vec<u8>) -> Option<Result<StreamLine, HttpError>> {
    let end = buffer.iter().position(|&b| b == b'\n')?;
    if end > MAX_LINE_BYTES {
        return Some(Err(HttpError::TooLarge));
    }
    let line: Vec<u8> = buffer.drain(..=end).collect();
    Some(Ok(to_line(&line[..end])))
}

fn to_line(bytes: &[u8]) -> StreamLine {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim();
    if text.is_empty() {
        StreamLine::KeepAlive
    } else {
        StreamLine::Json(text.to_owned())
    }
}

/// The connection's task, stopped when its stream or answer is dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// One HTTP/1.1 exchange on a fresh connection: the answer's head, and the connection's task.
async fn exchange<S>(
    stream: S,
    request: hyper::Request<Full<Bytes>>,
) -> Result<(hyper::Response<Incoming>, AbortOnDrop), HttpError>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| HttpError::Io(e.to_string()))?;
    let connection = AbortOnDrop(tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::debug!(error = %e, "server connection closed");
        }
    }));
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| HttpError::Io(e.to_string()))?;
    Ok((response, connection))
}

/// A body read whole, refused past `limit` bytes.
async fn read_bounded(mut body: Incoming, limit: usize) -> Result<Vec<u8>, HttpError> {
    let mut out = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| HttpError::Io(e.to_string()))?;
        if let Ok(data) = frame.into_data() {
            if out.len() + data.len() > limit {
                return Err(HttpError::TooLarge);
            }
            out.extend_from_slice(&data);
        }
    }
    Ok(out)
}

/// The pause a 429 asks for: its `Retry-After` seconds, at least a minute and at most
/// [`MAX_RATE_LIMIT_PAUSE`].
fn rate_limit_pause(retry_after: Option<&hyper::header::HeaderValue>) -> Duration {
    let asked = retry_after
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_secs)
        .unwrap_or(MIN_RATE_LIMIT_PAUSE);
    asked.clamp(MIN_RATE_LIMIT_PAUSE, MAX_RATE_LIMIT_PAUSE)
}

/// `application/x-www-form-urlencoded`, as browsers write it.
fn form_encode(pairs: &[(String, String)]) -> String {
    fn encode(s: &str, out: &mut String) {
        for b in s.bytes() {
            match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                    out.push(b as char)
                }
                b' ' => out.push('+'),
                _ => out.push_str(&format!("%{b:02X}")),
            }
        }
    }
    let mut out = String::new();
    for (i, (name, value)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        encode(name, &mut out);
        out.push('=');
        encode(value, &mut out);
    }
    out
}

fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn rustls_roots() -> tokio_rustls::rustls::RootCertStore {
    tokio_rustls::rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests;
