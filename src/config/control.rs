//! The control interface's limits, as the configuration's `[control]` keys set them, and
//! their check.

use std::net::IpAddr;
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

/// Open pages from one client address unless `web_pages_per_address` says otherwise: the
/// control interface's share of one address at its default cap (12 of the 24 slots not kept
/// for the players).
pub const DEFAULT_PAGES_PER_ADDRESS: usize = 12;

/// `web_pages_per_address` checked: at least one page, at most 4096 (the most connections the
/// control interface may have).
pub fn pages_per_address(value: usize) -> Result<usize, ConfigError> {
    if (1..=4096).contains(&value) {
        Ok(value)
    } else {
        Err(bad("web_pages_per_address", format!("{value}: 1 to 4096")))
    }
}

/// The reverse proxies the page is reached through (`web_trusted_proxies`): addresses, or
/// networks as `ADDRESS/BITS`. A connection from one of them is a proxy's, and the client it
/// passes on is the one its `X-Forwarded-For` names; from any other address that header is the
/// client's own say and is ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    networks: Vec<(IpAddr, u8)>,
}

impl TrustedProxies {
    /// The list as configured, each entry checked; the error names the entry (`key[i]`).
    pub fn parse(key: &str, entries: &[String]) -> Result<TrustedProxies, ConfigError> {
        let mut networks = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            let (address, bits) = match entry.trim().split_once('/') {
                Some((address, bits)) => (address, Some(bits)),
                None => (entry.trim(), None),
            };
            let wrong = || {
                bad(
                    format!("{key}[{i}]"),
                    format!("{entry:?} is no address; like 127.0.0.1, ::1 or 10.0.0.0/8"),
                )
            };
            let address: IpAddr = address.parse().map_err(|_| wrong())?;
            let address = address.to_canonical();
            let max = if address.is_ipv4() { 32 } else { 128 };
            let bits = match bits {
                Some(bits) => bits
                    .parse::<u8>()
                    .ok()
                    .filter(|b| *b <= max)
                    .ok_or_else(wrong)?,
                None => max,
            };
            networks.push((address, bits));
        }
        Ok(TrustedProxies { networks })
    }

    pub fn is_empty(&self) -> bool {
        self.networks.is_empty()
    }

    /// Whether `address` is one of the trusted proxies.
    pub fn contains(&self, address: IpAddr) -> bool {
        let address = address.to_canonical();
        self.networks
            .iter()
            .any(|&(network, bits)| within(address, network, bits))
    }

    /// The client a connection from `peer` stands for: `peer` itself, unless it is a trusted
    /// proxy; then the last address of `forwarded_for` (the `X-Forwarded-For` values, in
    /// order) that is not a trusted proxy — each proxy appends the address it was reached
    /// from, so addresses before that one are the client's own say. `peer` when the header is
    /// missing or unreadable.
    pub fn client(&self, peer: IpAddr, forwarded_for: &[&str]) -> IpAddr {
        let peer = peer.to_canonical();
        if !self.contains(peer) {
            return peer;
        }
        let hops = forwarded_for
            .iter()
            .flat_map(|value| value.split(','))
            .map(str::trim)
            .collect::<Vec<_>>();
        let mut client = peer;
        for hop in hops.iter().rev() {
            match hop.parse::<IpAddr>() {
                Ok(address) => {
                    client = address.to_canonical();
                    if !self.contains(client) {
                        return client;
                    }
                }
                Err(_) => return client,
            }
        }
        client
    }
}

/// Whether `address` lies in `network/bits` (of the same family).
fn within(address: IpAddr, network: IpAddr, bits: u8) -> bool {
    match (address, network) {
        (IpAddr::V4(a), IpAddr::V4(n)) => {
            let mask = u32::MAX.checked_shl(32 - u32::from(bits)).unwrap_or(0);
            u32::from(a) & mask == u32::from(n) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(n)) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(bits)).unwrap_or(0);
            u128::from(a) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proxies(entries: &[&str]) -> TrustedProxies {
        let entries: Vec<String> = entries.iter().map(|e| (*e).to_owned()).collect();
        TrustedProxies::parse("web_trusted_proxies", &entries).unwrap()
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn only_a_trusted_proxy_names_the_client() {
        let none = proxies(&[]);
        assert_eq!(none.client(ip("10.0.0.1"), &["6.6.6.6"]), ip("10.0.0.1"));
        let trusted = proxies(&["127.0.0.1", "10.0.0.0/8", "::1"]);
        assert!(trusted.contains(ip("10.9.8.7")) && trusted.contains(ip("::ffff:127.0.0.1")));
        assert!(!trusted.contains(ip("11.0.0.1")) && !trusted.contains(ip("127.0.0.2")));
        // The proxy's own address, with no header: the proxy.
        assert_eq!(trusted.client(ip("127.0.0.1"), &[]), ip("127.0.0.1"));
        // The client's own say before the last untrusted hop is not believed.
        let hops = ["6.6.6.6, 192.0.2.7", "10.1.1.1"];
        assert_eq!(trusted.client(ip("127.0.0.1"), &hops), ip("192.0.2.7"));
        assert_eq!(
            trusted.client(ip("::1"), &["2001:db8::5"]),
            ip("2001:db8::5")
        );
        // From an address that is no proxy the header is ignored.
        assert_eq!(
            trusted.client(ip("192.0.2.9"), &["6.6.6.6"]),
            ip("192.0.2.9")
        );
        // Garbage stops the walk at the last address believed.
        assert_eq!(
            trusted.client(ip("127.0.0.1"), &["x, 10.0.0.2"]),
            ip("10.0.0.2")
        );
        for wrong in ["proxy", "10.0.0.0/33", "::1/129", "10.0.0.0/x"] {
            let err =
                TrustedProxies::parse("web_trusted_proxies", &[wrong.to_owned()]).unwrap_err();
            assert_eq!(err.key, "web_trusted_proxies[0]");
        }
        assert!(proxies(&["0.0.0.0/0"]).contains(ip("8.8.8.8")));
    }

    #[test]
    fn the_pages_per_address_are_checked_with_their_key() {
        assert_eq!(pages_per_address(40).unwrap(), 40);
        for wrong in [0, 4097] {
            let err = pages_per_address(wrong).unwrap_err();
            assert_eq!(err.key, "web_pages_per_address");
        }
    }
}
