//! A token bucket: the control sessions' rate limit, pure (the time is a parameter).

use crate::boards::Millis;

/// A token bucket in thousandths of a request, so the arithmetic stays in integers.
#[derive(Debug, Clone)]
pub struct RateLimiter {
    per_second: u64,
    capacity: u64,
    level: u64,
    last_ms: Millis,
}

impl RateLimiter {
    pub fn new(per_second: u32, burst: u32, now_ms: Millis) -> RateLimiter {
        let capacity = u64::from(burst.max(1)) * 1000;
        RateLimiter {
            per_second: u64::from(per_second.max(1)),
            capacity,
            level: capacity,
            last_ms: now_ms,
        }
    }

    /// Takes one request's worth; `false` when the bucket is empty.
    pub fn take(&mut self, now_ms: Millis) -> bool {
        let elapsed = now_ms.saturating_sub(self.last_ms);
        self.last_ms = self.last_ms.max(now_ms);
        self.level = self
            .level
            .saturating_add(elapsed.saturating_mul(self.per_second))
            .min(self.capacity);
        if self.level >= 1000 {
            self.level -= 1000;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bucket_allows_a_burst_then_the_rate() {
        let mut bucket = RateLimiter::new(10, 3, 0);
        assert!(bucket.take(0) && bucket.take(0) && bucket.take(0));
        assert!(!bucket.take(0));
        assert!(!bucket.take(50));
        assert!(bucket.take(100));
        assert!(!bucket.take(100));
        // Idle time fills the bucket up to the burst, never beyond.
        assert!((0..3).all(|_| bucket.take(100_000)));
        assert!(!bucket.take(100_000));
        // A clock that seems to go backwards refills nothing and breaks nothing.
        assert!(!bucket.take(5));
        let mut huge = RateLimiter::new(u32::MAX, u32::MAX, 0);
        assert!(huge.take(Millis::MAX));
    }
}
