//! Plugs a simulated board in where the daemon can reach it: a pseudo-terminal on Unix, a local
//! TCP socket on Windows (which has no pseudo-terminals), so `--peg sim` works on both.
//!
//! The socket stays open for the whole run and serves one host at a time, like a pty that the
//! host closes and reopens: a host that disconnects and connects again finds the same board,
//! and what the board sends while no host is connected is dropped (the link asks for a fresh
//! snapshot on every connection).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex, PoisonError};

use anyhow::Context;

use crate::io::link::Endpoint;
use crate::io::simulator::{SimulatedBoard, TryCloneDevice, serve_lines};

/// A board's device on a local TCP port: reads come from the connected host (waiting for one
/// when none is), writes go to it (dropped when none is).
#[derive(Clone)]
pub struct SocketDevice {
    listener: Arc<TcpListener>,
    host: Arc<Mutex<Option<TcpStream>>>,
}

impl SocketDevice {
    /// Listens on a free port of the loopback address: only this computer reaches the board.
    pub fn bind_local() -> anyhow::Result<SocketDevice> {
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .context("listening on a local port for the simulated board")?;
        Ok(SocketDevice {
            listener: Arc::new(listener),
            host: Arc::new(Mutex::new(None)),
        })
    }

    pub fn local_addr(&self) -> anyhow::Result<SocketAddr> {
        self.listener
            .local_addr()
            .context("naming the simulated board's port")
    }

    fn set_host(&self, stream: Option<TcpStream>) {
        *self.host.lock().unwrap_or_else(PoisonError::into_inner) = stream;
    }

    fn current_host(&self) -> Option<TcpStream> {
        let host = self.host.lock().unwrap_or_else(PoisonError::into_inner);
        host.as_ref().and_then(|s| s.try_clone().ok())
    }
}

impl Read for SocketDevice {
    /// Blocks until the host sends something; a host that went away is replaced by the next
    /// one to connect. Ends only when the listening socket fails.
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let mut stream = match self.current_host() {
                Some(s) => s,
                None => {
                    let (s, _peer) = self.listener.accept()?;
                    s.set_nodelay(true).ok();
                    self.set_host(Some(s.try_clone()?));
                    s
                }
            };
            match stream.read(buf) {
                Ok(n) if n > 0 => return Ok(n),
                _ => self.set_host(None),
            }
        }
    }
}

impl Write for SocketDevice {
    /// Sends to the connected host; with none (or one that just went away) the bytes are
    /// dropped, as an unplugged board's would be.
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(mut s) = self.current_host()
            && s.write_all(buf).is_err()
        {
            self.set_host(None);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl TryCloneDevice for SocketDevice {
    fn try_clone_device(&self) -> anyhow::Result<Self> {
        Ok(self.clone())
    }
}

/// Serves `board` on a local TCP port in a thread of its own, driven by operator lines sent on
/// the returned channel; the endpoint is where the daemon's link connects.
pub fn spawn_on_socket(
    board: SimulatedBoard,
) -> anyhow::Result<(Endpoint, std::sync::mpsc::Sender<String>)> {
    let device = SocketDevice::bind_local()?;
    let addr = device.local_addr()?;
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::Builder::new()
        .name("simulated-board".into())
        .spawn(move || {
            if let Err(e) = serve_lines(board, device, rx.into_iter().map(Ok), false) {
                tracing::error!(error = %e, "simulated board stopped");
            }
        })
        .context("starting the simulated board")?;
    Ok((Endpoint::Tcp(addr.to_string()), tx))
}

/// A simulated board plugged in for the daemon (`--peg sim`, the desk's simulated board): on a
/// pseudo-terminal on Unix, on a local TCP port on Windows. Returns where the link connects
/// and the channel for the operator's lines.
pub fn plug_in(
    board: SimulatedBoard,
    protocol: crate::boards::Protocol,
) -> anyhow::Result<(Endpoint, std::sync::mpsc::Sender<String>)> {
    #[cfg(unix)]
    {
        let (path, operator) = crate::io::simulator::spawn_on_pty(board)?;
        let endpoint = Endpoint::Serial {
            path: path.display().to_string(),
            baud: Endpoint::default_baud(protocol),
        };
        Ok((endpoint, operator))
    }
    #[cfg(not(unix))]
    {
        let _ = protocol;
        spawn_on_socket(board)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boards::Protocol;
    use crate::chess::game::Game;
    use crate::chess::language::Language;
    use std::io::{BufRead, BufReader};

    fn read_line(reader: &mut BufReader<TcpStream>) -> String {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        line
    }

    /// The board on a socket answers a host, keeps its state when the host reconnects, and
    /// sends the operator's moves to whichever host is connected.
    #[test]
    fn a_board_on_a_socket_serves_one_host_after_another() {
        let board = SimulatedBoard::new(Protocol::Peg, Game::new(), Language::english().clone());
        let (endpoint, operator) = spawn_on_socket(board).unwrap();
        let Endpoint::Tcp(addr) = endpoint else {
            panic!("expected a tcp endpoint, got {endpoint}");
        };
        let connect = || {
            let s = TcpStream::connect(&addr).unwrap();
            s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
                .unwrap();
            (s.try_clone().unwrap(), BufReader::new(s))
        };
        let (mut w, mut r) = connect();
        w.write_all(b"V\n").unwrap();
        assert_eq!(read_line(&mut r), "Vannabella simulated peg board 1.0\n");
        drop((w, r));
        // A second host: the same board, the operator's move reaches it.
        let (mut w, mut r) = connect();
        w.write_all(b"?\n").unwrap();
        let before = read_line(&mut r);
        assert!(before.starts_with('S'), "{before:?}");
        operator.send("e4".into()).unwrap();
        let lift = read_line(&mut r);
        assert_eq!(lift, "Le2\n");
        w.write_all(b"?\n").unwrap();
        let mut after = read_line(&mut r);
        while !after.starts_with('S') {
            after = read_line(&mut r);
        }
        assert_ne!(before, after, "the snapshot shows the move");
    }
}
