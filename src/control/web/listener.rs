//! The web port's accept loop: every HTTP connection bounded in number (in all and per client
//! address), in the time it may take to send its headers, in the time it may sit silent, and in
//! the time its request may take; a request is answered only when its `Host` names this server.
//!
//! axum's own `serve` has none of these bounds, so the connections are accepted here and each
//! is served by hyper's HTTP/1 connection with a header timer, watched for silence. When the
//! table of connections is full, the connection silent the longest makes room for the new one:
//! a flood of idle connections cannot keep a person's page from loading.

use std::collections::HashMap;
use std::convert::Infallible;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::{HeaderMap, Request, StatusCode, header};
use axum::response::Response;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;
use tower::ServiceExt;

use super::refuse;

/// Open HTTP connections at once. A browser opens about six per page; 128 serve a room of
/// them while staying far below the 1,024 open files a service gets by default, so the boards,
/// the journal and the control port always have descriptors left. A connection that became a
/// WebSocket leaves this count and is bounded by the pages' own cap instead.
pub const MAX_HTTP_CONNECTIONS: usize = 128;
/// Open HTTP connections from one client address: one machine cannot take the whole table.
pub const MAX_CONNECTIONS_PER_ADDRESS: usize = 32;
/// A client must send a request's headers within this time of connecting, or of its last
/// response on a kept-alive connection (the same timer ends an idle keep-alive connection):
/// a slow trickle of header bytes (slowloris) is closed after it.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(5);
/// A connection on which not a byte moves either way for this long is closed: a download its
/// client stopped reading, a request body that never comes.
pub const STALL_TIMEOUT: Duration = Duration::from_secs(20);
/// Longest time the server takes to start answering a request (a download's body then streams
/// under [`STALL_TIMEOUT`]).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// A connection silent this long may be closed to make room for a new one when the table of
/// connections (or the client's share of it) is full; a person's browser sends its request
/// within milliseconds of connecting.
const EVICTABLE_AFTER: Duration = Duration::from_secs(1);
/// How long open connections are given to finish at shutdown.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// The names a request's `Host` may carry: the address the client reached (its `ip:port`),
/// `localhost:port` on a loopback address, and the names configured for the page. Anything
/// else is another site's name pointing at this address (DNS rebinding) and is refused.
#[derive(Debug, Clone)]
pub(super) struct Hosts {
    /// Configured names, lower case: `name` (any port) or `name:port`.
    names: Vec<String>,
}

impl Hosts {
    pub(super) fn new(names: &[String]) -> Hosts {
        Hosts {
            names: names
                .iter()
                .map(|n| n.trim().to_ascii_lowercase())
                .filter(|n| !n.is_empty())
                .collect(),
        }
    }

    /// Whether `host` (a `Host` header's value) names this server as reached at `local`.
    pub(super) fn allows(&self, host: &str, local: SocketAddr) -> bool {
        let host = host.trim().to_ascii_lowercase();
        let (name, port) = split_port(&host);
        let port = match port {
            Some(p) => match p.parse::<u16>() {
                Ok(p) => p,
                Err(_) => return false,
            },
            None => 80,
        };
        if self.names.iter().any(|n| {
            *n == host
                || (split_port(n).1.is_none() && n == name && (port == local.port() || port == 80))
        }) {
            return true;
        }
        if port != local.port() {
            return false;
        }
        let ip = local.ip();
        let v4 = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4),
            IpAddr::V4(_) => None,
        };
        let forms = [Some(ip), v4].into_iter().flatten().map(|ip| match ip {
            IpAddr::V4(v4) => v4.to_string(),
            IpAddr::V6(v6) => format!("[{v6}]"),
        });
        let mut forms: Vec<String> = forms.collect();
        if ip.is_loopback() || v4.is_some_and(|v| v.is_loopback()) {
            forms.push("localhost".to_owned());
        }
        forms.iter().any(|f| f == name)
    }

    /// The accepted forms, for the refusal's words.
    fn describe(&self, local: SocketAddr) -> String {
        let mut forms = vec![local.to_string()];
        if local.ip().is_loopback() {
            forms.push(format!("localhost:{}", local.port()));
        }
        forms.extend(self.names.iter().cloned());
        forms.join(", ")
    }
}

