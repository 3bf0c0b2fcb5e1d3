//! The two-scoresheet procedure (FIDE D.2.9) by itself: both players' sheets as moves, who may
//! write each, a lagging sheet waiting to be confirmed or disputed, a takeback proposed to the
//! arbiter, and what a reconciliation's verdict does to them ([`TwoSheets::decide`]). A sheet
//! entry that contradicts a game both boards show is a clerical error ([`TwoSheets::wrong_entries`]),
//! not a takeback. The table journals the sheets and says the words (`sheets.rs`); the sheets
//! are part of its journaled state, so a refused step gives them back too.

use shakmaty::{CastlingMode, Chess, Color, Move, Position};

use super::state;
use crate::control::{ErrorCode, Refusal, Role};
use crate::reconcile::{Resolution, Side, Verdict};
use crate::record::Record;
use crate::state::words::color_name;
use annabella_chess::game::Game;
use annabella_chess::language::Language;
use annabella_chess::notation::{Notation, Style, format_move};

/// A takeback proposed by the two-sheet procedure (D.2.9).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposal {
    /// Back to after this many half-moves (the last move both sheets agree on).
    pub plies: usize,
    /// Why, in words for the players and the arbiter.
    pub explanation: Vec<String>,
}

/// Both players' sheets and where the procedure stands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct TwoSheets {
    /// Each player's scoresheet as moves: a, the blind player's; b, the sighted player's. Both
    /// follow the game unless someone enters or corrects one (D.2.9), so they are kept apart
    /// from the game on purpose.
    written: [Vec<Move>; 2],
    /// A takeback the reconciliation proposed, waiting for the arbiter.
    proposal: Option<Proposal>,
    /// The side whose sheet lags, asked to confirm the moves read out to him.
    lagging: Option<Side>,
}

/// What a reconciliation's verdict did to the procedure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Decision {
    /// The sheets agree on this many half-moves: nothing is pending any more.
    Agree { plies: usize },
    /// `side`'s sheet lags: `missing` are read out to him (`read_out`, his words).
    Lagging {
        side: Side,
        missing: Vec<Move>,
        read_out: Vec<String>,
    },
    /// The sheets differ after `plies` half-moves: a takeback to there is proposed.
    Differ { plies: usize },
}

impl Decision {
    /// The verdict in a few words, for the reply to the request that caused it.
    pub fn summary(&self) -> String {
        match self {
            Decision::Agree { plies } => format!("the sheets agree ({plies} half-moves)"),
            Decision::Lagging { side, missing, .. } => format!(
                "sheet {side} lags by {} half-moves: read out to be confirmed (confirm {side}) or \
                 disputed (dispute {side})",
                missing.len()
            ),
            Decision::Differ { plies } => format!(
                "the sheets differ after {plies} half-moves: a takeback to there is proposed \
                 to the arbiter (resolve confirm, resolve override N, resolve reject)"
            ),
        }
    }
}

/// A sheet entry that contradicts the game while both boards show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct WrongEntry {
    pub side: Side,
    /// The half-move (1-based) and the position before it.
    pub ply: usize,
    pub before: Chess,
    pub played: Move,
    pub written: Move,
}

impl WrongEntry {
    /// `12.` or `12...`: the move's number as the sheet has it.
    pub fn label(&self) -> String {
        let number = self.before.fullmoves().get();
        match self.before.turn() {
            Color::White => format!("{number}."),
            Color::Black => format!("{number}..."),
        }
    }

    /// Why the sheet is corrected and not the game, for the table's record (English).
    pub fn explanation(&self, mode: CastlingMode) -> String {
        let label = self.label();
        format!(
            "Sheet {} has {label}{} at half-move {} where the game, shown by both boards, has                  {label}{}: both boards agree with the game, so the sheet is corrected, not the                  game (FIDE D.2.9 is about the boards); its writer is told which move.",
            self.side,
            san(&self.before, mode, self.written),
            self.ply,
            san(&self.before, mode, self.played),
        )
    }

    /// The entry in a few words, for the reply.
    pub fn summary(&self, mode: CastlingMode) -> String {
        let label = self.label();
        format!(
            "sheet {} differs from the game at half-move {} ({}{} written, {}{} played) \
             while both boards show the game: a sheet to correct, not a takeback",
            self.side,
            self.ply,
            label,
            san(&self.before, mode, self.written),
            label,
            san(&self.before, mode, self.played),
        )
    }
}

/// English SAN of a move, or its UCI when it is no legal move there.
fn san(pos: &Chess, mode: CastlingMode, m: Move) -> String {
    if pos.is_legal(m) {
        format_move(
            pos,
            mode,
            m,
            Notation::San,
            &Style::new(Language::english()),
        )
    } else {
        m.to_uci(mode).to_string()
    }
}

impl TwoSheets {
    /// `side`'s sheet as written.
    pub fn written(&self, side: Side) -> &[Move] {
        &self.written[side.index()]
    }

    pub fn proposal(&self) -> Option<&Proposal> {
        self.proposal.as_ref()
    }

    pub fn lagging(&self) -> Option<Side> {
        self.lagging
    }

