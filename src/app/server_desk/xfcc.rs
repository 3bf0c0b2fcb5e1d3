//! ICCF's server at the desk (`[xfcc]`): the task that asks `GetMyGames` every `poll_s` (at
//! once when he lists his games with `KL` or turns to a server game), backing off while the
//! server cannot be reached (the wait doubling up to a cap, told once, and told again when it
//! answers), makes a table of each game it lists (`xfcc-<id>` unless a `[[table]]` with
//! `source = "xfcc"` names it) and keeps the list across restarts; what each game's answer
//! means for its table, and his moves sent, are `xfcc_sync`'s.

use std::path::PathBuf;
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

use super::desk_loop::{self, DeskKey, ServerDesk};
use super::marks::{self, KnownGame};
use super::{ServerGame, ServerParts, words};
use crate::app::desk_link::Notice;
use crate::app::mail_desk::MailTable;
use crate::config::{CorrespondenceSource, XfccSettings};
use crate::correspondence::xfcc::{self as soap, Operation, XfccError, XfccGame};
use crate::io::http_client::{HttpClient, HttpError, HttpRequest};

/// The longest wait between calls while the server cannot be reached.
const MAX_BACKOFF: Duration = Duration::from_secs(3600);

/// One server game at the desk.
pub(super) struct XfccTable {
    pub id: i64,
    pub table: MailTable,
    /// The game as the server listed it last (`None` before the first answer).
    pub last: Option<XfccGame>,
    /// The opponent's message already recorded at the table.
    pub message: String,
    /// The server's list of it changed since the last look for his moves.
    pub dirty: bool,
}

/// The XFCC desk's state.
pub struct XfccDesk {
    pub(super) parts: ServerParts,
    client: HttpClient,
    user: String,
    password: String,
    poll: Duration,
    pub(super) games: Vec<XfccTable>,
    /// The server games' tables' actors, joined at shutdown.
    tables: JoinSet<()>,
    /// `[[table]]`s with `source = "xfcc"`: (game id, table name).
    configured: Vec<(String, String)>,
    pub(super) out_dir: PathBuf,
    /// The present wait while the server fails (`None`: it answers).
    backoff: Option<Duration>,
    /// Where each table's forwarder passes his `KC`; the loop takes the receiver.
    keys: mpsc::Sender<DeskKey>,
    keys_in: Option<mpsc::Receiver<DeskKey>>,
}

/// Why a call has no answer to read.
#[derive(Debug)]
pub(super) struct CallFailed(pub String);

impl XfccDesk {
    /// Calls `op` with `envelope`; the answer's text (a SOAP fault comes with status 500 and
    /// is an answer too).
    pub(super) async fn call(&self, op: Operation, envelope: String) -> Result<String, CallFailed> {
        let request = HttpRequest::post_raw("", soap::CONTENT_TYPE, envelope.into_bytes())
            .header("SOAPAction", op.soap_action());
        match self.client.request(request).await {
            Ok(answer) => Ok(String::from_utf8_lossy(&answer.body).into_owned()),
            Err(HttpError::Status { status: 500, body }) => Ok(body),
            Err(e) => Err(CallFailed(e.to_string())),
        }
    }

    pub(super) fn envelope_move(&self, call: &soap::MoveCall) -> String {
        soap::make_a_move(&self.user, &self.password, call)
    }

    /// Says `key`'s words about game `i` to the blind player through the desk.
    pub(super) async fn tell(&self, i: usize, key: &str, args: &[(&str, &str)]) {
        let Some(g) = self.games.get(i) else { return };
        let text = words(g.table.lang, key, args);
        tracing::info!(table = %g.table.handle.name, key, "{text}");
        self.parts
            .notices
            .send(Notice::Say(g.table.index, text))
            .await
            .ok();
    }

    /// Makes the table of game `id` (first listed now or in an earlier run); its index.
    async fn ensure(&mut self, known: KnownGame) -> Option<usize> {
        let id: i64 = known.id.parse().ok()?;
        if let Some(i) = self.games.iter().position(|g| g.id == id) {
            return Some(i);
        }
        let name = self
            .configured
            .iter()
            .find(|(gid, _)| *gid == known.id)
            .map_or_else(|| format!("xfcc-{id}"), |(_, n)| n.clone());
        let game = ServerGame {
            source: CorrespondenceSource::Xfcc,
            id: known.id.clone(),
            name: name.clone(),
            peg_side: known.peg_side,
            white: known.white.clone(),
            black: known.black.clone(),
            event: known.event.clone(),
            site: known.site.clone(),
        };
        let tc = match game.table_config() {
            Ok(tc) => tc,
            Err(e) => {
                tracing::warn!(game = id, error = %e, "a server game's table cannot be made");
                return None;
            }
        };
        let table = match self.parts.wire(&mut self.tables, &tc).await {
            Ok(t) => t,
            Err(e) => {
                tracing::error!(game = id, error = %e, "a server game's table did not start");
                return None;
            }
        };
        tracing::info!(table = %name, game = id, "a server game at the desk");
        self.forward_keys(&table);
        marks::remember_game(&self.parts.config.state_dir, &known);
        self.games.push(XfccTable {
            id,
            table,
            last: None,
            message: String::new(),
            dirty: false,
        });
        Some(self.games.len() - 1)
    }

    /// The tables of every game known from the configuration and the last run: before the
    /// server is asked, which may be unreachable.
    async fn restore(&mut self, configured: Vec<MailTable>) {
        for table in configured {
            let Ok(id) = table.game_id.as_str().parse() else {
                tracing::warn!(table = %table.handle.name, "source = \"xfcc\" needs a numeric game_id");
                continue;
            };
            self.forward_keys(&table);
            self.games.push(XfccTable {
                id,
                table,
                last: None,
                message: String::new(),
                dirty: false,
            });
        }
        let path = marks::games_file(&self.parts.config.state_dir);
        let known: Vec<KnownGame> = marks::read_games(&path)
            .into_iter()
            .filter(|k| k.source == CorrespondenceSource::Xfcc)
            .collect();
        for k in known {
            self.ensure(k).await;
        }
    }

