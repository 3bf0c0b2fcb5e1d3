//! The table's two boards: each board's feed and link state, what its detector concludes and
//! what the table does about it (play the move, confirm a replication, guide the player back
//! one correction at a time) and link changes. The peg board's keys are `keys.rs`.

use std::collections::VecDeque;

use shakmaty::{Chess, Color, Move, Position};

use crate::board_feed::BoardFeed;
use crate::control::{ErrorCode, Refusal};
use crate::corrections::{Correction, corrections};
use crate::detector::{BoardKind, Conclusion, DetectorSettings, TouchMove};
use crate::event::{BoardId, Listener, TableEvent, Urgency};
use crate::record::{Record, Source};
use crate::state::{Now, Step, Table, TableSettings};
use annabella_boards::{SensorEvent, Timed};
use annabella_chess::game::Game;
use annabella_chess::language::Language;
use annabella_chess::notation::{Notation, Style, format_move};
use annabella_chess::phrases::{Event, RefusalReason, event_phrase, refusal_phrase};
use annabella_chess::vocabulary::fill;

/// One board at the table: its feed and what the table knows of its link and its agreement
/// with the game.
pub(super) struct Board {
    pub feed: BoardFeed,
    pub connected: bool,
    /// Connected at least once: only a reconnect is said aloud, not the first connect.
    pub ever_connected: bool,
    /// After a (re)connect: the next snapshot is compared with the game, and said to agree.
    pub awaiting_snapshot: bool,
    /// The last conclusion left the board differing from the game.
    pub differs: bool,
    /// While it differs: the correction the player was last told to make (he is guided one
    /// at a time).
    pub guided: Option<Correction>,
    /// Errors on its line, told a few a second.
    pub line_errors: super::line_errors::LineErrors,
}

impl Board {
    fn new(
        kind: BoardKind,
        mover: Color,
        touch: TouchMove,
        debounce_ms: u64,
        game: &Game,
    ) -> Board {
        let mut settings = DetectorSettings::for_kind(kind);
        settings.mover = Some(mover);
        settings.touch_move = touch;
        Board {
            feed: BoardFeed::new(kind, settings, debounce_ms, game),
            connected: false,
            ever_connected: false,
            awaiting_snapshot: true,
            differs: false,
            guided: None,
            line_errors: Default::default(),
        }
    }

    /// The peg board and, when the sighted side plays on an e-board, that board.
    pub fn pair(s: &TableSettings, game: &Game) -> (Board, Option<Board>) {
        let peg = Board::new(
            BoardKind::Occupancy,
            s.peg_side,
            s.touch_move,
            s.debounce_ms,
            game,
        );
        let normal = (s.normal == crate::state::NormalBoard::Identity).then(|| {
            // FIDE D.2.5: the sighted player follows the ordinary touch-move rules, which an
            // arbiter judges; the e-board only reports them.
            Board::new(BoardKind::Identity, !s.peg_side, TouchMove::Off, 0, game)
        });
        (peg, normal)
    }

    /// Whether the board still owes moves the table entered (the opponent's, to replicate).
    pub fn owes(&self, game: &Game) -> bool {
        self.feed.detector().board_ply() < game.ply_count()
    }

    fn set_differs(&mut self, differs: bool) {
        self.differs = differs;
        if !differs {
            self.guided = None;
        }
    }
}

/// Who hears about a board: its player.
pub(super) fn listener_of(board: BoardId) -> Listener {
    match board {
        BoardId::Peg => Listener::BlindPlayer,
        BoardId::Normal => Listener::Opponent,
    }
}

impl Table {
    pub(super) fn board_mut(&mut self, board: BoardId) -> Option<&mut Board> {
        match board {
            BoardId::Peg => Some(&mut self.peg),
            BoardId::Normal => self.normal.as_mut(),
        }
    }

    pub(super) fn board(&self, board: BoardId) -> Option<&Board> {
        match board {
            BoardId::Peg => Some(&self.peg),
            BoardId::Normal => self.normal.as_ref(),
        }
    }

    /// A board together with the game it is judged against.
    fn split(&mut self, board: BoardId) -> Option<(&mut Board, &Game)> {
        let game = &self.state.game;
        let b = match board {
            BoardId::Peg => &mut self.peg,
            BoardId::Normal => self.normal.as_mut()?,
        };
        Some((b, game))
    }

