//! lichess's Board API as the correspondence desk reads it: `GET /api/account/playing` (the
//! account's games, of which only `speed == "correspondence"` ones are desk games) and the
//! first line of `GET /api/board/game/stream/{id}` (`gameFull`, whose `state.moves` is the
//! whole game in UCI); the paths of a move, a draw answer and a resignation. Read leniently
//! (unknown fields ignored), never panicking.

use serde::Deserialize;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Move, Position};

/// `GET /api/account/playing`.
#[derive(Debug, Deserialize)]
pub struct Playing {
    #[serde(rename = "nowPlaying", default)]
    pub now_playing: Vec<PlayingGame>,
}

/// One game of `nowPlaying`.
#[derive(Debug, Clone, Deserialize)]
pub struct PlayingGame {
    #[serde(rename = "gameId")]
    pub game_id: String,
    #[serde(default)]
    pub color: String,
    #[serde(rename = "isMyTurn", default)]
    pub is_my_turn: bool,
    #[serde(rename = "secondsLeft", default)]
    pub seconds_left: Option<i64>,
    #[serde(default)]
    pub speed: String,
    /// The variant (`standard`, `chess960`, `fromPosition`, …); absent read as standard.
    #[serde(default)]
    pub variant: Option<Variant>,
}

/// A game's variant as lichess names it.
#[derive(Debug, Clone, Deserialize)]
pub struct Variant {
    #[serde(default)]
    pub key: String,
}

/// The stream's first line.
#[derive(Debug, Clone, Deserialize)]
pub struct GameFull {
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default)]
    pub white: Option<Side>,
    #[serde(default)]
    pub black: Option<Side>,
    pub state: GameState,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Side {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub id: Option<String>,
}

