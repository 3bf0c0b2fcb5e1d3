//! Incoming correspondence mail from a Maildir (the folder a mail client, fetchmail or mbsync
//! fills): each look lists `new/`, reads the headers of the files it has not seen (sender,
//! subject, arrival) so the caller can put the opponents' messages first, then reads whole
//! messages as RFC 5322 (mail-parser: the text body with its quoted-printable or base64
//! decoded; attachments ignored). A handled message moves to `cur/` (flagged seen when it was a
//! game's, left unread otherwise); a message from an unknown sender is held in a folder of its
//! own (`.Held`, a Maildir++ subfolder the mail client shows as "Held"), never deleted, until it
//! is accepted; a file that cannot be read stays where it is and is reported once.
//!
//! The Maildir rules followed (Bernstein's maildir(5) and the Courier/Dovecot convention): a
//! delivery appears in `new/` complete (the deliverer writes it in `tmp/` and renames it);
//! a reader moves it to `cur/`, its name followed by `:2,` and its flags in ASCII order, `S`
//! for seen; names starting with a dot are not messages. What is not a regular file (a FIFO, a
//! symlink, a device) is never opened for reading: it could block the reader or lead elsewhere.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use mail_parser::{Message, MessageParser};

/// The largest message file read (a reply with a photo attached is a few MiB; the bound keeps
/// one look's memory finite). A larger one stays in `new/` and is reported.
pub const MAX_MESSAGE_BYTES: u64 = 50 * 1024 * 1024;
/// The most bytes of message files read in one look (at least one message is read whatever
/// its size): the look's memory stays bounded however many large messages wait.
const MAX_LOOK_BYTES: u64 = 64 * 1024 * 1024;
/// The most bytes of a file read for its header.
const MAX_HEADER_BYTES: u64 = 64 * 1024;
/// The most names in `new/` looked at in one look (the oldest first).
const MAX_NAMES: usize = 100_000;
/// The most problems remembered as reported (the names still in `new/` are kept).
const MAX_REPORTED: usize = 10_000;
/// A file younger than this may still be being written by a deliverer that writes straight
/// into `new/` (against the rules): it is read at a later look.
const SETTLE: Duration = Duration::from_millis(1000);
/// The held messages' folder (Maildir++: a dot, the folder's name).
pub const HELD_FOLDER: &str = ".Held";

/// What the header of a message in `new/` says, read before the whole message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope {
    /// Its file name in `new/`.
    pub file: String,
    /// The sender's address (the addr-spec, lower case) when the `From` field names exactly
    /// one; `None` for none or several.
    pub from: Option<String>,
    pub subject: String,
    /// When it arrived (Unix ms): the date of the topmost `Received` field (the receiving
    /// server's), else the file's time in `new/`.
    pub arrived_unix_ms: u64,
    /// The file's size.
    pub bytes: u64,
}

/// One message read from `new/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailMessage {
    /// Its file name in `new/`, which [`Maildir::mark_handled`] takes.
    pub file: String,
    /// The sender's address (the addr-spec, lower case) when `From` names exactly one.
    pub from: Option<String>,
    /// `From` as written, display name and all, bounded: for the log and the ear.
    pub from_text: String,
    pub subject: String,
    /// The `Date:` header as Unix seconds.
    pub date_unix: Option<i64>,
    pub message_id: Option<String>,
    /// When it arrived (Unix ms), as in [`Envelope::arrived_unix_ms`]; `None` when read
    /// without its file (the fuzz target) and no `Received` field gives it.
    pub arrived_unix_ms: Option<u64>,
    /// Why the receiving server doubts the sender (its topmost `Authentication-Results` field
    /// says DMARC failed, or SPF failed with no DKIM signature passing): such a message is not
    /// the opponent's whatever its `From` says.
    pub forged: Option<&'static str>,
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
    #[error("{file}: {what}, not a regular file; left in new/ and never opened")]
    NotAFile { file: String, what: &'static str },
    #[error("{file}: {error}; left in new/")]
    Io { file: String, error: String },
}

