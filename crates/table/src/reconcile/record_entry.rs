//! The reconciliation's entry for the table's record (arbiter, appeals): both sheets, both boards, what was decided and why, as plain text.

use shakmaty::Position;

use super::Side;
use super::resolution::{ClockBasis, ReconcileInput, Resolution, Verdict};
use crate::corrections::Observed;
use annabella_boards::peg::occupancy_line;
use annabella_chess::language::Language;
use annabella_chess::notation::coordinate::format_uci;
use annabella_chess::notation::{self, Notation, Style};

impl Resolution {
    /// The entry for the table's record (arbiter, appeals): both sheets, both boards, what
    /// was decided and why, as plain text.
    pub fn record(&self, input: &ReconcileInput) -> String {
        let english = Style::new(Language::english());
        let mut out = String::new();
        out.push_str("two-board reconciliation (FIDE D.2.9)\n");
        out.push_str(&format!("start: {}\n", input.start.start_fen()));
        for side in Side::BOTH {
            let sheet = input.sheets[side.index()];
            let mut pos = input.start.position().clone();
            let mut text = Vec::new();
            for &m in &sheet.moves {
                if !pos.is_legal(m) {
                    text.push(format!("[{}: not legal]", format_uci(m, self.mode)));
                    break;
                }
                text.push(notation::format_move(
                    &pos,
                    self.mode,
                    m,
                    Notation::San,
                    &english,
                ));
                pos.play_unchecked(m);
            }
            if let Some(bad) = &sheet.bad {
                text.push(format!("[{:?}: {}]", bad.token, bad.reason));
            }
            out.push_str(&format!("sheet {side}: {}\n", text.join(" ")));
        }
        for side in Side::BOTH {
            let board = match &input.boards[side.index()].observed {
                Observed::Pieces(b) => b.to_string(),
                Observed::Occupancy(occ) => occupancy_line(*occ),
            };
            out.push_str(&format!("board {side}: {board}\n"));
        }
        let verdict = match &self.verdict {
            Verdict::Agree => "sheets agree".to_owned(),
            Verdict::Lagging { side, .. } => format!("sheet {side} lags"),
            Verdict::Differ => "sheets differ".to_owned(),
        };
        out.push_str(&format!(
            "decision: {verdict}; {} half-moves stand; position {}\n",
            self.agreed_plies,
            self.fen()
        ));
        for side in Side::BOTH {
            let cut = self.retracted_uci(side);
            if !cut.is_empty() {
                out.push_str(&format!("cut from sheet {side}: {}\n", cut.join(" ")));
            }
        }
        for side in Side::BOTH {
            let b = self.board(side);
            let state = if b.correct {
                "correct".to_owned()
            } else {
                b.written.join("; ")
            };
            out.push_str(&format!("board {side}: {state}\n"));
        }
        if let Some(c) = &self.clocks {
            out.push_str(&format!(
                "clocks: white {} ms used, black {} ms used ({})\n",
                c.used[0],
                c.used[1],
                match c.basis {
                    ClockBasis::Recorded => "recorded",
                    ClockBasis::Proportional => "proportional",
                }
            ));
        }
        for line in &self.explanation {
            out.push_str(&format!("- {line}\n"));
        }
        out
    }
}
