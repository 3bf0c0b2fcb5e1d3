//! What the correspondence tables and the mail tell the desk (`crate::app::desk`), in a module
//! of its own so that the tables' actors and the desk need not know each other.

/// Notices of table steps and messages waiting for the desk before senders skip one (a
/// notice only says "look again": a skipped one loses nothing).
pub const NOTICE_BACKLOG: usize = 64;

/// What the desk hears from the tables and the mail.
#[derive(Debug, Clone)]
pub enum Notice {
    /// Table `index` stepped: its view may have changed.
    Stepped(usize),
    /// A message brought table `index` a move.
    MessageReceived(usize),
    /// Words for the blind player about table `index` (a reply queued, a message refused).
    Say(usize, String),
}
