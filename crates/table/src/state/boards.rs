//! What the table does with its two boards (`board_pair.rs`): each released sensor event through
//! the board's detector, and what it concludes acted on — play the move, confirm a replication,
//! guide the player back one correction at a time — and link changes said to the board's
//! player. The peg board's keys are `keys.rs`.

use std::collections::VecDeque;

use shakmaty::{Chess, Move, Position};

use crate::control::{ErrorCode, Refusal};
use crate::corrections::{Correction, spoken_with_hand};
use crate::detector::Conclusion;
use crate::event::{BoardId, Listener, TableEvent, Urgency};
use crate::record::{Record, Source};
use crate::state::announcer::listener_of;
use crate::state::board_pair::Guidance;
use crate::state::{Now, Step, Table};
use annabella_boards::{SensorEvent, Timed};
use annabella_chess::language::Language;
use annabella_chess::notation::{Notation, Style, format_move};
use annabella_chess::phrases::{Event, RefusalReason, event_phrase, refusal_phrase};
use annabella_chess::vocabulary::fill;

impl Table {
    pub(super) fn feed(
        &mut self,
        board: BoardId,
        event: Timed<SensorEvent>,
        now: Now,
        out: &mut Step,
    ) {
        if !self.boards.push(board, event) {
            out.event(TableEvent::BoardError {
                board,
                message: "no such board at this table".to_owned(),
            });
            return;
        }
        self.drain(board, now, out);
    }

    /// Passes released events to the detector one at a time and acts on its conclusions.
    fn drain(&mut self, board: BoardId, now: Now, out: &mut Step) {
        for event in self.boards.released(board) {
            let snapshot = matches!(
                event.event,
                SensorEvent::Occupancy(_) | SensorEvent::Pieces(_)
            );
            let found = self.boards.detect(board, &self.state.game, &event);
            let quiet = found.is_empty();
            self.conclude(board, now, found, out);
            if quiet {
                self.follow_guidance(board, now, &event.event, out);
            }
            if snapshot && self.boards.snapshot_agrees(board) {
                out.event(TableEvent::InSync { board });
                // A board that connects already set up (a game begun at a restart, or one
                // whose set-up was done while the daemon was down) starts the clock.
                self.set_up_done(now, out);
            }
        }
    }

