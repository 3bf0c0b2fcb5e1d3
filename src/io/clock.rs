//! The one place that reads the system clock: milliseconds since the process started.

use std::sync::OnceLock;
use std::time::Instant;

use crate::boards::Millis;

/// Monotonic milliseconds since the first call; every adapter stamps events with this.
pub fn now_ms() -> Millis {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed().as_millis() as Millis
}

/// Wall-clock milliseconds since the Unix epoch, for transcripts and records.
pub fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}