    /// Lets `board`'s detector look at the game again (it notices what the table changed).
    fn poll_detector(&mut self, board: BoardId, now: Now) -> Vec<Conclusion> {
        let mut found = Vec::new();
        if let Some((b, game)) = self.split(board) {
            b.feed.detector_mut().poll(game, now.table_ms, &mut found);
        }
        found
    }

    pub(super) fn feed(
        &mut self,
        board: BoardId,
        event: Timed<SensorEvent>,
        now: Now,
        out: &mut Step,
    ) {
        let Some(b) = self.board_mut(board) else {
            out.event(TableEvent::BoardError {
                board,
                message: "no such board at this table".to_owned(),
            });
            return;
        };
        b.feed.push(event);
        self.drain(board, now, out);
    }

    /// Passes released events to the detector one at a time and acts on its conclusions.
    fn drain(&mut self, board: BoardId, now: Now, out: &mut Step) {
        let events = match self.board_mut(board) {
            Some(b) => b.feed.take_released(),
            None => return,
        };
        for event in events {
            let snapshot = matches!(
                event.event,
                SensorEvent::Occupancy(_) | SensorEvent::Pieces(_)
            );
            let mut found = Vec::new();
            if let Some((b, game)) = self.split(board) {
                b.feed.detector_mut().handle(game, &event, &mut found);
            }
            let quiet = found.is_empty();
            self.conclude(board, now, found, out);
            if quiet {
                self.follow_guidance(board, &event.event, out);
            }
            let agrees = self.board_mut(board).is_some_and(|b| {
                snapshot && std::mem::take(&mut b.awaiting_snapshot) && !b.differs
            });
            if agrees {
                out.event(TableEvent::InSync { board });
            }
        }
    }

    pub(super) fn poll_boards(&mut self, now: Now, out: &mut Step) {
        for board in [BoardId::Peg, BoardId::Normal] {
            if let Some(b) = self.board_mut(board) {
                b.feed.poll_debouncer(now.table_ms);
            }
            self.drain(board, now, out);
            let found = self.poll_detector(board, now);
            self.conclude(board, now, found, out);
        }
    }

    /// Acts on conclusions until none are left: a move played into the game makes the other
    /// board owe it (or show it already), so both boards look again after each one.
    pub(super) fn conclude(
        &mut self,
        board: BoardId,
        now: Now,
        found: Vec<Conclusion>,
        out: &mut Step,
    ) {
        let mut queue: VecDeque<(BoardId, Conclusion)> =
            found.into_iter().map(|c| (board, c)).collect();
        // A bound on re-polls: each one follows a ply played, and a board cannot keep
        // concluding new moves without new events.
        let mut polls = 0;
        while let Some((b, c)) = queue.pop_front() {
            // The sighted player's piece moved on from where it rested: the move it ends on
            // replaces the one concluded at the rest, while the blind player has not begun to
            // copy it.
            if b == BoardId::Normal
                && matches!(c, Conclusion::Takeback { plies: 1 })
                && matches!(
                    queue.front(),
                    Some((BoardId::Normal, Conclusion::Moved { .. }))
                )
                && self.amend_last_move(now, &c, out)
            {
                continue;
            }
            let plies = self.state.game.ply_count();
            self.on_conclusion(b, now, c, out);
            if self.state.game.ply_count() != plies && polls < 16 {
                polls += 1;
                for other in [BoardId::Peg, BoardId::Normal] {
                    let more = self.poll_detector(other, now);
                    queue.extend(more.into_iter().map(|c| (other, c)));
                }
            }
        }
    }

    /// Withdraws the sighted player's last move, concluded while his piece rested on its way,
    /// when nothing has come after it: the game not over, no clock press that completed it
    /// (a board with a clock concludes only at the press), and the peg board still as it was
    /// before the move (the blind player has not begun to copy it). The blind player hears a
    /// short correction; the move the piece ended on follows as an ordinary move. Returns
    /// whether it did.
    fn amend_last_move(&mut self, now: Now, takeback: &Conclusion, out: &mut Step) -> bool {
        let game = &self.state.game;
        let Some(&last) = game.moves().last() else {
            return false;
        };
        // With a clock on the e-board the move was completed by the press: it stands.
        let clocked = self
            .normal
            .as_ref()
            .is_some_and(|b| b.feed.detector().has_clock());
        if game.is_over() || game.turn() != self.settings.peg_side || clocked {
            return false;
        }
        let Some(before) = game.position_before(game.ply_count() - 1) else {
            return false;
        };
        let untouched = self.peg.feed.detector().observed().occupied() == before.board().occupied();
        if !untouched || self.commit(now, Record::Undo, out).is_err() {
            return false;
        }
        out.event(TableEvent::Detected {
            board: BoardId::Normal,
            conclusion: takeback.clone(),
            mode: self.state.game.castling_mode(),
        });
        out.event(TableEvent::Undo {
            uci: self.uci(last).to_string(),
        });
        let text = self.word("move_amended");
        self.say(Listener::BlindPlayer, text, Urgency::Polite, out);
        true
    }

