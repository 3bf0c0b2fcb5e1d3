//! A table with `kind = "lichess"`: live lichess games at a peg board through the Board API
//! (issue 26 point 3, docs/servers.md). One task stands in front of the table's actor: it
//! answers `seek` and `challenge` itself and hands every other request on; it keeps the
//! account's event stream and the game's stream open (`streams`), plays the server's moves
//! into the table as the opponent's and sends the blind player's (`game`, rebuilt from the
//! server's whole move list each time), and turns his keys and requests into lichess's
//! commands (`commands`). What it says comes from the voice files (`lichess_*`).

mod commands;
mod game;
mod streams;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{broadcast, mpsc, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::chess::language::Language;
use crate::config::{LichessSettings, TableConfig};
use crate::control::hub::{REQUEST_BACKLOG, Request, TableHandle};
use crate::io::clock::unix_ms;
use crate::io::http_client::{HttpClient, HttpError};
use crate::io::speech::{Speaker, Utterance};
use crate::table::control::{Role, TableRequest};
use crate::table::event::{About, Listener, Say, TableEvent, Urgency};
use crate::table::reply::Reply;
use annabella_chess::vocabulary::fill;
use annabella_correspondence::lichess::speed::LiveControl;
use shakmaty::Color;
use tokio::sync::oneshot;

use streams::{Incoming, StreamKind};

/// How often the task looks at its timers (a retry due, the claim's time come).
const TICK: Duration = Duration::from_millis(250);
/// How long after a seek's connection closed a `gameStart` may still come for it.
const SEEK_END_GRACE: Duration = Duration::from_secs(3);

/// Why a lichess table could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("a lichess table needs the [lichess] section")]
    NoAccount,
    #[error("{0}")]
    Token(crate::config::ConfigError),
    #[error("[lichess] url {url}: {error}")]
    Url { url: String, error: HttpError },
}

/// Starts the lichess side of the table `tc`, whose actor takes requests on `actor`'s
/// channel; returns the handle the control interface uses instead (its requests pass here
/// first).
pub fn start(
    tasks: &mut JoinSet<()>,
    settings: Option<&LichessSettings>,
    tc: &TableConfig,
    lang: &'static Language,
    speaker: &Arc<Speaker>,
    actor: TableHandle,
    shutdown: &watch::Receiver<bool>,
) -> Result<TableHandle, StartError> {
    let settings = settings.ok_or(StartError::NoAccount)?;
    let token = settings.token().map_err(StartError::Token)?;
    let client = HttpClient::new(&settings.url, Some(token)).map_err(|error| StartError::Url {
        url: settings.url.clone(),
        error,
    })?;
    let (front_tx, front) = mpsc::channel(REQUEST_BACKLOG);
    let (incoming_tx, incoming) = mpsc::channel(64);
    let voice = Voice {
        speaker: Arc::clone(speaker),
        lang,
        events: actor.events.clone(),
        record_id: format!("{}-lichess", tc.name.file_stem()),
    };
    let live = LiveTable {
        client: client.clone(),
        table: actor.clone(),
        events: actor.events.subscribe(),
        peg_side: tc.peg_side,
        lang,
        voice,
        incoming: incoming_tx.clone(),
        game: None,
        down: Vec::new(),
        seek: None,
        resign_intent: false,
        seek_ended: None,
    };
    tasks.spawn(streams::event_stream(client, incoming_tx, shutdown.clone()));
    tasks.spawn(live.run(front, incoming, shutdown.clone()));
    Ok(TableHandle {
        requests: front_tx,
        ..actor
    })
}

/// A command in a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// `draw/yes`: offers a draw, or accepts the opponent's offer.
    DrawYes,
    Resign,
    ClaimVictory,
}

impl Command {
    pub(super) fn path(self) -> &'static str {
        match self {
            Command::DrawYes => "draw/yes",
            Command::Resign => "resign",
            Command::ClaimVictory => "claim-victory",
        }
    }
}