impl Unreadable {
    pub fn file(&self) -> &str {
        match self {
            Unreadable::TooLarge { file, .. }
            | Unreadable::NotMail { file }
            | Unreadable::NoText { file }
            | Unreadable::NotAFile { file, .. }
            | Unreadable::Io { file, .. } => file,
        }
    }
}

/// What one look into `new/` found.
#[derive(Debug, Default)]
pub struct Scan {
    /// The messages to handle now, in the caller's order.
    pub messages: Vec<MailMessage>,
    /// Problems not reported before.
    pub problems: Vec<Unreadable>,
    /// Messages left for a later look (beyond this look's number, or not wanted now).
    pub left: usize,
}

/// A message held for its sender: its number (what `mail accept` takes) and its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held {
    pub id: u32,
    pub file: String,
}

/// A Maildir, the headers already read and the problems already reported.
#[derive(Debug)]
pub struct Maildir {
    root: PathBuf,
    reported: HashSet<String>,
    envelopes: HashMap<String, Envelope>,
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
            envelopes: HashMap::new(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Reads up to `max` messages from `new/`. `order` ranks each message by its header: a
    /// lower rank is read first (ties oldest first), `None` leaves it for a later look. A file
    /// that cannot be read is reported the first time only. `now` is the wall clock.
    pub fn scan(
        &mut self,
        max: usize,
        now: SystemTime,
        order: impl Fn(&Envelope) -> Option<u8>,
    ) -> io::Result<Scan> {
        let mut names: Vec<String> = fs::read_dir(self.root.join("new"))?
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| !n.starts_with('.'))
            .collect();
        names.sort();
        names.truncate(MAX_NAMES);
        let present: HashSet<&String> = names.iter().collect();
        self.reported.retain(|n| present.contains(n));
        self.envelopes.retain(|n, _| present.contains(n));
        let mut scan = Scan::default();
        let mut ranked = Vec::new();
        for name in &names {
            if self.reported.contains(name) {
                continue;
            }
            let envelope = match self.envelopes.get(name) {
                Some(e) => e.clone(),
                None => match read_envelope(&self.root.join("new").join(name), name, now) {
                    Ok(Some(e)) => {
                        self.envelopes.insert(name.clone(), e.clone());
                        e
                    }
                    // Still being written: looked at again next time.
                    Ok(None) => {
                        scan.left += 1;
                        continue;
                    }
                    Err(problem) => {
                        self.report(problem, &mut scan);
                        continue;
                    }
                },
            };
            match order(&envelope) {
                Some(rank) => ranked.push((rank, envelope.arrived_unix_ms, name)),
                None => scan.left += 1,
            }
        }
        ranked.sort();
        let mut bytes = 0;
        for (_, _, name) in ranked {
            let envelope = &self.envelopes[name];
            let full = scan.messages.len() >= max
                || (!scan.messages.is_empty() && bytes + envelope.bytes > MAX_LOOK_BYTES);
            if full {
                scan.left += 1;
                continue;
            }
            bytes += envelope.bytes;
            match read_message(&self.root.join("new").join(name), envelope) {
                Ok(m) => scan.messages.push(m),
                Err(problem) => self.report(problem, &mut scan),
            }
        }
        Ok(scan)
    }

    fn report(&mut self, problem: Unreadable, scan: &mut Scan) {
        if self.reported.len() < MAX_REPORTED {
            self.reported.insert(problem.file().to_owned());
        }
        scan.problems.push(problem);
    }

    /// Moves a handled message from `new/` to `cur/`: flagged seen (`:2,S`) when it was a
    /// game's, left unread for the mail client when it was not.
    pub fn mark_handled(&mut self, file: &str, seen: bool) -> io::Result<()> {
        check_name(file)?;
        let (stem, flags) = split_flags(file);
        let target = format!("{stem}:2,{}", with_flag(flags, seen.then_some('S')));
        fs::rename(
            self.root.join("new").join(file),
            self.root.join("cur").join(target),
        )?;
        self.envelopes.remove(file);
        sync_dir(&self.root.join("cur"))
    }

