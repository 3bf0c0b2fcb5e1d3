//! One table's pure decisions: turning sensor events into touches and moves, and corrections.
//!
//! - [`detector`]: sensor events → touched / made / promotion pending / illegal / mismatch /
//!   takeback, exactly as FIDE Appendix D defines touching and making a move.
//! - [`corrections`]: the fewest hand actions that bring a board to a position.
//! - [`clock`]: the talking clock's pure arithmetic — time controls, presses, delays, flags,
//!   penalties and announcement thresholds (FIDE 6, D.2.6).
//! - [`control`]: the control interface's requests, roles and replies, without the socket.
//! - [`record`]: the journal's records, one line each, from which a table is restored.
//! - [`state`]: one table's state machine — game, sheet, clock, both boards; inputs in,
//!   records, utterances and event lines out.
//! - [`reconcile`]: two boards and two scoresheets (FIDE D.2.9) — where the sheets agree, what
//!   each board must show and the corrections, the takeback and the clocks, explained.

pub mod clock;
pub mod control;
pub mod corrections;
pub mod detector;
pub mod reconcile;
pub mod record;
pub mod state;
