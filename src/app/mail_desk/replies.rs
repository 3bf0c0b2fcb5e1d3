//! The blind player's replies by mail, following the game rather than a half-move counter: the
//! mark of what was mailed (`io::mail_out::ReplyMark`) names the game (its id and when it
//! began), so the arbiter's `new-game` starts a fresh mark and new Message-IDs; the record up to
//! the half-moves he released is mailed when its last move is his; a mailed move the arbiter
//! withdrew (the record no longer extends what was mailed) is mailed as a correction; every
//! reply answers the opponent's last message (`In-Reply-To`, `References`).
//!
//! Each reply is queued under a key made of the table, the game's identity and the half-move
//! (and a correction's or a resend's number), written before the mark: a crash between the two
//! queues the same key again, which the queue recognises, so each is mailed once.

use std::sync::Arc;
use std::time::SystemTime;

use shakmaty::Color;

use super::{MailDesk, MailTable, publish};
use crate::chess::game::EndReason;
use crate::chess::vocabulary::fill;
use crate::correspondence::message::{self, Date, GameId, GameMessage, IccfMove, Intent};
use crate::io::clock::unix_ms;
use crate::io::mail_out::{Outgoing, ReplyMark, SentReply, bracketed};
use crate::table::event::{MailEvent, TableEvent};
use crate::table::state::DeskView;

/// What a reply is, beyond the record it carries.
pub(super) enum ReplyKind {
    /// His move.
    Move,
    /// The record as it now stands after the arbiter withdrew a mailed move (`withdrawn`: the
    /// first of them, numbered, in ICCF digits).
    Correction { withdrawn: String },
    /// The last reply again, for a message not answered (the ICCF's repeat rule).
    Resend { original: String },
    /// What he said besides a move (a draw offered, accepted or declined, a resignation, a
    /// claim on time, leave), with the record as it stands.
    Intents,
}

impl ReplyKind {
    /// The key's suffix, the words the message adds, and the template of what he hears.
    fn parts(
        &self,
        mark: &ReplyMark,
        intents: &[(String, Intent)],
    ) -> (String, Option<String>, &'static str) {
        match self {
            // After a correction the same half-move may be mailed again, a new reply: the
            // corrections so far make its key (and Message-ID) new.
            ReplyKind::Move if mark.corrections > 0 => {
                (format!(".v{}", mark.corrections), None, "desk_reply_queued")
            }
            ReplyKind::Move => (String::new(), None, "desk_reply_queued"),
            ReplyKind::Correction { withdrawn } => (
                format!(".c{}", mark.corrections + 1),
                Some(format!(
                    "Correction: the move {withdrawn} was withdrawn by the arbiter. \
                     The game stands as recorded here."
                )),
                "desk_correction_queued",
            ),
            // Each intent is mailed once: its own key names the message.
            ReplyKind::Intents => (
                format!(".i-{}", intents.first().map_or("", |(key, _)| key.as_str())),
                None,
                "desk_reply_queued",
            ),
            ReplyKind::Resend { original } => (
                format!(".r{}", mark.resends + 1),
                Some(format!(
                    "Repeat of my reply {original}, which has not been answered."
                )),
                "desk_reply_resent",
            ),
        }
    }
}

impl MailDesk {
    /// Queues what is due at table `i`: a new game's fresh mark, a correction, his move.
    pub(super) fn reply_if_due(&mut self, i: usize) {
        let view = Arc::clone(&self.tables[i].view.borrow());
        let mut dirty = self.load_mark(i, &view);
        if let Some(id) = self.last_received[i].take().as_deref().and_then(bracketed) {
            let mark = self.marks[i].get_or_insert_with(ReplyMark::default);
            mark.received = Some((id.clone(), unix_ms()));
            mark.thread_add(&id);
            dirty = true;
        }
        let released = view.released_plies.min(view.game.ply_count());
        let record: Vec<String> = message::game_record(&view.game)
            .iter()
            .take(released)
            .map(|m| m.as_str().to_owned())
            .collect();
        let mailed = self.marks[i]
            .as_ref()
            .map(|m| m.record.clone())
            .unwrap_or_default();
        if !record.starts_with(&mailed) {
            let common = record
                .iter()
                .zip(&mailed)
                .take_while(|(a, b)| a == b)
                .count();
            let first = mailed.get(common).map_or("", String::as_str);
            let withdrawn = format!("{} {first}", move_number(common));
            self.queue_reply(
                i,
                &view,
                released,
                ReplyKind::Correction { withdrawn },
                Vec::new(),
            );
            return;
        }
        let mover = released.checked_sub(1).and_then(|last| {
            view.game
                .position_before(last)
                .map(|p| shakmaty::Position::turn(&p))
        });
        let intents = self.due_intents(i, &view, released);
        self.last_offer[i] = view.draw_offer;
        if released > mailed.len() && mover == Some(view.peg_side) {
            self.queue_reply(i, &view, released, ReplyKind::Move, intents);
            return;
        }
        if !intents.is_empty() {
            self.queue_reply(i, &view, released, ReplyKind::Intents, intents);
            return;
        }
        if dirty {
            self.save_mark(i);
        }
    }

