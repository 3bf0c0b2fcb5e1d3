//! lichess correspondence games at the desk (`[lichess]`): `GET /api/account/playing` every
//! `poll_s` (at once on `KL`, `KG`, `focus`), backing off while it fails; each game whose
//! speed is correspondence a table (`lichess-<gameId>` unless a `[[table]]` with
//! `source = "lichess"` names it), brought in step from the whole move list of the first line
//! of its stream (`gameFull`; the stream is closed after it). His moves, released with `KS`, go
//! out as `POST /api/board/game/{id}/move/{uci}` (his draw offer with it), his acceptance of a
//! draw as `…/draw/yes`, his resignation as `…/resign`, each exactly once: marked before the
//! call (`marks::OutMark`), and after a failure or a restart the next `gameFull` decides.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use shakmaty::uci::UciMove;
use shakmaty::{Move, Position};
use tokio::sync::watch;
use tokio::task::JoinSet;

use super::desk_loop::{self, ServerDesk};
use super::lichess_api::{self as api, GameFull, PlayingGame, Side};
use super::marks::{self, CallState, KnownGame, OutMark};
use super::xfcc_sync::position_before;
use super::{ServerGame, ServerParts, words};
use crate::app::desk_link::Notice;
use crate::app::mail_desk::MailTable;
use crate::chess::game::GameResult as Outcome;
use crate::chess::language::Language;
use crate::config::{CorrespondenceSource, LichessSettings};
use crate::correspondence::server_call::{self, AtServer, Decision};
use crate::io::clock::unix_ms;
use crate::io::http_client::{HttpClient, HttpRequest, StreamLine};
use crate::table::control::{Role, TableRequest};
use crate::table::state::DeskView;

/// The longest wait between calls while lichess cannot be reached.
const MAX_BACKOFF: Duration = Duration::from_secs(3600);
/// How long the first line of a game's stream may take.
const FIRST_LINE: Duration = Duration::from_secs(20);

struct LichessTable {
    id: String,
    table: MailTable,
    /// The game as lichess gave it last (`None` before the first answer in this run).
    last: Option<GameFull>,
    my_turn: bool,
    dirty: bool,
}

/// The lichess desk's state.
pub struct LichessDesk {
    parts: ServerParts,
    client: HttpClient,
    poll: Duration,
    games: Vec<LichessTable>,
    tables: JoinSet<()>,
    configured: Vec<(String, String)>,
    out_dir: PathBuf,
    backoff: Option<Duration>,
    /// Where each table's forwarder passes his `KC`; the loop takes the receiver.
    keys: tokio::sync::mpsc::Sender<desk_loop::DeskKey>,
    keys_in: Option<tokio::sync::mpsc::Receiver<desk_loop::DeskKey>>,
}

impl LichessDesk {
    async fn tell(&self, i: usize, key: &str, args: &[(&str, &str)]) {
        let Some(g) = self.games.get(i) else { return };
        let text = words(g.table.lang, key, args);
        tracing::info!(table = %g.table.handle.name, key, "{text}");
        self.parts
            .notices
            .send(Notice::Say(g.table.index, text))
            .await
            .ok();
    }

    async fn ensure(&mut self, known: KnownGame) -> Option<usize> {
        if let Some(i) = self.games.iter().position(|g| g.id == known.id) {
            return Some(i);
        }
        if !api::safe_id(&known.id) {
            return None;
        }
        let name = self
            .configured
            .iter()
            .find(|(gid, _)| *gid == known.id)
            .map_or_else(|| format!("lichess-{}", known.id), |(_, n)| n.clone());
        let game = ServerGame {
            source: CorrespondenceSource::Lichess,
            id: known.id.clone(),
            name: name.clone(),
            peg_side: known.peg_side,
            white: known.white.clone(),
            black: known.black.clone(),
            event: known.event.clone(),
            site: known.site.clone(),
        };
        let tc = game
            .table_config()
            .map_err(|e| tracing::warn!(game = %known.id, error = %e, "a lichess game's table cannot be made"))
            .ok()?;
        let table = self
            .parts
            .wire(&mut self.tables, &tc)
            .await
            .map_err(|e| tracing::error!(game = %known.id, error = %e, "a lichess game's table did not start"))
            .ok()?;
        tracing::info!(table = %name, "a lichess game at the desk");
        self.forward_keys(&table);
        marks::remember_game(&self.parts.config.state_dir, &known);
        self.games.push(LichessTable {
            id: known.id,
            table,
            last: None,
            my_turn: false,
            dirty: false,
        });
        Some(self.games.len() - 1)
    }

