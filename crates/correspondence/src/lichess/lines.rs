//! The lines of lichess's two NDJSON streams, as types (lichess-api.yaml: `GameEventInfo`,
//! `GameFullEvent`, `GameStateEvent`, `OpponentGoneEvent`, `ChallengeJson`). Only the fields a
//! table uses are read; any other field, and any line of a type not named here, is accepted
//! and left aside (lichess adds fields), so a new kind of line never stops a game.

use serde::Deserialize;
use shakmaty::Color;

/// A line of the event stream (`GET /api/stream/event`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum EventLine {
    GameStart {
        game: GameInfo,
    },
    GameFinish {
        game: GameInfo,
    },
    Challenge {
        challenge: ChallengeInfo,
    },
    ChallengeCanceled {
        challenge: ChallengeInfo,
    },
    ChallengeDeclined {
        challenge: ChallengeInfo,
    },
    #[serde(other)]
    Other,
}

/// A game as the event stream names it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GameInfo {
    pub game_id: String,
    #[serde(default)]
    pub color: Option<String>,
    #[serde(default)]
    pub compat: Option<Compat>,
    #[serde(default)]
    pub opponent: Option<Opponent>,
    #[serde(default)]
    pub speed: Option<String>,
}

impl GameInfo {
    /// Whether the Board API may play it (`compat.board`); a game without the field is taken
    /// as playable, the stream then says otherwise.
    pub fn board_compatible(&self) -> bool {
        self.compat.as_ref().is_none_or(|c| c.board)
    }

    pub fn color(&self) -> Option<Color> {
        self.color.as_deref().and_then(color)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Compat {
    #[serde(default)]
    pub board: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Opponent {
    #[serde(default)]
    pub username: Option<String>,
    #[serde(default)]
    pub rating: Option<u32>,
}

/// A challenge as the event stream names it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChallengeInfo {
    pub id: String,
    #[serde(default)]
    pub challenger: Option<User>,
    #[serde(default)]
    pub dest_user: Option<User>,
    #[serde(default)]
    pub decline_reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct User {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub rating: Option<u32>,
}

/// A line of a game's stream (`GET /api/board/game/stream/{id}`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum GameLine {
    GameFull(Box<GameFull>),
    GameState(GameState),
    #[serde(rename_all = "camelCase")]
    OpponentGone {
        gone: bool,
        #[serde(default)]
        claim_win_in_seconds: Option<u64>,
    },
    #[serde(other)]
    Other,
}

/// The first line of every game stream: the game and its whole state.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GameFull {
    pub id: String,
    #[serde(default)]
    pub rated: bool,
    #[serde(default)]
    pub speed: Option<String>,
    #[serde(default)]
    pub clock: Option<Clock>,
    #[serde(default)]
    pub white: Player,
    #[serde(default)]
    pub black: Player,
    #[serde(default)]
    pub initial_fen: Option<String>,
    #[serde(default)]
    pub variant: Option<Variant>,
    pub state: GameState,
}

impl GameFull {
    /// A game from the standard start position (`initialFen` absent or `startpos`) in the
    /// standard variant: the only kind a table plays from lichess.
    pub fn standard(&self) -> bool {
        let fen = self.initial_fen.as_deref().unwrap_or("startpos");
        let variant = self.variant.as_ref().map_or("standard", |v| v.key.as_str());
        (fen == "startpos" || fen.starts_with("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w"))
            && variant == "standard"
    }

    pub fn player(&self, color: Color) -> &Player {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Variant {
    #[serde(default)]
    pub key: String,
}

/// `clock` in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct Clock {
    pub initial: u64,
    pub increment: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Player {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub rating: Option<u32>,
    #[serde(default)]
    pub ai_level: Option<u32>,
}

/// Every move so far and the clocks at the last change; the draw offers standing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct GameState {
    #[serde(default)]
    pub moves: String,
    #[serde(default)]
    pub wtime: u64,
    #[serde(default)]
    pub btime: u64,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub winner: Option<String>,
    #[serde(default)]
    pub wdraw: bool,
    #[serde(default)]
    pub bdraw: bool,
}

/// How a game stands or ended (`GameStatusName`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Still being played (`created`, `started`).
    Running,
    Aborted,
    /// Ended on the board (mate, stalemate, a draw claimed by the rules): the table sees it
    /// itself.
    OnTheBoard,
    Resign,
    /// `timeout`: a player left and the other claimed the win.
    Timeout,
    Draw,
    OutOfTime,
    /// Any other end (`cheat`, `noStart`, `unknownFinish`, …).
    Other,
}

impl GameState {
    /// The moves as the stream writes them (UCI), none for an empty list.
    pub fn move_list(&self) -> Vec<&str> {
        self.moves.split_whitespace().collect()
    }

    pub fn status(&self) -> Status {
        match self.status.as_str() {
            "" | "created" | "started" => Status::Running,
            "aborted" => Status::Aborted,
            "mate" | "stalemate" | "insufficientMaterialClaim" | "variantEnd" => Status::OnTheBoard,
            "resign" => Status::Resign,
            "timeout" => Status::Timeout,
            "draw" => Status::Draw,
            "outoftime" => Status::OutOfTime,
            _ => Status::Other,
        }
    }

