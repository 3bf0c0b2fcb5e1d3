//! What was proposed before a restart, said again after it: a draw offer that stands, a
//! takeback the two-sheet procedure proposed to the arbiter, a sheet waiting to be confirmed
//! or disputed. Each is journaled (`offer-draw`, `sheets-pending`) and so is back after
//! [`Table::restore`]; here [`Table::resume`] reminds whoever must decide it. A promotion
//! waiting for its piece lives on the peg board itself (the pawn on the last rank): the
//! detector finds it again in the board's first snapshot after the restart and asks for the
//! piece again (`detector::verdict`, `Away::Promotion`).

use shakmaty::Position;

use crate::event::{About, Listener, TableEvent, Urgency};
use crate::reconcile::Side;
use crate::state::{Step, Table};
use annabella_chess::notation::Style;
use annabella_chess::phrases::{Event, event_phrase, move_phrase};

impl Table {
    /// After a restart: each decision still pending is told again, to whoever decides it —
    /// the draw offer to everyone (with its `draw-offer` event), the proposed takeback to
    /// everyone ("the arbiter decides"), a lagging sheet to its writer. Nothing when the game
    /// is over, nor at a game by mail: its blind player hears his games through the desk (whose
    /// view carries the offer), not one table's words at each start.
    pub(super) fn remind_pending(&mut self, out: &mut Step) {
        if self.state.game.is_over() || self.settings.correspondence.is_some() {
            return;
        }
        if let Some(color) = self.state.draw_offer {
            out.event(TableEvent::DrawOffer { color });
            let text = event_phrase(Event::DrawOffer(color), self.announcer.vocab());
            self.say(Listener::Everyone, text, Urgency::Polite, out);
        }
        if self.state.sheets.proposal().is_some() {
            let text = self.announcer.word("sheets_differ");
            let say = self
                .announcer
                .say(Listener::Everyone, text, Urgency::Polite, About::Other);
            out.event(TableEvent::Say(say));
        }
        if let Some(side) = self.state.sheets.lagging() {
            let read_out = self.lag_read_out(side);
            let say = self.announcer.sheet_lags(side, &read_out);
            out.event(TableEvent::Say(say));
        }
    }

