//! annabella: links a blind player's tactile peg board to the sighted opponent's board.
//!
//! # Layout
//! - [`chess`]: the pure chess core — the game, every notation, the spoken phrases, scoresheets.
//!   It does no I/O and never reads the system clock; time is always a parameter.
//! - [`boards`]: sensor boards without I/O — what a board reports, and sans-IO codecs for the
//!   peg-board and DGT protocols.
//! - [`table`]: one table's pure decisions — the move detector and board corrections.
//! - [`io`]: adapters — serial and TCP board links, the simulated board on a pseudo-terminal.
//! - [`app`]: the daemon's wiring — tables as actors, the hub the network adapters talk to.
//! - [`config`]: the daemon's TOML configuration, validated key by key.
//! - [`cli`]: the command-line face (`annabella convert`, `annabella announce`): the only code
//!   here that reads files or standard input.

pub mod app;
pub mod boards;
pub mod chess;
pub mod cli;
pub mod config;
pub mod io;
pub mod table;
