//! The table's talking clock follows the chess clock on the e-board (a DGT 3000 or XL): what the blind player hears is what the clock on the table shows.
//!
//! Why follow rather than drive: the clock on the table is the one both players see and the
//! arbiter sets, corrects and rules by (FIDE 6.1, 6.10); a talking clock that disagreed with it
//! would tell the blind player a time that is not his. Driving the clock's display from the
//! table instead would make a program's reckoning the official time, and a clock command lost
//! on the way (DGT clocks acknowledge each one, and may not) would leave the players' clock
//! wrong where everyone can see it.
//!
//! Which side of the clock is White's is learned at the sighted player's first press: the side
//! whose time then runs is the blind player's. From then on, a reading that differs from the
//! table's clock by more than [`TOLERANCE_MS`] for a side corrects the table's clock by a
//! journaled `adjust` (so a restart restores it), at most once per [`MIN_INTERVAL_MS`] per side:
//! the two clocks count alike between corrections, and the clock's frames show whole seconds.

use shakmaty::Color;

use crate::event::TableEvent;
use crate::record::Record;
use crate::state::{Now, Step, Table};
use annabella_boards::{ClockReading, Millis};

/// How far the table's clock may be from the clock on the board before it is corrected: the
/// board shows whole seconds and sends a frame when they change.
pub const TOLERANCE_MS: Millis = 1_500;

/// The fewest milliseconds between two corrections of one side: a clock set to another time
/// control than the table's must not fill the journal.
pub const MIN_INTERVAL_MS: Millis = 10_000;

/// What the table knows of the clock on the e-board. Not journaled: after a restart the sides
/// are learned again at the next press.
#[derive(Clone, Debug, Default)]
pub(super) struct PhysicalClock {
    /// Whether White's time is on the clock's right side, once learned.
    white_on_right: Option<bool>,
    /// When each side (White, Black) was last corrected.
    corrected_at: [Option<Millis>; 2],
}

impl Table {
    /// The sighted player completed his move with a press: the side whose time now runs is the
    /// blind player's.
    pub(super) fn learn_clock_sides(&mut self, reading: &ClockReading) {
        let blind_on_right = reading.right_runs;
        let white_is_blind = self.settings.peg_side == Color::White;
        self.physical_clock.white_on_right = Some(blind_on_right == white_is_blind);
    }

    /// A reading of the clock on the e-board: the table's clock is set to it when they differ.
    pub(super) fn follow_physical_clock(
        &mut self,
        now: Now,
        reading: &ClockReading,
        out: &mut Step,
    ) {
        let Some(white_on_right) = self.physical_clock.white_on_right else {
            return;
        };
        if !reading.running || self.state.game.is_over() || self.state.clock.is_paused() {
            return;
        }
        let (white_ms, black_ms) = if white_on_right {
            (reading.right_ms, reading.left_ms)
        } else {
            (reading.left_ms, reading.right_ms)
        };
        for (color, shown) in [(Color::White, white_ms), (Color::Black, black_ms)] {
            let ours = self.state.clock.remaining(color, now.table_ms);
            if ours.abs_diff(shown) <= TOLERANCE_MS {
                continue;
            }
            let last = self.physical_clock.corrected_at[color as usize];
            if last.is_some_and(|t| now.table_ms.saturating_sub(t) < MIN_INTERVAL_MS) {
                continue;
            }
            let delta_ms = shown as i64 - ours as i64;
            if self
                .commit(now, Record::Adjust { color, delta_ms }, out)
                .is_err()
            {
                continue;
            }
            self.physical_clock.corrected_at[color as usize] = Some(now.table_ms);
            out.event(TableEvent::ClockAdjusted {
                color,
                delta_ms,
                remaining_ms: self.state.clock.remaining(color, now.table_ms),
            });
        }
    }
}
