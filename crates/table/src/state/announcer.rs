//! The table's announcer: what is said to whom, in which words and with which urgency. It
//! turns what happened (a move played, a control reached, the end, a clock call, a game
//! begun) into [`Say`] events in the table's language and style, and remembers what the blind
//! player heard last (`KA` repeats it while his board differs). Everything it needs of the
//! game comes as parameters, so it is tested without a table.

use shakmaty::{Chess, Color, Move, Position};

use crate::clock::{Bonus, TimeControl};
use crate::event::{About, BoardId, Listener, Say, Urgency};
use crate::reconcile::Side;
use crate::state::TableSettings;
use crate::state::board_pair::LinkNews;
use crate::state::two_sheets::WrongEntry;
use annabella_chess::game::{DrawReason, EndReason, Game, GameEnd};
use annabella_chess::language::Language;
use annabella_chess::notation::{Style, Verbosity};
use annabella_chess::phrases::{
    Event, color_phrase, duration_phrase, event_phrase, move_count_phrase, move_phrase,
    number_phrase, sheet_correction_phrase, square_phrase,
};
use annabella_chess::vocabulary::{Vocabulary, fill};

/// Who is told what at one table.
#[derive(Clone, Debug)]
pub(super) struct Announcer {
    lang: &'static Language,
    verbosity: Verbosity,
    name_captured: bool,
    /// The side the blind player plays.
    peg_side: Color,
    /// Confirm the blind player's own moves aloud.
    confirm_own_moves: bool,
    /// A game by mail: its name, said with the opponent's moves.
    correspondence: Option<String>,
    /// What the blind player heard last, for `KA` while his board differs.
    last_to_blind: Option<String>,
    /// One voiced output serves both the blind player and the opponent: a board's sentences
    /// say whose board it is ("Ihr Brett stimmt wieder", "Das Brett des Gegners …").
    shared_speaker: bool,
    /// What each listener (blind player, opponent, arbiter) was told last: guidance in the
    /// same words as that is not said again (a correction concluded twice is said once).
    last_said: [Option<String>; 3],
}

impl Announcer {
    pub fn new(settings: &TableSettings) -> Announcer {
        Announcer {
            lang: settings.lang,
            verbosity: settings.verbosity,
            name_captured: settings.name_captured,
            peg_side: settings.peg_side,
            confirm_own_moves: settings.confirm_own_moves,
            correspondence: settings.correspondence.clone(),
            last_to_blind: None,
            shared_speaker: settings.shared_speaker,
            last_said: Default::default(),
        }
    }

