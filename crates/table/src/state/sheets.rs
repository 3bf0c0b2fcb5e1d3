//! Two boards, two scoresheets (FIDE D.2.9) at a live table: entering or correcting a player's
//! sheet, a lagging sheet read out and confirmed or disputed, differing sheets proposed as a
//! takeback that the arbiter confirms, overrides or rejects, with the clocks put back. The
//! procedure's state and decisions are `two_sheets.rs`; here the table journals, reconciles
//! both boards and sheets, and says what was decided. Where the procedure stands (a lag, a
//! proposal) is journaled as `sheets-pending` whenever it changes, so it survives a restart.

use shakmaty::{Color, Move, Position};

use super::state;
use crate::control::{Refusal, Resolve, Role};
use crate::event::{About, BoardId, ResolutionEvent, TableEvent};
use crate::reconcile::{ClockRecord, ReconcileInput, Sheet, Side, read_sheet, reconcile};
use crate::record::Record;
use crate::state::two_sheets::{Decision, TwoSheets};
use crate::state::{Answer, Effect, Now, Reply, Step, Table};
use annabella_chess::game::Game;
use annabella_chess::language::Language;

impl Table {
    /// `record a|b MOVES`: a player's sheet entered or corrected, then compared.
    pub(super) fn record_sheet(
        &mut self,
        now: Now,
        role: Role,
        side: Side,
        moves: &str,
        lang: &Language,
        out: &mut Step,
    ) -> Reply {
        self.may_write_sheet(role, side)?;
        let start = Game::from_position(
            self.state.game.start_position().clone(),
            self.state.game.castling_mode(),
        );
        let sheet = read_sheet(side, moves, &start, lang);
        self.commit_sheet(now, side, &sheet.moves, out)?;
        let skipped = sheet.bad.as_ref().map(|bad| {
            format!(
                "ply {} ({}) {:?} is not kept: {}",
                bad.ply, bad.label, bad.token, bad.reason
            )
        });
        let verdict = self.reconcile_sheets(now, false, out);
        Ok(Answer::SheetRecorded {
            side,
            plies: sheet.moves.len(),
            skipped,
            verdict,
        })
    }

    /// `confirm a|b` (`accept`): the lagging player accepts the moves read out to him, which go
    /// on his sheet; `dispute a|b`: he does not, and the sheets are compared as they are.
    pub(super) fn answer_lag(
        &mut self,
        now: Now,
        role: Role,
        side: Side,
        accept: bool,
        out: &mut Step,
    ) -> Reply {
        self.may_write_sheet(role, side)?;
        self.state.sheets.expect_lag(side, accept)?;
        if accept {
            let other = self
                .state
                .sheets
                .written(Side::BOTH[1 - side.index()])
                .to_vec();
            self.commit_sheet(now, side, &other, out)?;
            let verdict = self.reconcile_sheets(now, false, out);
            Ok(Answer::SheetConfirmed { side, verdict })
        } else {
            let mut next = self.state.sheets.clone();
            next.disputed();
            self.commit_pending(now, &next, out);
            let verdict = self.reconcile_sheets(now, true, out);
            Ok(Answer::SheetDisputed { side, verdict })
        }
    }

    /// `resolve confirm|override N|reject`: the arbiter's decision on a proposed takeback.
    pub(super) fn resolve(&mut self, now: Now, choice: Resolve, out: &mut Step) -> Reply {
        let plies = match choice {
            Resolve::Reject => {
                let mut next = self.state.sheets.clone();
                if next.reject().is_none() {
                    return Err(state("no resolution is proposed"));
                }
                self.commit_pending(now, &next, out);
                out.event(TableEvent::Resolution(ResolutionEvent::Rejected));
                // Everyone was told "the arbiter decides": everyone hears the decision.
                let say = self.announcer.urgent_to_everyone("takeback_rejected");
                out.event(TableEvent::Say(say));
                return Ok(Answer::TakebackDropped);
            }
            Resolve::Confirm => {
                self.state
                    .sheets
                    .proposal()
                    .ok_or_else(|| state("no resolution is proposed"))?
                    .plies
            }
            Resolve::Override { plies } => plies,
        };
        let game_plies = self.state.game.ply_count();
        if plies > game_plies {
            return Err(state(format!(
                "the game has {game_plies} half-moves; no takeback to {plies}"
            )));
        }
        let retracted: Vec<String> = self.state.game.moves()[plies..]
            .iter()
            .map(|&m| self.uci(m).to_string())
            .collect();
        self.commit(now, Record::Retract { plies }, out)
            .map_err(state)?;
        let over = self.state.game.is_over();
        self.state_mut(out).end_reported = over;
        let r = self.state.clock.report(now.table_ms);
        out.event(TableEvent::Takeback {
            plies,
            retracted,
            white_ms: r.white_ms,
            black_ms: r.black_ms,
        });
        let mut say = self.announcer.urgent_to_everyone("takeback_done");
        // The audio record marks the moves from the first one taken back as withdrawn.
        if let Some(first) = self.state.game.position_before(plies) {
            say.about = About::Withdrawn {
                number: first.fullmoves().get(),
                color: first.turn(),
            };
        }
        out.event(TableEvent::Say(say));
        Ok(Answer::TakenBack {
            plies,
            white_ms: r.white_ms,
            black_ms: r.black_ms,
        })
    }

