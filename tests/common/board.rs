//! A simulated board (`annabella simulate-board`) in a process of its own, on a pseudo-terminal
//! under a link name or behind a TCP listener, moved by lines on its standard input.

use std::path::Path;

use super::process::Running;

/// A simulated board; unplugged (its process killed) when dropped.
pub struct SimulatedBoard {
    process: Running,
    address: String,
}

impl SimulatedBoard {
    /// A board speaking `protocol` (peg, dgt) on a fresh pseudo-terminal reachable as `link`;
    /// `extra` are further `simulate-board` flags (such as `--fen`). Returns once the link is
    /// there.
    pub fn on_pty(protocol: &str, link: &Path, extra: &[&str]) -> SimulatedBoard {
        let link = link.to_str().expect("a UTF-8 link path");
        let mut args = vec![
            "simulate-board",
            "--protocol",
            protocol,
            "--pty",
            "--link",
            link,
        ];
        args.extend_from_slice(extra);
        let mut process = Running::annabella(&args);
        let path = process.expect("the pseudo-terminal's path", |l| l.starts_with("/dev/"));
        assert!(Path::new(&path).exists(), "{path}");
        SimulatedBoard {
            process,
            address: path,
        }
    }

    /// A board speaking `protocol` behind a TCP listener on 127.0.0.1.
    pub fn on_tcp(protocol: &str) -> SimulatedBoard {
        let args = [
            "simulate-board",
            "--protocol",
            protocol,
            "--tcp",
            "127.0.0.1:0",
        ];
        let mut process = Running::annabella(&args);
        let address = process.expect("the listening address", |l| l.starts_with("tcp:127.0.0.1:"));
        SimulatedBoard { process, address }
    }

    /// Where the board is: the pseudo-terminal's path, or `tcp:HOST:PORT` (either one a device
    /// for `watch --device` or `serve --peg`).
    pub fn address(&self) -> &str {
        &self.address
    }

    /// Hands on the board: a move, which the board performs as a hand would, or one of the
    /// simulator's own lines (`raw LINE`, `fen FEN`).
    pub fn hand(&mut self, line: &str) {
        self.process.type_line(line);
    }

    /// Pulls the plug: the process is killed and its pseudo-terminal or listener goes away.
    pub fn unplug(&mut self) {
        self.process.kill();
    }
}
