//! What only a correspondence table does (`docs/correspondence.md`): the confirm step — the
//! blind player's move on the peg board is tentative until he presses `KS` (`send`), so he may
//! take it back by putting the piece back, or analyse on his board, before anything is mailed —
//! the opponent's comment kept for `KM` (`message`), and the claim of the game on time when the
//! opponent's days are over, which the arbiter's `result` decides.
//!
//! The mail desk follows [`Table::released_plies`], never the game's length, so a move that was
//! not released is never mailed.

use shakmaty::{Color, Position};

use super::state;
use crate::control::{ErrorCode, Refusal, Role};
use crate::event::{BoardId, Listener, TableEvent, Urgency};
use crate::record::{Record, comment_line};
use crate::state::words::color_name;
use crate::state::{Answer, Now, Reply, Step, Table};
use annabella_chess::phrases::{color_phrase, move_phrase};

impl Table {
    /// The side that made the game's last move, if any.
    fn last_mover(&self) -> Option<Color> {
        let game = &self.state.game;
        let last = game.ply_count().checked_sub(1)?;
        game.position_before(last).map(|p| p.turn())
    }

    /// His last move waits for `send` (the confirm step).
    pub(super) fn unsent(&self) -> bool {
        self.settings.confirm_send
            && self.settings.correspondence.is_some()
            && self.state.game.ply_count() > self.state.sent_plies
            && self.last_mover() == Some(self.settings.peg_side)
    }

    /// The peg board moves away from the game while his move waits for `send`: he analyses.
    pub(super) fn analysing(&self, board: BoardId) -> bool {
        board == BoardId::Peg && self.unsent()
    }

    /// "Analyse. KS sendet Ihren Zug", the first time he leaves the game's position while this
    /// move waits; `None` after that.
    pub(super) fn analysis_words(&mut self) -> Option<String> {
        let plies = self.state.game.ply_count();
        if self.analysis_told == Some(plies) {
            return None;
        }
        self.analysis_told = Some(plies);
        Some(self.announcer.word("desk_analysing"))
    }

    /// The half-moves that may be mailed: the game's length, less his last move while it
    /// waits for `send`.
    pub fn released_plies(&self) -> usize {
        self.state.game.ply_count() - usize::from(self.unsent())
    }

    /// His last move was released (mailed or about to be): a player may not withdraw it.
    pub(super) fn released_move_of_his(&self) -> bool {
        self.settings.correspondence.is_some()
            && self.last_mover() == Some(self.settings.peg_side)
            && !self.unsent()
    }

    /// `send` (`KS` at a correspondence table): his tentative move is released to be mailed;
    /// he hears it read back once more, "gesendet".
    pub(super) fn send(&mut self, now: Now, role: Role, out: &mut Step) -> Reply {
        if matches!(role, Role::Player(c) if c != self.settings.peg_side) {
            return Err(Refusal::new(
                ErrorCode::Forbidden,
                format!(
                    "only the {} player, his assistant or the arbiter may send his move",
                    color_name(self.settings.peg_side)
                ),
            ));
        }
        if self.settings.correspondence.is_none() {
            return Err(state("send is for a correspondence table"));
        }
        if !self.unsent() {
            return Err(state("no move of the blind player waits to be sent"));
        }
        self.commit(now, Record::Send, out).map_err(state)?;
        self.analysis_told = None;
        let plies = self.state.game.ply_count();
        let read_back = self
            .announcer
            .numbered_move(&self.state.game, plies - 1)
            .unwrap_or_default();
        let text = self.announcer.fill("desk_sent", &[("move", &read_back)]);
        self.say(Listener::BlindPlayer, text, Urgency::Polite, out);
        Ok(Answer::Sent { plies })
    }

    /// `KS` at a correspondence table with the confirm step: `send`, or that nothing waits.
    pub(super) fn key_send(&mut self, now: Now, out: &mut Step) {
        if !self.unsent() {
            let text = self.announcer.word("desk_nothing_to_send");
            self.say(Listener::BlindPlayer, text, Urgency::Polite, out);
            return;
        }
        if let Err(r) = self.send(now, Role::Player(self.settings.peg_side), out) {
            // The journal could not keep it: nothing was sent, and he hears that it failed.
            self.refused(r, out);
        }
    }