    /// His intents not mailed yet, each with the key that marks it mailed: his draw offer
    /// standing; the game drawn by agreement while the opponent's offer stood (he accepted);
    /// the opponent's offer gone with the game going on (he declined); his resignation; the
    /// opponent's time over (his claim); his leave.
    fn due_intents(&self, i: usize, view: &DeskView, released: usize) -> Vec<(String, Intent)> {
        let Some(mark) = &self.marks[i] else {
            return Vec::new();
        };
        let me = view.peg_side;
        let before = self.last_offer[i];
        let mut due = Vec::new();
        // One offer stands until the opponent answers: a key of it at this half-move, or at
        // the one before when that was his own move, is the same offer.
        let offered_at = |p: usize| mark.intents.contains(&format!("offer.{p}"));
        let his_move_before = released.checked_sub(1).is_some_and(|last| {
            view.game
                .position_before(last)
                .is_some_and(|p| shakmaty::Position::turn(&p) == me)
        });
        let standing = offered_at(released)
            || (his_move_before && released.checked_sub(1).is_some_and(offered_at));
        if view.draw_offer == Some(me) && !standing {
            due.push((format!("offer.{released}"), Intent::OfferDraw));
        }
        match view.game.outcome().map(|end| end.reason) {
            // His own offer accepted by the opponent needs no answer; after a restart (no
            // offer seen before) his offer is known from the mark.
            Some(EndReason::Agreement) if before != Some(me) && !standing => {
                due.push(("accept".to_owned(), Intent::AcceptDraw));
            }
            Some(EndReason::Resignation { by }) if by == me => {
                due.push(("resign".to_owned(), Intent::Resign));
            }
            Some(EndReason::Timeout { flagged }) if flagged != me => {
                due.push(("claim".to_owned(), Intent::ClaimWinOnTime));
            }
            None if before == Some(!me) && view.draw_offer.is_none() => {
                due.push((format!("decline.{released}"), Intent::DeclineDraw));
            }
            _ => {}
        }
        for leave in view.leaves.iter().filter(|l| l.color == me) {
            let intent = Intent::Leave {
                from: leave.from,
                to: leave.to,
            };
            due.push((format!("leave.{}.{}", leave.from, leave.to), intent));
        }
        due.retain(|(key, _)| !mark.intents.contains(key));
        due
    }

    /// Makes `marks[i]` the mark of the game the view shows: read from its file the first
    /// time (an old mark migrated), a fresh one when the game is another. True when changed.
    fn load_mark(&mut self, i: usize, view: &DeskView) -> bool {
        let t = &self.tables[i];
        let game = game_name(t, view);
        let serial = view.began_unix_ms;
        if self.marks[i]
            .as_ref()
            .is_some_and(|m| same_game(m, &game, serial))
        {
            return false;
        }
        let from_file = self.marks[i].is_none();
        // The file too when the game seems another: it is the truth across restarts.
        let read = ReplyMark::read(&self.sent_dir.join(t.handle.name.as_ref()));
        let mark = match read {
            Some(Ok(mark)) if same_game(&mark, &game, serial) => {
                self.marks[i] = Some(mark);
                return false;
            }
            // The old mark: so many half-moves of the game now running were queued.
            Some(Err(plies)) => {
                let mut mark = ReplyMark::new(&game, serial);
                mark.ply = plies.min(view.game.ply_count());
                mark.record = message::game_record(&view.game)
                    .iter()
                    .take(mark.ply)
                    .map(|m| m.as_str().to_owned())
                    .collect();
                tracing::info!(table = %t.handle.name, plies, "the reply mark of the old format read");
                mark
            }
            _ => {
                if !from_file {
                    tracing::info!(table = %t.handle.name, %game, "a new game: its replies are mailed afresh");
                }
                // Not written until something is mailed: a view of a moment must not
                // overwrite the file's mark.
                self.marks[i] = Some(ReplyMark::new(&game, serial));
                return false;
            }
        };
        self.marks[i] = Some(mark);
        true
    }

    /// Writes the mark of table `i`.
    pub(super) fn save_mark(&self, i: usize) {
        let Some(mark) = &self.marks[i] else {
            return;
        };
        let name = self.tables[i].handle.name.as_ref();
        if let Err(e) = mark.write(&self.sent_dir, name) {
            tracing::error!(table = %name, error = %e, "the reply's mark was not written; it may be queued again (same Message-ID)");
        }
    }

