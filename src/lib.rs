//! annabella: links a blind player's tactile peg board to the sighted opponent's board.
//!
//! # Layout
//! - [`chess`]: the pure chess core — the game, every notation, the spoken phrases, scoresheets.
//!   It does no I/O and never reads the system clock; time is always a parameter.
//! - [`boards`]: sensor boards without I/O — what a board reports, and sans-IO codecs for the
//!   peg-board and DGT protocols.
//! - [`table`]: one table's pure decisions — the move detector, board corrections, the talking
//!   clock, the control language, the two-sheet reconciliation (FIDE D.2.9), and the table's
//!   state machine with its journal records.
//! - [`io`]: adapters — board links, the simulated board, speech, the journal, mail, tokens.
//! - [`control`]: the control interface — the hub the connections talk to tables through, the
//!   control session (sans-IO) with the one driver the TCP port and the web page share.
//! - [`app`]: the daemon's wiring — tables as actors, their boards, the correspondence desk.
//! - [`correspondence`]: correspondence chess by email — game messages composed, read back,
//!   checked against the game and summed up for the ear (pure).
//! - [`config`]: the daemon's TOML configuration, validated key by key.
//! - [`cli`]: the command-line face (`serve`, `demo`, `send`, `convert`, `announce`,
//!   `reconcile`, `replay`, `watch`, `simulate-board`).

pub mod app;
pub mod cli;
pub mod config;
pub mod control;
pub mod io;

// The pure core lives in crates of its own (`crates/`), which depend on no I/O crate; these
// names keep one path to each part (`annabella::table::…`) for the adapters, tests and tools.
pub use annabella_boards as boards;
pub use annabella_chess as chess;
pub use annabella_correspondence as correspondence;
pub use annabella_table as table;
