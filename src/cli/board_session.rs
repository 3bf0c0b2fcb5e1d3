//! A board feeding a game: decoded events through the debouncer and the move detector, with the
//! detector's conclusions applied to the game and printed one line each (`replay` and `watch`).

use shakmaty::CastlingMode;

use crate::boards::debounce::Debouncer;
use crate::boards::{BoardKey, Decoded, Millis, Protocol, SensorEvent, Timed};
use crate::chess::game::Game;
use crate::chess::role_name;
use crate::table::detector::{BoardKind, Conclusion, DetectorSettings, MoveDetector, TouchMove};

/// The detector with its game: what `replay` and `watch` run.
pub struct BoardSession {
    game: Game,
    debouncer: Option<Debouncer>,
    detector: MoveDetector,
    conclusions: Vec<Conclusion>,
    debounced: Vec<Timed<SensorEvent>>,
    /// After a (re)connect: the board's first snapshot has not been seen yet.
    awaiting_snapshot: bool,
    /// The snapshot being checked produced a mismatch (so it is not "in sync").
    snapshot_differs: bool,
    /// The board was connected before: a later connect is a reconnect.
    seen_before: bool,
}

impl BoardSession {
    pub fn new(
        protocol: Protocol,
        game: Game,
        touch_move: TouchMove,
        debounce_ms: Millis,
    ) -> BoardSession {
        let kind = match protocol {
            Protocol::Peg => BoardKind::Occupancy,
            Protocol::Dgt => BoardKind::Identity,
        };
        let mut settings = DetectorSettings::for_kind(kind);
        settings.touch_move = touch_move;
        let detector = MoveDetector::new(kind, settings, &game);
        // Only contact sensors chatter; a DGT board reports settled squares.
        let debouncer =
            (protocol == Protocol::Peg && debounce_ms > 0).then(|| Debouncer::new(debounce_ms));
        BoardSession {
            game,
            debouncer,
            detector,
            conclusions: Vec::new(),
            debounced: Vec::new(),
            awaiting_snapshot: false,
            snapshot_differs: false,
            seen_before: false,
        }
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The earliest instant something is due (a debounce window or a detector deadline).
    pub fn next_deadline(&self) -> Option<Millis> {
        let d = self.debouncer.as_ref().and_then(Debouncer::next_deadline);
        match (d, self.detector.next_deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Handles one decoded item; decode errors come back as lines too (`error …`). `timed` says
    /// whether the event's time was measured (live, or stamped in a recording): only then can
    /// chatter be told from a deliberate touch, so only then is it debounced.
    pub fn feed(&mut self, item: Decoded, timed: bool, lines: &mut Vec<String>) {
        match item {
            Err(e) => lines.push(format!("error {e}")),
            Ok(event) => {
                self.poll(event.at, lines);
                match &mut self.debouncer {
                    Some(d) if timed => d.push(event, &mut self.debounced),
                    Some(d) => {
                        d.flush(&mut self.debounced);
                        self.debounced.push(event);
                    }
                    None => self.debounced.push(event),
                }
                self.drain(lines);
            }
        }
    }

    /// The board came back after a disconnect: its first snapshot is compared, not trusted.
    pub fn reconnected(&mut self) {
        if let Some(d) = &mut self.debouncer {
            d.flush(&mut self.debounced);
        }
        self.debounced.clear();
        // The first connect is a power-up: only after a reconnect can a move made while the
        // board was away be recognised in its snapshot.
        if std::mem::replace(&mut self.seen_before, true) {
            self.detector.reconnected();
        }
        self.awaiting_snapshot = true;
    }

    /// Lets time pass to `now`: releases debounced events and the detector's deadlines.
    pub fn poll(&mut self, now: Millis, lines: &mut Vec<String>) {
        if let Some(d) = &mut self.debouncer {
            d.poll(now, &mut self.debounced);
        }
        self.drain(lines);
        self.detector.poll(&self.game, now, &mut self.conclusions);
        self.apply(lines);
    }

    /// The end of a stream: everything still held is released.
    pub fn finish(&mut self, lines: &mut Vec<String>) {
        if let Some(d) = &mut self.debouncer {
            d.flush(&mut self.debounced);
        }
        self.drain(lines);
        self.detector
            .poll(&self.game, Millis::MAX, &mut self.conclusions);
        self.apply(lines);
    }

    fn drain(&mut self, lines: &mut Vec<String>) {
        let events = std::mem::take(&mut self.debounced);
        for event in &events {
            let snapshot = matches!(
                event.event,
                SensorEvent::Occupancy(_) | SensorEvent::Pieces(_)
            );
            self.snapshot_differs = false;
            self.detector
                .handle(&self.game, event, &mut self.conclusions);
            self.apply(lines);
            // Say once that a (re)connected board agrees with the game, so the user (and a
            // test) knows the board is ready; a difference was already reported as a mismatch.
            if snapshot && std::mem::take(&mut self.awaiting_snapshot) && !self.snapshot_differs {
                lines.push(conclusion_line(
                    &Conclusion::InSync,
                    self.game.castling_mode(),
                ));
            }
        }
    }

    /// Prints each conclusion and plays what it decided into the game.
    fn apply(&mut self, lines: &mut Vec<String>) {
        // A resync may conclude again (in sync, mismatch): keep going until nothing is left.
        while !self.conclusions.is_empty() {
            self.apply_once(lines);
        }
    }

    fn apply_once(&mut self, lines: &mut Vec<String>) {
        for c in std::mem::take(&mut self.conclusions) {
            self.snapshot_differs |=
                matches!(c, Conclusion::Mismatch { .. } | Conclusion::Illegal { .. });
            lines.push(conclusion_line(&c, self.game.castling_mode()));
            if let Conclusion::Moved {
                warning: Some(w), ..
            } = &c
            {
                lines.push(format!("touch-move {w}"));
            }
            match c {
                Conclusion::Moved { m, .. } | Conclusion::Replicated { m } => {
                    if let Err(e) = self.game.play(m) {
                        lines.push(format!("error the game refused the move: {e}"));
                        self.detector.resync(&self.game, &mut self.conclusions);
                    }
                }
                // A replay has no arbiter to refuse it: the board's word stands.
                Conclusion::Takeback { plies } => {
                    for _ in 0..plies {
                        self.game.undo();
                    }
                    self.detector.resync(&self.game, &mut self.conclusions);
                }
                _ => {}
            }
        }
    }
}

/// One line per conclusion, each starting with its keyword (the `replay` contract): `move`,
/// `touched`, `illegal`, `mismatch`, `promotion-pending`, `takeback`, `replicated`, `in-sync`,
/// `rotated`.
pub fn conclusion_line(c: &Conclusion, mode: CastlingMode) -> String {
    c.describe(mode)
}

/// A key pressed on the board, as words (for lines that report keys).
pub fn key_name(k: BoardKey) -> String {
    match k {
        BoardKey::Promote(role) => format!("promote to {}", role_name(role)),
        BoardKey::Repeat => "repeat".to_owned(),
        BoardKey::Time => "time".to_owned(),
        BoardKey::Other(c) => format!("key {c}"),
    }
}
