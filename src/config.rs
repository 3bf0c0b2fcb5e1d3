//! The daemon's configuration: a TOML file (every key documented in
//! `config/annabella.example.toml`) read into raw values, then validated into typed settings
//! with errors that name the key and say what would be right.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::boards::{Millis, Protocol, debounce};
use crate::chess::language::Language;
use crate::chess::notation::Verbosity;
use crate::io::link::Endpoint;
use crate::io::speech::{self, OutputSpec};
use crate::io::tokens::{RawToken, Tokens};
use crate::table::clock::{AnnounceSchedule, TimeControl};
use crate::table::control::{GameTag, MAX_TAG_CHARS};
use crate::table::detector::TouchMove;
use crate::table::name::TableName;

mod control;
mod correspondence;
pub use control::ControlSettings;
pub use correspondence::{DeskSettings, MailSettings, RawDesk, RawMail, TableKind};

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
    /// Where tokens, the journal and finished games are kept.
    pub state_dir: PathBuf,
    /// `human` or `json`.
    pub log_format: String,
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
}

/// The control interface's limits.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawControl {
    /// Connections at once.
    pub max_connections: usize,
    /// Requests a second per connection, sustained.
    pub requests_per_second: u32,
    /// Requests a connection may send at once before the rate applies.
    pub burst: u32,
    /// Seconds a new connection has to authenticate.
    pub auth_timeout_s: u64,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawSpeech {
    /// `[LISTENERS=]BACKEND[,…]`: tts, espeak-ng, espeak-ng@DEVICE, wav:DIR, transcript:FILE,
    /// none; LISTENERS are blind, opponent, arbiter joined by `+` (none: everyone).
    pub backends: String,
    /// Words per minute of the voices (espeak-ng `-s`, the tts rate scaled from it), 80 to 450;
    /// unset: each engine's default (espeak-ng: 175).
    pub rate: Option<u32>,
    /// Language of the announcements: a built-in code or a language file's path.
    pub lang: String,
    /// `short` or `long`.
    pub verbosity: String,
    pub name_captured: bool,
    /// Confirm the blind player's own moves aloud.
    pub confirm_own_moves: bool,
    /// The terse style below this many seconds on the blind player's clock (0: never).
    pub terse_below_s: u64,
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

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawTable {
    pub name: String,
    /// `board` (a peg board and a normal board at one table) or `correspondence` (a game by
    /// mail, played on the desk's peg board).
    pub kind: String,
    /// The blind player's peg board: a device, `tcp:HOST:PORT`, `sim` or `none`.
    pub peg: String,
    /// The side the blind player plays: `white` or `black`.
    pub peg_side: String,
    /// The sighted side's board: `virtual` (moves come from the control interface),
    /// `dgt:DEVICE`, `millennium:DEVICE` or `certabo:DEVICE` (a device or `tcp:HOST:PORT`).
    pub normal: String,
    /// Touch-move rule on the peg board: off, warn or strict.
    pub touch_move: String,
    pub debounce_ms: Millis,
    /// The first game's start position (FEN); empty: the standard position.
    pub fen: String,
    /// The table's own language and time control; empty: `speech.lang`, `clock.time_control`.
    pub lang: String,
    pub time_control: String,
    /// PGN tags of the table's games: the players' names, the event, the site, the round.
    pub white: String,
    pub black: String,
    pub event: String,
    pub site: String,
    pub round: String,
    /// A correspondence table's opponent (replies go there) and the game's identifier in its
    /// messages (empty: the table's name).
    pub opponent_email: String,
    pub game_id: String,
    /// How a correspondence table counts its days: `iccf` (the ICCF webserver's rules) or
    /// `bca` (the Braille Chess Association's email rules); docs/correspondence-time.md.
    pub day_rules: String,
    /// The audio record (a `wav:` output): `plain`, or `cassette` (each move said twice, the
    /// Braille Chess Association's custom for correspondence games).
    pub audio_record: String,
}

impl Default for RawConfig {
    fn default() -> RawConfig {
        RawConfig {
            listen: "127.0.0.1:7421".to_owned(),
            web_listen: "127.0.0.1:7480".to_owned(),
            web_hosts: Vec::new(),
            state_dir: PathBuf::from("/var/lib/annabella"),
            log_format: "human".to_owned(),
            control: RawControl::default(),
            speech: RawSpeech::default(),
            clock: RawClock::default(),
            tables: Vec::new(),
            tokens: Vec::new(),
            mail: None,
            desk: RawDesk::default(),
        }
    }
}

impl Default for RawControl {
    fn default() -> RawControl {
        let settings = ControlSettings::default();
        RawControl {
            max_connections: settings.max_connections,
            requests_per_second: settings.requests_per_second,
            burst: settings.burst,
            auth_timeout_s: settings.auth_timeout.as_secs(),
        }
    }
}

impl Default for RawSpeech {
    fn default() -> RawSpeech {
        RawSpeech {
            backends: "tts".to_owned(),
            rate: None,
            lang: "de".to_owned(),
            verbosity: "short".to_owned(),
            name_captured: false,
            confirm_own_moves: true,
            terse_below_s: 0,
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

impl Default for RawTable {
    fn default() -> RawTable {
        RawTable {
            name: "table-1".to_owned(),
            kind: "board".to_owned(),
            peg: "sim".to_owned(),
            peg_side: "white".to_owned(),
            normal: "virtual".to_owned(),
            touch_move: "warn".to_owned(),
            debounce_ms: debounce::DEFAULT_WINDOW,
            fen: String::new(),
            lang: String::new(),
            time_control: String::new(),
            white: String::new(),
            black: String::new(),
            event: String::new(),
            site: String::new(),
            round: String::new(),
            opponent_email: String::new(),
            game_id: String::new(),
            day_rules: "iccf".to_owned(),
            audio_record: "plain".to_owned(),
        }
    }
}

/// A configuration error: the key and what is wrong with its value.
#[derive(Debug, thiserror::Error)]
#[error("{key}: {message}")]
pub struct ConfigError {
    pub key: String,
    pub message: String,
}

fn bad(key: impl Into<String>, message: impl ToString) -> ConfigError {
    ConfigError {
        key: key.into(),
        message: message.to_string(),
    }
}

/// Where the peg board is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PegSource {
    Simulated,
    Device(Endpoint),
    /// No peg board: the blind player's moves come from the control interface.
    None,
}

impl PegSource {
    /// `sim`, `none`, a serial device or `tcp:HOST:PORT`.
    pub fn parse(text: &str) -> Result<PegSource, String> {
        match text {
            "sim" => Ok(PegSource::Simulated),
            "none" => Ok(PegSource::None),
            device => Endpoint::parse(device, Protocol::Peg)
                .map(PegSource::Device)
                .map_err(|e| e.to_string()),
        }
    }
}

/// Where the sighted player's moves come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NormalBoard {
    Virtual,
    Dgt(Endpoint),
    Millennium(Endpoint),
    Certabo(Endpoint),
}

impl NormalBoard {
    /// The protocol and place of a real board; `None` for the virtual one.
    pub fn link(&self) -> Option<(Protocol, &Endpoint)> {
        match self {
            NormalBoard::Virtual => None,
            NormalBoard::Dgt(e) => Some((Protocol::Dgt, e)),
            NormalBoard::Millennium(e) => Some((Protocol::Millennium, e)),
            NormalBoard::Certabo(e) => Some((Protocol::Certabo, e)),
        }
    }
}

/// A validated table.
#[derive(Debug, Clone)]
pub struct TableConfig {
    pub name: TableName,
    pub kind: TableKind,
    /// The audio record says each move twice (`audio_record = "cassette"`).
    pub cassette: bool,
    pub peg: PegSource,
    pub peg_side: shakmaty::Color,
    pub normal: NormalBoard,
    pub touch_move: TouchMove,
    pub debounce_ms: Millis,
    /// The first game's start position, checked; `None`: the standard position.
    pub fen: Option<String>,
    /// The table's own language and time control (`None`: the configuration's).
    pub lang: Option<Language>,
    pub time_control: Option<TimeControl>,
    /// PGN tags of the table's games.
    pub tags: Vec<(GameTag, String)>,
}

/// The validated configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub listen: std::net::SocketAddr,
    /// The web page's address; `None` when `web_listen = "off"`.
    pub web_listen: Option<std::net::SocketAddr>,
    /// Host names the page answers to besides its own address.
    pub web_hosts: Vec<String>,
    pub state_dir: PathBuf,
    pub json_logs: bool,
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
            bad(path.display().to_string(), message)
        })
    }

    /// Reads and parses a configuration file, refusing one larger than [`MAX_CONFIG_BYTES`].
    pub fn read(path: &Path) -> Result<RawConfig, ConfigError> {
        use std::io::Read;
        let name = path.display().to_string();
        let file = std::fs::File::open(path).map_err(|e| bad(&name, e))?;
        let mut text = String::new();
        file.take(MAX_CONFIG_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(|e| bad(&name, e))?;
        if text.len() as u64 > MAX_CONFIG_BYTES {
            return Err(bad(name, format!("larger than {MAX_CONFIG_BYTES} bytes")));
        }
        RawConfig::from_toml(&text, path)
    }

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
        let speech =
            speech::parse_outputs(&self.speech.backends).map_err(|e| bad("speech.backends", e))?;
        let speech_rate = match self.speech.rate {
            Some(wpm) => {
                Some(speech::parse_rate(&wpm.to_string()).map_err(|e| bad("speech.rate", e))?)
            }
            None => None,
        };
        let lang = read_language(&self.speech.lang).map_err(|e| bad("speech.lang", e))?;
        let verbosity = self
            .speech
            .verbosity
            .parse()
            .map_err(|e| bad("speech.verbosity", e))?;
        let time_control = TimeControl::parse_setting(&self.clock.time_control)
            .map_err(|e| bad("clock.time_control", e))?;
        let announce = self
            .clock
            .announce
            .parse()
            .map_err(|e| bad("clock.announce", e))?;
        let mut tables = Vec::new();
        for (i, t) in self.tables.iter().enumerate() {
            let key = |field: &str| format!("table[{i}].{field}");
            // One rule for a table's name: the journal, the files and the page's routes use it.
            let name = TableName::new(&t.name).map_err(|e| bad(key("name"), e.to_string()))?;
            if tables.iter().any(|other: &TableConfig| other.name == name) {
                return Err(bad(
                    key("name"),
                    format!("{:?}: each table needs its own name", t.name),
                ));
            }
            let kind = TableKind::parse(t, &key)?;
            let peg = PegSource::parse(&t.peg).map_err(|e| bad(key("peg"), e))?;
            // A correspondence table has no board of its own: it plays on the desk's.
            let peg = match (&kind, peg) {
                (TableKind::Board, peg) => peg,
                (TableKind::Correspondence { .. }, PegSource::Simulated | PegSource::None) => {
                    PegSource::None
                }
                (TableKind::Correspondence { .. }, PegSource::Device(_)) => {
                    return Err(bad(
                        key("peg"),
                        "a correspondence table has no peg board of its own; it plays on the \
                         desk's ([desk] peg)",
                    ));
                }
            };
            let peg_side = match t.peg_side.as_str() {
                "white" => shakmaty::Color::White,
                "black" => shakmaty::Color::Black,
                other => return Err(bad(key("peg_side"), format!("{other:?}: white or black"))),
            };
            let normal = match t.normal.as_str() {
                "virtual" => NormalBoard::Virtual,
                other => {
                    let (kind, device) = other.split_once(':').unwrap_or((other, ""));
                    let (protocol, board): (Protocol, fn(Endpoint) -> NormalBoard) = match kind {
                        "dgt" => (Protocol::Dgt, NormalBoard::Dgt),
                        "millennium" => (Protocol::Millennium, NormalBoard::Millennium),
                        "certabo" => (Protocol::Certabo, NormalBoard::Certabo),
                        _ => {
                            return Err(bad(
                                key("normal"),
                                format!(
                                    "{other:?}: virtual, dgt:DEVICE, millennium:DEVICE or \
                                     certabo:DEVICE"
                                ),
                            ));
                        }
                    };
                    board(Endpoint::parse(device, protocol).map_err(|e| bad(key("normal"), e))?)
                }
            };
            let touch_move = t
                .touch_move
                .parse()
                .map_err(|e| bad(key("touch_move"), e))?;
            if t.debounce_ms > 1000 {
                return Err(bad(
                    key("debounce_ms"),
                    format!("{} ms is no debounce window; 0 to 1000", t.debounce_ms),
                ));
            }
            let fen = match t.fen.trim() {
                "" => None,
                fen => Some(
                    crate::chess::game::Game::from_fen(fen, false)
                        .map_err(|e| bad(key("fen"), format!("{fen:?}: {e}")))?
                        .fen(),
                ),
            };
            let table_lang = match t.lang.trim() {
                "" => None,
                code => Some(read_language(code).map_err(|e| bad(key("lang"), e))?),
            };
            let table_tc = match t.time_control.trim() {
                // A correspondence table's days are its control, the rules' usual one unset.
                "" => match &kind {
                    TableKind::Correspondence { days, .. } => Some(
                        TimeControl::parse_setting(&days.control.to_string())
                            .map_err(|e| bad(key("time_control"), e))?,
                    ),
                    TableKind::Board => None,
                },
                text => Some(
                    TimeControl::parse_setting(text).map_err(|e| bad(key("time_control"), e))?,
                ),
            };
            let mut tags = Vec::new();
            for (tag, value) in [
                (GameTag::White, &t.white),
                (GameTag::Black, &t.black),
                (GameTag::Event, &t.event),
                (GameTag::Site, &t.site),
                (GameTag::Round, &t.round),
            ] {
                let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
                if value.chars().count() > MAX_TAG_CHARS || value.chars().any(char::is_control) {
                    return Err(bad(
                        key(tag.keyword()),
                        format!("at most {MAX_TAG_CHARS} characters on one line"),
                    ));
                }
                if !value.is_empty() {
                    tags.push((tag, value));
                }
            }
            let cassette = match t.audio_record.as_str() {
                "plain" => false,
                "cassette" => true,
                other => {
                    return Err(bad(
                        key("audio_record"),
                        format!("{other:?}: plain or cassette"),
                    ));
                }
            };
            tables.push(TableConfig {
                kind,
                cassette,
                fen,
                lang: table_lang,
                time_control: table_tc,
                tags,
                name,
                peg,
                peg_side,
                normal,
                touch_move,
                debounce_ms: t.debounce_ms,
            });
        }
        if tables.is_empty() {
            tables.push(RawTable::default().validated_alone()?);
        }
        let desk = self.desk.validate()?;
        // One device, one board: two links reading one serial port would each see half of
        // its lines.
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
        let control = self.control.validate()?;
        let names: Vec<&str> = tables.iter().map(|t| t.name.as_str()).collect();
        let tokens =
            Tokens::from_config(&self.tokens, &names).map_err(|e| bad(e.place, e.message))?;
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
        Ok(Config {
            listen,
            web_listen,
            web_hosts: self
                .web_hosts
                .iter()
                .map(|h| h.to_ascii_lowercase())
                .collect(),
            state_dir: self.state_dir.clone(),
            json_logs,
            control,
            tokens,
            speech,
            speech_rate,
            lang,
            verbosity,
            name_captured: self.speech.name_captured,
            confirm_own_moves: self.speech.confirm_own_moves,
            terse_below_ms: match self.speech.terse_below_s {
                0 => None,
                s if s <= 86_400 => Some(s * 1000),
                s => {
                    return Err(bad(
                        "speech.terse_below_s",
                        format!("{s} s: at most a day (86400), or 0 for never"),
                    ));
                }
            },
            time_control,
            announce,
            charge_downtime: self.clock.charge_downtime,
            tables,
            mail: self.mail.as_ref().map(RawMail::validate).transpose()?,
            desk,
        })
    }
}

