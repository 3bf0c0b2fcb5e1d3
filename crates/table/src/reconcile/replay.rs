//! A scoresheet replayed from the start position: the positions it passes through, and the first entry that is no legal move there.

use shakmaty::{CastlingMode, Chess, Position};

use super::Side;
use super::sheet::{BadEntry, Sheet, move_label};
use annabella_chess::notation::coordinate::format_uci;

/// A sheet replayed from the start: the positions it passes through and where it breaks.
pub(super) struct Replayed {
    /// `positions[k]`: after `k` half-moves; one more than the legal moves.
    pub(super) positions: Vec<Chess>,
    /// The first entry that is no legal move.
    pub(super) bad: Option<BadEntry>,
}

impl Replayed {
    /// The legal moves of the sheet.
    pub(super) fn legal(&self) -> usize {
        self.positions.len() - 1
    }
}

/// Replays `sheet`, sharing the first `shared` positions already checked for the other sheet.
pub(super) fn replay(side: Side, sheet: &Sheet, shared: &[Chess], mode: CastlingMode) -> Replayed {
    let mut positions: Vec<Chess> = shared.to_vec();
    let mut bad = None;
    for &m in &sheet.moves[shared.len() - 1..] {
        let pos = &positions[positions.len() - 1];
        if !pos.is_legal(m) {
            bad = Some(BadEntry {
                side,
                ply: positions.len(),
                label: move_label(pos),
                line: None,
                token: format_uci(m, mode),
                reason: "not a legal move in this position".to_owned(),
            });
            break;
        }
        let mut next = pos.clone();
        next.play_unchecked(m);
        positions.push(next);
    }
    // A sheet's own unreadable entry comes after its legal moves.
    Replayed {
        positions,
        bad: bad.or_else(|| sheet.bad.clone()),
    }
}
