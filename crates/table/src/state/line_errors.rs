//! Errors on a board's line (bytes the decoder could not read), told to the listeners at most a
//! few a second: a line full of noise must not crowd the moves out of every listener's event
//! feed, which holds only so many events for a slow reader. The rest are counted and the
//! count told with the next error that is told.

use annabella_boards::Millis;

/// Errors told per board per window.
pub const TOLD_PER_WINDOW: u32 = 5;
/// The window.
pub const WINDOW_MS: Millis = 1_000;

/// One board's line errors in the current window.
#[derive(Debug, Clone, Default)]
pub struct LineErrors {
    window_start: Millis,
    told: u32,
    held_back: u64,
}

impl LineErrors {
    /// An error at `now_ms`: `Some(n)` when it is to be told, with the `n` errors held back
    /// before it; `None` when it is held back.
    pub fn admit(&mut self, now_ms: Millis) -> Option<u64> {
        if now_ms.saturating_sub(self.window_start) >= WINDOW_MS {
            self.window_start = now_ms;
            self.told = 0;
        }
        if self.told < TOLD_PER_WINDOW {
            self.told += 1;
            Some(std::mem::take(&mut self.held_back))
        } else {
            self.held_back = self.held_back.saturating_add(1);
            None
        }
    }
}

/// The message told for an error after `held_back` were not told.
pub fn with_held_back(message: String, held_back: u64) -> String {
    match held_back {
        0 => message,
        1 => format!("{message} (1 more error on this line before it was not reported)"),
        n => format!("{message} ({n} more errors on this line before it were not reported)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_few_a_second_are_told_and_the_rest_counted_with_the_next() {
        let mut errors = LineErrors::default();
        let told: Vec<_> = (0..100).map(|i| errors.admit(i)).collect();
        assert_eq!(told.iter().filter(|t| t.is_some()).count(), 5);
        assert!(told.iter().take(5).all(|t| *t == Some(0)));
        // The next window tells the 95 held back with its first error.
        assert_eq!(errors.admit(1_000), Some(95));
        assert_eq!(errors.admit(1_001), Some(0));
        assert_eq!(
            with_held_back("bad line".into(), 95),
            "bad line (95 more errors on this line before it were not reported)"
        );
        assert_eq!(with_held_back("bad line".into(), 0), "bad line");
    }
}