impl RawControl {
    fn validate(&self) -> Result<ControlSettings, ConfigError> {
        let range = |key: &str, value: u64, low: u64, high: u64| {
            if (low..=high).contains(&value) {
                Ok(())
            } else {
                Err(bad(
                    format!("control.{key}"),
                    format!("{value}: {low} to {high}"),
                ))
            }
        };
        range("max_connections", self.max_connections as u64, 1, 4096)?;
        range(
            "requests_per_second",
            self.requests_per_second.into(),
            1,
            10_000,
        )?;
        range("burst", self.burst.into(), 1, 10_000)?;
        range("auth_timeout_s", self.auth_timeout_s, 1, 3600)?;
        Ok(ControlSettings {
            max_connections: self.max_connections,
            requests_per_second: self.requests_per_second,
            burst: self.burst,
            auth_timeout: std::time::Duration::from_secs(self.auth_timeout_s),
            ..ControlSettings::default()
        })
    }
}

/// A built-in language by its code, or a language file by its path.
fn read_language(code_or_path: &str) -> Result<Language, String> {
    if code_or_path.contains('/') || code_or_path.ends_with(".toml") {
        // Read with a bound: a path like /dev/zero must not fill the memory.
        use std::io::Read;
        let limit = crate::chess::language::MAX_LANGUAGE_FILE_BYTES;
        let mut bytes = Vec::new();
        std::fs::File::open(code_or_path)
            .and_then(|f| f.take(limit as u64 + 1).read_to_end(&mut bytes))
            .map_err(|e| format!("{code_or_path}: {e}"))?;
        if bytes.len() > limit {
            return Err(format!(
                "{code_or_path}: more than {limit} bytes; a language file is a few kilobytes"
            ));
        }
        let text =
            String::from_utf8(bytes).map_err(|_| format!("{code_or_path}: not UTF-8 text"))?;
        Language::from_toml(&text).map_err(|e| e.to_string())
    } else {
        Language::builtin(code_or_path)
            .cloned()
            .map_err(|e| e.to_string())
    }
}

