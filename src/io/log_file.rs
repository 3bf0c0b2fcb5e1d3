//! The log written to a file of bounded size: when the file would pass its share of the bound,
//! it is renamed `FILE.1` (the older copies moving up to `FILE.4`, the oldest dropped) and a new
//! one begun, so the log and its copies never take more than the configured bound, whatever an
//! attacker makes the daemon log. The per-place throttle (`io::log_throttle`) bounds the rate;
//! this bounds the total.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::io::private_file::{self, Access, Mode};

/// Rotated copies kept beside the current file.
pub const KEEP: u32 = 4;

/// A log file that rotates by size.
#[derive(Debug)]
pub struct RotatingLog {
    path: PathBuf,
    /// The most one file may hold: the bound shared by the current file and its copies.
    per_file: u64,
    file: File,
    len: u64,
}

impl RotatingLog {
    /// Opens (appending, creating it 0600) the log at `path`; the file and its [`KEEP`] copies
    /// together stay within `max_bytes`. Refuses a link or another user's file there.
    pub fn open(path: &Path, max_bytes: u64) -> io::Result<RotatingLog> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
            && !dir.is_dir()
        {
            private_file::create_dir(dir, Access::Private)?;
        }
        let file = private_file::open(path, Mode::Append, Access::Private)?;
        let len = file.metadata()?.len();
        Ok(RotatingLog {
            path: path.to_path_buf(),
            per_file: (max_bytes / u64::from(KEEP + 1)).max(4096),
            file,
            len,
        })
    }

    fn copy(&self, n: u32) -> PathBuf {
        let mut name = self.path.clone().into_os_string();
        name.push(format!(".{n}"));
        PathBuf::from(name)
    }

    /// Moves each copy up one (dropping the oldest) and begins a new file.
    fn rotate(&mut self) -> io::Result<()> {
        // A rename replaces a link planted under a copy's name; it never writes through it.
        match fs::remove_file(self.copy(KEEP)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        for n in (1..KEEP).rev() {
            match fs::rename(self.copy(n), self.copy(n + 1)) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        fs::rename(&self.path, self.copy(1))?;
        self.file = private_file::open(&self.path, Mode::Append, Access::Private)?;
        self.len = 0;
        Ok(())
    }
}

impl Write for RotatingLog {
    /// Writes one formatted event (the log layer writes each whole); rotates first when it
    /// would pass the file's share. A line longer than the share is cut to it.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let take = buf
            .len()
            .min(usize::try_from(self.per_file).unwrap_or(usize::MAX));
        if self.len > 0 && self.len.saturating_add(take as u64) > self.per_file {
            self.rotate()?;
        }
        self.file.write_all(&buf[..take])?;
        self.len = self.len.saturating_add(take as u64);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn total(dir: &Path) -> u64 {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len())
            .sum()
    }

    #[test]
    fn a_flood_never_takes_more_than_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("annabella.log");
        let mut log = RotatingLog::open(&path, 100_000).unwrap();
        let line = format!("{}\n", "x".repeat(199));
        for _ in 0..10_000 {
            log.write_all(line.as_bytes()).unwrap();
        }
        assert!(total(dir.path()) <= 100_000, "{}", total(dir.path()));
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 1 + KEEP as usize, "{names:?}");
        // Whole lines only: a rotation never splits one.
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.lines().all(|l| l.len() == 199));
    }

    #[test]
    fn a_line_longer_than_a_files_share_is_cut_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.log");
        let mut log = RotatingLog::open(&path, 25_000).unwrap();
        log.write_all(&vec![b'y'; 1_000_000]).unwrap();
        log.write_all(b"next\n").unwrap();
        assert!(total(dir.path()) <= 25_000);
        assert_eq!(fs::read_to_string(&path).unwrap(), "next\n");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_planted_as_the_log_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        fs::write(&victim, "precious").unwrap();
        let path = dir.path().join("a.log");
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        let e = RotatingLog::open(&path, 100_000).unwrap_err();
        assert!(e.to_string().contains("is a link"), "{e}");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    }
}