    /// One `GetMyGames`: each game's table made or found and brought in step. False when the
    /// server did not answer with the list.
    async fn poll(&mut self) -> bool {
        let envelope = soap::get_my_games(&self.user, &self.password);
        let games = match self.call(Operation::GetMyGames, envelope).await {
            Ok(text) => soap::parse_my_games(&text).map_err(|e| match e {
                XfccError::Fault {
                    code: Some(code), ..
                } => (code.text().to_owned(), Some(code)),
                other => (other.to_string(), None),
            }),
            Err(CallFailed(why)) => Err((why, None)),
        };
        let games = match games {
            Ok(games) => games,
            Err((why, code)) => {
                self.failed(&why, code).await;
                return false;
            }
        };
        if self.backoff.take().is_some() {
            tracing::info!("the XFCC server answers again");
            self.tell_all("server_back").await;
        }
        let listed: Vec<String> = games.iter().map(|g| g.id.to_string()).collect();
        for game in games {
            let known = KnownGame {
                source: CorrespondenceSource::Xfcc,
                id: game.id.to_string(),
                peg_side: if game.has_white {
                    shakmaty::Color::White
                } else {
                    shakmaty::Color::Black
                },
                white: game.white.clone(),
                black: game.black.clone(),
                event: game.event.clone(),
                site: game.site.clone(),
            };
            if let Some(i) = self.ensure(known).await {
                self.sync(i, game).await;
            }
        }
        let games = self.games.iter().map(|g| (g.id.to_string(), &g.table));
        super::forget_finished(&self.parts, CorrespondenceSource::Xfcc, games, &listed);
        true
    }

    /// The server did not answer: the wait doubles (capped); told once until it answers.
    async fn failed(&mut self, why: &str, code: Option<soap::ResultCode>) {
        let first = self.backoff.is_none();
        let next = match self.backoff {
            None => self.poll.saturating_mul(2),
            Some(wait) => wait.saturating_mul(2),
        };
        let cap = MAX_BACKOFF.max(self.poll);
        self.backoff = Some(next.min(cap));
        tracing::warn!(
            why,
            wait_s = next.min(cap).as_secs(),
            "the XFCC server did not answer"
        );
        if first {
            // A refusal with its code (the password refused) is told as such.
            match code {
                Some(code) => {
                    let args = [("game", "ICCF"), ("code", code.text())];
                    super::tell_server(&self.parts, self.first(), code.voice_key(), &args).await
                }
                None => self.tell_all("server_unreachable").await,
            }
        }
    }

    /// His `KC` at `table` comes to the desk (the server judges claims).
    fn forward_keys(&mut self, table: &MailTable) {
        let shutdown = self.parts.shutdown.clone();
        desk_loop::forward_keys(&mut self.tables, &table.handle, self.keys.clone(), shutdown);
    }

    fn first(&self) -> Option<&MailTable> {
        self.games.first().map(|g| &g.table)
    }

    /// Words about the server itself, said once (at the first server game's voice).
    async fn tell_all(&self, key: &str) {
        super::tell_server(&self.parts, self.first(), key, &[("server", "ICCF")]).await;
    }
}

/// The XFCC desk with the tables of every game known (configured or from the last run)
/// wired, before the daemon says it is ready and before the server is asked; `None` when the
/// url cannot be used (logged).
pub async fn prepare(
    parts: ServerParts,
    settings: &XfccSettings,
    password: String,
    configured: Vec<MailTable>,
) -> Option<XfccDesk> {
    let client = match HttpClient::new(&settings.url, None) {
        Ok(c) => c,
        Err(e) => {
            tracing::error!(url = %settings.url, error = %e, "[xfcc] url: no server games");
            return None;
        }
    };
    let state_dir = parts.config.state_dir.clone();
    let (keys, keys_in) = desk_loop::key_channel();
    let mut desk = XfccDesk {
        keys,
        keys_in: Some(keys_in),
        configured: super::configured(&parts.config, CorrespondenceSource::Xfcc),
        parts,
        client,
        user: settings.user.clone(),
        password,
        poll: settings.poll,
        games: Vec::new(),
        tables: JoinSet::new(),
        out_dir: marks::out_dir(&state_dir),
        backoff: None,
    };
    desk.restore(configured).await;
    Some(desk)
}

impl ServerDesk for XfccDesk {
    async fn poll(&mut self) {
        XfccDesk::poll(self).await;
    }

    fn wait(&self) -> Duration {
        self.backoff.unwrap_or(self.poll)
    }

    fn failing(&self) -> bool {
        self.backoff.is_some()
    }

    async fn send_due(&mut self) {
        XfccDesk::send_due(self).await;
    }

    async fn key(&mut self, table: &str, key: crate::boards::BoardKey) {
        if key == crate::boards::BoardKey::Claim {
            self.claim(table).await;
        }
    }

    fn shutdown(&self) -> watch::Receiver<bool> {
        self.parts.shutdown.clone()
    }

    fn tasks(&mut self) -> &mut JoinSet<()> {
        &mut self.tables
    }
}

/// Runs the XFCC desk until shutdown; its tables' actors are joined before it ends.
pub async fn run(mut desk: XfccDesk, poke: watch::Receiver<u64>) {
    let keys = desk
        .keys_in
        .take()
        .unwrap_or_else(|| desk_loop::key_channel().1);
    desk_loop::run(desk, poke, keys).await;
}
