//! The game lichess plays at the table: started when the event stream says `gameStart` (a
//! game the Board API may play, in the table's colour), its stream's lines applied by
//! rebuilding from the whole move list each time (`correspondence::lichess::rebuild`): the
//! server's new moves are played into the table as the opponent's (journaled, announced and
//! guided on the peg board as any opponent's move), the blind player's move the server lacks
//! is sent once, the clocks follow the server's, the opponent's offer and absence are told,
//! and the server's end of the game is the table's.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::streams::{self, Incoming};
use super::{LiveTable, Posted, ServerGame};
use crate::io::http_client::{HttpError, HttpRequest};
use crate::table::control::{GameTag, Role, TableRequest};
use crate::table::reply::Answer;
use annabella_chess::game::GameResult;
use annabella_correspondence::lichess::lines::{EventLine, GameFull, GameInfo, GameLine, Status};
use annabella_correspondence::lichess::rebuild::{Outgoing, rebuild};
use annabella_correspondence::lichess::speed::LiveControl;

/// A clock differing from the server's by less than this is left alone (the journal would
/// otherwise get an adjustment at every line).
const CLOCK_SLACK_MS: i64 = 500;

impl LiveTable {
    /// A line of the account's event stream.
    pub(super) async fn event_line(&mut self, line: EventLine) {
        match line {
            EventLine::GameStart { game } => self.game_start(game),
            EventLine::ChallengeDeclined { challenge } => {
                let user = challenge
                    .dest_user
                    .map(|u| u.name.unwrap_or(u.id))
                    .unwrap_or_default();
                self.voice
                    .say("lichess_challenge_declined", &[("user", &user)]);
            }
            _ => {}
        }
    }

    /// `gameStart`: the game's stream is opened (again after a restart: the event stream
    /// names every game still going when it opens).
    fn game_start(&mut self, game: GameInfo) {
        if self.game.as_ref().is_some_and(|g| g.id == game.game_id) {
            return;
        }
        // The event stream names every game of the account when it opens: a correspondence
        // game is the desk's (`app::server_desk::lichess`), and a second live game (begun on
        // the website) must not take the table from the game he is playing.
        if game.speed.as_deref() == Some("correspondence") {
            tracing::debug!(target: "annabella::app::lichess", game = %game.game_id, "a correspondence game: the desk's");
            return;
        }
        if let Some(current) = &self.game {
            tracing::info!(target: "annabella::app::lichess", game = %game.game_id, playing = %current.id, "another lichess game began; this table keeps its own");
            return;
        }
        if !game.board_compatible() || game.color() != Some(self.peg_side) {
            tracing::warn!(target: "annabella::app::lichess", game = %game.game_id, color = ?game.color, "a lichess game this table cannot play");
            self.voice.say("lichess_game_not_playable", &[]);
            return;
        }
        if let Some(old) = self.game.take() {
            old.stream.abort();
        }
        let reopen = Arc::new(tokio::sync::Notify::new());
        let task = tokio::spawn(streams::game_stream(
            self.client.clone(),
            game.game_id.clone(),
            self.incoming.clone(),
            Arc::clone(&reopen),
        ));
        self.game = Some(ServerGame {
            id: game.game_id,
            state: Default::default(),
            gone: None,
            confirmed: None,
            in_flight: None,
            awaiting_full: false,
            refused: None,
            retry_at: None,
            reopen,
            stream: task.abort_handle(),
            begun: false,
        });
    }

    /// A line of the game's stream.
    pub(super) async fn game_line(&mut self, id: &str, line: GameLine) {
        let Some(game) = self.game.as_mut().filter(|g| g.id == id) else {
            return;
        };
        match line {
            GameLine::GameFull(full) => {
                // A fresh whole state: a move whose fate was unknown is decided by it.
                let offered_before = game.state.offers_draw(!self.peg_side);
                game.state = full.state.clone();
                game.awaiting_full = false;
                if !game.begun {
                    if !self.begin(&full).await {
                        self.end_game();
                        return;
                    }
                    if let Some(g) = self.game.as_mut() {
                        g.begun = true;
                    }
                }
                self.after_state(offered_before).await;
            }
            GameLine::GameState(state) => {
                let offered_before = game.state.offers_draw(!self.peg_side);
                game.state = state;
                self.after_state(offered_before).await;
            }
            GameLine::OpponentGone {
                gone,
                claim_win_in_seconds,
            } => self.opponent_gone(gone, claim_win_in_seconds.unwrap_or(0)),
            GameLine::Other => {}
        }
    }

    /// The table brought to the server's state: moves, the opponent's offer, the clocks, the
    /// end.
    async fn after_state(&mut self, offered_before: bool) {
        let in_step = self.sync().await;
        let Some(game) = &self.game else {
            return;
        };
        let opponent = !self.peg_side;
        let status = game.state.status();
        if status == Status::Running && game.state.offers_draw(opponent) && !offered_before {
            self.ask(Role::Player(opponent), TableRequest::OfferDraw)
                .await;
        }
        if in_step {
            self.follow_clocks().await;
        }
        if status != Status::Running {
            self.server_ended(status).await;
        }
    }

