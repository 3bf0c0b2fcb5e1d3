//! What the server desk keeps on disk: the server games known (`<state_dir>/server-games`,
//! one game a line) so their tables exist again after a restart before the server is asked,
//! and per table the call it is making (`<state_dir>/server-out/<table>`), written BEFORE the
//! call: after a failure or a restart the next list of games decides whether it landed (the
//! server's moves contain it: done; not: sent again), so a move is sent once and never lost.
//! Every file is replaced atomically and read with a bound; a line that does not read is
//! skipped (and logged), never a reason to stop.

use std::path::{Path, PathBuf};

use crate::config::CorrespondenceSource;
use crate::correspondence::server_call::{Call, Marked};

/// The most bytes read from one of these files.
const MAX_FILE_BYTES: u64 = 256 * 1024;

/// One line of `server-games`: `source<TAB>id<TAB>side<TAB>white<TAB>black<TAB>event<TAB>site`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownGame {
    pub source: CorrespondenceSource,
    pub id: String,
    pub peg_side: shakmaty::Color,
    pub white: String,
    pub black: String,
    pub event: String,
    pub site: String,
}

fn side_word(c: shakmaty::Color) -> &'static str {
    match c {
        shakmaty::Color::White => "white",
        shakmaty::Color::Black => "black",
    }
}

/// Tabs and line ends out of a field.
fn field(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(200)
        .collect()
}

fn read_bounded(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_FILE_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

fn replace(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    crate::io::private_file::replace(
        path,
        text.as_bytes(),
        crate::io::private_file::Access::Private,
    )
}

/// The server games file in `state_dir`.
pub fn games_file(state_dir: &Path) -> PathBuf {
    state_dir.join("server-games")
}

/// The games known from the last run, in the order they were first seen.
pub fn read_games(path: &Path) -> Vec<KnownGame> {
    let Some(text) = read_bounded(path) else {
        return Vec::new();
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|line| {
            let parts: Vec<&str> = line.split('\t').collect();
            let read = (|| {
                let source = CorrespondenceSource::parse(parts.first()?)?;
                let id = parts.get(1)?.trim();
                if id.is_empty() {
                    return None;
                }
                let peg_side = match *parts.get(2)? {
                    "white" => shakmaty::Color::White,
                    "black" => shakmaty::Color::Black,
                    _ => return None,
                };
                let at = |i: usize| parts.get(i).map_or(String::new(), |s| (*s).to_owned());
                Some(KnownGame {
                    source,
                    id: id.to_owned(),
                    peg_side,
                    white: at(3),
                    black: at(4),
                    event: at(5),
                    site: at(6),
                })
            })();
            if read.is_none() {
                tracing::warn!(path = %path.display(), line, "a line of the server games does not read; skipped");
            }
            read
        })
        .collect()
}

/// Both server desks keep their games in the one file: each change is read, changed and
/// written under this lock.
static GAMES_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Adds `game` to the games known in `state_dir` unless it is there.
pub fn remember_game(state_dir: &Path, game: &KnownGame) {
    let _held = GAMES_LOCK
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let path = games_file(state_dir);
    let mut games = read_games(&path);
    if games
        .iter()
        .any(|g| g.source == game.source && g.id == game.id)
    {
        return;
    }
    games.push(game.clone());
    if let Err(e) = write_games(&path, &games) {
        tracing::warn!(path = %path.display(), error = %e, "the server games were not kept");
    }
}

/// Removes game `id` of `source` from the games known in `state_dir`: it has ended and the
/// server no longer lists it, so its table is not made again at the next start (the game
/// stays in the archive). Whether it was there.
pub fn forget_game(state_dir: &Path, source: CorrespondenceSource, id: &str) -> bool {
    let _held = GAMES_LOCK
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let path = games_file(state_dir);
    let mut games = read_games(&path);
    let before = games.len();
    games.retain(|g| !(g.source == source && g.id == id));
    if games.len() == before {
        return false;
    }
    if let Err(e) = write_games(&path, &games) {
        tracing::warn!(path = %path.display(), error = %e, "a finished server game was not forgotten");
        return false;
    }
    true
}

/// Writes the games known.
pub fn write_games(path: &Path, games: &[KnownGame]) -> std::io::Result<()> {
    let text: String = games
        .iter()
        .map(|g| {
            format!(
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                g.source.word(),
                field(&g.id),
                side_word(g.peg_side),
                field(&g.white),
                field(&g.black),
                field(&g.event),
                field(&g.site)
            )
        })
        .collect();
    replace(path, &text)
}

/// Where a call stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallState {
    /// Written before the call: whether it reached the server is not known until the next
    /// list of games shows it (or not).
    Sending,
    /// The server answered `Success`: kept until its list shows the move, never sent again.
    Accepted,
    /// The server refused it with this code: not sent again for this half-move.
    Refused(String),
}

/// One call of a table: his move at half-move `ply` (0-based) in SAN, or none (a
/// resignation, a draw accepted or claimed), with what goes with it: his message too, so a
/// call sent again carries the same words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutMark {
    pub ply: usize,
    pub san: String,
    pub offer_draw: bool,
    pub accept_draw: bool,
    pub claim_draw: bool,
    pub resign: bool,
    pub message: String,
    pub state: CallState,
}

/// The marks' folder in `state_dir`.
pub fn out_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("server-out")
}

