//! Correspondence chess by email (issue 12): the pure core of the game messages — composed,
//! read back leniently, checked against the game and summed up for the ear. The Maildir reader
//! and the SMTP sender are adapters in `src/io/` (`maildir`, `mail_out`).

pub mod message;
