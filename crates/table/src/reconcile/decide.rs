//! The decision of FIDE D.2.9, without words: where the two sheets agree, whether one merely lags or they differ, the position both boards must show, each board's corrections and the clocks.

use shakmaty::{CastlingMode, Chess, Move};

use super::Side;
use super::board::{Candidates, decide_board};
use super::clocks::adjust_clocks;
use super::decision::{ClockDecision, Decision, Lag, Next, Played, SheetDecision};
use super::replay::{Replayed, replay};
use super::resolution::ReconcileInput;
use super::sheet::Sheet;

/// Both sheets replayed, and what they share.
struct Sheets<'a> {
    input: &'a ReconcileInput<'a>,
    replayed: [Replayed; 2],
    /// Legal moves of sheet a and b.
    legal: [usize; 2],
    /// Half-moves both sheets hold, legal on both.
    agreed_prefix: usize,
    /// Either sheet has an entry that is no legal move.
    any_bad: bool,
}

impl Sheets<'_> {
    fn moves(&self, side: Side) -> &[Move] {
        &self.input.sheets[side.index()].moves
    }

    /// The `k`-th move of `side`'s sheet (1-based) with its position; `None` for 0, the start.
    fn played(&self, k: usize, side: Side) -> Option<Played> {
        let r = &self.replayed[side.index()];
        (k > 0).then(|| Played {
            before: r.positions[k - 1].clone(),
            mv: self.moves(side)[k - 1],
        })
    }

    /// The sheet that merely lags: a strict prefix of the other, both wholly legal.
    fn lagging(&self) -> Option<Side> {
        let legal = self.legal;
        if self.any_bad || legal[0] == legal[1] || self.agreed_prefix < legal[0].min(legal[1]) {
            None
        } else if legal[0] < legal[1] {
            Some(Side::A)
        } else {
            Some(Side::B)
        }
    }
}

/// Replays both sheets, the common prefix once.
fn replay_both<'a>(input: &'a ReconcileInput<'a>, mode: CastlingMode) -> Sheets<'a> {
    let [sheet_a, sheet_b] = input.sheets;
    let common = sheet_a
        .moves
        .iter()
        .zip(&sheet_b.moves)
        .take_while(|(a, b)| a == b)
        .count();
    let first = replay(
        Side::A,
        &Sheet::from_moves(sheet_a.moves[..common].to_vec()),
        std::slice::from_ref(input.start.position()),
        mode,
    );
    let replayed = [
        replay(Side::A, sheet_a, &first.positions, mode),
        replay(Side::B, sheet_b, &first.positions, mode),
    ];
    let legal = [replayed[0].legal(), replayed[1].legal()];
    let any_bad = replayed.iter().any(|r| r.bad.is_some());
    Sheets {
        input,
        agreed_prefix: common.min(legal[0]).min(legal[1]),
        replayed,
        legal,
        any_bad,
    }
}

/// What the sheets say: the decision, the half-moves that stand, and whose sheet's positions
/// the boards must show.
fn decide_sheets(sheets: &Sheets) -> (SheetDecision, usize, Side) {
    let (legal, agreed_prefix) = (sheets.legal, sheets.agreed_prefix);
    let lag = sheets.lagging();
    match lag {
        None if !sheets.any_bad && agreed_prefix == legal[0] && legal[0] == legal[1] => (
            SheetDecision::Agree {
                plies: agreed_prefix,
                last: sheets.played(agreed_prefix, Side::A),
            },
            agreed_prefix,
            Side::A,
        ),
        Some(side) if !sheets.input.lag_disputed => {
            let long = side.other();
            let (has, of) = (legal[side.index()], legal[long.index()]);
            let positions = &sheets.replayed[long.index()].positions;
            let missing: Vec<Played> = sheets.moves(long)[has..of]
                .iter()
                .enumerate()
                .map(|(i, &mv)| Played {
                    before: positions[has + i].clone(),
                    mv,
                })
                .collect();
            let decision = SheetDecision::Lagging(Lag {
                side,
                has,
                of,
                last: sheets.played(of, long),
                within_8_1_3: missing.len() == 1,
                missing,
                back_to: sheets.played(has, side),
            });
            (decision, of, long)
        }
        _ => {
            let k = agreed_prefix;
            let next = Side::BOTH.map(|side| {
                let r = &sheets.replayed[side.index()];
                match sheets.moves(side).get(k) {
                    Some(&mv) if k < r.legal() => Next::Move(Played {
                        before: r.positions[k].clone(),
                        mv,
                    }),
                    _ => match &r.bad {
                        Some(bad) if bad.ply == k + 1 => Next::NoMove(bad.token.clone()),
                        _ => Next::Nothing,
                    },
                }
            });
            let decision = SheetDecision::Differ {
                agreed: k,
                // Past the first arm, a lagging sheet is here only because it was disputed.
                disputed: lag,
                next,
                last: sheets.played(k, Side::A),
            };
            (decision, k, Side::A)
        }
    }
}