impl Side {
    pub fn label(side: &Option<Side>) -> String {
        side.as_ref()
            .and_then(|s| s.name.clone().or_else(|| s.id.clone()))
            .unwrap_or_default()
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct GameState {
    #[serde(default)]
    pub moves: String,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub winner: Option<String>,
    #[serde(default)]
    pub wdraw: bool,
    #[serde(default)]
    pub bdraw: bool,
    /// Each side's time left in milliseconds.
    #[serde(default)]
    pub wtime: Option<i64>,
    #[serde(default)]
    pub btime: Option<i64>,
}

impl PlayingGame {
    /// A correspondence game with an id that is safe in a table's name.
    /// A correspondence game of standard chess from the start: the desk's tables play the
    /// standard game, and every move is replayed from the start position.
    pub fn is_desk_game(&self) -> bool {
        let standard = self.variant.as_ref().is_none_or(|v| v.key == "standard");
        self.speed == "correspondence" && standard && safe_id(&self.game_id)
    }

    pub fn peg_side(&self) -> Color {
        if self.color == "black" {
            Color::Black
        } else {
            Color::White
        }
    }
}

/// A lichess game id: 8 to 12 letters and digits.
pub fn safe_id(id: &str) -> bool {
    (4..=12).contains(&id.len()) && id.chars().all(|c| c.is_ascii_alphanumeric())
}

impl GameState {
    /// The game's moves from the standard position, up to the first that does not read.
    pub fn moves(&self) -> Vec<Move> {
        let mut pos = Chess::default();
        let mut out = Vec::new();
        for token in self
            .moves
            .split_whitespace()
            .take(crate::chess::game::MAX_PLIES)
        {
            let Some(m) = token
                .parse::<UciMove>()
                .ok()
                .and_then(|u| u.to_move(&pos).ok())
            else {
                break;
            };
            pos.play_unchecked(m);
            out.push(m);
        }
        out
    }

    /// The game is over on the server (anything but created and started).
    pub fn is_over(&self) -> bool {
        !matches!(self.status.as_str(), "" | "created" | "started")
    }

    /// The winner of a finished game (`None` a draw).
    pub fn winner(&self) -> Option<Color> {
        match self.winner.as_deref() {
            Some("white") => Some(Color::White),
            Some("black") => Some(Color::Black),
            _ => None,
        }
    }

    /// `side`'s time left in milliseconds, when the game has a clock.
    pub fn time_ms(&self, side: Color) -> Option<i64> {
        match side {
            Color::White => self.wtime,
            Color::Black => self.btime,
        }
    }

    /// Whether `side` has a draw offer standing.
    pub fn offers_draw(&self, side: Color) -> bool {
        match side {
            Color::White => self.wdraw,
            Color::Black => self.bdraw,
        }
    }
}

/// The first JSON line of a game's stream, read as `gameFull`.
pub fn game_full(line: &str) -> Result<GameFull, String> {
    let full: GameFull = serde_json::from_str(line).map_err(|e| e.to_string())?;
    if full.kind != "gameFull" {
        return Err(format!(
            "the stream began with {:?}, not gameFull",
            full.kind
        ));
    }
    Ok(full)
}

/// The paths of the Board API for game `id`.
pub fn move_path(id: &str, uci: &str, offering_draw: bool) -> String {
    if offering_draw {
        format!("/api/board/game/{id}/move/{uci}?offeringDraw=true")
    } else {
        format!("/api/board/game/{id}/move/{uci}")
    }
}

pub fn draw_path(id: &str, accept: bool) -> String {
    format!(
        "/api/board/game/{id}/draw/{}",
        if accept { "yes" } else { "no" }
    )
}

pub fn resign_path(id: &str) -> String {
    format!("/api/board/game/{id}/resign")
}

pub fn stream_path(id: &str) -> String {
    format!("/api/board/game/stream/{id}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn playing_and_game_full_are_read_and_only_correspondence_games_are_desk_games() {
        let playing: Playing = serde_json::from_str(
            r#"{"nowPlaying":[
              {"gameId":"abcd1234","fullId":"abcd1234wxyz","color":"black","fen":"x","lastMove":"e2e4",
               "isMyTurn":true,"secondsLeft":1209600,"speed":"correspondence","opponent":{"id":"bob","username":"Bob","rating":1500}},
              {"gameId":"rapid123","color":"white","isMyTurn":false,"speed":"rapid"},
              {"gameId":"../etc","color":"white","speed":"correspondence"},
              {"gameId":"c960game","color":"white","speed":"correspondence","variant":{"key":"chess960","name":"Chess960"}},
              {"gameId":"fromposi","color":"white","speed":"correspondence","variant":{"key":"fromPosition","name":"From Position"}},
              {"gameId":"standard","color":"white","speed":"correspondence","variant":{"key":"standard","name":"Standard"}}]}"#,
        )
        .unwrap();
        let desk: Vec<_> = playing
            .now_playing
            .iter()
            .filter(|g| g.is_desk_game())
            .collect();
        let ids: Vec<&str> = desk.iter().map(|g| g.game_id.as_str()).collect();
        assert_eq!(
            ids,
            ["abcd1234", "standard"],
            "no variant, no set-up position"
        );
        assert_eq!(desk[0].peg_side(), Color::Black);
        let full = game_full(
            r#"{"type":"gameFull","id":"abcd1234","white":{"id":"bob","name":"Bob"},"black":{"id":"anna","name":"Anna"},
                "state":{"type":"gameState","moves":"e2e4 e7e5 g1f3","wtime":1,"btime":2,"status":"started","wdraw":true,"bdraw":false}}"#,
        )
        .unwrap();
        assert_eq!(full.state.moves().len(), 3);
        assert!(full.state.offers_draw(Color::White) && !full.state.is_over());
        assert_eq!(Side::label(&full.white), "Bob");
        assert!(game_full(r#"{"type":"gameState","state":{}}"#).is_err());
        assert!(game_full("not json").is_err());
        let bad = GameState {
            moves: "e2e4 e2e4 g1f3".to_owned(),
            status: "mate".to_owned(),
            winner: Some("white".to_owned()),
            wdraw: false,
            bdraw: false,
            wtime: None,
            btime: None,
        };
        assert_eq!(
            bad.moves().len(),
            1,
            "read up to the first move that does not play"
        );
        assert!(bad.is_over());
        assert_eq!(bad.winner(), Some(Color::White));
    }
}
