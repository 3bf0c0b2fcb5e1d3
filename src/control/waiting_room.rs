//! The control connections that have not authenticated yet, oldest first. When every slot is
//! taken, the oldest of them that has waited long enough is asked to leave, so that a newcomer
//! gets its slot: connections that never authenticate (an idle flood from many addresses, which
//! the per-address share cannot stop) can then hold the port no longer than it takes a player
//! to send his token, instead of the 30 s authentication timeout.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

/// How long a connection may wait unauthenticated before a newcomer may displace it: far
/// longer than a client that has its token takes to send it (a few milliseconds; the page
/// connects only once its token is typed), so only connections that hold a slot without using
/// it are displaced, and short enough that a player gets in well within a second.
pub const DISPLACEABLE_AFTER_MS: u64 = 300;

/// A newcomer whose address already holds this many connections that have not authenticated
/// may not ask one to make room (it waits for a free slot like anyone): a flood's own
/// newcomers then cannot keep its connections young, and a player's address, which holds
/// none, is served first.
pub const MAX_WAITING_TO_ASK: usize = 2;

/// The unauthenticated connections. Cheap to clone; every clone is the same room.
#[derive(Debug, Clone, Default)]
pub struct WaitingRoom {
    inner: Arc<Mutex<Room>>,
}

#[derive(Debug, Default)]
struct Room {
    next_id: u64,
    /// By arrival: the first entry is the oldest.
    waiting: BTreeMap<u64, Entry>,
}

#[derive(Debug)]
struct Entry {
    /// When it arrived (ms).
    since: u64,
    /// It holds one of the slots kept for the players, the assistant and the arbiter.
    reserved: bool,
    /// Where it connects from, if known.
    address: Option<IpAddr>,
    /// How to ask it to leave.
    displaced: Arc<Notify>,
}

/// One connection's place in the room, given up when it authenticates or ends (dropped).
#[derive(Debug)]
pub struct Waiting {
    id: u64,
    room: WaitingRoom,
    /// Notified when a newcomer needs this connection's slot.
    pub displaced: Arc<Notify>,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Ok(mut room) = self.room.inner.lock() {
            room.waiting.remove(&self.id);
        }
    }
}

impl WaitingRoom {
    /// A connection from `address` arrives at `now_ms`, not yet authenticated; `reserved` when
    /// it holds one of the slots kept for the players, the assistant and the arbiter.
    pub fn enter(&self, now_ms: u64, reserved: bool, address: Option<IpAddr>) -> Waiting {
        let displaced = Arc::new(Notify::new());
        let mut room = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let id = room.next_id;
        room.next_id += 1;
        let entry = Entry {
            since: now_ms,
            reserved,
            address,
            displaced: Arc::clone(&displaced),
        };
        room.waiting.insert(id, entry);
        Waiting {
            id,
            room: self.clone(),
            displaced,
        }
    }

    /// Asks the oldest connection that has waited at least [`DISPLACEABLE_AFTER_MS`] to leave,
    /// one in an ordinary slot before one in the players' reserve (its slot would serve no
    /// observer); `false` when there is none (every connection is authenticated or has just
    /// come), or when the newcomer's address `asker` holds [`MAX_WAITING_TO_ASK`] connections
    /// that have not authenticated. The connection leaves the room at once, so two newcomers
    /// never displace the same one.
    pub fn make_room(&self, now_ms: u64, asker: IpAddr) -> bool {
        let mut room = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let held = room
            .waiting
            .values()
            .filter(|e| e.address == Some(asker))
            .count();
        if held >= MAX_WAITING_TO_ASK {
            return false;
        }
        let waited = |e: &Entry| now_ms.saturating_sub(e.since) >= DISPLACEABLE_AFTER_MS;
        let oldest_in = |reserved: bool| {
            room.waiting
                .iter()
                .find(|(_, e)| e.reserved == reserved && waited(e))
                .map(|(&id, _)| id)
        };
        let chosen = oldest_in(false).or_else(|| oldest_in(true));
        match chosen.and_then(|id| room.waiting.remove(&id)) {
            Some(entry) => {
                // A permit is stored if the connection is not waiting on it right now.
                entry.displaced.notify_one();
                true
            }
            None => false,
        }
    }

    /// How many connections are waiting.
    pub fn len(&self) -> usize {
        self.inner.lock().map(|r| r.waiting.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_that_waited_long_enough_leaves_first_and_only_once() {
        let room = WaitingRoom::default();
        let first = room.enter(0, false, flood(1));
        let second = room.enter(200, false, flood(1));
        let third = room.enter(1_500, false, flood(1));
        // Nobody has waited long enough yet.
        assert!(!room.make_room(250, player()));
        assert!(room.make_room(1_600, player()));
        // The first was asked, and has left the room: its permit waits for it.
        assert_eq!(room.len(), 2);
        assert!(futures_ready(&first.displaced));
        assert!(!futures_ready(&second.displaced));
        assert!(room.make_room(1_600, player()));
        assert!(futures_ready(&second.displaced));
        // The third has waited only 100 ms.
        assert!(!room.make_room(1_600, player()));
        drop(third);
        assert!(room.is_empty());
        // One in the players' slots is asked only when no ordinary one can be.
        let reserved = room.enter(0, true, flood(1));
        let ordinary = room.enter(100, false, flood(1));
        assert!(room.make_room(2_000, player()));
        assert!(futures_ready(&ordinary.displaced));
        assert!(!futures_ready(&reserved.displaced));
        assert!(room.make_room(2_000, player()));
        assert!(futures_ready(&reserved.displaced));
        // A connection that authenticated (its place dropped) is never asked.
        let authenticated = room.enter(0, false, flood(1));
        drop(authenticated);
        assert!(!room.make_room(10_000, player()));
        // A newcomer from an address that holds two connections not yet authenticated may
        // not ask for room; one from another address may.
        let _a = room.enter(0, false, flood(2));
        let _b = room.enter(0, false, flood(2));
        assert!(!room.make_room(1_000, IpAddr::from([10, 0, 0, 2])));
        assert!(room.make_room(1_000, player()));
    }

    fn flood(n: u8) -> Option<IpAddr> {
        Some(IpAddr::from([10, 0, 0, n]))
    }

    fn player() -> IpAddr {
        IpAddr::from([192, 0, 2, 1])
    }

    /// Whether a notification is stored for the connection (it would wake at once).
    fn futures_ready(notify: &Notify) -> bool {
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        let notified = notify.notified();
        let mut notified = std::pin::pin!(notified);
        notified.as_mut().poll(&mut cx).is_ready()
    }

    use std::future::Future;
}
