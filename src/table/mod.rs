//! One table's pure decisions: turning sensor events into touches and moves, and corrections.
//!
//! - [`detector`]: sensor events → touched / made / promotion pending / illegal / mismatch /
//!   takeback, exactly as FIDE Appendix D defines touching and making a move.
//! - [`corrections`]: the fewest hand actions that bring a board to a position.

pub mod corrections;
pub mod detector;
