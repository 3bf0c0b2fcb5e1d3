//! A control-interface client for tests, over a blocking TCP connection: requests and their
//! replies on one side, `event` lines on the other.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use super::WAIT;
use super::net::connect_with_retries;

/// A control connection: replies arrive on one channel, `event` lines on another, each with
/// the Unix millisecond it arrived.
pub struct ControlClient {
    stream: TcpStream,
    replies: Receiver<String>,
    events: Receiver<(u64, String)>,
}

/// Milliseconds since the Unix epoch, the stand-in loudspeaker's time scale.
pub fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// A dropped client hangs up: its reader thread holds a second handle on the socket, which
/// alone would keep the connection open.
impl Drop for ControlClient {
    fn drop(&mut self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }
}

impl ControlClient {
    /// Connects to the control interface at `addr`, not yet authenticated.
    pub fn connect(addr: SocketAddr) -> ControlClient {
        let stream = connect_with_retries(addr);
        let (reply_tx, replies) = channel();
        let (event_tx, events) = channel();
        let reader = BufReader::new(stream.try_clone().expect("a second handle on the socket"));
        std::thread::spawn(move || {
            for line in reader.lines() {
                let line = match line {
                    Ok(l) => l,
                    Err(e) => {
                        eprintln!("control connection read failed: {e}");
                        break;
                    }
                };
                let sent = if line.starts_with("event ") {
                    event_tx.send((unix_ms(), line)).is_ok()
                } else {
                    reply_tx.send(line).is_ok()
                };
                if !sent {
                    break;
                }
            }
        });
        ControlClient {
            stream,
            replies,
            events,
        }
    }

    /// Connects and authenticates with `token`; a refusal fails the test.
    pub fn authenticated(addr: SocketAddr, token: &str) -> ControlClient {
        let mut client = ControlClient::connect(addr);
        let reply = client.ask(&format!("auth {token}"));
        assert!(reply.starts_with("ok"), "auth refused: {reply}");
        client
    }

    /// Sends one request and returns its reply (events meanwhile wait on their own channel).
    pub fn ask(&mut self, line: &str) -> String {
        writeln!(self.stream, "{line}").expect("the request is sent");
        self.replies.recv_timeout(WAIT).expect("a reply")
    }

    /// Waits for an event line satisfying `want`, failing with the events seen meanwhile.
    pub fn expect_event(&self, what: &str, want: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + WAIT;
        let mut seen = Vec::new();
        loop {
            match self
                .events
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok((_, line)) if want(&line) => return line,
                Ok((_, line)) => seen.push(line),
                Err(_) => panic!("no {what} within {WAIT:?}; saw {seen:#?}"),
            }
        }
    }

    /// The next event line with the Unix millisecond it arrived, or `None` after `within`.
    pub fn next_event(&self, within: Duration) -> Option<(u64, String)> {
        self.events.recv_timeout(within).ok()
    }

    /// Asks `status` until its reply contains `want`.
    pub fn wait_status(&mut self, want: &str) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let status = self.ask("status");
            if status.contains(want) {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "status never showed {want:?}: {status}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until the blind player is told exactly `text` (this connection must have asked
    /// for `events`).
    pub fn heard(&self, text: &str) {
        let want = format!("event say blind {text}");
        self.expect_event(text, |l| l == want);
    }
}
