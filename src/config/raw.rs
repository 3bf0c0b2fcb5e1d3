//! The configuration file as written (each section's raw values live with the section), with
//! its defaults; and reading it with a bound.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{
    ConfigError, RawBroadcast, RawControl, RawDesk, RawLichess, RawMail, RawSpeech, RawTable,
    RawXfcc, bad,
};
use crate::io::tokens::RawToken;

/// What a backslash in a basic string means, said with the errors it causes: a Windows path
/// written as Windows shows it is the usual cause.
pub const WINDOWS_PATH_HINT: &str = " (a backslash in \"…\" begins an escape: write a Windows \
     path with forward slashes, \"C:/Users/anna/chess\", with each backslash doubled, or in \
     single quotes, 'C:\\Users\\anna\\chess')";

/// Largest configuration file read; a real one is a few kilobytes.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// The file as written: strings and numbers, before validation.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawConfig {
    /// Address of the control interface.
    pub listen: String,
    /// Address of the table's web page, or `off`.
    pub web_listen: String,
    /// Host names the page answers to besides its address (`chessbox.local`,
    /// `chess.example.org:443` behind a proxy); any other `Host` is refused (DNS rebinding).
    pub web_hosts: Vec<String>,
    /// The reverse proxies (addresses, or `ADDRESS/BITS` networks) whose `X-Forwarded-For`
    /// names the page's client for the limits per address; none by default.
    pub web_trusted_proxies: Vec<String>,
    /// Open pages from one client address (behind a trusted proxy, each client it names).
    pub web_pages_per_address: usize,
    /// Where tokens, the journal and finished games are kept.
    pub state_dir: PathBuf,
    /// Whether the games' records (PGN, Braille, resolutions, transcripts, WAV) are readable by
    /// the daemon user's group (0640) rather than by that user alone (0600).
    pub records_group_readable: bool,
    /// `human` or `json`.
    pub log_format: String,
    /// A file to log to, rotated by size; empty: standard error (journald under systemd).
    pub log_file: String,
    /// The most the log file and its rotated copies take together, in MB.
    pub log_max_mb: u32,
    pub control: RawControl,
    pub speech: RawSpeech,
    pub clock: RawClock,
    #[serde(rename = "table")]
    pub tables: Vec<RawTable>,
    /// Control tokens besides those of `<state_dir>/tokens.toml`.
    #[serde(rename = "token", skip_serializing_if = "Vec::is_empty")]
    pub tokens: Vec<RawToken>,
    /// Correspondence by email (`docs/correspondence-mail.md`); none by default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mail: Option<RawMail>,
    /// The peg board the correspondence tables share.
    pub desk: RawDesk,
    /// ICCF's XFCC web service (`docs/servers.md`); none by default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xfcc: Option<RawXfcc>,
    /// The lichess account (`docs/servers.md`); none by default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lichess: Option<RawLichess>,
    /// The live broadcast (`docs/servers.md`); none by default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub broadcast: Option<RawBroadcast>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawClock {
    /// PGN TimeControl syntax, with `d`/`b` delays (docs/clock.md).
    pub time_control: String,
    /// When the talking clock speaks by itself (`none` for only on request).
    pub announce: String,
    /// After a crash, charge the running side for the time the daemon was down.
    pub charge_downtime: bool,
}

/// Where the daemon keeps its state unless told: the service's folder on Unix; on Windows the
/// user's own local application data (`%LOCALAPPDATA%\annabella`), which only he (and the
/// administrators) can read by the folder's permissions, and which needs no administrator to
/// create.
fn default_state_dir() -> PathBuf {
    #[cfg(windows)]
    if let Some(local) = std::env::var_os("LOCALAPPDATA") {
        return PathBuf::from(local).join("annabella");
    }
    PathBuf::from("/var/lib/annabella")
}

impl Default for RawConfig {
    fn default() -> RawConfig {
        RawConfig {
            listen: "127.0.0.1:7421".to_owned(),
            web_listen: "127.0.0.1:7480".to_owned(),
            web_hosts: Vec::new(),
            web_trusted_proxies: Vec::new(),
            web_pages_per_address: super::control::DEFAULT_PAGES_PER_ADDRESS,
            state_dir: default_state_dir(),
            records_group_readable: false,
            log_format: "human".to_owned(),
            log_file: String::new(),
            log_max_mb: 50,
            control: RawControl::default(),
            speech: RawSpeech::default(),
            clock: RawClock::default(),
            tables: Vec::new(),
            tokens: Vec::new(),
            mail: None,
            desk: RawDesk::default(),
            xfcc: None,
            lichess: None,
            broadcast: None,
        }
    }
}

impl Default for RawClock {
    fn default() -> RawClock {
        RawClock {
            time_control: "5400+30".to_owned(),
            announce: "10m@*,1m@5m,10s@1m".to_owned(),
            charge_downtime: false,
        }
    }
}

impl RawConfig {
    /// Parses the text of a configuration file (`path` only names it in errors).
    pub fn from_toml(text: &str, path: &Path) -> Result<RawConfig, ConfigError> {
        toml::from_str(text).map_err(|e| {
            let mut message = e.message().to_owned();
            if let Some(before) = e.span().and_then(|span| text.get(..span.start)) {
                let line = before.matches('\n').count() + 1;
                message = format!("line {line}: {message}");
            }
            if message.contains("escape") || message.contains("unicode value") {
                message.push_str(WINDOWS_PATH_HINT);
            }
            bad(path.display().to_string(), message)
        })
    }

    /// Reads and parses a configuration file, refusing one larger than [`MAX_CONFIG_BYTES`].
    pub fn read(path: &Path) -> Result<RawConfig, ConfigError> {
        use std::io::Read;
        let name = path.display().to_string();
        let file = crate::io::regular_file::open_regular(path).map_err(|e| bad(&name, e))?;
        let meta = file.metadata().map_err(|e| bad(&name, e))?;
        let mut text = String::new();
        file.take(MAX_CONFIG_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(|e| bad(&name, e))?;
        if text.len() as u64 > MAX_CONFIG_BYTES {
            return Err(bad(name, format!("larger than {MAX_CONFIG_BYTES} bytes")));
        }
        let raw = RawConfig::from_toml(&text, path)?;
        // A configuration that grants roles is as secret as the tokens file.
        #[cfg(unix)]
        if !raw.tokens.is_empty() {
            use std::os::unix::fs::{MetadataExt, PermissionsExt};
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                return Err(bad(
                    &name,
                    format!(
                        "it holds [[token]]s and mode {mode:04o} lets other users read them; \
                         chmod 600 {name} (and hand out new tokens if others may have read them)"
                    ),
                ));
            }
            let me = nix::unistd::geteuid().as_raw();
            if meta.uid() != me {
                return Err(bad(
                    &name,
                    format!(
                        "it holds [[token]]s and belongs to user {}, not {me}; chown it to the \
                         daemon's user",
                        meta.uid()
                    ),
                ));
            }
        }
        #[cfg(not(unix))]
        let _ = meta;
        Ok(raw)
    }
}
