//! What the end-to-end benchmarks share: the daemon they start (killed with its state directory when dropped), a free port, the transcript file followed line by line, percentiles.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

/// A running daemon, killed with its state directory when dropped.
pub struct Daemon {
    pub child: Child,
    pub dir: PathBuf,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// The `p` quantile of `sorted` samples (nearest rank).
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Follows the transcript file: the instant each new line appeared.
pub struct Transcript {
    file: std::fs::File,
    buf: Vec<u8>,
}

impl Transcript {
    pub fn open(path: &Path) -> Transcript {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(file) = std::fs::File::open(path) {
                return Transcript {
                    file,
                    buf: Vec::new(),
                };
            }
            assert!(
                Instant::now() < deadline,
                "no transcript at {}",
                path.display()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Spins until a line containing `want` arrives (spinning, not sleeping, so the instant
    /// is the one the line appeared); the instant it was seen.
    pub fn wait_for(&mut self, want: &str) -> Instant {
        let deadline = Instant::now() + Duration::from_secs(15);
        let mut chunk = [0u8; 4096];
        loop {
            let n = self.file.read(&mut chunk).expect("reading the transcript");
            let seen = Instant::now();
            self.buf.extend_from_slice(&chunk[..n]);
            while let Some(end) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=end).collect();
                if String::from_utf8_lossy(&line).contains(want) {
                    return seen;
                }
            }
            assert!(Instant::now() < deadline, "no {want:?} in the transcript");
            if n == 0 {
                std::hint::spin_loop();
            }
        }
    }
}
