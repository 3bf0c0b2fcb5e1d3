//! What the message tests share: a Ruy Lopez record, the game it makes, a message sending it.

use annabella_chess::game::Game;
use annabella_chess::language::Language;
use annabella_chess::notation::{Notation, parse_move};

use super::compose::GameMessage;
use super::parts::{Date, GameId, IccfMove};

pub(super) fn moves(text: &str) -> Vec<IccfMove> {
    text.split_whitespace()
        .map(|t| IccfMove::new(t).unwrap())
        .collect()
}

pub(super) fn game_of(record: &[IccfMove]) -> Game {
    let mut g = Game::new();
    for m in record {
        let mv = parse_move(
            g.position(),
            g.castling_mode(),
            m.as_str(),
            Some(Notation::Iccf),
            Language::english(),
        )
        .unwrap();
        g.play(mv).unwrap();
    }
    g
}

// A Ruy Lopez to Black's 8th: 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7
// 6. Re1 b5 7. Bb3 d6 8. c3 O-O.
pub(super) const RUY: &str =
    "5254 5755 7163 2836 6125 1716 2514 7866 5171 6857 6151 2725 1423 4746 3233 5878";

pub(super) fn message() -> GameMessage {
    GameMessage {
        game: GameId::new("BCA-7").unwrap(),
        white: "Anna Schmidt".into(),
        black: "Bob Jones".into(),
        record: moves(RUY),
        received: Date::new(2026, 11, 20),
        sent: Date::new(2026, 11, 23).unwrap(),
        used_days: 3,
        total_days: [12, 9],
        text: Some("I offer a draw? No, not yet.\nBest wishes, Bob".into()),
        intents: Vec::new(),
    }
}