    /// The peg board shows the position before his unsent move: he took it back, which costs
    /// nothing, as the move was never sent. Returns whether it was that.
    pub(super) fn take_back_unsent(&mut self, board: BoardId, now: Now, out: &mut Step) -> bool {
        if board != BoardId::Peg || !self.unsent() {
            return false;
        }
        let game = &self.state.game;
        let (Some(&last), Some(before)) = (
            game.moves().last(),
            game.position_before(game.ply_count() - 1),
        ) else {
            return false;
        };
        if self.commit(now, Record::Undo, out).is_err() {
            return false;
        }
        self.analysis_told = None;
        let uci = self.uci(last).to_string();
        out.event(TableEvent::Undo { uci });
        let withdrawn = move_phrase(&before, last, &self.announcer.style());
        let text = self
            .announcer
            .fill("desk_taken_back", &[("move", &withdrawn)]);
        self.say(Listener::BlindPlayer, text, Urgency::Urgent, out);
        // The detector learns that the game went back; the board already shows it.
        let again = self.boards.resync(board, &self.state.game);
        for c in again {
            self.on_conclusion(board, now, c, out);
        }
        true
    }

    /// `message` (`KM`): the opponent's last comment, read to the blind player when he or his
    /// assistant asks.
    pub(super) fn message(&mut self, role: Role, out: &mut Step) -> Reply {
        let comment = self.state.comment.clone();
        if matches!(role, Role::Player(c) if c == self.settings.peg_side) || role == Role::Assistant
        {
            self.say_message(out);
        }
        Ok(Answer::Message { text: comment })
    }

    /// The opponent's last comment in words: "Nachricht von Bob Jones: …" or "Keine
    /// Nachricht".
    pub(super) fn say_message(&mut self, out: &mut Step) {
        let text = match &self.state.comment {
            Some(comment) => {
                let from = self.opponent_name().unwrap_or_else(|| {
                    color_phrase(!self.settings.peg_side, self.announcer.vocab())
                });
                self.announcer
                    .fill("desk_message", &[("from", &from), ("text", comment)])
            }
            None => self.announcer.word("desk_no_message"),
        };
        self.say(Listener::BlindPlayer, text, Urgency::Polite, out);
    }

    /// The opponent's name, from the game's tags.
    pub(super) fn opponent_name(&self) -> Option<String> {
        let tag = match self.settings.peg_side {
            Color::White => crate::control::GameTag::Black,
            Color::Black => crate::control::GameTag::White,
        };
        self.state
            .tags
            .get(&tag)
            .filter(|n| !n.trim().is_empty())
            .cloned()
    }

    /// `comment TEXT`: the opponent's comment from his message (the mail desk, as arbiter),
    /// kept as one bounded line.
    pub(super) fn comment(&mut self, now: Now, text: &str, out: &mut Step) -> Reply {
        let text = comment_line(text);
        if text.is_empty() {
            return Err(Refusal::new(ErrorCode::Syntax, "the comment is empty"));
        }
        self.commit(now, Record::Comment { text }, out)
            .map_err(state)?;
        Ok(Answer::Commented)
    }

    /// `my-message TEXT`: his words to the opponent at a game on ICCF's server, kept until his
    /// next call (the server desk sends them with it, once); he hears that they are kept.
    pub(super) fn my_message(&mut self, now: Now, role: Role, text: &str, out: &mut Step) -> Reply {
        if matches!(role, Role::Player(c) if c != self.settings.peg_side) {
            return Err(Refusal::new(
                ErrorCode::Forbidden,
                "the message to the server is the blind player's (or his assistant's)",
            ));
        }
        if !self.settings.messages_to_server {
            return Err(state(
                "a message of your own goes only with a move to ICCF's server (a game with \
                 source = \"xfcc\")",
            ));
        }
        self.running()?;
        let text = comment_line(text);
        if text.is_empty() {
            return Err(Refusal::new(ErrorCode::Syntax, "the message is empty"));
        }
        let plies = self.released_plies();
        self.commit(now, Record::MyMessage { plies, text }, out)
            .map_err(state)?;
        let words = self.announcer.word("own_message_kept");
        self.say(Listener::BlindPlayer, words, Urgency::Polite, out);
        Ok(Answer::MyMessageKept)
    }

