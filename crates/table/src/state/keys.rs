//! The peg board's key strip (`docs/peg-protocol.md`): what the table answers to each key, to
//! the blind player only and in the table's language, so that he can do at the board what
//! would otherwise need a second person: hear the last moves and the clock (FIDE D.2.6.1 asks
//! for "the time and number of moves"), offer, accept or claim a draw, resign, confirm his
//! scoresheet, and declare his board set up.
//!
//! The keys that change the game go through the same request functions as the control
//! interface, with the blind player's role (`Role::Player(peg_side)`), so a key can do exactly
//! what he may ask for there and is judged, journaled and announced the same way.

use shakmaty::Position;

use crate::board_feed::BoardFeed;
use crate::control::{Refusal, Role, TableRequest as Command};
use crate::corrections::{Observed, spoken};
use crate::event::{BoardId, Listener, TableEvent, Urgency};
use crate::reconcile::Side;
use crate::state::{Answer, Now, Step, Table};
use annabella_boards::{BoardKey, Millis};
use annabella_chess::game::ClaimRefused;
use annabella_chess::phrases::{
    color_phrase, duration_phrase, fill_count, move_count_phrase, move_phrase, number_phrase,
};
use annabella_chess::vocabulary::fill;

/// How long after a first `KX` a second one resigns (table time). A single press, made by
/// mistake while feeling for another key, must never end the game.
pub const RESIGN_CONFIRM_MS: Millis = 5_000;

/// What the keys remember between presses. Not journaled: after a restart `KH` starts again
/// at the last move and a half-made resignation is forgotten, as a careful arbiter would want.
#[derive(Clone, Debug, Default)]
pub(super) struct KeyState {
    /// `KH`: the game's length when the stepping began and how many moves back the last press
    /// went. Any other key, or a move played, starts it again from the last move.
    history: Option<(usize, usize)>,
    /// `KX`: the table time of a first press still waiting for its second.
    resign_armed_at: Option<Millis>,
}

impl Table {
    /// A key on the peg board's strip. Returns `false` for the keys the detector reads (the
    /// promotion choice), which then go to the board's feed like any sensor event.
    pub(super) fn key(&mut self, now: Now, key: BoardKey, out: &mut Step) -> bool {
        // Any key but `KH` ends the stepping back; any key but `KX` cancels a first `KX`.
        let history = self.keys.history.take();
        let armed = self.keys.resign_armed_at.take();
        if let BoardKey::Promote(role) = key {
            // A pawn waiting for its piece: the move it concludes is the answer. Otherwise the
            // key is still fed to the detector (which keeps a choice made in advance), and the
            // blind player hears what became of it rather than silence.
            let detector = self.peg.feed.detector();
            if detector.pending_promotion().is_none() {
                out.event(TableEvent::Key(key));
                let text = if detector.preselects_promotion() {
                    let piece = self.vocab().piece(role).to_owned();
                    self.key_words("key_promotion_chosen", &[("piece", &piece)])
                } else {
                    self.word("key_no_promotion")
                };
                self.tell(text, out);
            }
            return false;
        }
        out.event(TableEvent::Key(key));
        match key {
            BoardKey::Promote(_) => {}
            BoardKey::Repeat => self.key_again(out),
            BoardKey::Time => self.key_time(now, out),
            BoardKey::OwnTime => {
                let left = self
                    .state
                    .clock
                    .remaining(self.settings.peg_side, now.table_ms);
                let time = self
                    .side_days_words(self.settings.peg_side, now.unix_ms)
                    .unwrap_or_else(|| duration_phrase(left, self.vocab()));
                let text = self.key_words("key_own_time", &[("time", &time)]);
                self.tell(text, out);
            }
            BoardKey::History => self.key_history(history, out),
            BoardKey::Draw => self.key_draw(now, out),
            BoardKey::Claim => self.key_claim(now, out),
            BoardKey::Resign => self.key_resign(now, armed, out),
            BoardKey::ConfirmSheet => self.key_confirm_sheet(now, out),
            BoardKey::SetUp => self.key_set_up(out),
            // The desk answers these before a table sees them; a table at a board has no
            // other games to turn to.
            BoardKey::NextGame | BoardKey::ListGames => {
                let text = self.word("key_not_possible");
                self.tell(text, out);
            }
            BoardKey::Other(_) => {
                let text = self.word("key_unknown");
                self.tell(text, out);
            }
        }
        true
    }