/// A short request's outcome.
#[derive(Debug)]
pub enum Posted {
    /// His move at half-move `ply`.
    Move {
        ply: usize,
        result: Result<(), HttpError>,
    },
    Command {
        command: Command,
        result: Result<(), HttpError>,
    },
    Challenge {
        user: String,
        control: LiveControl,
        result: Result<(), HttpError>,
        reply: oneshot::Sender<Reply>,
    },
}

/// The words said from here: to the blind player, in the table's language, on the speaker
/// and on the table's event feed (the page shows them).
struct Voice {
    speaker: Arc<Speaker>,
    lang: &'static Language,
    events: broadcast::Sender<Arc<TableEvent>>,
    record_id: String,
}

impl Voice {
    /// The words of `key` with its placeholders filled.
    fn words(&self, key: &str, args: &[(&str, &str)]) -> String {
        let template = self.lang.vocabulary().event(key).unwrap_or(key);
        fill(template, args)
    }

    fn say(&self, key: &str, args: &[(&str, &str)]) {
        let text = self.words(key, args);
        tracing::info!(target: "annabella::app::lichess", say = %text, "lichess");
        let u = Utterance::new(
            Listener::BlindPlayer,
            text.clone(),
            self.lang.code(),
            self.record_id.clone(),
            unix_ms(),
        );
        self.speaker.say(u);
        let say = Say {
            listener: Listener::BlindPlayer,
            text,
            urgency: Urgency::Polite,
            about: About::Other,
            lang: self.lang.code(),
            id: 0,
        };
        self.events.send(Arc::new(TableEvent::Say(say))).ok();
    }
}

/// The game lichess plays at the table now.
struct ServerGame {
    id: String,
    /// The last state the game's stream sent (all moves, the clocks, the offers).
    state: annabella_correspondence::lichess::lines::GameState,
    /// The opponent has left: when he may be claimed against (`claimWinInSeconds`).
    gone: Option<Instant>,
    /// His move lichess took (200) at this half-move: never sent again (kept until lichess's
    /// list has it, even across a `gameFull` that may have left before it was taken).
    confirmed: Option<usize>,
    /// His move being sent now (its request not answered yet).
    in_flight: Option<usize>,
    /// A move's request failed without saying whether lichess has it: nothing is sent until
    /// a fresh `gameFull` (the stream is opened again for it) shows lichess's list.
    awaiting_full: bool,
    /// His move lichess refused (400): taken back on the table once a fresh `gameFull`
    /// shows lichess does not have it.
    refused: Option<usize>,
    /// When to try sending again after a 429's pause.
    retry_at: Option<Instant>,
    /// Tells the game's stream to open again (and so to start with a fresh `gameFull`).
    reopen: Arc<tokio::sync::Notify>,
    stream: tokio::task::AbortHandle,
    /// The game was started on the table (its id tagged, the opponent named).
    begun: bool,
}

/// The task in front of the table's actor.
struct LiveTable {
    client: HttpClient,
    /// The table's actor.
    table: TableHandle,
    events: broadcast::Receiver<Arc<TableEvent>>,
    peg_side: Color,
    lang: &'static Language,
    voice: Voice,
    incoming: mpsc::Sender<Incoming>,
    game: Option<ServerGame>,
    /// The streams that are down now: the player heard that the connection dropped when the
    /// first went down and hears that it is back when none is.
    down: Vec<StreamKind>,
    /// The held seek's connection.
    seek: Option<tokio::task::AbortHandle>,
    /// The seek's connection closed: told at this time unless a game has begun.
    seek_ended: Option<Instant>,
    /// He asked to resign (`KX KX` or `resign`): the table's end that follows is sent.
    resign_intent: bool,
}

impl LiveTable {
    async fn run(
        mut self,
        mut front: mpsc::Receiver<Request>,
        mut incoming: mpsc::Receiver<Incoming>,
        mut shutdown: watch::Receiver<bool>,
    ) {
        let mut tick = tokio::time::interval(TICK);
        loop {
            tokio::select! {
                request = front.recv() => match request {
                        Some(request) => self.request(request).await,
                    None => break,
                },
                line = incoming.recv() => match line {
                    Some(line) => self.incoming(line).await,
                    None => break,
                },
                event = self.events.recv() => match event {
                    Ok(event) => self.table_event(&event).await,
                    // Missed events: the table's game is read again as a whole.
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        self.sync().await;
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                },
                _ = tick.tick() => self.timers().await,
                _ = shutdown.changed() => break,
            }
        }
        if let Some(seek) = self.seek.take() {
            seek.abort();
        }
        if let Some(game) = self.game.take() {
            game.stream.abort();
        }
    }

