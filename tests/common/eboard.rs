//! A table with an e-board for the sighted player: `annabella serve` with a simulated peg board
//! for the blind player (White) and a simulated e-board of some family (DGT, Millennium,
//! Certabo) for his opponent, each in its own process on a pseudo-terminal; whole games played
//! on both, each move replicated on the other board, the announcements read from the events
//! and the transcript.

use std::path::{Path, PathBuf};

use super::board::SimulatedBoard;
use super::control::ControlClient;
use super::daemon::{Daemon, Serve};
use super::fs::scratch_dir;
use super::process::Running;

/// The daemon with both boards and an observer following its events.
pub struct EboardTable {
    pub dir: PathBuf,
    pub protocol: &'static str,
    pub peg: SimulatedBoard,
    pub eboard: SimulatedBoard,
    pub daemon: Daemon,
    pub watcher: ControlClient,
}

impl EboardTable {
    /// Both boards plugged in at the start position, the daemon started on them, and both
    /// boards found in sync with the game.
    pub fn start(name: &str, protocol: &'static str) -> EboardTable {
        let dir = scratch_dir(name);
        let peg = SimulatedBoard::on_pty("peg", &dir.join("peg"), &[]);
        let eboard = SimulatedBoard::on_pty(protocol, &dir.join("eboard"), &[]);
        let daemon = serve(&dir, protocol);
        let watcher = observe(&daemon);
        EboardTable {
            dir,
            protocol,
            peg,
            eboard,
            daemon,
            watcher,
        }
    }

    /// Stops the daemon (as a service manager does) and starts it again on the same state
    /// directory and boards; waits until both boards are in sync again.
    pub fn restart(&mut self) {
        assert!(self.daemon.terminate().success());
        self.daemon = serve(&self.dir, self.protocol);
        self.watcher = observe(&self.daemon);
    }

    /// Plays `moves` (UCI; `first_ply` is the first one's number, odd for White): a
    /// white move by hand on the peg board, then replicated on the e-board; a black move on
    /// the e-board, then replicated on the peg board. Each is awaited as the daemon's move
    /// event from the right board, and each replication as the board back in sync.
    pub fn play(&mut self, first_ply: usize, moves: &[&str]) {
        for (i, uci) in moves.iter().enumerate() {
            let ply = first_ply + i;
            let white = ply % 2 == 1;
            let (color, board) = if white {
                ("white", "peg")
            } else {
                ("black", "normal")
            };
            let event = format!("event move {ply} {color} {uci} ");
            if white {
                self.peg.hand(uci);
            } else {
                self.eboard.hand(uci);
            }
            let line = self.watcher.expect_event(&event, |l| l.starts_with(&event));
            assert!(line.ends_with(&format!(" {board}")), "{line}");
            if white {
                self.eboard.hand(uci);
                self.watcher.wait_status("normal connected in-sync");
            } else {
                self.peg.hand(uci);
                self.watcher.heard("in Ordnung");
            }
        }
    }

    /// Everything said so far.
    pub fn transcript(&self) -> String {
        std::fs::read_to_string(self.dir.join("transcript.txt")).unwrap_or_default()
    }
}

impl Drop for EboardTable {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.dir).ok();
    }
}

/// `annabella serve` on `DIR/peg` and `PROTOCOL:DIR/eboard`, speaking into
/// `DIR/transcript.txt`, its state in `DIR/state`.
pub fn serve(dir: &Path, protocol: &str) -> Daemon {
    let speech = format!("transcript:{}", dir.join("transcript.txt").display());
    let normal = format!("{protocol}:{}", dir.join("eboard").display());
    Serve::new(&dir.join("state"))
        .args(["--peg", dir.join("peg").to_str().unwrap()])
        .args(["--normal", &normal, "--speech", &speech])
        .start()
}

/// An observer following the events, once both boards are in sync with the game.
fn observe(daemon: &Daemon) -> ControlClient {
    let mut watcher = daemon.connect("observer");
    assert!(watcher.ask("events").starts_with("ok events"));
    watcher.wait_status("peg connected in-sync");
    watcher.wait_status("normal connected in-sync");
    watcher
}

/// `annabella watch` on a simulated board of `protocol` at `DIR/NAME`, once it has connected
/// and found the board in sync; `extra` are further `watch` flags.
pub fn watch_in_sync(protocol: &str, device: &Path, extra: &[&str]) -> Running {
    let mut args = vec![
        "watch",
        "--protocol",
        protocol,
        "--device",
        device.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let mut watch = Running::annabella(&args);
    watch.expect("connected", |l| l.starts_with("connected"));
    watch.expect("the board in sync", |l| l.starts_with("in-sync"));
    watch
}

/// Plays UCI `moves` on `board` by hand and waits for `watch` to report each as a move.
pub fn play_watched(board: &mut SimulatedBoard, watch: &mut Running, moves: &[&str]) {
    for uci in moves {
        board.hand(uci);
        watch.expect(uci, |l| l == format!("move {uci}"));
    }
}

/// Legall's mate: captures on both boards, a check, mate by the blind player.
pub const LEGALL: [&str; 13] = [
    "e2e4", "e7e5", "g1f3", "d7d6", "f1c4", "c8g4", "b1c3", "g7g6", "f3e5", "g4d1", "c4f7", "e8e7",
    "c3d5",
];
