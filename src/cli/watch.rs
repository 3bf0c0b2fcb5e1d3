//! `annabella watch`: a live board through the real link, codec and detector, printing each
//! conclusion as it happens (the daemon's board path without the rest of the daemon).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use tokio::sync::{mpsc, watch};

use crate::boards::{self, Decoder, Millis, Protocol};
use crate::cli::board_session::BoardSession;
use crate::cli::replay::{emit, parse_protocol, parse_touch_move};
use crate::io::link::{self, Endpoint, LinkEvent};
use crate::io::{calibration, clock};
use crate::table::detector::TouchMove;

#[derive(Debug, Args)]
pub struct WatchArgs {
    #[arg(long, value_parser = parse_protocol)]
    pub protocol: Protocol,
    /// The board: a serial device (/dev/ttyUSB0, /dev/ttyACM0, COM3) or tcp:HOST:PORT.
    #[arg(long)]
    pub device: String,
    /// Serial speed (default: 115200 for peg boards, 9600 for DGT, 38400 for Millennium and
    /// Certabo).
    #[arg(long)]
    pub baud: Option<u32>,
    /// Certabo boards: the calibration file, read when the board connects and written when a
    /// start position teaches a new one (`docs/certabo.md`). Without it the start position is
    /// learned afresh on each connection.
    #[arg(long, value_name = "FILE")]
    pub calibration: Option<PathBuf>,
    #[command(flatten)]
    pub start: super::StartArgs,
    #[arg(long, default_value = "off", value_parser = parse_touch_move)]
    pub touch_move: TouchMove,
    #[arg(long, default_value_t = boards::debounce::DEFAULT_WINDOW)]
    pub debounce_ms: Millis,
}

pub fn run(args: WatchArgs) -> anyhow::Result<ExitCode> {
    let mut endpoint = Endpoint::parse(&args.device, args.protocol).map_err(anyhow::Error::msg)?;
    if let (Endpoint::Serial { baud, .. }, Some(b)) = (&mut endpoint, args.baud) {
        *baud = b;
    }
    let session = BoardSession::new(
        args.protocol,
        args.start.game()?,
        args.touch_move,
        args.debounce_ms,
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let protocol = args.protocol;
    let decoders: Box<dyn FnMut() -> Box<dyn Decoder> + Send> = match (protocol, args.calibration) {
        (Protocol::Certabo, Some(path)) => Box::new(calibration::certabo_decoders(path)),
        _ => Box::new(move || boards::decoder(protocol)),
    };
    runtime.block_on(watch_board(endpoint, protocol, decoders, session))
}

async fn watch_board(
    endpoint: Endpoint,
    protocol: Protocol,
    decoders: Box<dyn FnMut() -> Box<dyn Decoder> + Send>,
    mut session: BoardSession,
) -> anyhow::Result<ExitCode> {
    let (events_tx, mut events) = mpsc::channel(1024);
    let (_commands_tx, commands) = mpsc::channel(16);
    let (shutdown_tx, shutdown) = watch::channel(false);
    let link = tokio::spawn(link::run_with(
        endpoint, protocol, decoders, events_tx, commands, shutdown,
    ));
    let mut out = std::io::stdout();
    let mut lines = Vec::new();
    loop {
        let sleep = match session.next_deadline() {
            Some(at) => Duration::from_millis(at.saturating_sub(clock::now_ms())),
            None => Duration::from_secs(3600),
        };
        tokio::select! {
            event = events.recv() => match event {
                Some(LinkEvent::Connected(what)) => {
                    session.reconnected();
                    lines.push(format!("connected {what}"));
                }
                Some(LinkEvent::Disconnected(why)) => lines.push(format!("disconnected {why}")),
                Some(LinkEvent::Unreachable(why)) => {
                    lines.push(format!("waiting {why}; retrying until the board answers"));
                }
                Some(LinkEvent::Decoded(item)) => session.feed(item, true, &mut lines),
                None => break,
            },
            _ = tokio::time::sleep(sleep) => session.poll(clock::now_ms(), &mut lines),
            _ = tokio::signal::ctrl_c() => break,
        }
        emit(&mut out, &mut lines)?;
    }
    let _ = shutdown_tx.send(true);
    let _ = link.await;
    Ok(ExitCode::SUCCESS)
}