    /// His `KC` at `table` comes to the desk.
    fn forward_keys(&mut self, table: &MailTable) {
        let shutdown = self.parts.shutdown.clone();
        desk_loop::forward_keys(&mut self.tables, &table.handle, self.keys.clone(), shutdown);
    }

    async fn restore(&mut self, configured: Vec<MailTable>) {
        for table in configured {
            self.forward_keys(&table);
            let id = table.game_id.as_str().to_owned();
            self.games.push(LichessTable {
                id,
                table,
                last: None,
                my_turn: false,
                dirty: false,
            });
        }
        let path = marks::games_file(&self.parts.config.state_dir);
        let known: Vec<KnownGame> = marks::read_games(&path)
            .into_iter()
            .filter(|k| k.source == CorrespondenceSource::Lichess)
            .collect();
        for k in known {
            self.ensure(k).await;
        }
    }

    /// The first line of game `id`'s stream; the stream is dropped (closed) after it.
    async fn game_full(&self, id: &str) -> Result<GameFull, String> {
        let mut stream = self
            .client
            .open_stream(HttpRequest::get(api::stream_path(id)))
            .await
            .map_err(|e| e.to_string())?;
        loop {
            match stream.next(FIRST_LINE).await.map_err(|e| e.to_string())? {
                Some(StreamLine::KeepAlive) => continue,
                Some(StreamLine::Json(line)) => return api::game_full(&line),
                None => return Err("the stream closed before its first line".to_owned()),
            }
        }
    }

    async fn poll(&mut self) -> bool {
        let playing = match self
            .client
            .request(HttpRequest::get("/api/account/playing"))
            .await
        {
            Ok(answer) => serde_json::from_slice::<api::Playing>(&answer.body)
                .map_err(|e| format!("the playing list does not read: {e}")),
            Err(e) => Err(e.to_string()),
        };
        let playing = match playing {
            Ok(p) => p,
            Err(why) => return self.failed(&why).await,
        };
        let mut failed = None;
        let listed_ids: Vec<String> = playing
            .now_playing
            .iter()
            .map(|g| g.game_id.clone())
            .collect();
        for game in playing
            .now_playing
            .into_iter()
            .filter(PlayingGame::is_desk_game)
        {
            let full = match self.game_full(&game.game_id).await {
                Ok(f) => f,
                Err(why) => {
                    failed = Some(why);
                    continue;
                }
            };
            let known = KnownGame {
                source: CorrespondenceSource::Lichess,
                id: game.game_id.clone(),
                peg_side: game.peg_side(),
                white: Side::label(&full.white),
                black: Side::label(&full.black),
                event: "lichess".to_owned(),
                site: "lichess.org".to_owned(),
            };
            if let Some(i) = self.ensure(known).await {
                self.games[i].my_turn = game.is_my_turn;
                self.sync(i, full, &game).await;
            }
        }
        // A game no longer listed (finished) is looked at until its end is recorded and his
        // last call (his resignation, say) decided.
        for i in 0..self.games.len() {
            let listed = listed_ids.contains(&self.games[i].id);
            let over = self.games[i].table.view.borrow().game.is_over();
            let marked = OutMark::read(&self.out_dir, &self.games[i].table.handle.name).is_some();
            if listed || (over && !marked) || self.games[i].last.is_none() {
                continue;
            }
            match self.game_full(&self.games[i].id.clone()).await {
                Ok(full) => {
                    self.games[i].my_turn = false;
                    let gone = PlayingGame {
                        game_id: self.games[i].id.clone(),
                        color: String::new(),
                        is_my_turn: false,
                        seconds_left: None,
                        speed: "correspondence".to_owned(),
                        variant: None,
                    };
                    self.sync(i, full, &gone).await;
                }
                Err(why) => failed = Some(why),
            }
        }
        if let Some(why) = failed {
            return self.failed(&why).await;
        }
        let games = self.games.iter().map(|g| (g.id.clone(), &g.table));
        super::forget_finished(
            &self.parts,
            CorrespondenceSource::Lichess,
            games,
            &listed_ids,
        );
        if self.backoff.take().is_some() {
            self.tell_all("server_back").await;
        }
        true
    }

