//! Control requests at a table (`docs/control-protocol.md`): who may ask, then one function per
//! kind of request. A request that journals something goes through `Table::commit`, so it is
//! either recorded and applied or neither.

use shakmaty::{Color, Position};

use super::state;
use crate::control::{ErrorCode, Refusal, Role, TableRequest as Command, permitted};
use crate::event::{About, Listener, TableEvent, Urgency};
use crate::record::{Record, Source};
use crate::state::words::color_name;
use crate::state::{Answer, Effect, Now, Reply, Step, Table};
use annabella_chess::game::{EndReason, GameResult};
use annabella_chess::language::Language;
use annabella_chess::notation::numbered::{split_number, wrong_number};
use annabella_chess::notation::{Notation, Style, Verbosity, format_move, parse_move};
use annabella_chess::phrases::{Event, event_phrase, move_phrase};

fn bad_move(e: impl ToString) -> Refusal {
    Refusal::new(ErrorCode::Move, e.to_string())
}

impl Table {
    /// Answers one request: the role's permission first (with the side to move, or for
    /// `undo` the side that moved last), then the request itself.
    pub(super) fn answer(
        &mut self,
        now: Now,
        role: Role,
        lang: &Language,
        command: &Command,
        out: &mut Step,
    ) -> Reply {
        let turn = self.state.game.turn();
        let side = if *command == Command::Undo {
            !turn
        } else {
            turn
        };
        permitted(role, command, side)?;
        match command {
            Command::Move { text } => self.move_request(now, role, text, lang, out),
            Command::MailMove {
                text,
                arrived_unix_ms,
            } => {
                // Counted from its arrival, never before the game's last step nor after now.
                let floor = self
                    .state
                    .plies
                    .last()
                    .map_or(self.state.began_at_unix_ms, |p| p.unix_ms)
                    .min(now.unix_ms);
                let at = Now {
                    unix_ms: (*arrived_unix_ms).clamp(floor, now.unix_ms),
                    ..now
                };
                self.move_request(at, role, text, lang, out)
            }
            Command::Board => Ok(Answer::Position {
                fen: self.state.game.fen(),
            }),
            Command::BoardAt { ply } => match self.state.game.position_before(*ply) {
                Some(position) => Ok(Answer::Position {
                    fen: shakmaty::fen::Fen::from_position(
                        &position,
                        shakmaty::EnPassantMode::Legal,
                    )
                    .to_string(),
                }),
                None => Err(Refusal::new(
                    ErrorCode::Syntax,
                    format!(
                        "the game has {} half-moves; board takes 0 to {}",
                        self.state.game.ply_count(),
                        self.state.game.ply_count()
                    ),
                )),
            },
            Command::Clock | Command::ClockQuiet => {
                Ok(self.clock_request(now, role, *command == Command::Clock, out))
            }
            Command::Sheet => Ok(Answer::Moves(self.movetext(lang))),
            Command::Status => Ok(Answer::Status(self.status())),
            Command::View => Ok(Answer::View(Box::new(self.page_view()))),
            Command::OfferDraw => self.offer_draw(now, role, out),
            Command::ClaimDraw { intended } => {
                self.claim_draw(now, role, intended.as_deref(), lang, out)
            }
            Command::Resign => self.resign(now, role, out),
            Command::Undo => self.undo(now, role, out),
            Command::Send => self.send(now, role, out),
            Command::Message => self.message(role, out),
            Command::Comment { text } => self.comment(now, text, out),
            Command::MyMessage { text } => self.my_message(now, role, text, out),
            Command::ClaimTime => self.claim_time(now, role, out),
            Command::Adjust { color, delta_ms } => self.adjust(now, *color, *delta_ms, out),
            Command::Penalty { color } => self.penalty(now, *color, out),
            Command::Result { result } => self.declare_result(now, *result, out),
            Command::Pause => self.pause_or_resume(now, false, out),
            Command::Resume => self.pause_or_resume(now, true, out),
            Command::SheetOf { side } => Ok(Answer::Moves(self.sheet_text(*side, lang))),
            Command::Boards => Ok(Answer::Boards(self.boards_view())),
            Command::Record { side, moves } => {
                self.record_sheet(now, role, *side, moves, lang, out)
            }
            Command::Confirm { side } => self.answer_lag(now, role, *side, true, out),
            Command::Dispute { side } => self.answer_lag(now, role, *side, false, out),
            Command::Resolve { choice } => self.resolve(now, *choice, out),
            Command::Parse { text } => self.parse_request(text, lang),
            Command::Export { format } => Ok(Answer::Export {
                text: self.export(*format, lang),
            }),
            Command::Promote { piece } => Ok(self.promote(now, *piece, out)),
            Command::NewGame { fen, game_id } => {
                self.new_game(now, fen.as_deref(), game_id.as_deref(), out)
            }
            Command::Tag { tag, value } => self.set_tag(now, *tag, value, out),
            Command::Leave { color, from, to } => self.leave(now, role, *color, from, to, out),
            // A lichess table's adapter answers these before the table sees them.
            Command::Seek { .. } | Command::CancelSeek | Command::Challenge { .. } => Err(state(
                "seek and challenge are for a lichess table (kind = \"lichess\")",
            )),
        }
    }

