//! The daemon's wiring: tables as actors, their boards, speech, journal and control interface.
//!
//! - [`archive_repair`]: a finished game a crash kept from the archive, archived at start.
//! - [`guessers`]: wrong tokens on the whole daemon, by address.
//! - [`rate_limit`]: the token bucket a session's requests go through.
//! - [`session`]: one control connection's conversation without I/O (lines in, actions out),
//!   and the one token check.
//! - [`session_driver`]: runs sessions over the TCP control interface and the page's
//!   WebSocket alike, against the [`hub`]'s tables.
//! - [`waiting_room`]: the connections not yet authenticated, oldest first, which make room
//!   for a newcomer when every slot is taken.

pub mod archive_repair;
pub mod board_links;
pub mod daemon;
pub mod desk;
pub mod desk_link;
pub mod guessers;
pub mod hub;
pub mod mail_desk;
pub mod rate_limit;
pub mod session;
pub mod session_driver;
pub mod table_actor;
pub mod waiting_room;
