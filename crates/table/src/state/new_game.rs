//! The next game at a table: the arbiter's `new-game` once the last one is over (from the
//! standard position or a FEN), its announcement with the time control, the peg board guided to
//! the new set-up; and the game's PGN tags (`tag white Anna Müller`).

use crate::control::{ErrorCode, GameTag, Refusal};
use crate::event::TableEvent;
use crate::record::Record;
use crate::state::{Answer, ApplyError, Now, Reply, START_FEN, Step, Table, TableSettings};
use annabella_chess::game::Game;

impl Table {
    /// The next game, begun when the daemon starts and the journal's last game is over: as
    /// [`Table::new`], and its clock held until the boards show the start position
    /// (`hold-set-up`, in the same step as the `begin`, so not a millisecond runs), as the
    /// arbiter's `new-game` does; the peg board's first snapshot starts it when it is set up
    /// already. Not when the table has no peg board (`peg_board` false: nothing could say it
    /// is set up) nor for a game by mail.
    pub fn next_game(
        settings: TableSettings,
        now: Now,
        peg_board: bool,
    ) -> Result<(Table, Step), ApplyError> {
        let (mut table, mut step) = Table::new(settings, now)?;
        if peg_board && table.settings.correspondence.is_none() {
            table.hold(now, &mut step)?;
        }
        Ok((table, step))
    }

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

    /// Announces a game that begins: everyone hears it with its time control (but for a
    /// server's game); the event says where it starts. The boards are compared with the new position as they next report (the
    /// peg board's player is guided to the set-up).
    pub(super) fn announce_begin(&mut self, out: &mut Step) {
        out.event(TableEvent::Begin {
            time_control: self.settings.time_control.to_string(),
            fen: self.state.game.fen(),
        });
        // A server's game is announced by its adapter with the server's players and time
        // control ("Partie auf lichess gegen Bob, 15 Minuten plus 10 Sekunden"); the table's
        // configured control would be wrong information, said before any game exists.
        if self.settings.server_game {
            return;
        }
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
        self.hold(now, out)
            .map_err(|e| Refusal::new(ErrorCode::State, e.to_string()))
    }

    /// Stops the new game's clock until its boards are set up: the `hold-set-up` record
    /// (journaled, so that a restart during the set-up waits on; an arbiter's `pause` is
    /// another record, which the boards never end).
    pub(super) fn hold(&mut self, now: Now, out: &mut Step) -> Result<(), ApplyError> {
        self.commit(now, Record::HoldForSetUp, out)?;
        out.event(TableEvent::ClockRunning { running: false });
        Ok(())
    }

