//! A board behind a serial device (tokio-serial) or a serial-to-network bridge (TCP), behind one
//! interface: bytes in are decoded into sensor events, and an unplugged board is reconnected with
//! backoff and resynchronised from a fresh snapshot, so nothing is lost.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, watch};
use tokio_serial::SerialPortBuilderExt;

use crate::boards::{self, Decoded, Decoder, Protocol};
use crate::io::clock;

/// Where a board is attached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// A serial device (`/dev/ttyUSB0`, `/dev/ttyACM0`, `COM3`) at a baud rate.
    Serial { path: String, baud: u32 },
    /// A serial-to-network bridge, `tcp:HOST:PORT`.
    Tcp(String),
}

/// Why a text names no place a board can be attached at; the text is the one given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointError {
    #[error("{0:?}: expected tcp:HOST:PORT")]
    NoPort(String),
    #[error("{0:?}: expected tcp:HOST:PORT with a port number")]
    BadHostOrPort(String),
    #[error("empty device path")]
    Empty,
}

impl Endpoint {
    /// The serial default of each protocol: DGT boards run at 9600, Millennium and Certabo
    /// boards at 38400, the peg board at 115200 (USB CDC-ACM devices ignore it).
    pub fn default_baud(protocol: Protocol) -> u32 {
        match protocol {
            Protocol::Peg => 115_200,
            Protocol::Dgt => 9_600,
            Protocol::Millennium => boards::millennium::BAUD,
            Protocol::Certabo => boards::certabo::BAUD,
        }
    }

    /// Parses `tcp:HOST:PORT` or a device path, with the protocol's default baud rate.
    pub fn parse(text: &str, protocol: Protocol) -> Result<Endpoint, EndpointError> {
        let mut e: Endpoint = text.parse()?;
        if let Endpoint::Serial { baud, .. } = &mut e {
            *baud = Endpoint::default_baud(protocol);
        }
        Ok(e)
    }
}

impl FromStr for Endpoint {
    type Err = EndpointError;

    fn from_str(text: &str) -> Result<Endpoint, EndpointError> {
        if let Some(addr) = text.strip_prefix("tcp:") {
            let (host, port) = addr
                .rsplit_once(':')
                .ok_or_else(|| EndpointError::NoPort(text.to_owned()))?;
            if host.is_empty() || port.parse::<u16>().is_err() {
                return Err(EndpointError::BadHostOrPort(text.to_owned()));
            }
            return Ok(Endpoint::Tcp(addr.to_owned()));
        }
        if text.is_empty() {
            return Err(EndpointError::Empty);
        }
        Ok(Endpoint::Serial {
            path: text.to_owned(),
            baud: 115_200,
        })
    }
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Endpoint::Serial { path, baud } => write!(f, "{path} at {baud} baud"),
            Endpoint::Tcp(addr) => write!(f, "tcp:{addr}"),
        }
    }
}

/// What the link tells its owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkEvent {
    Connected(String),
    /// The board went away (unplugged, bridge closed); the link is already trying again.
    Disconnected(String),
    /// The board could not be opened (no such device, permission denied, connection refused);
    /// the link keeps trying with backoff. Sent once per distinct failure, not on every retry.
    Unreachable(String),
    /// A decoded event or a decode error (reported, skipped).
    Decoded(Decoded),
}

/// The delay before reconnect attempt `attempt` (0-based): doubling from 100 ms, never more
/// than 5 s, so a re-plugged board is found within seconds however long it was away.
pub fn reconnect_delay(attempt: u32) -> Duration {
    const FIRST_MS: u64 = 100;
    const MAX_MS: u64 = 5_000;
    let ms = FIRST_MS.saturating_mul(1u64 << attempt.min(16));
    Duration::from_millis(ms.min(MAX_MS))
}

trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}

/// The character frame of a protocol's serial line: 8N1, except the Millennium boards' 7O1.
fn serial_frame(protocol: Protocol) -> (tokio_serial::DataBits, tokio_serial::Parity) {
    match protocol {
        Protocol::Millennium => (tokio_serial::DataBits::Seven, tokio_serial::Parity::Odd),
        _ => (tokio_serial::DataBits::Eight, tokio_serial::Parity::None),
    }
}

async fn open(endpoint: &Endpoint, protocol: Protocol) -> std::io::Result<Box<dyn Stream>> {
    match endpoint {
        Endpoint::Serial { path, baud } => {
            let (data_bits, parity) = serial_frame(protocol);
            let port = tokio_serial::new(path, *baud)
                .data_bits(data_bits)
                .parity(parity)
                .stop_bits(tokio_serial::StopBits::One)
                .flow_control(tokio_serial::FlowControl::None)
                .open_native_async()
                .map_err(std::io::Error::other)?;
            Ok(Box::new(port))
        }
        Endpoint::Tcp(addr) => {
            let stream = tokio::net::TcpStream::connect(addr).await?;
            stream.set_nodelay(true)?;
            Ok(Box::new(stream))
        }
    }
}

/// Runs the link until `shutdown` turns true: connects, greets the board (identity and a full
/// snapshot), forwards decoded events, writes `commands` to the board, and reconnects with
/// backoff whenever the board goes away. A new decoder is made on every connection, so a
/// half-received message from before an unplug can never be glued to the new stream.
pub async fn run(
    endpoint: Endpoint,
    protocol: Protocol,
    events: mpsc::Sender<LinkEvent>,
    commands: mpsc::Receiver<Vec<u8>>,
    shutdown: watch::Receiver<bool>,
) {
    let decoder = move || boards::decoder(protocol);
    run_with(endpoint, protocol, decoder, events, commands, shutdown).await;
}

