//! Incoming correspondence mail from a Maildir (the folder a mail client, fetchmail or mbsync
//! fills): new messages read as RFC 5322 (mail-parser: headers, the text body with its
//! quoted-printable or base64 decoded), a handled one moved to `cur/` flagged seen, one that
//! cannot be read left where it is and reported once.
//!
//! The Maildir rules followed (Bernstein's maildir(5) and the Courier/Dovecot convention): a
//! delivery appears in `new/` complete (the deliverer writes it in `tmp/` and renames it);
//! a reader moves it to `cur/`, its name followed by `:2,` and its flags in ASCII order, `S`
//! for seen; names starting with a dot are not messages.

use std::collections::HashSet;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use mail_parser::MessageParser;

/// The largest message file read; a larger one stays in `new/` and is reported.
pub const MAX_MESSAGE_BYTES: u64 = 1024 * 1024;
/// The most problems remembered as reported (the names still in `new/` are kept).
const MAX_REPORTED: usize = 10_000;

/// One message read from `new/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailMessage {
    /// Its file name in `new/`, which [`Maildir::mark_handled`] takes.
    pub file: String,
    /// The sender's address (`bob@example.org`), without the display name.
    pub from: Option<String>,
    pub subject: String,
    /// The `Date:` header as Unix seconds.
    pub date_unix: Option<i64>,
    pub message_id: Option<String>,
    /// The first text part, decoded (an HTML-only message as its text).
    pub body: String,
    /// A delivery-status notification: what it says of the message that bounced.
    pub bounce: Option<crate::io::mail_bounce::Bounce>,
}

/// Why a file in `new/` was not read; it stays there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unreadable {
    #[error("{file}: {bytes} bytes, larger than the {MAX_MESSAGE_BYTES} read; left in new/")]
    TooLarge { file: String, bytes: u64 },
    #[error("{file}: not an RFC 5322 message; left in new/")]
    NotMail { file: String },
    #[error("{file}: no text body; left in new/")]
    NoText { file: String },
    #[error("{file}: {error}; left in new/")]
    Io { file: String, error: String },
}

impl Unreadable {
    fn file(&self) -> &str {
        match self {
            Unreadable::TooLarge { file, .. }
            | Unreadable::NotMail { file }
            | Unreadable::NoText { file }
            | Unreadable::Io { file, .. } => file,
        }
    }
}

/// What one look into `new/` found: messages to handle, and problems not reported before.
#[derive(Debug, Default)]
pub struct Scan {
    pub messages: Vec<MailMessage>,
    pub problems: Vec<Unreadable>,
}

/// A Maildir and the problems already reported.
#[derive(Debug)]
pub struct Maildir {
    root: PathBuf,
    reported: HashSet<String>,
}

impl Maildir {
    /// The Maildir at `root`; its `new/`, `cur/` and `tmp/` must exist (a mail client or
    /// fetchmail made them; a missing one is a wrong path, said at startup).
    pub fn open(root: &Path) -> io::Result<Maildir> {
        for sub in ["new", "cur", "tmp"] {
            let dir = root.join(sub);
            if !dir.is_dir() {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!(
                        "{} is not a Maildir: {} is missing",
                        root.display(),
                        dir.display()
                    ),
                ));
            }
        }
        Ok(Maildir {
            root: root.to_owned(),
            reported: HashSet::new(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Reads up to `max` messages from `new/`, oldest name first (names begin with the
    /// delivery time). A file that cannot be read is reported the first time only.
    pub fn scan(&mut self, max: usize) -> io::Result<Scan> {
        let mut names: Vec<String> = fs::read_dir(self.root.join("new"))?
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| !n.starts_with('.'))
            .collect();
        names.sort();
        let present: HashSet<&String> = names.iter().collect();
        self.reported.retain(|n| present.contains(n));
        let mut scan = Scan::default();
        for name in &names {
            if scan.messages.len() >= max {
                break;
            }
            if self.reported.contains(name) {
                continue;
            }
            match read_message(&self.root.join("new").join(name), name) {
                Ok(m) => scan.messages.push(m),
                Err(problem) => {
                    if self.reported.len() < MAX_REPORTED {
                        self.reported.insert(problem.file().to_owned());
                    }
                    scan.problems.push(problem);
                }
            }
        }
        Ok(scan)
    }

    /// Moves a handled message from `new/` to `cur/`, flagged seen (`:2,S`).
    pub fn mark_handled(&self, file: &str) -> io::Result<()> {
        if file.contains('/') || file.starts_with('.') || file.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{file:?} is not a message name"),
            ));
        }
        let stem = file.split_once(":2,").map_or(file, |(s, _)| s);
        let flags = file.split_once(":2,").map_or("", |(_, f)| f);
        let mut flags: Vec<char> = flags.chars().chain(['S']).collect();
        flags.sort_unstable();
        flags.dedup();
        let target = format!("{stem}:2,{}", flags.into_iter().collect::<String>());
        fs::rename(
            self.root.join("new").join(file),
            self.root.join("cur").join(target),
        )?;
        fs::File::open(self.root.join("cur"))?.sync_all()
    }
}

fn read_message(path: &Path, name: &str) -> Result<MailMessage, Unreadable> {
    let io_err = |e: io::Error| Unreadable::Io {
        file: name.to_owned(),
        error: e.to_string(),
    };
    let file = fs::File::open(path).map_err(io_err)?;
    let bytes = file.metadata().map_err(io_err)?.len();
    if bytes > MAX_MESSAGE_BYTES {
        return Err(Unreadable::TooLarge {
            file: name.to_owned(),
            bytes,
        });
    }
    let mut raw = Vec::with_capacity(bytes as usize);
    file.take(MAX_MESSAGE_BYTES + 1)
        .read_to_end(&mut raw)
        .map_err(io_err)?;
    if raw.len() as u64 > MAX_MESSAGE_BYTES {
        return Err(Unreadable::TooLarge {
            file: name.to_owned(),
            bytes: raw.len() as u64,
        });
    }
    parse_message(&raw, name)
}

/// Reads a message file's bytes (`name` only names it in the result and in errors); public so
/// that the fuzz target reads whole mail files without a Maildir on disk.
pub fn parse_message(raw: &[u8], name: &str) -> Result<MailMessage, Unreadable> {
    let not_mail = || Unreadable::NotMail {
        file: name.to_owned(),
    };
    let message = MessageParser::default().parse(raw).ok_or_else(not_mail)?;
    // A file of garbage parses as a body without headers: a message has at least a sender or
    // a subject.
    if message.from().is_none() && message.subject().is_none() {
        return Err(not_mail());
    }
    let body = message.body_text(0).ok_or_else(|| Unreadable::NoText {
        file: name.to_owned(),
    })?;
    Ok(MailMessage {
        file: name.to_owned(),
        from: message
            .from()
            .and_then(|a| a.first())
            .and_then(|a| a.address())
            .map(str::to_owned),
        subject: message.subject().unwrap_or_default().to_owned(),
        date_unix: message.date().map(|d| d.to_timestamp()),
        message_id: message.message_id().map(str::to_owned),
        body: body.into_owned(),
        bounce: crate::io::mail_bounce::read_bounce(&message, raw),
    })
}
