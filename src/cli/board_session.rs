//! A board feeding a game: decoded events through the debouncer and the move detector, with the
//! detector's conclusions applied to the game and printed one line each (`replay` and `watch`).

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Move, Piece, Role};

use crate::boards::debounce::Debouncer;
use crate::boards::{BoardKey, Decoded, Millis, Protocol, SensorEvent, Timed};
use crate::chess::game::Game;
use crate::table::corrections::Correction;
use crate::table::detector::{BoardKind, Conclusion, DetectorSettings, MoveDetector, TouchMove};

/// The detector with its game: what `replay` and `watch` run.
pub struct BoardSession {
    game: Game,
    debouncer: Option<Debouncer>,
    detector: MoveDetector,
    conclusions: Vec<Conclusion>,
    debounced: Vec<Timed<SensorEvent>>,
}

impl BoardSession {
    pub fn new(protocol: Protocol, game: Game, touch_move: TouchMove, debounce_ms: Millis) -> BoardSession {
        let kind = match protocol {
            Protocol::Peg => BoardKind::Occupancy,
            Protocol::Dgt => BoardKind::Identity,
        };
        let mut settings = DetectorSettings::for_kind(kind);
        settings.touch_move = touch_move;
        let detector = MoveDetector::new(kind, settings, &game);
        // Only contact sensors chatter; a DGT board reports settled squares.
        let debouncer = (protocol == Protocol::Peg && debounce_ms > 0).then(|| Debouncer::new(debounce_ms));
        BoardSession { game, debouncer, detector, conclusions: Vec::new(), debounced: Vec::new() }
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

    /// Handles one decoded item; decode errors come back as lines too (`error …`).
    pub fn feed(&mut self, item: Decoded, lines: &mut Vec<String>) {
        match item {
            Err(e) => lines.push(format!("error {e}")),
            Ok(event) => {
                self.poll(event.at, lines);
                match &mut self.debouncer {
                    Some(d) => d.push(event, &mut self.debounced),
                    None => self.debounced.push(event),
                }
                self.drain(lines);
            }
        }
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
        self.detector.poll(&self.game, Millis::MAX, &mut self.conclusions);
        self.apply(lines);
    }

    fn drain(&mut self, lines: &mut Vec<String>) {
        let events = std::mem::take(&mut self.debounced);
        for event in &events {
            self.detector.handle(&self.game, event, &mut self.conclusions);
            self.apply(lines);
        }
    }

    /// Prints each conclusion and plays what it decided into the game.
    fn apply(&mut self, lines: &mut Vec<String>) {
        for c in std::mem::take(&mut self.conclusions) {
            lines.push(conclusion_line(&c, self.game.castling_mode()));
            match c {
                Conclusion::Moved { m, .. } | Conclusion::Replicated { m } => {
                    if let Err(e) = self.game.play(m) {
                        lines.push(format!("error the game refused the move: {e}"));
                        self.detector.resync(&self.game);
                    }
                }
                // A replay has no arbiter to refuse it: the board's word stands.
                Conclusion::Takeback { plies } => {
                    for _ in 0..plies {
                        self.game.undo();
                    }
                    self.detector.resync(&self.game);
                }
                _ => {}
            }
        }
    }
}

fn uci(m: Move, mode: CastlingMode) -> String {
    UciMove::from_move(m, mode).to_string()
}

fn piece_name(p: Piece) -> String {
    format!("{} {}", p.color, role_name(p.role))
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

fn correction_text(c: &Correction) -> String {
    let piece = |p: &Option<Piece>| p.map(|p| format!("{} ", piece_name(p))).unwrap_or_default();
    match c {
        Correction::Move { piece: p, from, to } => format!("move {}{from}-{to}", piece(p)),
        Correction::Remove { piece: p, square } => format!("remove {}{square}", piece(p)),
        Correction::Place { piece: p, square } => format!("place {} {square}", piece_name(*p)),
    }
}

fn corrections_text(cs: &[Correction]) -> String {
    cs.iter().map(correction_text).collect::<Vec<_>>().join(", ")
}

/// One line per conclusion, each starting with its keyword (the `replay` contract).
pub fn conclusion_line(c: &Conclusion, mode: CastlingMode) -> String {
    match c {
        Conclusion::Touched { square, piece } => format!("touched {square} {}", piece_name(*piece)),
        Conclusion::Moved { m, warning: None } => format!("move {}", uci(*m, mode)),
        Conclusion::Moved { m, warning: Some(w) } => format!("move {} (touch-move: {w})", uci(*m, mode)),
        Conclusion::Replicated { m } => format!("replicated {}", uci(*m, mode)),
        Conclusion::PromotionPending { from, to } => {
            format!("promotion-pending {from}{to}: press KQ, KR, KB or KN")
        }
        Conclusion::Illegal { reason, corrections } => {
            format!("illegal {reason}; corrections: {}", corrections_text(corrections))
        }
        Conclusion::Mismatch { corrections, unverifiable } => {
            let note = if *unverifiable { " (occupancy only: piece identity cannot be checked)" } else { "" };
            format!("mismatch {}{note}", corrections_text(corrections))
        }
        Conclusion::Takeback { plies } => format!("takeback {plies}"),
        Conclusion::InSync => "in-sync".to_owned(),
        Conclusion::TouchMove(w) => format!("touch-move {w}"),
        other => other.describe(),
    }
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