    /// Says `text` to the blind player: every answer to a key is his alone.
    fn tell(&mut self, text: String, out: &mut Step) {
        self.say(Listener::BlindPlayer, text, Urgency::Polite, out);
    }

    /// A key answer template of the language filled with `args`.
    pub(super) fn key_words(&self, key: &str, args: &[(&str, &str)]) -> String {
        fill(&self.word(key), args)
    }

    /// The game's move at index `ply` (0-based) with its number and colour: "Zug zwölf, Weiß:
    /// Springer Felix drei".
    pub(super) fn numbered_move(&self, ply: usize) -> Option<String> {
        let game = &self.state.game;
        let pos = game.position_before(ply)?;
        let m = *game.moves().get(ply)?;
        let number = number_phrase(pos.fullmoves().get(), self.vocab());
        let color = color_phrase(pos.turn(), self.vocab());
        let phrase = move_phrase(&pos, m, &self.style());
        Some(self.key_words(
            "key_move",
            &[("number", &number), ("color", &color), ("move", &phrase)],
        ))
    }

    /// `KA`: the move the board still owes (the opponent's, to replicate); while the board
    /// differs from the game, the correction said last; otherwise the game's last move. Never
    /// a confirmation such as "in Ordnung", which says nothing about the game.
    fn key_again(&mut self, out: &mut Step) {
        let plies = self.state.game.ply_count();
        let owed = self.peg.feed.detector().board_ply();
        let correction = self
            .peg
            .differs
            .then(|| self.last_to_blind.clone())
            .flatten();
        let text = if owed < plies {
            self.numbered_move(owed)
        } else if correction.is_some() {
            correction
        } else {
            plies
                .checked_sub(1)
                .and_then(|last| self.numbered_move(last))
        };
        let text = text.unwrap_or_else(|| self.word("key_no_move"));
        self.tell(text, out);
    }

    /// `KT`: both clocks and the moves played, whose turn, and the moves he still has to
    /// make before his next time control (FIDE D.2.6.1).
    fn key_time(&mut self, now: Now, out: &mut Step) {
        let mut parts = vec![self.clock_words(now)];
        if !self.state.game.is_over() {
            let color = color_phrase(self.state.game.turn(), self.vocab());
            parts.push(self.key_words("key_turn", &[("color", &color)]));
        }
        if let Some(n) = self.state.clock.moves_to_control(self.settings.peg_side) {
            let moves = move_count_phrase(n, self.vocab());
            parts.push(self.key_words("key_to_control", &[("moves", &moves)]));
        }
        self.tell(parts.join(". "), out);
    }

