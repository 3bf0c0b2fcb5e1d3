//! The table's answers to the peg board's keys (`docs/peg-protocol.md`; what a press means is
//! `key_strip.rs`): to the blind player only and in the table's language, so that he can do at the board what
//! would otherwise need a second person: hear the last moves and the clock (FIDE D.2.6.1 asks
//! for "the time and number of moves"), offer, accept or claim a draw, resign, confirm his
//! scoresheet, and declare his board set up.
//!
//! The keys that change the game go through the same request functions as the control
//! interface, with the blind player's role (`Role::Player(peg_side)`), so a key can do exactly
//! what he may ask for there and is judged, journaled and announced the same way.

use shakmaty::Position;

use crate::control::{Refusal, Role, TableRequest as Command};
use crate::corrections::Observed;
use crate::event::{About, BoardId, Listener, TableEvent, Urgency};
use crate::reconcile::Side;
use crate::state::key_strip::{KeyAnswer, KeyContext, KeyRequest, KeyWord};
use crate::state::{Answer, Now, Step, Table};
use annabella_boards::BoardKey;
use annabella_chess::game::ClaimRefused;
use annabella_chess::phrases::{color_phrase, duration_phrase, fill_count, move_count_phrase};

impl Table {
    /// A key on the peg board's strip. Returns `false` for the keys the detector reads (the
    /// promotion choice), which then go to the board's feed like any sensor event.
    pub(super) fn key(&mut self, now: Now, key: BoardKey, out: &mut Step) -> bool {
        if self.correspondence_key(now, key, out) {
            return true;
        }
        let game = &self.state.game;
        let at = KeyContext {
            now_ms: now.table_ms,
            plies: game.ply_count(),
            owed_ply: self.boards.peg.feed.detector().board_ply(),
            differs: self.boards.peg.differs,
            over: game.is_over(),
            his_turn: game.turn() == self.settings.peg_side,
            sheet_lags: self.state.sheets.lagging() == Some(Side::A),
        };
        let answer = self.keys.press(key, at);
        if let KeyAnswer::Promotion(role) = answer {
            // A pawn waiting for its piece: the move it concludes is the answer. Otherwise the
            // key is still fed to the detector (which keeps a choice made in advance), and the
            // blind player hears what became of it rather than silence.
            let detector = self.boards.peg.feed.detector();
            if detector.pending_promotion().is_none() {
                out.event(TableEvent::Key(key));
                let text = if detector.preselects_promotion() {
                    let piece = self.announcer.vocab().piece(role).to_owned();
                    self.announcer
                        .fill("key_promotion_chosen", &[("piece", &piece)])
                } else {
                    self.announcer.word("key_no_promotion")
                };
                self.tell(text, out);
            }
            return false;
        }
        out.event(TableEvent::Key(key));
        match answer {
            KeyAnswer::Promotion(_) => {}
            KeyAnswer::LastSaid => {
                // While his board is being corrected, the pending instruction is what he
                // needs again (not the last move, nor a word said since).
                // The words he was told it in (with what is wrong) when they were the last.
                let pending = self.boards.peg.guided.filter(|_| self.boards.peg.differs);
                let pending = pending.map(|c| {
                    // As the board now stands: a peg it named may since have become one the
                    // holes cannot name (a peg put back while the piece was in his hand).
                    let now = self.boards.corrections(BoardId::Peg, &self.state.game);
                    let c = now.into_iter().find(|n| same_hands(n, &c)).unwrap_or(c);
                    self.correction_words(BoardId::Peg, &c)
                });
                let text = match (pending, self.announcer.last_to_blind()) {
                    (Some(words), Some(said)) if said.ends_with(&words) => said.to_owned(),
                    // On a shared output it says whose board, as the guidance did.
                    (Some(words), _) => self.announcer.on_board(BoardId::Peg, words),
                    (None, Some(said)) => said.to_owned(),
                    (None, None) => self.last_move_words(),
                };
                self.tell(text, out);
            }
            KeyAnswer::Time => self.key_time(now, out),
            KeyAnswer::OwnTime => {
                let left = self
                    .state
                    .clock
                    .remaining(self.settings.peg_side, now.table_ms);
                let time = self
                    .side_days_words(self.settings.peg_side, now.unix_ms)
                    .unwrap_or_else(|| duration_phrase(left, self.announcer.vocab()));
                let text = self.announcer.fill("key_own_time", &[("time", &time)]);
                self.tell_time(text, out);
            }
            KeyAnswer::Move(ply) => {
                // Always a move of the game: the words are there.
                let text = self
                    .announcer
                    .numbered_move(&self.state.game, ply)
                    .unwrap_or_else(|| self.announcer.word(KeyWord::HistoryStart.key()));
                self.tell(text, out);
            }
            KeyAnswer::SetUp => self.key_set_up(now, out),
            KeyAnswer::Request(KeyRequest::OfferDraw) => {
                // His offer, or the agreement when the opponent's offer stands, is announced
                // to both players by the request itself.
                if let Err(r) = self.as_blind_player(now, &Command::OfferDraw, out) {
                    self.refused(r, out);
                }
            }
            KeyAnswer::Request(KeyRequest::ClaimDraw) => self.key_claim(now, out),
            KeyAnswer::Request(KeyRequest::Resign) => {
                // Announced to both by the request.
                if let Err(r) = self.as_blind_player(now, &Command::Resign, out) {
                    self.refused(r, out);
                }
            }
            KeyAnswer::Request(KeyRequest::ConfirmSheet) => self.key_confirm_sheet(now, out),
            KeyAnswer::Say(word) => {
                let text = self.announcer.word(word.key());
                self.tell(text, out);
            }
        }
        true
    }