    /// A request from the control interface: `seek` and `challenge` answered here, the others
    /// by the table.
    async fn request(&mut self, request: Request) {
        match &request.command {
            TableRequest::Seek { control, rated } => {
                let reply = self.seek(*control, *rated);
                request.reply.send(reply).ok();
            }
            TableRequest::CancelSeek => {
                let reply = self.cancel_seek();
                request.reply.send(reply).ok();
            }
            TableRequest::Challenge { user, control } => {
                let (user, control) = (user.clone(), *control);
                self.challenge(user, control, request.reply);
            }
            command => {
                let his = matches!(request.role, Role::Assistant)
                    || request.role == Role::Player(self.peg_side);
                if *command == TableRequest::Resign && his {
                    self.resign_intent = true;
                }
                if self.table.requests.send(request).await.is_err() {
                    tracing::warn!(target: "annabella::app::lichess", "the table has stopped");
                }
            }
        }
    }

    /// A stream's line or a sent command's outcome.
    async fn incoming(&mut self, line: Incoming) {
        match line {
            Incoming::Event(event) => self.event_line(event).await,
            Incoming::Game { id, line } => self.game_line(&id, line).await,
            Incoming::Link { kind, up } => self.link(kind, up),
            Incoming::RateLimited(wait) => self.say_wait(wait),
            Incoming::SeekEnded => {
                // lichess closes a paired seek as it says `gameStart` on the other stream:
                // the end is told only if no game follows soon.
                if self.seek.take().is_some() {
                    self.seek_ended = Some(Instant::now() + SEEK_END_GRACE);
                }
            }
            Incoming::Posted(outcome) => self.posted(outcome).await,
        }
    }

    /// A stream went down or came back: said once each way, not at every retry.
    fn link(&mut self, kind: StreamKind, up: bool) {
        // A game's stream closes when its game ends: no connection lost then.
        if kind == StreamKind::Game && self.game.is_none() {
            return;
        }
        let was_down = !self.down.is_empty();
        self.down.retain(|k| *k != kind);
        if !up {
            self.down.push(kind);
        }
        match (was_down, self.down.is_empty()) {
            (false, false) => self.voice.say("lichess_connection_lost", &[]),
            (true, true) => self.voice.say("lichess_connection_back", &[]),
            _ => {}
        }
    }

    /// lichess asked us to wait (HTTP 429): said with the time.
    fn say_wait(&mut self, wait: Duration) {
        let time = annabella_chess::phrases::duration_phrase(
            wait.as_millis() as u64,
            self.lang.vocabulary(),
        );
        self.voice.say("lichess_wait", &[("time", &time)]);
    }

    /// The timers: a move to send again after a pause; nothing else runs on time.
    async fn timers(&mut self) {
        if self.seek_ended.is_some_and(|at| at <= Instant::now()) {
            self.seek_ended = None;
            if self.game.is_none() {
                self.voice.say("lichess_seek_ended", &[]);
            }
        }
        let due = self
            .game
            .as_ref()
            .and_then(|g| g.retry_at)
            .is_some_and(|at| at <= Instant::now());
        if due {
            if let Some(g) = self.game.as_mut() {
                g.retry_at = None;
            }
            self.sync().await;
        }
    }

    /// Asks the table as `role`, logging a refusal (the table has said what it needs to).
    async fn ask(&self, role: Role, command: TableRequest) -> Option<crate::table::reply::Answer> {
        let what = format!("{command:?}");
        match self.table.ask(role, self.lang, command).await {
            Ok(answer) => Some(answer),
            Err(refusal) => {
                tracing::warn!(target: "annabella::app::lichess", request = %what, refusal = %refusal.message, "the table refused");
                None
            }
        }
    }
}
