//! A board's link as a task: the link (`io::link`) with its decoder, its events forwarded to a
//! table's (or the desk's) board channel tagged with the board.

use std::path::PathBuf;

use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

use crate::app::table_actor::BoardMessage;
use crate::boards::{Decoder, Protocol};
use crate::io::link::{self, Endpoint, LinkEvent};
use crate::table::state::BoardId;

/// Board events waiting for a busy table.
pub const BOARD_BACKLOG: usize = 256;

/// A board link whose events reach the table tagged with the board.
pub fn spawn_link(
    tasks: &mut JoinSet<()>,
    endpoint: Endpoint,
    protocol: Protocol,
    board: BoardId,
    to_table: mpsc::Sender<BoardMessage>,
    shutdown: &watch::Receiver<bool>,
) {
    let decoders = Box::new(move || crate::boards::decoder(protocol));
    spawn_link_with(
        tasks, endpoint, protocol, decoders, board, to_table, shutdown,
    );
}

/// The decoder of each connection of a board speaking `protocol`: a Certabo board's keeps its
/// calibration in `calibration` (`docs/certabo.md`).
pub fn decoders(
    protocol: Protocol,
    calibration: PathBuf,
) -> Box<dyn FnMut() -> Box<dyn Decoder> + Send> {
    match protocol {
        Protocol::Certabo => Box::new(crate::io::calibration::certabo_decoders(calibration)),
        _ => Box::new(move || crate::boards::decoder(protocol)),
    }
}

/// [`spawn_link`] with the decoder of each connection made by `decoders`.
pub fn spawn_link_with(
    tasks: &mut JoinSet<()>,
    endpoint: Endpoint,
    protocol: Protocol,
    decoders: Box<dyn FnMut() -> Box<dyn Decoder> + Send>,
    board: BoardId,
    to_table: mpsc::Sender<BoardMessage>,
    shutdown: &watch::Receiver<bool>,
) {
    let (events_tx, mut events) = mpsc::channel::<LinkEvent>(BOARD_BACKLOG);
    // The table sends nothing to its boards yet: the link greets them itself.
    let (_commands_tx, commands) = mpsc::channel(1);
    tasks.spawn(link::run_with(
        endpoint,
        protocol,
        decoders,
        events_tx,
        commands,
        shutdown.clone(),
    ));
    tasks.spawn(async move {
        let _keep_commands_open = _commands_tx;
        while let Some(e) = events.recv().await {
            if to_table.send((board, e)).await.is_err() {
                break;
            }
        }
    });
}
