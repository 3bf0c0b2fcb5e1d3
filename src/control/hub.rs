//! The tables a daemon runs, as the network adapters see them: a request channel and an event
//! feed per table, and the correspondence desk's request channel. The control sessions (TCP and
//! the page's WebSocket) talk to tables and the desk only here; each channel carries only the
//! requests its receiver answers. The live broadcast's state is here too, for `broadcast`.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{broadcast, mpsc, oneshot, watch};

use crate::chess::language::Language;
use crate::table::control::{DeskRequest, ErrorCode, Refusal, Role, TableRequest};
use crate::table::event::TableEvent;
use crate::table::reply::Reply;

/// How many reply deadlines (`control.reply_timeout`, 10 s) a connection waits for a table's
/// answer before it says that the outcome is not known yet. A table answers every request it
/// takes once its journal write has ended (the move is then recorded, or refused with nothing
/// changed), and a disk that takes longer than the deadline to sync must not turn a move that
/// is recorded into an error: the connection keeps waiting for the answer (`patience`).
pub const PATIENCE: u32 = 6;

/// How long a connection waits for a table's (or the desk's) answer: [`PATIENCE`] reply
/// deadlines. Past it the reply says plainly that whether the request was recorded is not
/// known yet, and how to find out (`sheet`, `status`); it never says that a request the table
/// then recorded failed.
pub fn patience(reply_timeout: Duration) -> Duration {
    reply_timeout.saturating_mul(PATIENCE)
}

/// Waits for `asked` (a table's or the desk's answer) as long as [`patience`] allows; `None`
/// when the answer has not come by then.
pub async fn within_patience<F: Future<Output = Reply>>(
    reply_timeout: Duration,
    asked: F,
) -> Option<Reply> {
    tokio::time::timeout(patience(reply_timeout), asked)
        .await
        .ok()
}

/// Events a slow subscriber may fall behind by before it is told it missed some.
pub const EVENT_BACKLOG: usize = 256;
/// Requests waiting for one table before senders wait their turn.
pub const REQUEST_BACKLOG: usize = 64;

/// One request for a table (or, as `Request<DeskRequest>`, for the correspondence desk), from a
/// connection that has authenticated.
#[derive(Debug)]
pub struct Request<R = TableRequest> {
    /// Who asks (the token's role). The control server has refused what the role may never
    /// do (an observer changing the game, `control::permitted_to_role`); the table checks the
    /// rest with its side to move, `control::permitted(role, &command, side_to_move)`, when it
    /// takes the request, so the check and the move cannot race.
    pub role: Role,
    /// The connection's language: SAN piece letters and spoken words of `move` text.
    pub lang: &'static Language,
    /// What is asked: by its type, a request the table (or the desk) answers.
    pub command: R,
    /// The answer, typed; each transport writes it in its own form (`control::wire`).
    pub reply: oneshot::Sender<Reply>,
}

/// A running table, cheap to clone.
#[derive(Debug, Clone)]
pub struct TableHandle {
    /// The table's name from the configuration (`table-1`).
    pub name: Arc<str>,
    /// Requests for the table's actor.
    pub requests: mpsc::Sender<Request>,
    /// Every event at the table, typed; each transport encodes it (a line for TCP, fields by
    /// name for the page).
    pub events: broadcast::Sender<Arc<TableEvent>>,
}

impl TableHandle {
    /// Sends a request and waits for its reply; a table that has stopped answers with a refusal
    /// rather than leaving the caller waiting.
    pub async fn ask(&self, role: Role, lang: &'static Language, command: TableRequest) -> Reply {
        ask(&self.requests, &self.name, role, lang, command).await
    }
}

/// The correspondence desk as the control sessions reach it: its request channel, which takes
/// only the desk's requests.
#[derive(Debug, Clone)]
pub struct DeskHandle {
    pub requests: mpsc::Sender<Request<DeskRequest>>,
    /// The mail desk's channel, which answers `mail …` (`None`: no `[mail]` configured).
    pub mail: Option<mpsc::Sender<Request<DeskRequest>>>,
}

impl DeskHandle {
    /// Sends a request and waits for the desk's reply (the mail desk's for `mail …`), as
    /// [`TableHandle::ask`].
    pub async fn ask(&self, role: Role, lang: &'static Language, command: DeskRequest) -> Reply {
        if let DeskRequest::Mail(_) = &command {
            return match &self.mail {
                Some(mail) => ask(mail, "mail desk", role, lang, command).await,
                None => Err(Refusal::new(
                    ErrorCode::State,
                    "this daemon reads no mail: [mail] is not configured",
                )),
            };
        }
        ask(&self.requests, "desk", role, lang, command).await
    }
}

