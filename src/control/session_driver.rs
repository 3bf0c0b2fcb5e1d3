//! The one async driver of control sessions: a [`Session`] fed from a transport (a TCP
//! connection of the control interface, a WebSocket of the web page), its actions carried out
//! against the [`Hub`]'s tables, its replies and the subscribed table's events written back.
//!
//! The transports only frame lines; what a connection may do, and every reply, is the
//! session's. Both transports share one connection cap ([`ControlService::slot_for`]): the
//! last quarter of its slots kept for the players, the assistant and the arbiter, so that
//! observers and connections that never authenticate cannot take their places.

use std::future::Future;
use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, broadcast, watch};

use std::net::IpAddr;

use crate::control::guessers::{Guessers, Verdict};
use crate::control::hub::{EVENT_BACKLOG, Hub};
use crate::control::session::{
    self, Action, Answer, ControlSettings, Notice, SHUTDOWN_LINE, Session, no_desk,
};
use crate::control::waiting_room::{DISPLACEABLE_AFTER_MS, WaitingRoom};
use crate::control::wire::{RefusalLine, ok_line};
use crate::io::clock;
use crate::io::lines::Line;
use crate::io::speech::devices::{self, AudioOutputs};
use crate::io::tokens::{Grant, Tokens};
use crate::table::control::{ErrorCode, Refusal, Role};
use crate::table::event::TableEvent;

/// What a transport read.
#[derive(Debug)]
pub enum Incoming {
    /// One request line (or an overlong one, or a runaway).
    Line(Line),
    /// Input that is not a request line in this transport (a binary WebSocket message); the
    /// refusal is the reply.
    Refused(Refusal),
    /// The client has gone.
    Closed,
}

/// One client connection, line for line.
pub trait Transport: Send {
    /// The next input. Cancel-safe: it races events and shutdown, and a read interrupted there
    /// loses nothing.
    fn next(&mut self) -> impl Future<Output = Incoming> + Send;
    /// Writes one line (without its line feed); `false` when the client has gone or has not
    /// read it in time.
    fn send(&mut self, line: &str) -> impl Future<Output = bool> + Send;
    /// Writes one table event; by default its control-protocol line
    /// ([`crate::control::wire::event_line`]). The page's transport writes its fields by name.
    fn send_event(&mut self, event: &TableEvent) -> impl Future<Output = bool> + Send {
        let line = crate::control::wire::event_line(event);
        async move { self.send(&line).await }
    }
    /// Ends the connection after the last line; bounded in time.
    fn close(&mut self) -> impl Future<Output = ()> + Send;
}

/// What every control connection needs: the tables, the tokens, the limits and the shared
/// connection slots. Cheap to clone.
#[derive(Debug, Clone)]
pub struct ControlService {
    hub: Hub,
    tokens: Tokens,
    settings: Arc<ControlSettings>,
    /// Slots anyone may take, and the last few kept for the players, the assistant and the
    /// arbiter ([`players_reserve`]): an observer, or a connection that never authenticates,
    /// cannot hold those.
    slots: Arc<Semaphore>,
    reserved: Arc<Semaphore>,
    /// Slots held per client address: one address cannot take them all.
    per_address: PerAddress,
    /// Wrong tokens on the whole daemon, whatever connection they come on.
    wrong_tokens: Arc<std::sync::Mutex<Guessers>>,
    /// Connections not yet authenticated: when every slot is taken, the oldest makes room.
    waiting: WaitingRoom,
    /// The addresses of the newcomers waiting for room: one each, so that an attacker's
    /// newcomers cannot take every place in the queue.
    room_waiters: RoomWaiters,
    /// The speech outputs `audio-devices` lists and `audio-device` moves (none when embedded
    /// without them).
    audio: Option<Arc<AudioOutputs>>,
}

/// Newcomers that may wait for room at once (each from another address); more are refused.
pub const ROOM_WAITERS: usize = 16;

/// The newcomers waiting for room, and the slots promised to them: a connection asked to make
/// room frees its slot for the newcomer who asked, not for whoever connects first.
#[derive(Debug, Default)]
struct Queue {
    addresses: std::collections::HashSet<IpAddr>,
    /// Slots freed (or being freed) by displaced connections for the waiting newcomers.
    promised: usize,
}

type RoomWaiters = Arc<std::sync::Mutex<Queue>>;

