//! The live broadcast (`[broadcast]`, docs/servers.md): hears every table's game change, asks
//! each table for its PGN, joins the games in configuration order (`io::broadcast_file`),
//! writes `games.pgn` whole for the Broadcaster app or DGT's relay software, and pushes the
//! round to a lichess broadcast — coalesced, one push at a time, a 429 waited out.
//!
//! No table ever waits for the broadcast: it hears the tables' event feeds (a listener that
//! falls behind loses events, never holds up the table, and takes a lag as a change), asks
//! each table for its PGN as any observer would (a table busy longer than [`ASK_TIMEOUT`]
//! keeps its last PGN in the round), and does its writing and pushing on tasks of its own.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{Notify, broadcast, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::chess::language::Language;
use crate::config::BroadcastSettings;
use crate::control::hub::{Attempt, BroadcastStatus, Hub, PushStatus, TableHandle};
use crate::io::broadcast_file::{self, FILE_NAME};
use crate::io::clock::unix_ms;
use crate::io::http_client::{HttpClient, HttpError, HttpRequest, HttpResponse};
use crate::table::control::{ExportFormat, Role, TableRequest};
use crate::table::event::TableEvent;
use crate::table::reply::Answer;

/// The shortest time between two rounds made: a burst of moves makes one write and one push,
/// and the last state is always made (a change during a round makes another after it).
pub const MIN_GAP: Duration = Duration::from_millis(200);
/// How often the tables are looked at when no event said a game changed: a `tag` has no event
/// of its own. A round is written and pushed only when its text changed.
const REFRESH: Duration = Duration::from_secs(30);
/// How long a table may take to give its PGN before the round keeps the one it gave last.
pub const ASK_TIMEOUT: Duration = Duration::from_secs(2);
/// The wait after a failed push (not a 429): doubling from the first to the last.
const FIRST_RETRY: Duration = Duration::from_secs(1);
const LAST_RETRY: Duration = Duration::from_secs(60);

/// The broadcast's state, shared by the round maker and the pusher; `broadcast` reads it.
type Status = Arc<watch::Sender<BroadcastStatus>>;
/// The latest round's text, for the pusher (`None` before the first).
type Rounds = watch::Receiver<Option<Arc<str>>>;

/// Starts the broadcast when `[broadcast]` is configured: a listener per table, the round
/// maker and, with a round to push to, the pusher. Returns the hub with the broadcast's state
/// for `broadcast`; an error names the key (a token's variable unset, a bad address).
pub fn start(
    settings: Option<&BroadcastSettings>,
    hub: Hub,
    tasks: &mut JoinSet<()>,
    shutdown: &watch::Receiver<bool>,
) -> Result<Hub, String> {
    let Some(settings) = settings else {
        return Ok(hub);
    };
    let pusher = match (
        &settings.round_id,
        settings.token().map_err(|e| e.to_string())?,
    ) {
        (Some(round_id), Some(token)) => Some(Pusher {
            client: HttpClient::new(&settings.url, Some(token))
                .map_err(|e| format!("broadcast.url: {e}"))?,
            round_id: round_id.clone(),
        }),
        _ => None,
    };
    let (status, status_rx) = watch::channel(BroadcastStatus {
        file: (settings.pgn_dir.as_ref()).map(|dir| (dir.join(FILE_NAME), None)),
        push: pusher.as_ref().map(|p| PushStatus {
            round_id: p.round_id.clone(),
            pushes: 0,
            last: None,
            next_try_unix_ms: None,
        }),
        ..BroadcastStatus::default()
    });
    let status = Arc::new(status);
    // Subscribed before any task runs: no change after the first round is missed.
    let changed = Arc::new(Notify::new());
    for table in hub.tables() {
        let events = table.events.subscribe();
        tasks.spawn(listen(events, Arc::clone(&changed), shutdown.clone()));
    }
    let (rounds, rounds_rx) = watch::channel(None);
    let maker = Maker {
        tables: hub.tables().to_vec(),
        games: vec![String::new(); hub.tables().len()],
        pgn_dir: settings.pgn_dir.clone(),
        written: None,
        file_failing: false,
        status: Arc::clone(&status),
        rounds: pusher.is_some().then_some(rounds),
    };
    tasks.spawn(make_rounds(maker, changed, shutdown.clone()));
    tracing::info!(
        pgn_dir = %settings.pgn_dir.as_ref().map_or("off".into(), |d| d.display().to_string()),
        round = %pusher.as_ref().map_or("off", |p| p.round_id.as_str()),
        url = %settings.url,
        "live broadcast on"
    );
    if let Some(pusher) = pusher {
        tasks.spawn(push_rounds(pusher, rounds_rx, status, shutdown.clone()));
    }
    Ok(hub.with_broadcast(status_rx))
}

