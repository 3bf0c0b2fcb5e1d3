//! The control interface's TCP server (`docs/control-protocol.md`): one task per connection,
//! a connection cap, a per-connection rate limit, bounded lines, authentication by token, the
//! connection's table and language, `events` forwarding, and a graceful close on shutdown.
//!
//! The requests' language is [`crate::table::control`]; the tables are behind [`Hub`]. A hostile
//! client gets error lines and, past the limits, a closed connection — never a panic, and never
//! more memory than one bounded line.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, broadcast, watch};
use tokio::task::JoinSet;

use crate::app::hub::{Hub, TableHandle};
use crate::boards::Millis;
use crate::chess::language::Language;
use crate::io::clock;
use crate::io::tokens::{Grant, Tokens};
use crate::table::control::{
    self, Command, ErrorCode, KEYWORDS, MAX_LINE_BYTES, Refusal, ok_line, one_line,
};

/// Bytes of one overlong line skipped before the connection is closed: a client that sends
/// this much without a line feed is not typing requests.
pub const MAX_SKIPPED_BYTES: usize = 64 * 1024;
/// Requests refused in a row for the rate before the connection is closed.
pub const FLOOD_STRIKES: u32 = 10;
/// Wrong tokens on one connection before it is closed.
pub const MAX_AUTH_FAILURES: u32 = 3;
/// Refused connections being said goodbye to at once; more are closed without waiting.
const REFUSALS_AT_ONCE: usize = 8;
/// How long a refused connection is given to take its error line.
const REFUSAL_GRACE: Duration = Duration::from_secs(1);
/// How long shutdown waits for connections to say goodbye.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// The server's limits; `Default` gives the documented defaults.
#[derive(Debug, Clone)]
pub struct ControlSettings {
    /// Connections at once; one more gets `error rate too many connections` and is closed.
    pub max_connections: usize,
    /// Requests a second one connection may send, sustained.
    pub requests_per_second: u32,
    /// Requests a connection may send at once before the rate applies.
    pub burst: u32,
    /// A connection that has not authenticated this long after connecting is closed.
    pub auth_timeout: Duration,
    /// A table that has not answered a request this long gets an error reply instead.
    pub reply_timeout: Duration,
    /// A client that does not read its replies for this long is disconnected.
    pub write_timeout: Duration,
    /// The language of a new connection (`lang` changes it).
    pub default_lang: &'static Language,
}

impl Default for ControlSettings {
    fn default() -> ControlSettings {
        ControlSettings {
            max_connections: 32,
            requests_per_second: 10,
            burst: 20,
            auth_timeout: Duration::from_secs(30),
            reply_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(10),
            default_lang: Language::english(),
        }
    }
}

/// The startup check. A loopback address is always allowed; any other address (the unspecified
/// `0.0.0.0` and `::` included) needs at least one token. The first start creates
/// `tokens.toml` with a token per role, so this refuses a non-loopback address when that file
/// has been emptied and the configuration sets no `[[token]]`.
pub fn check_listen(addr: SocketAddr, tokens: &Tokens) -> Result<(), String> {
    if addr.ip().to_canonical().is_loopback() || !tokens.is_empty() {
        return Ok(());
    }
    Err(format!(
        "refusing to listen on {addr} without tokens: it is not a loopback address, and neither \
         the tokens file nor the configuration holds a token; add a [[token]] to the \
         configuration, or delete the empty tokens file so that a fresh one is created, or \
         listen on 127.0.0.1"
    ))
}