    async fn failed(&mut self, why: &str) -> bool {
        let first = self.backoff.is_none();
        let next = self
            .backoff
            .unwrap_or(self.poll)
            .saturating_mul(2)
            .min(MAX_BACKOFF.max(self.poll));
        self.backoff = Some(next);
        tracing::warn!(why, wait_s = next.as_secs(), "lichess did not answer");
        if first {
            self.tell_all("server_unreachable").await;
        }
        false
    }

    async fn tell_all(&self, key: &str) {
        let first = self.games.first().map(|g| &g.table);
        super::tell_server(&self.parts, first, key, &[("server", "lichess")]).await;
    }

    /// Brings table `i` in step with lichess's `full` game.
    async fn sync(&mut self, i: usize, full: GameFull, game: &PlayingGame) {
        let view = Arc::clone(&self.games[i].table.view.borrow());
        let me = view.peg_side;
        let server = full.state.moves();
        self.decide(i, &view, &server, &full).await;
        let local = view.game.moves();
        let common = local
            .iter()
            .zip(&server)
            .take_while(|(a, b)| a == b)
            .count();
        let first_seen = self.games[i].last.is_none();
        let handle = self.games[i].table.handle.clone();
        let mut played = 0;
        if common == local.len() {
            for ply in local.len()..server.len() {
                let pos = position_before(&server, ply);
                if pos.turn() == me {
                    tracing::warn!(game = %self.games[i].id, ply, "his move on lichess was not made at the desk; the table waits");
                    break;
                }
                let text = shakmaty::san::San::from_move(&pos, server[ply]).to_string();
                let request = TableRequest::MailMove {
                    text,
                    arrived_unix_ms: unix_ms(),
                };
                let reply = handle
                    .ask(Role::Player(pos.turn()), Language::english(), request)
                    .await;
                if let Err(refusal) = reply {
                    tracing::warn!(game = %self.games[i].id, ply, why = %refusal.message, "the table did not take lichess's move");
                    break;
                }
                played += 1;
            }
        } else if common < server.len() {
            tracing::warn!(game = %self.games[i].id, common, "the table and lichess disagree; the arbiter decides");
        }
        let lang = Language::english();
        let offered_before = self.games[i]
            .last
            .as_ref()
            .is_some_and(|l| l.state.offers_draw(!me));
        if full.state.offers_draw(!me) && !offered_before && view.draw_offer.is_none() {
            handle
                .ask(Role::Player(!me), lang, TableRequest::OfferDraw)
                .await
                .ok();
        }
        if full.state.is_over() && !view.game.is_over() {
            let result = match full.state.winner() {
                Some(c) => Outcome::win_for(c),
                None => Outcome::Draw,
            };
            handle
                .ask(Role::Arbiter, lang, TableRequest::Result { result })
                .await
                .ok();
        }
        if first_seen || played > 0 {
            // His time from the list (or the game), the opponent's from the game.
            let side_s = |c: shakmaty::Color| full.state.time_ms(c).map(|ms| ms / 1000);
            let days = game.seconds_left.or(side_s(me)).unwrap_or(0).max(0);
            let opponent = (side_s(!me).unwrap_or(0).max(0) / 86_400).to_string();
            let name = handle.name.to_string();
            let (d, h) = (
                (days / 86_400).to_string(),
                (days % 86_400 / 3600).to_string(),
            );
            let t = &self.games[i].table;
            let text = words(
                t.lang,
                "server_game_state",
                &[
                    ("game", &name),
                    ("white", &Side::label(&full.white)),
                    ("black", &Side::label(&full.black)),
                    ("event", "lichess"),
                    ("days", &d),
                    ("hours", &h),
                    ("opponent_days", &opponent),
                ],
            );
            let text = super::with_turn(text, &t.view.borrow());
            tracing::info!(table = %name, "{text}");
            self.parts
                .notices
                .send(Notice::Say(t.index, text))
                .await
                .ok();
        }
        self.games[i].last = Some(full);
        self.games[i].dirty = true;
    }