/// `name:port` split at the port's colon (`[v6]:port` too), or the name alone.
fn split_port(host: &str) -> (&str, Option<&str>) {
    if host.starts_with('[') {
        return match host.find(']') {
            Some(end) => (&host[..=end], host[end + 1..].strip_prefix(':')),
            None => (host, None),
        };
    }
    match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') => (name, Some(port)),
        _ => (host, None),
    }
}

/// A WebSocket from another site's page is refused: the browser sends the token the user
/// typed only to this page, but a foreign page should not even reach the control interface.
/// The `Origin` must name the same host the request reached (already one of [`Hosts`]).
pub(super) fn same_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        // Not a browser (a test client, a script): the session's token check decides.
        return true;
    };
    let (Ok(origin), Some(Ok(host))) = (
        origin.to_str(),
        headers.get(header::HOST).map(|h| h.to_str()),
    ) else {
        return false;
    };
    origin.split_once("://").is_some_and(|(scheme, rest)| {
        matches!(scheme, "http" | "https") && rest.eq_ignore_ascii_case(host)
    })
}

/// One open connection as the table of connections knows it.
struct Entry {
    address: IpAddr,
    /// When a byte last moved either way, as milliseconds since [`Table::epoch`].
    last: Arc<AtomicU64>,
    /// Wakes the connection's task to close it.
    close: Arc<Notify>,
}

/// The open connections, by the order they came in.
struct Table {
    epoch: Instant,
    next_id: u64,
    open: std::collections::BTreeMap<u64, Entry>,
    per_address: HashMap<IpAddr, usize>,
}

/// Why a connection was not admitted.
enum Full {
    All,
    Address,
}

impl Table {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Makes room for a connection from `address` and registers it, or says why there is none.
    /// A trusted proxy's connections (`proxy`) carry many clients: only the table's own bound
    /// holds them, and the page counts its clients by the address the proxy names.
    fn admit(
        &mut self,
        address: IpAddr,
        proxy: bool,
    ) -> Result<(u64, Arc<AtomicU64>, Arc<Notify>), Full> {
        let now = self.now_ms();
        let silent = |e: &Entry| {
            now.saturating_sub(e.last.load(Ordering::Relaxed))
                >= u64::try_from(EVICTABLE_AFTER.as_millis()).unwrap_or(u64::MAX)
        };
        let mine = self.per_address.get(&address).copied().unwrap_or(0);
        if mine >= MAX_CONNECTIONS_PER_ADDRESS && !proxy {
            // The address's own silent connection makes room, never another client's.
            let victim = self
                .open
                .iter()
                .find(|(_, e)| e.address == address && silent(e))
                .map(|(id, _)| *id);
            match victim {
                Some(id) => self.evict(id),
                None => return Err(Full::Address),
            }
        } else if self.open.len() >= MAX_HTTP_CONNECTIONS {
            let victim = self
                .open
                .iter()
                .filter(|(_, e)| silent(e))
                .min_by_key(|(_, e)| e.last.load(Ordering::Relaxed))
                .map(|(id, _)| *id);
            match victim {
                Some(id) => self.evict(id),
                None => return Err(Full::All),
            }
        }
        let id = self.next_id;
        self.next_id += 1;
        let last = Arc::new(AtomicU64::new(now));
        let close = Arc::new(Notify::new());
        self.open.insert(
            id,
            Entry {
                address,
                last: Arc::clone(&last),
                close: Arc::clone(&close),
            },
        );
        *self.per_address.entry(address).or_insert(0) += 1;
        Ok((id, last, close))
    }

    fn evict(&mut self, id: u64) {
        if let Some(entry) = self.remove(id) {
            entry.close.notify_one();
        }
    }