    pub(super) fn poll_boards(&mut self, now: Now, out: &mut Step) {
        for board in [BoardId::Peg, BoardId::Normal] {
            self.boards.poll_debouncer(board, now.table_ms);
            self.drain(board, now, out);
            let found = self.boards.poll(board, &self.state.game, now.table_ms);
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
                    let more = self.boards.poll(other, &self.state.game, now.table_ms);
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
        let clocked = self.boards.normal_has_clock();
        if game.is_over() || game.turn() != self.settings.peg_side || clocked {
            return false;
        }
        let Some(before) = game.position_before(game.ply_count() - 1) else {
            return false;
        };
        let untouched = self.boards.peg_shows(&before);
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
        let text = self.announcer.word("move_amended");
        self.say(Listener::BlindPlayer, text, Urgency::Polite, out);
        true
    }

    pub(super) fn on_conclusion(
        &mut self,
        board: BoardId,
        now: Now,
        c: Conclusion,
        out: &mut Step,
    ) {
        // A board that differs from the game at rest starts the two-sheet procedure (D.2.9):
        // with the sheets agreeing it only confirms whose board is wrong, for the record.
        let board_differs = matches!(
            c,
            Conclusion::Illegal { .. } | Conclusion::Mismatch { .. } | Conclusion::Takeback { .. }
        );
        self.react(board, now, c, out);
        if board_differs && !self.state.sheets.pending() {
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
                    let text = refusal_phrase(w.spoken(), self.announcer.vocab());
                    self.say(Listener::Arbiter, text, Urgency::Polite, out);
                }
                let source = match board {
                    BoardId::Peg => Source::Peg,
                    BoardId::Normal => Source::Normal,
                };
                // With a clock on the e-board, the sighted player's move was completed by his
                // press: the side whose time now runs is the blind player's.
                if board == BoardId::Normal
                    && let Some(reading) = self.boards.normal_clock()
                {
                    self.learn_clock_sides(&reading);
                }
                match self.play(now, m, source, out) {
                    // The board shows the move just played: whatever it was told to correct
                    // before is over (the move itself is what the player hears).
                    Ok(()) => {
                        if self.boards.shows_move(board) {
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
                            let text = refusal_phrase(why, self.announcer.vocab());
                            self.say(listener, text, Urgency::Urgent, out);
                        }
                        let again = self.boards.resync(board, &self.state.game);
                        for c in again {
                            self.on_conclusion(board, now, c, out);
                        }
                    }
                }
            }
            Conclusion::Replicated { .. } => {
                // The sighted player put a wrong copy right: he was told his board differed,
                // so he is told it is right again (the peg board hears "in Ordnung" below).
                if board == BoardId::Normal {
                    self.back_in_sync(board, now, out);
                }
                self.boards.set_differs(board, false);
                if board == BoardId::Peg {
                    let text = event_phrase(Event::MoveConfirmed, self.announcer.vocab());
                    self.say(listener, text, Urgency::Polite, out);
                }
            }
            Conclusion::PromotionPending { .. } => {
                let text = event_phrase(Event::PromotionRequest, self.announcer.vocab());
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
                    event_phrase(Event::IllegalMove, self.announcer.vocab()),
                    refusal_phrase(reason.spoken(), self.announcer.vocab())
                );
                let header = self.announcer.on_board(board, header);
                self.start_guidance(board, header, &corrections, out);
            }
            Conclusion::Mismatch {
                corrections,
                unverifiable,
            } => {
                let header = self.announcer.mismatch_words(board);
                self.start_guidance(board, header, &corrections, out);
                if unverifiable {
                    out.event(TableEvent::Unverifiable { board });
                }
            }
            Conclusion::Takeback { plies: 1 } if self.take_back_unsent(board, now, out) => {}
            Conclusion::Takeback { .. } => {
                // A made move is taken back only by the arbiter (or an undo): the board is
                // told how to show the game again.
                let fixes = self.boards.corrections(board, &self.state.game);
                let header = self.announcer.mismatch_words(board);
                self.start_guidance(board, header, &fixes, out);
            }
            Conclusion::InSync => self.back_in_sync(board, now, out),
            Conclusion::ResultOffered { result } => {
                // Not a move and nothing to correct: the arbiter confirms it (`result`), or
                // the players put the kings back.
                self.boards.set_differs(board, true);
                out.event(TableEvent::ResultOffered { board, result });
                let shown = match result.winner() {
                    Some(c) => event_phrase(Event::Wins(c), self.announcer.vocab()),
                    None => event_phrase(Event::Draw, self.announcer.vocab()),
                };
                let text = fill(
                    &self.announcer.word("result_offered"),
                    &[("result", &shown)],
                );
                self.say(Listener::Arbiter, text, Urgency::Polite, out);
            }
        }
    }

    /// The board that differed shows the game again: said once (`event in-sync`, "Brett
    /// stimmt wieder", and on the peg board the move it still owes), however the table and
    /// the detector both noticed it.
    fn back_in_sync(&mut self, board: BoardId, now: Now, out: &mut Step) {
        if !self.boards.back_in_sync(board) {
            return;
        }

        out.event(TableEvent::InSync { board });
        let owed = if board == BoardId::Peg {
            self.owed_phrase()
        } else {
            None
        };
        let say = self.announcer.board_correct(board, owed);
        out.event(TableEvent::Say(say));
        // A new game's clock that waited for the set-up starts now.
        self.set_up_done(now, out);
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
        // Judged again while it already differed (before the hand put it right): the same
        // words as last time are not said again.
        let again = self.boards.get(board).is_some_and(|b| b.differs);
        let first = self.boards.guide(board, fixes);
        if self.analysing(board) {
            // His move waits for `send` and he moves pieces to analyse: no corrections (the
            // desk guides the board back to the game after `KS`), once the words that he
            // analyses.
            if let Some(text) = self.analysis_words() {
                self.say(listener_of(board), text, Urgency::Polite, out);
            }
        } else {
            let words = first.map(|c| self.correction_words(board, &c));
            if let Some(say) = self.announcer.guide(board, header, words, again) {
                out.event(TableEvent::Say(say));
            }
        }
        out.event(TableEvent::Guide {
            board,
            corrections: fixes.to_vec(),
        });
    }

    /// After a hand action on a board that differs: when the correction said last is done,
    /// say the next one; when nothing is left, say the board is right (and, if the board
    /// still owes the opponent's move, repeat it).
    fn follow_guidance(&mut self, board: BoardId, now: Now, event: &SensorEvent, out: &mut Step) {
        match self.boards.follow(board, event, &self.state.game) {
            Guidance::Nothing => {}
            Guidance::InSync => self.back_in_sync(board, now, out),
            Guidance::Next(_) if self.analysing(board) => {}
            Guidance::Next(c) => {
                let words = self.correction_words(board, &c);
                if let Some(say) = self.announcer.next_correction(board, words) {
                    out.event(TableEvent::Say(say));
                }
            }
        }
    }

    /// A correction in `board`'s player's words: a piece still in his hand is asked back.
    pub(super) fn correction_words(&self, board: BoardId, c: &Correction) -> String {
        let detector = self.boards.get(board).map(|b| b.feed.detector());
        spoken_with_hand(c, self.announcer.vocab(), |p| {
            detector.is_some_and(|d| d.holds(p))
        })
    }

    pub(super) fn link(&mut self, board: BoardId, up: bool, detail: &str, out: &mut Step) {
        let Some(news) = self.boards.link(board, up) else {
            return;
        };
        out.event(TableEvent::Link {
            board,
            up,
            detail: detail.to_owned(),
        });
        if let Some(say) = self.announcer.link(board, news) {
            out.event(TableEvent::Say(say));
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
        let found = self.boards.choose_promotion(&self.state.game, role);
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
            let why = if self.state.setup_hold {
                "the clock waits until the boards show the game's start position (or the \
                 arbiter's resume); no move before"
            } else {
                "the arbiter has stopped the clocks; no move until they run again (resume)"
            };
            return Err(Refusal::new(ErrorCode::State, why));
        }
        let before = self.state.game.position().clone();
        let mover = before.turn();
        let uci = self.uci(m);
        self.commit(now, Record::Move { uci, source }, out)
            .map_err(|e| Refusal::new(ErrorCode::Move, e.to_string()))?;
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
            words: annabella_chess::phrases::move_phrase(&before, m, &self.announcer.style()),
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