    fn held_dir(&self) -> PathBuf {
        self.root.join(HELD_FOLDER)
    }

    /// Holds a message from `new/` in the held folder, unread, under a number not used there
    /// before (returned): it is kept until accepted, never deleted.
    pub fn hold(&mut self, file: &str) -> io::Result<u32> {
        check_name(file)?;
        let held = self.held_dir();
        for sub in ["new", "cur", "tmp"] {
            fs::create_dir_all(held.join(sub))?;
        }
        let id = self.held()?.iter().map(|h| h.id).max().unwrap_or(0) + 1;
        let (stem, flags) = split_flags(file);
        let target = format!("{id}_{stem}:2,{}", with_flag(flags, None));
        fs::rename(
            self.root.join("new").join(file),
            held.join("cur").join(target),
        )?;
        self.envelopes.remove(file);
        sync_dir(&held.join("cur"))?;
        Ok(id)
    }

    /// The messages held, by number.
    pub fn held(&self) -> io::Result<Vec<Held>> {
        let dir = self.held_dir().join("cur");
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut held: Vec<Held> = entries
            .filter_map(Result::ok)
            .take(MAX_NAMES)
            .filter_map(|e| e.file_name().into_string().ok())
            .filter_map(|file| {
                let (id, _) = file.split_once('_')?;
                Some(Held {
                    id: id.parse().ok()?,
                    file,
                })
            })
            .collect();
        held.sort_by_key(|h| h.id);
        Ok(held)
    }

    /// Puts held message `id` back into `new/` (its original name, returned) to be read again.
    pub fn release(&mut self, id: u32) -> io::Result<Option<String>> {
        let Some(held) = self.held()?.into_iter().find(|h| h.id == id) else {
            return Ok(None);
        };
        let (_, rest) = held.file.split_once('_').unwrap_or(("", &held.file));
        let (stem, _) = split_flags(rest);
        let back = stem.to_owned();
        fs::rename(
            self.held_dir().join("cur").join(&held.file),
            self.root.join("new").join(&back),
        )?;
        sync_dir(&self.root.join("new"))?;
        Ok(Some(back))
    }
}

fn check_name(file: &str) -> io::Result<()> {
    if file.contains('/') || file.starts_with('.') || file.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{file:?} is not a message name"),
        ));
    }
    Ok(())
}

/// A name's stem and its flags after `:2,`.
fn split_flags(file: &str) -> (&str, &str) {
    file.split_once(":2,").unwrap_or((file, ""))
}

/// The flags with `extra` added, in ASCII order, each once.
fn with_flag(flags: &str, extra: Option<char>) -> String {
    let mut flags: Vec<char> = flags
        .chars()
        .filter(char::is_ascii_alphabetic)
        .chain(extra)
        .collect();
    flags.sort_unstable();
    flags.dedup();
    flags.into_iter().collect()
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    crate::io::private_file::sync_dir(dir)
}

/// Opens a message file for reading only if it is a regular file: never through a symlink,
/// never blocking on a FIFO (opened non-blocking, then checked).
fn open_regular(path: &Path, name: &str) -> Result<(fs::File, fs::Metadata), Unreadable> {
    let io_err = |e: io::Error| Unreadable::Io {
        file: name.to_owned(),
        error: e.to_string(),
    };
    let not_a_file = |what| Unreadable::NotAFile {
        file: name.to_owned(),
        what,
    };
    let link = fs::symlink_metadata(path).map_err(io_err)?;
    if link.file_type().is_symlink() {
        return Err(not_a_file("a symbolic link"));
    }
    if !link.is_file() {
        return Err(not_a_file(crate::io::regular_file::kind_of(&link)));
    }
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Swapped for a link or a FIFO between the look and the open: refused, not followed.
        options.custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(io_err)?;
    let meta = file.metadata().map_err(io_err)?;
    if !meta.is_file() {
        return Err(not_a_file(crate::io::regular_file::kind_of(&meta)));
    }
    Ok((file, meta))
}

