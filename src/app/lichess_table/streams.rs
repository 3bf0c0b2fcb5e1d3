//! lichess's long-lived connections, each kept open by a task of its own: the account's event
//! stream (one per token: opening a second closes the first), a game's stream, and a held seek
//! (closing it cancels the seek). A stream silent for more than [`IDLE`] (lichess sends an
//! empty line every 6–7 s) or closed is opened again after a pause that doubles from 1 s to
//! 30 s; a game's stream always begins with `gameFull`, from which the game is rebuilt.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Notify, mpsc, watch};

use crate::io::http_client::{HttpClient, HttpError, HttpRequest, StreamLine};
use annabella_correspondence::lichess::lines::{self, EventLine, GameLine};

use super::Posted;

/// Silence after which a stream is taken for dead (lichess's keep-alives come every 6–7 s;
/// lichess-bot waits 15 s too).
pub const IDLE: Duration = Duration::from_secs(15);
/// The first pause before opening a stream again, doubled up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// Which stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamKind {
    Events,
    Game,
}

/// What the streams and the commands' tasks tell the table's lichess task.
#[derive(Debug)]
pub enum Incoming {
    Event(EventLine),
    Game {
        id: String,
        line: GameLine,
    },
    /// A stream is open (`up`) or has dropped.
    Link {
        kind: StreamKind,
        up: bool,
    },
    /// lichess answered 429: nothing is asked of it before this pause is over.
    RateLimited(Duration),
    /// The held seek's connection has closed (lichess paired us, or the seek ended).
    SeekEnded,
    Posted(Posted),
}

/// How one opening of a stream ended.
enum Ended {
    /// Closed, silent or broken: opened again after the back-off.
    Dropped,
    /// Asked to open again at once (to start from a fresh `gameFull`).
    Reopen,
    /// Not to be opened again (the game is not there, the daemon stops).
    Stop,
}

/// The account's event stream for the daemon's life.
pub async fn event_stream(
    client: HttpClient,
    tx: mpsc::Sender<Incoming>,
    mut shutdown: watch::Receiver<bool>,
) {
    let parse = |text: &str| match lines::event_line(text) {
        Ok(line) => Some(Incoming::Event(line)),
        Err(e) => {
            tracing::warn!(target: "annabella::app::lichess", "{e}");
            None
        }
    };
    tokio::select! {
        _ = follow(&client, "/api/stream/event", StreamKind::Events, &tx, &parse, None) => {}
        _ = shutdown.changed() => {}
    }
}

/// A game's stream, until the task is aborted (the game is over, another begins); `reopen`
/// makes it start again with a fresh `gameFull`.
pub async fn game_stream(
    client: HttpClient,
    id: String,
    tx: mpsc::Sender<Incoming>,
    reopen: Arc<Notify>,
) {
    let parse = |text: &str| match lines::game_line(text) {
        Ok(line) => Some(Incoming::Game {
            id: id.clone(),
            line,
        }),
        Err(e) => {
            tracing::warn!(target: "annabella::app::lichess", game = %id, "{e}");
            None
        }
    };
    let path = format!("/api/board/game/stream/{id}");
    follow(&client, &path, StreamKind::Game, &tx, &parse, Some(&reopen)).await;
}

/// Opens the stream at `path` again and again, handing each line `parse` makes something of
/// to `tx`; returns when the stream is not to be opened again.
async fn follow(
    client: &HttpClient,
    path: &str,
    kind: StreamKind,
    tx: &mpsc::Sender<Incoming>,
    parse: &(dyn Fn(&str) -> Option<Incoming> + Sync),
    reopen: Option<&Arc<Notify>>,
) {
    let mut backoff = FIRST_BACKOFF;
    loop {
        let ended = match client.open_stream(HttpRequest::get(path)).await {
            Ok(mut stream) => {
                tx.send(Incoming::Link { kind, up: true }).await.ok();
                read(&mut stream, tx, parse, reopen, &mut backoff).await
            }
            Err(HttpError::RateLimited { wait }) => {
                tx.send(Incoming::RateLimited(wait)).await.ok();
                tokio::time::sleep(wait).await;
                Ended::Dropped
            }
            Err(HttpError::Status { status: 404, .. }) if kind == StreamKind::Game => Ended::Stop,
            Err(e) => {
                tracing::info!(target: "annabella::app::lichess", path, "lichess stream: {e}");
                Ended::Dropped
            }
        };
        match ended {
            Ended::Stop => {
                tracing::info!(target: "annabella::app::lichess", path, "lichess stream ended");
                tx.send(Incoming::Link { kind, up: true }).await.ok();
                return;
            }
            Ended::Reopen => continue,
            Ended::Dropped => {
                if tx.send(Incoming::Link { kind, up: false }).await.is_err() {
                    return;
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
        }
    }
}

/// Reads one opened stream to its end.
async fn read(
    stream: &mut crate::io::http_client::NdjsonStream,
    tx: &mpsc::Sender<Incoming>,
    parse: &(dyn Fn(&str) -> Option<Incoming> + Sync),
    reopen: Option<&Arc<Notify>>,
    backoff: &mut Duration,
) -> Ended {
    loop {
        let next = match reopen {
            Some(reopen) => tokio::select! {
                next = stream.next(IDLE) => next,
                _ = reopen.notified() => return Ended::Reopen,
            },
            None => stream.next(IDLE).await,
        };
        match next {
            Ok(Some(StreamLine::KeepAlive)) => {}
            Ok(Some(StreamLine::Json(text))) => {
                // The stream works: the next drop starts the back-off again.
                *backoff = FIRST_BACKOFF;
                if let Some(line) = parse(&text)
                    && tx.send(line).await.is_err()
                {
                    return Ended::Stop;
                }
            }
            Ok(None) => return Ended::Dropped,
            Err(e) => {
                tracing::info!(target: "annabella::app::lichess", "lichess stream: {e}");
                return Ended::Dropped;
            }
        }
    }
}

/// Holds a seek's connection open until lichess closes it (it pairs us, or ends the seek):
/// closing it ourselves would cancel the seek.
pub async fn hold_seek(
    client: HttpClient,
    form: Vec<(String, String)>,
    tx: mpsc::Sender<Incoming>,
) {
    match client
        .open_stream(HttpRequest::post_form("/api/board/seek", form))
        .await
    {
        Ok(mut stream) => loop {
            match stream.next(Duration::from_secs(600)).await {
                Ok(Some(_)) | Err(HttpError::Idle) => {}
                Ok(None) => break,
                Err(e) => {
                    tracing::info!(target: "annabella::app::lichess", "lichess seek: {e}");
                    break;
                }
            }
        },
        Err(HttpError::RateLimited { wait }) => {
            tx.send(Incoming::RateLimited(wait)).await.ok();
        }
        Err(e) => tracing::warn!(target: "annabella::app::lichess", "lichess seek: {e}"),
    }
    tx.send(Incoming::SeekEnded).await.ok();
}
