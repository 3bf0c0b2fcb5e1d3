//! A correspondence game's time in days, kept beside the game: the day clock
//! (`annabella_correspondence::day_clock`) started at the game's first record and charged with
//! each move's wall time, its penalties and leave, rebuilt from the moves when moves are taken
//! back; and what the blind player hears of it ("Weiß noch zwölf Tage, Schwarz noch acht
//! Tage"). Wall time, not table time: correspondence days are calendar days, and a message's
//! dates are the post's.

use shakmaty::Color;

use crate::control::{ErrorCode, Refusal, Role};
use crate::record::Record;
use crate::state::game_state::{DayEvent, GameState};
use crate::state::words::color_name;
use crate::state::{Answer, ApplyError, Now, Reply, Step, Table};
use annabella_correspondence::day_clock::{
    DayClock, DayReading, Leave, both_sides_phrase, days_left_phrase,
};
use annabella_correspondence::message::Date;

impl GameState {
    /// The game began at `unix_ms`: the side to move's days run from then.
    pub(super) fn days_begin(&mut self, unix_ms: u64) {
        let turn = self.game.turn();
        if let Some(days) = &mut self.days {
            days.start(turn, unix_ms);
        }
    }

    /// `mover` moved at `unix_ms`: his days are charged, the other side's run.
    pub(super) fn days_moved(&mut self, mover: Color, unix_ms: u64) {
        let over = self.game.is_over();
        let Some(days) = &mut self.days else {
            return;
        };
        // The day clock follows the game's turns, so it always takes the move.
        let charge = days.moved(mover, unix_ms).ok();
        if over {
            days.stop();
        }
        self.day_charges.push(charge);
    }

    /// A penalty or leave: applied now and kept for a rebuild.
    pub(super) fn days_event(&mut self, event: DayEvent) -> Result<(), ApplyError> {
        let Some(days) = &mut self.days else {
            return Err(ApplyError::NotInDays);
        };
        apply_event(days, event)?;
        self.day_events.push((self.game.ply_count(), event));
        Ok(())
    }

    /// The game was cut back to `plies` half-moves: the day clock is counted again from the
    /// moves that remain (a day clock cannot give days back by itself).
    pub(super) fn days_cut(&mut self, plies: usize) {
        let Some(old) = &self.days else {
            return;
        };
        let mut days = DayClock::new(*old.control());
        let start_turn = shakmaty::Position::turn(self.game.start_position());
        days.start(start_turn, self.began_at_unix_ms);
        self.day_events.retain(|(at, _)| *at <= plies);
        self.day_charges.clear();
        let mut events = self.day_events.iter().peekable();
        let mut mover = start_turn;
        for ply in 0..=plies {
            while let Some((_, e)) = events.next_if(|(at, _)| *at == ply) {
                // Each was accepted once, in this same order.
                apply_event(&mut days, *e).ok();
            }
            if ply == plies {
                break;
            }
            let charge = self
                .plies
                .get(ply)
                .and_then(|p| days.moved(mover, p.unix_ms).ok());
            self.day_charges.push(charge);
            mover = !mover;
        }
        self.days = Some(days);
    }
}

fn apply_event(days: &mut DayClock, event: DayEvent) -> Result<(), ApplyError> {
    match event {
        DayEvent::Penalty(color) => {
            let penalty = days.control().rules.set().illegal_move_days;
            days.penalize(color, penalty);
            Ok(())
        }
        DayEvent::Leave(leave) => Ok(days.leave(leave)?),
    }
}

impl Table {
    /// The day clock's reading now, in a correspondence game.
    pub(super) fn day_reading(&self, now_unix_ms: u64) -> Option<DayReading> {
        self.state.days.as_ref().map(|d| d.reading(now_unix_ms))
    }

    /// Both sides' days left in words ("Weiß noch zwölf Tage, Schwarz noch acht Tage").
    pub(super) fn days_words(&self, now_unix_ms: u64) -> Option<String> {
        self.day_reading(now_unix_ms)
            .map(|r| both_sides_phrase(&r, self.announcer.vocab()))
    }

    /// One side's days left in words ("noch siebenunddreißig Tage").
    pub(super) fn side_days_words(&self, color: Color, now_unix_ms: u64) -> Option<String> {
        self.day_reading(now_unix_ms)
            .map(|r| days_left_phrase(r.side(color), self.announcer.vocab()))
    }
}

impl Table {
    /// `leave COLOR FROM TO`: days of leave in a correspondence game, for the player himself,
    /// his assistant or the arbiter; refused when they overlap his other leave or pass the
    /// rules' allowance for the year.
    pub(super) fn leave(
        &mut self,
        now: Now,
        role: Role,
        color: Color,
        from: &str,
        to: &str,
        out: &mut Step,
    ) -> Reply {
        if self.settings.days.is_none() {
            return Err(Refusal::new(
                ErrorCode::State,
                "leave is for a correspondence game (kind = \"correspondence\")",
            ));
        }
        if matches!(role, Role::Player(c) if c != color) {
            return Err(Refusal::new(
                ErrorCode::Forbidden,
                format!(
                    "only the {} player or the arbiter may take his leave",
                    color_name(color)
                ),
            ));
        }
        let date = |text: &str| {
            Date::parse(text).ok_or_else(|| {
                Refusal::new(
                    ErrorCode::Syntax,
                    format!(
                        "{:?} is no date; like 2026-12-20",
                        text.chars().take(40).collect::<String>()
                    ),
                )
            })
        };
        let leave = Leave {
            color,
            from: date(from)?,
            to: date(to)?,
        };
        if leave.to < leave.from {
            return Err(Refusal::new(
                ErrorCode::Syntax,
                format!(
                    "the leave ends ({}) before it begins ({})",
                    leave.to, leave.from
                ),
            ));
        }
        self.commit(now, Record::Leave { leave }, out)
            .map_err(|e| Refusal::new(ErrorCode::State, e.to_string()))?;
        Ok(Answer::LeaveTaken {
            leave: leave.to_string(),
        })
    }
}