    /// The side whose days are over at `now_unix_ms`, in a correspondence game in progress.
    pub(super) fn days_exceeded(&self, now_unix_ms: u64) -> Option<Color> {
        if self.state.game.is_over() {
            return None;
        }
        self.day_reading(now_unix_ms)?.exceeded()
    }

    /// `claim-time` (`KC` when the opponent's days are over): the claim is recorded and
    /// announced; the arbiter's `result` decides the game.
    pub(super) fn claim_time(&mut self, now: Now, role: Role, out: &mut Step) -> Reply {
        self.running()?;
        if self.settings.days.is_none() {
            return Err(state("claim-time is for a correspondence game"));
        }
        let exceeded = self.days_exceeded(now.unix_ms);
        let claimant = match role {
            Role::Player(c) => c,
            Role::Assistant => self.settings.peg_side,
            _ => match exceeded {
                Some(c) => !c,
                None => return Err(state("neither side's days are over")),
            },
        };
        if exceeded != Some(!claimant) {
            return Err(state(format!(
                "{}'s days are not over; no claim on time",
                color_name(!claimant)
            )));
        }
        if self.state.time_claim == Some(claimant) {
            return Err(state(
                "the claim on time is made; the arbiter decides (result)",
            ));
        }
        self.commit(now, Record::TimeClaim { color: claimant }, out)
            .map_err(state)?;
        let color = color_phrase(claimant, self.announcer.vocab());
        let text = self
            .announcer
            .fill("desk_time_claimed", &[("color", &color)]);
        self.say(Listener::Everyone, text, Urgency::Polite, out);
        Ok(Answer::TimeClaimed { by: claimant })
    }

