//! What the server's whole move list means for the table, rebuilt each time from the full list
//! (`gameFull`, `gameState`: "all moves so far"), never from a delta: a move the table already
//! has is never played twice, a move of the blind player the server lacks is sent (once: the
//! caller remembers what it sent and the server confirmed), and a table that went another way
//! than the server (a move lichess refused) takes its moves back to where both agree.
//!
//! Moves are compared as moves of the position, not as text: lichess may write castling as
//! the king taking its rook (`e1h1`), the table writes the king's two steps (`e1g1`).

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Move, Position};

/// The table's moves the server lacks, or the other way round, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Rebuild {
    /// Half-moves the table takes back before the server's moves are played: the table went
    /// another way (a move lichess refused, or one it never had).
    pub take_back: usize,
    /// The server's moves the table lacks, in order, with the side that made each, as the
    /// table reads them (standard UCI).
    pub play: Vec<(Color, String)>,
    /// The blind player's move the table has and the server lacks: his last, to send.
    pub send: Option<Outgoing>,
}

/// A move to send: the half-move it is (0-based) and its UCI (castling as the king's two
/// steps, which lichess accepts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    pub ply: usize,
    pub uci: String,
}

/// A move list that is not a game from the start position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RebuildError {
    #[error("lichess's move {ply} ({uci}) is not a legal move of the game")]
    Server { ply: usize, uci: String },
    #[error("the table's move {ply} ({uci}) is not a legal move of the game")]
    Table { ply: usize, uci: String },
}

/// The moves of `list` from the start position; `which` names the list in the error.
fn moves(list: &[&str], server: bool) -> Result<Vec<(Color, Move)>, RebuildError> {
    let mut pos = Chess::default();
    let mut out = Vec::with_capacity(list.len());
    for (ply, text) in list.iter().enumerate() {
        let bad = || {
            let (ply, uci) = (ply + 1, (*text).chars().take(10).collect());
            if server {
                RebuildError::Server { ply, uci }
            } else {
                RebuildError::Table { ply, uci }
            }
        };
        let m = text
            .parse::<UciMove>()
            .ok()
            .and_then(|u| u.to_move(&pos).ok())
            .ok_or_else(bad)?;
        out.push((pos.turn(), m));
        pos.play_unchecked(m);
    }
    Ok(out)
}

/// What the table does to agree with the server's `server` moves, holding `table` now; `mine`
/// is the blind player's colour.
pub fn rebuild(table: &[&str], server: &[&str], mine: Color) -> Result<Rebuild, RebuildError> {
    let ours = moves(table, false)?;
    let theirs = moves(server, true)?;
    let common = ours
        .iter()
        .zip(&theirs)
        .take_while(|(a, b)| a.1 == b.1)
        .count();
    let uci = |m: &Move| m.to_uci(CastlingMode::Standard).to_string();
    // The table is one move of his ahead: the server has not had it yet.
    if common == theirs.len() && ours.len() == common + 1 && ours[common].0 == mine {
        return Ok(Rebuild {
            send: Some(Outgoing {
                ply: common,
                uci: uci(&ours[common].1),
            }),
            ..Rebuild::default()
        });
    }
    Ok(Rebuild {
        take_back: ours.len() - common,
        play: theirs[common..].iter().map(|(c, m)| (*c, uci(m))).collect(),
        send: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(s: &str) -> Vec<&str> {
        s.split_whitespace().collect()
    }

    fn r(table: &str, server: &str, mine: Color) -> Rebuild {
        rebuild(&split(table), &split(server), mine).unwrap()
    }

    #[test]
    fn the_same_list_again_changes_nothing() {
        assert_eq!(
            r("e2e4 e7e5", "e2e4 e7e5", Color::White),
            Rebuild::default()
        );
        assert_eq!(r("", "", Color::Black), Rebuild::default());
    }

    #[test]
    fn only_the_moves_the_table_lacks_are_played() {
        let got = r("e2e4", "e2e4 e7e5 g1f3", Color::Black);
        assert_eq!(got.take_back, 0);
        assert_eq!(
            got.play,
            [
                (Color::Black, "e7e5".to_owned()),
                (Color::White, "g1f3".to_owned())
            ]
        );
        assert_eq!(got.send, None);
    }

    #[test]
    fn his_move_the_server_lacks_is_sent_once_it_is_his_last() {
        let got = r("e2e4 e7e5 g1f3", "e2e4 e7e5", Color::White);
        assert_eq!(
            got.send,
            Some(Outgoing {
                ply: 2,
                uci: "g1f3".into()
            })
        );
        assert!(got.play.is_empty() && got.take_back == 0);
        // The opponent's move the server lacks is not his to send: taken back.
        let got = r("e2e4 e7e5", "e2e4", Color::White);
        assert_eq!((got.take_back, got.send), (1, None));
    }

    #[test]
    fn a_table_that_went_another_way_takes_back_to_where_both_agree() {
        // lichess refused his d2d4 and has the game at e2e4 e7e5 g1f3 (played elsewhere).
        let got = r("e2e4 e7e5 d2d4", "e2e4 e7e5 g1f3 b8c6", Color::White);
        assert_eq!(got.take_back, 1);
        assert_eq!(got.play.len(), 2);
        assert_eq!(got.send, None);
    }

    #[test]
    fn castling_written_king_takes_rook_is_the_same_move() {
        let table = "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1g1";
        assert_eq!(
            r(table, "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1h1", Color::White),
            Rebuild::default()
        );
        let got = r(
            "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6",
            "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1h1",
            Color::Black,
        );
        assert_eq!(got.play, [(Color::White, "e1g1".to_owned())]);
    }

    #[test]
    fn an_illegal_list_is_an_error_naming_the_move() {
        assert_eq!(
            rebuild(&[], &split("e2e4 e2e4"), Color::White),
            Err(RebuildError::Server {
                ply: 2,
                uci: "e2e4".into()
            })
        );
        assert!(rebuild(&split("zz"), &[], Color::White).is_err());
    }
}