    /// The new `gameFull` decides the call marked for table `i` (`server_call::decide`).
    async fn decide(&mut self, i: usize, view: &DeskView, server: &[Move], full: &GameFull) {
        let name = self.games[i].table.handle.name.to_string();
        let Some(mark) = OutMark::read(&self.out_dir, &name) else {
            return;
        };
        let at = self.at_server(i, full, server.len());
        match server_call::decide(mark.marked(), view.game.moves(), server, at) {
            // lichess takes no claims of his: a claim's mark cannot be here.
            Decision::Landed | Decision::ClaimNotUpheld => OutMark::clear(&self.out_dir, &name),
            Decision::SendAgain => {
                tracing::info!(table = %name, ply = mark.ply, "lichess does not have his call: sent again");
                self.send(i, view, mark).await;
            }
            Decision::Wait => {}
        }
    }

    /// lichess's side of table `i`'s game as `full` shows it, with `plies` half-moves.
    fn at_server(&self, i: usize, full: &GameFull, plies: usize) -> AtServer {
        let me = self.games[i].table.view.borrow().peg_side;
        AtServer {
            plies,
            my_turn: self.games[i].my_turn,
            over: full.state.is_over(),
            opponent_offers_draw: full.state.offers_draw(!me),
            adjudicating: false,
        }
    }

    async fn send_due(&mut self) {
        for i in 0..self.games.len() {
            let changed = self.games[i].table.view.has_changed().unwrap_or(false);
            if !changed && !std::mem::take(&mut self.games[i].dirty) {
                continue;
            }
            let view = Arc::clone(&self.games[i].table.view.borrow_and_update());
            if let Some(mark) = self.due(i, &view) {
                self.send(i, &view, mark).await;
            }
        }
    }

    /// The call due at table `i` (`server_call::due`), against lichess's last `gameFull`.
    fn due(&self, i: usize, view: &DeskView) -> Option<OutMark> {
        let last = self.games[i].last.as_ref()?;
        let server = self.at_server(i, last, last.state.moves().len());
        let name = &self.games[i].table.handle.name;
        let marked = OutMark::read(&self.out_dir, name).map(|m| m.marked());
        let call = server_call::due(super::at_table(view), server, marked)?;
        // lichess's board API carries no message with a move.
        super::mark_of(view, &call, false)
    }

