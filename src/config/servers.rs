//! The servers annabella plays on and publishes to: `[xfcc]` (ICCF's web service), `[lichess]`
//! (the lichess account) and `[broadcast]` (the live broadcast), read and validated like the
//! rest of `crate::config`. The secrets themselves are never in the file: each section names
//! the environment variable that holds its password or token, read when the daemon starts.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{ConfigError, bad};

/// The shortest polling period accepted: a few seconds for a test server; a real server is
/// asked far less often (the defaults).
const MIN_POLL_S: u64 = 1;
/// The longest: a day.
const MAX_POLL_S: u64 = 24 * 60 * 60;
/// lichess's address unless told.
pub const LICHESS_URL: &str = "https://lichess.org";
/// ICCF's XFCC web service unless told.
pub const XFCC_URL: &str = "https://www.iccf.com/XfccBasic.asmx";

/// `[xfcc]` as written.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawXfcc {
    #[serde(default = "xfcc_url")]
    pub url: String,
    /// The ICCF user name.
    pub user: String,
    /// The environment variable holding the password (never the password itself).
    pub password_env: String,
    /// Seconds between `GetMyGames` calls; 900 (15 minutes) unless told.
    #[serde(default = "xfcc_poll_s")]
    pub poll_s: u64,
}

/// `[lichess]` as written.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawLichess {
    #[serde(default = "lichess_url")]
    pub url: String,
    /// The environment variable holding the personal token (scope `board:play`).
    pub token_env: String,
    /// Seconds between `GET /api/account/playing` calls; 60 unless told.
    #[serde(default = "lichess_poll_s")]
    pub poll_s: u64,
}

/// `[broadcast]` as written.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawBroadcast {
    /// The folder `games.pgn` is written to after each move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pgn_dir: Option<PathBuf>,
    /// The lichess broadcast round the daemon pushes to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_id: Option<String>,
    /// The environment variable holding the token for the push (scope `study:write`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_env: Option<String>,
    /// The server pushed to; lichess unless told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

fn xfcc_url() -> String {
    XFCC_URL.to_owned()
}
fn xfcc_poll_s() -> u64 {
    900
}
fn lichess_url() -> String {
    LICHESS_URL.to_owned()
}
fn lichess_poll_s() -> u64 {
    60
}

/// `[xfcc]` validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XfccSettings {
    pub url: String,
    pub user: String,
    pub password_env: String,
    pub poll: Duration,
}

/// `[lichess]` validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LichessSettings {
    pub url: String,
    pub token_env: String,
    pub poll: Duration,
}

/// `[broadcast]` validated: the file, the push, or both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BroadcastSettings {
    pub pgn_dir: Option<PathBuf>,
    pub round_id: Option<String>,
    pub token_env: Option<String>,
    pub url: String,
}

impl XfccSettings {
    /// The password from its environment variable.
    pub fn password(&self) -> Result<String, ConfigError> {
        secret("xfcc.password_env", &self.password_env)
    }
}

impl LichessSettings {
    /// The token from its environment variable.
    pub fn token(&self) -> Result<String, ConfigError> {
        secret("lichess.token_env", &self.token_env)
    }
}

impl BroadcastSettings {
    /// The push's token from its environment variable; `None` without a push.
    pub fn token(&self) -> Result<Option<String>, ConfigError> {
        self.token_env
            .as_deref()
            .map(|name| secret("broadcast.token_env", name))
            .transpose()
    }
}

/// A secret from the environment variable `name` (the key `key` names it in errors); the value
/// itself never appears in an error.
fn secret(key: &str, name: &str) -> Result<String, ConfigError> {
    match std::env::var(name) {
        Ok(value) if !value.trim().is_empty() => Ok(value.trim().to_owned()),
        Ok(_) => Err(bad(
            key,
            format!("the environment variable {name} is empty"),
        )),
        Err(std::env::VarError::NotPresent) => Err(bad(
            key,
            format!("the environment variable {name} is not set (it holds the secret)"),
        )),
        Err(std::env::VarError::NotUnicode(_)) => Err(bad(
            key,
            format!("the environment variable {name} is not valid text"),
        )),
    }
}