/// The header of a file in `new/`; `Ok(None)` while it may still be being written.
fn read_envelope(path: &Path, name: &str, now: SystemTime) -> Result<Option<Envelope>, Unreadable> {
    let (file, meta) = open_regular(path, name)?;
    let modified = meta.modified().unwrap_or(now);
    if now.duration_since(modified).is_ok_and(|age| age < SETTLE) {
        return Ok(None);
    }
    let mut head = Vec::new();
    file.take(MAX_HEADER_BYTES)
        .read_to_end(&mut head)
        .map_err(|e| Unreadable::Io {
            file: name.to_owned(),
            error: e.to_string(),
        })?;
    let message = MessageParser::default()
        .parse_headers(&head)
        .ok_or_else(|| Unreadable::NotMail {
            file: name.to_owned(),
        })?;
    let file_ms = unix_ms(modified);
    Ok(Some(Envelope {
        file: name.to_owned(),
        from: sender(&message),
        subject: bounded(message.subject().unwrap_or_default(), 1000),
        arrived_unix_ms: arrival(&message, Some(file_ms)).unwrap_or(file_ms),
        bytes: meta.len(),
    }))
}

fn unix_ms(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// When the message arrived: the topmost `Received` field's date (the last server's, the one
/// that made it available to him), unless it lies more than ten minutes after the file's own
/// time (a wrong clock); else the file's time.
fn arrival(message: &Message<'_>, file_ms: Option<u64>) -> Option<u64> {
    let received = message
        .received_all()
        .next()
        .and_then(|r| r.date())
        .and_then(|d| u64::try_from(d.to_timestamp()).ok())
        .map(|s| s.saturating_mul(1000));
    match (received, file_ms) {
        (Some(r), Some(f)) if r > f.saturating_add(600_000) => Some(f),
        (Some(r), _) => Some(r),
        (None, f) => f,
    }
}

/// The one sender's addr-spec, lower case; `None` for none or several.
fn sender(message: &Message<'_>) -> Option<String> {
    let from = message.from()?;
    let mut all = from.iter();
    let first = all.next()?;
    if all.next().is_some() {
        return None;
    }
    let address = first.address()?.trim();
    (!address.is_empty() && address.len() <= 320).then(|| address.to_lowercase())
}

fn bounded(text: &str, chars: usize) -> String {
    text.chars().take(chars).collect()
}

fn read_message(path: &Path, envelope: &Envelope) -> Result<MailMessage, Unreadable> {
    let name = envelope.file.as_str();
    let io_err = |e: io::Error| Unreadable::Io {
        file: name.to_owned(),
        error: e.to_string(),
    };
    let (file, meta) = open_regular(path, name)?;
    if meta.len() > MAX_MESSAGE_BYTES {
        return Err(Unreadable::TooLarge {
            file: name.to_owned(),
            bytes: meta.len(),
        });
    }
    let mut raw = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_MESSAGE_BYTES + 1)
        .read_to_end(&mut raw)
        .map_err(io_err)?;
    if raw.len() as u64 > MAX_MESSAGE_BYTES {
        return Err(Unreadable::TooLarge {
            file: name.to_owned(),
            bytes: raw.len() as u64,
        });
    }
    let mut m = parse_message(&raw, name)?;
    m.arrived_unix_ms = Some(envelope.arrived_unix_ms);
    Ok(m)
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
    let from_text = message
        .from()
        .and_then(|a| a.first())
        .map(|a| match (a.name(), a.address()) {
            (Some(n), Some(addr)) => format!("{n} <{addr}>"),
            (None, Some(addr)) => addr.to_owned(),
            (Some(n), None) => n.to_owned(),
            (None, None) => String::new(),
        })
        .unwrap_or_default();
    Ok(MailMessage {
        file: name.to_owned(),
        from: sender(&message),
        from_text: bounded(&from_text, 200),
        subject: bounded(message.subject().unwrap_or_default(), 1000),
        date_unix: message.date().map(|d| d.to_timestamp()),
        message_id: message.message_id().map(|id| bounded(id, 250)),
        arrived_unix_ms: arrival(&message, None),
        forged: authentication_failure(&message),
        body: body.into_owned(),
        bounce: crate::io::mail_bounce::read_bounce(&message, raw),
    })
}