    /// Journals a player's sheet as these moves.
    fn commit_sheet(
        &mut self,
        now: Now,
        side: Side,
        moves: &[Move],
        out: &mut Step,
    ) -> Result<(), Refusal> {
        let moves = moves.iter().map(|&m| self.uci(m)).collect();
        self.commit(now, Record::Sheet { side, moves }, out)
            .map_err(state)
    }

    /// Who may write a player's sheet: his assistant, the arbiter, or the player himself.
    fn may_write_sheet(&self, role: Role, side: Side) -> Result<(), Refusal> {
        TwoSheets::may_write(role, side, self.settings.peg_side)
    }

    /// The D.2.9 procedure on both sheets and both boards as they are now: the resolution goes
    /// to the table's record; a lag is read out, a difference becomes a takeback proposal for
    /// the arbiter. Returns the verdict in a few words.
    pub(super) fn reconcile_sheets(
        &mut self,
        now: Now,
        lag_disputed: bool,
        out: &mut Step,
    ) -> String {
        if let Some(verdict) = self.sheets_to_correct(now, out) {
            return verdict;
        }
        let start = Game::from_position(
            self.state.game.start_position().clone(),
            self.state.game.castling_mode(),
        );
        let sheets = [
            Sheet::from_moves(self.state.sheets.written(Side::A).to_vec()),
            Sheet::from_moves(self.state.sheets.written(Side::B).to_vec()),
        ];
        let boards = [
            self.boards.reconcile_input(BoardId::Peg, &self.state.game),
            self.boards
                .reconcile_input(BoardId::Normal, &self.state.game),
        ];
        let plies_now = self.state.game.ply_count();
        let clocks = ClockRecord {
            used_now: [
                self.state.clock.used(Color::White, now.table_ms),
                self.state.clock.used(Color::Black, now.table_ms),
            ],
            plies_now,
            after_ply: (0..=plies_now)
                .map(|p| Some(self.state.used_after(p)))
                .collect(),
        };
        let input = ReconcileInput {
            start: &start,
            sheets: [&sheets[0], &sheets[1]],
            boards: [&boards[0], &boards[1]],
            languages: [self.settings.lang, self.settings.lang],
            clocks: Some(&clocks),
            lag_disputed,
        };
        let r = reconcile(&input);
        out.effects.push(Effect::Resolution {
            text: r.record(&input),
        });
        for line in &r.explanation {
            out.event(TableEvent::Explain { line: line.clone() });
        }
        let mut next = self.state.sheets.clone();
        let decision = next.decide(&r);
        self.commit_pending(now, &next, out);
        match &decision {
            Decision::Agree { plies } => {
                out.event(TableEvent::Resolution(ResolutionEvent::Agree {
                    plies: *plies,
                }));
            }
            Decision::Lagging {
                side,
                missing,
                read_out,
            } => {
                out.event(TableEvent::Resolution(ResolutionEvent::Lagging {
                    side: *side,
                    missing: missing.iter().map(|&m| self.uci(m).to_string()).collect(),
                }));
                let say = self.announcer.sheet_lags(*side, read_out);
                out.event(TableEvent::Say(say));
            }
            Decision::Differ { plies } => {
                let (white, black) = match &r.clocks {
                    Some(c) => (c.used[0], c.used[1]),
                    None => (0, 0),
                };
                out.event(TableEvent::Resolution(ResolutionEvent::Proposed {
                    plies: *plies,
                    retract_a: r.retracted_uci(Side::A),
                    retract_b: r.retracted_uci(Side::B),
                    used_white_ms: white,
                    used_black_ms: black,
                }));
                let say = self.announcer.urgent_to_everyone("sheets_differ");
                out.event(TableEvent::Say(say));
            }
        }
        decision.summary()
    }
}

impl Table {
    /// D.2.9 is about the boards: when both boards show the game and a sheet holds a move the
    /// game does not, the game is right and the sheet is a clerical error. Its writer is told
    /// which move to correct (in his language, to him alone); no takeback is proposed. `None`
    /// when a board differs from the game, or no sheet contradicts it (agreeing or lagging
    /// sheets go through the usual procedure).
    fn sheets_to_correct(&mut self, now: Now, out: &mut Step) -> Option<String> {
        if !self.boards.agree() {
            return None;
        }
        let wrong = self.state.sheets.wrong_entries(&self.state.game)?;
        if wrong.is_empty() {
            return None;
        }
        let mode = self.state.game.castling_mode();
        let mut verdict = Vec::new();
        for w in &wrong {
            let say = self.announcer.sheet_correction(w);
            out.event(TableEvent::Say(say));
            out.event(TableEvent::Explain {
                line: w.explanation(mode),
            });
            verdict.push(w.summary(mode));
        }
        let mut next = self.state.sheets.clone();
        next.settled();
        self.commit_pending(now, &next, out);
        Some(verdict.join("; "))
    }

    /// The procedure as `next` leaves it (a lag, a proposal, decided or withdrawn), journaled
    /// as `sheets-pending` when it changed: a restart finds the same procedure open.
    fn commit_pending(&mut self, now: Now, next: &TwoSheets, out: &mut Step) {
        let record = next.pending_record();
        if record == self.state.sheets.pending_record() {
            return;
        }
        if let Err(e) = self.commit(now, record, out) {
            out.event(TableEvent::JournalError {
                message: format!("the sheets' procedure could not be recorded: {e}"),
            });
        }
    }
}
