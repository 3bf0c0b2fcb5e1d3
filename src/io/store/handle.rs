//! [`StoreHandle`]: the journal for the actors. One thread owns the [`Store`]; every call is a
//! request to it, answered on a oneshot channel. Appends queued while that thread is busy are
//! committed together (group commit), so many tables writing at once cost one fsync.
//!
//! A call other than an append is sent as the store method to run, so the handle's surface is
//! the store's, each method written once here and once there; only appends and the close are
//! requests of their own, since the thread gathers the one and ends at the other.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;

use tokio::sync::oneshot;

use super::entry::{JournalEntry, check_lines};
use super::error::StoreError;
use super::journal::Store;

/// The most requests [`StoreHandle`]'s thread takes into one round (one transaction).
pub const MAX_GROUP: usize = 1024;

/// Counters of a [`StoreHandle`]'s thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StoreStats {
    /// Appends recorded.
    pub appends: u64,
    /// Transactions (each one fsync) that recorded them.
    pub commits: u64,
}

type Reply<T> = oneshot::Sender<Result<T, StoreError>>;

/// A store method to run on the thread, with its answer's sender inside.
type Job = Box<dyn FnOnce(&mut Store) + Send>;

enum Request {
    /// Lines of one table, recorded together or not at all, in one transaction with the other
    /// appends of the round.
    Append(PendingAppend),
    /// Anything else, run after the appends queued before it are committed (so that a `load`
    /// sees them).
    Run(Job),
    /// Commits what is queued and ends the thread.
    Close(Reply<()>),
}

/// One table's lines waiting for the group's transaction, with who waits for them.
type PendingAppend = (String, Vec<(u64, String)>, Reply<Vec<u64>>);

#[derive(Default)]
struct Counters {
    appends: AtomicU64,
    commits: AtomicU64,
}

/// The journal for the actors: cheap to clone, every call answered by the one thread that owns
/// the [`Store`]. Appends queued while that thread is busy are committed together (group
/// commit). If a call's future is dropped before it resolves, the line may or may not have been
/// recorded, so the caller must not announce it.
#[derive(Clone)]
pub struct StoreHandle {
    requests: mpsc::Sender<Request>,
    counters: Arc<Counters>,
}

impl fmt::Debug for StoreHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreHandle")
            .field("stats", &self.stats())
            .finish()
    }
}

impl StoreHandle {
    /// Moves the store onto a thread of its own (`annabella-journal`).
    pub fn spawn(store: Store) -> Result<StoreHandle, StoreError> {
        let (requests, receiver) = mpsc::channel();
        let counters = Arc::new(Counters::default());
        let thread_counters = Arc::clone(&counters);
        std::thread::Builder::new()
            .name("annabella-journal".to_owned())
            .spawn(move || serve(store, receiver, &thread_counters))
            .map_err(|e| StoreError::Thread {
                source: Arc::new(e),
            })?;
        Ok(StoreHandle { requests, counters })
    }

    /// Appends a line to `table`'s current game; resolves once it is on disk, with its sequence
    /// number. An error means the line is not recorded: refuse the move, announce nothing.
    pub async fn append(
        &self,
        table: &str,
        at_unix_ms: u64,
        line: &str,
    ) -> Result<u64, StoreError> {
        let seqs = self
            .append_all(table, vec![(at_unix_ms, line.to_owned())])
            .await?;
        Ok(seqs[0])
    }

    /// Appends several lines of `table` as one: all are on disk when this resolves, or none
    /// (a table's step with several records must not be half-recorded). Returns their sequence
    /// numbers in order.
    pub async fn append_all(
        &self,
        table: &str,
        lines: Vec<(u64, String)>,
    ) -> Result<Vec<u64>, StoreError> {
        if lines.is_empty() {
            return Ok(Vec::new());
        }
        self.ask(|reply| Request::Append((table.to_owned(), lines, reply)))
            .await
    }

    /// See [`Store::begin_game_with`].
    pub async fn begin_game_with(
        &self,
        table: &str,
        lines: Vec<(u64, String)>,
    ) -> Result<u64, StoreError> {
        let table = table.to_owned();
        self.run(move |store| {
            let lines: Vec<(u64, &str)> = lines.iter().map(|(at, l)| (*at, l.as_str())).collect();
            store.begin_game_with(&table, &lines)
        })
        .await
    }