impl OutMark {
    /// The mark of `call`, about to be made: `san` his move's, `message` his words with it.
    pub fn sending(call: &Call, san: String, message: String) -> OutMark {
        OutMark {
            ply: call.ply,
            san,
            offer_draw: call.offer_draw,
            accept_draw: call.accept_draw,
            claim_draw: call.claim_draw,
            resign: call.resign,
            message,
            state: CallState::Sending,
        }
    }

    /// What the pure decisions (`correspondence::server_call`) know of it.
    pub fn marked(&self) -> Marked {
        Marked {
            ply: self.ply,
            with_move: !self.san.is_empty(),
            resign: self.resign,
            claim_draw: self.claim_draw,
            answered: match self.state {
                CallState::Sending => None,
                CallState::Accepted => Some(true),
                CallState::Refused(_) => Some(false),
            },
        }
    }

    fn text(&self) -> String {
        let state = match &self.state {
            CallState::Sending => "sending".to_owned(),
            CallState::Accepted => "accepted".to_owned(),
            CallState::Refused(code) => format!("refused {}", field(code)),
        };
        // `claim` and `message` came later: a mark written before them reads as without.
        format!(
            "ply {}\nsan {}\noffer {}\naccept {}\nresign {}\nclaim {}\nmessage {}\nstate {state}\n",
            self.ply,
            field(&self.san),
            self.offer_draw,
            self.accept_draw,
            self.resign,
            self.claim_draw,
            crate::table::record::comment_line(&self.message),
        )
    }

    fn parse(text: &str) -> Option<OutMark> {
        let get = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key)?.strip_prefix(' '))
                .map(str::trim)
        };
        let state = get("state")?;
        Some(OutMark {
            ply: get("ply")?.parse().ok()?,
            san: get("san").unwrap_or("").to_owned(),
            offer_draw: get("offer") == Some("true"),
            accept_draw: get("accept") == Some("true"),
            resign: get("resign") == Some("true"),
            claim_draw: get("claim") == Some("true"),
            message: get("message").unwrap_or("").to_owned(),
            state: match state.strip_prefix("refused ") {
                Some(code) => CallState::Refused(code.to_owned()),
                None if state == "sending" => CallState::Sending,
                None if state == "accepted" => CallState::Accepted,
                None => return None,
            },
        })
    }

    /// Table `table`'s mark, if any (one that does not read is logged and taken as none).
    pub fn read(dir: &Path, table: &str) -> Option<OutMark> {
        let path = dir.join(table);
        let text = read_bounded(&path)?;
        let mark = OutMark::parse(&text);
        if mark.is_none() {
            tracing::warn!(path = %path.display(), "a server call's mark does not read; taken as none");
        }
        mark
    }

    /// Writes the mark (before the call is made).
    pub fn write(&self, dir: &Path, table: &str) -> std::io::Result<()> {
        replace(&dir.join(table), &self.text())
    }

    /// Removes table `table`'s mark: its call landed.
    pub fn clear(dir: &Path, table: &str) {
        match std::fs::remove_file(dir.join(table)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                tracing::warn!(table, error = %e, "a landed server call's mark was not removed")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_and_marks_read_back_and_a_bad_line_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let games = vec![KnownGame {
            source: CorrespondenceSource::Xfcc,
            id: "4711".to_owned(),
            peg_side: shakmaty::Color::Black,
            white: "Carol\tKing".to_owned(),
            black: "Anna".to_owned(),
            event: "WS/M".to_owned(),
            site: String::new(),
        }];
        let path = games_file(dir.path());
        write_games(&path, &games).unwrap();
        let mut back = read_games(&path);
        assert_eq!(back.len(), 1);
        assert_eq!(
            back[0].white, "Carol King",
            "a tab in a name never splits the line"
        );
        back[0].white = "Carol\tKing".to_owned();
        assert_eq!(back, games);
        std::fs::write(&path, "xfcc\t1\tpurple\n\nnonsense\nxfcc\t2\twhite\n").unwrap();
        let read = read_games(&path);
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].id, "2");
        assert!(!forget_game(dir.path(), CorrespondenceSource::Lichess, "2"));
        assert!(forget_game(dir.path(), CorrespondenceSource::Xfcc, "2"));
        assert!(read_games(&path).is_empty());

        let out = out_dir(dir.path());
        let mark = OutMark {
            ply: 3,
            san: "Nc6".to_owned(),
            offer_draw: true,
            accept_draw: false,
            claim_draw: false,
            resign: false,
            message: "Good luck\nand thanks".to_owned(),
            state: CallState::Refused("NotYourTurn".to_owned()),
        };
        mark.write(&out, "xfcc-4711").unwrap();
        let back = OutMark::read(&out, "xfcc-4711").unwrap();
        assert_eq!(back.message, "Good luck and thanks", "one line");
        assert_eq!(
            back,
            OutMark {
                message: back.message.clone(),
                ..mark
            }
        );
        // A mark written before claims and messages were kept reads as without them.
        std::fs::write(
            out.join("old"),
            "ply 4\nsan Nf3\noffer false\naccept false\nresign false\nstate sending\n",
        )
        .unwrap();
        let old = OutMark::read(&out, "old").unwrap();
        assert!(!old.claim_draw && old.message.is_empty() && old.san == "Nf3");
        OutMark::clear(&out, "xfcc-4711");
        assert_eq!(OutMark::read(&out, "xfcc-4711"), None);
        std::fs::write(out.join("bad"), "state flying\n").unwrap();
        assert_eq!(OutMark::read(&out, "bad"), None);
    }
}
