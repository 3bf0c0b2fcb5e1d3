//! What a table says and shows: utterances to each listener (moves, the end, the clock), and
//! the text answers of `status`, `boards`, `sheet` and `export`.

use shakmaty::{Chess, Color, Move, Position};

use crate::clock::Bonus;
use crate::control::{ExportFormat, GameTag};
use crate::corrections::Observed;
use crate::event::{About, Listener, Say, TableEvent, Urgency};
use crate::reconcile::Side;
use crate::reply::{BoardStatus, BoardSync, Boards, Status, holes};
use crate::state::boards::Board;
use crate::state::{Effect, Now, Step, Table};
use annabella_chess::game::{DrawReason, EndReason, GameEnd};
use annabella_chess::language::Language;
use annabella_chess::notation::{Notation, Style, format_move};
use annabella_chess::phrases::{
    Event, clock_phrase, color_phrase, duration_phrase, event_phrase, move_count_phrase,
    move_phrase, number_phrase,
};
use annabella_chess::scoresheet::Headers;
use annabella_chess::vocabulary::Vocabulary;
use annabella_chess::vocabulary::fill;

impl Table {
    pub(super) fn vocab(&self) -> &'static Vocabulary {
        self.settings.lang.vocabulary()
    }

    /// The announcements' style: the table's language, verbosity and captures setting.
    pub(super) fn style(&self) -> Style<'static> {
        let mut style = Style::new(self.settings.lang);
        style.verbosity = self.settings.verbosity;
        style.name_captured = self.settings.name_captured;
        style
    }

    /// An event word of the language, or its key when the language lacks it.
    pub(super) fn word(&self, key: &str) -> String {
        self.vocab().event(key).unwrap_or(key).to_owned()
    }

    /// Says `text` to `listener`; what the blind player hears is kept for `KA`.
    pub(super) fn say(
        &mut self,
        listener: Listener,
        text: String,
        urgency: Urgency,
        out: &mut Step,
    ) {
        self.say_about(listener, text, urgency, About::Other, out);
    }

    /// [`Table::say`], naming what the words are about (a move, a clock call).
    pub(super) fn say_about(
        &mut self,
        listener: Listener,
        text: String,
        urgency: Urgency,
        about: About,
        out: &mut Step,
    ) {
        if listener == Listener::BlindPlayer {
            self.last_to_blind = Some(text.clone());
        }
        out.event(TableEvent::Say(Say {
            listener,
            text,
            urgency,
            about,
            lang: self.settings.lang.code(),
        }));
    }

    /// A move just played, to whoever must hear it: the blind player's own move to the
    /// opponent (and to himself when he asked for confirmations), the opponent's to the blind
    /// player, who replicates it.
    pub(super) fn announce_move(
        &mut self,
        before: &Chess,
        m: Move,
        mover: Color,
        now: Now,
        out: &mut Step,
    ) {
        let phrase = move_phrase(before, m, &self.style());
        let about = About::Move {
            number: before.fullmoves().get(),
            color: mover,
        };
        let polite = Urgency::Polite;
        // In his time trouble the blind player hears the fewest words: no confirmation of the
        // move he has just made, the opponent's move in its short form.
        let terse = self.terse(now);
        if mover == self.settings.peg_side {
            self.say_about(Listener::Opponent, phrase, polite, about, out);
            if self.settings.confirm_own_moves && !terse {
                let own = move_phrase(before, m, &self.style());
                self.say_about(Listener::BlindPlayer, own, polite, about, out);
            }
        } else {
            let phrase = if terse {
                let mut short = self.style();
                short.verbosity = annabella_chess::notation::Verbosity::Short;
                move_phrase(before, m, &short)
            } else {
                phrase
            };
            // Of his many games by mail, he hears which one, and the move's number.
            let phrase = match &self.settings.correspondence {
                Some(game) => {
                    let number = number_phrase(before.fullmoves().get(), self.vocab());
                    let color = color_phrase(mover, self.vocab());
                    let game = fill(&self.word("desk_game"), &[("game", game)]);
                    let numbered = fill(
                        &self.word("key_move"),
                        &[("number", &number), ("color", &color), ("move", &phrase)],
                    );
                    format!("{game}. {numbered}")
                }
                None => phrase,
            };
            self.say_about(Listener::BlindPlayer, phrase, polite, about, out);
        }
        self.announce_control(mover, out);
    }

    /// Whether the blind player is in the last minutes the terse style is set for
    /// (`speech.terse_below_s`): his clock now.
    pub(super) fn terse(&self, now: Now) -> bool {
        self.settings.terse_below_ms.is_some_and(|below| {
            self.state
                .clock
                .remaining(self.settings.peg_side, now.table_ms)
                < below
        })
    }

    /// The time control in words ("Bedenkzeit 40 Züge in 90 Minuten plus 30 Sekunden pro Zug,
    /// dann 30 Minuten plus 30 Sekunden pro Zug"), said when a game begins.
    pub(super) fn time_control_words(&self) -> String {
        let v = self.vocab();
        let periods: Vec<String> = self
            .settings
            .time_control
            .periods()
            .iter()
            .map(|p| {
                let main = duration_phrase(p.seconds * 1000, v);
                let mut words = match p.moves {
                    Some(n) => fill(
                        &self.word("period_moves"),
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
                    words.push_str(&fill(&self.word(key), &[("time", &bonus)]));
                }
                words
            })
            .collect();
        fill(
            &self.word("time_control"),
            &[("periods", &periods.join(&self.word("then")))],
        )
    }

    /// A control reached by the move just made: the mover's new period begins with its time.
    fn announce_control(&mut self, mover: Color, out: &mut Step) {
        let tc = &self.settings.time_control;
        let Some(before) = self.state.plies.last().map(|p| p.before_press.moves_made) else {
            return;
        };
        let (was, _) = tc.period_of(*before.get(mover));
        let now = self.state.clock.period_index(mover);
        if now > was {
            let added = duration_phrase(tc.period(now).seconds * 1000, self.vocab());
            let text = fill(
                &self.word("control_reached"),
                &[
                    ("color", color_phrase(mover, self.vocab()).as_str()),
                    ("time", &added),
                ],
            );
            self.say(Listener::Everyone, text, Urgency::Polite, out);
        }
    }

    /// The end of the game, once: its reason and result to everyone, and the game archived.
    pub(super) fn announce_end(&mut self, out: &mut Step) {
        let Some(end) = self.state.game.outcome() else {
            return;
        };
        if self.state.end_reported {
            return;
        }
        self.state_mut(out).end_reported = true;
        let words = self.end_words(&end);
        out.event(TableEvent::End {
            result: end.result,
            description: end.to_string(),
        });
        let urgency = if matches!(end.reason, EndReason::Timeout { .. }) {
            Urgency::Urgent
        } else {
            Urgency::Polite
        };
        self.say(Listener::Everyone, words, urgency, out);
        out.effects.push(Effect::Finished { pgn: self.pgn() });
    }

    /// The end in words, as everyone hears it ("Weiß gewinnt", "Patt, Remis"): a mate is said
    /// with its move, so only the result follows it.
    pub(super) fn end_words(&self, end: &GameEnd) -> String {
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

    /// The phrase of the first move the peg board still owes (the opponent's move the blind
    /// player has to replicate).
    pub(super) fn owed_phrase(&self) -> Option<String> {
        let ply = self.peg.feed.detector().board_ply();
        let game = &self.state.game;
        if ply >= game.ply_count() {
            return None;
        }
        let pos = game.position_before(ply)?;
        let m = *game.moves().get(ply)?;
        Some(move_phrase(&pos, m, &self.style()))
    }

    /// Both clocks and the moves played, in words (`KT`, `clock`).
    pub(super) fn clock_words(&self, now: Now) -> String {
        // A correspondence game's clock is its days.
        if let Some(days) = self.days_words(now.unix_ms) {
            return days;
        }
        let r = self.state.clock.report(now.table_ms);
        clock_phrase(r.white_ms, r.black_ms, r.moves_played, self.vocab())
    }

    /// One side's time, as the talking clock calls it by itself; in the terse style the blind
    /// player's own time is the number alone.
    pub(super) fn clock_call(&self, color: Color, remaining_ms: u64, now: Now) -> String {
        if color == self.settings.peg_side && self.terse(now) {
            return duration_phrase(remaining_ms, self.vocab());
        }
        format!(
            "{} {}",
            color_phrase(color, self.vocab()),
            duration_phrase(remaining_ms, self.vocab())
        )
    }

    /// The game so far as PGN, with the clock readings.
    pub fn pgn(&self) -> String {
        self.state.scoresheet().to_pgn(&self.headers())
    }

    fn headers(&self) -> Headers {
        let tag = |t: GameTag| self.state.tags.get(&t).cloned();
        let mut headers = Headers {
            event: tag(GameTag::Event)
                .unwrap_or_else(|| format!("annabella {}", self.settings.name)),
            date: pgn_date(self.state.began_at_unix_ms),
            result: self.state.game.outcome().map(|e: GameEnd| e.result),
            time_control: Some(self.settings.time_control.to_string()),
            ..Headers::default()
        };
        for (field, t) in [
            (&mut headers.white, GameTag::White),
            (&mut headers.black, GameTag::Black),
            (&mut headers.site, GameTag::Site),
            (&mut headers.round, GameTag::Round),
        ] {
            if let Some(value) = tag(t) {
                *field = value;
            }
        }
        headers
    }

    /// The game in an export format: PGN (English SAN, clock comments), the ICCF numeric
    /// score, or the Braille scoresheet in the reader's notation (Unicode or BRF).
    pub fn export(&self, format: ExportFormat, lang: &Language) -> String {
        let mode = self.state.game.castling_mode();
        let style = Style::new(lang);
        let headers = self.headers();
        let sheet = self.state.scoresheet();
        let braille = || {
            sheet.to_braille(&headers, |pos, m| {
                format_move(pos, mode, m, Notation::San, &style)
            })
        };
        match format {
            ExportFormat::Pgn => sheet.to_pgn(&headers),
            ExportFormat::Iccf => sheet.to_iccf(Some(&headers), |pos, m| {
                format_move(pos, mode, m, Notation::Iccf, &style)
            }),
            ExportFormat::Braille => braille().to_unicode(),
            ExportFormat::Brf => braille().to_brf(),
        }
    }

    /// A SAN move list from the start (`1. e4 e5 2. Sf3`), in `lang`'s letters.
    fn numbered(&self, moves: &[Move], lang: &Language) -> Vec<String> {
        let style = Style::new(lang);
        let mode = self.state.game.castling_mode();
        let mut pos = self.state.game.start_position().clone();
        let mut words = Vec::new();
        for (i, &m) in moves.iter().enumerate() {
            if pos.turn() == Color::White {
                words.push(format!("{}.", pos.fullmoves()));
            } else if i == 0 {
                words.push(format!("{}...", pos.fullmoves()));
            }
            words.push(format_move(&pos, mode, m, Notation::San, &style));
            pos.play_unchecked(m);
        }
        words
    }

    /// A player's scoresheet (`sheet a|b`).
    pub(super) fn sheet_text(&self, side: Side, lang: &Language) -> String {
        self.numbered(&self.state.sheets[side.index()], lang)
            .join(" ")
    }

    /// The game's moves and result (`sheet`).
    pub(super) fn movetext(&self, lang: &Language) -> String {
        let mut words = self.numbered(self.state.game.moves(), lang);
        if let Some(end) = self.state.game.outcome() {
            words.push(end.result.pgn().to_owned());
        }
        words.join(" ")
    }

    /// `status`: the table at a glance.
    pub(super) fn status(&self) -> Status {
        let game = &self.state.game;
        let board_status = |b: &Board| BoardStatus {
            connected: b.connected,
            sync: if b.differs {
                BoardSync::Differs
            } else if b.owes(game) {
                BoardSync::OwesMove
            } else {
                BoardSync::InSync
            },
        };
        Status {
            table: self.settings.name.to_string(),
            ply: game.ply_count(),
            turn: game.turn(),
            result: game.outcome().map_or("*", |e| e.result.pgn()),
            peg: board_status(&self.peg),
            normal: self.normal.as_ref().map(board_status),
            draw_offer: self.state.draw_offer,
            promotion: self.peg.feed.detector().pending_promotion(),
        }
    }

    /// `boards`: what each physical board shows — the peg board's holes with the pieces
    /// believed in them, the e-board's pieces.
    pub(super) fn boards_view(&self) -> Boards {
        let peg = self.peg.feed.detector();
        let occupancy = match peg.observed() {
            Observed::Occupancy(occ) => occ,
            Observed::Pieces(board) => board.occupied(),
        };
        Boards {
            peg_connected: self.peg.connected,
            peg_holes: holes(occupancy),
            peg_believed: peg.believed().clone(),
            normal: self.normal.as_ref().map(|b| {
                let d = b.feed.detector();
                let board = match d.observed() {
                    Observed::Pieces(board) => board,
                    Observed::Occupancy(_) => d.believed().clone(),
                };
                (b.connected, board)
            }),
        }
    }
}

/// `YYYY.MM.DD` (UTC) of a Unix time in milliseconds, for the PGN `Date` tag; the civil date
/// from the day count as in Howard Hinnant's `civil_from_days`.
fn pgn_date(unix_ms: u64) -> String {
    let days = (unix_ms / 86_400_000) as i64 + 719_468;
    let era = days.div_euclid(146_097);
    let doe = days.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

pub(super) fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

#[cfg(test)]
mod tests {
    use super::pgn_date;

    #[test]
    fn pgn_dates() {
        assert_eq!(pgn_date(0), "1970.01.01");
        assert_eq!(pgn_date(951_782_400_000), "2000.02.29");
        assert_eq!(pgn_date(1_795_405_477_028), "2026.11.23");
        assert_eq!(pgn_date(4_107_542_400_000), "2100.03.01");
    }
}
