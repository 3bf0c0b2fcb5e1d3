//! One table's pure decisions: the game at a table with its clock, sheets and boards, and what
//! it says; no I/O, time always a parameter.
//!
//! - [`state`]: the table's state machine — inputs and requests in, a [`state::Step`] out
//!   (journal records, then events and words); its parts in `game_state`, `boards`, `requests`,
//!   `sheets` and `words`.
//! - [`event`]: what a table tells the world, typed (events, utterances with their urgency),
//!   and the one encoder into the control protocol's event lines.
//! - [`reply`]: what a table answers to a request, typed, and the one encoder of each into the
//!   reply line.
//! - [`record`]: the journal's records, one line each with its table time, from which a table
//!   is restored.
//! - [`board_feed`]: one board's debouncer and detector, for the table and the CLI alike.
//! - [`detector`]: sensor events → touched / made / promotion pending / illegal / mismatch /
//!   takeback, exactly as FIDE Appendix D defines touching and making a move.
//! - [`corrections`]: the fewest hand actions that bring a board to a position.
//! - [`clock`]: the talking clock's pure arithmetic — time controls, presses, delays, flags,
//!   penalties and announcement thresholds (FIDE 6, D.2.6).
//! - [`control`]: the control interface's requests, roles and replies, without the socket.
//! - [`reconcile`]: two boards and two scoresheets (FIDE D.2.9) — where the sheets agree, what
//!   each board must show and the corrections, the takeback and the clocks, explained.

pub mod board_feed;
pub mod clock;
pub mod control;
pub mod corrections;
pub mod desk;
pub mod detector;
pub mod event;
pub mod name;
pub mod reconcile;
pub mod record;
pub mod reply;
pub mod setup_guide;
pub mod state;
