//! Server games at the correspondence desk: every game a server lists for the account (ICCF's
//! XFCC in `xfcc`) becomes a correspondence table while the daemon runs — wired like a
//! configured one ([`ServerParts::wire`]), added to the hub and to the desk — and is played
//! there like a game by mail: the opponent's moves as his player, the blind player's moves,
//! released with `KS`, sent to the server exactly once (`marks`).
//!
//! The games known are kept in `<state_dir>/server-games` (`marks::read_games`), so after a
//! restart their tables exist again before the first call to the server, which may be
//! unreachable; a game the server no longer lists keeps its table.

use std::sync::Arc;

use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

use crate::app::desk::DeskTable;
use crate::app::desk_link::Notice;
use crate::app::mail_desk::MailTable;
use crate::app::table_wiring::{Wiring, wire_table};
use crate::chess::language::Language;
use crate::config::{Config, CorrespondenceSource, TableConfig, TableKind};
use crate::control::hub::Hub;
use crate::correspondence::server_call;
use crate::io::speech::Speaker;
use crate::io::store::StoreHandle;
use crate::table::state::DeskView;
use marks::OutMark;
use shakmaty::Position;

mod desk_loop;
pub mod lichess;
pub mod lichess_api;
pub mod marks;
pub mod xfcc;
mod xfcc_sync;

/// What a server game's table is wired with while the daemon runs: owned parts (the daemon's
/// own borrow ended with its start), and the place the next table takes at the desk.
#[derive(Clone)]
pub struct ServerParts {
    pub config: Arc<Config>,
    pub store: StoreHandle,
    pub speaker: Arc<Speaker>,
    pub lang: &'static Language,
    pub last_alive: Option<u64>,
    pub notices: mpsc::Sender<Notice>,
    pub shutdown: watch::Receiver<bool>,
    pub hub: Hub,
    /// The desk takes a new table here.
    pub desk: mpsc::Sender<DeskTable>,
    /// The desk's count of tables: a new table's index is the count when it is wired, and
    /// the lock keeps the index and the order the desk receives tables in step.
    pub desk_count: Arc<tokio::sync::Mutex<usize>>,
    /// The heartbeat's tables: a server game's table gives its sign of life too.
    pub clocks: crate::app::table_wiring::Clocks,
}

impl ServerParts {
    /// Wires the server game `tc` (a correspondence table) and starts its actor in `tasks`;
    /// its handle joins the hub and its place the desk. Returns how the server desk reaches it.
    pub async fn wire(
        &self,
        tasks: &mut JoinSet<()>,
        tc: &TableConfig,
    ) -> Result<MailTable, WireError> {
        let mut count = self.desk_count.lock().await;
        let wiring = Wiring {
            config: &self.config,
            store: &self.store,
            speaker: &self.speaker,
            lang: self.lang,
            last_alive: self.last_alive,
            notices: &self.notices,
            shutdown: &self.shutdown,
            sim_from_stdin: false,
        };
        let name = tc.name.to_string();
        let wired = wire_table(&wiring, tasks, tc, *count)
            .await
            .map_err(|e| WireError::Start {
                name: name.clone(),
                why: format!("{e:#}"),
            })?;
        let Some(correspondence) = wired.correspondence else {
            return Err(WireError::NotCorrespondence { name });
        };
        self.hub.add(wired.handle);
        self.clocks
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((name.clone(), wired.clock));
        self.desk
            .send(correspondence.desk)
            .await
            .map_err(|_| WireError::DeskStopped { name })?;
        *count += 1;
        Ok(correspondence.mail)
    }
}

/// Why a server game's table did not start.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("table {name}: {why}")]
    Start { name: String, why: String },
    #[error("table {name}: a server game is a correspondence table")]
    NotCorrespondence { name: String },
    #[error("table {name}: the desk has stopped")]
    DeskStopped { name: String },
}

/// One server game as a table's settings: `name`, the server's id, the blind player's side
/// and the tags the server gives.
pub struct ServerGame {
    pub source: CorrespondenceSource,
    pub id: String,
    pub name: String,
    pub peg_side: shakmaty::Color,
    pub white: String,
    pub black: String,
    pub event: String,
    pub site: String,
}

impl ServerGame {
    /// The table's configuration, validated as a `[[table]]` would be.
    pub fn table_config(&self) -> Result<TableConfig, crate::config::ConfigError> {
        let clean = |s: &str| -> String {
            s.chars()
                .filter(|c| !c.is_control())
                .take(crate::table::control::MAX_TAG_CHARS)
                .collect()
        };
        let raw = crate::config::RawTable {
            name: self.name.clone(),
            kind: "correspondence".to_owned(),
            source: self.source.word().to_owned(),
            game_id: self.id.clone(),
            peg: "none".to_owned(),
            peg_side: match self.peg_side {
                shakmaty::Color::White => "white",
                shakmaty::Color::Black => "black",
            }
            .to_owned(),
            white: clean(&self.white),
            black: clean(&self.black),
            event: clean(&self.event),
            site: clean(&self.site),
            ..crate::config::RawTable::default()
        };
        crate::config::server_table(&raw)
    }
}

/// The configured tables playing a game of `source`, by the server's game id.
pub fn configured(config: &Config, source: CorrespondenceSource) -> Vec<(String, String)> {
    config
        .tables
        .iter()
        .filter_map(|t| match &t.kind {
            TableKind::Correspondence {
                source: s, game_id, ..
            } if *s == source => Some((game_id.as_str().to_owned(), t.name.as_str().to_owned())),
            _ => None,
        })
        .collect()
}

