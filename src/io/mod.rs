//! The adapters: the only code that touches devices, sockets, audio, disk and the clock.
//!
//! - [`speech`]: speech output — the system voice, espeak-ng, the WAV record, the transcript —
//!   on threads of its own, so speaking never blocks the game.

pub mod speech;
