//! The control interface's TCP server (`docs/control-protocol.md`): the listener, the
//! connection cap, and each connection's bytes framed into bounded lines for a control session
//! ([`crate::control::session`], driven by [`crate::control::session_driver`]), which decides
//! everything else — authentication, the table, the language, events, the rate limit.
//!
//! A hostile client gets error lines and, past the limits, a closed connection — never a panic,
//! and never more memory than one bounded line.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

pub use crate::control::session::ControlSettings;
use crate::control::session::MAX_SKIPPED_BYTES;
use crate::control::session_driver::{ControlService, Incoming, NoSlot, Slot, Transport, stopped};
use crate::io::lines::LineReader;
use crate::io::tokens::Tokens;
use crate::table::control::MAX_LINE_BYTES;

/// Refused connections being said goodbye to at once; more are closed without waiting.
const REFUSALS_AT_ONCE: usize = 8;
/// How long a refused connection is given to take its error line.
const REFUSAL_GRACE: Duration = Duration::from_secs(1);
/// How long shutdown waits for connections to say goodbye.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// The startup check. A loopback address is always allowed; any other address (the unspecified
/// `0.0.0.0` and `::` included) needs at least one token. The first start creates
/// `tokens.toml` with a token per role, so this refuses a non-loopback address when that file
/// has been emptied and the configuration sets no `[[token]]`.
pub fn check_listen(addr: SocketAddr, tokens: &Tokens) -> Result<(), ListenRefused> {
    if addr.ip().to_canonical().is_loopback() || !tokens.is_empty() {
        return Ok(());
    }
    Err(ListenRefused(addr))
}

/// The startup check's refusal: a non-loopback address and no token at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "refusing to listen on {0} without tokens: it is not a loopback address, and neither \
     the tokens file nor the configuration holds a token; add a [[token]] to the \
     configuration, or delete the empty tokens file so that a fresh one is created, or \
     listen on 127.0.0.1"
)]
pub struct ListenRefused(pub SocketAddr);

/// Serves the control interface on `listener` until `shutdown` turns true (or its sender is
/// dropped): every connection then gets `event shutdown` and is closed. The connection cap is
/// `service`'s, shared with the web page's WebSockets.
pub async fn run(listener: TcpListener, service: ControlService, shutdown: watch::Receiver<bool>) {
    let refusals = Arc::new(Semaphore::new(REFUSALS_AT_ONCE));
    let mut connections = JoinSet::new();
    let mut stop = shutdown.clone();
    loop {
        tokio::select! {
            () = stopped(&mut stop) => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    admit(stream, peer, &service, &shutdown, &refusals, &mut connections)
                }
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

/// A new connection: served in a slot; or, every slot being taken, waiting while a connection
/// that has not authenticated makes room (one newcomer per address, a few at once); or
/// refused.
fn admit(
    stream: TcpStream,
    peer: SocketAddr,
    service: &ControlService,
    shutdown: &watch::Receiver<bool>,
    refusals: &Arc<Semaphore>,
    connections: &mut JoinSet<()>,
) {
    let address = peer.ip().to_canonical();
    match service.slot_for(address) {
        Ok(slot) => {
            connections.spawn(serve(stream, peer, slot, service.clone(), shutdown.clone()));
        }
        Err(NoSlot::Full(refusal)) => match service.room_waiter(address) {
            Some(place) => {
                let service = service.clone();
                let shutdown = shutdown.clone();
                connections.spawn(async move {
                    match service.slot_once_room_is_made(address, place).await {
                        Ok(slot) => serve(stream, peer, slot, service, shutdown).await,
                        Err(refusal) => {
                            tracing::warn!(%peer, "control connection refused: {}", refusal.line());
                            refuse(stream, format!("{}\n", refusal.line())).await
                        }
                    }
                });
            }
            None => refuse_now(stream, peer, refusal, refusals, connections),
        },
        Err(NoSlot::AddressShare(refusal)) => {
            refuse_now(stream, peer, refusal, refusals, connections)
        }
    }
}

/// Refuses a connection without a slot: says why and closes it, a few at a time with a
/// goodbye, the rest at once.
fn refuse_now(
    stream: TcpStream,
    peer: SocketAddr,
    refusal: String,
    refusals: &Arc<Semaphore>,
    connections: &mut JoinSet<()>,
) {
    tracing::warn!(%peer, "control connection refused: {refusal}");
    let line = format!("{refusal}\n");
    match Arc::clone(refusals).try_acquire_owned() {
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

/// One connection's session in its slot, which is freed when it ends.
async fn serve(
    stream: TcpStream,
    peer: SocketAddr,
    slot: Slot,
    service: ControlService,
    shutdown: watch::Receiver<bool>,
) {
    let _ = stream.set_nodelay(true);
    let transport = TcpTransport::new(stream, service.settings().write_timeout);
    let reserved = slot.reserved;
    service
        .converse_in(
            transport,
            &peer.to_string(),
            Some(peer.ip().to_canonical()),
            shutdown,
            reserved,
        )
        .await;
    drop(slot);
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

/// A TCP connection as a session's transport: request lines of at most [`MAX_LINE_BYTES`],
/// an overlong one skipped, and one past [`MAX_SKIPPED_BYTES`] without a line feed ends it.
struct TcpTransport {
    reader: LineReader<OwnedReadHalf>,
    write: OwnedWriteHalf,
    /// A client that does not read a line for this long is disconnected.
    write_timeout: Duration,
}

impl TcpTransport {
    fn new(stream: TcpStream, write_timeout: Duration) -> TcpTransport {
        let (read, write) = stream.into_split();
        TcpTransport {
            reader: LineReader::new(read, MAX_LINE_BYTES, MAX_SKIPPED_BYTES),
            write,
            write_timeout,
        }
    }
}

impl Transport for TcpTransport {
    async fn next(&mut self) -> Incoming {
        match self.reader.next_line().await {
            Ok(Some(line)) => Incoming::Line(line),
            Ok(None) => Incoming::Closed,
            Err(e) => {
                tracing::debug!("control connection read failed: {e}");
                Incoming::Closed
            }
        }
    }

    async fn send(&mut self, line: &str) -> bool {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        matches!(
            tokio::time::timeout(self.write_timeout, self.write.write_all(&bytes)).await,
            Ok(Ok(()))
        )
    }

    async fn close(&mut self) {
        let _ = tokio::time::timeout(self.write_timeout, self.write.shutdown()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::tokens::Grant;
    use crate::table::control;

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
            let err = check_listen(addr.parse().unwrap(), &none)
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with(&format!("refusing to listen on {addr}")),
                "{err}"
            );
            assert!(check_listen(addr.parse().unwrap(), &some).is_ok());
        }
    }
}