    /// See [`Store::load`].
    pub async fn load(&self, table: &str) -> Result<Vec<JournalEntry>, StoreError> {
        let table = table.to_owned();
        self.run(move |store| store.load(&table)).await
    }

    /// See [`Store::load_game`].
    pub async fn load_game(&self, table: &str, game: u64) -> Result<Vec<JournalEntry>, StoreError> {
        let table = table.to_owned();
        self.run(move |store| store.load_game(&table, game)).await
    }

    /// See [`Store::begin_game`].
    pub async fn begin_game(&self, table: &str, at_unix_ms: u64) -> Result<u64, StoreError> {
        let table = table.to_owned();
        self.run(move |store| store.begin_game(&table, at_unix_ms))
            .await
    }

    /// See [`Store::current_game`].
    pub async fn current_game(&self, table: &str) -> Result<Option<u64>, StoreError> {
        let table = table.to_owned();
        self.run(move |store| Ok(store.current_game(&table))).await
    }

    /// See [`Store::tables`].
    pub async fn tables(&self) -> Result<Vec<String>, StoreError> {
        self.run(|store| Ok(store.tables())).await
    }

    /// See [`Store::heartbeat`].
    pub async fn heartbeat(&self, at_unix_ms: u64) -> Result<(), StoreError> {
        self.run(move |store| store.heartbeat(at_unix_ms)).await
    }

    /// See [`Store::heartbeat_with`].
    pub async fn heartbeat_with(
        &self,
        at_unix_ms: u64,
        alive: Vec<super::journal::Alive>,
    ) -> Result<(), StoreError> {
        self.run(move |store| store.heartbeat_with(at_unix_ms, &alive))
            .await
    }

    /// See [`Store::last_alive`].
    pub async fn last_alive(
        &self,
        table: &str,
    ) -> Result<Option<super::journal::Alive>, StoreError> {
        let table = table.to_owned();
        self.run(move |store| store.last_alive(&table)).await
    }

    /// See [`Store::last_heartbeat`].
    pub async fn last_heartbeat(&self) -> Result<Option<u64>, StoreError> {
        self.run(|store| Ok(store.last_heartbeat())).await
    }

    /// See [`Store::archive_pgn`]. The journal thread does the file's fsyncs, so appends queued
    /// meanwhile wait for them (a few milliseconds, once per finished game).
    pub async fn archive_pgn(
        &self,
        table: &str,
        game: u64,
        pgn: &str,
    ) -> Result<PathBuf, StoreError> {
        let (table, pgn) = (table.to_owned(), pgn.to_owned());
        self.run(move |store| store.archive_pgn(&table, game, &pgn))
            .await
    }

    /// Commits what is queued before this call, closes the database (checkpointing the log)
    /// and ends the thread; later calls on any clone fail with [`StoreError::Closed`].
    pub async fn close(&self) -> Result<(), StoreError> {
        self.ask(Request::Close).await
    }

    /// Appends and transactions so far; `appends / commits` is the mean group size.
    pub fn stats(&self) -> StoreStats {
        StoreStats {
            appends: self.counters.appends.load(Ordering::Relaxed),
            commits: self.counters.commits.load(Ordering::Relaxed),
        }
    }

    /// Runs `job` on the store's thread and returns its answer.
    async fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce(&mut Store) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        self.ask(|reply: Reply<T>| {
            Request::Run(Box::new(move |store| {
                // The caller may have gone; the store goes on.
                let _ = reply.send(job(store));
            }))
        })
        .await
    }

    async fn ask<T>(&self, request: impl FnOnce(Reply<T>) -> Request) -> Result<T, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.requests
            .send(request(reply))
            .map_err(|_| StoreError::Closed)?;
        answer.await.unwrap_or(Err(StoreError::Closed))
    }
}

/// The journal thread: takes everything queued, commits the appends among it together (in
/// arrival order, flushed before any other request so that a later `load` sees them), answers
/// each caller. Ends on `close` or when every handle is gone.
fn serve(mut store: Store, requests: mpsc::Receiver<Request>, counters: &Counters) {
    let mut round = Vec::new();
    let mut appends = Vec::new();
    while let Ok(first) = requests.recv() {
        round.push(first);
        while round.len() < MAX_GROUP {
            match requests.try_recv() {
                Ok(request) => round.push(request),
                Err(_) => break,
            }
        }
        for request in round.drain(..) {
            match request {
                Request::Append(append) => appends.push(append),
                Request::Run(job) => {
                    commit_group(&mut store, &mut appends, counters);
                    job(&mut store);
                }
                Request::Close(reply) => {
                    commit_group(&mut store, &mut appends, counters);
                    // Requests queued behind the close see their reply slot dropped: Closed.
                    let _ = reply.send(store.close());
                    return;
                }
            }
        }
        commit_group(&mut store, &mut appends, counters);
    }
}