/// A newcomer's place in the queue for room (dropped: free again, with its promises).
#[derive(Debug)]
pub struct RoomWaiter {
    address: IpAddr,
    waiters: RoomWaiters,
    /// Slots promised to this newcomer and not yet taken.
    promised: usize,
}

impl RoomWaiter {
    /// A connection was asked to make room for this newcomer: its slot is promised to it.
    fn promise(&mut self) {
        if let Ok(mut queue) = self.waiters.lock() {
            queue.promised += 1;
            self.promised += 1;
        }
    }

    /// The newcomer took its slot, or gives up: its promises are void.
    fn release(&mut self) {
        if let Ok(mut queue) = self.waiters.lock() {
            queue.promised = queue.promised.saturating_sub(self.promised);
            self.promised = 0;
        }
    }
}

impl Drop for RoomWaiter {
    fn drop(&mut self) {
        self.release();
        if let Ok(mut queue) = self.waiters.lock() {
            queue.addresses.remove(&self.address);
        }
    }
}

/// Why a connection got no slot, and the line it is told.
#[derive(Debug, Clone, PartialEq)]
pub enum NoSlot {
    /// Its address holds its share already.
    AddressShare(String),
    /// Every slot is taken.
    Full(String),
}

impl NoSlot {
    pub fn line(&self) -> &str {
        match self {
            NoSlot::AddressShare(line) | NoSlot::Full(line) => line,
        }
    }
}

/// How long a newcomer who finds every slot taken waits for a connection that has not
/// authenticated to make room: long enough for one that has just come to have waited
/// [`DISPLACEABLE_AFTER_MS`] and to leave.
const ROOM_WAIT: std::time::Duration =
    std::time::Duration::from_millis(DISPLACEABLE_AFTER_MS + 1_000);

/// Slots held per client address.
type PerAddress = Arc<std::sync::Mutex<std::collections::HashMap<IpAddr, usize>>>;

/// A connection slot, held for the connection's life (dropped: free again).
#[derive(Debug)]
pub struct Slot {
    _permit: OwnedSemaphorePermit,
    address: Option<(IpAddr, PerAddress)>,
    /// One of the slots kept for the players, the assistant and the arbiter: an observer is
    /// closed once it authenticates.
    pub reserved: bool,
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some((ip, map)) = &self.address
            && let Ok(mut map) = map.lock()
            && let Some(n) = map.get_mut(ip)
        {
            *n -= 1;
            if *n == 0 {
                map.remove(ip);
            }
        }
    }
}

impl ControlService {
    pub fn new(hub: Hub, tokens: Tokens, settings: ControlSettings) -> ControlService {
        let reserve = players_reserve(settings.max_connections);
        ControlService {
            hub,
            tokens,
            slots: Arc::new(Semaphore::new(settings.max_connections - reserve)),
            reserved: Arc::new(Semaphore::new(reserve)),
            per_address: Arc::default(),
            wrong_tokens: Arc::new(std::sync::Mutex::new(Guessers::new(clock::now_ms()))),
            waiting: WaitingRoom::default(),
            room_waiters: RoomWaiters::default(),
            settings: Arc::new(settings),
            audio: None,
        }
    }

    /// The same service, answering `audio-devices` and `audio-device` on `audio`.
    pub fn with_audio(mut self, audio: Arc<AudioOutputs>) -> ControlService {
        self.audio = Some(audio);
        self
    }

    /// A slot for a client at `address`: refused (with the line to say) when that address
    /// already holds its share or every slot is taken; the last slots only for the players,
    /// the assistant and the arbiter. Slots promised to newcomers waiting for room are not
    /// given to others.
    pub fn slot_for(&self, address: IpAddr) -> Result<Slot, NoSlot> {
        self.take_slot(address, 0)
    }

