//! Correspondence tables by mail: reads the Maildir, finds each message's game, checks its
//! record against the game and plays the opponent's move (or reports why not, quoting both
//! records); and when the blind player has moved, queues the reply in the ICCF form, exactly
//! once across restarts (`io::mail_out`), for the sender thread to deliver.
//!
//! Replies are level-triggered: whenever the game's last move is the blind player's and no
//! reply for it is marked sent (`<state_dir>/mail-sent/<table>`), the reply is queued under a
//! key made of the table, the game and the half-move, so a crash anywhere between the move's
//! journal write and the mark queues it once, never twice and never not at all.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{broadcast, mpsc, watch};

use crate::app::desk_link::Notice;
use crate::chess::language::Language;
use crate::control::hub::{Request, TableHandle};
use crate::correspondence::message::GameId;
use crate::io::mail_out::MailQueue;
use crate::io::maildir::Maildir;
use crate::table::control::DeskRequest;
use crate::table::event::TableEvent;
use crate::table::state::DeskView;

mod delivery;
mod incoming;
mod replies;
mod requests;
mod tell;

/// How often the Maildir is read and the games looked at for replies.
pub const POLL: Duration = Duration::from_secs(1);
/// How long a stopping daemon waits for the sender thread's message in hand.
const SENDER_FINISH: Duration = Duration::from_secs(10);
/// Reports of the sender thread waiting for the mail desk.
const REPORT_BACKLOG: usize = 64;
/// Messages read from the Maildir at one look, and the time one look may take handling them
/// (the rest wait for the next look, so replies and requests are never held up for long).
const MESSAGES_PER_LOOK: usize = 256;
const LOOK_BUDGET: Duration = Duration::from_millis(400);

/// One correspondence table as the mail reaches it.
pub struct MailTable {
    pub handle: TableHandle,
    pub index: usize,
    pub game_id: GameId,
    /// Where the replies go.
    pub opponent_email: String,
    /// Every address the opponent writes from, lower case: only their messages are played.
    pub opponent_addresses: Vec<String>,
    pub white: String,
    pub black: String,
    pub view: watch::Receiver<Arc<DeskView>>,
    pub lang: &'static Language,
}

/// The mail's task: the Maildir in, the queue out.
pub struct MailDesk {
    pub tables: Vec<MailTable>,
    /// `None` only while a look into it runs on the blocking pool.
    pub maildir: Option<Maildir>,
    pub queue: MailQueue,
    /// Wakes the sender thread when a reply is queued.
    pub wake: std::sync::mpsc::Sender<()>,
    /// The sender thread, joined at shutdown: a reply the server is accepting is moved to
    /// `sent/` before the process ends (or it would go again with the same Message-ID).
    pub sender: Option<std::thread::JoinHandle<()>>,
    pub notices: mpsc::Sender<Notice>,
    /// `<state_dir>/mail-sent/`: per table, the last half-move whose reply is queued.
    pub sent_dir: PathBuf,
    /// The Message-ID of the last message received per table, which the reply answers: set
    /// by the incoming mail, taken into the table's mark (kept across restarts) by the replies.
    pub last_received: Vec<Option<String>>,
    /// What the incoming side remembers between looks.
    pub intake: incoming::Intake,
    /// Per table, what its game has mailed (`None` until first read from `sent_dir`).
    pub marks: Vec<Option<crate::io::mail_out::ReplyMark>>,
    /// The sender thread's report of each message.
    pub reports: mpsc::Receiver<crate::io::mail_out::SendReport>,
    /// Per table, the draw offer standing at the last look (to tell his acceptance or his
    /// decline of the opponent's offer).
    pub last_offer: Vec<Option<shakmaty::Color>>,
}