/// [`run`] with the decoder of each connection made by `new_decoder` (a Certabo board's carries
/// the calibration kept for it).
pub async fn run_with(
    endpoint: Endpoint,
    protocol: Protocol,
    mut new_decoder: impl FnMut() -> Box<dyn Decoder> + Send,
    events: mpsc::Sender<LinkEvent>,
    mut commands: mpsc::Receiver<Vec<u8>>,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut attempt = 0u32;
    let mut last_failure: Option<String> = None;
    loop {
        if *shutdown.borrow() {
            return;
        }
        let mut stream = match open(&endpoint, protocol).await {
            Ok(s) => s,
            Err(e) => {
                // Report a failure once, not on every retry, so the log stays readable.
                let message = format!("{endpoint}: {e}");
                if last_failure.as_ref() != Some(&message) {
                    tracing::warn!("board link: {message}; retrying");
                    if events
                        .send(LinkEvent::Unreachable(message.clone()))
                        .await
                        .is_err()
                    {
                        return;
                    }
                    last_failure = Some(message);
                }
                let delay = reconnect_delay(attempt);
                attempt = attempt.saturating_add(1);
                tokio::select! {
                    _ = tokio::time::sleep(delay) => continue,
                    _ = shutdown.changed() => return,
                }
            }
        };
        attempt = 0;
        last_failure = None;
        let mut decoder = new_decoder();
        if events
            .send(LinkEvent::Connected(endpoint.to_string()))
            .await
            .is_err()
        {
            return;
        }
        let reason = match stream.write_all(&decoder.greeting()).await {
            Err(e) => format!("writing to the board failed: {e}"),
            Ok(()) => {
                let mut buf = [0u8; 4096];
                let mut decoded = Vec::new();
                loop {
                    tokio::select! {
                        read = stream.read(&mut buf) => match read {
                            Ok(0) => break "the board closed the connection".to_owned(),
                            Ok(n) => {
                                let read_at = clock::now_ms();
                                decoder.feed(&buf[..n], read_at, &mut decoded);
                                for mut d in decoded.drain(..) {
                                    // Live, every event is stamped when it was read: a
                                    // board's own timestamps (`@1234 Le2`) run on its clock,
                                    // not ours.
                                    if let Ok(t) = &mut d {
                                        t.at = read_at;
                                    }
                                    if events.send(LinkEvent::Decoded(d)).await.is_err() {
                                        return;
                                    }
                                }
                            }
                            Err(e) => break format!("reading from the board failed: {e}"),
                        },
                        command = commands.recv() => match command {
                            Some(bytes) => {
                                if let Err(e) = stream.write_all(&bytes).await {
                                    break format!("writing to the board failed: {e}");
                                }
                            }
                            None => return,
                        },
                        _ = shutdown.changed() => return,
                    }
                }
            }
        };
        if events.send(LinkEvent::Disconnected(reason)).await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_is_capped() {
        let ms: Vec<u128> = (0..10).map(|a| reconnect_delay(a).as_millis()).collect();
        assert_eq!(ms, [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000, 5000]);
        assert_eq!(reconnect_delay(u32::MAX).as_millis(), 5000);
    }

    #[test]
    fn endpoint_errors_read_as_before() {
        let e = |text: &str| text.parse::<Endpoint>().unwrap_err().to_string();
        assert_eq!(e("tcp:nohost"), "\"tcp:nohost\": expected tcp:HOST:PORT");
        assert_eq!(
            e("tcp:host:http"),
            "\"tcp:host:http\": expected tcp:HOST:PORT with a port number"
        );
        assert_eq!(
            e("tcp::7000"),
            "\"tcp::7000\": expected tcp:HOST:PORT with a port number"
        );
        assert_eq!(e(""), "empty device path");
    }

    #[test]
    fn endpoints() {
        assert_eq!(
            Endpoint::parse("tcp:127.0.0.1:7000", Protocol::Dgt),
            Ok(Endpoint::Tcp("127.0.0.1:7000".into()))
        );
        assert_eq!(
            Endpoint::parse("/dev/ttyUSB0", Protocol::Dgt),
            Ok(Endpoint::Serial {
                path: "/dev/ttyUSB0".into(),
                baud: 9600
            })
        );
        assert!(Endpoint::parse("tcp:nohost", Protocol::Peg).is_err());
        assert!(Endpoint::parse("tcp:host:99999", Protocol::Peg).is_err());
    }

    /// Windows' COM port names are serial devices as they are (serialport adds the `\\.\`
    /// prefix COM10 and above need).
    #[test]
    fn com_ports_are_serial_devices() {
        for name in ["COM3", "COM12", r"\\.\COM12"] {
            assert_eq!(
                Endpoint::parse(name, Protocol::Peg),
                Ok(Endpoint::Serial {
                    path: name.into(),
                    baud: 115_200
                })
            );
        }
    }

    /// A COM port that is not there is an error naming it, not a panic (run under Wine by
    /// `scripts/cross.sh windows test`; on Linux the name is a missing file).
    #[tokio::test]
    async fn a_missing_com_port_is_an_error() {
        let endpoint = Endpoint::parse("COM250", Protocol::Peg).unwrap();
        let e = open(&endpoint, Protocol::Peg)
            .await
            .err()
            .expect("no COM250");
        assert!(!e.to_string().is_empty());
    }
}
