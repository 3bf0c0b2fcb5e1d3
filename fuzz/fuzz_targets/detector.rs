//! Fuzz target: any sequence of sensor events, game changes and clock ticks, on either kind of
//! board with any setting, never panics and keeps the detector's state bounded.
#![no_main]

use annabella::boards::{BoardKey, SensorEvent, Timed};
use annabella::chess::game::Game;
use annabella::table::detector::{
    BoardKind, Conclusion, DetectorSettings, MoveDetector, TouchMove,
};
use libfuzzer_sys::fuzz_target;
use shakmaty::{Bitboard, Color, Piece, Position, Role, Square};

const ROLES: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let kind = if head & 1 == 0 {
        BoardKind::Occupancy
    } else {
        BoardKind::Identity
    };
    let touch_move =
        [TouchMove::Off, TouchMove::Warn, TouchMove::Strict][usize::from(head >> 1) % 3];
    let mover = [None, Some(Color::White), Some(Color::Black)][usize::from(head >> 3) % 3];
    let mut game = if head & 0x40 == 0 {
        Game::new()
    } else {
        Game::chess960(u32::from(head) * 7 % 960).unwrap_or_default()
    };
    let settings = DetectorSettings {
        touch_move,
        settle_ms: u64::from(head >> 4) * 100,
        mover,
    };
    let mut det = MoveDetector::new(kind, settings, &game);
    let mut out = Vec::new();
    let mut t = 0u64;
    for chunk in rest.chunks(4) {
        let [op, a, b, c] = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
            *chunk.get(3).unwrap_or(&0),
        ];
        t = t.saturating_add(u64::from(c) * 10);
        let square = Square::new(u32::from(a % 64));
        let piece = (b % 13 > 0).then(|| Piece {
            color: Color::from_white(b % 13 <= 6),
            role: ROLES[usize::from(b % 13 - 1) % 6],
        });
        let event = match op % 10 {
            0 | 1 => SensorEvent::Lift(square),
            2 | 3 => SensorEvent::Place(square),
            4 => SensorEvent::Occupancy(Bitboard(u64::from_le_bytes([
                a,
                b,
                c,
                op,
                a ^ b,
                b ^ c,
                c ^ op,
                op ^ a,
            ]))),
            5 => SensorEvent::SquareChanged { square, piece },
            6 => {
                let mut board = game.position().board().clone();
                if b & 1 == 0 {
                    board.rotate_180();
                }
                board.discard_piece_at(square);
                SensorEvent::Pieces(board)
            }
            7 => SensorEvent::Key(BoardKey::Promote(piece.map_or(Role::Queen, |p| p.role))),
            8 => {
                if b % 3 == 0 {
                    game.undo();
                } else {
                    let legal = game.position().legal_moves();
                    if !legal.is_empty() {
                        let _ = game.play(legal[usize::from(b) % legal.len()]);
                    }
                }
                det.poll(&game, t, &mut out);
                continue;
            }
            _ => {
                if b % 5 == 0 {
                    det.reconnected();
                }
                det.poll(&game, t, &mut out);
                continue;
            }
        };
        det.handle(&game, &Timed { at: t, event }, &mut out);
        for conclusion in out.drain(..) {
            match conclusion {
                Conclusion::Moved { m, .. } => {
                    let _ = game.play(m);
                }
                Conclusion::Takeback { plies } if c & 1 == 0 => {
                    for _ in 0..plies {
                        game.undo();
                    }
                }
                Conclusion::Illegal { corrections, .. }
                | Conclusion::Mismatch { corrections, .. } => {
                    assert!(corrections.len() <= 128);
                }
                _ => {}
            }
        }
    }
    det.poll(&game, u64::MAX, &mut out);
});