    /// A player's `undo` of his move that was released to be mailed: refused, in his words
    /// too, as the opponent may already have it.
    pub(super) fn refuse_undo_sent(&mut self, role: Role, out: &mut Step) -> Refusal {
        if matches!(role, Role::Player(c) if c == self.settings.peg_side) || role == Role::Assistant
        {
            let text = self.announcer.word("desk_undo_sent");
            self.say(Listener::BlindPlayer, text, Urgency::Polite, out);
        }
        Refusal::new(
            ErrorCode::State,
            "the move was released to be mailed; only the arbiter may withdraw it",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::TimeControl;
    use crate::control::TableRequest as Command;
    use crate::name::TableName;
    use crate::state::TableSettings;
    use annabella_chess::language::Language;
    use annabella_correspondence::day_rules::CorrespondenceControl;

    const T0: u64 = 1_764_000_000_000;
    const DAY: u64 = 86_400_000;

    /// BCA-7, he plays White, with the confirm step; Bob Jones is Black.
    fn table() -> Table {
        let tc: TimeControl = "90+30".parse().unwrap();
        let mut s = TableSettings::new(
            TableName::new("bca-7").unwrap(),
            Color::White,
            Language::german(),
            tc,
        );
        s.correspondence = Some("BCA-7".to_owned());
        s.days = Some(CorrespondenceControl::parse("20/10d", "bca").unwrap());
        s.confirm_send = true;
        s.tags = vec![(crate::control::GameTag::Black, "Bob Jones".to_owned())];
        Table::new(s, Now::at(T0)).unwrap().0
    }

    fn ask(t: &mut Table, at: u64, role: Role, command: Command) -> Reply {
        t.request(Now::at(at), role, Language::german(), &command).0
    }

    #[test]
    fn his_move_is_released_only_by_send_and_then_only_the_arbiter_withdraws_it() {
        let mut t = table();
        let me = Role::Player(Color::White);
        let mv = |text: &str| Command::Move {
            text: text.to_owned(),
        };
        assert!(ask(&mut t, T0, me, mv("e4")).is_ok());
        assert_eq!((t.released_plies(), t.desk_view(T0).unsent()), (0, true));
        // Unsent: he may still withdraw it himself.
        assert!(ask(&mut t, T0, me, Command::Undo).is_ok());
        assert!(ask(&mut t, T0, me, mv("d4")).is_ok());
        assert_eq!(
            ask(&mut t, T0, me, Command::Send),
            Ok(Answer::Sent { plies: 1 })
        );
        assert_eq!(t.released_plies(), 1);
        assert!(ask(&mut t, T0, me, Command::Send).is_err(), "nothing waits");
        let refused = ask(&mut t, T0, me, Command::Undo).unwrap_err();
        assert_eq!(refused.code, ErrorCode::State, "{}", refused.message);
        assert!(ask(&mut t, T0, Role::Arbiter, Command::Undo).is_ok());
        assert_eq!(t.released_plies(), 0);
        // The opponent's reply needs no sending.
        assert!(ask(&mut t, T0, me, mv("c4")).is_ok());
        assert!(ask(&mut t, T0, me, Command::Send).is_ok());
        let bob = Role::Player(Color::Black);
        assert!(ask(&mut t, T0, bob, mv("e5")).is_ok());
        assert_eq!(t.released_plies(), 2);
    }

    #[test]
    fn what_was_sent_and_the_comment_come_back_from_the_journal() {
        let mut t = table();
        let me = Role::Player(Color::White);
        // The same game's begin and tags, as the journal holds them before its moves.
        let (_, begin) = Table::new(t.settings.clone(), Now::at(T0)).unwrap();
        let mut journal: Vec<(u64, String)> =
            begin.records.iter().map(|e| (T0, e.to_string())).collect();
        let moves = [
            (me, Command::Move { text: "e4".into() }),
            (me, Command::Send),
            (
                Role::Player(Color::Black),
                Command::Move { text: "e5".into() },
            ),
            (me, Command::Move { text: "Sf3".into() }),
            (
                Role::Arbiter,
                Command::Comment {
                    text: "Gut gespielt".into(),
                },
            ),
        ];
        for (role, command) in moves {
            let (reply, step) = t.request(Now::at(T0), role, Language::german(), &command);
            assert!(reply.is_ok(), "{command:?}: {reply:?}");
            journal.extend(step.records.iter().map(|e| (T0, e.to_string())));
        }
        let back = Table::restore(t.settings.clone(), &journal).unwrap();
        assert_eq!(back.released_plies(), 2, "Sf3 waits for send");
        assert_eq!(back.state.comment.as_deref(), Some("Gut gespielt"));
        let refused = ask(&mut t, T0, Role::Player(Color::Black), Command::Send);
        assert_eq!(refused.unwrap_err().code, ErrorCode::Forbidden);
    }

    #[test]
    fn his_tentative_move_taken_back_lets_the_declined_offer_stand_again() {
        let mut t = table();
        let me = Role::Player(Color::White);
        let bob = Role::Player(Color::Black);
        assert!(ask(&mut t, T0, me, Command::Move { text: "e4".into() }).is_ok());
        assert!(ask(&mut t, T0, me, Command::Send).is_ok());
        assert!(ask(&mut t, T0, bob, Command::Move { text: "e5".into() }).is_ok());
        assert!(ask(&mut t, T0, bob, Command::OfferDraw).is_ok());
        assert_eq!(t.desk_view(T0).draw_offer, Some(Color::Black));
        // His next move declines it; taking that move back (unsent) undoes the decline.
        assert!(ask(&mut t, T0, me, Command::Move { text: "Sf3".into() }).is_ok());
        assert_eq!(t.desk_view(T0).draw_offer, None);
        assert!(ask(&mut t, T0, me, Command::Undo).is_ok());
        assert_eq!(t.desk_view(T0).draw_offer, Some(Color::Black));
    }

    #[test]
    fn the_view_says_the_days_as_of_the_moment_asked_and_names_the_opponent() {
        let t = table();
        let view = t.desk_view(T0);
        assert_eq!(view.spoken_name, "gegen Bob Jones, Sie haben Weiß");
        assert_eq!(view.turn_words_at(T0), view.turn_words);
        let later = view.turn_words_at(T0 + 3 * DAY + 1);
        assert_ne!(later, view.turn_words, "three days later");
        assert!(later.contains("acht Tage"), "{later}");
        assert!(view.state_words_at(T0 + 3 * DAY + 1).contains("acht Tage"));
        assert_eq!(view.exceeded(T0), None);
        assert_eq!(view.exceeded(T0 + 11 * DAY), Some(Color::White));
    }

    #[test]
    fn a_claim_on_time_waits_for_the_arbiter_and_the_comment_is_kept_as_one_line() {
        let mut t = table();
        let me = Role::Player(Color::White);
        assert!(ask(&mut t, T0, me, Command::Move { text: "e4".into() }).is_ok());
        assert!(ask(&mut t, T0, me, Command::Send).is_ok());
        // Bob's days run; before they are over no claim.
        assert!(ask(&mut t, T0 + DAY, me, Command::ClaimTime).is_err());
        let late = T0 + 12 * DAY;
        assert_eq!(
            ask(&mut t, late, me, Command::ClaimTime),
            Ok(Answer::TimeClaimed { by: Color::White })
        );
        assert_eq!(t.desk_view(late).claim, Some(Color::White));
        let text = Command::Comment {
            text: "Danke!\nBis bald".to_owned(),
        };
        assert_eq!(
            ask(&mut t, late, Role::Arbiter, text),
            Ok(Answer::Commented)
        );
        assert_eq!(
            ask(&mut t, late, me, Command::Message),
            Ok(Answer::Message {
                text: Some("Danke! Bis bald".to_owned())
            })
        );
        let result = Command::Result {
            result: annabella_chess::game::GameResult::WhiteWins,
        };
        assert!(ask(&mut t, late, Role::Arbiter, result).is_ok());
        assert_eq!(t.desk_view(late).claim, None);
    }

    #[test]
    fn his_message_for_the_server_is_kept_with_the_half_moves_released_and_comes_back() {
        let mut t = table();
        let me = Role::Player(Color::White);
        let words = |text: &str| Command::MyMessage {
            text: text.to_owned(),
        };
        // A game by mail carries none: refused, nothing kept.
        let refused = ask(&mut t, T0, me, words("Hallo")).unwrap_err();
        assert_eq!(refused.code, ErrorCode::State, "{}", refused.message);
        assert_eq!(t.desk_view(T0).my_message, None);
        t.settings.messages_to_server = true;
        let (_, begin) = Table::new(t.settings.clone(), Now::at(T0)).unwrap();
        let mut journal: Vec<(u64, String)> =
            begin.records.iter().map(|e| (T0, e.to_string())).collect();
        let mut play = |t: &mut Table, role: Role, command: Command| {
            let (reply, step) = t.request(Now::at(T0), role, Language::german(), &command);
            journal.extend(step.records.iter().map(|e| (T0, e.to_string())));
            (reply, step)
        };
        assert!(
            play(&mut t, me, Command::Move { text: "e4".into() })
                .0
                .is_ok()
        );
        // Written before his move is released: it goes with that move (0 released).
        let (reply, step) = play(&mut t, me, words("Viel Glück,\nBob"));
        assert_eq!(reply, Ok(Answer::MyMessageKept));
        assert!(
            step.events()
                .any(|e| matches!(e, TableEvent::Say(s) if s.text.contains("nächsten Zug"))),
            "he hears that it is kept"
        );
        assert!(play(&mut t, me, Command::Send).0.is_ok());
        let kept = Some((0, "Viel Glück, Bob".to_owned()));
        assert_eq!(t.desk_view(T0).my_message, kept);
        let back = Table::restore(t.settings.clone(), &journal).unwrap();
        assert_eq!(back.desk_view(T0).my_message, kept);
        assert!(
            ask(&mut t, T0, me, words("   ")).is_err(),
            "an empty message"
        );
        let bob = ask(&mut t, T0, Role::Player(Color::Black), words("hi"));
        assert_eq!(bob.unwrap_err().code, ErrorCode::Forbidden);
    }
}
