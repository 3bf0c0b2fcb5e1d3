//! The daemon's configuration: a TOML file (every key documented in
//! `config/annabella.example.toml`) read into raw values, then validated into typed settings
//! with errors that name the key and say what would be right.
//!
//! - `raw`: the file as written, with its defaults, and reading it.
//! - `table`, `boards`: a `[[table]]` as written and validated, and where its boards are.
//! - `speech`, `control`, `correspondence`: the `[speech]`, `[control]`, `[mail]` and `[desk]`
//!   sections as written and validated.
//! - `servers`: `[xfcc]`, `[lichess]` and `[broadcast]`, the servers played on and published to.

use std::path::PathBuf;

use crate::chess::language::Language;
use crate::chess::notation::Verbosity;
use crate::io::link::Endpoint;
use crate::io::speech::OutputSpec;
use crate::io::tokens::Tokens;
use crate::table::clock::{AnnounceSchedule, TimeControl};

mod boards;
mod control;
mod correspondence;
mod raw;
mod servers;
#[cfg(test)]
mod servers_tests;
mod speech;
mod table;
#[cfg(test)]
mod tests;

pub use boards::{BadBoardPlace, NormalBoard, PegSource};
pub use control::ControlSettings;
pub use control::DEFAULT_PAGES_PER_ADDRESS;
pub use control::RawControl;
pub use control::TrustedProxies;
pub use correspondence::{DeskSettings, MailSettings, RawDesk, RawMail};
pub use raw::{MAX_CONFIG_BYTES, RawClock, RawConfig};
pub use servers::{
    BroadcastSettings, LichessSettings, RawBroadcast, RawLichess, RawXfcc, XfccSettings,
};
pub use speech::LanguageFileError;
pub use speech::RawSpeech;
pub use table::RawTable;
pub use table::{CorrespondenceSource, TableConfig, TableKind, server_table};

/// A configuration error: the key and what is wrong with its value.
#[derive(Debug, thiserror::Error)]
#[error("{key}: {message}")]
pub struct ConfigError {
    pub key: String,
    pub message: String,
}

/// A path as written must hold no control character: "D:\new" in a basic string reads as `D:`,
/// a line break and `ew`, a valid escape TOML cannot warn about, which would otherwise put the
/// games somewhere no one looks.
fn plain_path(key: &str, path: &std::path::Path) -> Result<(), ConfigError> {
    let text = path.to_string_lossy();
    match text.chars().find(|c| c.is_control()) {
        None => Ok(()),
        Some(c) => Err(bad(
            key,
            format!(
                "{text:?} holds the control character {c:?}{}",
                raw::WINDOWS_PATH_HINT
            ),
        )),
    }
}

fn bad(key: impl Into<String>, message: impl ToString) -> ConfigError {
    ConfigError {
        key: key.into(),
        message: message.to_string(),
    }
}

/// A log file and the most it may take with its rotated copies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFile {
    pub path: PathBuf,
    pub max_bytes: u64,
}

