//! The blind player's replies by mail: when the game's last move is his and no reply for it is
//! marked queued, the reply in the ICCF form is queued exactly once (`io::mail_out`) and the
//! sender thread woken.

use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

use super::{MailDesk, MailTable, publish};
use crate::chess::vocabulary::fill;
use crate::correspondence::message::{self, Date, GameMessage};
use crate::io::mail_out::Outgoing;
use crate::table::event::{MailEvent, TableEvent};
use crate::table::state::DeskView;

impl MailDesk {
    /// Queues the reply to the blind player's last move when it is not queued yet.
    pub(super) fn reply_if_due(&mut self, i: usize) {
        let t = &self.tables[i];
        let view = Arc::clone(&t.view.borrow());
        let ply = view.released_plies;
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
        intents: Vec::new(),
    }
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