    pub fn vocab(&self) -> &'static Vocabulary {
        self.lang.vocabulary()
    }

    /// The announcements' style: the table's language, verbosity and captures setting.
    pub fn style(&self) -> Style<'static> {
        let mut style = Style::new(self.lang);
        style.verbosity = self.verbosity;
        style.name_captured = self.name_captured;
        style
    }

    /// An event word of the language, or its key when the language lacks it.
    pub fn word(&self, key: &str) -> String {
        self.vocab().event(key).unwrap_or(key).to_owned()
    }

    /// A template of the language filled with `args`.
    pub fn fill(&self, key: &str, args: &[(&str, &str)]) -> String {
        fill(&self.word(key), args)
    }

    /// What the blind player heard last.
    pub fn last_to_blind(&self) -> Option<&str> {
        self.last_to_blind.as_deref()
    }

    /// `text` said to `listener`, about `about`; what the blind player hears is kept.
    pub fn say(&mut self, listener: Listener, text: String, urgency: Urgency, about: About) -> Say {
        if listener == Listener::BlindPlayer {
            self.last_to_blind = Some(text.clone());
        }
        for (slot, who) in self.last_said.iter_mut().zip(HEARERS) {
            if listener == who || listener == Listener::Everyone {
                *slot = Some(text.clone());
            }
        }
        Say {
            listener,
            text,
            urgency,
            about,
            lang: self.lang.code(),
            id: 0,
        }
    }

    /// Guidance `text` to `listener`, unless it is what he was told last: the same correction
    /// concluded again (a board judged twice before the hand moved) is not said twice in a row.
    /// `KA`, which asks for it again, does not come this way.
    fn guidance(&mut self, listener: Listener, text: String, urgency: Urgency) -> Option<Say> {
        let last = HEARERS
            .iter()
            .position(|&who| who == listener)
            .and_then(|i| self.last_said[i].as_deref());
        if last == Some(text.as_str()) {
            return None;
        }
        Some(self.say(listener, text, urgency, About::Other))
    }

    /// Whose board `board` is, in words, when one voiced output serves both players (else
    /// `None`: on his own output each hears only about his own board).
    pub fn whose(&self, board: BoardId) -> Option<String> {
        self.shared_speaker.then(|| {
            self.word(match board {
                BoardId::Peg => "board_of_blind",
                BoardId::Normal => "board_of_opponent",
            })
        })
    }

    /// `words` about `board` ("Ihr Brett: Springer von …" on a shared output).
    pub fn on_board(&self, board: BoardId, words: String) -> String {
        match self.whose(board) {
            Some(whose) => self.fill("on_board", &[("board", &whose), ("words", &words)]),
            None => words,
        }
    }

    /// A board's sentence: `key` ("board_correct"), or on a shared output `key_of` filled with
    /// whose board it is ("Das Brett des Gegners stimmt wieder").
    fn board_sentence(&self, board: BoardId, key: &str) -> String {
        match self.whose(board) {
            Some(whose) => self.fill(&format!("{key}_of"), &[("board", &whose)]),
            None => self.word(key),
        }
    }

    /// "Brett stimmt nicht mit der Partie überein", with whose board on a shared output.
    pub fn mismatch_words(&self, board: BoardId) -> String {
        self.board_sentence(board, "board_mismatch")
    }

    /// A board differs from the game: `header` (what is wrong) with the first correction
    /// only, urgently to its player; the next ones follow as he makes them.
    /// `first` is the correction in words (`Table::correction_words`). `again`: the board
    /// already differed (judged again before the hand put it right); then `None` when its
    /// player was told exactly this last.
    pub fn guide(
        &mut self,
        board: BoardId,
        header: String,
        first: Option<String>,
        again: bool,
    ) -> Option<Say> {
        let mut words = vec![header];
        words.extend(first);
        let text = words.join(". ");
        if again {
            self.guidance(listener_of(board), text, Urgency::Urgent)
        } else {
            Some(self.say(listener_of(board), text, Urgency::Urgent, About::Other))
        }
    }

    /// The correction said last is done: the next one, to the board's player (`None` when he
    /// was told exactly this last).
    pub fn next_correction(&mut self, board: BoardId, next: String) -> Option<Say> {
        let words = self.on_board(board, next);
        self.guidance(listener_of(board), words, Urgency::Polite)
    }

    /// The board that differed shows the game again ("Brett stimmt wieder"), with the move the
    /// peg board still owes (`owed`, its words).
    pub fn board_correct(&mut self, board: BoardId, owed: Option<String>) -> Say {
        let mut words = vec![self.board_sentence(board, "board_correct")];
        words.extend(owed);
        self.say(
            listener_of(board),
            words.join(". "),
            Urgency::Polite,
            About::Other,
        )
    }

    /// A board's link news, to its player: a loss urgently. At a game by mail nothing: the
    /// desk's board comes and goes with the focus, and the desk says what happens.
    pub fn link(&mut self, board: BoardId, news: LinkNews) -> Option<Say> {
        let (event, urgency) = match news {
            _ if self.correspondence.is_some() => return None,
            LinkNews::Reconnected => (Event::BoardReconnected, Urgency::Polite),
            LinkNews::Disconnected => (Event::BoardDisconnected, Urgency::Urgent),
            LinkNews::Quiet => return None,
        };
        let text = match (event, self.whose(board)) {
            (Event::BoardReconnected, Some(_)) => self.board_sentence(board, "board_reconnected"),
            (_, Some(_)) => self.board_sentence(board, "board_disconnected"),
            (_, None) => event_phrase(event, self.vocab()),
        };
        Some(self.say(listener_of(board), text, urgency, About::Other))
    }

    /// `side`'s sheet lags: the moves missing from it (`read_out`, his words) to its writer.
    pub fn sheet_lags(&mut self, side: Side, read_out: &[String]) -> Say {
        let mut words = vec![self.word("sheet_lags")];
        words.extend(read_out.iter().cloned());
        self.say(
            writer(side),
            words.join(". "),
            Urgency::Polite,
            About::Other,
        )
    }

    /// A sheet entry the game contradicts while both boards show the game: its writer is told
    /// which move to correct, and to what.
    pub fn sheet_correction(&mut self, w: &WrongEntry) -> Say {
        let style = self.style();
        let v = self.vocab();
        let said_played = move_phrase(&w.before, w.played, &style);
        let said_written = if w.before.is_legal(w.written) {
            move_phrase(&w.before, w.written, &style)
        } else {
            // No move there: say its squares.
            let from = w
                .written
                .from()
                .map(|sq| square_phrase(sq, v))
                .unwrap_or_default();
            format!("{from} {}", square_phrase(w.written.to(), v))
                .trim()
                .to_owned()
        };
        let color = w.before.turn();
        let number = w.before.fullmoves().get();
        let text = sheet_correction_phrase(color, number, &said_played, &said_written, v);
        self.say(writer(w.side), text, Urgency::Polite, About::Other)
    }

    /// A word of the two-sheet procedure everyone must hear at once (the sheets differ, the
    /// arbiter's decision on the takeback): everyone was told "the arbiter decides".
    pub fn urgent_to_everyone(&mut self, key: &str) -> Say {
        let text = self.word(key);
        self.say(Listener::Everyone, text, Urgency::Urgent, About::Other)
    }

    /// A move just played from `before` by `mover`, to whoever must hear it: the blind
    /// player's own move to the opponent (and to himself when he asked for confirmations), the
    /// opponent's to the blind player, who replicates it. In his time trouble (`terse`) he
    /// hears the fewest words: no confirmation of the move he has just made, the opponent's
    /// move in its short form.
    /// A correspondence game's move is said with the game's name for the ear (`game`: "gegen
    /// Bob Jones, Sie haben Schwarz"; its id when none is given) and the move's number.
    pub fn moved(
        &mut self,
        before: &Chess,
        m: Move,
        mover: Color,
        terse: bool,
        game: Option<&str>,
    ) -> Vec<Say> {
        let phrase = move_phrase(before, m, &self.style());
        let about = About::Move {
            number: before.fullmoves().get(),
            color: mover,
        };
        let polite = Urgency::Polite;
        let mut said = Vec::new();
        if mover == self.peg_side {
            said.push(self.say(Listener::Opponent, phrase, polite, about));
            if self.confirm_own_moves && !terse {
                let own = move_phrase(before, m, &self.style());
                said.push(self.say(Listener::BlindPlayer, own, polite, about));
            }
        } else {
            let phrase = if terse {
                let mut short = self.style();
                short.verbosity = Verbosity::Short;
                move_phrase(before, m, &short)
            } else {
                phrase
            };
            // Of his many games by mail, he hears which one, and the move's number.
            let phrase = match (game, &self.correspondence) {
                (Some(name), Some(_)) => format!("{name}. {}", self.numbered(before, phrase)),
                (None, Some(id)) => {
                    let game = self.fill("desk_game", &[("game", id)]);
                    format!("{game}. {}", self.numbered(before, phrase))
                }
                (_, None) => phrase,
            };
            said.push(self.say(Listener::BlindPlayer, phrase, polite, about));
        }
        said
    }

    /// A move's words with its number and colour: "Zug zwölf, Weiß: Springer Felix drei".
    fn numbered(&self, before: &Chess, phrase: String) -> String {
        let number = number_phrase(before.fullmoves().get(), self.vocab());
        let color = color_phrase(before.turn(), self.vocab());
        self.fill(
            "key_move",
            &[("number", &number), ("color", &color), ("move", &phrase)],
        )
    }

    /// The game's move at index `ply` (0-based) with its number and colour.
    pub fn numbered_move(&self, game: &Game, ply: usize) -> Option<String> {
        let pos = game.position_before(ply)?;
        let m = *game.moves().get(ply)?;
        let phrase = move_phrase(&pos, m, &self.style());
        Some(self.numbered(&pos, phrase))
    }

    /// A control reached by `mover`'s move: his new period begins with `added_ms`, said to
    /// everyone.
    pub fn control_reached(&mut self, mover: Color, added_ms: u64) -> Say {
        let added = duration_phrase(added_ms, self.vocab());
        let text = self.fill(
            "control_reached",
            &[
                ("color", color_phrase(mover, self.vocab()).as_str()),
                ("time", &added),
            ],
        );
        self.say(Listener::Everyone, text, Urgency::Polite, About::Other)
    }

    /// The end of the game, to everyone: a flag fall is urgent.
    pub fn end(&mut self, end: &GameEnd) -> Say {
        let words = self.end_words(end);
        let urgency = if matches!(end.reason, EndReason::Timeout { .. }) {
            Urgency::Urgent
        } else {
            Urgency::Polite
        };
        self.say(Listener::Everyone, words, urgency, About::Result)
    }

    /// The end in words, as everyone hears it ("Weiß gewinnt", "Patt, Remis"): a mate is said
    /// with its move, so only the result follows it.
    pub fn end_words(&self, end: &GameEnd) -> String {
        let v = self.vocab();
        let mut words = Vec::new();
        let event = match end.reason {
            // Mate is spoken with the move; the result follows.
            EndReason::Checkmate => None,
            EndReason::Stalemate => Some(Event::Stalemate),
            EndReason::InsufficientMaterial => Some(Event::InsufficientMaterial),
            EndReason::FivefoldRepetition => Some(Event::FivefoldRepetition),
            EndReason::SeventyFiveMoveRule => Some(Event::SeventyFiveMoveRule),
            EndReason::Agreement => Some(Event::DrawAgreed),
            EndReason::Claim(DrawReason::ThreefoldRepetition) => {
                Some(Event::ThreefoldRepetitionClaim)
            }
            EndReason::Claim(DrawReason::FiftyMoveRule) => Some(Event::FiftyMoveClaim),
            EndReason::Resignation { by } if end.result.winner().is_none() => {
                Some(Event::ResignsOpponentCannotMate(by))
            }
            EndReason::Resignation { by } => Some(Event::Resigns(by)),
            EndReason::Timeout { flagged } if end.result.winner().is_none() => {
                Some(Event::FlagOpponentCannotMate(flagged))
            }
            EndReason::Timeout { flagged } => Some(Event::LostOnTime(flagged)),
            EndReason::ArbiterDecision => None,
        };
        if let Some(e) = event {
            words.push(event_phrase(e, v));
        }
        let is_draw_event = matches!(
            event,
            Some(
                Event::Stalemate
                    | Event::InsufficientMaterial
                    | Event::FivefoldRepetition
                    | Event::SeventyFiveMoveRule
                    | Event::DrawAgreed
                    | Event::ThreefoldRepetitionClaim
                    | Event::FiftyMoveClaim
                    | Event::ResignsOpponentCannotMate(_)
                    | Event::FlagOpponentCannotMate(_)
            )
        );
        match end.result.winner() {
            Some(c) => words.push(event_phrase(Event::Wins(c), v)),
            None if !is_draw_event => words.push(event_phrase(Event::Draw, v)),
            None => {}
        }
        words.join(". ")
    }

    /// The talking clock calls one side's time, to the blind player; under a minute it is
    /// urgent. In the terse style his own time is the number alone.
    pub fn clock_call(&mut self, color: Color, remaining_ms: u64, terse: bool) -> Say {
        let text = if color == self.peg_side && terse {
            duration_phrase(remaining_ms, self.vocab())
        } else {
            format!(
                "{} {}",
                color_phrase(color, self.vocab()),
                duration_phrase(remaining_ms, self.vocab())
            )
        };
        let urgency = if remaining_ms < 60_000 {
            Urgency::Urgent
        } else {
            Urgency::Polite
        };
        let about = About::ClockCall {
            color,
            remaining_ms,
        };
        self.say(Listener::BlindPlayer, text, urgency, about)
    }

    /// A game begins: everyone hears it with its time control.
    pub fn begin(&mut self, time_control: &TimeControl) -> Say {
        let words = format!(
            "{}. {}",
            self.word("new_game"),
            self.time_control_words(time_control)
        );
        self.say(Listener::Everyone, words, Urgency::Polite, About::Other)
    }

    /// The time control in words ("Bedenkzeit 40 Züge in 90 Minuten plus 30 Sekunden pro Zug,
    /// dann 30 Minuten plus 30 Sekunden pro Zug").
    fn time_control_words(&self, time_control: &TimeControl) -> String {
        let v = self.vocab();
        let periods: Vec<String> = time_control
            .periods()
            .iter()
            .map(|p| {
                let main = duration_phrase(p.seconds * 1000, v);
                let mut words = match p.moves {
                    Some(n) => self.fill(
                        "period_moves",
                        &[("moves", &move_count_phrase(n, v)), ("time", &main)],
                    ),
                    None => main,
                };
                let bonus = duration_phrase(p.bonus.seconds() * 1000, v);
                let key = match p.bonus {
                    Bonus::None => None,
                    Bonus::Increment(_) => Some("increment"),
                    Bonus::Delay(_) | Bonus::Bronstein(_) => Some("delay"),
                };
                if let Some(key) = key {
                    words.push(' ');
                    words.push_str(&self.fill(key, &[("time", &bonus)]));
                }
                words
            })
            .collect();
        self.fill(
            "time_control",
            &[("periods", &periods.join(&self.word("then")))],
        )
    }
}