    /// Marks, then calls; lichess answers 200 `{"ok":true}` or 400 with the reason.
    async fn send(&mut self, i: usize, view: &DeskView, mut mark: OutMark) {
        let name = self.games[i].table.handle.name.to_string();
        let id = self.games[i].id.clone();
        let path = if mark.resign {
            api::resign_path(&id)
        } else if mark.accept_draw {
            api::draw_path(&id, true)
        } else {
            let Some(m) = view.game.moves().get(mark.ply) else {
                return;
            };
            let uci = UciMove::from_standard(*m).to_string();
            api::move_path(&id, &uci, mark.offer_draw)
        };
        if let Err(e) = mark.write(&self.out_dir, &name) {
            tracing::error!(table = %name, error = %e, "the call's mark was not written; not sent");
            return;
        }
        let game = view.spoken_name.clone();
        match self
            .client
            .request(HttpRequest::post_form(path, Vec::new()))
            .await
        {
            Ok(_) => {
                mark.state = CallState::Accepted;
                self.tell(i, "xfcc_result_success", &[("game", &game)])
                    .await;
            }
            Err(crate::io::http_client::HttpError::Status { status: 400, body }) => {
                let why: String = body.chars().take(120).collect();
                tracing::info!(table = %name, why, "lichess refused his call");
                mark.state = CallState::Refused(why.clone());
                self.tell(i, "xfcc_result_unknown", &[("game", &game), ("code", &why)])
                    .await;
            }
            Err(e) => {
                tracing::warn!(table = %name, error = %e, "lichess did not answer the call; the next gameFull decides");
                return;
            }
        }
        if let Err(e) = mark.write(&self.out_dir, &name) {
            tracing::warn!(table = %name, error = %e, "the answer was not marked");
        }
    }
}

/// The lichess desk with the tables of every game known wired (before the daemon is ready).
pub async fn prepare(
    parts: ServerParts,
    settings: &LichessSettings,
    token: String,
    configured: Vec<MailTable>,
) -> Option<LichessDesk> {
    let client = HttpClient::new(&settings.url, Some(token))
        .map_err(
            |e| tracing::error!(url = %settings.url, error = %e, "[lichess] url: no lichess games"),
        )
        .ok()?;
    let state_dir = parts.config.state_dir.clone();
    let (keys, keys_in) = desk_loop::key_channel();
    let mut desk = LichessDesk {
        keys,
        keys_in: Some(keys_in),
        configured: super::configured(&parts.config, CorrespondenceSource::Lichess),
        parts,
        client,
        poll: settings.poll,
        games: Vec::new(),
        tables: JoinSet::new(),
        out_dir: marks::out_dir(&state_dir),
        backoff: None,
    };
    desk.restore(configured).await;
    Some(desk)
}

impl ServerDesk for LichessDesk {
    async fn poll(&mut self) {
        LichessDesk::poll(self).await;
    }

    fn wait(&self) -> Duration {
        self.backoff.unwrap_or(self.poll)
    }

    fn failing(&self) -> bool {
        self.backoff.is_some()
    }

    async fn send_due(&mut self) {
        LichessDesk::send_due(self).await;
    }

    /// `KC`: the Board API takes no claim of a repetition or of the fifty-move rule (only of
    /// an opponent who has left, which a correspondence game does not have), so he hears what
    /// lichess does instead; the table's game goes on, as lichess's does.
    async fn key(&mut self, table: &str, key: crate::boards::BoardKey) {
        if key != crate::boards::BoardKey::Claim {
            return;
        }
        let Some(i) = self
            .games
            .iter()
            .position(|g| &*g.table.handle.name == table)
        else {
            return;
        };
        let game = self.games[i].table.view.borrow().spoken_name.clone();
        self.tell(i, "server_claim_lichess", &[("game", &game)])
            .await;
    }

    fn shutdown(&self) -> watch::Receiver<bool> {
        self.parts.shutdown.clone()
    }

    fn tasks(&mut self) -> &mut JoinSet<()> {
        &mut self.tables
    }
}

/// Runs the lichess desk until shutdown; its tables' actors are joined before it ends.
pub async fn run(mut desk: LichessDesk, poke: watch::Receiver<u64>) {
    let keys = desk
        .keys_in
        .take()
        .unwrap_or_else(|| desk_loop::key_channel().1);
    desk_loop::run(desk, poke, keys).await;
}
