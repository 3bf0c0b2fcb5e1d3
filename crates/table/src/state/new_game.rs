//! The next game at a table: the arbiter's `new-game` once the last one is over (from the
//! standard position or a FEN), its announcement with the time control, the peg board guided to
//! the new set-up; and the game's PGN tags (`tag white Anna Müller`).

use crate::control::{ErrorCode, GameTag, Refusal};
use crate::event::TableEvent;
use crate::record::Record;
use crate::state::{Answer, Now, Reply, START_FEN, Step, Table};
use annabella_chess::game::Game;

impl Table {
    /// `new-game [fen FEN]`: begins the next game once the last one is over. Its records go to
    /// a new game of the table's journal ([`Step::begins_game`]); the finished game was archived
    /// when it ended. The configured tags (players, event) are written again; the arbiter sets
    /// others with `tag`. A new `game_id` (a correspondence game's) is the tag `game_id`, kept
    /// in the journal so that a restart mails and reads under it.
    pub(super) fn new_game(
        &mut self,
        now: Now,
        fen: Option<&str>,
        game_id: Option<&str>,
        out: &mut Step,
    ) -> Reply {
        if let Some(running) = self.running_game() {
            return Err(Refusal::new(
                ErrorCode::State,
                format!(
                    "the game is not over ({running}): it ends by mate, a draw, a resignation, a \
                     flag or the arbiter's decision before a new one begins"
                ),
            ));
        }
        let fen = fen.unwrap_or(START_FEN);
        let start = Game::from_fen(fen, self.settings.chess960)
            .map_err(|e| Refusal::new(ErrorCode::Syntax, format!("new-game fen: {e}")))?;
        let begin = Record::Begin {
            chess960: self.settings.chess960,
            time_control: self.settings.time_control.to_string(),
            fen: start.fen(),
        };
        self.commit(now, begin, out)
            .map_err(|e| Refusal::new(ErrorCode::State, e.to_string()))?;
        out.begins_game = true;
        let new_id = game_id.map(|id| (GameTag::GameId, id.to_owned()));
        for (tag, value) in self.settings.tags.clone().into_iter().chain(new_id) {
            self.commit(now, Record::Tag { tag, value }, out)
                .map_err(|e| Refusal::new(ErrorCode::State, e.to_string()))?;
        }
        self.announce_begin(out);
        self.hold_clock_for_set_up(now, out)?;
        Ok(Answer::NewGame {
            fen: self.state.game.fen(),
        })
    }

    /// Announces a game that begins: everyone hears it with its time control; the event says
    /// where it starts. The boards are compared with the new position as they next report (the
    /// peg board's player is guided to the set-up).
    pub(super) fn announce_begin(&mut self, out: &mut Step) {
        out.event(TableEvent::Begin {
            time_control: self.settings.time_control.to_string(),
            fen: self.state.game.fen(),
        });
        let say = self.announcer.begin(&self.settings.time_control);
        out.event(TableEvent::Say(say));
    }

    /// The next game starts when the boards are set up (issue 24): unless they already show its
    /// position (or no connected peg board could show it, or the game is by mail), its clock
    /// is stopped at once (no time has run) and starts by itself when every board shows the
    /// position ([`Table::set_up_done`]), or when the arbiter says `resume`.
    /// No move is taken meanwhile (a stopped clock takes none).
    fn hold_clock_for_set_up(&mut self, now: Now, out: &mut Step) -> Result<(), Refusal> {
        // A game by mail has no boards to set up (its time is days); a table whose peg board
        // is not connected has nothing that could say it is set up.
        let boards_to_set_up = self.settings.correspondence.is_none()
            && self.boards.peg.connected
            && !self.boards.all_show(self.state.game.position());
        if !boards_to_set_up {
            return Ok(());
        }
        self.commit(now, Record::Pause, out)
            .map_err(|e| Refusal::new(ErrorCode::State, e.to_string()))?;
        self.boards.setup_hold = true;
        out.event(TableEvent::ClockRunning { running: false });
        Ok(())
    }

    /// A board that was set up shows the game: when the new game's clock waits for the set-up
    /// and no board differs any more, it starts.
    pub(super) fn set_up_done(&mut self, now: Now, out: &mut Step) {
        if !self.boards.setup_hold || !self.boards.agree() {
            return;
        }
        if !self.state.clock.is_paused() {
            self.boards.setup_hold = false;
            return;
        }
        if self.commit(now, Record::Resume, out).is_ok() {
            self.boards.setup_hold = false;
            out.event(TableEvent::ClockRunning { running: true });
        }
    }

    /// `tag white|black|event|site|round TEXT`: a PGN tag of the current game.
    pub(super) fn set_tag(&mut self, now: Now, tag: GameTag, value: &str, out: &mut Step) -> Reply {
        self.commit(
            now,
            Record::Tag {
                tag,
                value: value.to_owned(),
            },
            out,
        )
        .map_err(|e| Refusal::new(ErrorCode::State, e.to_string()))?;
        Ok(Answer::Tagged {
            tag,
            value: value.to_owned(),
        })
    }

    /// What is still going on, when the game is not over: `None` once it is.
    fn running_game(&self) -> Option<String> {
        if self.state.game.is_over() {
            None
        } else {
            Some(format!("{} half-moves played", self.state.game.ply_count()))
        }
    }
}