/// The validated configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub listen: std::net::SocketAddr,
    /// The web page's address; `None` when `web_listen = "off"`.
    pub web_listen: Option<std::net::SocketAddr>,
    /// Host names the page answers to besides its own address.
    pub web_hosts: Vec<String>,
    /// The reverse proxies whose `X-Forwarded-For` names the page's client.
    pub web_trusted_proxies: TrustedProxies,
    /// Open pages from one client address (`web_pages_per_address`).
    pub web_pages_per_address: usize,
    pub state_dir: PathBuf,
    /// Records 0640 (the group may read them) instead of 0600.
    pub records_group_readable: bool,
    pub json_logs: bool,
    /// Where the log goes, and its bound.
    pub log_file: Option<LogFile>,
    /// The control server's limits (its language default is English).
    pub control: ControlSettings,
    /// The configuration's `[[token]]`s; `io::tokens::load_or_create` merges the file's in.
    pub tokens: Tokens,
    pub speech: Vec<OutputSpec>,
    /// Words per minute of the voices; `None`: each engine's default.
    pub speech_rate: Option<u32>,
    pub lang: Language,
    pub verbosity: Verbosity,
    pub name_captured: bool,
    pub confirm_own_moves: bool,
    /// The terse style's threshold on the blind player's clock.
    pub terse_below_ms: Option<u64>,
    pub time_control: TimeControl,
    pub announce: AnnounceSchedule,
    pub charge_downtime: bool,
    pub tables: Vec<TableConfig>,
    /// `[mail]`, when correspondence mail is configured.
    pub mail: Option<MailSettings>,
    /// `[desk]`: the peg board the correspondence tables share.
    pub desk: DeskSettings,
    /// `[xfcc]`: ICCF's web service, when its games are played here.
    pub xfcc: Option<XfccSettings>,
    /// `[lichess]`: the lichess account, when its games are played here.
    pub lichess: Option<LichessSettings>,
    /// `[broadcast]`: the live broadcast's file and push.
    pub broadcast: Option<BroadcastSettings>,
}

impl RawConfig {
    /// Checks every value; the first error names its key.
    pub fn validate(&self) -> Result<Config, ConfigError> {
        let listen = self
            .listen
            .parse()
            .map_err(|_| bad("listen", format!("{:?} is not ADDRESS:PORT", self.listen)))?;
        let json_logs = match self.log_format.as_str() {
            "human" => false,
            "json" => true,
            other => return Err(bad("log_format", format!("{other:?}: human or json"))),
        };
        let voice = self.speech.validate()?;
        let time_control = TimeControl::parse_setting(&self.clock.time_control)
            .map_err(|e| bad("clock.time_control", e))?;
        let announce = self
            .clock
            .announce
            .parse()
            .map_err(|e| bad("clock.announce", e))?;
        plain_path("state_dir", &self.state_dir)?;
        let tables = self.validate_tables()?;
        let desk = self.desk.validate()?;
        check_devices(&tables, &desk)?;
        let control = self.control.validate()?;
        let names = crate::io::tokens::known_tables(
            tables.iter().map(|t| t.name.as_str()),
            self.xfcc.is_some(),
            self.lichess.is_some(),
        );
        let tokens =
            Tokens::from_config(&self.tokens, &names).map_err(|e| bad(e.place, e.message))?;
        let (web_listen, web_hosts) = self.validate_web()?;
        Ok(Config {
            listen,
            web_listen,
            web_hosts,
            web_trusted_proxies: TrustedProxies::parse(
                "web_trusted_proxies",
                &self.web_trusted_proxies,
            )?,
            web_pages_per_address: control::pages_per_address(self.web_pages_per_address)?,
            state_dir: self.state_dir.clone(),
            records_group_readable: self.records_group_readable,
            json_logs,
            log_file: self.validate_log_file()?,
            control,
            tokens,
            speech: voice.outputs,
            speech_rate: voice.rate,
            lang: voice.lang,
            verbosity: voice.verbosity,
            name_captured: self.speech.name_captured,
            confirm_own_moves: self.speech.confirm_own_moves,
            terse_below_ms: self.speech.terse_below_ms()?,
            time_control,
            announce,
            charge_downtime: self.clock.charge_downtime,
            tables,
            mail: self.mail.as_ref().map(RawMail::validate).transpose()?,
            desk,
            xfcc: self.xfcc.as_ref().map(RawXfcc::validate).transpose()?,
            lichess: self
                .lichess
                .as_ref()
                .map(RawLichess::validate)
                .transpose()?,
            broadcast: self
                .broadcast
                .as_ref()
                .map(RawBroadcast::validate)
                .transpose()?,
        })
    }

