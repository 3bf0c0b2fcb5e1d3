//! Outgoing correspondence mail, exactly once across restarts: each message is put in a durable
//! queue (`<state_dir>/mail-queue/`, one RFC 5322 file written atomically with its Message-ID
//! and Date fixed at enqueue time), then sent by SMTP (lettre; STARTTLS or TLS off loopback,
//! plain only to a loopback address) or written to `<state_dir>/outbox/` when no server is
//! configured, and removed from the queue only once the server accepted it. A server that is
//! down is retried with backoff; a restart sends what is still queued. The one window left —
//! accepted, then a crash before the removal — resends the same bytes with the same Message-ID,
//! by which a receiving mail system or reader recognises the duplicate.

use std::fs;
use std::io::{self, Write};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, SystemTime};

use lettre::address::Envelope;
use lettre::message::header::ContentType;
use lettre::message::{Mailbox, Message};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{Address, SmtpTransport, Transport};

/// The most messages kept queued; enqueueing beyond it is refused (a server down for months).
pub const MAX_QUEUED: usize = 10_000;
/// The largest queued file read back.
const MAX_QUEUED_BYTES: u64 = 1024 * 1024;
/// Backoff between attempts while the server is down: from the first to the last, doubling.
pub const RETRY_FIRST: Duration = Duration::from_secs(2);
pub const RETRY_LAST: Duration = Duration::from_secs(300);
/// How long one SMTP conversation may take.
const SMTP_TIMEOUT: Duration = Duration::from_secs(60);

/// How the connection to the SMTP server is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Security {
    /// No TLS: allowed only to a loopback address (a local relay or a test server).
    Plain,
    /// Plain connection upgraded with STARTTLS, which is required (port 587).
    StartTls,
    /// TLS from the first byte (port 465).
    Tls,
}

impl Security {
    pub fn parse(text: &str) -> Option<Security> {
        match text {
            "plain" => Some(Security::Plain),
            "starttls" => Some(Security::StartTls),
            "tls" => Some(Security::Tls),
            _ => None,
        }
    }
}

/// The SMTP server, checked: plain only to a loopback address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmtpServer {
    pub host: String,
    pub port: u16,
    pub security: Security,
    /// User name and password (read from the environment variable the configuration names).
    pub credentials: Option<(String, String)>,
}

/// Why an SMTP server's address is refused; the address is the one given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SmtpAddressError {
    #[error("{0:?} is not HOST:PORT")]
    NotHostPort(String),
    #[error("{0:?}: the port is not a number from 1 to 65535")]
    Port(String),
    #[error("{0:?}: no host")]
    NoHost(String),
    #[error(
        "{0:?}: plain SMTP is allowed only to a loopback address; \
         use smtp_security = \"starttls\" or \"tls\""
    )]
    PlainNotLoopback(String),
}

impl SmtpServer {
    /// `host:port` with its security; `None` security means plain on loopback and STARTTLS
    /// elsewhere. Plain to any other address is refused: the moves and the password would
    /// cross the network readable.
    pub fn new(address: &str, security: Option<Security>) -> Result<SmtpServer, SmtpAddressError> {
        let (host, port) = address
            .rsplit_once(':')
            .ok_or_else(|| SmtpAddressError::NotHostPort(address.to_owned()))?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let port: u16 = port
            .parse()
            .ok()
            .filter(|p| *p != 0)
            .ok_or_else(|| SmtpAddressError::Port(address.to_owned()))?;
        if host.is_empty() {
            return Err(SmtpAddressError::NoHost(address.to_owned()));
        }
        let loopback =
            host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
        let security = security.unwrap_or(if loopback {
            Security::Plain
        } else {
            Security::StartTls
        });
        if security == Security::Plain && !loopback {
            return Err(SmtpAddressError::PlainNotLoopback(address.to_owned()));
        }
        Ok(SmtpServer {
            host: host.to_owned(),
            port,
            security,
            credentials: None,
        })
    }
}

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
fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), MailError> {
    let tmp = dir.join(format!(".{name}.tmp"));
    let mut file = fs::File::create(&tmp).map_err(io_err(&tmp))?;
    file.write_all(bytes).map_err(io_err(&tmp))?;
    file.sync_all().map_err(io_err(&tmp))?;
    let target = dir.join(name);
    fs::rename(&tmp, &target).map_err(io_err(&target))?;
    sync_dir(dir)
}

