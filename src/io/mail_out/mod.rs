//! Outgoing correspondence mail, exactly once across restarts: each message is put in a durable
//! queue (`<state_dir>/mail-queue/`, one RFC 5322 file written atomically with its Message-ID
//! and Date fixed at enqueue time), then sent by SMTP (lettre; STARTTLS or TLS off loopback,
//! plain only to a loopback address) or written to `<state_dir>/outbox/` when no server is
//! configured, and removed from the queue only once the server accepted it. A server that is
//! down is retried with backoff; a restart sends what is still queued. The one window left —
//! accepted, then a crash before the removal — resends the same bytes with the same Message-ID,
//! by which a receiving mail system or reader recognises the duplicate.

use crate::io::private_file::{self, Access};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use lettre::message::header::ContentType;
use lettre::message::{Mailbox, Message};

mod mark;
mod sender;
mod smtp;

pub use mark::{ReplyMark, SentReply};
pub use sender::{RETRY_FIRST, RETRY_LAST, SendReport, run_sender};
pub use smtp::{Security, SmtpAddressError, SmtpServer};

/// The most messages kept queued; enqueueing beyond it is refused (a server down for months).
pub const MAX_QUEUED: usize = 10_000;
/// The largest queued file read back.
const MAX_QUEUED_BYTES: u64 = 1024 * 1024;
/// How long one SMTP conversation may take.
const SMTP_TIMEOUT: Duration = Duration::from_secs(60);

/// Where queued mail goes.
#[derive(Debug, Clone)]
pub enum Destination {
    Smtp(SmtpServer),
    /// A folder the player's own mail client sends from (`<state_dir>/outbox/`).
    Outbox(PathBuf),
}

/// A message to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    pub to: String,
    pub subject: String,
    pub body: String,
    /// The Message-ID of the message answered, so mail clients thread the game.
    pub in_reply_to: Option<String>,
    /// The thread's earlier Message-IDs, oldest first (`References`); `in_reply_to` is added
    /// last when it is not among them.
    pub references: Vec<String>,
}

/// A Message-ID as the headers write it: in angle brackets (`<id@host>`), whether or not it
/// came with them; `None` for one that is empty or holds brackets, spaces or line breaks
/// inside (it would break the header).
pub fn bracketed(id: &str) -> Option<String> {
    let bare = id.trim().trim_start_matches('<').trim_end_matches('>');
    let ok = !bare.is_empty()
        && bare.len() <= 250
        && !bare
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "<>".contains(c));
    ok.then(|| format!("<{bare}>"))
}

/// Why mail could not be queued or sent.
#[derive(Debug, thiserror::Error)]
pub enum MailError {
    #[error("{0:?} is not an email address")]
    Address(String),
    #[error("the message could not be built: {0}")]
    Build(String),
    #[error("the mail queue is full ({MAX_QUEUED} messages)")]
    QueueFull,
    #[error("{path}: {error}")]
    Io { path: PathBuf, error: io::Error },
    #[error("SMTP: {0}")]
    Smtp(String),
    /// The server refused the message for good (a 5xx reply, e.g. 550 for its recipient):
    /// trying again as it is cannot help.
    #[error("SMTP refused it: {0}")]
    Refused(String),
    #[error("{0}: a queued file that is not a message to send")]
    BadQueued(PathBuf),
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> MailError + '_ {
    move |error| MailError::Io {
        path: path.to_owned(),
        error,
    }
}

/// Writes `bytes` to `dir/name` atomically: a temporary file, fsync, rename, fsync of the
/// folder; a crash leaves the old state or the new, never half a file under the name.
pub(crate) fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), MailError> {
    let target = dir.join(name);
    private_file::replace(&target, bytes, Access::Private).map_err(io_err(&target))
}

fn sync_dir(dir: &Path) -> Result<(), MailError> {
    private_file::sync_dir(dir).map_err(io_err(dir))
}

/// A queued message: its file and its bytes.
#[derive(Debug, Clone)]
pub struct Queued {
    pub path: PathBuf,
    pub message_id: String,
    pub bytes: Vec<u8>,
}

/// The durable queue in `<state_dir>/mail-queue/`.
#[derive(Debug, Clone)]
pub struct MailQueue {
    dir: PathBuf,
    from: Mailbox,
}

