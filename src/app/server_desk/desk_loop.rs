//! The loop both server desks run (ICCF's XFCC, lichess correspondence): ask the server for
//! the list of games every period (at once when he lists his games or turns to one, unless it
//! is failing, when the back-off's wait holds), look at the tables for what he released, take
//! the keys his tables pass to the desk (`KC` at a server game), and at shutdown join the
//! tables' actors.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{broadcast, mpsc, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::boards::BoardKey;
use crate::control::hub::TableHandle;
use crate::table::event::TableEvent;

/// How often the tables are looked at for a move he released.
const LOOK: Duration = Duration::from_millis(300);
/// The keys waiting for the desk: a key is rare (a person presses it).
const KEYS_QUEUE: usize = 16;

/// A key his table passed to the desk, with the table's name.
pub(super) type DeskKey = (Arc<str>, BoardKey);

/// What a server desk does in the loop.
pub(super) trait ServerDesk {
    /// One list of games from the server, each brought in step with its table.
    async fn poll(&mut self);
    /// The wait until the next list: the period, or the back-off while the server fails.
    fn wait(&self) -> Duration;
    /// The server is failing (a poke does not shorten the back-off).
    fn failing(&self) -> bool;
    /// Sends what he released and the server has not got.
    async fn send_due(&mut self);
    /// A key his table `table` passed to the desk.
    async fn key(&mut self, table: &str, key: BoardKey);
    /// The daemon's shutdown signal.
    fn shutdown(&self) -> watch::Receiver<bool>;
    /// The server games' tables' actors (and their key forwarders), joined at shutdown.
    fn tasks(&mut self) -> &mut JoinSet<()>;
}

/// The keys' channel of a desk: the sender each table's forwarder gets, the receiver the loop.
pub(super) fn key_channel() -> (mpsc::Sender<DeskKey>, mpsc::Receiver<DeskKey>) {
    mpsc::channel(KEYS_QUEUE)
}

/// Passes the keys table `handle` reports for the desk (`TableEvent::Key` of `KC`) to `keys`
/// until shutdown or the table's end.
pub(super) fn forward_keys(
    tasks: &mut JoinSet<()>,
    handle: &TableHandle,
    keys: mpsc::Sender<DeskKey>,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut events = handle.events.subscribe();
    let name = Arc::clone(&handle.name);
    tasks.spawn(async move {
        while !*shutdown.borrow() {
            tokio::select! {
                changed = shutdown.changed() => if changed.is_err() { return },
                event = events.recv() => match event {
                    Ok(event) => {
                        if let TableEvent::Key(key @ BoardKey::Claim) = *event
                            && keys.send((Arc::clone(&name), key)).await.is_err()
                        {
                            return;
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::warn!(table = %name, missed, "the desk missed events of a server game's table");
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                },
            }
        }
    });
}

/// Runs `desk` until shutdown; its tables' actors are joined before it ends. `poke` changes
/// when he lists his games (`KL`, `games`) or turns to a server game.
pub(super) async fn run<D: ServerDesk>(
    mut desk: D,
    mut poke: watch::Receiver<u64>,
    mut keys: mpsc::Receiver<DeskKey>,
) {
    let mut shutdown = desk.shutdown();
    let mut next = Instant::now();
    let mut look = tokio::time::interval(LOOK);
    look.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    while !*shutdown.borrow() {
        tokio::select! {
            _ = shutdown.changed() => {}
            _ = tokio::time::sleep_until(next) => {
                desk.poll().await;
                next = Instant::now() + desk.wait();
            }
            Ok(()) = poke.changed() => {
                if !desk.failing() {
                    next = Instant::now();
                }
            }
            Some((table, key)) = keys.recv() => desk.key(&table, key).await,
            _ = look.tick() => desk.send_due().await,
        }
    }
    while desk.tasks().join_next().await.is_some() {}
}
