//! The peg board's key strip by itself (`docs/peg-protocol.md`): what a key press means, given
//! the little the strip needs to know of the game, as a typed [`KeyAnswer`] — a request the key
//! stands for, something to tell the blind player, or a move of the game to read out. It keeps
//! what the keys remember between presses (`KH` stepping back, a first `KX`); the table turns
//! its answers into words and requests (`keys.rs`).

use annabella_boards::{BoardKey, Millis};
use shakmaty::Role;

/// How long after a first `KX` a second one resigns (table time). A single press, made by
/// mistake while feeling for another key, must never end the game.
pub const RESIGN_CONFIRM_MS: Millis = 5_000;

/// What the strip needs to know of the table at a press.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct KeyContext {
    /// Table time of the press.
    pub now_ms: Millis,
    /// Half-moves played.
    pub plies: usize,
    /// Half-moves the peg board shows (fewer than `plies` while it owes the opponent's move).
    pub owed_ply: usize,
    /// The peg board differs from the game (its player is being guided back).
    pub differs: bool,
    pub over: bool,
    /// The blind player's side is to move.
    pub his_turn: bool,
    /// His sheet (a) lags, waiting for him to confirm the moves read out.
    pub sheet_lags: bool,
}

/// A request a key stands for, made with the blind player's role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum KeyRequest {
    /// `KD`: `offer-draw` (or the agreement, when the opponent's offer stands).
    OfferDraw,
    /// `KC`: `claim-draw` on the position as it stands.
    ClaimDraw,
    /// `KX` twice: `resign`.
    Resign,
    /// `KS`: `confirm a`.
    ConfirmSheet,
}

/// A fixed answer in the language's words (the event word's key).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum KeyWord {
    NoMove,
    HistoryStart,
    GameOver,
    NotPossible,
    Unknown,
    ResignConfirm,
    NothingToConfirm,
    ClaimNotYourTurn,
}

impl KeyWord {
    /// The language's key for these words.
    pub fn key(self) -> &'static str {
        match self {
            KeyWord::NoMove => "key_no_move",
            KeyWord::HistoryStart => "key_history_start",
            KeyWord::GameOver => "key_game_over",
            KeyWord::NotPossible => "key_not_possible",
            KeyWord::Unknown => "key_unknown",
            KeyWord::ResignConfirm => "key_resign_confirm",
            KeyWord::NothingToConfirm => "key_nothing_to_confirm",
            KeyWord::ClaimNotYourTurn => "key_claim_not_your_turn",
        }
    }
}

/// What a key press asks of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum KeyAnswer {
    /// `KQ` `KR` `KB` `KN`: the detector's to read (the promotion choice).
    Promotion(Role),
    /// `KA` while the board differs: what he heard last (the correction), or else the last
    /// move.
    LastSaid,
    /// `KT`: both clocks, whose turn, the moves to the control.
    Time,
    /// `KO`: his own time.
    OwnTime,
    /// `KH`: the game's move at this half-move (0-based), with its number and colour.
    Move(usize),
    /// `KZ`: his board is set up.
    SetUp,
    Request(KeyRequest),
    Say(KeyWord),
}

/// What the keys remember between presses. Not journaled: after a restart `KH` starts again
/// at the last move and a half-made resignation is forgotten, as a careful arbiter would want.
#[derive(Clone, Debug, Default)]
pub(super) struct KeyStrip {
    /// `KH`: the game's length when the stepping began and how many moves back the last press
    /// went. Any other key, or a move played, starts it again from the last move.
    history: Option<(usize, usize)>,
    /// `KX`: the table time of a first press still waiting for its second.
    resign_armed_at: Option<Millis>,
}

