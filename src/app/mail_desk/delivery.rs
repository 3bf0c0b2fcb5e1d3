//! Where his replies are: the sender thread's report of each message (accepted: "Antwort an
//! Bob gesendet"; refused for good: told with the server's reason and parked until `mail
//! retry`), bounces read from the Maildir (told, the reply requeued once), what waits to go out
//! after a restart (said once), and a reply not answered for 14 days (the ICCF's repeat rule:
//! told once, sent again with its record on `mail resend TABLE`).

use std::sync::Arc;

use super::replies::{ReplyKind, opponent_name};
use super::{MailDesk, publish};
use crate::chess::phrases::number_phrase;
use crate::chess::vocabulary::fill;
use crate::io::clock::unix_ms;
use crate::io::mail_bounce::Bounce;
use crate::io::mail_out::{SendReport, bracketed};
use crate::table::event::{MailEvent, TableEvent};

/// A reply not answered for this long is told (the ICCF's repeat rule).
pub const UNANSWERED_MS: u64 = 14 * 24 * 3600 * 1000;

impl MailDesk {
    /// The table whose mark names this Message-ID among its replies.
    fn table_of(&self, message_id: &str) -> Option<usize> {
        let id = bracketed(message_id)?;
        self.marks.iter().position(|m| {
            m.as_ref()
                .is_some_and(|m| m.sent.iter().any(|s| s.message_id == id))
        })
    }

    /// Words from the language file of table `i`, filled.
    fn words(&self, i: usize, key: &str, values: &[(&str, &str)]) -> String {
        let t = &self.tables[i];
        let template = t.lang.vocabulary().event(key).unwrap_or(key);
        fill(template, values)
    }

    /// What the sender thread reports of one message.
    pub(super) fn on_report(&mut self, report: SendReport) {
        match report {
            SendReport::Sent { message_id, outbox } => {
                tracing::info!(%message_id, outbox, "mail sent");
                let Some(i) = self.table_of(&message_id) else {
                    return;
                };
                if let Some(s) = self.marks[i].as_mut().and_then(|m| m.sent_mut(&message_id)) {
                    s.accepted_ms = Some(unix_ms());
                    s.overdue_told = false;
                }
                self.save_mark(i);
                publish(
                    &self.tables[i].handle.events,
                    TableEvent::Mail(MailEvent::Sent { message_id }),
                );
                let name = opponent_name(&self.tables[i]);
                let text = self.words(i, "desk_reply_sent", &[("name", &name)]);
                self.say(i, text);
            }
            SendReport::Deferred {
                message_id, error, ..
            } => {
                tracing::warn!(%message_id, error = %error, "mail not sent yet; tried again");
            }
            SendReport::Parked {
                message_id,
                error,
                file,
            } => {
                tracing::warn!(%message_id, file = %file.display(), error = %error, "mail refused for good; parked until `mail retry`");
                let why = error.to_string();
                if let Some(i) = self.table_of(&message_id) {
                    self.undelivered(i, &message_id, &why);
                }
            }
        }
    }

    /// Tells that a reply was not delivered, and why.
    fn undelivered(&self, i: usize, message_id: &str, why: &str) {
        publish(
            &self.tables[i].handle.events,
            TableEvent::Mail(MailEvent::Undelivered {
                message_id: message_id.to_owned(),
                why: why.to_owned(),
            }),
        );
        let name = opponent_name(&self.tables[i]);
        let text = self.words(i, "desk_reply_refused", &[("name", &name), ("why", why)]);
        self.say(i, text);
    }