    fn on_conclusion(&mut self, board: BoardId, now: Now, c: Conclusion, out: &mut Step) {
        // A board that differs from the game at rest starts the two-sheet procedure (D.2.9):
        // with the sheets agreeing it only confirms whose board is wrong, for the record.
        let board_differs = matches!(
            c,
            Conclusion::Illegal { .. } | Conclusion::Mismatch { .. } | Conclusion::Takeback { .. }
        );
        self.react(board, now, c, out);
        if board_differs && self.state.proposal.is_none() && self.state.lagging.is_none() {
            self.reconcile_sheets(now, false, out);
        }
    }

    fn react(&mut self, board: BoardId, now: Now, c: Conclusion, out: &mut Step) {
        out.event(TableEvent::Detected {
            board,
            conclusion: c.clone(),
            mode: self.state.game.castling_mode(),
        });
        let listener = listener_of(board);
        match c {
            Conclusion::Touched { .. } | Conclusion::Rotated => {}
            Conclusion::Moved { m, warning } => {
                if let Some(w) = warning {
                    out.event(TableEvent::TouchMove {
                        board,
                        warning: w.to_string(),
                    });
                    // Under `warn` the move stands and the arbiter decides (FIDE 4.3, 4.8):
                    // he hears the breach in words, not only as an event.
                    let text = refusal_phrase(w.spoken(), self.vocab());
                    self.say(Listener::Arbiter, text, Urgency::Polite, out);
                }
                let source = match board {
                    BoardId::Peg => Source::Peg,
                    BoardId::Normal => Source::Normal,
                };
                // With a clock on the e-board, the sighted player's move was completed by his
                // press: the side whose time now runs is the blind player's.
                if board == BoardId::Normal
                    && let Some(reading) =
                        self.normal.as_ref().and_then(|b| b.feed.detector().clock())
                {
                    self.learn_clock_sides(&reading);
                }
                match self.play(now, m, source, out) {
                    // The board shows the move just played: whatever it was told to correct
                    // before is over (the move itself is what the player hears).
                    Ok(()) => {
                        if let Some(b) = self.board_mut(board)
                            && std::mem::take(&mut b.differs)
                        {
                            b.guided = None;
                            out.event(TableEvent::InSync { board });
                        }
                    }
                    Err(e) => {
                        out.event(TableEvent::Refused {
                            board,
                            reason: e.message,
                        });
                        // The move stands on the board but not in the game: the player hears
                        // why (the corrections follow from the detector's judgement below).
                        let why = if self.state.game.is_over() {
                            Some(RefusalReason::GameOver)
                        } else if self.state.clock.is_paused() {
                            Some(RefusalReason::ClocksStopped)
                        } else {
                            None
                        };
                        if let Some(why) = why {
                            let text = refusal_phrase(why, self.vocab());
                            self.say(listener, text, Urgency::Urgent, out);
                        }
                        let mut again = Vec::new();
                        if let Some((b, game)) = self.split(board) {
                            b.feed.detector_mut().resync(game, &mut again);
                        }
                        for c in again {
                            self.on_conclusion(board, now, c, out);
                        }
                    }
                }
            }
            Conclusion::Replicated { .. } => {
                if let Some(b) = self.board_mut(board) {
                    b.set_differs(false);
                }
                if board == BoardId::Peg {
                    let text = event_phrase(Event::MoveConfirmed, self.vocab());
                    self.say(listener, text, Urgency::Polite, out);
                }
            }
            Conclusion::PromotionPending { .. } => {
                let text = event_phrase(Event::PromotionRequest, self.vocab());
                self.say(listener, text, Urgency::Polite, out);
            }
            Conclusion::Illegal {
                corrections,
                reason,
            } => {
                // "Unzulässiger Zug: der König stünde im Schach", said once with the first
                // correction.
                let header = format!(
                    "{}: {}",
                    event_phrase(Event::IllegalMove, self.vocab()),
                    refusal_phrase(reason.spoken(), self.vocab())
                );
                self.start_guidance(board, header, &corrections, out);
            }
            Conclusion::Mismatch {
                corrections,
                unverifiable,
            } => {
                let header = self.word("board_mismatch");
                self.start_guidance(board, header, &corrections, out);
                if unverifiable {
                    out.event(TableEvent::Unverifiable { board });
                }
            }
            Conclusion::Takeback { .. } => {
                // A made move is taken back only by the arbiter (or an undo): the board is
                // told how to show the game again.
                let fixes = self.corrections_for(board);
                let header = self.word("board_mismatch");
                self.start_guidance(board, header, &fixes, out);
            }
            Conclusion::InSync => self.back_in_sync(board, out),
            Conclusion::ResultOffered { result } => {
                // Not a move and nothing to correct: the arbiter confirms it (`result`), or
                // the players put the kings back.
                if let Some(b) = self.board_mut(board) {
                    b.differs = true;
                }
                out.event(TableEvent::ResultOffered { board, result });
                let shown = match result.winner() {
                    Some(c) => event_phrase(Event::Wins(c), self.vocab()),
                    None => event_phrase(Event::Draw, self.vocab()),
                };
                let text = fill(&self.word("result_offered"), &[("result", &shown)]);
                self.say(Listener::Arbiter, text, Urgency::Polite, out);
            }
        }
    }