    /// A slot for `address`, unless every free one is promised to another newcomer (`mine`:
    /// the slots promised to this one).
    fn take_slot(&self, address: IpAddr, mine: usize) -> Result<Slot, NoSlot> {
        let max = self.settings.max_connections;
        let share = per_address_share(max);
        let mut map = self
            .per_address
            .lock()
            .map_err(|_| NoSlot::Full(self.too_many_connections()))?;
        let held = map.get(&address).copied().unwrap_or(0);
        // Below eight slots there is no share: the cap itself is the limit.
        if share < max && held >= share {
            return Err(NoSlot::AddressShare(session::too_many_from_address(share)));
        }
        let promised = self.room_waiters.lock().map(|q| q.promised).unwrap_or(0);
        let others = promised.saturating_sub(mine);
        let free = self.slots.available_permits() + self.reserved.available_permits();
        if others > 0 && free <= others {
            return Err(NoSlot::Full(self.too_many_connections()));
        }
        let (permit, reserved) = match Arc::clone(&self.slots).try_acquire_owned() {
            Ok(p) => (p, false),
            Err(_) => match Arc::clone(&self.reserved).try_acquire_owned() {
                Ok(p) => (p, true),
                Err(_) => return Err(NoSlot::Full(self.too_many_connections())),
            },
        };
        *map.entry(address).or_insert(0) += 1;
        Ok(Slot {
            _permit: permit,
            address: Some((address, Arc::clone(&self.per_address))),
            reserved,
        })
    }

    /// A slot for a newcomer who found every slot taken (waiting in `place`): the connection
    /// that has waited longest without authenticating (at least [`DISPLACEABLE_AFTER_MS`]) is
    /// asked to leave, and its slot, promised to this newcomer, taken as soon as it has gone.
    /// Another connection is asked at most every 100 ms. Refused after [`ROOM_WAIT`] when
    /// every connection has authenticated.
    pub async fn slot_once_room_is_made(
        &self,
        address: IpAddr,
        mut place: RoomWaiter,
    ) -> Result<Slot, NoSlot> {
        const ASK_AGAIN_AFTER: std::time::Duration = std::time::Duration::from_millis(100);
        let deadline = tokio::time::Instant::now() + ROOM_WAIT;
        let mut asked: Option<tokio::time::Instant> = None;
        loop {
            match self.take_slot(address, place.promised) {
                Err(NoSlot::Full(line)) if tokio::time::Instant::now() >= deadline => {
                    return Err(NoSlot::Full(line));
                }
                Err(NoSlot::Full(_)) => {
                    let now = tokio::time::Instant::now();
                    if asked.is_none_or(|at| now - at >= ASK_AGAIN_AFTER)
                        && self.waiting.make_room(clock::now_ms(), address)
                    {
                        place.promise();
                        asked = Some(now);
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(5)).await
                }
                taken => {
                    place.release();
                    return taken;
                }
            }
        }
    }

    /// A place for a newcomer from `address` to wait for room when every slot is taken: none
    /// when that address has a newcomer waiting already or [`ROOM_WAITERS`] are waiting.
    pub fn room_waiter(&self, address: IpAddr) -> Option<RoomWaiter> {
        let mut queue = self.room_waiters.lock().ok()?;
        if queue.addresses.len() >= ROOM_WAITERS || !queue.addresses.insert(address) {
            return None;
        }
        Some(RoomWaiter {
            address,
            waiters: Arc::clone(&self.room_waiters),
            promised: 0,
        })
    }

    pub fn settings(&self) -> &ControlSettings {
        &self.settings
    }

    /// The line a connection beyond the cap gets before it is closed.
    pub fn too_many_connections(&self) -> String {
        session::too_many_connections(self.settings.max_connections)
    }

    /// Whether `token` may use `table`, by the sessions' own check ([`session::authorize`]).
    /// A wrong token counts against the daemon's budget of wrong tokens as a session's does,
    /// and is logged (`peer` names the client); past the budget the refusal says so.
    pub fn authorize(&self, token: &str, table: &str, peer: &str) -> Result<Grant, Refusal> {
        let result = session::authorize(&self.tokens, &self.hub.names(), token, table);
        if result.is_err()
            && session::check_token(&self.tokens, token).is_none()
            && self.wrong_token(peer) == Verdict::OverBudget
        {
            return Err(session::too_many_wrong_tokens_refusal());
        }
        result
    }

    /// A wrong token from `peer`, on any port: counted against the daemon's budget; logged
    /// one by one within it, and as a count every few seconds past it.
    fn wrong_token(&self, peer: &str) -> Verdict {
        let now = clock::now_ms();
        let Ok(mut guessers) = self.wrong_tokens.lock() else {
            return Verdict::OverBudget;
        };
        let verdict = guessers.wrong(now);
        let summary = guessers.summary(now);
        drop(guessers);
        match verdict {
            Verdict::Answered => tracing::warn!(peer, "wrong token"),
            Verdict::OverBudget => {
                if let Some(count) = summary {
                    tracing::warn!(
                        count,
                        "wrong tokens past the daemon's budget: refused at once and their connections closed"
                    );
                }
            }
        }
        verdict
    }

