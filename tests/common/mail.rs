//! A real SMTP server for the mail tests: Python's aiosmtpd (Debian's python3-aiosmtpd,
//! `scripts/ensure-deps.sh` installs it) delivering into a Maildir, and what it delivered.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::WAIT;
use super::net::wait_for_port;
use super::process::Running;

/// The system's Python 3 with aiosmtpd (Debian's python3-aiosmtpd).
pub fn python() -> &'static str {
    if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    }
}

/// aiosmtpd on 127.0.0.1:`port`, delivering into the Maildir `mailbox`; killed when dropped.
pub fn smtp_server(port: u16, mailbox: &Path) -> Running {
    let server = Running::start_log(
        Command::new(python())
            .args(["-m", "aiosmtpd", "-n", "-l"])
            .arg(format!("127.0.0.1:{port}"))
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            .arg(mailbox),
    );
    wait_for_port(port);
    server
}

/// The files in `dir/new`, waiting up to [`WAIT`] for `count` of them.
pub fn delivered(mailbox: &Path, count: usize) -> Vec<PathBuf> {
    let deadline = Instant::now() + WAIT;
    loop {
        let mut files: Vec<PathBuf> = fs::read_dir(mailbox.join("new"))
            .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        if files.len() >= count || Instant::now() > deadline {
            return files;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A Maildir (new/, cur/, tmp/) at `root`, as a mail client makes it.
pub fn maildir(root: &Path) -> std::path::PathBuf {
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(root.join(sub)).unwrap();
    }
    root.to_owned()
}