    /// Where the procedure stands, as the journal keeps it (`sheets-pending`).
    pub fn pending_record(&self) -> Record {
        let (takeback, explanation) = match &self.proposal {
            Some(p) => (Some(p.plies), p.explanation.as_slice()),
            None => (None, &[][..]),
        };
        Record::sheets_pending(self.lagging, takeback, explanation)
    }

    /// Where the procedure stands, from its record (live and when a journal is replayed).
    pub fn set_pending(
        &mut self,
        lagging: Option<Side>,
        takeback: Option<usize>,
        explanation: &[String],
    ) {
        self.lagging = lagging;
        self.proposal = takeback.map(|plies| Proposal {
            plies,
            explanation: explanation.to_vec(),
        });
    }

    /// A proposal or a lag is waiting: a board differing now starts no new reconciliation.
    pub fn pending(&self) -> bool {
        self.proposal.is_some() || self.lagging.is_some()
    }

    /// Sheet a is the blind player's (`peg_side`), sheet b the sighted player's.
    pub fn owner(side: Side, peg_side: Color) -> Color {
        match side {
            Side::A => peg_side,
            Side::B => !peg_side,
        }
    }

    /// Who may write a player's sheet: his assistant, the arbiter, or the player himself.
    pub fn may_write(role: Role, side: Side, peg_side: Color) -> Result<(), Refusal> {
        let owner = Self::owner(side, peg_side);
        match role {
            Role::Assistant | Role::Arbiter => Ok(()),
            Role::Player(c) if c == owner => Ok(()),
            _ => Err(Refusal::new(
                ErrorCode::Forbidden,
                format!(
                    "sheet {side} is {}'s; only he, the assistant or the arbiter may write it",
                    color_name(owner)
                ),
            )),
        }
    }

    /// `confirm` (`accept`) or `dispute` is answered only while `side`'s sheet lags.
    pub fn expect_lag(&self, side: Side, accept: bool) -> Result<(), Refusal> {
        if self.lagging == Some(side) {
            return Ok(());
        }
        let what = if accept { "confirm" } else { "dispute" };
        Err(state(format!(
            "sheet {side} does not lag: nothing to {what}"
        )))
    }

    /// A move played as the game's half-move `plies`: both players write it, a lagging sheet
    /// staying behind until confirmed.
    pub fn follow_move(&mut self, m: Move, plies: usize) {
        for sheet in &mut self.written {
            if sheet.len() + 1 == plies {
                sheet.push(m);
            }
        }
    }

    /// The game was cut back to `plies` half-moves: so are the sheets.
    pub fn truncate(&mut self, plies: usize) {
        for sheet in &mut self.written {
            sheet.truncate(plies);
        }
    }

    /// `side`'s sheet entered or corrected: it no longer lags.
    pub fn set(&mut self, side: Side, moves: Vec<Move>) {
        self.written[side.index()] = moves;
        self.lagging = None;
    }

    /// The game taken back to `plies` half-moves: the sheets with it, and nothing is pending.
    pub fn retracted(&mut self, plies: usize) {
        self.truncate(plies);
        self.settled();
    }

    /// Nothing is pending any more (the sheets agree, or a clerical error is to be corrected).
    pub fn settled(&mut self) {
        self.proposal = None;
        self.lagging = None;
    }

    /// The lagging player disputes the moves read out to him.
    pub fn disputed(&mut self) {
        self.lagging = None;
    }

    /// The arbiter rejects the proposed takeback; `None` when none was proposed.
    pub fn reject(&mut self) -> Option<Proposal> {
        self.proposal.take()
    }

    /// What a reconciliation of the sheets decided, kept: a lag waits for its player, a
    /// difference for the arbiter.
    pub fn decide(&mut self, r: &Resolution) -> Decision {
        match &r.verdict {
            Verdict::Agree => {
                self.settled();
                Decision::Agree {
                    plies: r.agreed_plies,
                }
            }
            Verdict::Lagging {
                side,
                missing,
                read_out,
            } => {
                self.lagging = Some(*side);
                Decision::Lagging {
                    side: *side,
                    missing: missing.clone(),
                    read_out: read_out.clone(),
                }
            }
            Verdict::Differ => {
                self.lagging = None;
                self.proposal = Some(Proposal {
                    plies: r.agreed_plies,
                    explanation: r.explanation.clone(),
                });
                Decision::Differ {
                    plies: r.agreed_plies,
                }
            }
        }
    }

