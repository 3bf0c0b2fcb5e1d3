//! Incoming mail: the Maildir read, each message's game found, its record checked against the
//! game, the opponent's move played (or why not said and logged, quoting both records).

use std::sync::Arc;

use shakmaty::Color;

use super::{MESSAGES_PER_LOOK, MailDesk, publish};
use crate::app::desk_link::Notice;
use crate::chess::language::Language;
use crate::chess::vocabulary::fill;
use crate::correspondence::message::{self, ParsedMessage, Verdict};
use crate::io::maildir::MailMessage;
use crate::table::control::{Role, TableRequest};
use crate::table::event::{MailEvent, TableEvent};
use crate::table::state::DeskView;

impl MailDesk {
    /// Reads new messages and applies each to its game.
    pub(super) async fn read_mail(&mut self) {
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
        if let Some(bounce) = &m.bounce {
            return self.bounced(&m.file, bounce);
        }
        let parsed = match message::parse(&m.subject, &m.body) {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!(file = %m.file, subject = %m.subject, error = %e, "a message that is no game message; moved to cur/");
                return;
            }
        };
        // The game's id as `new-game game_id` may have changed it.
        let Some(i) = self
            .tables
            .iter()
            .position(|t| super::replies::game_name(t, &t.view.borrow()) == parsed.game.as_str())
        else {
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