    /// The table's game begun for the server's: its id and players, or the same game found
    /// after a restart. `false`: the table cannot take it (a game of its own is going on).
    async fn begin(&mut self, full: &GameFull) -> bool {
        if !full.standard() {
            self.voice.say("lichess_game_not_playable", &[]);
            return false;
        }
        let Some(Answer::View(view)) = self.ask(Role::Arbiter, TableRequest::View).await else {
            return false;
        };
        if view.game_id.as_deref() == Some(full.id.as_str()) {
            return true;
        }
        let started = if view.ply == 0 {
            let tag = TableRequest::Tag {
                tag: GameTag::GameId,
                value: full.id.clone(),
            };
            self.ask(Role::Arbiter, tag).await
        } else {
            let new = TableRequest::NewGame {
                fen: None,
                game_id: Some(full.id.clone()),
            };
            self.ask(Role::Arbiter, new).await
        };
        if started.is_none() {
            self.voice.say("lichess_game_not_playable", &[]);
            return false;
        }
        let name = |c: shakmaty::Color| {
            let p = full.player(c);
            match (&p.name, p.ai_level) {
                (Some(name), _) => name.clone(),
                (None, Some(level)) => format!("Stockfish {level}"),
                (None, None) => p.id.clone().unwrap_or_else(|| "lichess".to_owned()),
            }
        };
        for (tag, color) in [
            (GameTag::White, shakmaty::Color::White),
            (GameTag::Black, shakmaty::Color::Black),
        ] {
            let value = name(color);
            self.ask(Role::Arbiter, TableRequest::Tag { tag, value })
                .await;
        }
        self.announce_start(full, &name(!self.peg_side));
        true
    }

    /// "Game on lichess against Bob, rating 1500, 15 minutes plus 10 seconds. You play white."
    fn announce_start(&self, full: &GameFull, opponent: &str) {
        let rating = full
            .player(!self.peg_side)
            .rating
            .map_or_else(String::new, |r| r.to_string());
        let control = full.clock.map_or_else(String::new, |c| {
            self.control_words(LiveControl {
                minutes: (c.initial / 60_000) as u32,
                increment_s: (c.increment / 1000) as u32,
            })
        });
        let color = self.lang.vocabulary().color(self.peg_side).to_owned();
        self.voice.say(
            "lichess_game_started",
            &[
                ("opponent", opponent),
                ("rating", &rating),
                ("control", &control),
                ("color", &color),
            ],
        );
    }

    /// Brings the table to the server's move list; `true` when both then hold the same moves.
    pub(super) async fn sync(&mut self) -> bool {
        // A confirmed move lichess's list now shows needs no guard any more.
        if let Some(g) = self.game.as_mut()
            && g.confirmed
                .is_some_and(|ply| g.state.move_list().len() > ply)
        {
            g.confirmed = None;
        }
        let Some(game) = self.game.as_ref().filter(|g| g.begun) else {
            return false;
        };
        let server: Vec<String> = game
            .state
            .move_list()
            .iter()
            .map(|m| m.to_string())
            .collect();
        let Some(Answer::View(view)) = self.ask(Role::Arbiter, TableRequest::View).await else {
            return false;
        };
        if view.game_id.as_deref() != Some(game.id.as_str()) {
            return false;
        }
        let table: Vec<&str> = view.moves.iter().map(String::as_str).collect();
        let server_refs: Vec<&str> = server.iter().map(String::as_str).collect();
        let plan = match rebuild(&table, &server_refs, self.peg_side) {
            Ok(plan) => plan,
            Err(e) => {
                tracing::warn!(target: "annabella::app::lichess", game = %game.id, "{e}");
                return false;
            }
        };
        if let Some(out) = plan.send {
            let refused = game.refused == Some(out.ply);
            if refused {
                self.refused_move(&out, view.last_move.as_ref().map(|m| m.words.clone()))
                    .await;
            } else {
                self.send_move(out);
            }
            return false;
        }
        if let Some(g) = self.game.as_mut() {
            g.refused = None;
        }
        for _ in 0..plan.take_back {
            self.ask(Role::Arbiter, TableRequest::Undo).await;
        }
        for (color, uci) in plan.play {
            self.ask(Role::Player(color), TableRequest::Move { text: uci })
                .await;
        }
        true
    }

    /// His move lichess refused and does not have: told, and taken back on the table (his
    /// peg board is then guided back like any withdrawn move).
    async fn refused_move(&mut self, out: &Outgoing, words: Option<String>) {
        if let Some(g) = self.game.as_mut() {
            g.refused = None;
        }
        let words = words.unwrap_or_else(|| out.uci.clone());
        self.voice.say("lichess_move_refused", &[("move", &words)]);
        self.ask(Role::Arbiter, TableRequest::Undo).await;
    }