    pub fn winner(&self) -> Option<Color> {
        self.winner.as_deref().and_then(color)
    }

    /// The time left on `side`'s clock at the last change, in milliseconds.
    pub fn time_ms(&self, side: Color) -> u64 {
        match side {
            Color::White => self.wtime,
            Color::Black => self.btime,
        }
    }

    /// Whether `side` offers a draw.
    pub fn offers_draw(&self, side: Color) -> bool {
        match side {
            Color::White => self.wdraw,
            Color::Black => self.bdraw,
        }
    }
}

fn color(s: &str) -> Option<Color> {
    match s {
        "white" => Some(Color::White),
        "black" => Some(Color::Black),
        _ => None,
    }
}

/// A stream line that is not what the specification says.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a {stream} line lichess sent is not understood ({why}): {start}")]
pub struct LineError {
    pub stream: &'static str,
    pub why: String,
    /// The line's first characters, for the log.
    pub start: String,
}

fn read<'a, T: Deserialize<'a>>(stream: &'static str, line: &'a str) -> Result<T, LineError> {
    serde_json::from_str(line).map_err(|e| LineError {
        stream,
        why: e.to_string(),
        start: line.chars().take(80).collect(),
    })
}

/// Reads one line of the event stream.
pub fn event_line(line: &str) -> Result<EventLine, LineError> {
    read("event stream", line)
}

/// Reads one line of a game's stream.
pub fn game_line(line: &str) -> Result<GameLine, LineError> {
    read("game stream", line)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The specification's example of `gameStart` (examples/stream-gameStart.json.yaml, in
    /// the form the research notes quote).
    const GAME_START: &str = r#"{"type":"gameStart","game":{"fullId":"abcdefghijkl","gameId":"abcdefgh","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","color":"white","lastMove":"","source":"lobby","status":{"id":20,"name":"started"},"variant":{"key":"standard","name":"Standard"},"speed":"rapid","perf":"rapid","rated":false,"hasMoved":false,"opponent":{"id":"bob","username":"Bob","rating":1500},"isMyTurn":true,"secondsLeft":900,"compat":{"bot":false,"board":true},"id":"abcdefgh"}}"#;

    #[test]
    fn the_event_stream_lines_are_read() {
        let EventLine::GameStart { game } = event_line(GAME_START).unwrap() else {
            panic!("not a gameStart");
        };
        assert_eq!(game.game_id, "abcdefgh");
        assert_eq!(game.color(), Some(Color::White));
        assert!(game.board_compatible());
        assert_eq!(game.opponent.unwrap().rating, Some(1500));
        let declined = r#"{"type":"challengeDeclined","challenge":{"id":"c1","destUser":{"id":"bob","name":"Bob"},"declineReason":"I'm not accepting challenges at the moment."}}"#;
        assert!(matches!(
            event_line(declined).unwrap(),
            EventLine::ChallengeDeclined { challenge } if challenge.decline_reason.is_some()
        ));
        assert_eq!(
            event_line(r#"{"type":"somethingNew","x":1}"#).unwrap(),
            EventLine::Other
        );
        assert!(event_line("{\"type\":\"gameStart\"}").is_err());
        assert!(event_line("not json").is_err());
    }

    #[test]
    fn the_game_stream_lines_are_read() {
        let full = r#"{"type":"gameFull","id":"abcdefgh","rated":false,"variant":{"key":"standard"},"clock":{"initial":900000,"increment":10000},"speed":"rapid","white":{"id":"anna","name":"Anna","rating":1600},"black":{"id":"bob","name":"Bob","rating":1500,"title":null},"initialFen":"startpos","state":{"type":"gameState","moves":"e2e4 c7c5","wtime":899000,"btime":900000,"winc":10000,"binc":10000,"status":"started"}}"#;
        let GameLine::GameFull(full) = game_line(full).unwrap() else {
            panic!("not gameFull")
        };
        assert!(full.standard());
        assert_eq!(full.state.move_list(), ["e2e4", "c7c5"]);
        assert_eq!(full.clock.unwrap().increment, 10_000);
        assert_eq!(full.player(Color::Black).name.as_deref(), Some("Bob"));
        let state = r#"{"type":"gameState","moves":"e2e4 c7c5 g1f3","wtime":895000,"btime":900000,"winc":10000,"binc":10000,"status":"resign","winner":"white","bdraw":true}"#;
        let GameLine::GameState(s) = game_line(state).unwrap() else {
            panic!("not gameState")
        };
        assert_eq!(s.status(), Status::Resign);
        assert_eq!(s.winner(), Some(Color::White));
        assert!(s.offers_draw(Color::Black) && !s.offers_draw(Color::White));
        assert_eq!(s.time_ms(Color::White), 895_000);
        let gone = r#"{"type":"opponentGone","gone":true,"claimWinInSeconds":8}"#;
        assert_eq!(
            game_line(gone).unwrap(),
            GameLine::OpponentGone {
                gone: true,
                claim_win_in_seconds: Some(8)
            }
        );
        let chat = r#"{"type":"chatLine","room":"player","username":"bob","text":"hi"}"#;
        assert_eq!(game_line(chat).unwrap(), GameLine::Other);
    }
}
