//! Logs that cannot fill a disk: each place in the code that logs (a callsite: one
//! `tracing::warn!` line) may write [`BURST`] events per [`WINDOW`]; beyond that its events
//! are counted, not written, and the first one let through after the window is preceded by
//! one line saying how many were left out and where from. A flood of wrong tokens, refused
//! connections or garbage on a board line is then a few lines a window, not gigabytes, while
//! a rare event is always written whole.
//!
//! The count line is written straight to standard error (a nested `tracing` event inside a
//! filter would be dropped by `tracing`'s own re-entrancy guard), in the log's own format:
//! human or JSON.

use std::collections::HashMap;
use std::io::Write;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tracing::callsite::Identifier;
use tracing::{Event, Metadata, Subscriber};
use tracing_subscriber::layer::{Context, Filter};

/// Events one callsite may write per window.
pub const BURST: u32 = 20;
/// The window.
pub const WINDOW: Duration = Duration::from_secs(10);
/// Callsites remembered: the code has a few hundred; a bound all the same.
const MAX_SITES: usize = 4096;

#[derive(Debug)]
struct Site {
    window_start: Instant,
    written: u32,
    suppressed: u64,
}

/// A per-layer filter that throttles each callsite; see the module's documentation.
#[derive(Debug)]
pub struct Throttle {
    json: bool,
    burst: u32,
    window: Duration,
    sites: Mutex<HashMap<Identifier, Site>>,
}

impl Throttle {
    /// A throttle for logs written as JSON objects (`json`) or as readable lines.
    pub fn new(json: bool) -> Throttle {
        Throttle::with_limits(json, BURST, WINDOW)
    }

    /// With other limits (tests).
    pub fn with_limits(json: bool, burst: u32, window: Duration) -> Throttle {
        Throttle {
            json,
            burst,
            window,
            sites: Mutex::new(HashMap::new()),
        }
    }

    /// Whether an event of `meta` at `now` is written; the count of those left out before it
    /// when a window ends with some (to be said first).
    fn admit(&self, meta: &'static Metadata<'static>, now: Instant) -> (bool, u64) {
        let Ok(mut sites) = self.sites.lock() else {
            return (true, 0);
        };
        if sites.len() >= MAX_SITES && !sites.contains_key(&meta.callsite()) {
            sites.clear();
        }
        let site = sites.entry(meta.callsite()).or_insert(Site {
            window_start: now,
            written: 0,
            suppressed: 0,
        });
        let mut left_out = 0;
        if now.duration_since(site.window_start) >= self.window {
            left_out = std::mem::take(&mut site.suppressed);
            site.window_start = now;
            site.written = 0;
        }
        if site.written < self.burst {
            site.written += 1;
            (true, left_out)
        } else {
            site.suppressed = site.suppressed.saturating_add(1);
            (false, left_out)
        }
    }

    /// The line that says how many events of `meta` were left out.
    fn count_line(&self, meta: &Metadata<'_>, left_out: u64) -> String {
        let place = format!(
            "{}:{}",
            meta.file().unwrap_or("?"),
            meta.line().unwrap_or(0)
        );
        let message = format!(
            "{left_out} more log messages like this one were left out in the last {} s",
            self.window.as_secs()
        );
        if self.json {
            serde_json::json!({
                "level": meta.level().as_str(),
                "target": meta.target(),
                "fields": {"message": message, "left_out": left_out, "from": place},
            })
            .to_string()
        } else {
            format!(
                "{:>5} {}: {message} (from {place})",
                meta.level().as_str(),
                meta.target()
            )
        }
    }
}

impl<S: Subscriber> Filter<S> for Throttle {
    fn enabled(&self, _meta: &Metadata<'_>, _cx: &Context<'_, S>) -> bool {
        true
    }

    fn event_enabled(&self, event: &Event<'_>, _cx: &Context<'_, S>) -> bool {
        let meta = event.metadata();
        let (write, left_out) = self.admit(meta, Instant::now());
        if left_out > 0 {
            // A log that cannot be written is no reason to stop.
            let _ = writeln!(std::io::stderr(), "{}", self.count_line(meta, left_out));
        }
        write
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static SITE: tracing::callsite::DefaultCallsite =
        tracing::callsite::DefaultCallsite::new(&META);
    static META: Metadata<'static> = tracing::metadata!(
        name: "test",
        target: "annabella::test",
        level: tracing::Level::WARN,
        fields: &[],
        callsite: &SITE,
        kind: tracing::metadata::Kind::EVENT,
    );

    #[test]
    fn a_flood_is_cut_to_the_burst_and_counted_when_the_window_ends() {
        let t = Throttle::with_limits(false, 3, Duration::from_secs(10));
        let start = Instant::now();
        let written = (0..1000)
            .filter(|i| t.admit(&META, start + Duration::from_millis(*i)).0)
            .count();
        assert_eq!(written, 3);
        // The next window: the first event is written, after the count of those left out.
        assert_eq!(t.admit(&META, start + Duration::from_secs(11)), (true, 997));
        assert_eq!(t.admit(&META, start + Duration::from_secs(12)), (true, 0));
        let line = t.count_line(&META, 997);
        assert!(line.contains("997 more log messages"), "{line}");
        let json = Throttle::with_limits(true, 3, Duration::from_secs(10)).count_line(&META, 5);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["fields"]["left_out"], 5);
        assert_eq!(v["level"], "WARN");
    }
}