    /// Sends his move, unless it is on its way, lichess has it, or lichess asked to wait.
    fn send_move(&mut self, out: Outgoing) {
        let Some(game) = self.game.as_mut() else {
            return;
        };
        let waiting = game.in_flight.is_some() || game.awaiting_full || game.retry_at.is_some();
        if waiting || game.confirmed == Some(out.ply) {
            return;
        }
        game.in_flight = Some(out.ply);
        let path = format!("/api/board/game/{}/move/{}", game.id, out.uci);
        let (client, tx) = (self.client.clone(), self.incoming.clone());
        let ply = out.ply;
        tokio::spawn(async move {
            let result = client
                .request(HttpRequest::post_form(path, Vec::new()))
                .await
                .map(|_| ());
            tx.send(Incoming::Posted(Posted::Move { ply, result }))
                .await
                .ok();
        });
    }

    /// His move's answer: taken (never sent again), to send again after lichess's pause,
    /// refused, or unknown (the game's stream opened again decides from a fresh `gameFull`).
    pub(super) async fn move_posted(&mut self, ply: usize, result: Result<(), HttpError>) {
        let Some(game) = self.game.as_mut() else {
            return;
        };
        match result {
            Ok(()) => {
                game.in_flight = None;
                game.confirmed = Some(ply);
            }
            Err(HttpError::RateLimited { wait }) => {
                game.in_flight = None;
                game.retry_at = Some(Instant::now() + wait);
                self.say_wait(wait);
            }
            Err(e) => {
                tracing::info!(target: "annabella::app::lichess", ply, "lichess took no move: {e}");
                game.in_flight = None;
                game.awaiting_full = true;
                if let HttpError::Status { status: 400, .. } = e {
                    game.refused = Some(ply);
                }
                game.reopen.notify_one();
            }
        }
    }

    /// The table's clocks set to the server's (`wtime`, `btime`: at the last change).
    async fn follow_clocks(&mut self) {
        let Some(game) = &self.game else {
            return;
        };
        let state = game.state.clone();
        let Some(Answer::Clock {
            white_ms, black_ms, ..
        }) = self.ask(Role::Arbiter, TableRequest::ClockQuiet).await
        else {
            return;
        };
        for (color, table_ms) in [
            (shakmaty::Color::White, white_ms),
            (shakmaty::Color::Black, black_ms),
        ] {
            let delta_ms = state.time_ms(color) as i64 - table_ms as i64;
            if delta_ms.abs() >= CLOCK_SLACK_MS {
                self.ask(Role::Arbiter, TableRequest::Adjust { color, delta_ms })
                    .await;
            }
        }
    }

    /// The opponent has left (with the seconds until the win may be claimed) or is back.
    fn opponent_gone(&mut self, gone: bool, claim_s: u64) {
        let Some(game) = self.game.as_mut() else {
            return;
        };
        let was_gone = game.gone.is_some();
        if !gone {
            game.gone = None;
            if was_gone {
                self.voice.say("lichess_opponent_back", &[]);
            }
            return;
        }
        game.gone = Some(Instant::now() + Duration::from_secs(claim_s));
        if claim_s == 0 {
            self.voice.say("lichess_opponent_gone_claim_now", &[]);
        } else if !was_gone {
            let time =
                annabella_chess::phrases::duration_phrase(claim_s * 1000, self.lang.vocabulary());
            self.voice.say("lichess_opponent_gone", &[("time", &time)]);
        }
    }

    /// lichess ended the game: an end the table cannot see on the board (resignation, time,
    /// agreement, a claimed win) is declared on it; the game's stream is closed.
    async fn server_ended(&mut self, status: Status) {
        let winner = self.game.as_ref().and_then(|g| g.state.winner());
        let result = winner.map_or(GameResult::Draw, GameResult::win_for);
        if status == Status::Aborted {
            self.aborted().await;
            return;
        }
        if status != Status::OnTheBoard {
            let over = self.ask(Role::Arbiter, TableRequest::View).await;
            let running = matches!(&over, Some(Answer::View(v)) if v.result == "*");
            if running {
                self.ask(Role::Arbiter, TableRequest::Result { result })
                    .await;
            }
        }
        self.end_game();
    }

    /// lichess aborted the game (a player did not move in time): it never counted, so the
    /// table takes its moves back and is ready for the next game.
    async fn aborted(&mut self) {
        self.voice.say("lichess_game_aborted", &[]);
        if let Some(Answer::View(view)) = self.ask(Role::Arbiter, TableRequest::View).await {
            for _ in 0..view.ply {
                self.ask(Role::Arbiter, TableRequest::Undo).await;
            }
        }
        self.end_game();
    }

    /// The game is no longer followed.
    fn end_game(&mut self) {
        if let Some(game) = self.game.take() {
            game.stream.abort();
        }
        self.down.retain(|k| *k != streams::StreamKind::Game);
    }
}