    /// Runs one connection's session until the client leaves, the session closes it, or
    /// `shutdown` turns true (every connection then gets `event shutdown`). `peer` names the
    /// client in the log; `address` is where it connects from, if known (wrong tokens are
    /// counted by address).
    pub async fn converse<T: Transport>(
        &self,
        transport: T,
        peer: &str,
        address: Option<IpAddr>,
        shutdown: watch::Receiver<bool>,
    ) {
        self.converse_in(transport, peer, address, shutdown, false)
            .await;
    }

    /// [`ControlService::converse`] in a slot kept for the players, the assistant and the
    /// arbiter when `reserved`: a connection that authenticates as an observer is told so and
    /// closed.
    pub async fn converse_in<T: Transport>(
        &self,
        mut transport: T,
        peer: &str,
        address: Option<IpAddr>,
        mut shutdown: watch::Receiver<bool>,
        reserved: bool,
    ) {
        tracing::debug!(peer, ?address, "control connection");
        let settings = &*self.settings;
        let mut session = Session::new(
            self.tokens.clone(),
            // The tables as they are when it connects; each line sees the tables then.
            self.hub.names(),
            settings.clone(),
            clock::now_ms(),
        );
        let mut events: Option<broadcast::Receiver<Arc<TableEvent>>> = None;
        let auth_timer = tokio::time::sleep(settings.auth_timeout);
        tokio::pin!(auth_timer);
        // Until it authenticates, the connection may be asked to make room.
        let mut waiting = Some(self.waiting.enter(clock::now_ms(), reserved, address));
        let displaced = waiting.as_ref().map(|w| Arc::clone(&w.displaced));
        'conversation: loop {
            let step = tokio::select! {
                biased;
                () = stopped(&mut shutdown) => Step::Shutdown,
                _ = &mut auth_timer, if session.role().is_none() => Step::AuthTimeout,
                () = notified(displaced.as_deref()), if waiting.is_some() => Step::Displaced,
                input = transport.next() => Step::Input(input),
                event = maybe_next_event(events.as_mut()) => Step::Event(event),
            };
            let (lines, close) = match step {
                Step::Shutdown => {
                    // Events already published still reach a subscriber, then the goodbye.
                    let mut lines = drain_events(events.as_mut());
                    lines.push(Out::Line(SHUTDOWN_LINE.to_owned()));
                    (lines, true)
                }
                Step::AuthTimeout => match session.on_auth_timeout() {
                    Some(line) => (vec![Out::Line(line)], true),
                    None => continue,
                },
                Step::Displaced => {
                    tracing::info!(
                        peer,
                        "control connection closed: not authenticated, and a newcomer needed its slot"
                    );
                    (vec![Out::Line(session::displaced())], true)
                }
                Step::Input(Incoming::Line(line)) => {
                    session.set_tables(self.hub.names());
                    let action = session.on_line(line, clock::now_ms());
                    self.perform(action, &mut session, &mut events).await
                }
                Step::Input(Incoming::Refused(refusal)) => {
                    let action = session.on_refused(refusal, clock::now_ms());
                    self.perform(action, &mut session, &mut events).await
                }
                Step::Input(Incoming::Closed) => break,
                Step::Event(Some(out)) => (vec![out], false),
                Step::Event(None) => {
                    events = None;
                    session.on_events_closed();
                    continue;
                }
            };
            let mut close = close;
            let mut lines = lines;
            let notice = session.take_notice();
            if matches!(notice, Some(Notice::Authenticated(_))) {
                waiting = None;
            }
            let over_budget = matches!(notice, Some(Notice::WrongToken))
                && self.wrong_token(peer) == Verdict::OverBudget;
            match notice {
                Some(Notice::Authenticated(role)) if reserved && role == Role::Observer => {
                    tracing::info!(peer, %role, "control connection closed: the last slots are the players'");
                    lines = vec![Out::Line(session::kept_for_players(players_reserve(
                        self.settings.max_connections,
                    )))];
                    close = true;
                }
                Some(Notice::Authenticated(role)) => {
                    tracing::info!(peer, %role, "control connection authenticated");
                }
                // Within the budget the session's own answer stands (`wrong_token` logged it).
                Some(Notice::WrongToken) if over_budget => {
                    lines = vec![Out::Line(session::too_many_wrong_tokens())];
                    close = true;
                }
                Some(Notice::WrongToken) => {}
                Some(Notice::Http) => {
                    tracing::warn!(
                        peer,
                        "control connection closed: it spoke HTTP (a page on another origin?); nothing it sent was run"
                    );
                }
                Some(Notice::Flood) => {
                    tracing::warn!(peer, "control connection closed: request flood");
                }
                None => {}
            }
            for out in &lines {
                let sent = match out {
                    Out::Line(line) => transport.send(line).await,
                    Out::Event(event) => transport.send_event(event).await,
                };
                if !sent {
                    tracing::debug!(peer, "control connection dropped: the client does not read");
                    break 'conversation;
                }
            }
            if close {
                break;
            }
        }
        transport.close().await;
        tracing::debug!(peer, "control connection closed");
    }

    /// How a table or the desk answered: its line, unless it is not running (`None`) or has
    /// not answered within `hub::patience` (an answer after the reply timeout is still the
    /// reply: a slow journal write must not turn a recorded move into an error).
    async fn wait(
        &self,
        asked: Option<impl Future<Output = crate::table::reply::Reply>>,
    ) -> Answer {
        let Some(asked) = asked else {
            return Answer::Stopped;
        };
        match super::hub::within_patience(self.settings.reply_timeout, asked).await {
            Some(reply) => Answer::Replied(reply),
            None => Answer::TimedOut,
        }
    }

    /// Carries out a session's action: the lines to write, and whether to close after them.
    async fn perform(
        &self,
        action: Action,
        session: &mut Session,
        events: &mut Option<broadcast::Receiver<Arc<TableEvent>>>,
    ) -> (Vec<Out>, bool) {
        match action {
            Action::Reply(line) => (vec![Out::Line(line)], false),
            Action::Close(line) => (vec![Out::Line(line)], true),
            Action::Ask(ask) => {
                let asked = (self.hub.get(&ask.table))
                    .map(|table| async move { table.ask(ask.role, ask.lang, ask.command).await });
                let answer = self.wait(asked).await;
                (
                    vec![Out::Line(session.on_answer(&ask.table, answer))],
                    false,
                )
            }
            Action::AskDesk(ask) => {
                let Some(desk) = self.hub.desk() else {
                    return (vec![Out::Line(no_desk(&ask.command))], false);
                };
                let answer = self
                    .wait(Some(desk.ask(ask.role, ask.lang, ask.command)))
                    .await;
                (
                    vec![Out::Line(session.on_answer(&ask.table, answer))],
                    false,
                )
            }
            Action::Subscribe { table, reply } => {
                // The previous table's receiver is dropped here: its events stop.
                *events = self.hub.get(&table).map(|t| t.events.subscribe());
                if events.is_none() {
                    session.on_events_closed();
                }
                (vec![Out::Line(reply)], false)
            }
            Action::Audio(ask) => {
                let line = match devices::answer(self.audio.clone(), ask, clock::now_ms()).await {
                    Ok(text) => ok_line(&text),
                    Err(why) => Refusal::new(ErrorCode::State, why).line(),
                };
                (vec![Out::Line(line)], false)
            }
            Action::Broadcast => {
                let line = match self.hub.broadcast() {
                    Some(status) => ok_line(&status.describe(clock::unix_ms())),
                    None => Refusal::new(
                        ErrorCode::State,
                        "this daemon broadcasts nothing: [broadcast] is not configured",
                    )
                    .line(),
                };
                (vec![Out::Line(line)], false)
            }
        }
    }
}