    /// The moves `side`'s lagging sheet is missing, in words, read out again: what the other
    /// sheet has beyond it, as the reconciliation read them out before the restart.
    fn lag_read_out(&self, side: Side) -> Vec<String> {
        let have = self.state.sheets.written(side).len();
        let other = self.state.sheets.written(Side::BOTH[1 - side.index()]);
        let style = Style::new(self.settings.lang);
        let mut pos = self.state.game.start_position().clone();
        let mut words = Vec::new();
        for (i, &m) in other.iter().enumerate() {
            if !pos.is_legal(m) {
                break;
            }
            if i >= have {
                words.push(move_phrase(&pos, m, &style));
            }
            pos.play_unchecked(m);
        }
        words
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::Color;

    use crate::control::{Role, TableRequest};
    use crate::event::{BoardId, Listener, TableEvent};
    use crate::reconcile::Side;
    use crate::state::{Input, Now, Table, TableSettings};
    use annabella_chess::language::Language;

    fn settings() -> TableSettings {
        TableSettings::new(
            "t".parse().unwrap(),
            Color::White,
            Language::english(),
            "5400+30".parse().unwrap(),
        )
    }

    /// The journal a step wrote, with the lines before it.
    fn journal(lines: &mut Vec<(u64, String)>, step: &crate::state::Step) {
        for (entry, wall) in step.records.iter().zip(&step.walls) {
            lines.push((*wall, entry.to_string()));
        }
    }

    fn ask(
        t: &mut Table,
        lines: &mut Vec<(u64, String)>,
        at: u64,
        role: Role,
        command: TableRequest,
    ) -> String {
        let (reply, step) = t.request(Now::at(at), role, Language::english(), &command);
        journal(lines, &step);
        format!("{reply:?}")
    }

    /// The peg board comes up showing the game with a pawn where it cannot go (a2 on a5): the
    /// boards differ, so differing sheets are a takeback for the arbiter, not a sheet to
    /// correct.
    fn peg_differs(t: &mut Table, lines: &mut Vec<(u64, String)>, at: u64) {
        use annabella_boards::SensorEvent;
        use shakmaty::{Position, Square};
        let link = Input::Link {
            board: BoardId::Peg,
            up: true,
            detail: "test".into(),
        };
        journal(lines, &t.handle(Now::at(at), link));
        let mut occ = t.game().position().board().occupied();
        occ.discard(Square::A2);
        occ.add(Square::A5);
        let shown = Input::Sensor {
            board: BoardId::Peg,
            event: SensorEvent::Occupancy(occ),
        };
        journal(lines, &t.handle(Now::at(at + 1), shown));
        assert!(!t.boards.agree());
    }

    fn mv(text: &str) -> TableRequest {
        TableRequest::Move { text: text.into() }
    }

    #[test]
    fn a_proposed_takeback_and_a_draw_offer_are_back_after_a_restore_and_said_again() {
        let (mut t, step) = Table::new(settings(), Now::at(1_000)).unwrap();
        let mut lines = Vec::new();
        journal(&mut lines, &step);
        for (i, m) in ["e4", "e5", "Nf3", "Nc6"].into_iter().enumerate() {
            let role = Role::Player(if i % 2 == 0 {
                Color::White
            } else {
                Color::Black
            });
            let at = 2_000 + i as u64 * 1_000;
            assert!(ask(&mut t, &mut lines, at, role, mv(m)).contains("Ok"));
        }
        peg_differs(&mut t, &mut lines, 6_000);
        // Sheet b differs at the third half-move: a takeback to after two is proposed.
        let record = TableRequest::Record {
            side: Side::B,
            moves: "e4 e5 Bc4 Nc6".into(),
        };
        let reply = ask(&mut t, &mut lines, 7_000, Role::Assistant, record);
        assert!(reply.contains("the sheets differ after 2"), "{reply}");
        assert!(
            lines.iter().any(|(_, l)| l.contains("sheets-pending - 2")),
            "{lines:?}"
        );
        let offer = TableRequest::OfferDraw;
        ask(&mut t, &mut lines, 8_000, Role::Player(Color::White), offer);

        // The restart: the journal alone brings both back.
        let mut back = Table::restore(settings(), &lines).unwrap();
        assert_eq!(back.state.sheets.proposal().map(|p| p.plies), Some(2));
        assert_eq!(
            back.state.sheets.proposal().map(|p| p.explanation.clone()),
            t.state.sheets.proposal().map(|p| p.explanation.clone())
        );
        assert_eq!(back.state.draw_offer, Some(Color::White));
        let resumed = back.resume(Now::at(20_000), 20_000, false);
        let said: Vec<_> = resumed
            .said()
            .map(|s| (s.listener, s.text.clone()))
            .collect();
        assert!(said.contains(&(Listener::Everyone, "White offers a draw".into())));
        assert!(said.contains(&(
            Listener::Everyone,
            "The scoresheets differ; the arbiter decides".into()
        )));
        assert!(resumed.events().any(|e| *e
            == TableEvent::DrawOffer {
                color: Color::White
            }));

        // The arbiter decides after the restart; the decision is journaled too.
        let confirm = TableRequest::Resolve {
            choice: crate::control::Resolve::Confirm,
        };
        let mut after = lines.clone();
        let reply = ask(&mut back, &mut after, 21_000, Role::Arbiter, confirm);
        assert!(reply.contains("TakenBack"), "{reply}");
        assert_eq!(back.game().ply_count(), 2);
        let again = Table::restore(settings(), &after).unwrap();
        assert_eq!(again.game().ply_count(), 2);
        assert!(again.state.sheets.proposal().is_none());
    }

    #[test]
    fn a_lagging_sheet_and_a_rejected_takeback_are_restored_as_decided() {
        let (mut t, step) = Table::new(settings(), Now::at(1_000)).unwrap();
        let mut lines = Vec::new();
        journal(&mut lines, &step);
        ask(
            &mut t,
            &mut lines,
            2_000,
            Role::Player(Color::White),
            mv("e4"),
        );
        ask(
            &mut t,
            &mut lines,
            3_000,
            Role::Player(Color::Black),
            mv("e5"),
        );
        let record = |moves: &str| TableRequest::Record {
            side: Side::A,
            moves: moves.into(),
        };
        ask(&mut t, &mut lines, 4_000, Role::Assistant, record("e4"));
        let mut back = Table::restore(settings(), &lines).unwrap();
        assert_eq!(back.state.sheets.lagging(), Some(Side::A));
        let resumed = back.resume(Now::at(5_000), 5_000, false);
        let lag = resumed
            .said()
            .find(|s| s.listener == Listener::BlindPlayer)
            .map(|s| s.text.clone());
        // The move his sheet is missing, read out again as before the restart.
        assert_eq!(
            lag.as_deref(),
            t.announcer.last_to_blind(),
            "the lag said before the restart and after it"
        );
        assert!(
            lag.unwrap()
                .starts_with("Your scoresheet is missing moves; please confirm. ")
        );

        // Sheet a now differs (and so does the peg board); the arbiter rejects the takeback:
        // nothing pending after a restore either.
        peg_differs(&mut t, &mut lines, 5_000);
        ask(&mut t, &mut lines, 6_000, Role::Assistant, record("d4 e5"));
        assert!(
            Table::restore(settings(), &lines)
                .unwrap()
                .state
                .sheets
                .proposal()
                .is_some()
        );
        let reject = TableRequest::Resolve {
            choice: crate::control::Resolve::Reject,
        };
        ask(&mut t, &mut lines, 7_000, Role::Arbiter, reject);
        let back = Table::restore(settings(), &lines).unwrap();
        assert!(!back.state.sheets.pending());
        assert_eq!(back.game().ply_count(), 2);
    }
}