/// Sends a request on `requests` and waits for its reply; a receiver that has stopped answers
/// with a refusal rather than leaving the caller waiting.
pub async fn ask<R>(
    requests: &mpsc::Sender<Request<R>>,
    name: &str,
    role: Role,
    lang: &'static Language,
    command: R,
) -> Reply {
    let (reply, answer) = oneshot::channel();
    let request = Request {
        role,
        lang,
        command,
        reply,
    };
    let stopped = || Refusal::new(ErrorCode::State, format!("table {name} has stopped"));
    if requests.send(request).await.is_err() {
        return Err(stopped());
    }
    answer.await.unwrap_or_else(|_| Err(stopped()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::reply::Answer;

    /// A table busy past the reply deadline (a journal write syncing slowly) still has its
    /// answer delivered: the deadline never turns a recorded request into an error.
    #[tokio::test(start_paused = true)]
    async fn an_answer_after_the_deadline_is_still_the_reply() {
        let deadline = Duration::from_secs(10);
        let (tx, mut rx) = mpsc::channel::<Request>(1);
        let table = tokio::spawn(async move {
            let request = rx.recv().await.unwrap();
            // The journal takes 12 s to sync: past the deadline, within patience.
            tokio::time::sleep(Duration::from_secs(12)).await;
            request.reply.send(Ok(Answer::DrawAgreed)).unwrap();
        });
        let lang = crate::chess::language::Language::english();
        let asked = ask(&tx, "t", Role::Arbiter, lang, TableRequest::Board);
        let started = tokio::time::Instant::now();
        let reply = within_patience(deadline, asked).await;
        assert_eq!(reply, Some(Ok(Answer::DrawAgreed)));
        assert_eq!(started.elapsed(), Duration::from_secs(12));
        table.await.unwrap();
    }

    /// The arbiter's `broadcast` line: ages from the wall times, a failure with its reason and
    /// the wait before the next try, the parts not configured said `off`.
    #[test]
    fn the_broadcast_state_in_words() {
        let at = |s: u64, outcome| {
            Some(Attempt {
                at_unix_ms: s * 1000,
                outcome,
            })
        };
        let status = BroadcastStatus {
            games: 2,
            left_out: 0,
            file: Some(("/r/games.pgn".into(), at(99, Ok(())))),
            push: Some(PushStatus {
                round_id: "Ab12Cd34".into(),
                pushes: 3,
                last: at(90, Err("too many requests: waiting 60 s".into())),
                next_try_unix_ms: Some(150_000),
            }),
        };
        assert_eq!(
            status.describe(100_000),
            "broadcast games 2; file /r/games.pgn written 1s ago; push round Ab12Cd34 failed \
             10s ago: too many requests: waiting 60 s, 3 pushes, next try in 50s"
        );
        let quiet = BroadcastStatus {
            games: 1,
            ..BroadcastStatus::default()
        };
        assert_eq!(quiet.describe(0), "broadcast games 1; file off; push off");
    }

    /// Past patience the connection stops waiting (the reply then says the outcome is not
    /// known yet); a table that has stopped is told at once.
    #[tokio::test(start_paused = true)]
    async fn past_patience_the_outcome_is_not_known_and_a_stopped_table_says_so() {
        let deadline = Duration::from_secs(10);
        assert_eq!(patience(deadline), Duration::from_secs(60));
        let (tx, mut rx) = mpsc::channel::<Request>(1);
        let held = tokio::spawn(async move {
            let request = rx.recv().await.unwrap();
            tokio::time::sleep(Duration::from_secs(61)).await;
            drop(request);
        });
        let lang = crate::chess::language::Language::english();
        let asked = ask(&tx, "t", Role::Arbiter, lang, TableRequest::Board);
        let started = tokio::time::Instant::now();
        assert_eq!(within_patience(deadline, asked).await, None);
        assert_eq!(started.elapsed(), Duration::from_secs(60));
        held.await.unwrap();
        // The receiver is gone now: the table has stopped.
        let reply = ask(&tx, "t", Role::Arbiter, lang, TableRequest::Board).await;
        assert_eq!(reply.unwrap_err().message, "table t has stopped");
    }
}

/// One write of the broadcast's file or one push of its round: when, and how it went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    pub at_unix_ms: u64,
    /// `Err`: what failed, in words (never the token).
    pub outcome: Result<(), String>,
}

/// The push of the round to lichess, as the arbiter sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushStatus {
    /// The lichess broadcast round pushed to.
    pub round_id: String,
    /// Pushes lichess accepted since the daemon started.
    pub pushes: u64,
    /// The last push, once there was one.
    pub last: Option<Attempt>,
    /// After a failure or a 429: no push before this wall time.
    pub next_try_unix_ms: Option<u64>,
}

