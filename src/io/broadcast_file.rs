//! The live broadcast's round: every table's current game joined into one PGN text (what
//! `games.pgn` holds and what a push to lichess carries), which table events change a game,
//! and `games.pgn` written whole for the programs that watch it (lichess's Broadcaster app,
//! DGT's relay software).
//!
//! A watcher must never read half a file: the text goes to a temporary file beside it, which is
//! renamed over `games.pgn` (`private_file::replace`), so a reader sees the old round or the
//! new one. The temporary name (`.games.pgn.tmp`) does not end in `.pgn`, so the Broadcaster
//! app, which pushes every `*.pgn` of its folder when there is no `games.pgn`, never takes it
//! for a game.

use std::io;
use std::path::{Path, PathBuf};

use crate::io::private_file::{self, Access};
use crate::table::event::TableEvent;

/// The file the broadcast writes in its folder; the name lichess's Broadcaster app pushes
/// whole when it finds it.
pub const FILE_NAME: &str = "games.pgn";

/// Games in one round: lichess takes at most 100 in one push (`BroadcastPgnPush`), and the
/// file is the same round.
pub const MAX_GAMES: usize = 100;

/// The round's text is at most this long: a whole tournament's games with clocks are far
/// shorter (a 150-move game with its tags and clock comments is about 6 KiB), and a push body
/// stays well below what an HTTP server accepts.
pub const MAX_BYTES: usize = 2 * 1024 * 1024;

/// One round: the games joined, how many it holds and how many the bounds left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Round {
    /// The PGN text: the games in the order given, separated by one blank line, ending with a
    /// line feed (empty when there is no game).
    pub text: String,
    pub games: usize,
    /// Games beyond [`MAX_GAMES`] or [`MAX_BYTES`], which are not in `text`.
    pub left_out: usize,
}

/// Joins the games (each a whole PGN game with its tags, as a table exports it), in the order
/// given — the tables' configuration order — up to [`MAX_GAMES`] and [`MAX_BYTES`]. An empty
/// game (a table that has not answered yet) is skipped.
pub fn join<'a>(games: impl IntoIterator<Item = &'a str>) -> Round {
    let mut text = String::new();
    let mut count = 0;
    let mut left_out = 0;
    for game in games {
        let game = game.trim();
        if game.is_empty() {
            continue;
        }
        let separator = if text.is_empty() { 0 } else { 1 };
        if count == MAX_GAMES || text.len() + separator + game.len() + 1 > MAX_BYTES {
            left_out += 1;
            continue;
        }
        if separator == 1 {
            text.push('\n');
        }
        text.push_str(game);
        text.push('\n');
        count += 1;
    }
    Round {
        text,
        games: count,
        left_out,
    }
}

/// Whether an event at a table changes what its game's PGN says: a game begun or restored, a
/// move, a move withdrawn, a takeback, the end. Anything else (words, boards, clock calls)
/// leaves the score as it was; a change without an event of its own (a `tag`) is caught by the
/// broadcast's periodic look, which compares the text.
pub fn changes_game(event: &TableEvent) -> bool {
    matches!(
        event,
        TableEvent::Begin { .. }
            | TableEvent::Restored { .. }
            | TableEvent::Move { .. }
            | TableEvent::Undo { .. }
            | TableEvent::Takeback { .. }
            | TableEvent::End { .. }
    )
}

/// Writes `text` as `dir/games.pgn`, whole (temporary file renamed), making `dir` when it is
/// missing. Returns the file's path.
///
/// It is not synced: a watcher reads the old round or the new one whole all the same (the
/// rename is atomic), a power cut costs nothing (the daemon writes the round again when it
/// starts), and syncs here would make the journal's, on the same disk, wait behind them.
///
/// The file is 0644 (`Access::Published`), unlike every other file of the daemon: it exists
/// to be read by another program, often under another user (the arbiter's Broadcaster app),
/// and it holds only what the broadcast shows the world anyway.
pub fn write(dir: &Path, text: &str) -> io::Result<PathBuf> {
    private_file::create_dir(dir, Access::Published)?;
    let path = dir.join(FILE_NAME);
    private_file::replace_unsynced(&path, text.as_bytes(), Access::Published)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAME: &str = "[Event \"e\"]\n[Result \"*\"]\n\n1. e4 { [%clk 0:05:00] } *\n";

    #[test]
    fn games_are_joined_by_one_blank_line_in_the_order_given() {
        let other = GAME.replace("1. e4", "1. d4");
        let round = join([GAME, "", &other]);
        assert_eq!(round.games, 2);
        assert_eq!(round.left_out, 0);
        assert_eq!(round.text, format!("{GAME}\n{other}"));
        assert_eq!(join(std::iter::empty()).text, "");
    }

    #[test]
    fn the_round_is_bounded_by_games_and_bytes() {
        let many = vec![GAME; MAX_GAMES + 3];
        let round = join(many.iter().copied());
        assert_eq!((round.games, round.left_out), (MAX_GAMES, 3));
        let huge = format!("{GAME}{}", "x".repeat(MAX_BYTES));
        let round = join([GAME, huge.as_str(), GAME]);
        assert_eq!((round.games, round.left_out), (2, 1));
        assert!(round.text.len() <= MAX_BYTES);
    }

    #[test]
    fn only_what_changes_the_score_counts() {
        let moved = TableEvent::Undo { uci: "e2e4".into() };
        assert!(changes_game(&moved));
        assert!(!changes_game(&TableEvent::ClockRunning { running: false }));
    }

    #[cfg(unix)]
    #[test]
    fn the_file_is_replaced_whole_and_readable_by_others() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("round");
        let path = write(&folder, GAME).unwrap();
        write(&folder, "second").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o644);
        assert_eq!(mode(&folder), 0o755);
        // Nothing but the file is left in the folder (no temporary file).
        let names: Vec<_> = std::fs::read_dir(&folder).unwrap().collect();
        assert_eq!(names.len(), 1);
    }
}