impl KeyStrip {
    /// What `key` asks for now. Any key but `KH` ends the stepping back; any key but `KX`
    /// cancels a first `KX`.
    pub fn press(&mut self, key: BoardKey, at: KeyContext) -> KeyAnswer {
        let history = self.history.take();
        let armed = self.resign_armed_at.take();
        match key {
            BoardKey::Promote(role) => KeyAnswer::Promotion(role),
            BoardKey::Repeat => Self::again(at),
            BoardKey::Time => KeyAnswer::Time,
            BoardKey::OwnTime => KeyAnswer::OwnTime,
            BoardKey::History => self.history(history, at.plies),
            BoardKey::Draw => KeyAnswer::Request(KeyRequest::OfferDraw),
            BoardKey::Claim if !at.over && !at.his_turn => {
                KeyAnswer::Say(KeyWord::ClaimNotYourTurn)
            }
            BoardKey::Claim => KeyAnswer::Request(KeyRequest::ClaimDraw),
            BoardKey::Resign => self.resign(armed, at),
            BoardKey::ConfirmSheet if at.sheet_lags => KeyAnswer::Request(KeyRequest::ConfirmSheet),
            BoardKey::ConfirmSheet => KeyAnswer::Say(KeyWord::NothingToConfirm),
            BoardKey::SetUp => KeyAnswer::SetUp,
            // The desk answers these before a table sees them; a table at a board has no
            // other games to turn to.
            BoardKey::NextGame | BoardKey::ListGames => KeyAnswer::Say(KeyWord::NotPossible),
            // The table answers `KM` itself (`keys.rs`), before the strip.
            BoardKey::Message | BoardKey::AcceptHeld => KeyAnswer::Say(KeyWord::NotPossible),
            BoardKey::Other(_) => KeyAnswer::Say(KeyWord::Unknown),
        }
    }

    /// `KA`: the move the board still owes (the opponent's, to replicate); while the board
    /// differs from the game, the correction said last; otherwise the game's last move. Never
    /// a confirmation such as "in Ordnung", which says nothing about the game.
    fn again(at: KeyContext) -> KeyAnswer {
        if at.owed_ply < at.plies {
            KeyAnswer::Move(at.owed_ply)
        } else if at.differs {
            KeyAnswer::LastSaid
        } else {
            match at.plies.checked_sub(1) {
                Some(last) => KeyAnswer::Move(last),
                None => KeyAnswer::Say(KeyWord::NoMove),
            }
        }
    }

    /// `KH`: the last move at the first press, one move further back at each further one;
    /// before the first move, that there is none.
    fn history(&mut self, history: Option<(usize, usize)>, plies: usize) -> KeyAnswer {
        let back = match history {
            Some((anchor, back)) if anchor == plies => (back + 1).min(plies),
            _ => 0,
        };
        self.history = Some((plies, back));
        match (plies - back).checked_sub(1) {
            Some(ply) => KeyAnswer::Move(ply),
            None if plies == 0 => KeyAnswer::Say(KeyWord::NoMove),
            None => KeyAnswer::Say(KeyWord::HistoryStart),
        }
    }