/// Hears one table's events and says when its game changed.
async fn listen(
    mut events: broadcast::Receiver<Arc<TableEvent>>,
    changed: Arc<Notify>,
    mut shutdown: watch::Receiver<bool>,
) {
    loop {
        tokio::select! {
            event = events.recv() => match event {
                Ok(event) if broadcast_file::changes_game(&event) => changed.notify_one(),
                Ok(_) => {}
                // Fallen behind: something may have changed.
                Err(RecvError::Lagged(_)) => changed.notify_one(),
                Err(RecvError::Closed) => break,
            },
            _ = shutdown.changed() => break,
        }
    }
}

/// What the round maker keeps between rounds.
struct Maker {
    tables: Vec<TableHandle>,
    /// Each table's last PGN, in configuration order.
    games: Vec<String>,
    pgn_dir: Option<PathBuf>,
    /// The text `games.pgn` holds now (`None`: not written yet, or the last write failed).
    written: Option<String>,
    /// The last write failed (said once, until a write succeeds again).
    file_failing: bool,
    status: Status,
    /// For the pusher, when there is one.
    rounds: Option<watch::Sender<Option<Arc<str>>>>,
}

/// Makes a round at the start, after each change (at most every [`MIN_GAP`]) and every
/// [`REFRESH`], until shutdown.
async fn make_rounds(mut maker: Maker, changed: Arc<Notify>, mut shutdown: watch::Receiver<bool>) {
    // The first round at once: the file shows every table's game from the daemon's start.
    changed.notify_one();
    let mut last_made: Option<Instant> = None;
    loop {
        tokio::select! {
            () = changed.notified() => {}
            () = tokio::time::sleep(REFRESH) => {}
            _ = shutdown.changed() => break,
        }
        if let Some(at) = last_made {
            // Changes during this wait are in the round made after it.
            tokio::select! {
                () = tokio::time::sleep_until(at + MIN_GAP) => {}
                _ = shutdown.changed() => break,
            }
        }
        last_made = Some(Instant::now());
        maker.make().await;
    }
}

impl Maker {
    /// One round: every table's PGN now, joined; written and handed to the pusher when it
    /// differs from the last.
    async fn make(&mut self) {
        for (table, game) in self.tables.iter().zip(self.games.iter_mut()) {
            let asked = table.ask(
                Role::Observer,
                Language::english(),
                TableRequest::Export {
                    format: ExportFormat::Pgn,
                },
            );
            if let Ok(Ok(Answer::Export { text })) = tokio::time::timeout(ASK_TIMEOUT, asked).await
            {
                *game = text;
            }
        }
        let round = broadcast_file::join(self.games.iter().map(String::as_str));
        self.status.send_modify(|s| {
            s.games = round.games;
            s.left_out = round.left_out;
        });
        if let Some(rounds) = &self.rounds {
            let text: Arc<str> = Arc::from(round.text.as_str());
            rounds.send_if_modified(|last| {
                let new = last.as_deref() != Some(&*text);
                if new {
                    *last = Some(text);
                }
                new
            });
        }
        if let Some(dir) = &self.pgn_dir
            && self.written.as_deref() != Some(round.text.as_str())
        {
            self.write(dir.clone(), round.text).await;
        }
    }

