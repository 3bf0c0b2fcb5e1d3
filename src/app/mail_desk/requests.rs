//! The `mail …` requests, answered by the mail desk: the messages held for their sender listed
//! (`mail held`), and one accepted (`mail accept 3`): put back in `new/` and read at the next
//! look as the game's opponent's; the replies refused for good queued again (`mail retry`);
//! a table's last reply sent again with its record (`mail resend TABLE`).

use crate::table::control::{DeskRequest, ErrorCode, MailRequest, Refusal};
use crate::table::reply::{Answer, Reply};

use super::MailDesk;

/// The most held messages listed in one answer.
const MAX_LISTED: usize = 50;

impl MailDesk {
    pub(super) fn answer(&mut self, command: &DeskRequest) -> Reply {
        let DeskRequest::Mail(request) = command else {
            return Err(Refusal::new(
                ErrorCode::State,
                "the mail desk answers only mail requests",
            ));
        };
        let Some(maildir) = self.maildir.as_mut() else {
            return Err(Refusal::new(
                ErrorCode::State,
                "the Maildir is being read; ask again",
            ));
        };
        let io = |e: std::io::Error| {
            Refusal::new(
                ErrorCode::State,
                format!("the held messages in {}: {e}", maildir_root_hint()),
            )
        };
        match request {
            MailRequest::Retry => {
                let n = self
                    .queue
                    .requeue_parked()
                    .map_err(|e| Refusal::new(ErrorCode::State, e.to_string()))?;
                self.wake.send(()).ok();
                Ok(Answer::Mail {
                    text: format!("{n} requeued"),
                })
            }
            MailRequest::Resend { table } => {
                let i = self
                    .tables
                    .iter()
                    .position(|t| &*t.handle.name == table.as_str())
                    .ok_or_else(|| {
                        Refusal::new(
                            ErrorCode::Syntax,
                            format!("no correspondence table {table:?}"),
                        )
                    })?;
                let original = self
                    .resend(i)
                    .map_err(|why| Refusal::new(ErrorCode::State, why))?;
                Ok(Answer::Mail {
                    text: format!("resent {original}"),
                })
            }
            MailRequest::Held => {
                let held = maildir.held().map_err(io)?;
                let listed: Vec<String> = held
                    .iter()
                    .take(MAX_LISTED)
                    .map(|h| format!("{} {}", h.id, h.file))
                    .collect();
                let more = held.len().saturating_sub(MAX_LISTED);
                let mut text = format!("held {}", held.len());
                if !listed.is_empty() {
                    text.push_str(": ");
                    text.push_str(&listed.join(", "));
                }
                if more > 0 {
                    text.push_str(&format!(" and {more} more"));
                }
                Ok(Answer::Mail { text })
            }
            MailRequest::Accept { id } => {
                let last = maildir.held().map(|h| h.last().map(|h| h.id));
                let id = match id {
                    Some(id) => *id,
                    None => last
                        .map_err(io)?
                        .ok_or_else(|| Refusal::new(ErrorCode::State, "no message is held"))?,
                };
                let id = &id;
                let Some(name) = maildir.release(*id).map_err(io)? else {
                    return Err(Refusal::new(
                        ErrorCode::Syntax,
                        format!("no held message has the number {id}; 'mail held' lists them"),
                    ));
                };
                tracing::info!(id, file = %name, "a held message accepted: read again as the opponent's");
                self.intake.accepted.insert(name.clone());
                self.intake.keep_accepted();
                if let Some(first) = self.tables.first() {
                    let v = first.lang.vocabulary();
                    let text = crate::chess::vocabulary::fill(
                        v.event("desk_mail_accepted").unwrap_or("{id}"),
                        &[("id", &id.to_string())],
                    );
                    self.say(0, text);
                }
                Ok(Answer::Mail {
                    text: format!("accepted {id}: {name} is read at the next look"),
                })
            }
        }
    }
}

/// Where held messages are, for an error's text.
fn maildir_root_hint() -> String {
    format!("the Maildir's {} folder", crate::io::maildir::HELD_FOLDER)
}