    /// `KH`: the last move at the first press, one move further back at each further one;
    /// before the first move, that there is none.
    fn key_history(&mut self, history: Option<(usize, usize)>, out: &mut Step) {
        let plies = self.state.game.ply_count();
        let back = match history {
            Some((anchor, back)) if anchor == plies => (back + 1).min(plies),
            _ => 0,
        };
        self.keys.history = Some((plies, back));
        let text = (plies - back)
            .checked_sub(1)
            .and_then(|ply| self.numbered_move(ply));
        let text = text.unwrap_or_else(|| {
            self.word(if plies == 0 {
                "key_no_move"
            } else {
                "key_history_start"
            })
        });
        self.tell(text, out);
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
    fn refused(&mut self, refusal: Refusal, out: &mut Step) {
        out.event(TableEvent::Refused {
            board: BoardId::Peg,
            reason: refusal.message,
        });
        let key = if self.state.game.is_over() {
            "key_game_over"
        } else {
            "key_not_possible"
        };
        let text = self.word(key);
        self.tell(text, out);
    }

    /// `KD`: `offer-draw`; his offer, or the agreement when the opponent's offer stands, is
    /// announced to both players by the request itself.
    fn key_draw(&mut self, now: Now, out: &mut Step) {
        if let Err(r) = self.as_blind_player(now, &Command::OfferDraw, out) {
            self.refused(r, out);
        }
    }

    /// `KC`: `claim-draw` on the position as it stands (9.2.1.2, 9.3.2). A correct claim ends
    /// the game (announced to both); a wrong one is explained to him, with the time his
    /// opponent receives for it (9.5.3).
    fn key_claim(&mut self, now: Now, out: &mut Step) {
        let claimant = self.state.game.turn();
        if !self.state.game.is_over() && claimant != self.settings.peg_side {
            let text = self.word("key_claim_not_your_turn");
            self.tell(text, out);
            return;
        }
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
        let v = self.vocab();
        let moves = move_count_phrase(halfmoves / 2, v);
        let mut words = vec![self.key_words("key_claim_refused", &[("moves", &moves)])];
        if after > before {
            let color = color_phrase(!claimant, v);
            let time = duration_phrase(after - before, v);
            words.push(self.key_words("key_claim_penalty", &[("color", &color), ("time", &time)]));
        }
        self.tell(words.join(". "), out);
    }

    /// `KX`: the first press only asks for a second; a second within
    /// [`RESIGN_CONFIRM_MS`] resigns (announced to both by the request).
    fn key_resign(&mut self, now: Now, armed: Option<Millis>, out: &mut Step) {
        let confirmed =
            armed.is_some_and(|at| now.table_ms.saturating_sub(at) <= RESIGN_CONFIRM_MS);
        if self.state.game.is_over() {
            let text = self.word("key_game_over");
            self.tell(text, out);
        } else if confirmed {
            if let Err(r) = self.as_blind_player(now, &Command::Resign, out) {
                self.refused(r, out);
            }
        } else {
            self.keys.resign_armed_at = Some(now.table_ms);
            let text = self.word("key_resign_confirm");
            self.tell(text, out);
        }
    }

    /// `KS`: `confirm a`, his sheet (a) taking the moves read out to him.
    fn key_confirm_sheet(&mut self, now: Now, out: &mut Step) {
        if self.state.lagging != Some(Side::A) {
            let text = self.word("key_nothing_to_confirm");
            self.tell(text, out);
            return;
        }
        match self.as_blind_player(now, &Command::Confirm { side: Side::A }, out) {
            Ok(_) => {
                let text = self.word("key_sheet_confirmed");
                self.tell(text, out);
            }
            Err(r) => self.refused(r, out),
        }
    }

    /// `KZ`: "my board is set up". When the occupied holes are exactly the game's, the pegs are
    /// taken as the game's pieces (whatever the detector believed before: a belief lost after
    /// moves made out of sync can otherwise keep him correcting a board that is right);
    /// otherwise he hears how many holes differ and the first correction.
    fn key_set_up(&mut self, out: &mut Step) {
        let Observed::Occupancy(occupied) = self.peg.feed.detector().observed() else {
            // The peg board is an occupancy board; nothing else reaches this key.
            return;
        };
        let target = self.state.game.position().board().occupied();
        let differing = (occupied ^ target).count();
        if differing == 0 {
            self.adopt_game_on_peg_board();
            out.event(TableEvent::InSync {
                board: BoardId::Peg,
            });
            let text = self.word("key_setup_taken");
            self.tell(text, out);
            return;
        }
        let mut words = vec![if differing == 1 {
            self.word("key_setup_differs_one")
        } else {
            let template = self.word("key_setup_differs");
            fill_count(&template, differing as u64, self.vocab())
        }];
        let fixes = self.corrections_for(BoardId::Peg);
        words.extend(fixes.first().map(|c| spoken(c, self.vocab())));
        self.tell(words.join(". "), out);
    }

    /// The peg board's feed starts afresh from the game's position: its detector believes the
    /// game's pieces stand in the holes (their occupancy is the game's), owes nothing, and
    /// compares the board's next snapshot with the game.
    fn adopt_game_on_peg_board(&mut self) {
        let d = self.peg.feed.detector();
        let (kind, settings) = (d.kind(), *d.settings());
        self.peg.feed = BoardFeed::new(kind, settings, self.settings.debounce_ms, &self.state.game);
        self.peg.differs = false;
        self.peg.guided = None;
    }
}
