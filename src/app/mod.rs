//! The daemon's wiring: tables as actors, their boards, speech, journal, the correspondence desk
//! and its mail, started and stopped together by [`daemon`].
//!
//! - [`archive_repair`]: a finished game a crash kept from the archive, archived at start.
//! - [`broadcast`]: the live broadcast — `games.pgn` and the push to a lichess round.
//! - [`board_links`]: a board's link as a task, its events forwarded to a table or the desk.
//! - [`daemon`]: `annabella serve` wired up.
//! - [`desk`], [`desk_link`]: the correspondence desk's task and what the tables tell it.
//! - [`lichess_table`]: a table's live lichess games (`kind = "lichess"`).
//! - [`mail_desk`]: correspondence tables by mail.
//! - [`server_desk`]: server games (ICCF's XFCC) at the desk, their tables made while it runs.
//! - [`table_actor`]: one task per table, owning the pure table.
//! - [`table_wiring`]: one configured table wired up, its actor started.

pub mod archive_repair;
pub mod board_links;
pub mod broadcast;
pub mod daemon;
pub mod desk;
pub mod desk_link;
pub mod lichess_table;
pub mod mail_desk;
pub mod ready;
pub mod server_desk;
pub mod table_actor;
pub mod table_wiring;