fn sync_dir(dir: &Path) -> Result<(), MailError> {
    fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_err(dir))
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
        if self.pending_names()?.iter().any(|n| n.ends_with(&suffix)) {
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
        if let Some(parent) = &m.in_reply_to {
            builder = builder
                .in_reply_to(parent.clone())
                .references(parent.clone());
        }
        let message = builder
            .body(m.body.clone())
            .map_err(|e| MailError::Build(e.to_string()))?;
        write_atomically(&self.dir, &format!("{id}.eml"), &message.formatted())?;
        Ok(message_id)
    }

    fn pending_names(&self) -> Result<Vec<String>, MailError> {
        let mut names: Vec<String> = fs::read_dir(&self.dir)
            .map_err(io_err(&self.dir))?
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.ends_with(".eml") && !n.starts_with('.'))
            .collect();
        names.sort();
        Ok(names)
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

    /// Sends every queued message in order; each is removed once delivered. Stops at the
    /// first failure (the server is down: the rest would fail too) and returns it with the
    /// number sent before.
    pub fn deliver(&self, to: &Destination) -> (usize, Option<MailError>) {
        let queued = match self.pending() {
            Ok(q) => q,
            Err(e) => return (0, Some(e)),
        };
        let mut sent = 0;
        for q in queued {
            if let Err(e) = deliver_one(&q, to) {
                return (sent, Some(e));
            }
            if let Err(e) = fs::remove_file(&q.path)
                .map_err(io_err(&q.path))
                .and_then(|()| sync_dir(&self.dir))
            {
                return (sent, Some(e));
            }
            sent += 1;
        }
        (sent, None)
    }
}

fn create_private_dir(dir: &Path) -> Result<(), MailError> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io_err(dir))
}

/// The envelope of queued bytes, from their own From and To headers.
fn envelope(q: &Queued) -> Result<Envelope, MailError> {
    let bad = || MailError::BadQueued(q.path.clone());
    let parsed = mail_parser::MessageParser::default()
        .parse(&q.bytes)
        .ok_or_else(bad)?;
    let addr = |a: Option<&mail_parser::Address>| -> Result<Vec<Address>, MailError> {
        a.map(|a| {
            a.iter()
                .filter_map(|a| a.address())
                .filter_map(|a| a.parse().ok())
                .collect()
        })
        .filter(|v: &Vec<Address>| !v.is_empty())
        .ok_or_else(bad)
    };
    let from = addr(parsed.from())?.into_iter().next();
    let to = addr(parsed.to())?;
    Envelope::new(from, to).map_err(|_| bad())
}

fn deliver_one(q: &Queued, to: &Destination) -> Result<(), MailError> {
    match to {
        Destination::Outbox(dir) => {
            create_private_dir(dir)?;
            // Named by the queue file: a second attempt after a crash overwrites, never doubles.
            let name = q
                .path
                .file_name()
                .and_then(|n| n.to_str())
                .ok_or_else(|| MailError::BadQueued(q.path.clone()))?;
            write_atomically(dir, name, &q.bytes)
        }
        Destination::Smtp(server) => {
            let envelope = envelope(q)?;
            transport(server)?
                .send_raw(&envelope, &q.bytes)
                .map(|_| ())
                .map_err(|e| MailError::Smtp(e.to_string()))
        }
    }
}

fn transport(server: &SmtpServer) -> Result<SmtpTransport, MailError> {
    let smtp = |e: lettre::transport::smtp::Error| MailError::Smtp(e.to_string());
    let tls = || TlsParameters::new(server.host.clone()).map_err(smtp);
    let builder = SmtpTransport::builder_dangerous(server.host.as_str())
        .port(server.port)
        .timeout(Some(SMTP_TIMEOUT));
    let builder = match server.security {
        Security::Plain => builder.tls(Tls::None),
        Security::StartTls => builder.tls(Tls::Required(tls()?)),
        Security::Tls => builder.tls(Tls::Wrapper(tls()?)),
    };
    let builder = match &server.credentials {
        Some((user, password)) => {
            builder.credentials(Credentials::new(user.clone(), password.clone()))
        }
        None => builder,
    };
    Ok(builder.build())
}

/// The sender's loop, for a thread of its own: delivers the queue at start (what a restart
/// left), whenever `wake` says something was enqueued, and after a failure again and again
/// with backoff from [`RETRY_FIRST`] to [`RETRY_LAST`]. Ends when `wake`'s sender is dropped.
/// `report` hears each failure and each delivery count.
pub fn run_sender(
    queue: &MailQueue,
    to: &Destination,
    wake: &Receiver<()>,
    first_retry: Duration,
    mut report: impl FnMut(usize, Option<&MailError>),
) {
    let mut retry = None::<Duration>;
    loop {
        let (sent, failure) = queue.deliver(to);
        if sent > 0 || failure.is_some() {
            report(sent, failure.as_ref());
        }
        retry = failure.map(|_| retry.map_or(first_retry, |r| (r * 2).min(RETRY_LAST)));
        let waited = match retry {
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