    /// Queues a reply carrying the record's first `plies` half-moves and `intents`, and marks
    /// it.
    pub(super) fn queue_reply(
        &mut self,
        i: usize,
        view: &DeskView,
        plies: usize,
        kind: ReplyKind,
        intents: Vec<(String, Intent)>,
    ) {
        let t = &self.tables[i];
        let Some(mark) = self.marks[i].clone() else {
            return;
        };
        let (suffix, text, event_key) = kind.parts(&mark, &intents);
        let mut composed = compose_reply(t, view, &mark.game, plies, text);
        composed.intents = intents.iter().map(|(_, intent)| *intent).collect();
        let (subject, body) = message::compose(&composed);
        let outgoing = Outgoing {
            to: t.opponent_email.clone(),
            subject,
            body,
            in_reply_to: mark.received.as_ref().map(|(id, _)| id.clone()),
            references: mark.thread.clone(),
        };
        let key = format!(
            "{}.{}.{}.{plies}{suffix}",
            t.handle.name, mark.game, mark.serial
        );
        let message_id = match self.queue.enqueue_keyed(&outgoing, SystemTime::now(), &key) {
            Ok(id) => id,
            Err(e) => {
                tracing::error!(table = %t.handle.name, error = %e, "the reply could not be queued; tried again at the next look");
                return;
            }
        };
        self.wake.send(()).ok();
        tracing::info!(table = %t.handle.name, plies, %message_id, "reply queued");
        let record: Vec<String> = composed
            .record
            .iter()
            .map(|m| m.as_str().to_owned())
            .collect();
        if let Some(mark) = self.marks[i].as_mut() {
            match kind {
                ReplyKind::Move | ReplyKind::Intents => {}
                ReplyKind::Correction { .. } => mark.corrections += 1,
                ReplyKind::Resend { .. } => mark.resends += 1,
            }
            mark.intents.extend(intents.into_iter().map(|(key, _)| key));
            mark.ply = plies;
            mark.record = record;
            if mark.sent_mut(&message_id).is_none() {
                mark.sent.push(SentReply {
                    message_id: message_id.clone(),
                    ply: plies,
                    accepted_ms: None,
                    requeued: false,
                    overdue_told: false,
                });
            }
            mark.thread_add(&message_id);
        }
        self.save_mark(i);
        let t = &self.tables[i];
        publish(
            &t.handle.events,
            TableEvent::Mail(MailEvent::Queued {
                ply: plies,
                message_id,
            }),
        );
        let text = fill(
            t.lang.vocabulary().event(event_key).unwrap_or("{game}"),
            &[
                // The game as he hears it named: the opponent and his colour.
                ("game", t.view.borrow().spoken_name.as_str()),
                ("name", &opponent_name(t)),
            ],
        );
        self.say(i, text);
    }
}

/// Whether the mark is of this game: its id and the stamp of its beginning, which the
/// journal keeps exactly as the table applied it (so a restart reads the same stamp, and a
/// new game, even one begun a moment after the last, has another).
fn same_game(mark: &ReplyMark, game: &str, serial: u64) -> bool {
    mark.game == game && mark.serial == serial
}

/// The game's id in its messages: the one `new-game game_id` gave it, else the configured one.
pub(super) fn game_name(t: &MailTable, view: &DeskView) -> String {
    view.game_id
        .clone()
        .unwrap_or_else(|| t.game_id.as_str().to_owned())
}

/// The opponent's name as the configuration gives it (the side the blind player is not).
pub(super) fn opponent_name(t: &MailTable) -> String {
    let peg_side = t.view.borrow().peg_side;
    match peg_side {
        Color::White => t.black.clone(),
        Color::Black => t.white.clone(),
    }
}

/// Half-move `ply`'s number as the mailed record writes it (`message::compose` numbers from
/// 1 with White): `12.` for White's, `12...` for Black's.
fn move_number(ply: usize) -> String {
    let n = ply / 2 + 1;
    if ply.is_multiple_of(2) {
        format!("{n}.")
    } else {
        format!("{n}...")
    }
}

/// The reply for the game's first `plies` half-moves: the record, the dates and the days.
fn compose_reply(
    t: &MailTable,
    view: &DeskView,
    game: &str,
    plies: usize,
    text: Option<String>,
) -> GameMessage {
    let record: Vec<IccfMove> = message::game_record(&view.game)
        .into_iter()
        .take(plies)
        .collect();
    let times = &view.move_times[..plies.min(view.move_times.len())];
    let sent_ms = times.last().copied().unwrap_or(0);
    let received_ms = plies.checked_sub(2).and_then(|p| times.get(p)).copied();
    // The days as the game's rules charged them (`day_clock`).
    let (used, total) = view
        .last_charge
        .map_or((0, [0, 0]), |c| (c.used_days, c.total_days));
    GameMessage {
        game: GameId::new(game).unwrap_or_else(|| t.game_id.clone()),
        white: t.white.clone(),
        black: t.black.clone(),
        record,
        received: received_ms.map(|ms| Date::from_unix_ms(ms as i64)),
        sent: Date::from_unix_ms(sent_ms as i64),
        used_days: used,
        total_days: total,
        text,
        intents: Vec::new(),
    }
}