    /// The keys that mean something else at a correspondence table: `KS` sends his move (with
    /// the confirm step), `KC` claims the game on time when the opponent's days are over, `KM`
    /// reads the opponent's comment (at any table: none at a board). Returns whether it was
    /// one of them.
    fn correspondence_key(&mut self, now: Now, key: BoardKey, out: &mut Step) -> bool {
        let by_mail = self.settings.correspondence.is_some();
        match key {
            // A server judges claims (and keeps the days): the server desk checks the grounds,
            // sends the claim or says why not; the table's game goes on until the server's
            // result.
            BoardKey::Claim if self.settings.claims_to_server => out.event(TableEvent::Key(key)),
            BoardKey::ConfirmSheet if by_mail && self.settings.confirm_send => {
                out.event(TableEvent::Key(key));
                self.key_send(now, out);
            }
            BoardKey::Claim
                if by_mail && self.days_exceeded(now.unix_ms) == Some(!self.settings.peg_side) =>
            {
                out.event(TableEvent::Key(key));
                let role = Role::Player(self.settings.peg_side);
                if let Err(r) = self.claim_time(now, role, out) {
                    self.refused(r, out);
                }
            }
            BoardKey::Message => {
                out.event(TableEvent::Key(key));
                self.say_message(out);
            }
            // The server's adapter claims the win (or says why not) when it sees the key.
            BoardKey::Claim if self.settings.server_game => out.event(TableEvent::Key(key)),
            _ => return false,
        }
        true
    }

    /// Says `text` to the blind player: every answer to a key is his alone.
    fn tell(&mut self, text: String, out: &mut Step) {
        self.say(Listener::BlindPlayer, text, Urgency::Polite, out);
    }

    /// Tells him the clocks' times: words a clock call makes stale (`About::TimeAnswer`).
    fn tell_time(&mut self, text: String, out: &mut Step) {
        self.say_about(
            Listener::BlindPlayer,
            text,
            Urgency::Polite,
            About::TimeAnswer,
            out,
        );
    }

    /// The game's last move numbered, or that there is none.
    fn last_move_words(&self) -> String {
        let game = &self.state.game;
        game.ply_count()
            .checked_sub(1)
            .and_then(|last| self.announcer.numbered_move(game, last))
            .unwrap_or_else(|| self.announcer.word(KeyWord::NoMove.key()))
    }

    /// `KT`: both clocks and the moves played, whose turn, and the moves he still has to
    /// make before his next time control (FIDE D.2.6.1).
    fn key_time(&mut self, now: Now, out: &mut Step) {
        let mut parts = vec![self.clock_words(now)];
        // In his time trouble (the terse style) the times alone: every second he listens is
        // a second off his clock.
        if self.terse(now) {
            self.tell_time(parts.remove(0), out);
            return;
        }
        if !self.state.game.is_over() {
            let color = color_phrase(self.state.game.turn(), self.announcer.vocab());
            parts.push(self.announcer.fill("key_turn", &[("color", &color)]));
        }
        // A server's game (lichess) has no move period: its clocks are the server's, and the
        // table's configured control, which may have one, says nothing about it.
        let to_control = self.state.clock.moves_to_control(self.settings.peg_side);
        if let Some(n) = to_control.filter(|_| !self.settings.server_game) {
            let moves = move_count_phrase(n, self.announcer.vocab());
            parts.push(self.announcer.fill("key_to_control", &[("moves", &moves)]));
        }
        self.tell_time(parts.join(". "), out);
    }

