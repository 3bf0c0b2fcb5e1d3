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

mod incoming;
mod replies;
mod requests;
mod tell;

/// How often the Maildir is read and the games looked at for replies.
pub const POLL: Duration = Duration::from_secs(1);
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
    pub notices: mpsc::Sender<Notice>,
    /// `<state_dir>/mail-sent/`: per table, the last half-move whose reply is queued.
    pub sent_dir: PathBuf,
    /// The Message-ID of the last message received per table, which the reply answers.
    pub last_received: Vec<Option<String>>,
    /// What the incoming side remembers between looks.
    pub intake: incoming::Intake,
}

impl MailDesk {
    pub async fn run(
        mut self,
        mut requests: mpsc::Receiver<Request<DeskRequest>>,
        mut shutdown: watch::Receiver<bool>,
    ) {
        if let Err(e) = std::fs::create_dir_all(&self.sent_dir) {
            tracing::error!(dir = %self.sent_dir.display(), error = %e, "the mail's marks cannot be kept");
        }
        let mut tick = tokio::time::interval(POLL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = shutdown.changed() => break,
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
            for i in 0..self.tables.len() {
                self.reply_if_due(i);
            }
            self.read_mail().await;
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
    shutdown: &watch::Receiver<bool>,
) -> Result<mpsc::Sender<Request<DeskRequest>>, MailStartError> {
    let maildir = Maildir::open(&mail.maildir).map_err(|error| MailStartError::Maildir {
        path: mail.maildir.clone(),
        error,
    })?;
    let queue = MailQueue::open(state_dir, &mail.from).map_err(MailStartError::Queue)?;
    let destination = mail
        .destination(state_dir)
        .map_err(MailStartError::Destination)?;
    let (wake, woken) = std::sync::mpsc::channel();
    {
        let queue = queue.clone();
        std::thread::Builder::new()
            .name("mail-sender".to_owned())
            .spawn(move || {
                crate::io::mail_out::run_sender(
                    &queue,
                    &destination,
                    &woken,
                    crate::io::mail_out::RETRY_FIRST,
                    |sent, failure| match failure {
                        Some(e) => {
                            tracing::warn!(sent, error = %e, "mail not sent yet; tried again")
                        }
                        None => tracing::info!(sent, "mail sent"),
                    },
                );
            })
            .map_err(MailStartError::Sender)?;
    }
    let n = tables.len();
    let desk = MailDesk {
        tables,
        maildir: Some(maildir),
        queue,
        wake,
        notices,
        sent_dir: state_dir.join("mail-sent"),
        last_received: vec![None; n],
        intake: incoming::Intake::new(state_dir),
    };
    let (requests_tx, requests) = mpsc::channel(crate::control::hub::REQUEST_BACKLOG);
    tasks.spawn(desk.run(requests, shutdown.clone()));
    Ok(requests_tx)
}