/// Serves the control interface on `listener` until `shutdown` turns true (or its sender is
/// dropped): every connection then gets `event shutdown` and is closed.
pub async fn run(
    listener: TcpListener,
    hub: Hub,
    tokens: Tokens,
    settings: ControlSettings,
    shutdown: watch::Receiver<bool>,
) {
    let shared = Arc::new(Shared {
        hub,
        tokens,
        settings,
    });
    let slots = Arc::new(Semaphore::new(shared.settings.max_connections));
    let refusals = Arc::new(Semaphore::new(REFUSALS_AT_ONCE));
    let mut connections = JoinSet::new();
    let mut stop = shutdown.clone();
    loop {
        tokio::select! {
            () = stopped(&mut stop) => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => match slots.clone().try_acquire_owned() {
                    Ok(slot) => {
                        let shared = shared.clone();
                        let shutdown = shutdown.clone();
                        connections.spawn(async move {
                            serve(stream, peer, &shared, shutdown).await;
                            drop(slot);
                        });
                    }
                    Err(_) => {
                        tracing::warn!(%peer, "control connection refused: too many connections");
                        let line = format!(
                            "error rate too many connections (at most {}); try again later\n",
                            shared.settings.max_connections
                        );
                        match refusals.clone().try_acquire_owned() {
                            Ok(slot) => {
                                connections.spawn(async move {
                                    refuse(stream, line).await;
                                    drop(slot);
                                });
                            }
                            // Refusing many at once: without waiting, and without goodbye.
                            Err(_) => {
                                let _ = stream.try_write(line.as_bytes());
                            }
                        }
                    }
                },
                Err(e) => {
                    // Out of file descriptors, mostly: wait instead of spinning.
                    tracing::warn!("control interface: accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
}

/// Says why to a connection beyond the cap and closes it. What the client sent meanwhile is
/// read and dropped first: closing a socket with unread data resets it, and the client could
/// lose the error line.
async fn refuse(mut stream: TcpStream, line: String) {
    use tokio::io::AsyncReadExt;
    let _ = tokio::time::timeout(REFUSAL_GRACE, async {
        stream.write_all(line.as_bytes()).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 1024];
        while stream.read(&mut sink).await? > 0 {}
        Ok::<(), std::io::Error>(())
    })
    .await;
}

/// Resolves once shutdown is asked for, or its sender is gone. (The guard `wait_for` returns
/// is dropped here: held across an await it would make the task not `Send`.)
async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|&stop| stop).await;
}

struct Shared {
    hub: Hub,
    tokens: Tokens,
    settings: ControlSettings,
}

/// A token bucket in thousandths of a request, so the arithmetic stays in integers.
#[derive(Debug, Clone)]
pub struct RateLimiter {
    per_second: u64,
    capacity: u64,
    level: u64,
    last_ms: Millis,
}

impl RateLimiter {
    pub fn new(per_second: u32, burst: u32, now_ms: Millis) -> RateLimiter {
        let capacity = u64::from(burst.max(1)) * 1000;
        RateLimiter {
            per_second: u64::from(per_second.max(1)),
            capacity,
            level: capacity,
            last_ms: now_ms,
        }
    }

    /// Takes one request's worth; `false` when the bucket is empty.
    pub fn take(&mut self, now_ms: Millis) -> bool {
        let elapsed = now_ms.saturating_sub(self.last_ms);
        self.last_ms = self.last_ms.max(now_ms);
        self.level = self
            .level
            .saturating_add(elapsed.saturating_mul(self.per_second))
            .min(self.capacity);
        if self.level >= 1000 {
            self.level -= 1000;
            true
        } else {
            false
        }
    }
}

/// One line read from a client.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// At most the bound, without its line feed.
    Text(Vec<u8>),
    /// Longer than the bound; this many bytes were skipped, up to and without the line feed.
    TooLong(usize),
    /// More than [`MAX_SKIPPED_BYTES`] without a line feed.
    Runaway,
}

/// Reads lines of at most `max` bytes without ever holding more: a longer line is skipped up
/// to its line feed. `next_line` is cancel-safe (every await is `fill_buf`, and what was read
/// is taken over before the next one), so it can race events and shutdown in a `select!`.
pub struct LineReader<R> {
    inner: BufReader<R>,
    line: Vec<u8>,
    skipped: usize,
    max: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(inner: R, max: usize) -> LineReader<R> {
        LineReader {
            inner: BufReader::with_capacity(4096, inner),
            line: Vec::new(),
            skipped: 0,
            max,
        }
    }