/// The listeners the announcer remembers the last words of, in `last_said`'s order.
const HEARERS: [Listener; 3] = [Listener::BlindPlayer, Listener::Opponent, Listener::Arbiter];

/// Who writes a sheet: a, the blind player; b, the sighted player.
fn writer(side: Side) -> Listener {
    match side {
        Side::A => Listener::BlindPlayer,
        Side::B => Listener::Opponent,
    }
}

/// Who hears about a board: its player.
pub(super) fn listener_of(board: BoardId) -> Listener {
    match board {
        BoardId::Peg => Listener::BlindPlayer,
        BoardId::Normal => Listener::Opponent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corrections::{Correction, spoken};
    use crate::name::TableName;
    use annabella_chess::game::GameResult;
    use shakmaty::uci::UciMove;

    fn announcer(peg_side: Color, configure: impl FnOnce(&mut TableSettings)) -> Announcer {
        let mut settings = TableSettings::new(
            TableName::new("t1").unwrap(),
            peg_side,
            Language::english(),
            "5+3".parse().unwrap(),
        );
        configure(&mut settings);
        Announcer::new(&settings)
    }

    fn fix_e4() -> Move {
        e4().1
    }

    fn e4() -> (Chess, Move) {
        let pos = Chess::default();
        let m = "e2e4".parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        (pos, m)
    }

    #[test]
    fn his_own_move_goes_to_the_opponent_and_back_to_him_unless_terse() {
        let (pos, m) = e4();
        let mut a = announcer(Color::White, |_| {});
        let said = a.moved(&pos, m, Color::White, false, None);
        let to: Vec<Listener> = said.iter().map(|s| s.listener).collect();
        assert_eq!(to, [Listener::Opponent, Listener::BlindPlayer]);
        assert_eq!(said[0].text, said[1].text);
        assert_eq!(
            said[0].about,
            About::Move {
                number: 1,
                color: Color::White
            }
        );
        assert_eq!(a.last_to_blind(), Some(said[1].text.as_str()));
        let terse = a.moved(&pos, m, Color::White, true, None);
        assert_eq!(terse.len(), 1);
        assert_eq!(terse[0].listener, Listener::Opponent);
    }

    #[test]
    fn the_opponents_move_by_mail_is_said_with_the_game_and_its_number() {
        let (pos, m) = e4();
        let mut plain = announcer(Color::Black, |_| {});
        let mut mail = announcer(Color::Black, |s| s.correspondence = Some("G7".into()));
        let said = plain.moved(&pos, m, Color::White, false, None);
        let by_mail = mail.moved(&pos, m, Color::White, false, None);
        let named = mail.moved(&pos, m, Color::White, false, Some("gegen Bob Jones"));
        assert!(
            named[0].text.starts_with("gegen Bob Jones. "),
            "{}",
            named[0].text
        );
        assert_eq!(said.len(), 1);
        assert_eq!(said[0].listener, Listener::BlindPlayer);
        assert!(by_mail[0].text.contains("G7"), "{}", by_mail[0].text);
        assert!(
            by_mail[0].text.ends_with(&said[0].text),
            "{}",
            by_mail[0].text
        );
        assert_ne!(by_mail[0].text, said[0].text);
    }

    #[test]
    fn a_clock_call_under_a_minute_is_urgent_and_terse_is_the_number_alone() {
        let mut a = announcer(Color::White, |_| {});
        let calm = a.clock_call(Color::Black, 120_000, false);
        let urgent = a.clock_call(Color::White, 30_000, false);
        let terse = a.clock_call(Color::White, 30_000, true);
        assert_eq!(
            (calm.urgency, urgent.urgency),
            (Urgency::Polite, Urgency::Urgent)
        );
        assert_eq!(calm.listener, Listener::BlindPlayer);
        assert!(urgent.text.ends_with(&terse.text));
        assert_ne!(urgent.text, terse.text);
        assert_eq!(a.last_to_blind(), Some(terse.text.as_str()));
    }

    #[test]
    fn a_board_is_guided_urgently_and_a_link_at_a_game_by_mail_is_the_desks_to_say() {
        let mut a = announcer(Color::White, |_| {});
        let fix = Correction::Place {
            square: shakmaty::Square::E2,
            piece: shakmaty::Piece::from_char('P').unwrap(),
        };
        let words = spoken(&fix, a.vocab());
        let guide = a
            .guide(
                BoardId::Peg,
                "Mismatch".to_owned(),
                Some(words.clone()),
                false,
            )
            .unwrap();
        assert_eq!(
            (guide.listener, guide.urgency),
            (Listener::BlindPlayer, Urgency::Urgent)
        );
        assert!(guide.text.starts_with("Mismatch. "), "{}", guide.text);
        assert!(
            guide
                .text
                .ends_with(&a.next_correction(BoardId::Peg, words).unwrap().text)
        );
        let lost = a.link(BoardId::Normal, LinkNews::Disconnected).unwrap();
        assert_eq!(
            (lost.listener, lost.urgency),
            (Listener::Opponent, Urgency::Urgent)
        );
        assert_eq!(a.link(BoardId::Normal, LinkNews::Quiet), None);
        let mut mail = announcer(Color::White, |s| s.correspondence = Some("G7".into()));
        assert_eq!(mail.link(BoardId::Peg, LinkNews::Disconnected), None);
        let written = Move::Normal {
            role: shakmaty::Role::Pawn,
            from: shakmaty::Square::E7,
            capture: None,
            to: shakmaty::Square::E6,
            promotion: None,
        };
        let played = Move::Normal {
            role: shakmaty::Role::Pawn,
            from: shakmaty::Square::E7,
            capture: None,
            to: shakmaty::Square::E5,
            promotion: None,
        };
        let mut before = Chess::default();
        before.play_unchecked(fix_e4());
        let wrong = WrongEntry {
            side: Side::B,
            ply: 2,
            before,
            played,
            written,
        };
        let told = a.sheet_correction(&wrong);
        assert_eq!(
            (told.listener, told.urgency),
            (Listener::Opponent, Urgency::Polite)
        );
        assert_eq!(
            told.text,
            "Please correct the scoresheet: Black's move one is Eva five, not Eva six"
        );
        let lags = a.sheet_lags(Side::B, &["e4".to_owned()]);
        assert_eq!(lags.listener, Listener::Opponent);
        assert!(lags.text.ends_with(". e4"), "{}", lags.text);
    }

    #[test]
    fn the_end_is_said_to_everyone_and_a_flag_fall_urgently() {
        let mut a = announcer(Color::White, |_| {});
        let flag = GameEnd {
            result: GameResult::BlackWins,
            reason: EndReason::Timeout {
                flagged: Color::White,
            },
        };
        let agreed = GameEnd {
            result: GameResult::Draw,
            reason: EndReason::Agreement,
        };
        let said = a.end(&flag);
        assert_eq!(
            (said.listener, said.urgency),
            (Listener::Everyone, Urgency::Urgent)
        );
        assert_eq!(a.end(&agreed).urgency, Urgency::Polite);
        // A mate's words are the result alone (the move says the mate).
        let mate = GameEnd {
            result: GameResult::WhiteWins,
            reason: EndReason::Checkmate,
        };
        assert!(!a.end_words(&mate).contains(". "));
        assert_eq!(a.last_to_blind(), None);
    }

    fn knight_home(a: &Announcer) -> String {
        let fix = Correction::Move {
            from: shakmaty::Square::G5,
            to: shakmaty::Square::F3,
            piece: shakmaty::Piece::from_char('N'),
        };
        spoken(&fix, a.vocab())
    }

    #[test]
    fn on_a_shared_output_each_boards_sentence_says_whose_board() {
        let mut own = announcer(Color::White, |_| {});
        let mut shared = announcer(Color::White, |s| s.shared_speaker = true);
        let fix = knight_home(&shared);
        let header = shared.mismatch_words(BoardId::Peg);
        let his = shared
            .guide(BoardId::Peg, header, Some(fix.clone()), false)
            .unwrap();
        assert_eq!(
            his.text,
            "Your board does not match the game. knight from Gustav five to Felix three"
        );
        let theirs = shared.mismatch_words(BoardId::Normal);
        assert_eq!(theirs, "The opponent's board does not match the game");
        let next = shared
            .next_correction(BoardId::Normal, fix.clone())
            .unwrap();
        assert_eq!(
            (next.listener, next.text.as_str()),
            (
                Listener::Opponent,
                "The opponent's board: knight from Gustav five to Felix three"
            )
        );
        let right = shared.board_correct(BoardId::Normal, None);
        assert_eq!(right.text, "The opponent's board is right again");
        assert_eq!(
            shared.board_correct(BoardId::Peg, None).text,
            "Your board is right again"
        );
        let lost = shared
            .link(BoardId::Normal, LinkNews::Disconnected)
            .unwrap();
        assert_eq!(lost.text, "The opponent's board is disconnected");
        // On his own output each hears of his own board only: no needless words.
        let header = own.mismatch_words(BoardId::Peg);
        let plain = own
            .guide(BoardId::Peg, header, Some(fix.clone()), false)
            .unwrap();
        assert_eq!(
            plain.text,
            "The board does not match the game. knight from Gustav five to Felix three"
        );
        assert_eq!(
            own.board_correct(BoardId::Normal, None).text,
            "The board is right again"
        );
        assert_eq!(own.on_board(BoardId::Normal, fix.clone()), fix);
        // In every language the words are there (no key read out in place of words).
        for lang in Language::all_builtin() {
            let mut settings = TableSettings::new(
                TableName::new("t1").unwrap(),
                Color::White,
                lang,
                "5+3".parse().unwrap(),
            );
            settings.shared_speaker = true;
            let a = Announcer::new(&settings);
            for board in [BoardId::Peg, BoardId::Normal] {
                let words = [
                    a.mismatch_words(board),
                    a.board_sentence(board, "board_correct"),
                    a.on_board(board, "x".to_owned()),
                ];
                for w in words {
                    assert!(!w.contains('{') && !w.contains('_'), "{}: {w}", lang.code());
                }
            }
            assert_ne!(
                a.mismatch_words(BoardId::Peg),
                a.mismatch_words(BoardId::Normal)
            );
        }
    }

    #[test]
    fn guidance_is_not_said_twice_in_a_row_but_what_he_asks_for_is() {
        let mut a = announcer(Color::White, |s| s.shared_speaker = true);
        let fix = knight_home(&a);
        let header = a.mismatch_words(BoardId::Peg);
        let guide = |a: &mut Announcer, again| {
            a.guide(BoardId::Peg, header.clone(), Some(fix.clone()), again)
        };
        assert!(guide(&mut a, false).is_some());
        // Judged again before the hand put it right: the same words are not said again.
        assert_eq!(guide(&mut a, true), None);
        // A word to the opponent in between is no reason to repeat it to him.
        a.say(
            Listener::Opponent,
            "x".into(),
            Urgency::Polite,
            About::Other,
        );
        assert_eq!(guide(&mut a, true), None);
        // A board that was right in between is told again, even in the same words.
        assert!(guide(&mut a, false).is_some());
        // The opponent, told nothing of it yet, hears it about his board.
        assert!(a.next_correction(BoardId::Normal, fix.clone()).is_some());
        assert_eq!(a.next_correction(BoardId::Normal, fix.clone()), None);
        // Something else said to him in between (his KA, a move): guidance is said again.
        let last = a.last_to_blind().unwrap().to_owned();
        a.say(Listener::BlindPlayer, last, Urgency::Polite, About::Other);
        let words = a.say(
            Listener::Everyone,
            "Draw".into(),
            Urgency::Polite,
            About::Result,
        );
        assert_eq!(words.listener, Listener::Everyone);
        assert!(guide(&mut a, true).is_some());
        assert!(a.next_correction(BoardId::Normal, fix).is_some());
    }
}