    fn remove(&mut self, id: u64) -> Option<Entry> {
        let entry = self.open.remove(&id)?;
        if let Some(n) = self.per_address.get_mut(&entry.address) {
            *n -= 1;
            if *n == 0 {
                self.per_address.remove(&entry.address);
            }
        }
        Some(entry)
    }
}

/// Leaves the table of connections when the connection's task ends, however it ends.
struct Registered {
    table: Arc<Mutex<Table>>,
    id: u64,
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Ok(mut table) = self.table.lock() {
            table.remove(self.id);
        }
    }
}

/// Serves `app` on `listener` until `shutdown` turns true, within the bounds above.
pub(super) async fn serve(
    listener: TcpListener,
    app: Router,
    hosts: Hosts,
    proxies: crate::config::TrustedProxies,
    shutdown: watch::Receiver<bool>,
) -> io::Result<()> {
    let hosts = Arc::new(hosts);
    let table = Arc::new(Mutex::new(Table {
        epoch: Instant::now(),
        next_id: 0,
        open: std::collections::BTreeMap::new(),
        per_address: HashMap::new(),
    }));
    let mut tasks = JoinSet::new();
    let mut stop = shutdown.clone();
    loop {
        if *stop.borrow() {
            break;
        }
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            changed = stop.changed() => {
                if changed.is_err() { break; }
                continue;
            }
        };
        while tasks.try_join_next().is_some() {}
        let (stream, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Out of file descriptors and the like: wait, then accept again, so the
                // failure does not spin.
                tracing::debug!(error = %e, "web port: accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let admitted = table
            .lock()
            .map_err(|_| Full::All)
            .and_then(|mut t| t.admit(peer.ip(), proxies.contains(peer.ip())));
        let (id, last, close) = match admitted {
            Ok(a) => a,
            Err(full) => {
                turn_away(&stream, &full);
                continue;
            }
        };
        let registered = Registered {
            table: Arc::clone(&table),
            id,
        };
        let epoch = table
            .lock()
            .map(|t| t.epoch)
            .unwrap_or_else(|_| Instant::now());
        let app = app.clone();
        let hosts = Arc::clone(&hosts);
        let shutdown = shutdown.clone();
        tasks.spawn(async move {
            let watched = Watched {
                inner: stream,
                last,
                epoch,
            };
            connection(watched, peer, app, hosts, close, shutdown).await;
            drop(registered);
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE * 2, async {
        while tasks.join_next().await.is_some() {}
    })
    .await;
    tasks.abort_all();
    Ok(())
}

/// A connection over the cap is told so in one write that never waits, then closed.
fn turn_away(stream: &TcpStream, full: &Full) {
    let why = match full {
        Full::All => format!(
            "too many connections to the web page (at most {MAX_HTTP_CONNECTIONS}); try again later\n"
        ),
        Full::Address => format!(
            "too many connections from your address (at most {MAX_CONNECTIONS_PER_ADDRESS}); close some and try again\n"
        ),
    };
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Length: {}\r\nRetry-After: 2\r\nConnection: close\r\n\r\n{why}",
        why.len()
    );
    let _ = stream.try_write(response.as_bytes());
}

/// One HTTP connection, served until it ends, falls silent, is evicted or the server stops.
async fn connection(
    io: Watched,
    peer: SocketAddr,
    app: Router,
    hosts: Arc<Hosts>,
    close: Arc<Notify>,
    mut shutdown: watch::Receiver<bool>,
) {
    let Ok(local) = io.inner.local_addr() else {
        return;
    };
    let last = Arc::clone(&io.last);
    let epoch = io.epoch;
    let service = hyper::service::service_fn(move |mut request: Request<hyper::body::Incoming>| {
        let app = app.clone();
        let hosts = Arc::clone(&hosts);
        async move {
            if let Some(refusal) = check_host(&hosts, request.headers(), local) {
                return Ok::<Response, Infallible>(refusal);
            }
            request.extensions_mut().insert(ConnectInfo(peer));
            match tokio::time::timeout(REQUEST_TIMEOUT, app.oneshot(request)).await {
                Ok(Ok(response)) => Ok(response),
                Ok(Err(never)) => match never {},
                Err(_) => Ok(refuse(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "the request took too long to answer; try again",
                )),
            }
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT)
        .keep_alive(true);
    let conn = builder
        .serve_connection(TokioIo::new(io), service)
        .with_upgrades();
    tokio::pin!(conn);
    let mut stopping: Option<Instant> = None;
    loop {
        let silent_since = epoch + Duration::from_millis(last.load(Ordering::Relaxed));
        let deadline = match stopping {
            Some(at) => at + SHUTDOWN_GRACE,
            None => silent_since + STALL_TIMEOUT,
        };
        tokio::select! {
            _ = conn.as_mut() => return,
            () = close.notified() => return,
            () = tokio::time::sleep_until(deadline) => {
                let silent_since = epoch + Duration::from_millis(last.load(Ordering::Relaxed));
                if stopping.is_some() || silent_since + STALL_TIMEOUT <= Instant::now() {
                    return;
                }
            }
            changed = shutdown.changed(), if stopping.is_none() => {
                if changed.is_err() || *shutdown.borrow() {
                    conn.as_mut().graceful_shutdown();
                    stopping = Some(Instant::now());
                }
            }
        }
    }
}

/// The refusal of a request whose `Host` names another server, if it does.
fn check_host(hosts: &Hosts, headers: &HeaderMap, local: SocketAddr) -> Option<Response> {
    let host = match headers.get(header::HOST).map(|h| h.to_str()) {
        Some(Ok(host)) => host,
        None => {
            return Some(refuse(
                StatusCode::BAD_REQUEST,
                "the request needs a Host header naming this server",
            ));
        }
        Some(Err(_)) => "",
    };
    if hosts.allows(host, local) {
        return None;
    }
    Some(refuse(
        StatusCode::MISDIRECTED_REQUEST,
        &format!(
            "this server answers to {}, not to the Host {host:?}; another name for it must be \
             configured (web_hosts)",
            hosts.describe(local)
        ),
    ))
}

/// The connection's socket, noting when a byte last moved either way.
struct Watched {
    inner: TcpStream,
    last: Arc<AtomicU64>,
    epoch: Instant,
}

impl Watched {
    fn moved(&self) {
        let ms = u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last.store(ms, Ordering::Relaxed);
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.moved();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.moved();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.moved();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn only_this_servers_names_are_hosts() {
        let local: SocketAddr = "127.0.0.1:7480".parse().unwrap();
        let none = Hosts::new(&[]);
        assert!(none.allows("127.0.0.1:7480", local));
        assert!(none.allows("LocalHost:7480", local));
        assert!(!none.allows("127.0.0.1:7481", local));
        assert!(!none.allows("127.0.0.1", local));
        assert!(!none.allows("evil.example:7480", local));
        assert!(!none.allows("evil.example", local));
        assert!(!none.allows("", local));
        assert!(!none.allows("127.0.0.1:x", local));
        let lan: SocketAddr = "192.168.1.5:7480".parse().unwrap();
        assert!(none.allows("192.168.1.5:7480", lan));
        assert!(!none.allows("localhost:7480", lan));
        let v6: SocketAddr = "[::1]:7480".parse().unwrap();
        assert!(none.allows("[::1]:7480", v6));
        assert!(none.allows("localhost:7480", v6));
        let mapped: SocketAddr = "[::ffff:192.168.1.5]:7480".parse().unwrap();
        assert!(none.allows("192.168.1.5:7480", mapped));
        let named = Hosts::new(&["Table.Club.Example".to_owned(), "proxy:8443".to_owned()]);
        assert!(named.allows("table.club.example", lan));
        assert!(named.allows("table.club.example:7480", lan));
        assert!(!named.allows("table.club.example:9999", lan));
        assert!(named.allows("proxy:8443", lan));
        assert!(!named.allows("proxy", lan));
        assert!(!named.allows("club.example", lan));
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
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("ftp://127.0.0.1:7480"),
        );
        assert!(!same_origin(&h));
    }
}