    /// The next line, or `None` at the end of the stream (a last line without a line feed
    /// counts).
    pub async fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        loop {
            let buf = self.inner.fill_buf().await?;
            if buf.is_empty() {
                return Ok(self.finish_line().or_else(|| {
                    (!self.line.is_empty()).then(|| Line::Text(std::mem::take(&mut self.line)))
                }));
            }
            let newline = buf.iter().position(|&b| b == b'\n');
            let chunk = &buf[..newline.unwrap_or(buf.len())];
            if self.skipped > 0 {
                self.skipped = self.skipped.saturating_add(chunk.len());
            } else if self.line.len() + chunk.len() > self.max {
                self.skipped = self.line.len() + chunk.len();
                self.line = Vec::new();
            } else {
                self.line.extend_from_slice(chunk);
            }
            let used = newline.map_or(buf.len(), |i| i + 1);
            self.inner.consume(used);
            if self.skipped > MAX_SKIPPED_BYTES {
                return Ok(Some(Line::Runaway));
            }
            if newline.is_some() {
                return Ok(Some(
                    self.finish_line()
                        .unwrap_or_else(|| Line::Text(std::mem::take(&mut self.line))),
                ));
            }
        }
    }

    fn finish_line(&mut self) -> Option<Line> {
        (self.skipped > 0).then(|| Line::TooLong(std::mem::take(&mut self.skipped)))
    }
}

/// The next event line for a subscriber, or `None` when the table's feed has closed; a
/// subscriber that fell behind gets one `event lagged N` line instead of what it missed.
pub async fn next_event(events: &mut broadcast::Receiver<Arc<str>>) -> Option<String> {
    match events.recv().await {
        Ok(line) => Some(one_line(&line)),
        Err(broadcast::error::RecvError::Lagged(missed)) => Some(format!("event lagged {missed}")),
        Err(broadcast::error::RecvError::Closed) => None,
    }
}

async fn maybe_next_event(events: Option<&mut broadcast::Receiver<Arc<str>>>) -> Option<String> {
    match events {
        Some(events) => next_event(events).await,
        None => std::future::pending().await,
    }
}

/// What the loop does after a request.
struct Reply {
    line: String,
    close: bool,
}

impl Reply {
    fn keep(line: String) -> Reply {
        Reply { line, close: false }
    }

    fn close(line: String) -> Reply {
        Reply { line, close: true }
    }
}

/// A connection's state between requests.
struct Connection<'a> {
    shared: &'a Shared,
    peer: SocketAddr,
    grant: Option<Grant>,
    table: Option<TableHandle>,
    lang: &'static Language,
    events: Option<broadcast::Receiver<Arc<str>>>,
    rate: RateLimiter,
    strikes: u32,
    auth_failures: u32,
}

enum Step {
    Shutdown,
    AuthTimeout,
    Read(std::io::Result<Option<Line>>),
    Event(Option<String>),
}