/// What the receiving server's verdict on the sender says against him. Only the topmost
/// `Authentication-Results` field is read: it is the receiving server's own (RFC 8601); a
/// sender can add such fields only below it, and one he adds can only get his message held,
/// never trusted.
fn authentication_failure(message: &Message<'_>) -> Option<&'static str> {
    let (_, value) = message
        .headers_raw()
        .find(|(name, _)| name.eq_ignore_ascii_case("Authentication-Results"))?;
    let value = value.to_ascii_lowercase();
    let says = |verdict: &str| {
        value
            .split(|c: char| c.is_whitespace() || c == ';')
            .any(|w| w == verdict)
    };
    if says("dmarc=fail") {
        Some("the receiving server found that DMARC failed")
    } else if says("spf=fail") && !says("dkim=pass") {
        Some("the receiving server found that SPF failed and no DKIM signature passed")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sender_is_one_address_in_lower_case() {
        let m = parse_message(
            b"From: Bob Jones <Bob@Example.ORG>\r\nSubject: x\r\n\r\n1. e4\r\n",
            "f",
        )
        .unwrap();
        assert_eq!(m.from.as_deref(), Some("bob@example.org"));
        assert_eq!(m.from_text, "Bob Jones <Bob@Example.ORG>");
        let two = parse_message(
            b"From: a@example.org, b@example.org\r\nSubject: x\r\n\r\n1. e4\r\n",
            "f",
        )
        .unwrap();
        assert_eq!(two.from, None);
    }

    #[test]
    fn the_arrival_is_the_topmost_received_date() {
        let raw = b"Received: from mx.example.org by mail.example.net; Tue, 24 Nov 2026 10:00:00 +0000\r\n\
Received: from bob by mx.example.org; Mon, 23 Nov 2026 09:00:00 +0000\r\n\
From: bob@example.org\r\nSubject: BCA-7\r\nDate: Sun, 1 Nov 2026 08:00:00 +0000\r\n\r\n1. e4\r\n";
        let m = parse_message(raw, "f").unwrap();
        assert_eq!(m.arrived_unix_ms, Some(1_795_514_400_000));
        // A date later than the file itself (a wrong clock) gives way to the file's time.
        let message = MessageParser::default().parse(&raw[..]).unwrap();
        assert_eq!(
            arrival(&message, Some(1_795_000_000_000)),
            Some(1_795_000_000_000)
        );
    }

    #[test]
    fn the_receiving_servers_verdict_against_the_sender_is_read() {
        let read = |results: &str| {
            let raw = format!(
                "Authentication-Results: mx.example.net;{results}\r\n\
                 Authentication-Results: mx.example.net; dmarc=fail\r\n\
                 From: bob@example.org\r\nSubject: x\r\n\r\n1. e4\r\n"
            );
            parse_message(raw.as_bytes(), "f").unwrap().forged
        };
        assert_eq!(
            read(" spf=pass smtp.mailfrom=example.org; dkim=pass; dmarc=pass"),
            None
        );
        assert!(read(" spf=pass; dkim=none; dmarc=fail (p=reject)").is_some());
        assert!(read(" spf=fail smtp.mailfrom=example.org; dkim=none").is_some());
        assert_eq!(read(" spf=fail; dkim=pass header.d=example.org"), None);
        // No field at all: nothing is known against him.
        let plain = parse_message(b"From: bob@example.org\r\nSubject: x\r\n\r\n1. e4\r\n", "f");
        assert_eq!(plain.unwrap().forged, None);
    }

    #[test]
    fn flags_stay_sorted_and_single() {
        assert_eq!(with_flag("FS", Some('S')), "FS");
        assert_eq!(with_flag("", None), "");
        assert_eq!(with_flag("R", Some('S')), "RS");
    }
}