    /// Every `[[table]]`, or one simulated table when there is none — unless a server's games
    /// are played here: a player at home with only his ICCF or lichess games has no board
    /// table (his games are the desk's, made from the server's list).
    fn validate_tables(&self) -> Result<Vec<TableConfig>, ConfigError> {
        let mut tables = Vec::new();
        for (i, t) in self.tables.iter().enumerate() {
            let table = t.validate(i, &tables)?;
            // lichess allows one event stream per token: one table plays the account's games.
            if table.kind == TableKind::Lichess {
                if self.lichess.is_none() {
                    return Err(bad(
                        format!("table[{i}].kind"),
                        "a lichess table plays with the [lichess] section's account; it is missing",
                    ));
                }
                if tables
                    .iter()
                    .any(|t: &TableConfig| t.kind == TableKind::Lichess)
                {
                    return Err(bad(
                        format!("table[{i}].kind"),
                        "one lichess table at most: lichess gives an account one event stream",
                    ));
                }
            }
            tables.push(table);
        }
        if tables.is_empty() && self.xfcc.is_none() && self.lichess.is_none() {
            // The default table, validated alone in an otherwise default configuration.
            let alone = RawConfig {
                tables: vec![RawTable::default()],
                ..RawConfig::default()
            };
            tables.push(alone.validate()?.tables.remove(0));
        }
        Ok(tables)
    }

    /// The page's address (`None`: off) and the host names it answers to, lower case.
    fn validate_log_file(&self) -> Result<Option<LogFile>, ConfigError> {
        if !(1..=100_000).contains(&self.log_max_mb) {
            return Err(bad(
                "log_max_mb",
                format!("{}: from 1 to 100000 (MB)", self.log_max_mb),
            ));
        }
        if self.log_file.is_empty() {
            return Ok(None);
        }
        plain_path("log_file", std::path::Path::new(&self.log_file))?;
        Ok(Some(LogFile {
            path: PathBuf::from(&self.log_file),
            max_bytes: u64::from(self.log_max_mb) * 1_000_000,
        }))
    }

    fn validate_web(&self) -> Result<(Option<std::net::SocketAddr>, Vec<String>), ConfigError> {
        let web_listen = match self.web_listen.as_str() {
            "off" => None,
            text => Some(text.parse().map_err(|_| {
                bad(
                    "web_listen",
                    format!("{text:?} is not ADDRESS:PORT (or \"off\")"),
                )
            })?),
        };
        for (i, host) in self.web_hosts.iter().enumerate() {
            let ok = !host.is_empty()
                && host.len() <= 253
                && host
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c));
            if !ok {
                return Err(bad(
                    format!("web_hosts[{i}]"),
                    format!(
                        "{host:?} is no host name; like chessbox.local or chess.example.org:443"
                    ),
                ));
            }
        }
        let hosts = self
            .web_hosts
            .iter()
            .map(|h| h.to_ascii_lowercase())
            .collect();
        Ok((web_listen, hosts))
    }
}

/// One device, one board: two links reading one serial port would each see half of its lines.
fn check_devices(tables: &[TableConfig], desk: &DeskSettings) -> Result<(), ConfigError> {
    let mut devices: Vec<(String, &Endpoint)> = Vec::new();
    for (i, t) in tables.iter().enumerate() {
        if let PegSource::Device(e) = &t.peg {
            devices.push((format!("table[{i}].peg"), e));
        }
        if let Some((_, e)) = t.normal.link() {
            devices.push((format!("table[{i}].normal"), e));
        }
    }
    if let PegSource::Device(e) = &desk.peg {
        devices.push(("desk.peg".to_owned(), e));
    }
    // The same device whatever its baud rate.
    let place = |e: &Endpoint| match e {
        Endpoint::Serial { path, .. } => path.clone(),
        Endpoint::Tcp(address) => address.clone(),
    };
    for (n, (key, endpoint)) in devices.iter().enumerate() {
        if let Some((first, _)) = devices[..n]
            .iter()
            .find(|(_, other)| place(other) == place(endpoint))
        {
            return Err(bad(
                key.clone(),
                format!("{endpoint} is already {first}; each board needs its own device"),
            ));
        }
    }
    Ok(())
}
