//! The clock across a restart and after a stall of the daemon: what the running side is
//! charged, decided from the gap the adapter measured, and what the arbiter is told.
//!
//! Across a restart no monotonic clock survives, so the adapter measures (`io::clock`): the
//! table's own time at its last heartbeat (which the journal keeps), and the downtime after it
//! by the boot-time clock (`CLOCK_BOOTTIME`, which counts a suspend too) when the machine did
//! not reboot, by the wall clock only after a reboot, and then at most
//! [`MAX_WALL_DOWNTIME_MS`]. A wall clock stepped between stop and restart therefore charges
//! nobody more than the real downtime.

use shakmaty::Color;

use annabella_boards::Millis;
use annabella_chess::phrases::duration_phrase;

use super::{Now, Step, Table};
use crate::event::{DowntimeClock, Listener, TableEvent, Urgency};
use crate::record::Record;

/// The most a downtime measured by the wall clock (after a reboot) may count: a reboot takes a
/// minute or two, and a machine without a real-time clock may start its wall clock anywhere
/// (1970, or the time it last shut down) until NTP steps it, so a longer wall-clock gap is
/// more likely a wrong clock than a real downtime. The arbiter hears what was charged and
/// corrects it with `adjust`.
pub const MAX_WALL_DOWNTIME_MS: u64 = 10 * 60 * 1000;

/// How long the daemon was down, as the adapter measured it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Downtime {
    /// Measured by the boot-time clock: the machine did not reboot.
    BootClock { ms: u64 },
    /// Measured by the wall clock (the machine rebooted, or the boot clock is unknown):
    /// `restart - last alive`, which a stepped clock may make negative or huge.
    Wall { measured_ms: i64 },
}

impl Downtime {
    /// The downtime to count, and how it was measured: a wall-clock gap clamped to
    /// `0..=MAX_WALL_DOWNTIME_MS`.
    pub fn counted(self) -> (u64, DowntimeClock) {
        match self {
            Downtime::BootClock { ms } => (ms, DowntimeClock::Boot),
            Downtime::Wall { measured_ms } => {
                let ms = u64::try_from(measured_ms).unwrap_or(0);
                if ms > MAX_WALL_DOWNTIME_MS {
                    (MAX_WALL_DOWNTIME_MS, DowntimeClock::WallCapped)
                } else {
                    (ms, DowntimeClock::Wall)
                }
            }
        }
    }
}

/// What the adapter knows of the gap between the daemon's last sign of life and `now`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RestartGap {
    /// This table's time at the daemon's last heartbeat, when the journal has it: the time
    /// alive after the last record is then `alive_table_ms - last record`, immune to any step
    /// of the wall clock.
    pub alive_table_ms: Option<Millis>,
    /// The wall time of the last sign of life, used for that only when `alive_table_ms` is
    /// unknown (a journal written before it was kept).
    pub alive_unix_ms: u64,
    /// The downtime after the last sign of life.
    pub downtime: Downtime,
}

impl Table {
    /// After a restart at `now`, the daemon last known alive at `last_alive_unix_ms`, every gap
    /// measured by the wall clock (bounded): see [`Table::resume_after`].
    pub fn resume(&mut self, now: Now, last_alive_unix_ms: u64, charge_downtime: bool) -> Step {
        let measured =
            i128::from(now.unix_ms) - i128::from(last_alive_unix_ms.max(self.state.last_unix_ms));
        let gap = RestartGap {
            alive_table_ms: None,
            alive_unix_ms: last_alive_unix_ms,
            downtime: Downtime::Wall {
                measured_ms: measured.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64,
            },
        };
        self.resume_after(now, gap, charge_downtime)
    }

    /// After a restart at `now`: the running clock is charged for the time it ran while the
    /// daemon was up (to its last heartbeat), and for the downtime after it only when
    /// `charge_downtime`; then it runs on from `now`. The `rebase` record keeps the charge;
    /// the arbiter hears it (`resumed` and words) and may correct it with `adjust`. Both
    /// boards are compared with the game when they next report.
    pub fn resume_after(&mut self, now: Now, gap: RestartGap, charge_downtime: bool) -> Step {
        let mut out = Step::default();
        if let Some(since) = self.state.clock.state().running_since
            && !self.state.game.is_over()
        {
            let last_t = self.state.last_t;
            let ran_before_last = last_t.saturating_sub(since);
            let alive_after_last = match gap.alive_table_ms {
                Some(alive) => alive.saturating_sub(last_t),
                None => {
                    let last_wall = self.state.last_unix_ms;
                    let alive = gap
                        .alive_unix_ms
                        .clamp(last_wall, now.unix_ms.max(last_wall));
                    (alive - last_wall).min(MAX_WALL_DOWNTIME_MS)
                }
            };
            let (downtime_ms, measured_by) = gap.downtime.counted();
            let charged_ms =
                ran_before_last + alive_after_last + if charge_downtime { downtime_ms } else { 0 };
            if let Err(e) = self.commit(now, Record::Rebase { charged_ms }, &mut out) {
                out.event(TableEvent::JournalError {
                    message: format!("the clock could not be resumed: {e}"),
                });
            }
            out.event(TableEvent::Resumed {
                downtime_ms,
                charged_ms,
                measured_by,
            });
            let running = self.state.clock.running();
            self.tell_arbiter_resumed(downtime_ms, charged_ms, measured_by, running, &mut out);
        }
        out.event(TableEvent::Restored {
            ply: self.state.game.ply_count(),
            fen: self.state.game.fen(),
        });
        self.remind_pending(&mut out);
        Self::end_step(out)
    }

