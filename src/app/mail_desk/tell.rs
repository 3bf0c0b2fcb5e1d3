//! What the mail desk tells the blind player about messages it did not play, gathered so that a
//! flood is said once with a count: messages held for their sender, refusals of one kind, and
//! messages that belong to no game. Said when the Maildir has nothing more waiting, or at the
//! latest `AT_MOST_EVERY` after the first thing gathered.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::chess::language::Language;
use crate::chess::phrases::fill_count;
use crate::chess::vocabulary::fill;

/// The longest a gathered notice waits while messages keep coming (a flood that never ends
/// is still told).
const AT_MOST_EVERY: Duration = Duration::from_secs(300);

/// What one table's messages gathered.
#[derive(Debug, Default)]
struct TableTell {
    held: u32,
    /// The last held message: its number and sender, which he needs to accept it.
    last_held: Option<(u32, String)>,
    /// Refusals by their spoken reason, with their count.
    refused: BTreeMap<String, u32>,
}

/// The notices gathered since the last were said.
#[derive(Debug, Default)]
pub struct Tell {
    since: Option<Instant>,
    not_games: u32,
    tables: BTreeMap<usize, TableTell>,
}

impl Tell {
    fn start(&mut self, now: Instant) {
        self.since.get_or_insert(now);
    }

    /// A message for table `i` held for its sender (number `id`).
    pub fn held(&mut self, i: usize, id: u32, sender: &str, now: Instant) {
        self.start(now);
        let t = self.tables.entry(i).or_default();
        t.held += 1;
        t.last_held = Some((id, sender.to_owned()));
    }

    /// A message for table `i` refused for `why` (words in the table's language).
    pub fn refused(&mut self, i: usize, why: &str, now: Instant) {
        self.start(now);
        *self
            .tables
            .entry(i)
            .or_default()
            .refused
            .entry(why.to_owned())
            .or_default() += 1;
    }

    /// A message that belongs to no game.
    pub fn not_a_game(&mut self, now: Instant) {
        self.start(now);
        self.not_games += 1;
    }

    /// Whether the gathered notices are due: nothing more waits, or they waited long enough.
    pub fn due(&self, nothing_waiting: bool, now: Instant) -> bool {
        self.since
            .is_some_and(|since| nothing_waiting || now.duration_since(since) >= AT_MOST_EVERY)
    }

    /// The sentences to say, each for a table's index (the summary of messages that belong to
    /// no game for `first`), in the table's language; the gathered notices are cleared.
    pub fn take(
        &mut self,
        first: usize,
        game_name: impl Fn(usize) -> (String, &'static Language),
    ) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        for (i, t) in std::mem::take(&mut self.tables) {
            let (game, lang) = game_name(i);
            let v = lang.vocabulary();
            let word = |key: &str| v.event(key).unwrap_or(key).to_owned();
            if let Some((id, sender)) = &t.last_held {
                let id = id.to_string();
                let text = if t.held == 1 {
                    fill(
                        &word("desk_mail_held"),
                        &[("game", &game), ("sender", sender), ("id", &id)],
                    )
                } else {
                    fill(
                        &fill_count(&word("desk_mail_held_many"), u64::from(t.held), v),
                        &[("game", &game), ("sender", sender), ("id", &id)],
                    )
                };
                out.push((i, text));
            }
            for (why, n) in t.refused {
                let text = if n == 1 {
                    fill(
                        &word("desk_mail_refused"),
                        &[("game", &game), ("why", &why)],
                    )
                } else {
                    fill(
                        &fill_count(&word("desk_mail_refused_many"), u64::from(n), v),
                        &[("game", &game), ("why", &why)],
                    )
                };
                out.push((i, text));
            }
        }
        if self.not_games > 0 {
            let (_, lang) = game_name(first);
            let v = lang.vocabulary();
            let template = v.event("desk_mail_not_games").unwrap_or("{count}");
            out.push((first, fill_count(template, u64::from(self.not_games), v)));
        }
        self.not_games = 0;
        self.since = None;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_is_said_once_with_a_count() {
        let now = Instant::now();
        let mut tell = Tell::default();
        assert!(!tell.due(true, now));
        for id in 1..=300 {
            tell.held(0, id, "mallory@evil.example", now);
        }
        tell.refused(1, "kein Zug gefunden", now);
        tell.refused(1, "kein Zug gefunden", now);
        for _ in 0..2000 {
            tell.not_a_game(now);
        }
        assert!(!tell.due(false, now));
        assert!(tell.due(false, now + AT_MOST_EVERY));
        assert!(tell.due(true, now));
        let said = tell.take(0, |i| (format!("G{i}"), Language::german()));
        assert_eq!(said.len(), 3, "{said:?}");
        assert!(
            said[0].1.contains("dreihundert")
                && said[0].1.contains("300")
                && said[0].1.contains("mallory@evil.example"),
            "{said:?}"
        );
        assert!(
            said[1].1.contains("zwei") && said[1].1.contains("kein Zug gefunden"),
            "{said:?}"
        );
        assert!(said[2].1.contains("zweitausend"), "{said:?}");
        assert!(
            tell.take(0, |i| (format!("G{i}"), Language::german()))
                .is_empty()
        );
        assert!(!tell.due(true, now));
    }
}