    pub(super) fn running(&self) -> Result<(), Refusal> {
        match self.state.game.outcome() {
            Some(end) => Err(state(format!("the game is over: {end}"))),
            None => Ok(()),
        }
    }

    /// `move TEXT`: a move in any notation, read in the connection's language.
    fn move_request(
        &mut self,
        now: Now,
        role: Role,
        text: &str,
        lang: &Language,
        out: &mut Step,
    ) -> Reply {
        self.running()?;
        let mode = self.state.game.castling_mode();
        let before = self.state.game.position().clone();
        let text = self.numbered_move_text(text, lang)?;
        let m = parse_move(&before, mode, text, None, lang).map_err(bad_move)?;
        self.play(now, m, Source::Control(role), out)?;
        let mut letters = Style::new(lang);
        letters.verbosity = Verbosity::Short;
        Ok(Answer::Played {
            uci: self.uci(m).to_string(),
            san: format_move(&before, mode, m, Notation::San, &letters),
        })
    }

    /// The move in a `move` request written with its number (`16. 4244`, `16... 4842`, or both
    /// moves of the number, `16. 4244 4842`, the first being the one already played): the
    /// number is checked against the game, and the text of the move to play is returned.
    fn numbered_move_text<'t>(&self, text: &'t str, lang: &Language) -> Result<&'t str, Refusal> {
        let written = split_number(text).map_err(bad_move)?;
        let Some((number, color)) = written.number else {
            return Ok(written.rest);
        };
        let game = (self.state.game.fullmove_number(), self.state.game.turn());
        if (number, color) == game {
            return Ok(written.rest);
        }
        // `16. 4244 4842` at Black's 16th: White's move as recorded, then Black's to play.
        if color == Color::White
            && game == (number, Color::Black)
            && let Some((first, second)) = written.rest.split_once(char::is_whitespace)
        {
            let last = self.state.game.ply_count().checked_sub(1);
            let (Some(pos), Some(&played)) = (
                last.and_then(|ply| self.state.game.position_before(ply)),
                self.state.game.moves().last(),
            ) else {
                return Err(bad_move(wrong_number((number, color), game)));
            };
            let mode = self.state.game.castling_mode();
            let recorded = parse_move(&pos, mode, first, None, lang).map_err(bad_move)?;
            if recorded != played {
                return Err(bad_move(format!(
                    "white's move {number} was {}, not {first}",
                    format_move(&pos, mode, played, Notation::Iccf, &Style::new(lang))
                )));
            }
            return Ok(second.trim());
        }
        Err(bad_move(wrong_number((number, color), game)))
    }

    /// `clock`: both clocks; spoken to the blind player when he or his assistant asks (D.2.10:
    /// the assistant tells him on request). `clock quiet` is never spoken.
    fn clock_request(&mut self, now: Now, role: Role, spoken: bool, out: &mut Step) -> Answer {
        let r = self.state.clock.report(now.table_ms);
        let for_blind_player = matches!(role, Role::Player(c) if c == self.settings.peg_side)
            || role == Role::Assistant;
        if spoken && for_blind_player {
            let words = self.clock_words(now);
            self.say(Listener::BlindPlayer, words, Urgency::Polite, out);
        }
        Answer::Clock {
            white_ms: r.white_ms,
            black_ms: r.black_ms,
            moves: r.moves_played,
            running: r.running,
        }
    }

    /// The side a draw offer or resignation from `role` is made for.
    fn side_of(&self, role: Role) -> Color {
        match role {
            Role::Player(c) => c,
            // The assistant serves the blind player (D.2.10).
            Role::Assistant => self.settings.peg_side,
            // The arbiter records an offer for the side that has just moved (9.1.2.1).
            _ => !self.state.game.turn(),
        }
    }

    /// `offer-draw`: an offer, or the agreement when the other side's offer stands.
    fn offer_draw(&mut self, now: Now, role: Role, out: &mut Step) -> Reply {
        self.running()?;
        let color = self.side_of(role);
        if self.state.draw_offer == Some(!color) {
            self.commit(now, Record::DrawAgreed, out).map_err(state)?;
            self.announce_end(out);
            return Ok(Answer::DrawAgreed);
        }
        self.commit(now, Record::DrawOffer { color }, out)
            .map_err(state)?;
        out.event(TableEvent::DrawOffer { color });
        let text = event_phrase(Event::DrawOffer(color), self.announcer.vocab());
        self.say(Listener::Everyone, text, Urgency::Polite, out);
        Ok(Answer::DrawOffered { by: color })
    }

    /// `claim-draw [MOVE]`: a correct claim ends the game; a wrong one costs penalty time.
    fn claim_draw(
        &mut self,
        now: Now,
        role: Role,
        intended: Option<&str>,
        lang: &Language,
        out: &mut Step,
    ) -> Reply {
        self.running()?;
        let claimant = self.state.game.turn();
        if let Role::Player(c) = role
            && c != claimant
        {
            return Err(Refusal::new(
                ErrorCode::Forbidden,
                format!(
                    "only the player to move ({}) may claim a draw",
                    color_name(claimant)
                ),
            ));
        }
        let mode = self.state.game.castling_mode();
        let m = match intended {
            Some(text) => Some(
                parse_move(self.state.game.position(), mode, text, None, lang).map_err(bad_move)?,
            ),
            None => None,
        };
        match self.state.game.claim_draw(m) {
            Ok(reason) => {
                let intended = m.map(|m| self.uci(m));
                self.commit(now, Record::Claim { intended }, out)
                    .map_err(state)?;
                self.announce_end(out);
                Ok(Answer::DrawByClaim {
                    reason: reason.to_string(),
                })
            }
            Err(why) => {
                self.commit(now, Record::WrongClaim { color: claimant }, out)
                    .map_err(state)?;
                out.event(TableEvent::WrongClaim {
                    color: claimant,
                    why: why.to_string(),
                });
                Err(state(format!(
                    "claim refused: {why}; {} gets the penalty time (FIDE 9.5.3)",
                    color_name(!claimant)
                )))
            }
        }
    }

    fn resign(&mut self, now: Now, role: Role, out: &mut Step) -> Reply {
        self.running()?;
        let color = match role {
            Role::Player(c) => c,
            Role::Assistant => self.settings.peg_side,
            _ => self.state.game.turn(),
        };
        self.commit(now, Record::Resign { color }, out)
            .map_err(state)?;
        self.announce_end(out);
        Ok(Answer::Resigned { by: color })
    }

    /// `undo`: a slip of the tongue (D.2.8), the last move withdrawn and its time given back.
    ///
    /// A game the position decided (mate, stalemate, a dead position, fivefold repetition, the
    /// 75-move rule) is over: a player's `undo` is refused. Only the arbiter may reopen it
    /// (a wrong mate on the board, 7.5); everyone then hears that the game goes on, and the
    /// archive is rewritten with the game as it now stands (result `*`), to be replaced when
    /// it finishes again (the actor archives on every [`Effect::Finished`], to the same file
    /// while the table plays the same game).
    fn undo(&mut self, now: Now, role: Role, out: &mut Step) -> Reply {
        let game = &self.state.game;
        let Some(&last) = game.moves().last() else {
            return Err(state("no move to withdraw"));
        };
        if game.outcome().is_some_and(|e| declared(e.reason)) {
            return Err(state(
                "the game was ended by a declaration; only the arbiter can reopen it",
            ));
        }
        if role != Role::Arbiter && self.released_move_of_his() {
            return Err(self.refuse_undo_sent(role, out));
        }
        let game = &self.state.game;
        let reopens = game.is_over();
        if reopens && role != Role::Arbiter {
            // Not now rather than not you: the game is over (docs/control-protocol.md).
            return Err(state(
                "the game is over, decided on the board; only the arbiter may reopen it",
            ));
        }
        let before = game
            .position_before(game.ply_count() - 1)
            .ok_or_else(|| state("no move to withdraw"))?;
        self.commit(now, Record::Undo, out).map_err(state)?;
        let over = self.state.game.is_over();
        self.state_mut(out).end_reported = over;
        let uci = self.uci(last).to_string();
        out.event(TableEvent::Undo { uci: uci.clone() });
        let withdrawn = move_phrase(&before, last, &self.announcer.style());
        let mut text = format!("{}: {withdrawn}", self.announcer.word("move_withdrawn"));
        if reopens {
            text = format!("{text}. {}", self.announcer.word("game_continues"));
            out.effects.push(Effect::Finished { pgn: self.pgn() });
        }
        let about = About::Withdrawn {
            number: before.fullmoves().get(),
            color: before.turn(),
        };
        self.say_about(Listener::Everyone, text, Urgency::Urgent, about, out);
        Ok(Answer::Withdrawn { uci })
    }

    /// `adjust COLOR ±TIME`: the arbiter changes a clock.
    fn adjust(&mut self, now: Now, color: Color, delta_ms: i64, out: &mut Step) -> Reply {
        self.commit(now, Record::Adjust { color, delta_ms }, out)
            .map_err(state)?;
        let left = self.state.clock.remaining(color, now.table_ms);
        out.event(TableEvent::ClockAdjusted {
            color,
            delta_ms,
            remaining_ms: left,
        });
        Ok(Answer::ClockAdjusted {
            color,
            remaining_ms: left,
        })
    }

    /// `result RESULT`: the arbiter declares the result, such as one a player showed on the
    /// e-board with DGT's kings gesture; the game ends with it and everyone hears it.
    fn declare_result(&mut self, now: Now, result: GameResult, out: &mut Step) -> Reply {
        self.running()?;
        self.commit(now, Record::Result { result }, out)
            .map_err(state)?;
        self.announce_end(out);
        Ok(Answer::ResultDeclared { result })
    }

    /// `penalty COLOR`: an illegal move completed (7.5.5).
    fn penalty(&mut self, now: Now, color: Color, out: &mut Step) -> Reply {
        self.running()?;
        if self.settings.days.is_some() {
            // A correspondence game: the sender of an illegal or ambiguous move is charged
            // its rules' days (BCA: one), not the over-the-board penalty time.
            self.commit(now, Record::DayPenalty { color }, out)
                .map_err(state)?;
            let r = self.day_reading(now.unix_ms);
            let used = |c: Color| r.as_ref().map_or(0, |r| r.side(c).used_days);
            return Ok(Answer::DaysCharged {
                by: color,
                total_days: [used(Color::White), used(Color::Black)],
            });
        }
        self.commit(now, Record::Penalty { color }, out)
            .map_err(state)?;
        out.event(TableEvent::Penalty {
            color,
            count: self.state.illegal_moves[color as usize],
        });
        if self.state.game.is_over() {
            self.announce_end(out);
            Ok(Answer::SecondIllegalMove { by: color })
        } else {
            Ok(Answer::PenaltyTime {
                by: color,
                opponent_ms: self.state.clock.remaining(!color, now.table_ms),
            })
        }
    }

    /// `pause` / `resume`: the arbiter stops or restarts the clocks.
    fn pause_or_resume(&mut self, now: Now, running: bool, out: &mut Step) -> Reply {
        self.running()?;
        let record = if running {
            Record::Resume
        } else {
            Record::Pause
        };
        // The arbiter's word ends a wait for the set-up (issue 24) either way: his `resume`
        // starts the clock, his `pause` makes the stop his (`GameState::apply`).
        self.commit(now, record, out).map_err(state)?;
        out.event(TableEvent::ClockRunning { running });
        Ok(Answer::ClockRunning { running })
    }

    /// `parse TEXT`: what the table would understand, without playing it.
    fn parse_request(&self, text: &str, lang: &Language) -> Reply {
        let pos = self.state.game.position();
        let mode = self.state.game.castling_mode();
        let m = parse_move(pos, mode, text, None, lang).map_err(bad_move)?;
        let mut style = Style::new(lang);
        style.verbosity = self.settings.verbosity;
        Ok(Answer::Parsed {
            uci: self.uci(m).to_string(),
            san: format_move(pos, mode, m, Notation::San, &Style::new(lang)),
            spoken: move_phrase(pos, m, &style),
        })
    }

    /// `promote PIECE`: the piece for a pending promotion, or for the next one.
    fn promote(&mut self, now: Now, piece: shakmaty::Role, out: &mut Step) -> Answer {
        let played = self.choose_promotion(now, piece, out);
        match self.state.game.moves().last() {
            Some(&m) if played => Answer::Promoted {
                uci: self.uci(m).to_string(),
            },
            _ => Answer::PromotionChosen { piece },
        }
    }
}

/// Ends somebody declared (rather than the position forcing them): a slip of the tongue
/// cannot undo those.
fn declared(reason: EndReason) -> bool {
    matches!(
        reason,
        EndReason::Agreement
            | EndReason::Resignation { .. }
            | EndReason::Timeout { .. }
            | EndReason::Claim(_)
            | EndReason::ArbiterDecision
    )
}