    /// Writes `games.pgn` on a blocking thread (it syncs), keeping its outcome for `broadcast`;
    /// a failure is logged once, and the next round tries again.
    async fn write(&mut self, dir: PathBuf, text: String) {
        let copy = text.clone();
        let written = tokio::task::spawn_blocking(move || broadcast_file::write(&dir, &copy))
            .await
            .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())));
        let outcome = match written {
            Ok(_) => {
                if self.file_failing {
                    tracing::info!("games.pgn is written again");
                }
                self.file_failing = false;
                self.written = Some(text);
                Ok(())
            }
            Err(e) => {
                if !self.file_failing {
                    tracing::warn!(error = %e, "games.pgn not written; trying again at the next change");
                }
                self.file_failing = true;
                self.written = None;
                Err(e.to_string())
            }
        };
        let at_unix_ms = unix_ms();
        self.status.send_modify(|s| {
            if let Some((_, last)) = &mut s.file {
                *last = Some(Attempt {
                    at_unix_ms,
                    outcome,
                });
            }
        });
    }
}

/// Where the round goes: the lichess broadcast round and the client with its token.
struct Pusher {
    client: HttpClient,
    round_id: String,
}

/// Pushes the latest round, one push at a time: while one is in flight, the rounds made meanwhile
/// collapse into one next push of the latest. A 429 is waited out as long as the server says
/// (the client's pause, at least a minute); other failures are tried again with back-off, the
/// latest round each time. A failure is logged when pushing starts to fail, not at each try.
async fn push_rounds(
    pusher: Pusher,
    mut rounds: Rounds,
    status: Status,
    mut shutdown: watch::Receiver<bool>,
) {
    let path = format!("/api/broadcast/round/{}/push", pusher.round_id);
    let mut state = PushState::default();
    let mut again = false;
    loop {
        if !again {
            tokio::select! {
                changed = rounds.changed() => if changed.is_err() { break },
                _ = shutdown.changed() => break,
            }
        }
        again = false;
        let Some(text) = rounds.borrow_and_update().clone() else {
            continue;
        };
        // lichess refuses an empty round (no table has answered yet): nothing to push.
        if text.is_empty() || state.pushed.as_deref() == Some(&*text) {
            continue;
        }
        let request = HttpRequest::post_raw(&path, "text/plain", text.as_bytes().to_vec());
        let answer = tokio::select! {
            answer = pusher.client.request(request) => answer,
            _ = shutdown.changed() => break,
        };
        let at_unix_ms = unix_ms();
        let (outcome, wait) = state.heard(answer, text, &pusher.round_id);
        status.send_modify(|s| {
            if let Some(push) = &mut s.push {
                push.pushes += u64::from(wait.is_none());
                push.last = Some(Attempt {
                    at_unix_ms,
                    outcome,
                });
                push.next_try_unix_ms = wait.map(|w| at_unix_ms + w.as_millis() as u64);
            }
        });
        if let Some(wait) = wait {
            again = true;
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                _ = shutdown.changed() => break,
            }
        }
    }
}

/// What the pusher remembers between pushes.
#[derive(Default)]
struct PushState {
    /// The round lichess last took (the same round is never pushed twice).
    pushed: Option<Arc<str>>,
    /// The next wait after a failure other than a 429 (`None`: the first).
    retry: Option<Duration>,
    /// Failed tries since the last push that went through.
    failed_tries: u32,
    /// What lichess said of the last round's games, said once in the log.
    refused: Option<String>,
}

