//! Wrong tokens on the whole daemon, pure (the time is a parameter). The addresses that have
//! sent a wrong token lately share one budget of guesses, however many connections they use;
//! past it their `auth` is refused without a look at the token. An address that has sent no
//! wrong token is always checked, so that a guessing flood from elsewhere never keeps a player
//! with his right token out of the table.

use std::collections::HashMap;
use std::net::IpAddr;

use crate::boards::Millis;
use crate::control::rate_limit::RateLimiter;

/// Wrong tokens the guessing addresses get a second, after a burst: a guesser with many
/// connections is as slow as one with a single connection.
pub const WRONG_TOKENS_PER_SECOND: u32 = 5;
pub const WRONG_TOKENS_BURST: u32 = 20;
/// How long an address counts as guessing after its last wrong token.
pub const GUESSING_FOR_MS: Millis = 60_000;
/// Guessing addresses remembered; when more guess at once, every address not remembered is
/// treated as guessing too (the budget then binds everyone, as it would with no memory).
pub const MAX_GUESSERS: usize = 4096;

#[derive(Debug, Clone)]
pub struct Guessers {
    budget: RateLimiter,
    /// Each guessing address and the time of its last wrong token.
    last_wrong: HashMap<IpAddr, Millis>,
}

impl Guessers {
    pub fn new(now_ms: Millis) -> Guessers {
        Guessers {
            budget: RateLimiter::new(WRONG_TOKENS_PER_SECOND, WRONG_TOKENS_BURST, now_ms),
            last_wrong: HashMap::new(),
        }
    }

    /// Whether an `auth` from `address` (unknown: `None`) is to be refused without a look at
    /// its token: the address is guessing and the guessers' budget is spent.
    pub fn refuse_unchecked(&self, address: Option<IpAddr>, now_ms: Millis) -> bool {
        self.is_guessing(address, now_ms) && !self.budget.clone().take(now_ms)
    }

    /// A wrong token came from `address`: it counts against the budget, and the address is
    /// guessing from now on.
    pub fn wrong(&mut self, address: Option<IpAddr>, now_ms: Millis) {
        self.budget.take(now_ms);
        let Some(address) = address else { return };
        if self.last_wrong.len() >= MAX_GUESSERS && !self.last_wrong.contains_key(&address) {
            self.last_wrong
                .retain(|_, last| now_ms.saturating_sub(*last) < GUESSING_FOR_MS);
        }
        if self.last_wrong.len() < MAX_GUESSERS || self.last_wrong.contains_key(&address) {
            self.last_wrong.insert(address, now_ms);
        }
    }

    fn is_guessing(&self, address: Option<IpAddr>, now_ms: Millis) -> bool {
        let Some(address) = address else { return true };
        match self.last_wrong.get(&address) {
            Some(last) => now_ms.saturating_sub(*last) < GUESSING_FOR_MS,
            None => self.last_wrong.len() >= MAX_GUESSERS,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(last: u8) -> Option<IpAddr> {
        Some(IpAddr::from([10, 0, 0, last]))
    }

    #[test]
    fn guessers_share_one_budget_and_an_address_that_never_guessed_is_checked() {
        let mut g = Guessers::new(0);
        // Two addresses guess: the burst of 20 is theirs together.
        for i in 0..WRONG_TOKENS_BURST {
            assert!(!g.refuse_unchecked(ip(1 + (i % 2) as u8), 0));
            g.wrong(ip(1 + (i % 2) as u8), 0);
        }
        assert!(g.refuse_unchecked(ip(1), 0));
        assert!(g.refuse_unchecked(ip(2), 0));
        // The player's address has guessed nothing: his token is looked at.
        assert!(!g.refuse_unchecked(ip(3), 0));
        // An unknown address counts as guessing.
        assert!(g.refuse_unchecked(None, 0));
        // A fifth of a second later, one more guess is allowed.
        assert!(!g.refuse_unchecked(ip(1), 200));
        // A minute after its last wrong token, an address is no longer guessing.
        assert!(!g.refuse_unchecked(ip(1), GUESSING_FOR_MS));
    }

    #[test]
    fn when_too_many_addresses_guess_every_unremembered_one_is_a_guesser() {
        let mut g = Guessers::new(0);
        for i in 0..MAX_GUESSERS as u32 {
            g.wrong(Some(IpAddr::from(i.to_be_bytes())), 0);
        }
        assert!(g.refuse_unchecked(Some(IpAddr::from([255, 255, 255, 255])), 0));
        // Once the old guesses expire, there is room again and the newcomer is checked.
        g.wrong(Some(IpAddr::from([255, 255, 255, 254])), GUESSING_FOR_MS);
        assert!(!g.refuse_unchecked(Some(IpAddr::from([255, 255, 255, 255])), GUESSING_FOR_MS));
    }
}
