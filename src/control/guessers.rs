//! Wrong tokens on the whole daemon, pure (the time is a parameter). Every presented token is
//! checked (in constant time, [`crate::io::tokens`]; it is cheap), so a right token is always
//! accepted, however many wrong ones others send. What the budget bounds is what a wrong token
//! costs the daemon: within it, a wrong token is answered `error auth wrong token` and the
//! connection may try again; past it, wrong tokens are answered at once with
//! `error rate too many wrong tokens` and their connection is closed, so every further guess
//! costs the guesser a new connection, and the log says how many there were instead of a line
//! each. The budget is the daemon's, not an address's: guessers on many addresses share it.
//!
//! Guessing a generated token (128 random bits) at any rate a port allows is hopeless; the
//! budget keeps the flood cheap and visible, not the token safe.

use crate::boards::Millis;
use crate::control::rate_limit::RateLimiter;

/// Wrong tokens answered as such a second on the whole daemon, after a burst.
pub const WRONG_TOKENS_PER_SECOND: u32 = 5;
pub const WRONG_TOKENS_BURST: u32 = 20;

/// What the daemon does with one wrong token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Within the budget: answered `error auth wrong token`, logged.
    Answered,
    /// Past the budget: refused at once and the connection closed; counted, not logged one
    /// by one.
    OverBudget,
}

#[derive(Debug, Clone)]
pub struct Guessers {
    budget: RateLimiter,
    /// Wrong tokens past the budget since the last summary.
    unlogged: u64,
    /// When the last summary of wrong tokens was due.
    summary_at: Millis,
}

/// How often the count of wrong tokens past the budget is logged at most.
pub const SUMMARY_EVERY_MS: Millis = 10_000;

impl Guessers {
    pub fn new(now_ms: Millis) -> Guessers {
        Guessers {
            budget: RateLimiter::new(WRONG_TOKENS_PER_SECOND, WRONG_TOKENS_BURST, now_ms),
            unlogged: 0,
            summary_at: now_ms,
        }
    }

    /// A wrong token arrived at `now_ms` (from any address, on any port): within the budget
    /// or past it.
    pub fn wrong(&mut self, now_ms: Millis) -> Verdict {
        if self.budget.take(now_ms) {
            Verdict::Answered
        } else {
            self.unlogged += 1;
            Verdict::OverBudget
        }
    }

    /// The count of wrong tokens past the budget to log now, if any are waiting and the last
    /// summary is [`SUMMARY_EVERY_MS`] old.
    pub fn summary(&mut self, now_ms: Millis) -> Option<u64> {
        if self.unlogged == 0 || now_ms.saturating_sub(self.summary_at) < SUMMARY_EVERY_MS {
            return None;
        }
        self.summary_at = now_ms;
        Some(std::mem::take(&mut self.unlogged))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guessers_share_one_budget_and_past_it_are_counted() {
        let mut g = Guessers::new(0);
        for _ in 0..WRONG_TOKENS_BURST {
            assert_eq!(g.wrong(0), Verdict::Answered);
        }
        assert_eq!(g.wrong(0), Verdict::OverBudget);
        assert_eq!(g.wrong(100), Verdict::OverBudget);
        // A fifth of a second later, one more wrong token is answered.
        assert_eq!(g.wrong(200), Verdict::Answered);
        // The count past the budget is said at most every ten seconds.
        assert_eq!(g.summary(5_000), None);
        assert_eq!(g.summary(SUMMARY_EVERY_MS), Some(2));
        assert_eq!(g.summary(SUMMARY_EVERY_MS * 3), None);
    }
}