/// Says `key`'s words about the server itself to the blind player: through the desk at the
/// first server game's table, or, before there is any, straight to the speaker in the daemon's
/// language (a password refused at the first call must still be heard).
pub async fn tell_server(
    parts: &ServerParts,
    first: Option<&MailTable>,
    key: &str,
    args: &[(&str, &str)],
) {
    match first {
        Some(t) => {
            let text = words(t.lang, key, args);
            parts.notices.send(Notice::Say(t.index, text)).await.ok();
        }
        None => {
            let text = words(parts.lang, key, args);
            tracing::info!(key, "{text}");
            let u = crate::io::speech::Utterance::new(
                crate::table::event::Listener::BlindPlayer,
                text,
                parts.lang.code().to_owned(),
                "servers".to_owned(),
                crate::io::clock::unix_ms(),
            );
            parts.speaker.say_step(vec![u]);
        }
    }
}

/// The game's state from the server with whose move it is at the table ("White to move"), in
/// the table's words.
pub fn with_turn(text: String, view: &DeskView) -> String {
    match view.head_words.first() {
        Some(turn) if !turn.is_empty() => format!("{text}. {turn}"),
        _ => text,
    }
}

/// Forgets (`marks::forget_game`) each game of `games` (id, table) whose table's game is over
/// and which the server's last list, `listed`, no longer holds: its table is not made again at
/// the next start.
pub fn forget_finished<'a>(
    parts: &ServerParts,
    source: CorrespondenceSource,
    games: impl Iterator<Item = (String, &'a MailTable)>,
    listed: &[String],
) {
    let state_dir = &parts.config.state_dir;
    for (id, table) in games {
        if listed.contains(&id) || !table.view.borrow().game.is_over() {
            continue;
        }
        // Its call's mark, if any, stays while the table does: cleared, an end of his own (a
        // resignation) would be due again against the last list.
        if marks::forget_game(state_dir, source, &id) {
            tracing::info!(table = %table.handle.name, "a finished server game the server no longer lists: not made again at the next start");
        }
    }
}

/// The table's side of a server game, for the pure decisions (`correspondence::server_call`).
pub fn at_table(view: &DeskView) -> server_call::AtTable<'_> {
    server_call::AtTable {
        game: &view.game,
        me: view.peg_side,
        released_plies: view.released_plies,
        draw_offer: view.draw_offer,
    }
}

/// The mark of `call` about to be made at the table of `view`: his move in English SAN, and
/// his message when it goes with this call (`with_message`: the server carries messages).
pub fn mark_of(view: &DeskView, call: &server_call::Call, with_message: bool) -> Option<OutMark> {
    let san = match call.his_move {
        Some(_) => xfcc_sync::san_at(view, call.ply)?,
        None => String::new(),
    };
    let start = view.game.position_before(0)?.turn();
    let message = view
        .my_message
        .as_ref()
        .filter(|(at, _)| {
            with_message && server_call::carries_message(*at, view.peg_side, start, call.ply)
        })
        .map(|(_, text)| text.clone())
        .unwrap_or_default();
    Some(OutMark::sending(call, san, message))
}

/// Words for the blind player from the voice of table `lang` (`key`'s template filled).
pub fn words(lang: &Language, key: &str, args: &[(&str, &str)]) -> String {
    let template = lang.vocabulary().event(key).unwrap_or(key);
    crate::chess::vocabulary::fill(template, args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::correspondence::xfcc::{RESULT_CODES, ResultCode};

    /// Every result code, and the server's own words, are said in each language.
    #[test]
    fn every_result_code_is_told_in_every_language() {
        let mut codes: Vec<ResultCode> = RESULT_CODES.iter().map(|(_, c)| c.clone()).collect();
        codes.push(ResultCode::Unknown("GameIsOnFire".to_owned()));
        for code in Language::builtin_codes() {
            let lang = Language::builtin(code).unwrap();
            for c in &codes {
                let said = words(lang, c.voice_key(), &[("game", "G"), ("code", c.text())]);
                assert!(!said.contains('{') && said.contains('G'), "{code}: {said}");
                assert_ne!(
                    said,
                    c.voice_key(),
                    "{code}: {} has no words",
                    c.voice_key()
                );
            }
            for key in [
                "server_unreachable",
                "server_back",
                "server_message",
                "server_game_state",
            ] {
                assert!(lang.vocabulary().event(key).is_some(), "{code}: {key}");
            }
        }
    }

    /// A server game's table is a correspondence table of its source, on the desk's board.
    #[test]
    fn a_server_game_is_a_valid_correspondence_table() {
        let game = ServerGame {
            source: CorrespondenceSource::Xfcc,
            id: "4711".to_owned(),
            name: "xfcc-4711".to_owned(),
            peg_side: shakmaty::Color::Black,
            white: "Carol\nKing".to_owned(),
            black: "Anna".to_owned(),
            event: "WS/M/1234".to_owned(),
            site: String::new(),
        };
        let tc = game.table_config().unwrap();
        assert_eq!(tc.name.as_str(), "xfcc-4711");
        assert_eq!(tc.peg_side, shakmaty::Color::Black);
        assert!(matches!(
            tc.kind,
            TableKind::Correspondence {
                source: CorrespondenceSource::Xfcc,
                ..
            }
        ));
        assert!(tc.tags.iter().any(|(_, v)| v == "CarolKing"));
    }
}
