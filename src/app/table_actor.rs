//! One task per table: owns the pure [`Table`], feeds it board events, control requests and
//! the passing of time, and performs its outputs in order — the journal first, so nothing is
//! announced or acknowledged that a crash could lose.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{broadcast, mpsc, watch};

use crate::app::hub::Request;
use crate::io::clock::unix_ms;
use crate::io::link::LinkEvent;
use crate::io::speech::{Speaker, Utterance};
use crate::table::control::one_line;
use crate::table::state::{BoardId, Input, Output, Table};

/// Where a table's records go: durable when `append` returns (the SQLite journal).
pub trait Journal: Send + Sync + 'static {
    /// Writes one record line of `table`'s current game; durable when it returns `Ok`.
    fn append(
        &self,
        table: &str,
        at_unix_ms: u64,
        line: String,
    ) -> impl Future<Output = Result<(), String>> + Send;
    /// Keeps a finished game as PGN; returns where.
    fn archive(
        &self,
        table: &str,
        pgn: String,
    ) -> impl Future<Output = Result<PathBuf, String>> + Send;
}

/// What a board link reports, tagged with the board.
pub type BoardMessage = (BoardId, LinkEvent);

/// The table's channels and services.
pub struct TableActor<J: Journal> {
    pub table: Table,
    pub journal: Arc<J>,
    pub speaker: Arc<Speaker>,
    /// The language code utterances carry (picks the voice).
    pub voice: String,
    /// Names the per-game audio record (`<table>-<game>`).
    pub game_id: String,
    pub events: broadcast::Sender<Arc<str>>,
    /// Where the table's record of two-board resolutions is kept (`<state-dir>/records/`).
    pub record_dir: PathBuf,
}

impl<J: Journal> TableActor<J> {
    /// Runs until `shutdown` turns true or every sender is gone.
    pub async fn run(
        mut self,
        mut requests: mpsc::Receiver<Request>,
        mut boards: mpsc::Receiver<BoardMessage>,
        mut shutdown: watch::Receiver<bool>,
    ) {
        loop {
            if *shutdown.borrow() {
                break;
            }
            let now = unix_ms();
            let sleep = self
                .table
                .next_deadline(now)
                .map(|d| Duration::from_millis(d.saturating_sub(now)));
            tokio::select! {
                biased;
                _ = shutdown.changed() => {}
                Some((board, event)) = boards.recv() => {
                    if let LinkEvent::Decoded(Err(e)) = &event {
                        tracing::warn!(table = self.table.name(), %board, error = %e, "board sent a malformed message; skipped");
                    }
                    let input = board_input(board, event);
                    let out = self.table.handle(unix_ms(), input);
                    self.perform(out).await.ok();
                }
                Some(request) = requests.recv() => {
                    let (reply, out) = self.table.request(
                        unix_ms(),
                        request.role,
                        request.lang,
                        &request.command,
                    );
                    let reply = match self.perform(out).await {
                        Ok(()) => reply,
                        Err(e) => format!(
                            "error state the journal could not record this ({e}); nothing \
                             was announced"
                        ),
                    };
                    // The requester may have gone; the table goes on.
                    request.reply.send(reply).ok();
                }
                _ = sleep_for(sleep) => {
                    let out = self.table.handle(unix_ms(), Input::Tick);
                    self.perform(out).await.ok();
                }
                else => break,
            }
        }
    }

    /// Performs outputs in order. A record that cannot be written stops the rest: what it
    /// caused is neither said nor published.
    pub async fn perform(&mut self, out: Vec<Output>) -> Result<(), String> {
        for o in out {
            match o {
                Output::Record { at, record: r } => {
                    if let Err(e) = self
                        .journal
                        .append(self.table.name(), at, r.to_string())
                        .await
                    {
                        tracing::error!(table = self.table.name(), error = %e, record = %r, "journal write failed");
                        self.publish(format!("event journal-error {}", one_line(&e)));
                        return Err(e);
                    }
                }
                Output::Say {
                    listener,
                    text,
                    urgent,
                } => {
                    let u = Utterance::new(
                        listener,
                        text,
                        self.voice.clone(),
                        self.game_id.clone(),
                        unix_ms(),
                    );
                    self.speaker.say(if urgent { u.urgent() } else { u });
                }
                Output::Event(line) => {
                    tracing::debug!(table = self.table.name(), "{line}");
                    self.publish(line);
                }
                Output::Resolution { text } => {
                    let path = self.record_dir.join(format!(
                        "{}.txt",
                        crate::io::store::file_stem(self.table.name())
                    ));
                    let entry = format!("== {} (unix ms)\n{text}\n", unix_ms());
                    let written = tokio::task::spawn_blocking(move || append_synced(&path, &entry))
                        .await
                        .map_err(|e| e.to_string())
                        .and_then(|r| r);
                    match written {
                        Ok(path) => self.publish(format!("event recorded {}", path.display())),
                        Err(e) => {
                            tracing::error!(table = self.table.name(), error = %e, "writing the resolution record failed")
                        }
                    }
                }
                Output::Finished { pgn } => {
                    match self.journal.archive(self.table.name(), pgn).await {
                        Ok(path) => {
                            tracing::info!(table = self.table.name(), path = %path.display(), "game archived");
                            self.publish(format!("event archived {}", path.display()));
                        }
                        Err(e) => {
                            tracing::error!(table = self.table.name(), error = %e, "archiving the game failed")
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn publish(&self, line: String) {
        // No subscriber is no error.
        self.events.send(Arc::from(line)).ok();
    }
}

/// A link event as the table's input.
pub fn board_input(board: BoardId, event: LinkEvent) -> Input {
    match event {
        LinkEvent::Connected(detail) => Input::Link {
            board,
            up: true,
            detail,
        },
        LinkEvent::Disconnected(detail) | LinkEvent::Unreachable(detail) => Input::Link {
            board,
            up: false,
            detail,
        },
        // Events are stamped by the table's clock on arrival, like every other input.
        LinkEvent::Decoded(Ok(timed)) => Input::Sensor {
            board,
            event: timed.event,
        },
        LinkEvent::Decoded(Err(e)) => Input::DecodeError {
            board,
            message: e.to_string(),
        },
    }
}

/// Appends to the table's record of resolutions and syncs it, for the arbiter and appeals.
fn append_synced(path: &std::path::Path, text: &str) -> Result<PathBuf, String> {
    use std::io::Write;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_data())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path.to_owned())
}

async fn sleep_for(d: Option<Duration>) {
    match d {
        Some(d) => tokio::time::sleep(d).await,
        None => std::future::pending().await,
    }
}