    fn tell_arbiter_resumed(
        &mut self,
        downtime_ms: u64,
        charged_ms: u64,
        measured_by: DowntimeClock,
        running: Option<Color>,
        out: &mut Step,
    ) {
        let Some(color) = running else { return };
        let vocab = self.announcer.vocab();
        let key = match measured_by {
            DowntimeClock::Boot => "clock_resumed",
            DowntimeClock::Wall | DowntimeClock::WallCapped => "clock_resumed_reboot",
        };
        let text = self.announcer.fill(
            key,
            &[
                ("downtime", &duration_phrase(downtime_ms, vocab)),
                ("color", vocab.color(color)),
                ("time", &duration_phrase(charged_ms, vocab)),
            ],
        );
        self.say(Listener::Arbiter, text, Urgency::Polite, out);
    }

    /// The daemon did not run for `stalled_ms` (stopped, or starved of the processor): the
    /// arbiter is told. Input that reached the daemon meanwhile is judged as of the stall's
    /// start by the adapter (`docs/clock.md`), before any flag.
    pub fn stalled(&mut self, stalled_ms: u64) -> Step {
        let mut out = Step::default();
        out.event(TableEvent::Stalled { stalled_ms });
        let vocab = self.announcer.vocab();
        let text = self.announcer.fill(
            "daemon_stalled",
            &[("time", &duration_phrase(stalled_ms, vocab))],
        );
        self.say(Listener::Arbiter, text, Urgency::Polite, &mut out);
        Self::end_step(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::TableSettings;
    use annabella_chess::language::Language;

    fn table() -> Table {
        let settings = TableSettings::new(
            "t".parse().unwrap(),
            Color::White,
            Language::english(),
            "600".parse().unwrap(),
        );
        Table::new(settings, Now::at(0)).unwrap().0
    }

    fn gap(alive_table_ms: Option<Millis>, downtime: Downtime) -> RestartGap {
        RestartGap {
            alive_table_ms,
            alive_unix_ms: 0,
            downtime,
        }
    }

    fn charged(step: &Step) -> Option<(u64, u64, DowntimeClock)> {
        step.events().find_map(|e| match e {
            TableEvent::Resumed {
                downtime_ms,
                charged_ms,
                measured_by,
            } => Some((*downtime_ms, *charged_ms, *measured_by)),
            _ => None,
        })
    }

    #[test]
    fn a_wall_clock_downtime_counts_nothing_negative_and_at_most_ten_minutes() {
        assert_eq!(
            Downtime::Wall {
                measured_ms: -3_600_000
            }
            .counted(),
            (0, DowntimeClock::Wall)
        );
        assert_eq!(
            Downtime::Wall {
                measured_ms: 3_600_000
            }
            .counted(),
            (MAX_WALL_DOWNTIME_MS, DowntimeClock::WallCapped)
        );
        assert_eq!(
            Downtime::BootClock { ms: 3_600_000 }.counted(),
            (3_600_000, DowntimeClock::Boot)
        );
    }

    #[test]
    fn the_time_alive_comes_from_table_time_and_the_downtime_from_the_boot_clock() {
        // White's clock runs from 0; the wall stamps of the records are 0 too (`Now::at`).
        // The last heartbeat had table time 4 s; the wall says an hour passed, the boot
        // clock 5 s.
        let now = Now {
            table_ms: 0,
            unix_ms: 3_600_000,
        };
        for (charge, want) in [(false, 4_000), (true, 9_000)] {
            let mut t = table();
            let step = t.resume_after(
                now,
                gap(Some(4_000), Downtime::BootClock { ms: 5_000 }),
                charge,
            );
            assert_eq!(charged(&step), Some((5_000, want, DowntimeClock::Boot)));
            let told: Vec<_> = step.said().map(|s| (s.listener, s.text.clone())).collect();
            assert_eq!(told.len(), 1, "{told:?}");
            assert_eq!(told[0].0, Listener::Arbiter);
            assert!(
                told[0]
                    .1
                    .starts_with("After the restart, White's clock was charged")
            );
        }
    }

    #[test]
    fn after_a_reboot_the_wall_clock_is_read_and_bounded() {
        let mut t = table();
        let step = t.resume_after(
            Now::at(0),
            gap(
                Some(0),
                Downtime::Wall {
                    measured_ms: 7_200_000,
                },
            ),
            true,
        );
        assert_eq!(
            charged(&step),
            Some((
                MAX_WALL_DOWNTIME_MS,
                MAX_WALL_DOWNTIME_MS,
                DowntimeClock::WallCapped
            ))
        );
        assert!(step.said().any(|s| s.text.contains("After a reboot")));
    }

    #[test]
    fn a_stall_is_told_to_the_arbiter() {
        let mut t = table();
        let step = t.stalled(10_500);
        assert!(
            step.events()
                .any(|e| *e == TableEvent::Stalled { stalled_ms: 10_500 })
        );
        let said: Vec<_> = step.said().collect();
        assert_eq!(said.len(), 1);
        assert_eq!(said[0].listener, Listener::Arbiter);
        assert!(step.records.is_empty());
    }
}