/// One transaction for every valid append of the group; an invalid one is answered alone, so
/// it cannot fail the others. One request's lines are valid together or refused together.
fn commit_group(store: &mut Store, appends: &mut Vec<PendingAppend>, counters: &Counters) {
    if appends.is_empty() {
        return;
    }
    let mut valid = Vec::with_capacity(appends.len());
    for (table, lines, reply) in appends.drain(..) {
        match check_lines(&table, &lines) {
            Ok(()) => valid.push((table, lines, reply)),
            Err(e) => {
                let _ = reply.send(Err(e));
            }
        }
    }
    if valid.is_empty() {
        return;
    }
    let items: Vec<(&str, u64, &str)> = valid
        .iter()
        .flat_map(|(table, lines, _)| {
            lines
                .iter()
                .map(move |(at, line)| (table.as_str(), *at, line.as_str()))
        })
        .collect();
    let result = store.append_checked(&items);
    drop(items);
    match result {
        Ok(seqs) => {
            counters.commits.fetch_add(1, Ordering::Relaxed);
            counters
                .appends
                .fetch_add(seqs.len() as u64, Ordering::Relaxed);
            let mut seqs = seqs.into_iter();
            for (_, lines, reply) in valid {
                let _ = reply.send(Ok(seqs.by_ref().take(lines.len()).collect()));
            }
        }
        Err(e) => {
            for (.., reply) in valid {
                let _ = reply.send(Err(e.clone()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::store::JOURNAL_FILE;

    fn state() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("state");
        (tmp, dir)
    }

    fn lines(entries: &[JournalEntry]) -> Vec<&str> {
        entries.iter().map(|e| e.line.as_str()).collect()
    }

    #[test]
    fn the_handle_can_go_to_any_task_and_the_store_to_its_thread() {
        fn handle<T: Clone + Send + Sync + 'static>() {}
        fn store<T: Send + 'static>() {}
        handle::<StoreHandle>();
        store::<Store>();
        store::<StoreError>();
    }

    #[test]
    fn the_handle_answers_and_closes() {
        let (_tmp, dir) = state();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let handle = StoreHandle::spawn(Store::open(&dir).unwrap()).unwrap();
            let other = handle.clone();
            let a = handle.append("t", 1, "one").await.unwrap();
            let b = other.append("t", 2, "two").await.unwrap();
            assert!(a < b);
            assert!(handle.append("t", 3, "bad\nline").await.is_err());
            assert_eq!(lines(&handle.load("t").await.unwrap()), vec!["one", "two"]);
            assert_eq!(handle.begin_game("t", 4).await.unwrap(), 2);
            assert_eq!(handle.current_game("t").await.unwrap(), Some(2));
            assert!(handle.load("t").await.unwrap().is_empty());
            assert_eq!(
                lines(&handle.load_game("t", 1).await.unwrap()),
                vec!["one", "two"]
            );
            assert_eq!(handle.tables().await.unwrap(), vec!["t"]);
            handle.heartbeat(5).await.unwrap();
            assert_eq!(handle.last_heartbeat().await.unwrap(), Some(5));
            let path = handle.archive_pgn("t", 1, "1. e4 *\n").await.unwrap();
            assert!(path.exists());
            assert_eq!(handle.stats().appends, 2);
            handle.close().await.unwrap();
            assert!(matches!(
                other.append("t", 6, "late").await,
                Err(StoreError::Closed)
            ));
            assert!(matches!(handle.close().await, Err(StoreError::Closed)));
        });
        // Closed cleanly: the log was checkpointed into the database and removed.
        assert!(!dir.join(format!("{JOURNAL_FILE}-wal")).exists());
        let store = Store::open(&dir).unwrap();
        assert_eq!(lines(&store.load_game("t", 1).unwrap()), vec!["one", "two"]);
    }
}
