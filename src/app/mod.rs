//! The daemon's wiring: tables as actors, their boards, speech, journal and control interface.

pub mod daemon;
pub mod hub;
pub mod table_actor;
