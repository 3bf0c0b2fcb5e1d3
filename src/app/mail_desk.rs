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
use std::time::{Duration, SystemTime};

use shakmaty::Color;
use tokio::sync::{broadcast, mpsc, watch};

use crate::app::desk_link::Notice;
use crate::chess::language::Language;
use crate::chess::vocabulary::fill;
use crate::control::hub::TableHandle;
use crate::correspondence::message::{self, Date, GameId, GameMessage, ParsedMessage, Verdict};
use crate::io::mail_out::{MailQueue, Outgoing};
use crate::io::maildir::{MailMessage, Maildir};
use crate::table::control::{Role, TableRequest};
use crate::table::event::{MailEvent, TableEvent};
use crate::table::state::DeskView;

/// How often the Maildir is read and the games looked at for replies.
pub const POLL: Duration = Duration::from_secs(1);
/// Messages read from the Maildir at one look.
const MESSAGES_PER_LOOK: usize = 32;

/// One correspondence table as the mail reaches it.
pub struct MailTable {
    pub handle: TableHandle,
    pub index: usize,
    pub game_id: GameId,
    pub opponent_email: String,
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
}

impl MailDesk {
    pub async fn run(mut self, mut shutdown: watch::Receiver<bool>) {
        if let Err(e) = std::fs::create_dir_all(&self.sent_dir) {
            tracing::error!(dir = %self.sent_dir.display(), error = %e, "the mail's marks cannot be kept");
        }
        let mut tick = tokio::time::interval(POLL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = shutdown.changed() => break,
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

    /// Queues the reply to the blind player's last move when it is not queued yet.
    fn reply_if_due(&mut self, i: usize) {
        let t = &self.tables[i];
        let view = Arc::clone(&t.view.borrow());
        let ply = view.game.ply_count();
        let Some(mover) = ply.checked_sub(1).and_then(|last| {
            view.game
                .position_before(last)
                .map(|p| shakmaty::Position::turn(&p))
        }) else {
            return;
        };
        let mark = self.sent_dir.join(t.handle.name.as_ref());
        if mover != view.peg_side || read_mark(&mark) >= ply {
            return;
        }
        let composed = compose_reply(t, &view);
        let (subject, body) = message::compose(&composed);
        let outgoing = Outgoing {
            to: t.opponent_email.clone(),
            subject,
            body,
            in_reply_to: self.last_received[i].clone(),
        };
        let key = format!("{}.{}.{ply}", t.handle.name, view.game.ply_count());
        match self.queue.enqueue_keyed(&outgoing, SystemTime::now(), &key) {
            Ok(message_id) => {
                if let Err(e) = write_mark(&mark, ply) {
                    tracing::error!(table = %t.handle.name, error = %e, "the reply's mark was not written; it may be queued again with the same Message-ID");
                }
                self.wake.send(()).ok();
                tracing::info!(table = %t.handle.name, ply, %message_id, "reply queued");
                publish(
                    &t.handle.events,
                    TableEvent::Mail(MailEvent::Queued {
                        ply,
                        message_id: message_id.to_string(),
                    }),
                );
                let text = fill(
                    t.lang
                        .vocabulary()
                        .event("desk_reply_queued")
                        .unwrap_or("{game}"),
                    &[("game", t.game_id.as_str())],
                );
                self.say(i, text);
            }
            Err(e) => {
                tracing::error!(table = %t.handle.name, error = %e, "the reply could not be queued; tried again at the next look");
            }
        }
    }

    /// Reads new messages and applies each to its game.
    async fn read_mail(&mut self) {
        let Some(mut maildir) = self.maildir.take() else {
            return;
        };
        let scanned = tokio::task::spawn_blocking(move || {
            let scan = maildir.scan(MESSAGES_PER_LOOK);
            (maildir, scan)
        })
        .await;
        let (maildir, scan) = match scanned {
            Ok(done) => done,
            Err(e) => {
                // The Maildir reader is lost with the task: the mail stops, loudly.
                tracing::error!(error = %e, "reading the Maildir failed; incoming mail stops");
                return;
            }
        };
        let root = maildir.root().display().to_string();
        let scan = match scan {
            Ok(scan) => scan,
            Err(e) => {
                tracing::warn!(maildir = %root, error = %e, "the Maildir could not be read; tried again");
                self.maildir = Some(maildir);
                return;
            }
        };
        for problem in &scan.problems {
            tracing::warn!(maildir = %root, "{problem}");
        }
        for m in scan.messages {
            self.handle_message(&m).await;
            if let Err(e) = maildir.mark_handled(&m.file) {
                tracing::error!(file = %m.file, error = %e, "a handled message could not be moved to cur/");
            }
        }
        self.maildir = Some(maildir);
    }

    async fn handle_message(&mut self, m: &MailMessage) {
        let parsed = match message::parse(&m.subject, &m.body) {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!(file = %m.file, subject = %m.subject, error = %e, "a message that is no game message; moved to cur/");
                return;
            }
        };
        let Some(i) = self.tables.iter().position(|t| t.game_id == parsed.game) else {
            tracing::warn!(file = %m.file, game = %parsed.game, "a message for a game no table plays; moved to cur/");
            return;
        };
        let view = Arc::clone(&self.tables[i].view.borrow());
        match message::check_against(&parsed.record, &view.game) {
            Verdict::NewMove { ply, .. } => self.apply(i, m, &parsed, ply, &view).await,
            Verdict::NothingNew { behind } => {
                tracing::info!(file = %m.file, game = %parsed.game, behind, "a message with no new move (a repeat); moved to cur/");
            }
            Verdict::Disagrees(d) => {
                // The record agrees up to a new move that is illegal or ambiguous: its sender
                // is charged the rules' days (BCA email rule 6).
                let played = view.game.ply_count();
                let new_move_bad = parsed.record.len() == played + 1
                    && matches!(
                        message::check_against(&parsed.record[..played], &view.game),
                        Verdict::NothingNew { behind: 0 }
                    );
                let key = if new_move_bad {
                    "desk_mail_illegal"
                } else {
                    "desk_mail_differs"
                };
                let short = differs_words(key, &d.first, self.tables[i].lang);
                self.refuse(i, &d.to_string(), &short);
                if new_move_bad && !view.game.is_over() && view.game.turn() != view.peg_side {
                    let t = &self.tables[i];
                    let reply = t
                        .handle
                        .ask(
                            Role::Arbiter,
                            Language::english(),
                            TableRequest::Penalty {
                                color: view.game.turn(),
                            },
                        )
                        .await;
                    tracing::info!(table = %t.handle.name, reply = %crate::control::wire::reply_line(&reply), "an illegal or ambiguous move by mail: the sender's penalty");
                }
            }
        }
    }

    async fn apply(
        &mut self,
        i: usize,
        m: &MailMessage,
        parsed: &ParsedMessage,
        ply: usize,
        view: &DeskView,
    ) {
        let t = &self.tables[i];
        // The new move is the next in the game: its mover is the side to move.
        let color = view.game.turn();
        if color == view.peg_side {
            self.refuse(
                i,
                &format!("the message sends a move for {color}, the blind player's own side"),
                "",
            );
            return;
        }
        let Some((number, _, text)) = parsed.newest_move() else {
            return;
        };
        let line = match color {
            Color::White => format!("{number}. {text}"),
            Color::Black => format!("{number}... {text}"),
        };
        let reply = t
            .handle
            .ask(
                Role::Player(color),
                Language::english(),
                TableRequest::Move { text: line },
            )
            .await;
        if let Err(refusal) = reply {
            // The refusal as the arbiter reads it in the event and the log: its code and why.
            let why = format!("{} {}", refusal.code.as_str(), refusal.message);
            self.refuse(i, &why, &why);
            return;
        }
        {
            let start = crate::chess::game::Game::from_position(
                view.game.start_position().clone(),
                view.game.castling_mode(),
            );
            let summary = message::summary_for_ear(parsed, &start, t.lang);
            tracing::info!(table = %t.handle.name, file = %m.file, ply = ply + 1, "the opponent's move by mail was played");
            publish(
                &t.handle.events,
                TableEvent::Mail(MailEvent::Received {
                    ply: ply + 1,
                    summary,
                }),
            );
            self.notices.try_send(Notice::MessageReceived(t.index)).ok();
            self.last_received[i] = m.message_id.clone();
            // The table has announced the move with the game's name and number; what the
            // message adds for the ear is the time he says he used.
            if let Some(used) = message::time_used_for_ear(parsed, t.lang) {
                self.say(i, used);
            }
        }
    }

    /// A message not applied: the log and the event quote `full`, the blind player hears
    /// `short`.
    fn refuse(&self, i: usize, full: &str, short: &str) {
        let t = &self.tables[i];
        tracing::warn!(table = %t.handle.name, "a message was not applied: {full}");
        publish(
            &t.handle.events,
            TableEvent::Mail(MailEvent::Refused {
                why: full.to_owned(),
            }),
        );
        let template = t
            .lang
            .vocabulary()
            .event("desk_mail_refused")
            .unwrap_or("{game}: {why}");
        let short = if short.is_empty() { full } else { short };
        self.say(
            i,
            fill(template, &[("game", t.game_id.as_str()), ("why", short)]),
        );
    }

    /// Words for the blind player, said by the desk on the table's voice.
    fn say(&self, i: usize, text: String) {
        let index = self.tables[i].index;
        if self.notices.try_send(Notice::Say(index, text)).is_err() {
            tracing::warn!(table = %self.tables[i].handle.name, "the desk is busy; a mail notice was not said");
        }
    }
}

/// The reply for the game as it stands: the whole record, the dates and the days.
fn compose_reply(t: &MailTable, view: &DeskView) -> GameMessage {
    let record = message::game_record(&view.game);
    let times = &view.move_times;
    let ply = times.len();
    let sent_ms = times.last().copied().unwrap_or(0);
    let received_ms = ply.checked_sub(2).and_then(|p| times.get(p)).copied();
    // The days as the game's rules charged them (`day_clock`).
    let (used, total) = view
        .last_charge
        .map_or((0, [0, 0]), |c| (c.used_days, c.total_days));
    GameMessage {
        game: t.game_id.clone(),
        white: t.white.clone(),
        black: t.black.clone(),
        record,
        received: received_ms.map(|ms| Date::from_unix_ms(ms as i64)),
        sent: Date::from_unix_ms(sent_ms as i64),
        used_days: used,
        total_days: total,
        text: None,
    }
}

fn publish(events: &broadcast::Sender<Arc<TableEvent>>, event: TableEvent) {
    events.send(Arc::new(event)).ok();
}

/// The last half-move whose reply is queued (0: none); the file holds one number, and no more
/// than a line of it is read.
fn read_mark(path: &Path) -> usize {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(64).read_to_string(&mut text))
        .ok()
        .and_then(|_| text.trim().parse().ok())
        .unwrap_or(0)
}

fn write_mark(path: &Path, ply: usize) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = path.with_extension("tmp");
    let mut f = std::fs::File::create(&tmp)?;
    writeln!(f, "{ply}")?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)?;
    if let Some(dir) = path.parent() {
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
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
    };
    tasks.spawn(desk.run(shutdown.clone()));
    Ok(())
}

/// "Zug sechzehn, Schwarz weicht von der Partie ab" (the template `key`) for the first
/// differing move (`16...`).
fn differs_words(key: &str, first: &str, lang: &Language) -> String {
    use crate::chess::phrases::{color_phrase, number_phrase};
    let v = lang.vocabulary();
    let color = if first.ends_with("...") {
        Color::Black
    } else {
        Color::White
    };
    let number: u32 = first.trim_end_matches('.').parse().unwrap_or(0);
    fill(
        v.event(key).unwrap_or("{number} {color}"),
        &[
            ("number", &number_phrase(number, v)),
            ("color", &color_phrase(color, v)),
        ],
    )
}
