//! One board's events on their way to a decision: the contact debouncer (occupancy boards only)
//! and the move detector, with the events the debouncer has released. Used by the table (both
//! of its boards) and by `replay`/`watch`, so a board is read the same way everywhere.

use crate::detector::{BoardKind, DetectorSettings, MoveDetector};
use annabella_boards::debounce::Debouncer;
use annabella_boards::{Millis, SensorEvent, Timed};
use annabella_chess::game::Game;

/// A board's debouncer and detector.
pub struct BoardFeed {
    /// Merges reed/hall chatter on a square into its net change; `None` for boards that report
    /// settled squares (DGT) or when the window is 0.
    debouncer: Option<Debouncer>,
    /// Decides touched, moved, illegal, mismatch… from the debounced events.
    detector: MoveDetector,
    /// Events the debouncer let through and the detector has not seen yet.
    released: Vec<Timed<SensorEvent>>,
    /// The time of the last event pushed: a later one is never stamped before it.
    last_at: Millis,
}

impl BoardFeed {
    /// A feed for a board of `kind` following `game`; only contact sensors (occupancy boards)
    /// chatter, so only they get a debouncer (`debounce_ms` 0: none).
    pub fn new(
        kind: BoardKind,
        settings: DetectorSettings,
        debounce_ms: Millis,
        game: &Game,
    ) -> BoardFeed {
        BoardFeed {
            debouncer: (kind == BoardKind::Occupancy && debounce_ms > 0)
                .then(|| Debouncer::new(debounce_ms)),
            detector: MoveDetector::new(kind, settings, game),
            released: Vec::new(),
            last_at: 0,
        }
    }

    /// The time to stamp an event that the board's reader read at `read_at` and that reaches
    /// the table at `now`: when it was read (a table task kept busy must not squeeze a hand's
    /// events together — a capture's lift and placement on one square, read 60 ms apart but
    /// handled together, would look like contact chatter and vanish), never later than now
    /// and never before the event pushed last, so events keep their order.
    pub fn stamp(&self, read_at: Millis, now: Millis) -> Millis {
        read_at.min(now).max(self.last_at)
    }

    pub fn detector(&self) -> &MoveDetector {
        &self.detector
    }

    pub fn detector_mut(&mut self) -> &mut MoveDetector {
        &mut self.detector
    }

    /// One event from the board, through the debouncer.
    pub fn push(&mut self, event: Timed<SensorEvent>) {
        self.last_at = self.last_at.max(event.at);
        match &mut self.debouncer {
            Some(d) => d.push(event, &mut self.released),
            None => self.released.push(event),
        }
    }

    /// One event whose time was not measured (an untimed recording): chatter cannot be told
    /// from a deliberate touch, so what the debouncer holds is released and this one passes.
    pub fn push_untimed(&mut self, event: Timed<SensorEvent>) {
        self.last_at = self.last_at.max(event.at);
        self.flush();
        self.released.push(event);
    }

    /// Releases everything the debouncer holds (the end of a stream).
    pub fn flush(&mut self) {
        if let Some(d) = &mut self.debouncer {
            d.flush(&mut self.released);
        }
    }

    /// Releases what the debouncer holds past its window at `now`.
    pub fn poll_debouncer(&mut self, now: Millis) {
        if let Some(d) = &mut self.debouncer {
            d.poll(now, &mut self.released);
        }
    }

    /// The events released so far, to hand to the detector one at a time (the caller may act
    /// on each conclusion before the next event is judged).
    pub fn take_released(&mut self) -> Vec<Timed<SensorEvent>> {
        std::mem::take(&mut self.released)
    }

    /// The link came back: whatever was half-seen before is void; the board's snapshot tells.
    pub fn discard_pending(&mut self) {
        self.flush();
        self.released.clear();
    }

    /// The earliest instant the debouncer or the detector has something due.
    pub fn next_deadline(&self) -> Option<Millis> {
        let d = self.debouncer.as_ref().and_then(Debouncer::next_deadline);
        min_opt(d, self.detector.next_deadline())
    }
}

/// The earlier of two optional instants.
pub fn min_opt(a: Option<Millis>, b: Option<Millis>) -> Option<Millis> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}