impl MailQueue {
    /// The queue of `state_dir`, created if missing (mode 0700: it holds private mail).
    pub fn open(state_dir: &Path, from: &str) -> Result<MailQueue, MailError> {
        let from: Mailbox = from
            .parse()
            .map_err(|_| MailError::Address(from.to_owned()))?;
        let dir = state_dir.join("mail-queue");
        create_private_dir(&dir)?;
        // A temporary file is what a crash left of an enqueue that never returned: not queued.
        for entry in fs::read_dir(&dir).map_err(io_err(&dir))?.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') && name.ends_with(".tmp") {
                fs::remove_file(entry.path()).map_err(io_err(&entry.path()))?;
            }
        }
        Ok(MailQueue { dir, from })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Puts a message in the queue, durable when this returns; its Message-ID (returned) and
    /// Date are fixed now, so every later attempt sends the same bytes. `now` is the wall
    /// clock (a parameter, so tests can fix it); `nonce` makes the name unique (random bytes
    /// from the caller).
    pub fn enqueue(&self, m: &Outgoing, now: SystemTime, nonce: u64) -> Result<String, MailError> {
        let millis = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        self.enqueue_named(m, now, &format!("{millis}.{nonce:016x}"), None)
    }

    /// Puts a message in the queue under a stable `key` (letters, digits, `.`, `-`, `_`): its
    /// Message-ID is made of the key alone, and while a message with this key is queued, the
    /// same key enqueues nothing more and returns the queued one's Message-ID. So a caller
    /// that enqueues again after a crash (it could not know whether the first call returned)
    /// queues one message; one already sent is sent again with the same Message-ID, by which
    /// the receiver recognises the duplicate.
    pub fn enqueue_keyed(
        &self,
        m: &Outgoing,
        now: SystemTime,
        key: &str,
    ) -> Result<String, MailError> {
        let key: String = key
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "._-".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .take(120)
            .collect();
        let domain = self.from.email.domain().to_owned();
        let message_id = format!("<annabella.{key}@{domain}>");
        let suffix = format!(".{key}.eml");
        // Queued, parked or already sent: this key's message exists.
        let exists = [&self.dir, &self.dir.join(PARKED), &self.dir.join(SENT)]
            .iter()
            .any(|dir| {
                names_in(dir)
                    .unwrap_or_default()
                    .iter()
                    .any(|n| n.ends_with(&suffix))
            });
        if exists {
            return Ok(message_id);
        }
        let millis = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        self.enqueue_named(m, now, &format!("{millis}.{key}"), Some(message_id))
    }

    /// Writes the message as `<name>.eml`, with `message_id` or one made from the name.
    fn enqueue_named(
        &self,
        m: &Outgoing,
        now: SystemTime,
        id: &str,
        message_id: Option<String>,
    ) -> Result<String, MailError> {
        if self.pending_names()?.len() >= MAX_QUEUED {
            return Err(MailError::QueueFull);
        }
        let to: Mailbox = m.to.parse().map_err(|_| MailError::Address(m.to.clone()))?;
        let domain = self.from.email.domain().to_owned();
        let message_id = message_id.unwrap_or_else(|| format!("<annabella.{id}@{domain}>"));
        let mut builder = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(m.subject.clone())
            .date(now)
            .message_id(Some(message_id.clone()))
            .header(ContentType::TEXT_PLAIN);
        let parent = m.in_reply_to.as_deref().and_then(bracketed);
        let mut thread: Vec<String> = m.references.iter().filter_map(|r| bracketed(r)).collect();
        if let Some(parent) = &parent {
            if !thread.contains(parent) {
                thread.push(parent.clone());
            }
            builder = builder.in_reply_to(parent.clone());
        }
        // The newest few: a long game's thread would make the header endless.
        let from = thread.len().saturating_sub(MAX_REFERENCES);
        if !thread.is_empty() {
            builder = builder.references(thread[from..].join(" "));
        }
        let message = builder
            .body(m.body.clone())
            .map_err(|e| MailError::Build(e.to_string()))?;
        write_atomically(&self.dir, &format!("{id}.eml"), &message.formatted())?;
        Ok(message_id)
    }

    fn pending_names(&self) -> Result<Vec<String>, MailError> {
        names_in(&self.dir)
    }

    /// Every queued message, oldest first. A file that is not a message to send (edited by
    /// hand, or too large) would block the queue for ever: it is renamed `NAME.bad`, kept for
    /// a look, and reported in the log.
    pub fn pending(&self) -> Result<Vec<Queued>, MailError> {
        let mut out = Vec::new();
        for name in self.pending_names()? {
            let path = self.dir.join(&name);
            let len = fs::metadata(&path).map_err(io_err(&path))?.len();
            let read = if len > MAX_QUEUED_BYTES {
                None
            } else {
                let bytes = fs::read(&path).map_err(io_err(&path))?;
                mail_parser::MessageParser::default()
                    .parse(&bytes)
                    .and_then(|m| m.message_id().map(|id| format!("<{id}>")))
                    .map(|message_id| (message_id, bytes))
            };
            match read {
                Some((message_id, bytes)) => out.push(Queued {
                    path,
                    message_id,
                    bytes,
                }),
                None => {
                    let aside = self.dir.join(format!("{name}.bad"));
                    fs::rename(&path, &aside).map_err(io_err(&path))?;
                    tracing::warn!(
                        file = %aside.display(),
                        "a queued mail that is not a message to send was set aside"
                    );
                }
            }
        }
        Ok(out)
    }

    /// Sends every queued message once, in order; each is moved to `sent/` once delivered.
    /// A permanent refusal parks its message (`parked/`) and goes on with the others; returns
    /// the number sent and the first failure.
    pub fn deliver(&self, to: &Destination) -> (usize, Option<MailError>) {
        let mut sent = 0;
        let mut first = None;
        let result = self.deliver_due(
            to,
            |_| true,
            |report| match report {
                SendReport::Sent { .. } => sent += 1,
                SendReport::Deferred { error, .. } | SendReport::Parked { error, .. } => {
                    first.get_or_insert(error);
                }
            },
        );
        if let Err(e) = result {
            first.get_or_insert(e);
        }
        (sent, first)
    }

    /// Sends each queued message `due` says may go now, and reports each outcome: sent (the
    /// file moved to `sent/`), deferred (a temporary failure: kept), parked (a permanent one:
    /// moved to `parked/` with the reason beside it, so it never blocks the others).
    pub fn deliver_due(
        &self,
        to: &Destination,
        mut due: impl FnMut(&Queued) -> bool,
        mut report: impl FnMut(SendReport),
    ) -> Result<(), MailError> {
        for q in self.pending()? {
            if !due(&q) {
                continue;
            }
            match smtp::deliver_one(&q, to) {
                Ok(()) => {
                    self.file_away(&q, SENT)?;
                    self.prune_sent()?;
                    report(SendReport::Sent {
                        message_id: q.message_id.clone(),
                        outbox: matches!(to, Destination::Outbox(_)),
                    });
                }
                Err(MailError::Refused(why)) => {
                    self.file_away(&q, PARKED)?;
                    let reason = q.path.file_name().map(|n| {
                        self.dir
                            .join(PARKED)
                            .join(format!("{}.why", n.to_string_lossy()))
                    });
                    if let Some(reason) = reason {
                        // The reason is for a look by hand; the parked message is what counts.
                        private_file::replace(
                            &reason,
                            format!("{why}\n").as_bytes(),
                            Access::Private,
                        )
                        .ok();
                    }
                    report(SendReport::Parked {
                        message_id: q.message_id.clone(),
                        file: q.path.clone(),
                        error: MailError::Refused(why),
                    });
                }
                Err(error) => report(SendReport::Deferred {
                    message_id: q.message_id.clone(),
                    file: q.path.clone(),
                    error,
                }),
            }
        }
        Ok(())
    }

    /// Moves a queued message into the sub-folder `sub` (`sent/`, `parked/`).
    fn file_away(&self, q: &Queued, sub: &str) -> Result<(), MailError> {
        let dir = self.dir.join(sub);
        create_private_dir(&dir)?;
        let name = q
            .path
            .file_name()
            .ok_or_else(|| MailError::BadQueued(q.path.clone()))?;
        let target = dir.join(name);
        fs::rename(&q.path, &target).map_err(io_err(&target))?;
        sync_dir(&dir)?;
        sync_dir(&self.dir)
    }

    /// Keeps the newest [`MAX_SENT_KEPT`] sent messages (for a bounce's second try).
    fn prune_sent(&self) -> Result<(), MailError> {
        let dir = self.dir.join(SENT);
        let names = names_in(&dir)?;
        let extra = names.len().saturating_sub(MAX_SENT_KEPT);
        for name in &names[..extra] {
            let path = dir.join(name);
            fs::remove_file(&path).map_err(io_err(&path))?;
        }
        Ok(())
    }

    /// The parked messages (refused for good), oldest first, with the refusal.
    pub fn parked(&self) -> Result<Vec<(String, String)>, MailError> {
        let dir = self.dir.join(PARKED);
        let mut out = Vec::new();
        for name in names_in(&dir)? {
            let why = read_bounded(&dir.join(format!("{name}.why")), 1024).unwrap_or_default();
            out.push((name, why.trim().to_owned()));
        }
        Ok(out)
    }

    /// The Message-IDs of the parked messages.
    pub fn parked_ids(&self) -> Result<Vec<String>, MailError> {
        let dir = self.dir.join(PARKED);
        let mut ids = Vec::new();
        for name in names_in(&dir)? {
            let bytes = read_bounded(&dir.join(&name), MAX_QUEUED_BYTES).unwrap_or_default();
            if let Some(id) = mail_parser::MessageParser::default()
                .parse(bytes.as_bytes())
                .and_then(|m| m.message_id().and_then(bracketed))
            {
                ids.push(id);
            }
        }
        Ok(ids)
    }

    /// Puts every parked message back in the queue (`mail retry`, once the address or the
    /// server is fixed); returns how many.
    pub fn requeue_parked(&self) -> Result<usize, MailError> {
        let dir = self.dir.join(PARKED);
        let names = names_in(&dir)?;
        for name in &names {
            let from = dir.join(name);
            fs::rename(&from, self.dir.join(name)).map_err(io_err(&from))?;
            fs::remove_file(dir.join(format!("{name}.why"))).ok();
        }
        sync_dir(&self.dir)?;
        Ok(names.len())
    }

    /// Puts the sent message with this Message-ID back in the queue (its delivery bounced);
    /// `false` when no sent copy has it any more.
    pub fn requeue_sent(&self, message_id: &str) -> Result<bool, MailError> {
        let Some(id) = bracketed(message_id) else {
            return Ok(false);
        };
        let dir = self.dir.join(SENT);
        for name in names_in(&dir)?.iter().rev() {
            let path = dir.join(name);
            let bytes = read_bounded(&path, MAX_QUEUED_BYTES).unwrap_or_default();
            let found = mail_parser::MessageParser::default()
                .parse(bytes.as_bytes())
                .and_then(|m| m.message_id().and_then(bracketed))
                .is_some_and(|m| m == id);
            if found {
                fs::rename(&path, self.dir.join(name)).map_err(io_err(&path))?;
                sync_dir(&self.dir)?;
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// Sub-folders of the queue: delivered messages kept for a bounce, messages refused for good.
const SENT: &str = "sent";
const PARKED: &str = "parked";
/// Sent messages kept for a second try after a bounce.
const MAX_SENT_KEPT: usize = 500;
/// Message-IDs in one `References` header.
const MAX_REFERENCES: usize = 20;

/// The `.eml` names in `dir` (none when it does not exist), sorted: oldest first.
fn names_in(dir: &Path) -> Result<Vec<String>, MailError> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(dir)(e)),
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".eml") && !n.starts_with('.'))
        .collect();
    names.sort();
    Ok(names)
}

/// A small text file, at most `max` bytes of it.
fn read_bounded(path: &Path, max: u64) -> io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    fs::File::open(path)?.take(max).read_to_string(&mut text)?;
    Ok(text)
}

pub(crate) fn create_private_dir(dir: &Path) -> Result<(), MailError> {
    private_file::create_dir(dir, Access::Private).map_err(io_err(dir))
}
