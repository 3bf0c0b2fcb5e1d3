//! The control interface's limits, as the configuration's `[control]` keys set them.

use std::time::Duration;

use crate::chess::language::Language;

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