    /// The board that differed shows the game again: said once (`event in-sync`, "Brett
    /// stimmt wieder", and on the peg board the move it still owes), however the table and
    /// the detector both noticed it.
    fn back_in_sync(&mut self, board: BoardId, out: &mut Step) {
        let Some(b) = self.board_mut(board) else {
            return;
        };
        if !b.differs {
            return;
        }
        b.set_differs(false);
        out.event(TableEvent::InSync { board });
        let mut words = vec![self.word("board_correct")];
        if board == BoardId::Peg {
            words.extend(self.owed_phrase());
        }
        self.say(listener_of(board), words.join(". "), Urgency::Polite, out);
    }

    /// The board differs from the game: say so, with the first correction only; the next
    /// ones follow as the player makes them ([`Table::follow_guidance`]).
    fn start_guidance(
        &mut self,
        board: BoardId,
        header: String,
        fixes: &[Correction],
        out: &mut Step,
    ) {
        let first = fixes.first().copied();
        if let Some(b) = self.board_mut(board) {
            b.differs = true;
            b.guided = first;
        }
        let mut words = vec![header];
        words.extend(first.map(|c| crate::corrections::spoken(&c, self.vocab())));
        self.say(listener_of(board), words.join(". "), Urgency::Urgent, out);
        out.event(TableEvent::Guide {
            board,
            corrections: fixes.to_vec(),
        });
    }

    /// After a hand action on a board that differs: when the correction said last is done,
    /// say the next one; when nothing is left, say the board is right (and, if the board
    /// still owes the opponent's move, repeat it).
    fn follow_guidance(&mut self, board: BoardId, event: &SensorEvent, out: &mut Step) {
        let Some(b) = self.board(board) else {
            return;
        };
        if !b.differs {
            return;
        }
        // An occupancy board whose holes are the game's is right, whatever the hand guessed
        // on the way: its pegs are taken as the game's pieces (a guess that a bishop stands
        // where the game has the queen would otherwise ask for the queen for ever).
        if self
            .split(board)
            .is_some_and(|(b, game)| b.feed.detector_mut().take_as_game(game))
        {
            self.back_in_sync(board, out);
            return;
        }
        let Some(b) = self.board(board) else {
            return;
        };
        // Mid-gesture a lift is the first half of a move; only a removal ends with one.
        let acts = match event {
            SensorEvent::Lift(sq) => {
                matches!(b.guided, Some(Correction::Remove { square, .. }) if square == *sq)
            }
            SensorEvent::SquareChanged {
                piece: None,
                square,
            } => {
                matches!(b.guided, Some(Correction::Remove { square: s, .. }) if s == *square)
            }
            SensorEvent::Key(_) | SensorEvent::Identity(_) | SensorEvent::Clock(_) => false,
            _ => true,
        };
        if !acts {
            return;
        }
        let owed_ply = b.feed.detector().board_ply();
        let observed = b.feed.detector().observed();
        let fixes = self.corrections_for(board);
        let game = &self.state.game;
        let shows_owed_position = owed_ply < game.ply_count()
            && game
                .position_before(owed_ply)
                .is_some_and(|p| observed.matches(p.board()));
        if fixes.is_empty() || shows_owed_position {
            self.back_in_sync(board, out);
            return;
        }
        let first = fixes.first().copied();
        let changed = self.board(board).is_some_and(|b| b.guided != first);
        if changed {
            if let Some(b) = self.board_mut(board) {
                b.guided = first;
            }
            if let Some(c) = first {
                let text = crate::corrections::spoken(&c, self.vocab());
                self.say(listener_of(board), text, Urgency::Polite, out);
            }
        }
    }

