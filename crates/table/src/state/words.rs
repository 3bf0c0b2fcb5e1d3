//! What a table says and shows: its announcements handed to the announcer (`announcer.rs`) with
//! what the game tells (a move, a control reached, the end), and the text answers of `status`,
//! `boards`, `sheet` and `export`.

use shakmaty::{Chess, Color, Move, Position};

use crate::control::{ExportFormat, GameTag};
use crate::corrections::Observed;
use crate::event::{About, Listener, TableEvent, Urgency};
use crate::reconcile::Side;
use crate::reply::{BoardStatus, BoardSync, Boards, Status, holes};
use crate::state::board_pair::Board;
use crate::state::{Effect, Now, Step, Table};
use annabella_chess::game::GameEnd;
use annabella_chess::language::Language;
use annabella_chess::notation::{Notation, Style, format_move};
use annabella_chess::phrases::{clock_phrase, move_phrase};
use annabella_chess::scoresheet::Headers;

impl Table {
    /// Says `text` to `listener` (the announcer keeps what the blind player hears, for `KA`).
    pub(super) fn say(
        &mut self,
        listener: Listener,
        text: String,
        urgency: Urgency,
        out: &mut Step,
    ) {
        self.say_about(listener, text, urgency, About::Other, out);
    }

    /// [`Table::say`] with what the words are about (a time answer, a withdrawal), which the
    /// speech and the audio record treat apart.
    pub(super) fn say_about(
        &mut self,
        listener: Listener,
        text: String,
        urgency: Urgency,
        about: About,
        out: &mut Step,
    ) {
        let say = self.announcer.say(listener, text, urgency, about);
        out.event(TableEvent::Say(say));
    }

    /// A move just played, to whoever must hear it (`Announcer::moved`), and a time control
    /// it reached.
    pub(super) fn announce_move(
        &mut self,
        before: &Chess,
        m: Move,
        mover: Color,
        now: Now,
        out: &mut Step,
    ) {
        let terse = self.terse(now);
        // A game by mail is named for the ear by the opponent and his colour.
        let game = self.settings.correspondence.as_deref().map(|id| {
            let id = self
                .state
                .tags
                .get(&crate::control::GameTag::GameId)
                .map_or(id, String::as_str);
            super::game_name::spoken_name(
                self.opponent_name().as_deref(),
                self.settings.peg_side,
                id,
                self.announcer.vocab(),
            )
        });
        for say in self
            .announcer
            .moved(before, m, mover, terse, game.as_deref())
        {
            out.event(TableEvent::Say(say));
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

    /// A control reached by the move just made: the mover's new period begins with its time.
    fn announce_control(&mut self, mover: Color, out: &mut Step) {
        let tc = &self.settings.time_control;
        let Some(before) = self.state.plies.last().map(|p| p.before_press.moves_made) else {
            return;
        };
        let (was, _) = tc.period_of(*before.get(mover));
        let now = self.state.clock.period_index(mover);
        if now > was {
            let say = self
                .announcer
                .control_reached(mover, tc.period(now).seconds * 1000);
            out.event(TableEvent::Say(say));
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
        out.event(TableEvent::End {
            result: end.result,
            description: end.to_string(),
        });
        let say = self.announcer.end(&end);
        out.event(TableEvent::Say(say));
        out.effects.push(Effect::Finished { pgn: self.pgn() });
    }

    /// The phrase of the first move the peg board still owes (the opponent's move the blind
    /// player has to replicate).
    pub(super) fn owed_phrase(&self) -> Option<String> {
        let ply = self.boards.peg.feed.detector().board_ply();
        let game = &self.state.game;
        if ply >= game.ply_count() {
            return None;
        }
        let pos = game.position_before(ply)?;
        let m = *game.moves().get(ply)?;
        Some(move_phrase(&pos, m, &self.announcer.style()))
    }

    /// Both clocks and the moves played, in words (`KT`, `clock`).
    pub(super) fn clock_words(&self, now: Now) -> String {
        // A correspondence game's clock is its days.
        if let Some(days) = self.days_words(now.unix_ms) {
            return days;
        }
        let r = self.state.clock.report(now.table_ms);
        clock_phrase(
            r.white_ms,
            r.black_ms,
            r.moves_played,
            self.announcer.vocab(),
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
        self.numbered(self.state.sheets.written(side), lang)
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
            peg: board_status(&self.boards.peg),
            normal: self.boards.normal.as_ref().map(board_status),
            draw_offer: self.state.draw_offer,
            promotion: self.boards.peg.feed.detector().pending_promotion(),
        }
    }

    /// `boards`: what each physical board shows — the peg board's holes with the pieces
    /// believed in them, the e-board's pieces.
    pub(super) fn boards_view(&self) -> Boards {
        let peg = self.boards.peg.feed.detector();
        let occupancy = match peg.observed() {
            Observed::Occupancy(occ) => occ,
            Observed::Pieces(board) => board.occupied(),
        };
        Boards {
            peg_connected: self.boards.peg.connected,
            peg_holes: holes(occupancy),
            peg_believed: peg.believed().clone(),
            normal: self.boards.normal.as_ref().map(|b| {
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
