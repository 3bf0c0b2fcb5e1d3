//! The sender thread's loop: delivers the queue at start (what a restart left), whenever it is
//! woken (something was queued or requeued), and each message that failed again after its own
//! backoff, so that a server down delays everything but a recipient refused for good (parked)
//! or one message failing delays no other.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::{Destination, MailError, MailQueue};

/// Backoff between attempts of one message: from the first to the last, doubling.
pub const RETRY_FIRST: Duration = Duration::from_secs(2);
pub const RETRY_LAST: Duration = Duration::from_secs(300);
/// The most messages whose backoff is remembered (the queue's bound is larger; beyond this a
/// message is simply tried at every pass).
const MAX_TRACKED: usize = 1_000;

/// What became of one queued message at one attempt.
#[derive(Debug)]
pub enum SendReport {
    /// The server accepted it (or it was written to the outbox).
    Sent { message_id: String, outbox: bool },
    /// A temporary failure: it stays queued and is tried again after its backoff.
    Deferred {
        message_id: String,
        file: PathBuf,
        error: MailError,
    },
    /// Refused for good (a 5xx): moved to `parked/` until `mail retry`.
    Parked {
        message_id: String,
        file: PathBuf,
        error: MailError,
    },
}

/// One message's failures so far and when it may be tried again.
struct Backoff {
    attempts: u32,
    next: Instant,
    wait: Duration,
}

/// The sender's loop, for a thread of its own; ends when `wake`'s sender is dropped. `report`
/// hears every message's outcome; a failure to read the queue itself is reported as
/// [`SendReport::Deferred`] of no message and retried with the same backoff.
pub fn run_sender(
    queue: &MailQueue,
    to: &Destination,
    wake: &Receiver<()>,
    first_retry: Duration,
    mut report: impl FnMut(SendReport),
) {
    let mut backoff: HashMap<PathBuf, Backoff> = HashMap::new();
    let mut queue_error_wait = None::<Duration>;
    loop {
        let now = Instant::now();
        let waiting: HashSet<PathBuf> = backoff
            .iter()
            .filter(|(_, b)| b.next > now)
            .map(|(p, _)| p.clone())
            .collect();
        let result = queue.deliver_due(
            to,
            |q| !waiting.contains(&q.path),
            |r| {
                match &r {
                    SendReport::Deferred { file, .. } => {
                        let b = backoff.entry(file.clone()).or_insert(Backoff {
                            attempts: 0,
                            next: now,
                            wait: first_retry / 2,
                        });
                        b.attempts += 1;
                        b.wait = (b.wait * 2).clamp(first_retry, RETRY_LAST);
                        b.next = Instant::now() + b.wait;
                        tracing::debug!(file = %file.display(), attempts = b.attempts, "a reply waits for another try");
                    }
                    SendReport::Parked { file, .. } => {
                        backoff.remove(file);
                    }
                    SendReport::Sent { .. } => {}
                }
                report(r);
            },
        );
        // Files sent or parked are gone from the queue: so is their backoff.
        backoff.retain(|path, _| path.exists());
        if backoff.len() > MAX_TRACKED {
            backoff.clear();
        }
        queue_error_wait = match result {
            Ok(()) => None,
            Err(error) => {
                report(SendReport::Deferred {
                    message_id: String::new(),
                    file: queue.dir().to_owned(),
                    error,
                });
                Some(queue_error_wait.map_or(first_retry, |w| (w * 2).min(RETRY_LAST)))
            }
        };
        let next_due = backoff.values().map(|b| b.next).min();
        let wait = match (next_due, queue_error_wait) {
            (Some(at), e) => Some(
                at.saturating_duration_since(Instant::now())
                    .min(e.unwrap_or(RETRY_LAST)),
            ),
            (None, e) => e,
        };
        let waited = match wait {
            None => wake.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(wait) => wake.recv_timeout(wait),
        };
        match waited {
            Ok(()) | Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        // Several wake-ups queued meanwhile need one pass.
        while wake.try_recv().is_ok() {}
    }
}