    /// A board that was set up shows the game: when the new game's clock waits for the set-up
    /// (`hold-set-up`, not the arbiter's `pause`) and no board differs any more, it starts.
    pub(super) fn set_up_done(&mut self, now: Now, out: &mut Step) {
        if !self.state.setup_hold || !self.boards.agree() || !self.boards.peg.connected {
            return;
        }
        if self.commit(now, Record::Resume, out).is_ok() {
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

#[cfg(test)]
mod tests {
    use annabella_boards::SensorEvent;
    use shakmaty::{Bitboard, Color, Position, Square};

    use crate::control::{Role, TableRequest};
    use crate::event::{BoardId, TableEvent};
    use crate::record::Record;
    use crate::state::{Input, Now, Step, Table, TableSettings};
    use annabella_chess::language::Language;

    fn settings() -> TableSettings {
        TableSettings::new(
            "t".parse().unwrap(),
            Color::White,
            Language::english(),
            "300".parse().unwrap(),
        )
    }

    fn journal(lines: &mut Vec<(u64, String)>, step: &Step) {
        for (entry, wall) in step.records.iter().zip(&step.walls) {
            lines.push((*wall, entry.to_string()));
        }
    }

    fn start() -> Bitboard {
        shakmaty::Chess::default().board().occupied()
    }

    /// The peg board (re)connects and shows `holes`.
    fn peg_shows(t: &mut Table, lines: &mut Vec<(u64, String)>, at: u64, holes: Bitboard) {
        let link = Input::Link {
            board: BoardId::Peg,
            up: true,
            detail: "test".into(),
        };
        journal(lines, &t.handle(Now::at(at), link));
        let _ = snapshot(t, lines, at + 1, holes);
    }

    fn snapshot(t: &mut Table, lines: &mut Vec<(u64, String)>, at: u64, holes: Bitboard) -> Step {
        let shown = Input::Sensor {
            board: BoardId::Peg,
            event: SensorEvent::Occupancy(holes),
        };
        let step = t.handle(Now::at(at), shown);
        journal(lines, &step);
        step
    }

    fn started(step: &Step) -> bool {
        step.events()
            .any(|e| *e == TableEvent::ClockRunning { running: true })
    }

    /// The set-up half done: the e2 pawn still beside the board.
    fn half_set_up() -> Bitboard {
        let mut holes = start();
        holes.discard(Square::E2);
        holes
    }

    #[test]
    fn a_game_begun_at_a_restart_waits_for_the_set_up_with_no_time_run() {
        let (mut t, step) = Table::next_game(settings(), Now::at(1_000), true).unwrap();
        let records: Vec<String> = step.records.iter().map(|e| e.record.to_string()).collect();
        assert_eq!(records.last().map(String::as_str), Some("hold-set-up"));
        assert!(t.state.setup_hold && t.clock().is_paused());
        let mut lines = Vec::new();
        journal(&mut lines, &step);
        peg_shows(&mut t, &mut lines, 50_000, half_set_up());
        assert!(t.clock().is_paused(), "a board not set up starts nothing");
        let step = snapshot(&mut t, &mut lines, 90_000, start());
        assert!(started(&step), "{step:?}");
        assert_eq!(t.clock().used(Color::White, 90_000), 0);
        assert_eq!(t.clock().running(), Some(Color::White));
        // Without a peg board nothing could say it is set up: the clock runs at once.
        let (t, _) = Table::next_game(settings(), Now::at(1_000), false).unwrap();
        assert!(!t.clock().is_paused());
    }

    #[test]
    fn a_board_set_up_already_when_it_connects_starts_the_clock() {
        let (mut t, step) = Table::next_game(settings(), Now::at(1_000), true).unwrap();
        let mut lines = Vec::new();
        journal(&mut lines, &step);
        peg_shows(&mut t, &mut lines, 2_000, start());
        assert_eq!(t.clock().running(), Some(Color::White));
        assert_eq!(t.clock().used(Color::White, 2_001), 0);
    }

    #[test]
    fn the_wait_for_the_set_up_survives_a_restart() {
        let (mut t, step) = Table::next_game(settings(), Now::at(1_000), true).unwrap();
        let mut lines = Vec::new();
        journal(&mut lines, &step);
        peg_shows(&mut t, &mut lines, 2_000, half_set_up());
        // The daemon restarts: the journal says the clock waits for the set-up.
        let mut back = Table::restore(settings(), &lines).unwrap();
        assert!(back.state.setup_hold && back.clock().is_paused());
        peg_shows(&mut back, &mut lines, 60_000, half_set_up());
        assert!(back.clock().is_paused());
        let step = snapshot(&mut back, &mut lines, 70_000, start());
        assert!(started(&step), "{step:?}");
        assert_eq!(back.clock().used(Color::White, 70_000), 0);
        // And that start is journaled too.
        let again = Table::restore(settings(), &lines).unwrap();
        assert!(!again.state.setup_hold);
        assert_eq!(again.clock().running(), Some(Color::White));
    }

    #[test]
    fn the_arbiters_pause_is_not_ended_by_the_boards() {
        let (mut t, step) = Table::next_game(settings(), Now::at(1_000), true).unwrap();
        let mut lines = Vec::new();
        journal(&mut lines, &step);
        peg_shows(&mut t, &mut lines, 2_000, half_set_up());
        // The arbiter stops the clocks himself during the set-up: the stop is his.
        let (reply, step) = t.request(
            Now::at(3_000),
            Role::Arbiter,
            Language::english(),
            &TableRequest::Pause,
        );
        assert!(reply.is_ok(), "{reply:?}");
        journal(&mut lines, &step);
        let step = snapshot(&mut t, &mut lines, 4_000, start());
        assert!(!started(&step) && t.clock().is_paused(), "{step:?}");
        // Nor after a restart.
        let mut back = Table::restore(settings(), &lines).unwrap();
        assert!(!back.state.setup_hold);
        peg_shows(&mut back, &mut lines, 9_000, start());
        assert!(back.clock().is_paused());
        // His `resume` starts it.
        let (reply, _) = back.request(
            Now::at(10_000),
            Role::Arbiter,
            Language::english(),
            &TableRequest::Resume,
        );
        assert!(reply.is_ok(), "{reply:?}");
        assert_eq!(back.clock().running(), Some(Color::White));
    }

    #[test]
    fn an_old_journals_pause_at_the_start_reads_as_the_arbiters() {
        let lines: Vec<(u64, String)> = vec![
            (
                0,
                "0 begin 0 300 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            ),
            (0, "0 pause".into()),
        ];
        let back = Table::restore(settings(), &lines).unwrap();
        assert!(back.clock().is_paused() && !back.state.setup_hold);
        assert_eq!(
            "hold-set-up".parse::<Record>().ok(),
            Some(Record::HoldForSetUp)
        );
    }
}