    /// The fewest hand actions that make `board` show the game's position.
    pub(super) fn corrections_for(&self, board: BoardId) -> Vec<Correction> {
        let target = self.state.game.position().board().clone();
        match self.board(board) {
            Some(b) => {
                let d = b.feed.detector();
                corrections(&d.observed(), Some(d.believed()), &target)
            }
            None => Vec::new(),
        }
    }

    pub(super) fn link(&mut self, board: BoardId, up: bool, detail: &str, out: &mut Step) {
        let Some(b) = self.board_mut(board) else {
            return;
        };
        let was = b.connected;
        let again = b.ever_connected;
        b.connected = up;
        b.ever_connected |= up;
        if up {
            // Only a board seen before can have had a move made on it while away; at the
            // first connect its snapshot is compared with the game, nothing more.
            if again {
                b.feed.detector_mut().reconnected();
            }
            b.awaiting_snapshot = true;
            b.feed.discard_pending();
        }
        out.event(TableEvent::Link {
            board,
            up,
            detail: detail.to_owned(),
        });
        let listener = listener_of(board);
        if self.settings.correspondence.is_some() {
            // The desk's board comes and goes with the focus; the desk says what happens.
        } else if up && !was && again {
            let text = event_phrase(Event::BoardReconnected, self.vocab());
            self.say(listener, text, Urgency::Polite, out);
        } else if !up && was {
            let text = event_phrase(Event::BoardDisconnected, self.vocab());
            self.say(listener, text, Urgency::Urgent, out);
        }
    }

    /// A promotion piece chosen on the control interface: as if the peg board's key had been
    /// pressed. Returns whether the move was played.
    pub(super) fn choose_promotion(
        &mut self,
        now: Now,
        role: shakmaty::Role,
        out: &mut Step,
    ) -> bool {
        let mut found = Vec::new();
        let game = &self.state.game;
        self.peg
            .feed
            .detector_mut()
            .choose_promotion(game, role, &mut found);
        let before = self.state.game.ply_count();
        self.conclude(BoardId::Peg, now, found, out);
        self.state.game.ply_count() > before
    }

    /// Plays an accepted move: journal, clock, announcements.
    pub(super) fn play(
        &mut self,
        now: Now,
        m: Move,
        source: Source,
        out: &mut Step,
    ) -> Result<(), Refusal> {
        if let Some(end) = self.state.game.outcome() {
            return Err(Refusal::new(
                ErrorCode::State,
                format!("the game is over: {end}"),
            ));
        }
        if self.state.clock.is_paused() {
            return Err(Refusal::new(
                ErrorCode::State,
                "the arbiter has stopped the clocks; no move until they run again (resume)",
            ));
        }
        let before = self.state.game.position().clone();
        let mover = before.turn();
        let uci = self.uci(m);
        self.commit(now, Record::Move { uci, source }, out)
            .map_err(|e| Refusal::new(ErrorCode::Move, e))?;
        let mode = self.state.game.castling_mode();
        out.event(TableEvent::Move {
            ply: self.state.game.ply_count(),
            color: mover,
            uci: uci.to_string(),
            san: english_san(&before, mode, m),
            source,
            san_local: format_move(
                &before,
                mode,
                m,
                Notation::San,
                &Style::new(self.settings.lang),
            ),
            words: annabella_chess::phrases::move_phrase(&before, m, &self.style()),
            number: before.fullmoves().get(),
        });
        self.announce_move(&before, m, mover, now, out);
        self.announce_end(out);
        Ok(())
    }
}

/// English SAN for event lines, as the game's castling mode writes it.
fn english_san(before: &Chess, mode: shakmaty::CastlingMode, m: Move) -> String {
    format_move(
        before,
        mode,
        m,
        Notation::San,
        &Style::new(Language::english()),
    )
}