/// Decides what two boards and two scoresheets mean (FIDE D.2.9), as data: the sheets, the
/// position, each board's corrections, the clocks. Pure and total: any sheets and boards give
/// a decision.
pub fn decide(input: &ReconcileInput) -> Decision {
    let mode = input.start.castling_mode();
    let sheets = replay_both(input, mode);
    let (decision, agreed_plies, target_side) = decide_sheets(&sheets);
    let differ = matches!(decision, SheetDecision::Differ { .. });
    let retracted = if differ {
        Side::BOTH.map(|side| sheets.moves(side)[agreed_plies..sheets.legal[side.index()]].to_vec())
    } else {
        [Vec::new(), Vec::new()]
    };
    let position: Chess = sheets.replayed[target_side.index()].positions[agreed_plies].clone();
    let candidates = Candidates {
        target: &position,
        replayed: &sheets.replayed,
    };
    let boards = Side::BOTH.map(|side| decide_board(side, input, &candidates));
    let clocks = match input.clocks {
        Some(record) if differ => Some(ClockDecision {
            adjustment: adjust_clocks(record, agreed_plies, input.start.turn()),
            used_now: record.used_now,
            plies_now: record.plies_now,
        }),
        _ => None,
    };
    Decision {
        mode,
        bad_entries: [
            sheets.replayed[0].bad.clone(),
            sheets.replayed[1].bad.clone(),
        ],
        sheets: decision,
        agreed_plies,
        position,
        retracted,
        boards,
        clocks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corrections::Observed;
    use crate::reconcile::{BoardInput, ClockBasis, ClockRecord, read_sheet};
    use annabella_chess::game::Game;
    use annabella_chess::language::Language;
    use shakmaty::{Position, Square};

    /// Sheets read in English, both boards showing the start position.
    fn decide_on(a: &str, b: &str, disputed: bool, clocks: Option<&ClockRecord>) -> Decision {
        let game = Game::new();
        let en = Language::english();
        let sheets = [
            read_sheet(Side::A, a, &game, en),
            read_sheet(Side::B, b, &game, en),
        ];
        let board = BoardInput {
            observed: Observed::Pieces(game.position().board().clone()),
            believed: None,
        };
        decide(&ReconcileInput {
            start: &game,
            sheets: [&sheets[0], &sheets[1]],
            boards: [&board, &board],
            languages: [en, en],
            clocks,
            lag_disputed: disputed,
        })
    }

    fn to(p: &Played) -> Square {
        p.mv.to()
    }

    #[test]
    fn sheets_that_differ_name_both_moves_after_the_agreed_ones() {
        let clocks = ClockRecord {
            used_now: [30_000, 20_000],
            plies_now: 3,
            after_ply: vec![Some([0, 0]), Some([1_000, 0])],
        };
        let d = decide_on("e4 e5 Nf3", "e4 c5", false, Some(&clocks));
        let SheetDecision::Differ {
            agreed,
            disputed,
            next,
            last,
        } = &d.sheets
        else {
            panic!("{d:?}")
        };
        assert_eq!((*agreed, *disputed), (1, None));
        assert!(matches!(&next[0], Next::Move(p) if to(p) == Square::E5));
        assert!(matches!(&next[1], Next::Move(p) if to(p) == Square::C5));
        assert_eq!(last.as_ref().map(to), Some(Square::E4));
        assert_eq!(d.agreed_plies, 1);
        assert_eq!((d.retracted[0].len(), d.retracted[1].len()), (2, 1));
        // Both boards show the start position, one pawn move short of the agreed one.
        assert!(
            d.boards
                .iter()
                .all(|b| b.corrections.len() == 1 && !b.pegs_only)
        );
        let c = d
            .clocks
            .expect("the sheets differ and the clocks are known");
        assert_eq!(c.adjustment.used, [1_000, 0]);
        assert_eq!(c.adjustment.basis, ClockBasis::Recorded);
    }

    #[test]
    fn a_lagging_sheet_is_decided_with_its_missing_moves_and_a_dispute_is_data_too() {
        let d = decide_on("e4 e5 Nf3", "e4 e5", false, None);
        let SheetDecision::Lagging(lag) = &d.sheets else {
            panic!("{d:?}")
        };
        assert_eq!((lag.side, lag.has, lag.of), (Side::B, 2, 3));
        assert!(lag.within_8_1_3);
        assert_eq!(lag.missing.iter().map(to).collect::<Vec<_>>(), [Square::F3]);
        assert_eq!(lag.back_to.as_ref().map(to), Some(Square::E5));
        assert_eq!(d.agreed_plies, 3);

        let d = decide_on("e4 e5 Nf3", "e4 e5", true, None);
        let SheetDecision::Differ { disputed, next, .. } = &d.sheets else {
            panic!("{d:?}")
        };
        assert_eq!(*disputed, Some(Side::B));
        assert!(matches!(next[1], Next::Nothing));
    }

    #[test]
    fn an_entry_that_is_no_move_is_kept_as_written() {
        let d = decide_on("e4 Ke9", "e4 e5", false, None);
        let SheetDecision::Differ { next, .. } = &d.sheets else {
            panic!("{d:?}")
        };
        assert!(matches!(&next[0], Next::NoMove(token) if token == "Ke9"));
        assert_eq!(d.bad_entries[0].as_ref().map(|b| b.ply), Some(2));
    }
}
