//! The control interface's limits, as the configuration's `[control]` keys set them, and
//! their check.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{ConfigError, bad};
use crate::chess::language::Language;

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

/// The control interface's limits; `Default` gives the documented defaults.
#[derive(Debug, Clone)]
pub struct ControlSettings {
    /// Connections at once (TCP connections and the page's WebSockets together); one more gets
    /// `error rate too many connections` and is closed.
    pub max_connections: usize,
    /// Requests a second one connection may send, sustained.
    pub requests_per_second: u32,
    /// Requests a connection may send at once before the rate applies.
    pub burst: u32,
    /// A connection that has not authenticated this long after connecting is closed.
    pub auth_timeout: Duration,
    /// A table that has not answered a request this long gets an error reply instead.
    pub reply_timeout: Duration,
    /// A client that does not read its replies for this long is disconnected.
    pub write_timeout: Duration,
    /// The language of a new connection (`lang` changes it).
    pub default_lang: &'static Language,
}

impl Default for ControlSettings {
    fn default() -> ControlSettings {
        ControlSettings {
            max_connections: 32,
            requests_per_second: 10,
            burst: 20,
            auth_timeout: Duration::from_secs(30),
            reply_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(10),
            default_lang: Language::english(),
        }
    }
}

impl RawControl {
    /// `[control]` validated: each limit within its range.
    pub(super) fn validate(&self) -> Result<ControlSettings, ConfigError> {
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
            auth_timeout: Duration::from_secs(self.auth_timeout_s),
            ..ControlSettings::default()
        })
    }
}
