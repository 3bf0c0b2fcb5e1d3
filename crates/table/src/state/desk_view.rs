//! What the correspondence desk sees of one table: the position its peg board must show, what
//! the peg board is believed to hold while the table has it, and the game's state in words for
//! the blind player when he turns to the game (`focus`) or lists his games.

use shakmaty::{Board, Color, Position};

use crate::control::GameTag;
use crate::state::Table;
use crate::state::game_name::spoken_name;
use crate::state::game_state::DayEvent;
use annabella_chess::game::Game;
use annabella_chess::language::Language;
use annabella_chess::phrases::color_phrase;
use annabella_correspondence::day_clock::{
    DayClock, Leave, MoveCharge, both_sides_phrase, days_left_phrase,
};

/// A table as the desk sees it after each step (`Table::desk_view`).
#[derive(Debug, Clone)]
pub struct DeskView {
    /// The game's position: what the peg board must show to play this game.
    pub target: Board,
    /// The pieces the peg board holds, while this table has it and it agrees with the game
    /// (`None` otherwise): what the desk hands to the next game.
    pub peg_agrees: Option<Board>,
    /// The game, for checking a message's record against it.
    pub game: Game,
    /// The blind player's colour.
    pub peg_side: Color,
    /// When each move was made (Unix ms), in step with the game's moves.
    pub move_times: Vec<u64>,
    /// Whose move, the last move of each side with its number, the days left, in words.
    pub state_words: String,
    /// "Weiß am Zug, noch zwölf Tage" or the result, in words: one entry of the spoken list.
    pub turn_words: String,
    /// What the last move cost in days and both sides' totals (a correspondence game).
    pub last_charge: Option<MoveCharge>,
    /// The half-moves the blind player has released to be mailed: the replies follow this,
    /// not the game's length (with the confirm step, his move waits for `send`).
    pub released_plies: usize,
    /// A draw offer standing, by this side.
    pub draw_offer: Option<Color>,
    /// A claim of the game on time by this side, waiting for the arbiter's result.
    pub claim: Option<Color>,
    /// His message for the server with the half-moves released when he wrote it
    /// (`my-message`): the server desk sends it with his first call from there.
    pub my_message: Option<(usize, String)>,
    /// The game for the ear: "gegen Carol King, Sie haben Schwarz" ([`spoken_name`]); the
    /// game's identifier only when the opponent's name is not known.
    pub spoken_name: String,
    /// The day clock, to say the days as of the moment asked (`state_words_at`).
    pub days: Option<DayClock>,
    /// Whose move and the last moves in words, without the days: `state_words_at` adds them.
    pub head_words: Vec<String>,
    /// The table's language.
    pub lang: &'static Language,
    /// The game's id when `new-game game_id` changed it (`None`: the configured one).
    pub game_id: Option<String>,
    /// When the game began (Unix ms): with the id, which game of the table this is.
    pub began_unix_ms: u64,
    /// The leave entered in this game, both sides' (the replies mail his).
    pub leaves: Vec<Leave>,
}

impl DeskView {
    /// His last move waits for `send` (the confirm step).
    pub fn unsent(&self) -> bool {
        self.released_plies < self.game.ply_count()
    }

    /// The side whose days are over at `now_unix_ms`, in a game in progress.
    pub fn exceeded(&self, now_unix_ms: u64) -> Option<Color> {
        if self.game.is_over() {
            return None;
        }
        self.days.as_ref()?.reading(now_unix_ms).exceeded()
    }

    /// `state_words` as of `now_unix_ms`: the days counted to the moment asked, not to the
    /// table's last step.
    pub fn state_words_at(&self, now_unix_ms: u64) -> String {
        let mut parts = self.head_words.clone();
        if !self.game.is_over()
            && let Some(days) = &self.days
        {
            parts.push(both_sides_phrase(
                &days.reading(now_unix_ms),
                self.lang.vocabulary(),
            ));
        }
        parts.join(". ")
    }

    /// `turn_words` as of `now_unix_ms`.
    pub fn turn_words_at(&self, now_unix_ms: u64) -> String {
        let turn = self.head_words.first().cloned().unwrap_or_default();
        match &self.days {
            Some(days) if !self.game.is_over() => {
                let reading = days.reading(now_unix_ms);
                let side = reading.side(self.game.turn());
                format!("{turn}, {}", days_left_phrase(side, self.lang.vocabulary()))
            }
            _ => turn,
        }
    }
}

impl Table {
    /// The table as the desk sees it at wall time `now_unix_ms` (its days left then).
    pub fn desk_view(&self, now_unix_ms: u64) -> DeskView {
        let game = &self.state.game;
        let plies = game.ply_count();
        let turn = match game.outcome() {
            Some(_) => self.announcer.word("key_game_over"),
            None => {
                let color = color_phrase(game.turn(), self.announcer.vocab());
                self.announcer.fill("key_turn", &[("color", &color)])
            }
        };
        // The list names the days of the side to move; the state, both sides' days.
        let turn_words = match self.side_days_words(game.turn(), now_unix_ms) {
            Some(days) if !game.is_over() => format!("{turn}, {days}"),
            _ => turn.clone(),
        };
        let mut parts = vec![turn];
        // The last move of each side, oldest first, each with its number and colour.
        for ply in plies.saturating_sub(2)..plies {
            if let Some(words) = self.announcer.numbered_move(&self.state.game, ply) {
                parts.push(words);
            }
        }
        if plies == 0 {
            parts.push(self.announcer.word("key_no_move"));
        }
        let head_words = parts.clone();
        if let Some(days) = self.days_words(now_unix_ms).filter(|_| !game.is_over()) {
            parts.push(days);
        }
        let peg = &self.boards.peg;
        let agrees = peg.connected && !peg.differs && !peg.owes(game);
        DeskView {
            target: game.position().board().clone(),
            peg_agrees: agrees.then(|| peg.feed.detector().believed().clone()),
            game: game.clone(),
            peg_side: self.settings.peg_side,
            move_times: self.state.plies.iter().map(|p| p.unix_ms).collect(),
            state_words: parts.join(". "),
            turn_words,
            last_charge: self.state.day_charges.last().copied().flatten(),
            released_plies: self.released_plies(),
            draw_offer: self.state.draw_offer,
            claim: self.state.time_claim.filter(|_| !game.is_over()),
            my_message: self.state.my_message.clone(),
            spoken_name: spoken_name(
                self.opponent_name().as_deref(),
                self.settings.peg_side,
                self.settings
                    .correspondence
                    .as_deref()
                    .unwrap_or(&self.settings.name),
                self.announcer.vocab(),
            ),
            days: self.state.days.clone(),
            head_words,
            lang: self.settings.lang,
            game_id: self.state.tags.get(&GameTag::GameId).cloned(),
            began_unix_ms: self.state.began_at_unix_ms,
            leaves: self
                .state
                .day_events
                .iter()
                .filter_map(|(_, e)| match e {
                    DayEvent::Leave(l) => Some(*l),
                    DayEvent::Penalty(_) => None,
                })
                .collect(),
        }
    }
}