/// The live broadcast's state (`app::broadcast` keeps it; `broadcast` reads it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BroadcastStatus {
    /// Games in the last round made (one per table).
    pub games: usize,
    /// Games beyond the bound left out of it (lichess takes 100).
    pub left_out: usize,
    /// `games.pgn` and its last write, when a `pgn_dir` is configured.
    pub file: Option<(PathBuf, Option<Attempt>)>,
    /// The push, when a round is configured.
    pub push: Option<PushStatus>,
}

impl BroadcastStatus {
    /// The `broadcast` reply's text after `ok`, with the ages as of `now_unix_ms`:
    /// `broadcast games 2; file /srv/round/games.pgn written 1s ago; push round RID ok 0s ago,
    /// 14 pushes`.
    pub fn describe(&self, now_unix_ms: u64) -> String {
        let ago = |at: u64| format!("{}s ago", now_unix_ms.saturating_sub(at) / 1000);
        let attempt = |done: &str, a: &Attempt| match &a.outcome {
            Ok(()) => format!("{done} {}", ago(a.at_unix_ms)),
            Err(why) => format!("failed {}: {why}", ago(a.at_unix_ms)),
        };
        let mut parts = vec![format!("broadcast games {}", self.games)];
        if self.left_out > 0 {
            parts.push(format!("{} games left out (bound)", self.left_out));
        }
        parts.push(match &self.file {
            None => "file off".to_owned(),
            Some((path, None)) => format!("file {} not written yet", path.display()),
            Some((path, Some(a))) => format!("file {} {}", path.display(), attempt("written", a)),
        });
        parts.push(match &self.push {
            None => "push off".to_owned(),
            Some(p) => {
                let last = match &p.last {
                    None => "not yet".to_owned(),
                    Some(a) => attempt("ok", a),
                };
                let mut text = format!("push round {} {last}, {} pushes", p.round_id, p.pushes);
                if let Some(next) = p.next_try_unix_ms.filter(|&t| t > now_unix_ms) {
                    let wait = (next - now_unix_ms).div_ceil(1000);
                    text.push_str(&format!(", next try in {wait}s"));
                }
                text
            }
        });
        parts.join("; ")
    }
}

/// Every table of the daemon: the configured ones in configuration order, then the server
/// games added while it runs (`crate::app::server_desk`).
#[derive(Debug, Clone, Default)]
pub struct Hub {
    /// Grows while the daemon runs; read briefly (never held across an await).
    tables: Arc<std::sync::RwLock<Vec<TableHandle>>>,
    /// The correspondence desk, which answers `focus` and `games` (`crate::app::desk`).
    desk: Option<DeskHandle>,
    /// The live broadcast's state, when `[broadcast]` is configured.
    broadcast: Option<watch::Receiver<BroadcastStatus>>,
}

impl Hub {
    pub fn new(tables: Vec<TableHandle>) -> Hub {
        Hub {
            tables: Arc::new(std::sync::RwLock::new(tables)),
            desk: None,
            broadcast: None,
        }
    }

    /// The hub with the live broadcast's state (`app::broadcast`).
    pub fn with_broadcast(mut self, status: watch::Receiver<BroadcastStatus>) -> Hub {
        self.broadcast = Some(status);
        self
    }

    /// The live broadcast's state now, when the daemon broadcasts.
    pub fn broadcast(&self) -> Option<BroadcastStatus> {
        self.broadcast.as_ref().map(|s| s.borrow().clone())
    }

    /// The hub with the correspondence desk's request channel.
    pub fn with_desk(mut self, desk: DeskHandle) -> Hub {
        self.desk = Some(desk);
        self
    }

    /// The correspondence desk, when the daemon runs one.
    pub fn desk(&self) -> Option<&DeskHandle> {
        self.desk.as_ref()
    }

    /// Every table now (handles are cheap clones).
    pub fn tables(&self) -> Vec<TableHandle> {
        self.read().clone()
    }

    /// The tables' names now, in order.
    pub fn names(&self) -> Arc<[Arc<str>]> {
        self.read().iter().map(|t| t.name.clone()).collect()
    }

    pub fn get(&self, name: &str) -> Option<TableHandle> {
        self.read().iter().find(|t| &*t.name == name).cloned()
    }

    /// Adds a table started while the daemon runs (a server's game); a name already there is
    /// replaced, so the control interface reaches the running one.
    pub fn add(&self, table: TableHandle) {
        let mut tables = self
            .tables
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match tables.iter_mut().find(|t| t.name == table.name) {
            Some(slot) => *slot = table,
            None => tables.push(table),
        }
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<TableHandle>> {
        // A panic while holding the lock cannot leave the list half-changed (one push).
        self.tables
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
