//! The clocks after a takeback (FIDE D.2.9): the readings recorded at the agreed half-move, or else each colour's time used in proportion to its moves that still stand.

use shakmaty::Color;

use super::resolution::{ClockAdjustment, ClockBasis, ClockRecord};

/// Moves `color` made in the first `plies` half-moves of a game whose first mover is `first`.
fn moves_of(color: Color, plies: usize, first: Color) -> u64 {
    let plies = plies as u64;
    if color == first {
        plies.div_ceil(2)
    } else {
        plies / 2
    }
}

/// The clocks at half-move `agreed`: the recorded reading, else each colour's used time in
/// proportion to its moves that still stand.
pub fn adjust_clocks(record: &ClockRecord, agreed: usize, first: Color) -> ClockAdjustment {
    if let Some(Some(used)) = record.after_ply.get(agreed) {
        return ClockAdjustment {
            used: *used,
            basis: ClockBasis::Recorded,
        };
    }
    let share = |i: usize, color: Color| -> u64 {
        let played = moves_of(color, record.plies_now, first);
        let kept = moves_of(color, agreed.min(record.plies_now), first);
        if played == 0 {
            return record.used_now[i];
        }
        // u128: used time × moves cannot overflow.
        (u128::from(record.used_now[i]) * u128::from(kept) / u128::from(played)) as u64
    };
    ClockAdjustment {
        used: [share(0, Color::White), share(1, Color::Black)],
        basis: ClockBasis::Proportional,
    }
}