    /// `KX`: the first press only asks for a second; a second within [`RESIGN_CONFIRM_MS`]
    /// resigns.
    fn resign(&mut self, armed: Option<Millis>, at: KeyContext) -> KeyAnswer {
        let confirmed = armed.is_some_and(|t| at.now_ms.saturating_sub(t) <= RESIGN_CONFIRM_MS);
        if at.over {
            KeyAnswer::Say(KeyWord::GameOver)
        } else if confirmed {
            KeyAnswer::Request(KeyRequest::Resign)
        } else {
            self.resign_armed_at = Some(at.now_ms);
            KeyAnswer::Say(KeyWord::ResignConfirm)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(now_ms: Millis, plies: usize) -> KeyContext {
        KeyContext {
            now_ms,
            plies,
            owed_ply: plies,
            differs: false,
            over: false,
            his_turn: true,
            sheet_lags: false,
        }
    }

    #[test]
    fn history_steps_back_one_move_a_press_and_starts_again_after_another_key() {
        let mut strip = KeyStrip::default();
        let presses: Vec<KeyAnswer> = (0..5)
            .map(|i| strip.press(BoardKey::History, at(i, 3)))
            .collect();
        assert_eq!(
            presses,
            [
                KeyAnswer::Move(2),
                KeyAnswer::Move(1),
                KeyAnswer::Move(0),
                KeyAnswer::Say(KeyWord::HistoryStart),
                KeyAnswer::Say(KeyWord::HistoryStart),
            ]
        );
        assert_eq!(strip.press(BoardKey::Time, at(6, 3)), KeyAnswer::Time);
        assert_eq!(strip.press(BoardKey::History, at(7, 3)), KeyAnswer::Move(2));
        // A move played meanwhile: from the (new) last move again.
        assert_eq!(strip.press(BoardKey::History, at(8, 4)), KeyAnswer::Move(3));
        assert_eq!(
            KeyStrip::default().press(BoardKey::History, at(0, 0)),
            KeyAnswer::Say(KeyWord::NoMove)
        );
    }

    #[test]
    fn only_a_second_resign_within_five_seconds_resigns() {
        let mut strip = KeyStrip::default();
        let ask = KeyAnswer::Say(KeyWord::ResignConfirm);
        assert_eq!(strip.press(BoardKey::Resign, at(1_000, 10)), ask);
        assert_eq!(
            strip.press(BoardKey::Resign, at(6_000, 10)),
            KeyAnswer::Request(KeyRequest::Resign)
        );
        // Too late: the second press asks again.
        assert_eq!(strip.press(BoardKey::Resign, at(20_000, 10)), ask);
        assert_eq!(strip.press(BoardKey::Resign, at(25_001, 10)), ask);
        // Another key between the presses cancels the first.
        assert_eq!(
            strip.press(BoardKey::Repeat, at(25_500, 10)),
            KeyAnswer::Move(9)
        );
        assert_eq!(strip.press(BoardKey::Resign, at(26_000, 10)), ask);
        let over = KeyContext {
            over: true,
            ..at(26_500, 10)
        };
        assert_eq!(
            strip.press(BoardKey::Resign, over),
            KeyAnswer::Say(KeyWord::GameOver)
        );
    }

    #[test]
    fn again_says_the_owed_move_then_the_correction_then_the_last_move() {
        let mut strip = KeyStrip::default();
        let owes = KeyContext {
            owed_ply: 6,
            differs: true,
            ..at(0, 7)
        };
        assert_eq!(strip.press(BoardKey::Repeat, owes), KeyAnswer::Move(6));
        let differs = KeyContext {
            differs: true,
            ..at(0, 7)
        };
        assert_eq!(strip.press(BoardKey::Repeat, differs), KeyAnswer::LastSaid);
        assert_eq!(strip.press(BoardKey::Repeat, at(0, 7)), KeyAnswer::Move(6));
        assert_eq!(
            strip.press(BoardKey::Repeat, at(0, 0)),
            KeyAnswer::Say(KeyWord::NoMove)
        );
    }

    #[test]
    fn claims_and_sheet_confirmations_only_when_they_can_be_made() {
        let mut strip = KeyStrip::default();
        let waiting = KeyContext {
            his_turn: false,
            ..at(0, 5)
        };
        assert_eq!(
            strip.press(BoardKey::Claim, waiting),
            KeyAnswer::Say(KeyWord::ClaimNotYourTurn)
        );
        assert_eq!(
            strip.press(BoardKey::Claim, at(0, 5)),
            KeyAnswer::Request(KeyRequest::ClaimDraw)
        );
        assert_eq!(
            strip.press(BoardKey::ConfirmSheet, at(0, 5)),
            KeyAnswer::Say(KeyWord::NothingToConfirm)
        );
        let lags = KeyContext {
            sheet_lags: true,
            ..at(0, 5)
        };
        assert_eq!(
            strip.press(BoardKey::ConfirmSheet, lags),
            KeyAnswer::Request(KeyRequest::ConfirmSheet)
        );
        assert_eq!(
            strip.press(BoardKey::ListGames, at(0, 5)),
            KeyAnswer::Say(KeyWord::NotPossible)
        );
        assert_eq!(
            strip.press(BoardKey::Other('W'), at(0, 5)),
            KeyAnswer::Say(KeyWord::Unknown)
        );
    }
}