impl RawTable {
    fn validated_alone(&self) -> Result<TableConfig, ConfigError> {
        let raw = RawConfig {
            tables: vec![self.clone()],
            ..RawConfig::default()
        };
        let mut config = raw.validate()?;
        Ok(config.tables.remove(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = include_str!("../config/annabella.example.toml");

    /// The keys of a TOML value, as dotted paths (tables of arrays by their first element).
    fn keys(value: &toml::Value, prefix: &str, out: &mut Vec<String>) {
        match value {
            toml::Value::Table(t) => {
                for (k, v) in t {
                    let path = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    out.push(path.clone());
                    keys(v, &path, out);
                }
            }
            toml::Value::Array(items) => {
                if let Some(first) = items.first() {
                    keys(first, prefix, out);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn the_example_documents_every_key_with_its_default() {
        let example =
            RawConfig::from_toml(EXAMPLE, Path::new("config/annabella.example.toml")).unwrap();
        let expected = RawConfig {
            tables: vec![RawTable::default()],
            ..RawConfig::default()
        };
        assert_eq!(
            example, expected,
            "the example's values differ from the defaults in the code"
        );
        let mut documented = Vec::new();
        keys(
            &toml::from_str::<toml::Value>(EXAMPLE).unwrap(),
            "",
            &mut documented,
        );
        let mut known = Vec::new();
        keys(&toml::Value::try_from(&expected).unwrap(), "", &mut known);
        documented.sort();
        known.sort();
        assert_eq!(
            documented, known,
            "keys in the example and in the code differ"
        );
        example.validate().unwrap();
    }

    #[test]
    fn speech_outputs_serve_listeners_and_the_rate_is_kept() {
        use crate::io::speech::{BackendSpec, Listeners};
        let text = "[speech]\nbackends = \"blind=espeak-ng@plughw:1,opponent+arbiter=tts,wav:/srv/rec\"\nrate = 220";
        let config = RawConfig::from_toml(text, Path::new("x.toml"))
            .and_then(|c| c.validate())
            .unwrap();
        assert_eq!(config.speech_rate, Some(220));
        let outputs: Vec<String> = config.speech.iter().map(ToString::to_string).collect();
        assert_eq!(
            outputs,
            [
                "blind=espeak-ng@plughw:1",
                "opponent+arbiter=tts",
                "wav:/srv/rec"
            ]
        );
        assert_eq!(config.speech[2].listeners, Listeners::ALL);
        assert_eq!(
            config.speech[0].backend,
            BackendSpec::EspeakNgOn("plughw:1".into())
        );
    }

    #[test]
    fn errors_name_the_key() {
        let check = |text: &str, key: &str| {
            let err = RawConfig::from_toml(text, Path::new("x.toml"))
                .and_then(|c| c.validate())
                .unwrap_err();
            assert!(err.to_string().starts_with(key), "{err} (want {key})");
        };
        check("listen = \"nowhere\"", "listen");
        check("web_listen = \"nowhere\"", "web_listen");
        check("log_format = \"xml\"", "log_format");
        check("[speech]\nbackends = \"radio\"", "speech.backends");
        check("[speech]\nlang = \"xx\"", "speech.lang");
        check("[speech]\nrate = 20", "speech.rate");
        check("[speech]\nbackends = \"player=tts\"", "speech.backends");
        check(
            &format!("[[table]]\nname = \"{}\"", "t".repeat(65)),
            "table[0].name",
        );
        check("[[table]]\nname = \"table one\"", "table[0].name");
        check("[clock]\ntime_control = \"40/\"", "clock.time_control");
        check("[clock]\nannounce = \"often\"", "clock.announce");
        check("[[table]]\npeg_side = \"green\"", "table[0].peg_side");
        check("[[table]]\nnormal = \"chessbase\"", "table[0].normal");
        check("[[table]]\ntouch_move = \"maybe\"", "table[0].touch_move");
        check("[[table]]\npeg = \"tcp:nohost\"", "table[0].peg");
        check(
            "[[table]]\nname = \"a\"\npeg = \"/dev/ttyUSB0\"\n\
             [[table]]\nname = \"b\"\npeg = \"/dev/ttyUSB0\"",
            "table[1].peg",
        );
        check(
            "[desk]\npeg = \"/dev/ttyACM0\"\n[[table]]\nnormal = \"dgt:/dev/ttyACM0\"",
            "desk.peg",
        );
        check(
            "[[table]]\nkind = \"correspondence\"\nopponent_email = \"not mail\"",
            "table[0].opponent_email",
        );
        check(
            "[[table]]\nkind = \"correspondence\"\nopponent_email = \"b@example.org\"\n\
             day_rules = \"fide\"",
            "table[0].day_rules",
        );
        check(
            "[[table]]\nopponent_email = \"b@example.org\"",
            "table[0].opponent_email",
        );
        check(
            "[[table]]\naudio_record = \"tape\"",
            "table[0].audio_record",
        );
        check("[[table]]\n[[table]]", "table[1].name");
        check("[control]\nmax_connections = 0", "control.max_connections");
        check("[control]\nburst = 0", "control.burst");
        check(
            "[[token]]\ntoken = \"abcdefghijklmnopq\"\nrole = \"referee\"",
            "token[0]",
        );
        check(
            "[[token]]\ntoken = \"abcdefghijklmnopq\"\nrole = \"white\"\ntables = [\"t2\"]",
            "token[0]",
        );
        check("[[token]]\ntoken = \"abc\"\nrole = \"white\"", "token[0]");
        check("colour = \"blue\"", "x.toml");
        check("listen = 3", "x.toml");
        let broken = RawConfig::from_toml("\n\nlisten = [", Path::new("x.toml"))
            .unwrap_err()
            .to_string();
        assert!(broken.contains("line 3"), "{broken}");
    }

    /// The example's `[[token]]` is commented out (a token copied from an example is no
    /// secret); uncommented, it must be valid and name every key a token has.
    #[test]
    fn the_commented_token_example_is_valid() {
        let block: Vec<&str> = EXAMPLE
            .lines()
            .skip_while(|l| *l != "# [[token]]")
            .take_while(|l| l.starts_with("# "))
            .map(|l| &l[2..])
            .collect();
        assert!(
            !block.is_empty(),
            "the example has no \"# [[token]]\" block"
        );
        let text = block.join("\n");
        let raw = RawConfig::from_toml(&text, Path::new("example token")).unwrap();
        let config = raw.validate().unwrap();
        assert_eq!(config.tokens.len(), 1);
        let mut documented = Vec::new();
        keys(
            &toml::from_str::<toml::Value>(&text).unwrap(),
            "",
            &mut documented,
        );
        let mut known = Vec::new();
        keys(&toml::Value::try_from(&raw).unwrap(), "", &mut known);
        known.retain(|k| k.starts_with("token"));
        documented.sort();
        known.sort();
        assert_eq!(
            documented, known,
            "the example's token keys and the code's differ"
        );
    }

    #[test]
    fn the_normal_board_is_virtual_or_one_of_three_e_board_families() {
        let normal = |text: &str| {
            RawConfig::from_toml(
                &format!("[[table]]\nnormal = \"{text}\""),
                Path::new("x.toml"),
            )
            .and_then(|c| c.validate())
            .map(|c| c.tables[0].normal.clone())
        };
        let serial = |baud| Endpoint::Serial {
            path: "/dev/ttyUSB0".into(),
            baud,
        };
        assert_eq!(
            normal("dgt:/dev/ttyUSB0").unwrap(),
            NormalBoard::Dgt(serial(9600))
        );
        assert_eq!(
            normal("millennium:/dev/ttyUSB0").unwrap(),
            NormalBoard::Millennium(serial(38_400))
        );
        assert_eq!(
            normal("certabo:tcp:127.0.0.1:7000").unwrap(),
            NormalBoard::Certabo(Endpoint::Tcp("127.0.0.1:7000".into()))
        );
        assert_eq!(
            normal("certabo:/dev/ttyUSB0")
                .unwrap()
                .link()
                .map(|(p, _)| p),
            Some(Protocol::Certabo)
        );
        for bad in ["certabo:", "millennium", "square:/dev/ttyUSB0"] {
            let e = format!("{:#}", normal(bad).unwrap_err());
            assert!(e.contains("table[0].normal"), "{bad}: {e}");
        }
    }

    #[test]
    fn no_tables_means_one_simulated_table() {
        let c = RawConfig::default().validate().unwrap();
        assert_eq!(c.tables.len(), 1);
        assert_eq!(c.tables[0].peg, PegSource::Simulated);
        assert_eq!(c.tables[0].normal, NormalBoard::Virtual);
    }

    #[test]
    fn each_table_may_have_its_own_position_language_time_control_and_players() {
        let text = "[[table]]\nname = \"a\"\nlang = \"en\"\ntime_control = \"90m+30s\"\n\
                    white = \"Anna  Müller\"\nround = \"3\"\n\
                    fen = \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"\n\
                    [[table]]\nname = \"b\"\n";
        let c = RawConfig::from_toml(text, Path::new("x.toml"))
            .unwrap()
            .validate()
            .unwrap();
        let (a, b) = (&c.tables[0], &c.tables[1]);
        assert_eq!(a.lang.as_ref().map(Language::code), Some("en"));
        assert_eq!(
            a.time_control.as_ref().map(ToString::to_string).as_deref(),
            Some("5400+30")
        );
        assert_eq!(a.fen.as_deref(), Some("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"));
        assert_eq!(
            a.tags,
            [
                (GameTag::White, "Anna Müller".to_owned()),
                (GameTag::Round, "3".to_owned())
            ]
        );
        assert!(
            b.lang.is_none() && b.time_control.is_none() && b.fen.is_none() && b.tags.is_empty()
        );
        for (table, key, want) in [
            (
                "time_control = \"90+30\"",
                "table[0].time_control",
                "looks like minutes",
            ),
            ("fen = \"8/8 w\"", "table[0].fen", "\"8/8 w\""),
            ("lang = \"xx\"", "table[0].lang", "xx"),
        ] {
            let text = format!("[[table]]\nname = \"a\"\n{table}\n");
            let e = RawConfig::from_toml(&text, Path::new("x.toml"))
                .unwrap()
                .validate()
                .unwrap_err()
                .to_string();
            assert!(e.starts_with(key) && e.contains(want), "{e}");
        }
    }

    /// The example's `[mail]` is commented out (no mail by default); uncommented, it is valid
    /// and names every key of the section.
    #[test]
    fn the_commented_mail_example_is_valid() {
        let block: Vec<&str> = EXAMPLE
            .lines()
            .skip_while(|l| *l != "# [mail]")
            .take_while(|l| l.starts_with("# "))
            .map(|l| l[2..].split(" #").next().unwrap_or(""))
            .collect();
        let text = block.join("\n");
        let raw = RawConfig::from_toml(&text, Path::new("example mail")).unwrap();
        let mail = raw.mail.as_ref().unwrap();
        let documented = toml::from_str::<toml::Value>(&text).unwrap()["mail"]
            .as_table()
            .unwrap()
            .len();
        assert_eq!(documented, 6);
        let settings = raw.validate().unwrap().mail.unwrap();
        assert_eq!(settings.maildir, mail.maildir);
        assert_eq!(settings.from, "anna@example.org");
        let smtp = settings.smtp.unwrap();
        assert_eq!((smtp.host.as_str(), smtp.port), ("127.0.0.1", 2525));
        assert_eq!(smtp.security, crate::io::mail_out::Security::Plain);
        assert_eq!(
            settings.login,
            Some(("anna".to_owned(), "ANNABELLA_SMTP_PASSWORD".to_owned()))
        );
    }

    #[test]
    fn mail_settings_are_checked() {
        use crate::io::mail_out::Security;
        let read =
            |text: &str| RawConfig::from_toml(text, Path::new("x.toml")).and_then(|c| c.validate());
        let ok = read("[mail]\nmaildir = \"/m\"\nfrom = \"a@b.org\"").unwrap();
        let mail = ok.mail.unwrap();
        assert_eq!(mail.smtp, None);
        match mail.destination(Path::new("/state")).unwrap() {
            crate::io::mail_out::Destination::Outbox(dir) => {
                assert_eq!(dir, Path::new("/state/outbox"))
            }
            other => panic!("{other:?}"),
        }
        let remote =
            read("[mail]\nmaildir = \"/m\"\nfrom = \"a@b.org\"\nsmtp = \"mail.example.org:587\"")
                .unwrap();
        assert_eq!(
            remote.mail.unwrap().smtp.unwrap().security,
            Security::StartTls
        );
        for (text, key, want) in [
            (
                "smtp = \"mail.example.org:25\"\nsmtp_security = \"plain\"",
                "mail.smtp",
                "loopback",
            ),
            ("smtp = \"127.0.0.1\"", "mail.smtp", "HOST:PORT"),
            ("smtp = \"127.0.0.1:0\"", "mail.smtp", "port"),
            (
                "smtp = \"127.0.0.1:25\"\nsmtp_security = \"ssl\"",
                "mail.smtp_security",
                "starttls",
            ),
            ("smtp_user = \"anna\"", "mail.smtp", "missing"),
            (
                "smtp = \"[::1]:25\"\nsmtp_user = \"anna\"",
                "mail.smtp_user",
                "together",
            ),
        ] {
            let e = read(&format!(
                "[mail]\nmaildir = \"/m\"\nfrom = \"a@b.org\"\n{text}"
            ))
            .unwrap_err()
            .to_string();
            assert!(e.starts_with(key) && e.contains(want), "{e}");
        }
        let e = read("[mail]\nmaildir = \"/m\"\nfrom = \"nobody\"")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("mail.from"), "{e}");
        let e = read("[mail]\nmaildir = \"/m\"\nfrom = \"a@b.org\"\nsmpt = \"x:1\"")
            .unwrap_err()
            .to_string();
        assert!(e.contains("smpt"), "{e}");
        let login = read("[mail]\nmaildir = \"/m\"\nfrom = \"a@b.org\"\nsmtp = \"localhost:25\"\nsmtp_user = \"u\"\nsmtp_password_env = \"ANNABELLA_TEST_SURELY_UNSET_VAR\"")
            .unwrap()
            .mail
            .unwrap();
        let e = login.destination(Path::new("/s")).unwrap_err().to_string();
        assert!(e.contains("ANNABELLA_TEST_SURELY_UNSET_VAR"), "{e}");
    }
}