    /// A delivery-status notification in the Maildir: matched to one of his replies by the
    /// original's Message-ID (else by its subject, which begins with the game's id), told, and
    /// the reply requeued once; one that names none of his replies is logged.
    pub(super) fn bounced(&mut self, file: &str, bounce: &Bounce) {
        let by_id = bounce
            .original_ids
            .iter()
            .find_map(|id| self.table_of(id).map(|i| (i, id.clone())));
        let found = by_id.or_else(|| {
            let subject = bounce.original_subject.as_deref()?;
            self.marks.iter().enumerate().find_map(|(i, m)| {
                let m = m.as_ref()?;
                let last = m.sent.last()?;
                subject
                    .trim_start()
                    .starts_with(&format!("{}:", m.game))
                    .then(|| (i, last.message_id.clone()))
            })
        });
        let Some((i, message_id)) = found else {
            tracing::warn!(file, ids = ?bounce.original_ids, subject = ?bounce.original_subject, "a bounce that names none of the replies; moved to cur/");
            return;
        };
        let first = self.marks[i]
            .as_mut()
            .and_then(|m| m.sent_mut(&message_id))
            .map(|s| !std::mem::replace(&mut s.requeued, true))
            .unwrap_or(false);
        let requeued = first
            && match self.queue.requeue_sent(&message_id) {
                Ok(found) => found,
                Err(e) => {
                    tracing::error!(%message_id, error = %e, "a bounced reply could not be requeued");
                    false
                }
            };
        self.save_mark(i);
        if requeued {
            self.wake.send(()).ok();
        }
        tracing::warn!(table = %self.tables[i].handle.name, file, %message_id, requeued, reason = %bounce.reason, "a reply bounced");
        publish(
            &self.tables[i].handle.events,
            TableEvent::Mail(MailEvent::Bounced {
                message_id: message_id.clone(),
                why: bounce.reason.clone(),
            }),
        );
        let name = opponent_name(&self.tables[i]);
        let text = self.words(i, "desk_reply_bounced", &[("name", &name)]);
        self.say(i, text);
    }

    /// Once after a start: per table, how many of his replies wait to go out (queued or
    /// parked).
    pub(super) fn tell_waiting(&mut self) {
        let mut ids: Vec<String> = match self.queue.pending() {
            Ok(q) => q.into_iter().map(|q| q.message_id).collect(),
            Err(e) => {
                tracing::warn!(error = %e, "the queue could not be read for what waits");
                return;
            }
        };
        ids.extend(self.queue.parked_ids().unwrap_or_default());
        let mut counts = vec![0u32; self.tables.len()];
        for id in &ids {
            if let Some(i) = self.table_of(id) {
                counts[i] += 1;
            }
        }
        for (i, n) in counts.into_iter().enumerate().filter(|(_, n)| *n > 0) {
            let name = opponent_name(&self.tables[i]);
            let v = self.tables[i].lang.vocabulary();
            let count = number_phrase(n, v);
            let key = if n == 1 {
                "desk_reply_waiting"
            } else {
                "desk_replies_waiting"
            };
            let text = self.words(i, key, &[("count", &count), ("name", &name)]);
            self.say(i, text);
        }
    }

    /// A reply accepted 14 days ago with no message from the opponent since: told once.
    pub(super) fn check_unanswered(&mut self, i: usize, now_ms: u64) {
        let Some(mark) = self.marks[i].as_mut() else {
            return;
        };
        let Some((message_id, days)) = mark.unanswered(now_ms, UNANSWERED_MS) else {
            return;
        };
        if let Some(last) = mark.sent.last_mut() {
            last.overdue_told = true;
        }
        let days = u32::try_from(days).unwrap_or(u32::MAX);
        self.save_mark(i);
        publish(
            &self.tables[i].handle.events,
            TableEvent::Mail(MailEvent::Unanswered {
                message_id,
                days: days as usize,
            }),
        );
        let name = opponent_name(&self.tables[i]);
        let v = self.tables[i].lang.vocabulary();
        let days = number_phrase(days, v);
        let text = self.words(
            i,
            "desk_reply_unanswered",
            &[("name", &name), ("days", &days)],
        );
        self.say(i, text);
    }

    /// `mail resend TABLE`: his last reply again with the record as it stands, a new
    /// Message-ID, `References` naming the original.
    pub(super) fn resend(&mut self, i: usize) -> Result<String, String> {
        let view = Arc::clone(&self.tables[i].view.borrow());
        let Some(mark) = self.marks[i].as_ref() else {
            return Err("nothing was mailed in this game yet".to_owned());
        };
        let Some(last) = mark.sent.last() else {
            return Err("nothing was mailed in this game yet".to_owned());
        };
        let original = last.message_id.clone();
        let plies = mark.ply;
        self.queue_reply(
            i,
            &view,
            plies,
            ReplyKind::Resend {
                original: original.clone(),
            },
            Vec::new(),
        );
        Ok(original)
    }
}