impl MailDesk {
    pub async fn run(
        mut self,
        mut requests: mpsc::Receiver<Request<DeskRequest>>,
        mut shutdown: watch::Receiver<bool>,
    ) {
        if let Err(e) = crate::io::private_file::create_dir(
            &self.sent_dir,
            crate::io::private_file::Access::Private,
        ) {
            tracing::error!(dir = %self.sent_dir.display(), error = %e, "the mail's marks cannot be kept");
        }
        let mut tick = tokio::time::interval(POLL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut told_waiting = false;
        loop {
            tokio::select! {
                _ = shutdown.changed() => break,
                Some(report) = self.reports.recv() => {
                    self.on_report(report);
                    continue;
                }
                Some(request) = requests.recv() => {
                    let reply = self.answer(&request.command);
                    request.reply.send(reply).ok();
                    continue;
                }
                _ = tick.tick() => {}
            }
            if *shutdown.borrow() {
                break;
            }
            let now = crate::io::clock::unix_ms();
            for i in 0..self.tables.len() {
                self.reply_if_due(i);
                self.check_unanswered(i, now);
            }
            if !told_waiting {
                // After the marks are read: what the queue holds is named by them.
                told_waiting = true;
                self.tell_waiting();
            }
            self.read_mail().await;
        }
        self.stop_sender().await;
    }

    /// Lets the sender thread end its message in hand, for at most [`SENDER_FINISH`], hearing
    /// its last reports meanwhile.
    async fn stop_sender(&mut self) {
        // Its wake channel closed, the thread ends after the pass it is in.
        self.wake = std::sync::mpsc::channel().0;
        let Some(sender) = self.sender.take() else {
            return;
        };
        let mut joined = tokio::task::spawn_blocking(move || sender.join());
        let deadline = tokio::time::sleep(SENDER_FINISH);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                Some(report) = self.reports.recv() => self.on_report(report),
                _ = &mut joined => return,
                _ = &mut deadline => {
                    tracing::warn!("the mail sender did not finish in time; a reply being sent may go again with its Message-ID");
                    return;
                }
            }
        }
    }

    /// Words for the blind player, said by the desk on the table's voice.
    pub(super) fn say(&self, i: usize, text: String) {
        let index = self.tables[i].index;
        if self.notices.try_send(Notice::Say(index, text)).is_err() {
            tracing::warn!(table = %self.tables[i].handle.name, "the desk is busy; a mail notice was not said");
        }
    }
}

fn publish(events: &broadcast::Sender<Arc<TableEvent>>, event: TableEvent) {
    events.send(Arc::new(event)).ok();
}

/// Why the mail desk could not start; the texts name the setting or the part that failed.
#[derive(Debug, thiserror::Error)]
pub enum MailStartError {
    #[error("mail.maildir {}: {error}", .path.display())]
    Maildir {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("the outgoing mail's queue: {0}")]
    Queue(crate::io::mail_out::MailError),
    #[error(transparent)]
    Destination(crate::config::ConfigError),
    #[error("starting the mail sender: {0}")]
    Sender(std::io::Error),
}

/// Starts reading the Maildir and sending replies for these tables.
pub fn spawn(
    tasks: &mut tokio::task::JoinSet<()>,
    state_dir: &Path,
    mail: &crate::config::MailSettings,
    tables: Vec<MailTable>,
    notices: mpsc::Sender<Notice>,
    requests: mpsc::Receiver<Request<DeskRequest>>,
    shutdown: &watch::Receiver<bool>,
) -> Result<(), MailStartError> {
    let maildir = Maildir::open(&mail.maildir).map_err(|error| MailStartError::Maildir {
        path: mail.maildir.clone(),
        error,
    })?;
    let queue = MailQueue::open(state_dir, &mail.from).map_err(MailStartError::Queue)?;
    let destination = mail
        .destination(state_dir)
        .map_err(MailStartError::Destination)?;
    let (wake, woken) = std::sync::mpsc::channel();
    let (report, reports) = mpsc::channel(REPORT_BACKLOG);
    let sender = {
        let queue = queue.clone();
        std::thread::Builder::new()
            .name("mail-sender".to_owned())
            .spawn(move || {
                crate::io::mail_out::run_sender(
                    &queue,
                    &destination,
                    &woken,
                    crate::io::mail_out::RETRY_FIRST,
                    // Waits while the mail desk is behind (it reads every report at once);
                    // once it has stopped, the report is only logged.
                    |r| {
                        if let Err(e) = report.blocking_send(r) {
                            tracing::info!(report = ?e.0, "mail report after the mail desk stopped");
                        }
                    },
                );
            })
            .map_err(MailStartError::Sender)?
    };
    let n = tables.len();
    let desk = MailDesk {
        tables,
        maildir: Some(maildir),
        queue,
        wake,
        sender: Some(sender),
        notices,
        sent_dir: state_dir.join("mail-sent"),
        last_received: vec![None; n],
        intake: incoming::Intake::new(state_dir),
        marks: vec![None; n],
        last_offer: vec![None; n],
        reports,
    };
    tasks.spawn(desk.run(requests, shutdown.clone()));
    Ok(())
}