    /// Each sheet's first entry that is not the game's move there (D.2.9 is about the boards:
    /// when both boards show the game, such an entry is the sheet's error). `None` when a
    /// position before a game's move cannot be had.
    pub fn wrong_entries(&self, game: &Game) -> Option<Vec<WrongEntry>> {
        let played = game.moves();
        let mut wrong = Vec::new();
        for side in Side::BOTH {
            let sheet = &self.written[side.index()];
            let Some(k) = sheet
                .iter()
                .zip(played)
                .position(|(written, played)| written != played)
            else {
                continue;
            };
            let before = game.position_before(k)?;
            wrong.push(WrongEntry {
                side,
                ply: k + 1,
                before,
                played: played[k],
                written: sheet[k],
            });
        }
        Some(wrong)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corrections::Observed;
    use crate::reconcile::{BoardInput, ReconcileInput, Sheet, reconcile};
    use shakmaty::uci::UciMove;

    /// The game after these UCI moves, and the moves.
    fn game(moves: &[&str]) -> (Game, Vec<Move>) {
        let mut game = Game::new();
        let mut played = Vec::new();
        for uci in moves {
            let m = uci
                .parse::<UciMove>()
                .unwrap()
                .to_move(game.position())
                .unwrap();
            game.play(m).unwrap();
            played.push(m);
        }
        (game, played)
    }

    /// What the procedure decides on these sheets with both boards showing `shown`.
    fn decide(sheets: &mut TwoSheets, shown: &Game) -> Decision {
        let start = Game::new();
        let [a, b] = [Side::A, Side::B].map(|s| Sheet::from_moves(sheets.written(s).to_vec()));
        let board = BoardInput {
            observed: Observed::Pieces(shown.position().board().clone()),
            believed: None,
        };
        let input = ReconcileInput {
            start: &start,
            sheets: [&a, &b],
            boards: [&board, &board],
            languages: [Language::english(), Language::english()],
            clocks: None,
            lag_disputed: false,
        };
        sheets.decide(&reconcile(&input))
    }

    #[test]
    fn both_sheets_follow_the_game_and_a_lagging_one_stays_behind() {
        let (_, m) = game(&["e2e4", "e7e5", "g1f3"]);
        let mut sheets = TwoSheets::default();
        sheets.follow_move(m[0], 1);
        sheets.follow_move(m[1], 2);
        // Sheet a was entered with the first move only: it lags and takes no more moves.
        sheets.set(Side::A, vec![m[0]]);
        sheets.follow_move(m[2], 3);
        assert_eq!(sheets.written(Side::A), &m[..1]);
        assert_eq!(sheets.written(Side::B), &m[..]);
        sheets.retracted(1);
        assert_eq!(sheets.written(Side::B), &m[..1]);
    }

    #[test]
    fn a_lag_waits_for_its_player_and_a_difference_for_the_arbiter() {
        let (shown, m) = game(&["e2e4", "e7e5"]);
        let mut sheets = TwoSheets::default();
        sheets.set(Side::A, vec![m[0]]);
        sheets.set(Side::B, m.clone());
        let lag = decide(&mut sheets, &shown);
        assert!(matches!(
            &lag,
            Decision::Lagging { side: Side::A, missing, .. } if missing == &m[1..]
        ));
        assert_eq!(sheets.lagging(), Some(Side::A));
        assert!(sheets.expect_lag(Side::A, true).is_ok());
        assert_eq!(
            sheets.expect_lag(Side::B, false).unwrap_err().message,
            "sheet b does not lag: nothing to dispute"
        );

        let (_, other) = game(&["e2e4", "c7c5"]);
        sheets.set(Side::A, other);
        let differ = decide(&mut sheets, &shown);
        assert_eq!(differ, Decision::Differ { plies: 1 });
        assert_eq!(sheets.proposal().map(|p| p.plies), Some(1));
        assert_eq!(sheets.lagging(), None);
        assert!(
            differ
                .summary()
                .starts_with("the sheets differ after 1 half-moves")
        );
        assert_eq!(sheets.reject().map(|p| p.plies), Some(1));
        assert!(!sheets.pending());

        sheets.set(Side::A, m.clone());
        assert_eq!(decide(&mut sheets, &shown), Decision::Agree { plies: 2 });
    }

    #[test]
    fn only_the_owner_his_assistant_or_the_arbiter_write_a_sheet() {
        let peg = Color::Black;
        assert_eq!(TwoSheets::owner(Side::A, peg), Color::Black);
        assert!(TwoSheets::may_write(Role::Player(Color::Black), Side::A, peg).is_ok());
        assert!(TwoSheets::may_write(Role::Assistant, Side::B, peg).is_ok());
        let refused = TwoSheets::may_write(Role::Player(Color::White), Side::A, peg).unwrap_err();
        assert_eq!(refused.code, ErrorCode::Forbidden);
        assert_eq!(
            refused.message,
            "sheet a is black's; only he, the assistant or the arbiter may write it"
        );
    }

    #[test]
    fn an_entry_the_game_contradicts_is_found_with_its_number() {
        let (played, m) = game(&["e2e4", "e7e5"]);
        let (_, written) = game(&["e2e4", "e7e6"]);
        let mut sheets = TwoSheets::default();
        sheets.set(Side::A, m);
        sheets.set(Side::B, written);
        let wrong = sheets.wrong_entries(&played).unwrap();
        assert_eq!(wrong.len(), 1);
        let w = &wrong[0];
        assert_eq!((w.side, w.ply, w.label()), (Side::B, 2, "1...".to_owned()));
        assert_eq!(
            w.summary(played.castling_mode()),
            "sheet b differs from the game at half-move 2 (1...e6 written, 1...e5 played) while \
             both boards show the game: a sheet to correct, not a takeback"
        );
    }
}