async fn serve(
    stream: TcpStream,
    peer: SocketAddr,
    shared: &Shared,
    mut shutdown: watch::Receiver<bool>,
) {
    tracing::debug!(%peer, "control connection");
    let _ = stream.set_nodelay(true);
    let (read, mut write) = stream.into_split();
    let mut reader = LineReader::new(read, MAX_LINE_BYTES);
    let settings = &shared.settings;
    let mut conn = Connection {
        shared,
        peer,
        grant: None,
        table: None,
        lang: settings.default_lang,
        events: None,
        rate: RateLimiter::new(
            settings.requests_per_second,
            settings.burst,
            clock::now_ms(),
        ),
        strikes: 0,
        auth_failures: 0,
    };
    let auth_timer = tokio::time::sleep(settings.auth_timeout);
    tokio::pin!(auth_timer);
    loop {
        let step = tokio::select! {
            biased;
            () = stopped(&mut shutdown) => Step::Shutdown,
            _ = &mut auth_timer, if conn.grant.is_none() => Step::AuthTimeout,
            read = reader.next_line() => Step::Read(read),
            event = maybe_next_event(conn.events.as_mut()) => Step::Event(event),
        };
        let reply = match step {
            Step::Shutdown => {
                // Events already published still reach a subscriber, then the goodbye.
                let mut lines = Vec::new();
                while let Some(events) = conn.events.as_mut()
                    && lines.len() < crate::app::hub::EVENT_BACKLOG
                {
                    match events.try_recv() {
                        Ok(line) => lines.push(one_line(&line)),
                        Err(broadcast::error::TryRecvError::Lagged(n)) => {
                            lines.push(format!("event lagged {n}"))
                        }
                        Err(_) => break,
                    }
                }
                lines.push("event shutdown".to_owned());
                Reply::close(lines.join("\n"))
            }
            Step::AuthTimeout => Reply::close(
                Refusal::new(
                    ErrorCode::Auth,
                    format!(
                        "no auth within {} s of connecting; closing",
                        settings.auth_timeout.as_secs_f32()
                    ),
                )
                .line(),
            ),
            Step::Read(Ok(Some(line))) => conn.handle(line).await,
            Step::Read(Ok(None)) => break,
            Step::Read(Err(e)) => {
                tracing::debug!(%peer, "control connection read failed: {e}");
                break;
            }
            Step::Event(Some(line)) => Reply::keep(line),
            Step::Event(None) => {
                // The table's feed closed (the table stopped): nothing more will come.
                conn.events = None;
                continue;
            }
        };
        if !send(&mut write, &reply.line, settings.write_timeout).await {
            tracing::debug!(%peer, "control connection dropped: the client does not read");
            break;
        }
        if reply.close {
            let _ = write.shutdown().await;
            break;
        }
    }
    tracing::debug!(%peer, "control connection closed");
}

/// Writes one line; `false` when the client has gone or has not read for `timeout`.
async fn send<W: AsyncWrite + Unpin>(write: &mut W, line: &str, timeout: Duration) -> bool {
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    matches!(
        tokio::time::timeout(timeout, write.write_all(&bytes)).await,
        Ok(Ok(()))
    )
}

