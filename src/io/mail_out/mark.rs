//! What has been mailed of one table's game (`<state_dir>/mail-sent/<table>`): the game's
//! identity (its id and when it began, which changes with every new game at the table), the
//! record mailed and its length, the Message-IDs of the replies with when each was accepted,
//! the opponent's last Message-ID, the intents mailed. Written atomically (a crash leaves the
//! old mark or the new), read bounded (256 KiB); a mark of the old format (one number: the last half-move
//! queued) is read as that many half-moves of the game that is running.

use std::fmt::Write as _;
use std::path::Path;

use super::{MailError, bracketed, read_bounded, write_atomically};

/// The largest mark file read: a record of the longest game the 75-move rule allows (under
/// 12,000 half-moves of five bytes) with the lists' bounds fits.
const MAX_MARK_BYTES: u64 = 256 * 1024;
/// Replies remembered per game (the newest; older ones are no longer answered or bounced).
const MAX_SENT: usize = 40;
/// Message-IDs of the thread remembered (for `References`).
const MAX_THREAD: usize = 40;
/// Intents remembered as mailed (a game's leave periods are bounded by the day clock's 64 a
/// side; draw offers by the moves).
const MAX_INTENTS: usize = 200;
const HEADER: &str = "annabella-replies 2";

/// One reply mailed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentReply {
    pub message_id: String,
    /// The half-moves of the record it carried.
    pub ply: usize,
    /// When the server accepted it (Unix ms); `None` while it waits in the queue.
    pub accepted_ms: Option<u64>,
    /// A bounce of it was requeued once: another bounce is told, not requeued again.
    pub requeued: bool,
    /// The 14 days without an answer were told.
    pub overdue_told: bool,
}

/// The mailed state of one table's game.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReplyMark {
    pub game: String,
    /// When the game began (Unix ms): with `game`, which game of the table this is.
    pub serial: u64,
    /// The half-moves mailed (the record's length in the last reply).
    pub ply: usize,
    /// The record as last mailed, in ICCF digits.
    pub record: Vec<String>,
    pub sent: Vec<SentReply>,
    /// The opponent's last Message-ID (answered by `In-Reply-To`), when it arrived (Unix ms).
    pub received: Option<(String, u64)>,
    /// The thread's Message-IDs, oldest first (`References`).
    pub thread: Vec<String>,
    /// The intents mailed (their keys: `offer@12`, `resign`, ...).
    pub intents: Vec<String>,
    /// Corrections and resends mailed: they number the next one's key.
    pub corrections: u32,
    pub resends: u32,
}

impl ReplyMark {
    /// A fresh mark for a game nothing of which is mailed yet.
    pub fn new(game: &str, serial: u64) -> ReplyMark {
        ReplyMark {
            game: game.to_owned(),
            serial,
            ..ReplyMark::default()
        }
    }

    /// The mark at `path`: `None` when there is none; an old mark (one number) as
    /// `Err(plies)`, for the caller to migrate with the game it knows; a mark that cannot be
    /// read as a fresh one named by nothing (logged by the caller as the path says).
    pub fn read(path: &Path) -> Option<Result<ReplyMark, usize>> {
        let text = read_bounded(path, MAX_MARK_BYTES).ok()?;
        if let Ok(plies) = text.trim().parse::<usize>() {
            return Some(Err(plies));
        }
        let mut lines = text.lines();
        if lines.next() != Some(HEADER) {
            return Some(Ok(ReplyMark::default()));
        }
        let mut mark = ReplyMark::default();
        for line in lines {
            let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
            let words: Vec<&str> = rest.split_whitespace().collect();
            let num = |i: usize| words.get(i).and_then(|w| w.parse::<u64>().ok());
            match key {
                "game" => mark.game = rest.trim().to_owned(),
                "serial" => mark.serial = num(0).unwrap_or(0),
                "ply" => mark.ply = num(0).unwrap_or(0) as usize,
                "record" => mark.record = words.iter().map(|w| (*w).to_owned()).collect(),
                "received" => {
                    if let (Some(id), Some(at)) = (words.first().and_then(|w| bracketed(w)), num(1))
                    {
                        mark.received = Some((id, at));
                    }
                }
                "thread" => mark
                    .thread
                    .extend(words.iter().filter_map(|w| bracketed(w))),
                "intent" => mark.intents.extend(words.first().map(|w| (*w).to_owned())),
                "corrections" => mark.corrections = num(0).unwrap_or(0) as u32,
                "resends" => mark.resends = num(0).unwrap_or(0) as u32,
                "sent" => {
                    if let (Some(id), Some(ply)) =
                        (words.first().and_then(|w| bracketed(w)), num(1))
                    {
                        mark.sent.push(SentReply {
                            message_id: id,
                            ply: ply as usize,
                            accepted_ms: num(2).filter(|ms| *ms > 0),
                            requeued: words.contains(&"requeued"),
                            overdue_told: words.contains(&"overdue-told"),
                        });
                    }
                }
                _ => {}
            }
        }
        mark.bound();
        Some(Ok(mark))
    }

