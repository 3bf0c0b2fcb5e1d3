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

/// A table's time: monotonic milliseconds that go on from where the table's journal left off
/// (so a restored game's clocks continue), with the wall clock beside it for labels. The chess
/// clock only ever sees [`TableClock::now`]'s table time, so a wall clock stepped by NTP or by
/// hand never reaches a player's time. Built on tokio's clock, so tests can pause time.
#[derive(Clone)]
pub struct TableClock {
    /// The monotonic instant that was table time `base`.
    origin: tokio::time::Instant,
    base: Millis,
    /// Wall time in Unix milliseconds (the system clock; a test may step it).
    wall: std::sync::Arc<dyn Fn() -> u64 + Send + Sync>,
}

impl TableClock {
    /// Table time `base` now, with the system's wall clock.
    pub fn starting_at(base: Millis) -> TableClock {
        TableClock::with_wall(base, std::sync::Arc::new(unix_ms))
    }

    /// Table time `base` now, with another wall clock (a test's).
    pub fn with_wall(
        base: Millis,
        wall: std::sync::Arc<dyn Fn() -> u64 + Send + Sync>,
    ) -> TableClock {
        TableClock {
            origin: tokio::time::Instant::now(),
            base,
            wall,
        }
    }

    pub fn now(&self) -> crate::table::state::Now {
        crate::table::state::Now {
            table_ms: self.base + self.origin.elapsed().as_millis() as Millis,
            unix_ms: (self.wall)(),
        }
    }

    /// The monotonic instant of table time `t` (for sleeping until a deadline).
    pub fn instant_of(&self, t: Millis) -> tokio::time::Instant {
        self.origin + std::time::Duration::from_millis(t.saturating_sub(self.base))
    }
}

impl std::fmt::Debug for TableClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableClock")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}
