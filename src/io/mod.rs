//! The adapters: the only code that touches devices, sockets, audio, disk and the clock.
//!
//! - [`broadcast_file`]: the live broadcast's round — every table's game joined into one PGN —
//!   and `games.pgn` written whole for the programs that watch it.
//! - [`calibration`]: a Certabo board's calibration kept in a file, learned and saved.
//! - [`clock`]: milliseconds for stamping events; the only clock reads.
//! - [`http_client`]: the servers' client (lichess, ICCF's XFCC, the broadcast push): HTTP/1.1
//!   over rustls, one short request at a time, a 429 pause, bounded bodies, NDJSON streams.
//! - [`lines`]: the one bounded line reader (the server's requests, `annabella send`'s replies).
//! - [`log_file`]: the log in a file rotated by size, bounded in total whatever is logged.
//! - [`log_throttle`]: each place that logs may write a burst per window; the rest are
//!   counted, so no flood fills the disk.
//! - [`link`]: a board behind a serial device or a TCP bridge, with reconnect and backoff.
//! - [`mail_bounce`]: delivery-status notifications (RFC 3464 and the common non-standard
//!   bounces) read for the reply they name.
//! - [`mail_out`]: outgoing correspondence mail — a durable queue, sent exactly once by SMTP or
//!   written to the outbox folder, retried with backoff per message, a permanent refusal
//!   parked; and the mark of what each game has mailed.
//! - [`maildir`]: incoming correspondence mail read from a Maildir, handled messages moved to
//!   `cur/`.
//! - [`private_file`]: the daemon's own files written without following a link or writing into
//!   another user's file, 0600 (records 0640 when shared with the group) whatever the umask.
//! - [`regular_file`]: a file the user named opened only when it is a regular file (never
//!   waiting on a FIFO or reading a device).
//! - [`recording`]: board recordings with their timing (`simulate-board --record`, `replay`).
//! - [`sim_socket`]: a simulated board plugged in for the daemon — a pseudo-terminal on Unix, a
//!   local TCP port on Windows.
//! - [`simulator`]: a simulated peg, DGT, Millennium or Certabo board behind a pseudo-terminal or a TCP port.
//! - [`speech`]: speech output — the system voice, espeak-ng, the WAV record, the transcript —
//!   on threads of its own, so speaking never blocks the game.
//! - [`store`]: the durable journal (SQLite) every accepted record is written to before it is
//!   acknowledged or announced, the heartbeat, and the PGN archive of finished games; with what
//!   it checks beside SQLite — the journal's mark (records a damaged write-ahead log dropped) and
//!   the state directory still the one opened.
//! - [`tokens`]: the control interface's tokens (`<state-dir>/tokens.toml`, the configuration's).

pub mod broadcast_file;
pub mod calibration;
pub mod clock;
pub mod http_client;
pub mod lines;
pub mod link;
pub mod log_file;
pub mod log_throttle;
pub mod mail_bounce;
pub mod mail_out;
pub mod maildir;
pub mod private_file;
pub mod recording;
pub mod regular_file;
pub mod sim_socket;
pub mod simulator;
pub mod speech;
pub mod store;
pub mod tokens;