    /// Writes the mark atomically to `dir/name`.
    pub fn write(&self, dir: &Path, name: &str) -> Result<(), MailError> {
        let mut text = format!("{HEADER}\n");
        // Writing to a String cannot fail.
        let _ = writeln!(text, "game {}", self.game);
        let _ = writeln!(text, "serial {}", self.serial);
        let _ = writeln!(text, "ply {}", self.ply);
        let _ = writeln!(text, "record {}", self.record.join(" "));
        if let Some((id, at)) = &self.received {
            let _ = writeln!(text, "received {id} {at}");
        }
        for id in &self.thread {
            let _ = writeln!(text, "thread {id}");
        }
        for intent in &self.intents {
            let _ = writeln!(text, "intent {intent}");
        }
        let _ = writeln!(text, "corrections {}", self.corrections);
        let _ = writeln!(text, "resends {}", self.resends);
        for s in &self.sent {
            let _ = writeln!(
                text,
                "sent {} {} {}{}{}",
                s.message_id,
                s.ply,
                s.accepted_ms.unwrap_or(0),
                if s.requeued { " requeued" } else { "" },
                if s.overdue_told { " overdue-told" } else { "" },
            );
        }
        write_atomically(dir, name, text.as_bytes())
    }

    /// Keeps the lists to their bounds, the newest entries.
    pub fn bound(&mut self) {
        fn newest<T>(v: &mut Vec<T>, max: usize) {
            let extra = v.len().saturating_sub(max);
            v.drain(..extra);
        }
        newest(&mut self.sent, MAX_SENT);
        newest(&mut self.thread, MAX_THREAD);
        newest(&mut self.intents, MAX_INTENTS);
    }

    /// Adds a Message-ID to the thread (once).
    pub fn thread_add(&mut self, id: &str) {
        if let Some(id) = bracketed(id)
            && !self.thread.contains(&id)
        {
            self.thread.push(id);
            self.bound();
        }
    }

    /// His last reply when the server accepted it at least `period_ms` before `now_ms` and no
    /// message from the opponent came since, and it was not told yet: its Message-ID and the
    /// whole days since (the ICCF's repeat rule, 14 days).
    pub fn unanswered(&self, now_ms: u64, period_ms: u64) -> Option<(String, u64)> {
        let answered_at = self.received.as_ref().map_or(0, |(_, at)| *at);
        let last = self.sent.last()?;
        let accepted = last.accepted_ms?;
        let due = !last.overdue_told
            && answered_at < accepted
            && now_ms >= accepted.saturating_add(period_ms);
        due.then(|| {
            let days = (now_ms - accepted) / (24 * 3600 * 1000);
            (last.message_id.clone(), days)
        })
    }

    /// The reply with this Message-ID.
    pub fn sent_mut(&mut self, message_id: &str) -> Option<&mut SentReply> {
        let id = bracketed(message_id)?;
        self.sent.iter_mut().find(|s| s.message_id == id)
    }
}