/// A server's address: https (plain http only to this machine, as the client allows).
fn server_url(key: &str, url: &str) -> Result<String, ConfigError> {
    crate::io::http_client::HttpClient::new(url, None).map_err(|e| bad(key, e))?;
    Ok(url.trim_end_matches('/').to_owned())
}

fn env_name(key: &str, name: &str) -> Result<String, ConfigError> {
    let ok = !name.is_empty()
        && name.len() <= 128
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if ok {
        Ok(name.to_owned())
    } else {
        Err(bad(
            key,
            format!(
                "{name:?} is not an environment variable's name (letters, digits and _); \
                 name the variable that holds the secret, never the secret itself"
            ),
        ))
    }
}

fn poll(key: &str, seconds: u64) -> Result<Duration, ConfigError> {
    if (MIN_POLL_S..=MAX_POLL_S).contains(&seconds) {
        Ok(Duration::from_secs(seconds))
    } else {
        Err(bad(
            key,
            format!("{seconds}: between {MIN_POLL_S} and {MAX_POLL_S} seconds"),
        ))
    }
}

impl RawXfcc {
    pub(super) fn validate(&self) -> Result<XfccSettings, ConfigError> {
        if self.user.trim().is_empty() {
            return Err(bad("xfcc.user", "empty: the ICCF user name"));
        }
        Ok(XfccSettings {
            url: server_url("xfcc.url", &self.url)?,
            user: self.user.trim().to_owned(),
            password_env: env_name("xfcc.password_env", &self.password_env)?,
            poll: poll("xfcc.poll_s", self.poll_s)?,
        })
    }
}

impl RawLichess {
    pub(super) fn validate(&self) -> Result<LichessSettings, ConfigError> {
        Ok(LichessSettings {
            url: server_url("lichess.url", &self.url)?,
            token_env: env_name("lichess.token_env", &self.token_env)?,
            poll: poll("lichess.poll_s", self.poll_s)?,
        })
    }
}

impl RawBroadcast {
    pub(super) fn validate(&self) -> Result<BroadcastSettings, ConfigError> {
        let url = server_url("broadcast.url", self.url.as_deref().unwrap_or(LICHESS_URL))?;
        let round_id = match &self.round_id {
            None => None,
            // lichess's ids are 8 letters and digits; anything else in a path is refused here.
            Some(id)
                if !id.is_empty()
                    && id.len() <= 32
                    && id.chars().all(|c| c.is_ascii_alphanumeric()) =>
            {
                Some(id.clone())
            }
            Some(id) => {
                return Err(bad(
                    "broadcast.round_id",
                    format!(
                        "{id:?} is not a lichess round id (letters and digits, as in the round's address)"
                    ),
                ));
            }
        };
        let token_env = self
            .token_env
            .as_deref()
            .map(|n| env_name("broadcast.token_env", n))
            .transpose()?;
        match (&round_id, &token_env) {
            (Some(_), None) => {
                return Err(bad(
                    "broadcast.token_env",
                    "missing: pushing to round_id needs a token (scope study:write)",
                ));
            }
            (None, Some(_)) => {
                return Err(bad(
                    "broadcast.round_id",
                    "missing: token_env is set, but no round to push to",
                ));
            }
            _ => {}
        }
        if let Some(dir) = &self.pgn_dir {
            super::plain_path("broadcast.pgn_dir", dir)?;
        }
        if self.pgn_dir.is_none() && round_id.is_none() {
            return Err(bad(
                "broadcast",
                "neither pgn_dir (a folder for games.pgn) nor round_id (a lichess round) is set",
            ));
        }
        if self
            .pgn_dir
            .as_ref()
            .is_some_and(|d| d.as_os_str().is_empty())
        {
            return Err(bad(
                "broadcast.pgn_dir",
                "empty: the folder games.pgn is written to",
            ));
        }
        Ok(BroadcastSettings {
            pgn_dir: self.pgn_dir.clone(),
            round_id,
            token_env,
            url,
        })
    }
}
