//! One task per table: owns the pure [`Table`], feeds it board events, control requests and
//! the passing of time, and performs each [`Step`] it returns — its journal records first, all
//! in one durable write, then what they caused. A step the journal refuses is rolled back, so
//! nothing is announced or acknowledged that a crash could lose, and nothing refused changes
//! the game.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::{broadcast, mpsc, watch};

use crate::app::desk_link::Notice;
use crate::boards::Millis;
use crate::control::hub::Request;
use crate::io::clock::{self, TableClock, unix_ms};
use crate::io::link::LinkEvent;
use crate::io::private_file::{self, Access, Mode};
use crate::io::speech::{Speaker, Utterance};
use crate::table::control::{ErrorCode, ExportFormat, Refusal};
use crate::table::event::TableEvent;
use crate::table::state::{BoardId, DeskView, Effect, Input, Step, Table};

/// Where a table's records go: durable when `append` returns (the SQLite journal).
pub trait Journal: Send + Sync + 'static {
    /// Why a write or an archive failed: typed (the daemon's journal fails with
    /// [`StoreError`](crate::io::store::StoreError)); its text is what the table says and
    /// publishes.
    type Error: std::error::Error + Send + Sync + 'static;
    /// Writes record lines of `table`'s current game, each with its wall time, in one
    /// transaction: all of them are durable when it returns `Ok`, none of them after an `Err`.
    fn append(
        &self,
        table: &str,
        lines: Vec<(u64, String)>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send;
    /// Starts `table`'s next game with these record lines, in one transaction (the new game and
    /// its lines together or not at all); returns the new game's number.
    fn begin(
        &self,
        table: &str,
        lines: Vec<(u64, String)>,
    ) -> impl Future<Output = Result<u64, Self::Error>> + Send;
    /// Keeps a finished game as PGN; returns where.
    fn archive(
        &self,
        table: &str,
        pgn: String,
    ) -> impl Future<Output = Result<PathBuf, Self::Error>> + Send;
}

/// Board events handled in a row before a waiting request is answered.
const BOARD_STREAK: usize = 16;

/// What a board link reports, tagged with the board.
pub type BoardMessage = (BoardId, LinkEvent);

/// The table's channels and services.
pub struct TableActor<J: Journal> {
    pub table: Table,
    /// The table's time (monotonic, continuing the journal's) and the wall clock for labels.
    pub clock: TableClock,
    pub journal: Arc<J>,
    pub speaker: Arc<Speaker>,
    /// The language code utterances carry (picks the voice).
    pub voice: String,
    /// Names the per-game audio record (`<table>-<game>`).
    pub game_id: String,
    /// The table's name as a file stem, which `game_id` starts with.
    pub game_stem: String,
    pub events: broadcast::Sender<Arc<TableEvent>>,
    /// Where the table's record of two-board resolutions is kept (`<state-dir>/records/`).
    pub record_dir: PathBuf,
    /// A correspondence table's line to the desk and the mail: its view after each step.
    pub desk: Option<DeskLink>,
    /// The audio record in the cassette custom (each move twice).
    pub cassette: bool,
}

/// How a correspondence table tells the desk and the mail what it is now.
pub struct DeskLink {
    /// Its index in the desk's list.
    pub index: usize,
    pub view: watch::Sender<Arc<DeskView>>,
    pub notices: mpsc::Sender<Notice>,
    /// The game's score in Braille (BRF), rewritten after each move: for his Braille display
    /// or embosser (`<state_dir>/braille/<table>.brf`).
    pub braille: PathBuf,
    /// The half-moves the Braille score holds (`None`: not written yet).
    pub scored: Option<usize>,
}

impl<J: Journal> TableActor<J> {
    /// Runs until `shutdown` turns true or every sender is gone.
    pub async fn run(
        mut self,
        mut requests: mpsc::Receiver<Request>,
        mut boards: mpsc::Receiver<BoardMessage>,
        mut shutdown: watch::Receiver<bool>,
    ) {
        let mut board_streak = 0usize;
        // Work before the loop (the restart's step) is no stall.
        self.clock.alive();
        loop {
            if *shutdown.borrow() {
                break;
            }
            let due = self
                .table
                .next_deadline(self.clock.now().table_ms)
                .map(|t| self.clock.instant_of(t));
            let wake = self.clock.wake_by(due);
            // Board events come first, in the order they came, so a request sees the boards
            // as they are; but a board line full of garbage must not keep the arbiter or a
            // player waiting: after a run of board events, a waiting request goes first.
            if board_streak >= BOARD_STREAK
                && let Ok(request) = requests.try_recv()
            {
                board_streak = 0;
                self.woke().await;
                self.answer(request).await;
                self.tell_desk();
                self.clock.alive();
                continue;
            }
            tokio::select! {
                biased;
                _ = shutdown.changed() => {}
                Some((board, event)) = boards.recv() => {
                    board_streak += 1;
                    self.woke().await;
                    if let LinkEvent::Decoded(Err(e)) = &event {
                        tracing::warn!(table = self.table.name(), %board, error = %e, "board sent a malformed message; skipped");
                    }
                    let running = self.table.clock().running();
                    let now = self.clock.input_now();
                    let step = self.table.handle(now, board_input(board, event, now.table_ms));
                    self.perform(step).await.ok();
                    self.after_input(running);
                }
                Some(request) = requests.recv() => {
                    board_streak = 0;
                    self.woke().await;
                    self.answer(request).await;
                }
                _ = sleep_until(wake) => {
                    let stalled = self.woke().await;
                    // A deadline (a flag, a clock call) is judged only once what was queued
                    // while the daemon did not run has been read (`TableClock::wake`); a
                    // pulse before the table's deadline is no tick, and with none reported
                    // (a flag fallen during a stall) the table looks.
                    if self.clock.catching_up().is_none()
                        && due.is_none_or(|d| d <= tokio::time::Instant::now())
                    {
                        let step = self.table.handle(self.clock.now(), Input::Tick);
                        self.perform(step).await.ok();
                    } else if !stalled {
                        // A mere pulse: nothing for the desk.
                        self.clock.alive();
                        continue;
                    }
                }
                else => break,
            }
            self.tell_desk();
            self.clock.alive();
        }
    }