impl PushState {
    /// The push's answer: its outcome for `broadcast`, and how long to wait before the next
    /// try (`None`: it went through, the next push waits for the next change).
    fn heard(
        &mut self,
        answer: Result<HttpResponse, HttpError>,
        text: Arc<str>,
        round_id: &str,
    ) -> (Result<(), String>, Option<Duration>) {
        match answer {
            Ok(response) => {
                self.pushed = Some(text);
                if self.failed_tries > 0 {
                    tracing::info!(
                        failed_tries = self.failed_tries,
                        "the broadcast push works again"
                    );
                }
                self.failed_tries = 0;
                self.retry = None;
                let refused = games_refused(&response.body);
                if let Err(why) = &refused
                    && self.refused.as_ref() != Some(why)
                {
                    tracing::warn!(round = %round_id, "{why}");
                }
                self.refused = refused.clone().err();
                (refused, None)
            }
            Err(e) => {
                if self.failed_tries == 0 {
                    tracing::warn!(error = %e, round = %round_id, "the broadcast push failed; trying again");
                }
                self.failed_tries += 1;
                let wait = match e {
                    HttpError::RateLimited { wait } => wait,
                    _ => {
                        let wait = self.retry.unwrap_or(FIRST_RETRY);
                        self.retry = Some((wait * 2).min(LAST_RETRY));
                        wait
                    }
                };
                (Err(e.to_string()), Some(wait))
            }
        }
    }
}

/// What lichess said of the games it took (`{"games":[{"tags":…,"moves":N,"error"?:…}]}`):
/// the first game it could not read, if any. The push itself went through; pushing the same
/// round again would not help, the next move's round is pushed as usual.
fn games_refused(body: &[u8]) -> Result<(), String> {
    let Ok(answer) = serde_json::from_slice::<serde_json::Value>(body) else {
        return Ok(());
    };
    let games = answer["games"].as_array().map_or(&[][..], Vec::as_slice);
    match games
        .iter()
        .enumerate()
        .find_map(|(i, g)| Some((i, g["error"].as_str()?)))
    {
        Some((i, error)) => Err(format!(
            "lichess took the push but not game {}: {}",
            i + 1,
            error.chars().take(200).collect::<String>()
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Failures wait 1, 2, 4 … 60 s; a 429 waits what the client says; a push that goes
    /// through starts the back-off again and is never pushed twice.
    #[test]
    fn the_waits_after_failures_and_a_429() {
        let mut state = PushState::default();
        let text: Arc<str> = Arc::from("[Event \"e\"]\n\n*\n");
        let down = || {
            Err(HttpError::Status {
                status: 503,
                body: String::new(),
            })
        };
        let waits: Vec<u64> = (0..8)
            .map(|_| {
                state
                    .heard(down(), Arc::clone(&text), "r")
                    .1
                    .unwrap()
                    .as_secs()
            })
            .collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60]);
        let limited = Err(HttpError::RateLimited {
            wait: Duration::from_secs(75),
        });
        let (outcome, wait) = state.heard(limited, Arc::clone(&text), "r");
        assert_eq!(wait, Some(Duration::from_secs(75)));
        assert_eq!(outcome, Err("too many requests: waiting 75 s".into()));
        let ok = Ok(HttpResponse {
            status: 200,
            body: br#"{"games":[{"moves":0}]}"#.to_vec(),
        });
        assert_eq!(state.heard(ok, Arc::clone(&text), "r"), (Ok(()), None));
        assert_eq!(state.pushed.as_deref(), Some(&*text));
        assert_eq!(
            state.heard(down(), text, "r").1,
            Some(Duration::from_secs(1))
        );
    }

    #[test]
    fn a_game_lichess_could_not_read_is_said_with_its_number() {
        let ok = br#"{"games":[{"tags":{"White":"A"},"moves":3}]}"#;
        assert_eq!(games_refused(ok), Ok(()));
        let bad = br#"{"games":[{"moves":3},{"moves":0,"error":"Cannot parse moves"}]}"#;
        assert_eq!(
            games_refused(bad),
            Err("lichess took the push but not game 2: Cannot parse moves".into())
        );
        assert_eq!(games_refused(b"not json"), Ok(()));
    }
}
