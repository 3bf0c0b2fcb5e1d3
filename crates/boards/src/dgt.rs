//! The DGT e-board serial protocol (`docs/dgt.md`): framed binary messages in, sensor events out.
//!
//! A message is `id | 0x80`, two 7-bit length bytes that count the whole message (header
//! included), then data bytes that all have the top bit clear. Any byte with the top bit set
//! therefore starts a message, and that is how the decoder finds its way back after noise.
//! Payloads are kept in a fixed 64-byte buffer: nothing here grows with the input.
//!
//! Field numbers are the board's: 0 = a8, 1 = b8 … 63 = h1 when White sits at the connector's
//! side as DGT intends. A board set up the other way round is not the codec's business; the
//! detector notices a rotated start position and uses [`rotate`].
//!
//! - `messages`: the commands, message ids and lengths, the greeting.
//! - `fields`: piece codes and field numbers.
//! - `encode`, `clock`: messages as a board sends them; the clock's times.
//! - `decoder`: the byte stream read back.

mod clock;
mod decoder;
mod encode;
mod fields;
mod messages;

pub use clock::{ClockTimeline, encode_clock};
pub use decoder::DgtDecoder;
pub use encode::{encode_board_dump, encode_field_update, encode_serial_number, encode_version};
pub use fields::{field_square, piece_code, piece_from_code, rotate, square_field};
pub use messages::*;