    /// The table's task woke: after a stall the arbiter is told, and input is judged as of the
    /// stall's start for a moment (`TableClock::wake`). Whether it was a stall.
    async fn woke(&mut self) -> bool {
        let Some(stalled_ms) = self.clock.wake() else {
            return false;
        };
        tracing::warn!(
            table = self.table.name(),
            stalled_ms,
            "the daemon did not run; what reached it meanwhile is judged as of the stall's start"
        );
        let step = self.table.stalled(stalled_ms);
        self.perform(step).await.ok();
        true
    }

    /// After input judged during the catch-up after a stall: a move made then (the running
    /// side changed) leaves the stall charged to nobody (`TableClock::forgive_stall`).
    fn after_input(&mut self, running_before: Option<shakmaty::Color>) {
        if self.table.clock().running() != running_before {
            self.clock.forgive_stall();
        }
    }

    /// Answers one request: its step performed, then the reply (an error when the journal
    /// refused the step).
    async fn answer(&mut self, request: Request) {
        let running = self.table.clock().running();
        let (reply, step) = self.table.request(
            self.clock.input_now(),
            request.role,
            request.lang,
            &request.command,
        );
        let reply = match self.perform(step).await {
            Ok(()) => reply,
            Err(e) => Err(Refusal::new(
                ErrorCode::State,
                format!(
                    "the journal could not record this ({e}); nothing changed and nothing was \
                     announced"
                ),
            )),
        };
        self.after_input(running);
        // The requester may have gone; the table goes on.
        request.reply.send(reply).ok();
    }

    /// A correspondence table's view for the desk and the mail, after each step, and its
    /// Braille score when the game changed.
    pub fn tell_desk(&mut self) {
        let plies = self.table.game().ply_count();
        if let Some(link) = &mut self.desk
            && link.scored != Some(plies)
        {
            link.scored = Some(plies);
            let brf = self
                .table
                .export(ExportFormat::Brf, self.table.settings().lang);
            if let Err(e) = write_atomically(&link.braille, &brf) {
                tracing::warn!(table = self.table.name(), path = %link.braille.display(), error = %e, "the Braille score was not written");
            }
        }
        if let Some(link) = &self.desk {
            let now = self.clock.now().unix_ms;
            link.view.send_replace(Arc::new(self.table.desk_view(now)));
            // A full queue already holds a notice to look again.
            link.notices.try_send(Notice::Stepped(link.index)).ok();
        }
    }

    /// Performs a step: its records in one journal write, then its effects in order. When the
    /// journal refuses, the table is rolled back to before the step, nothing of it is said or
    /// published but the error, and the boards are compared with the game again (a move the
    /// journal could not keep is then guided back on the board that made it).
    pub async fn perform(&mut self, step: Step) -> Result<(), J::Error> {
        if let Err(e) = self.write(&step).await {
            self.table.rollback(step);
            self.publish(&TableEvent::JournalError {
                message: e.to_string(),
            });
            let again = self.table.handle(self.clock.input_now(), Input::Tick);
            // Guidance needs no record; if this step has records and fails too, it is rolled
            // back as well and the table waits for the next input.
            if self.write(&again).await.is_ok() {
                self.effects(again).await;
            } else {
                self.table.rollback(again);
            }
            return Err(e);
        }
        self.effects(step).await;
        Ok(())
    }

