//! Correspondence chess by email (issue 12): the pure core of the game messages — composed,
//! read back leniently, checked against the game and summed up for the ear — and of time in
//! days (`day_rules`: the ICCF and BCA rule sets and `N/Dd` controls; `day_clock`: a game's
//! clock, leave and deadline), and a live lichess game's stream lines and what they mean for a
//! table (`lichess`). The Maildir reader and the SMTP sender are adapters in
//! `src/io/` (`maildir`, `mail_out`). `xfcc`: ICCF's XFCC web service's SOAP envelopes
//! written and read, pure (the HTTP calls are `app::server_desk`'s); `server_call`: which call a
//! server game owes the server, and what its next list says of a call made.

pub mod day_clock;
pub mod day_rules;
pub mod lichess;
pub mod message;
pub mod server_call;
pub mod xfcc;
