//! The control interface: one conversation per connection, whether it arrives on the TCP
//! control port or as the page's WebSocket, and the tables as those connections see them.
//!
//! - [`hub`]: the tables (and the correspondence desk) as request channels and event feeds; the
//!   one seam between the connections and the actors of [`crate::app`].
//! - [`session`]: one control connection's conversation without I/O (lines in, actions out),
//!   and the one token check.
//! - [`session_driver`]: runs sessions over either transport against the hub's tables, with the
//!   connection slots both share.
//! - [`rate_limit`]: the token bucket a session's requests go through.
//! - [`guessers`]: wrong tokens on the whole daemon, by address.
//! - [`waiting_room`]: the connections not yet authenticated, oldest first, which make room
//!   for a newcomer when every slot is taken.
//! - [`tcp`]: the TCP control port (listener, connection cap, lines framed for a session).
//! - [`web`]: the table's web page; its WebSocket is a control session of its own.
//! - [`wire`]: the one encoder of each wire: control lines and the page's JSON.

pub mod guessers;
pub mod hub;
pub mod rate_limit;
pub mod session;
pub mod session_driver;
pub mod tcp;
pub mod waiting_room;
pub mod web;
pub mod wire;
