//! What the server desks' tests (`xfcc_desk`, `lichess_corr`) share: a daemon with the desk's
//! peg board on a pseudo-terminal, the transcript as the blind player's ear and one server
//! section, started with the server's secret in its environment; a move by hand on the peg
//! board; waiting for words said or for a condition.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::board::SimulatedBoard;
use super::daemon::{Daemon, Serve};

/// How long these tests wait for a server's list, a move sent or words said.
const PATIENCE: Duration = Duration::from_secs(30);

/// Writes `dir/annabella.toml`: English speech to `dir/transcript.txt`, the desk's peg board at
/// `peg`, and `server` (an `[xfcc]` or `[lichess]` section, as written).
pub fn desk_config(dir: &Path, peg: &Path, server: &str) -> PathBuf {
    let path = dir.join("annabella.toml");
    fs::write(
        &path,
        format!(
            "[speech]\nbackends = \"transcript:{transcript}\"\nlang = \"en\"\n\n[desk]\npeg = \"{peg}\"\n\n{server}",
            transcript = dir.join("transcript.txt").display(),
            peg = peg.display(),
        ),
    )
    .unwrap();
    path
}

/// `annabella serve` with `config`, its state in `dir/state`, and the server's secret in the
/// environment variable `var`.
pub fn start_with_secret(dir: &Path, config: &Path, var: &str, secret: &str) -> Daemon {
    Serve::new(&dir.join("state"))
        .config(config)
        .env(var, secret)
        .start()
}

/// He lifts the piece on `from` and puts it on `to`.
pub fn peg_move(board: &mut SimulatedBoard, from: &str, to: &str) {
    board.hand(&format!("raw L{from}"));
    board.hand(&format!("raw P{to}"));
}

/// Everything said so far, once `want` has been said `times` times (the transcript is a file,
/// polled).
pub fn said(dir: &Path, want: &str, times: usize) -> String {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let text = fs::read_to_string(dir.join("transcript.txt")).unwrap_or_default();
        if text.matches(want).count() >= times {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "never said {want:?} {times} times: {text}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits until `check` holds, failing with `what` after the tests' patience.
pub fn until(what: &str, check: impl Fn() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !check() {
        assert!(Instant::now() < deadline, "never: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}
