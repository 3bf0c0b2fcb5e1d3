//! Support shared by the integration test binaries: processes, simulated boards, sockets,
//! scratch directories, and `annabella serve` with control clients.
//!
//! Each test binary that needs it declares `pub mod common;`. The `pub` is deliberate: each
//! binary compiles this module on its own and uses only part of it, and items reachable as
//! `pub` from a crate's root are not reported as dead code, so no `allow` is needed here.

pub mod board;
pub mod control;
pub mod daemon;
pub mod eboard;
pub mod fake_lichess;
pub mod fake_lichess_corr;
pub mod fake_xfcc;
pub mod fs;
pub mod mail;
pub mod net;
pub mod process;
pub mod rng;
pub mod server_desk;
pub mod stand_in;

use std::time::Duration;

/// How long a test waits for something that should come at once (a line from a process, a
/// reply, a listening port) before it fails; generous, for a loaded machine.
pub const WAIT: Duration = Duration::from_secs(20);
