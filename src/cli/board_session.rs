//! A board feeding a game: decoded events through the debouncer and the move detector, with the
//! detector's conclusions applied to the game and printed one line each (`replay` and `watch`).

use shakmaty::CastlingMode;

use crate::boards::{BoardKey, Decoded, Millis, Protocol, SensorEvent};
use crate::chess::game::Game;
use crate::chess::role_name;
use crate::table::board_feed::BoardFeed;
use crate::table::detector::{BoardKind, Conclusion, DetectorSettings, TouchMove};

/// The detector with its game: what `replay` and `watch` run.
pub struct BoardSession {
    game: Game,
    /// The board's debouncer and detector, as the daemon's table reads a board.
    feed: BoardFeed,
    conclusions: Vec<Conclusion>,
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
        let kind = if protocol.senses_pieces() {
            BoardKind::Identity
        } else {
            BoardKind::Occupancy
        };
        let mut settings = DetectorSettings::for_kind(kind);
        settings.touch_move = touch_move;
        // Only contact sensors chatter (the feed debounces occupancy boards only).
        let feed = BoardFeed::new(kind, settings, debounce_ms, &game);
        BoardSession {
            game,
            feed,
            conclusions: Vec::new(),
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
        self.feed.next_deadline()
    }

    /// Handles one decoded item; decode errors come back as lines too (`error …`). `timed` says
    /// whether the event's time was measured (live, or stamped in a recording): only then can
    /// chatter be told from a deliberate touch, so only then is it debounced.
    pub fn feed(&mut self, item: Decoded, timed: bool, lines: &mut Vec<String>) {
        match item {
            Err(e) => lines.push(format!("error {e}")),
            Ok(event) => {
                self.poll(event.at, lines);
                if timed {
                    self.feed.push(event);
                } else {
                    self.feed.push_untimed(event);
                }
                self.drain(lines);
            }
        }
    }

    /// The board came back after a disconnect: its first snapshot is compared, not trusted.
    pub fn reconnected(&mut self) {
        self.feed.discard_pending();
        // The first connect is a power-up: only after a reconnect can a move made while the
        // board was away be recognised in its snapshot.
        if std::mem::replace(&mut self.seen_before, true) {
            self.feed.detector_mut().reconnected();
        }
        self.awaiting_snapshot = true;
    }

    /// Lets time pass to `now`: releases debounced events and the detector's deadlines.
    pub fn poll(&mut self, now: Millis, lines: &mut Vec<String>) {
        self.feed.poll_debouncer(now);
        self.drain(lines);
        self.feed
            .detector_mut()
            .poll(&self.game, now, &mut self.conclusions);
        self.apply(lines);
    }

    /// The end of a stream: everything still held is released.
    pub fn finish(&mut self, lines: &mut Vec<String>) {
        self.feed.flush();
        self.drain(lines);
        self.feed
            .detector_mut()
            .poll(&self.game, Millis::MAX, &mut self.conclusions);
        self.apply(lines);
    }

    fn drain(&mut self, lines: &mut Vec<String>) {
        let events = self.feed.take_released();
        for event in &events {
            let snapshot = matches!(
                event.event,
                SensorEvent::Occupancy(_) | SensorEvent::Pieces(_)
            );
            self.snapshot_differs = false;
            self.feed
                .detector_mut()
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
                        self.feed
                            .detector_mut()
                            .resync(&self.game, &mut self.conclusions);
                    }
                }
                // A replay has no arbiter to refuse it: the board's word stands. The detector
                // concluded the takeback itself and may already have concluded the move made
                // instead (a piece that moved on from where it rested): re-basing it here would
                // make it judge that move again, against a game that does not have it yet.
                Conclusion::Takeback { plies } => {
                    for _ in 0..plies {
                        self.game.undo();
                    }
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
    crate::control::wire::conclusion_text(c, mode)
}

/// A key pressed on the board, as words (for lines that report keys).
pub fn key_name(k: BoardKey) -> String {
    match k {
        BoardKey::Promote(role) => format!("promote to {}", role_name(role)),
        BoardKey::Repeat => "repeat".to_owned(),
        BoardKey::Time => "time".to_owned(),
        BoardKey::OwnTime => "own time".to_owned(),
        BoardKey::History => "history".to_owned(),
        BoardKey::Draw => "draw".to_owned(),
        BoardKey::Claim => "claim".to_owned(),
        BoardKey::Resign => "resign".to_owned(),
        BoardKey::ConfirmSheet => "confirm sheet".to_owned(),
        BoardKey::SetUp => "board set up".to_owned(),
        BoardKey::NextGame => "next game".to_owned(),
        BoardKey::ListGames => "list games".to_owned(),
        BoardKey::Message => "message".to_owned(),
        BoardKey::AcceptHeld => "accept held".to_owned(),
        BoardKey::Other(c) => format!("key {c}"),
    }
}
