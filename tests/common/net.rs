//! Sockets for tests: a free port on 127.0.0.1, and connecting to a server that may still be
//! starting.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use super::WAIT;

/// A port on 127.0.0.1 that was free a moment ago (the system picked it, then it was let go).
/// Prefer letting the server bind port 0 and say its address where it can.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port on 127.0.0.1")
        .port()
}

/// Connects to `addr`, trying again while nothing listens there yet, for up to [`WAIT`].
pub fn connect_with_retries(addr: SocketAddr) -> TcpStream {
    let deadline = Instant::now() + WAIT;
    loop {
        match TcpStream::connect(addr) {
            Ok(stream) => return stream,
            Err(e) => assert!(
                Instant::now() < deadline,
                "nothing listened on {addr} within {WAIT:?}: {e}"
            ),
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits until something accepts connections on 127.0.0.1:`port`.
pub fn wait_for_port(port: u16) {
    drop(connect_with_retries(SocketAddr::from((
        [127, 0, 0, 1],
        port,
    ))));
}