/// Slots kept for the players, the assistant and the arbiter: a quarter of them, none below
/// eight (a small cap is a test's or a single user's).
pub fn players_reserve(max: usize) -> usize {
    if max >= 8 { max / 4 } else { 0 }
}

/// Slots one client address may hold: half of those anyone may take, all of them below
/// eight (a small cap is a test's or a single user's).
pub fn per_address_share(max: usize) -> usize {
    if max >= 8 {
        (max - players_reserve(max)) / 2
    } else {
        max
    }
}

/// What the driver writes: a line the session made, or a table's event for the transport to
/// encode.
enum Out {
    Line(String),
    Event(Arc<TableEvent>),
}

enum Step {
    Shutdown,
    AuthTimeout,
    /// Not yet authenticated, and a newcomer needs the slot (`WaitingRoom::make_room`).
    Displaced,
    Input(Incoming),
    Event(Option<Out>),
}

/// Resolves once shutdown is asked for, or its sender is gone. (The guard `wait_for` returns
/// is dropped here: held across an await it would make the task not `Send`.)
pub async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|&stop| stop).await;
}

/// The next event line for a subscriber, or `None` when the table's feed has closed; a
/// subscriber that fell behind gets one `event lagged N` line instead of what it missed.
async fn next_event(events: &mut broadcast::Receiver<Arc<TableEvent>>) -> Option<Out> {
    match events.recv().await {
        Ok(event) => Some(Out::Event(event)),
        Err(broadcast::error::RecvError::Lagged(missed)) => {
            Some(Out::Line(session::lagged_line(missed)))
        }
        Err(broadcast::error::RecvError::Closed) => None,
    }
}