    async fn write(&mut self, step: &Step) -> Result<(), J::Error> {
        if step.records.is_empty() {
            return Ok(());
        }
        let wall = self.clock.now().unix_ms;
        let lines = step
            .records
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                (
                    step.walls.get(i).copied().unwrap_or(wall),
                    entry.to_string(),
                )
            })
            .collect();
        let written = if step.begins_game {
            // The next game: its records go to a game of its own, and so does its audio record.
            self.journal
                .begin(self.table.name(), lines)
                .await
                .map(|game| self.game_id = format!("{}-{game}", self.game_stem))
        } else {
            self.journal.append(self.table.name(), lines).await
        };
        written.inspect_err(|e| tracing::error!(table = self.table.name(), error = %e, "journal write failed; the step is rolled back"))
    }

    async fn effects(&mut self, step: Step) {
        // The step's utterances go to the speaker together, so that an output serving two
        // listeners addressed with the same words says them once.
        let mut said = Vec::new();
        // The same words to several listeners in one step are one utterance: one identity.
        let mut ids: Vec<(String, u64)> = Vec::new();
        for effect in step.effects {
            match effect {
                Effect::Event(mut event) => {
                    if let TableEvent::Say(say) = &mut event {
                        say.id = utterance_id(&mut ids, &say.text);
                        let u = Utterance::new(
                            say.listener,
                            say.text.clone(),
                            self.voice.clone(),
                            self.game_id.clone(),
                            unix_ms(),
                        )
                        .about(say.about)
                        .cassette(self.cassette);
                        said.push(if say.urgency.is_urgent() {
                            u.urgent()
                        } else {
                            u
                        });
                    }
                    self.publish(&event);
                }
                Effect::Resolution { text } => {
                    // Nothing waits for the disk: what was said so far is heard now.
                    self.speaker.say_step(std::mem::take(&mut said));
                    let path = self.record_dir.join(format!(
                        "{}.txt",
                        crate::io::store::file_stem(self.table.name())
                    ));
                    let entry = format!("== {} (unix ms)\n{text}\n", self.clock.now().unix_ms);
                    let written = tokio::task::spawn_blocking(move || append_synced(&path, &entry))
                        .await
                        .map_err(ResolutionError::from)
                        .and_then(|r| r);
                    match written {
                        Ok(path) => self.publish(&TableEvent::Recorded {
                            path: path.display().to_string(),
                        }),
                        Err(e) => {
                            tracing::error!(table = self.table.name(), error = %e, "writing the resolution record failed")
                        }
                    }
                }
                Effect::Finished { pgn } => {
                    self.speaker.say_step(std::mem::take(&mut said));
                    match self.journal.archive(self.table.name(), pgn).await {
                        Ok(path) => {
                            tracing::info!(table = self.table.name(), path = %path.display(), "game archived");
                            self.publish(&TableEvent::Archived {
                                path: path.display().to_string(),
                            });
                        }
                        Err(e) => {
                            tracing::error!(table = self.table.name(), error = %e, "archiving the game failed")
                        }
                    }
                }
            }
        }
        self.speaker.say_step(said);
    }

    fn publish(&self, event: &TableEvent) {
        tracing::debug!(
            table = self.table.name(),
            "{}",
            crate::control::wire::event_line(event)
        );
        // No subscriber is no error.
        self.events.send(Arc::new(event.clone())).ok();
    }
}

/// Identities of utterances, unique in the daemon (every table's), never 0 ("not numbered").
static NEXT_UTTERANCE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// The identity of `text` said in this step: the one it already has here, or a new one.
fn utterance_id(ids: &mut Vec<(String, u64)>, text: &str) -> u64 {
    if let Some((_, id)) = ids.iter().find(|(t, _)| t == text) {
        return *id;
    }
    let id = NEXT_UTTERANCE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    ids.push((text.to_owned(), id));
    id
}

/// A link event as the table's input, reaching the table at table time `now_ms`. A sensor
/// event carries when the link read it (`clock::now_ms`), which becomes table time by how long
/// ago that was: under a flood the table's task may take two lines of a hand together although
/// they were read apart.
pub fn board_input(board: BoardId, event: LinkEvent, now_ms: Millis) -> Input {
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
        LinkEvent::Decoded(Ok(timed)) => Input::SensorRead {
            board,
            event: timed.event,
            read_ms: now_ms.saturating_sub(clock::now_ms().saturating_sub(timed.at)),
        },
        LinkEvent::Decoded(Err(e)) => Input::DecodeError {
            board,
            message: e.to_string(),
        },
    }
}

/// Replaces `path` with `text` whole (a temporary file renamed over it), never through a link.
fn write_atomically(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        private_file::create_dir(dir, Access::Record)?;
    }
    private_file::replace(path, text.as_bytes(), Access::Record)
}

/// Why a resolution was not written down: the file (or its folder) and the system's error, or
/// the writing task died.
#[derive(Debug, thiserror::Error)]
enum ResolutionError {
    #[error("{}: {error}", .path.display())]
    File {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error(transparent)]
    Task(#[from] tokio::task::JoinError),
}

/// Appends to the table's record of resolutions and syncs it, for the arbiter and appeals.
fn append_synced(path: &std::path::Path, text: &str) -> Result<PathBuf, ResolutionError> {
    use std::io::Write;
    let failed = |path: &std::path::Path| {
        let path = path.to_owned();
        move |error| ResolutionError::File { path, error }
    };
    if let Some(dir) = path.parent() {
        private_file::create_dir(dir, Access::Record).map_err(failed(dir))?;
    }
    let mut file = private_file::open(path, Mode::Append, Access::Record).map_err(failed(path))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_data())
        .map_err(failed(path))?;
    Ok(path.to_owned())
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}
