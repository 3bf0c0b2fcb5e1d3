//! The DGT clock's messages: its times in BCD, encoded as a board sends them, and the time a
//! recording's clock frames give.

use crate::{ClockReading, Millis};

use super::encode::frame;
use super::messages::DGT_MSG_BWTIME;

/// Clock status bits (the last byte of a clock-times message, dgtbrd.h): the clock runs; the
/// right side's lever is up (its time runs); no clock is connected (the times mean nothing).
pub(super) const CLOCK_RUNNING: u8 = 0x01;
pub(super) const CLOCK_RIGHT_RUNS: u8 = 0x02;
pub(super) const CLOCK_NONE: u8 = 0x20;

/// One side's time as the clock sends it: hours in the low nibble of the first byte (its high
/// nibble holds that side's flags), then minutes and seconds in BCD.
pub(super) fn bcd_time(h: u8, m: u8, s: u8) -> Option<Millis> {
    let bcd = |b: u8| {
        (b >> 4 < 10 && b & 0x0f < 10).then_some(u64::from(b >> 4) * 10 + u64::from(b & 0x0f))
    };
    let (hours, minutes, seconds) = (u64::from(h & 0x0f), bcd(m)?, bcd(s)?);
    (hours < 10 && minutes < 60 && seconds < 60)
        .then_some(((hours * 60 + minutes) * 60 + seconds) * 1000)
}

/// A clock-times message (0x8d) as a DGT board sends it for its clock, for the simulator and
/// the tests (whole seconds, as the clock shows them).
pub fn encode_clock(reading: &ClockReading) -> Vec<u8> {
    let side = |ms: Millis| {
        let s = (ms / 1000).min(9 * 3600 + 59 * 60 + 59);
        let bcd = |n: u64| (((n / 10) << 4) | (n % 10)) as u8;
        [(s / 3600) as u8, bcd(s / 60 % 60), bcd(s % 60)]
    };
    let mut status = 0;
    if reading.running {
        status |= CLOCK_RUNNING;
    }
    if reading.right_runs {
        status |= CLOCK_RIGHT_RUNS;
    }
    let mut payload = side(reading.right_ms).to_vec();
    payload.extend(side(reading.left_ms));
    payload.push(status);
    frame(DGT_MSG_BWTIME, &payload)
}

/// Time read from a recording's clock frames: each frame shows the running side's time, so
/// the drop since the frame before is the time that passed (the events between two frames are
/// given the time of the frame before them). A paused clock, a press, a time that went up
/// (an arbiter's correction, a new game) or a jump of more than a minute give no time.
#[derive(Debug, Default)]
pub struct ClockTimeline {
    last: Option<ClockReading>,
    elapsed: Millis,
}

impl ClockTimeline {
    /// The time passed up to the frame `reading`, in milliseconds since the first frame.
    pub fn advance(&mut self, reading: &ClockReading) -> Millis {
        if let Some(last) = self.last
            && last.running
            && reading.running
            && last.right_runs == reading.right_runs
        {
            let drop = last
                .running_side_ms()
                .saturating_sub(reading.running_side_ms());
            if drop <= 60_000 {
                self.elapsed += drop;
            }
        }
        self.last = Some(*reading);
        self.elapsed
    }

    /// The time passed up to the last frame.
    pub fn now(&self) -> Millis {
        self.elapsed
    }
}