/// Resolves when `notify` is notified; never without one.
async fn notified(notify: Option<&tokio::sync::Notify>) {
    match notify {
        Some(notify) => notify.notified().await,
        None => std::future::pending().await,
    }
}

async fn maybe_next_event(
    events: Option<&mut broadcast::Receiver<Arc<TableEvent>>>,
) -> Option<Out> {
    match events {
        Some(events) => next_event(events).await,
        None => std::future::pending().await,
    }
}

/// The event lines already waiting for a subscriber, at most a backlog's worth.
fn drain_events(events: Option<&mut broadcast::Receiver<Arc<TableEvent>>>) -> Vec<Out> {
    let mut lines = Vec::new();
    let Some(events) = events else {
        return lines;
    };
    while lines.len() < EVENT_BACKLOG {
        match events.try_recv() {
            Ok(event) => lines.push(Out::Event(event)),
            Err(broadcast::error::TryRecvError::Lagged(n)) => {
                lines.push(Out::Line(session::lagged_line(n)))
            }
            Err(_) => break,
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::hub::{Request, TableHandle};
    use crate::io::tokens::Origin;
    use crate::table::control::Role;
    use std::time::Duration;
    use tokio::sync::mpsc;

    const TOKEN: &str = "observer-token-0123456789";

    /// A transport from a script of inputs; what the driver writes is collected.
    struct Scripted {
        inputs: mpsc::Receiver<Incoming>,
        sent: mpsc::UnboundedSender<String>,
    }

    impl Transport for Scripted {
        async fn next(&mut self) -> Incoming {
            self.inputs.recv().await.unwrap_or(Incoming::Closed)
        }

        async fn send(&mut self, line: &str) -> bool {
            self.sent.send(line.to_owned()).is_ok()
        }

        async fn close(&mut self) {
            let _ = self.sent.send("<closed>".to_owned());
        }
    }

    fn explain(line: &str) -> Arc<TableEvent> {
        Arc::new(TableEvent::Explain {
            line: line.to_owned(),
        })
    }

    fn text(line: &str) -> Incoming {
        Incoming::Line(Line::Text(line.as_bytes().to_vec()))
    }

    /// One table that answers `ok <keyword>`, and never answers `clock`.
    fn service(settings: ControlSettings) -> (ControlService, broadcast::Sender<Arc<TableEvent>>) {
        let (requests, mut inbox) = mpsc::channel::<Request>(8);
        let (events, _) = broadcast::channel(4);
        tokio::spawn(async move {
            let mut silent = Vec::new();
            while let Some(request) = inbox.recv().await {
                if request.command.keyword() == "clock" {
                    silent.push(request.reply);
                } else {
                    let keyword = request.command.keyword().to_owned();
                    let _ = request
                        .reply
                        .send(Ok(crate::table::reply::Answer::Moves(keyword)));
                }
            }
        });
        let table = TableHandle {
            name: Arc::from("table-1"),
            requests,
            events: events.clone(),
        };
        let tokens = Tokens::new([(
            TOKEN.to_owned(),
            Grant {
                role: Role::Observer,
                tables: None,
            },
            Origin::File,
        )]);
        (
            ControlService::new(Hub::new(vec![table]), tokens, settings),
            events,
        )
    }

    struct Run {
        inputs: mpsc::Sender<Incoming>,
        sent: mpsc::UnboundedReceiver<String>,
        stop: watch::Sender<bool>,
        task: tokio::task::JoinHandle<()>,
    }

    fn start(service: &ControlService) -> Run {
        let (inputs, script) = mpsc::channel(16);
        let (out, sent) = mpsc::unbounded_channel();
        let (stop, shutdown) = watch::channel(false);
        let service = service.clone();
        let task = tokio::spawn(async move {
            let transport = Scripted {
                inputs: script,
                sent: out,
            };
            service.converse(transport, "test", None, shutdown).await;
        });
        Run {
            inputs,
            sent,
            stop,
            task,
        }
    }

    impl Run {
        async fn line(&mut self) -> String {
            tokio::time::timeout(Duration::from_secs(5), self.sent.recv())
                .await
                .expect("a line within 5 s")
                .expect("the driver is running")
        }

        async fn ask(&mut self, input: Incoming) -> String {
            self.inputs.send(input).await.unwrap();
            self.line().await
        }
    }

    #[tokio::test]
    async fn requests_reach_the_table_and_events_come_between_replies() {
        let (service, feed) = service(ControlSettings::default());
        let mut run = start(&service);
        assert_eq!(
            run.ask(text(&format!("auth {TOKEN}"))).await,
            "ok observer table-1"
        );
        assert_eq!(run.ask(text("board")).await, "ok board");
        assert_eq!(run.ask(text("events")).await, "ok events table-1");
        // Each event is written by the transport's encoder: here the protocol's line.
        feed.send(explain("one\ntwo")).unwrap();
        assert_eq!(run.line().await, "event explain one two");
        // More events than the backlog: the subscriber is told how many it missed.
        for i in 0..10 {
            feed.send(explain(&format!("n {i}"))).unwrap();
        }
        assert_eq!(run.line().await, "event lagged 6");
        for i in 6..10 {
            assert_eq!(run.line().await, format!("event explain n {i}"));
        }
        assert_eq!(
            run.ask(Incoming::Refused(Refusal::new(
                crate::table::control::ErrorCode::Syntax,
                "binary messages are not requests"
            )))
            .await,
            "error syntax binary messages are not requests"
        );
        assert_eq!(run.ask(text("quit")).await, "ok bye");
        assert_eq!(run.line().await, "<closed>");
        run.task.await.unwrap();
    }

    #[tokio::test]
    async fn a_silent_table_times_out_and_shutdown_says_goodbye_after_pending_events() {
        let (service, feed) = service(ControlSettings {
            reply_timeout: Duration::from_millis(100),
            ..ControlSettings::default()
        });
        let mut run = start(&service);
        run.ask(text(&format!("auth {TOKEN}"))).await;
        assert_eq!(
            run.ask(text("clock")).await,
            "error state table table-1 has not answered within 0.6 s; whether the request was \
             recorded is not known yet: ask sheet or status"
        );
        assert_eq!(run.ask(text("events")).await, "ok events table-1");
        feed.send(explain("last")).unwrap();
        run.stop.send(true).unwrap();
        let mut lines = vec![run.line().await];
        while lines.last().map(String::as_str) != Some("<closed>") {
            lines.push(run.line().await);
        }
        assert_eq!(lines, ["event explain last", "event shutdown", "<closed>"]);
        run.task.await.unwrap();
    }

    #[tokio::test]
    async fn no_auth_in_time_closes_and_the_slots_are_shared() {
        let (service, _feed) = service(ControlSettings {
            auth_timeout: Duration::from_millis(100),
            max_connections: 1,
            ..ControlSettings::default()
        });
        let here = IpAddr::from([127, 0, 0, 1]);
        let slot = service.slot_for(here).expect("a free slot");
        assert!(service.slot_for(here).is_err());
        assert_eq!(
            service.too_many_connections(),
            "error rate too many connections (at most 1); try again later"
        );
        drop(slot);
        assert!(service.slot_for(here).is_ok());
        let mut run = start(&service);
        assert_eq!(
            run.line().await,
            "error auth no auth within 0.1 s of connecting; closing"
        );
        assert_eq!(run.line().await, "<closed>");
        assert!(service.authorize(TOKEN, "table-1", "test").is_ok());
        assert!(service.authorize(TOKEN, "table-2", "test").is_err());
        // Wrong tokens past the daemon's budget are refused as such; the right one never is.
        for _ in 0..crate::control::guessers::WRONG_TOKENS_BURST {
            assert!(service.authorize("guess", "table-1", "test").is_err());
        }
        assert_eq!(
            crate::control::wire::RefusalLine::line(
                &service.authorize("guess", "table-1", "test").unwrap_err()
            ),
            session::too_many_wrong_tokens()
        );
        assert!(service.authorize(TOKEN, "table-1", "test").is_ok());
    }
}
