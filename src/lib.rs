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
//! - [`io`]: adapters — board links, the simulated board, speech, the journal, the control
//!   interface's server and tokens, the web page.
//! - [`app`]: the daemon's wiring — tables as actors, the hub the network adapters talk to, and
//!   the control session (sans-IO) with the one driver the TCP server and the web page share.
//! - [`correspondence`]: correspondence chess by email — game messages composed, read back,
//!   checked against the game and summed up for the ear (pure).
//! - [`config`]: the daemon's TOML configuration, validated key by key.
//! - [`cli`]: the command-line face (`serve`, `demo`, `send`, `convert`, `announce`,
//!   `reconcile`, `replay`, `watch`, `simulate-board`).

pub mod app;
pub mod boards;
pub mod chess;
pub mod cli;
pub mod config;
pub mod correspondence;
pub mod io;
pub mod table;