impl Connection<'_> {
    async fn handle(&mut self, line: Line) -> Reply {
        if !self.rate.take(clock::now_ms()) {
            self.strikes += 1;
            let settings = &self.shared.settings;
            if self.strikes >= FLOOD_STRIKES {
                tracing::warn!(peer = %self.peer, "control connection closed: request flood");
                return Reply::close(
                    Refusal::new(ErrorCode::Rate, "flood of requests; closing").line(),
                );
            }
            return Reply::keep(
                Refusal::new(
                    ErrorCode::Rate,
                    format!(
                        "more than {} requests a second (bursts of {}); request ignored, slow down",
                        settings.requests_per_second, settings.burst
                    ),
                )
                .line(),
            );
        }
        self.strikes = 0;
        let bytes = match line {
            Line::Text(bytes) => bytes,
            Line::TooLong(n) => {
                return Reply::keep(
                    Refusal::new(
                        ErrorCode::Syntax,
                        format!("line of {n} bytes skipped; at most {MAX_LINE_BYTES}"),
                    )
                    .line(),
                );
            }
            Line::Runaway => {
                return Reply::close(
                    Refusal::new(
                        ErrorCode::Syntax,
                        format!("more than {MAX_SKIPPED_BYTES} bytes without a line feed; closing"),
                    )
                    .line(),
                );
            }
        };
        let command = match control::parse_line_in(&bytes, self.lang) {
            Ok(command) => command,
            Err(refusal) => return Reply::keep(refusal.line()),
        };
        let Some(grant) = self.grant.clone() else {
            return self.before_auth(command);
        };
        match command {
            Command::Auth { .. } => Reply::keep(
                Refusal::new(
                    ErrorCode::State,
                    format!(
                        "already authenticated as {}; connect again for another token",
                        grant.role
                    ),
                )
                .line(),
            ),
            Command::Help => Reply::keep(ok_line(&format!("requests: {KEYWORDS}"))),
            Command::Quit => Reply::close(ok_line("bye")),
            Command::Lang { code } => match Language::builtin(&code) {
                Ok(lang) => {
                    self.lang = lang;
                    Reply::keep(ok_line(&format!("lang {}", lang.code())))
                }
                Err(_) => Reply::keep(
                    Refusal::new(
                        ErrorCode::Syntax,
                        format!(
                            "no built-in language {:?}; one of {}",
                            code.chars().take(40).collect::<String>(),
                            Language::builtin_codes().join(", ")
                        ),
                    )
                    .line(),
                ),
            },
            Command::Tables => {
                let names: Vec<&str> = visible(&self.shared.hub, &grant)
                    .map(|t| &*t.name)
                    .collect();
                Reply::keep(ok_line(&names.join(" ")))
            }
            Command::Table { name } => match self.shared.hub.get(&name) {
                Some(table) if grant.may_use(&table.name) => {
                    let table = table.clone();
                    if self.events.is_some() {
                        self.events = Some(table.events.subscribe());
                    }
                    let reply = ok_line(&format!("table {}", table.name));
                    self.table = Some(table);
                    Reply::keep(reply)
                }
                // Unknown and not allowed read alike, so a token cannot probe for table names.
                _ => Reply::keep(
                    Refusal::new(
                        ErrorCode::Forbidden,
                        format!(
                            "no table {:?} for this token; tables: {}",
                            name.chars().take(40).collect::<String>(),
                            visible(&self.shared.hub, &grant)
                                .map(|t| &*t.name)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                    .line(),
                ),
            },
            Command::Events => match &self.table {
                Some(table) => {
                    self.events = Some(table.events.subscribe());
                    Reply::keep(ok_line(&format!("events {}", table.name)))
                }
                None => Reply::keep(no_table()),
            },
            command => {
                if let Err(refusal) = control::permitted_to_role(grant.role, &command) {
                    return Reply::keep(refusal.line());
                }
                let Some(table) = &self.table else {
                    return Reply::keep(no_table());
                };
                let asked = table.ask(grant.role, self.lang, command);
                match tokio::time::timeout(self.shared.settings.reply_timeout, asked).await {
                    Ok(line) => Reply::keep(one_line(&line)),
                    Err(_) => Reply::keep(
                        Refusal::new(
                            ErrorCode::State,
                            format!(
                                "table {} did not answer within {} s",
                                table.name,
                                self.shared.settings.reply_timeout.as_secs_f32()
                            ),
                        )
                        .line(),
                    ),
                }
            }
        }
    }

    fn before_auth(&mut self, command: Command) -> Reply {
        match command {
            Command::Help => Reply::keep(ok_line(&format!(
                "requests: {KEYWORDS}; send auth TOKEN first"
            ))),
            Command::Quit => Reply::close(ok_line("bye")),
            Command::Auth { token } => match self.shared.tokens.authenticate(&token) {
                Some(grant) => {
                    self.table = visible(&self.shared.hub, &grant).next().cloned();
                    tracing::info!(peer = %self.peer, role = %grant.role, "control connection authenticated");
                    let reply = match &self.table {
                        Some(table) => format!("{} {}", grant.role, table.name),
                        None => grant.role.to_string(),
                    };
                    self.grant = Some(grant);
                    Reply::keep(ok_line(&reply))
                }
                None => {
                    self.auth_failures += 1;
                    tracing::warn!(peer = %self.peer, "control connection: wrong token");
                    if self.auth_failures >= MAX_AUTH_FAILURES {
                        Reply::close(
                            Refusal::new(
                                ErrorCode::Auth,
                                format!("wrong token ({MAX_AUTH_FAILURES} times); closing"),
                            )
                            .line(),
                        )
                    } else {
                        Reply::keep(Refusal::new(ErrorCode::Auth, "wrong token").line())
                    }
                }
            },
            command => Reply::keep(
                Refusal::new(
                    ErrorCode::Auth,
                    format!("{} before auth; send auth TOKEN first", command.keyword()),
                )
                .line(),
            ),
        }
    }
}

/// The tables a grant may use, in configuration order.
fn visible<'h>(hub: &'h Hub, grant: &'h Grant) -> impl Iterator<Item = &'h TableHandle> {
    hub.tables().iter().filter(|t| grant.may_use(&t.name))
}

fn no_table() -> String {
    Refusal::new(
        ErrorCode::State,
        "no table is running for this token; see tables",
    )
    .line()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bucket_allows_a_burst_then_the_rate() {
        let mut bucket = RateLimiter::new(10, 3, 0);
        assert!(bucket.take(0) && bucket.take(0) && bucket.take(0));
        assert!(!bucket.take(0));
        assert!(!bucket.take(50));
        assert!(bucket.take(100));
        assert!(!bucket.take(100));
        // Idle time fills the bucket up to the burst, never beyond.
        assert!((0..3).all(|_| bucket.take(100_000)));
        assert!(!bucket.take(100_000));
        // A clock that seems to go backwards refills nothing and breaks nothing.
        assert!(!bucket.take(5));
        let mut huge = RateLimiter::new(u32::MAX, u32::MAX, 0);
        assert!(huge.take(Millis::MAX));
    }

    #[test]
    fn loopback_is_always_allowed_other_addresses_need_tokens() {
        let none = Tokens::default();
        let some = Tokens::new([(
            "abcdefghijklmnop".to_owned(),
            Grant {
                role: control::Role::Observer,
                tables: None,
            },
            crate::io::tokens::Origin::File,
        )]);
        for addr in ["127.0.0.1:7421", "[::1]:7421", "[::ffff:127.0.0.1]:7421"] {
            assert!(check_listen(addr.parse().unwrap(), &none).is_ok(), "{addr}");
        }
        for addr in ["0.0.0.0:7421", "[::]:7421", "192.168.1.20:7421"] {
            let err = check_listen(addr.parse().unwrap(), &none).unwrap_err();
            assert!(
                err.starts_with(&format!("refusing to listen on {addr}")),
                "{err}"
            );
            assert!(check_listen(addr.parse().unwrap(), &some).is_ok());
        }
    }

    async fn lines(input: &[u8], max: usize) -> Vec<Line> {
        let mut reader = LineReader::new(input, max);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().await.unwrap() {
            out.push(line);
        }
        out
    }

    #[tokio::test]
    async fn lines_are_bounded_and_overlong_ones_skipped() {
        let text = |s: &str| Line::Text(s.as_bytes().to_vec());
        assert_eq!(
            lines(b"board\r\nmove e4\n\nlast", 10).await,
            vec![text("board\r"), text("move e4"), text(""), text("last")]
        );
        assert_eq!(
            lines(b"0123456789\n0123456789x\nok\n0123456789xy", 10).await,
            vec![
                text("0123456789"),
                Line::TooLong(11),
                text("ok"),
                Line::TooLong(12)
            ]
        );
        let runaway = vec![b'x'; MAX_SKIPPED_BYTES + 10];
        assert_eq!(lines(&runaway, 10).await.first(), Some(&Line::Runaway));
    }

    #[tokio::test]
    async fn a_lagging_subscriber_is_told_how_much_it_missed() {
        let (feed, mut events) = broadcast::channel::<Arc<str>>(4);
        for i in 0..10 {
            feed.send(Arc::from(format!("event n {i}"))).unwrap();
        }
        assert_eq!(next_event(&mut events).await.unwrap(), "event lagged 6");
        assert_eq!(next_event(&mut events).await.unwrap(), "event n 6");
        feed.send(Arc::from("event two\nlines")).unwrap();
        drop(feed);
        for _ in 7..10 {
            next_event(&mut events).await.unwrap();
        }
        assert_eq!(next_event(&mut events).await.unwrap(), "event two lines");
        assert_eq!(next_event(&mut events).await, None);
    }
}