    /// A request made with the blind player's role, as the control interface's player would.
    fn as_blind_player(
        &mut self,
        now: Now,
        command: &Command,
        out: &mut Step,
    ) -> Result<Answer, Refusal> {
        let role = Role::Player(self.settings.peg_side);
        let lang = self.settings.lang;
        self.answer(now, role, lang, command, out)
    }

    /// A refused key request: the reason in English for the record, in words for him.
    pub(super) fn refused(&mut self, refusal: Refusal, out: &mut Step) {
        out.event(TableEvent::Refused {
            board: BoardId::Peg,
            reason: refusal.message,
        });
        let key = if self.state.game.is_over() {
            "key_game_over"
        } else {
            "key_not_possible"
        };
        let text = self.announcer.word(key);
        self.tell(text, out);
    }

    /// `KC` on his turn (or after the end): `claim-draw` on the position as it stands (9.2.1.2, 9.3.2). A correct claim ends
    /// the game (announced to both); a wrong one is explained to him, with the time his
    /// opponent receives for it (9.5.3).
    fn key_claim(&mut self, now: Now, out: &mut Step) {
        let claimant = self.state.game.turn();
        let grounds = self.state.game.claim_draw(None);
        let before = self.state.clock.remaining(!claimant, now.table_ms);
        let command = Command::ClaimDraw { intended: None };
        let Err(refusal) = self.as_blind_player(now, &command, out) else {
            return;
        };
        let Err(ClaimRefused::NoGrounds { halfmoves, .. }) = grounds else {
            self.refused(refusal, out);
            return;
        };
        let after = self.state.clock.remaining(!claimant, now.table_ms);
        let v = self.announcer.vocab();
        let moves = move_count_phrase(halfmoves / 2, v);
        let mut words = vec![
            self.announcer
                .fill("key_claim_refused", &[("moves", &moves)]),
        ];
        if after > before {
            let color = color_phrase(!claimant, v);
            let time = duration_phrase(after - before, v);
            words.push(
                self.announcer
                    .fill("key_claim_penalty", &[("color", &color), ("time", &time)]),
            );
        }
        self.tell(words.join(". "), out);
    }

    /// `KS` while his sheet lags: `confirm a`, his sheet (a) taking the moves read out to him.
    fn key_confirm_sheet(&mut self, now: Now, out: &mut Step) {
        match self.as_blind_player(now, &Command::Confirm { side: Side::A }, out) {
            Ok(_) => {
                let text = self.announcer.word("key_sheet_confirmed");
                self.tell(text, out);
            }
            Err(r) => self.refused(r, out),
        }
    }

    /// `KZ`: "my board is set up". When the occupied holes are exactly the game's, the pegs are
    /// taken as the game's pieces (whatever the detector believed before: a belief lost after
    /// moves made out of sync can otherwise keep him correcting a board that is right);
    /// otherwise he hears how many holes differ and the first correction.
    fn key_set_up(&mut self, now: Now, out: &mut Step) {
        let Observed::Occupancy(occupied) = self.boards.peg.feed.detector().observed() else {
            // The peg board is an occupancy board; nothing else reaches this key.
            return;
        };
        let target = self.state.game.position().board().occupied();
        let differing = (occupied ^ target).count();
        if differing == 0 {
            self.boards
                .adopt_game_on_peg(&self.state.game, self.settings.debounce_ms);
            out.event(TableEvent::InSync {
                board: BoardId::Peg,
            });
            let text = self.announcer.word("key_setup_taken");
            self.tell(text, out);
            self.set_up_done(now, out);
            return;
        }
        let mut words = vec![if differing == 1 {
            self.announcer.word("key_setup_differs_one")
        } else {
            let template = self.announcer.word("key_setup_differs");
            fill_count(&template, differing as u64, self.announcer.vocab())
        }];
        let fixes = self.boards.corrections(BoardId::Peg, &self.state.game);
        words.extend(
            fixes
                .first()
                .map(|c| self.correction_words(BoardId::Peg, c)),
        );
        self.tell(words.join(". "), out);
    }
}

/// Two corrections ask for the same hand action, whatever piece each names.
fn same_hands(a: &crate::corrections::Correction, b: &crate::corrections::Correction) -> bool {
    use crate::corrections::Correction::{Move, Place, Remove};
    match (*a, *b) {
        (Move { from, to, .. }, Move { from: f, to: t, .. }) => from == f && to == t,
        (Remove { square, .. }, Remove { square: s, .. }) => square == s,
        (
            Place { piece, square },
            Place {
                piece: p,
                square: s,
            },
        ) => piece == p && square == s,
        _ => false,
    }
}
