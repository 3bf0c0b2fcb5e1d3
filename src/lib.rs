//! annabella: links a blind player's tactile peg board to the sighted opponent's board.
//!
//! # Layout
//! - [`chess`]: the pure chess core — the game, every notation, the spoken phrases, scoresheets.
//!   It does no I/O and never reads the system clock; time is always a parameter.
//! - [`cli`]: the command-line face (`annabella convert`, `annabella announce`): the only code
//!   here that reads files or standard input.

pub mod chess;
pub mod cli;
