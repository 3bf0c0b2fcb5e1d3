//! One XFCC game brought in step with its table: the server's moves beyond the table played
//! as the opponent (as of the answer), his draw offer, message and the result recorded, what
//! changed told; and his moves, released with `KS`, sent as `MakeAMove` exactly once — the
//! call's mark written before it (`marks::OutMark`), and after a failure or a restart the
//! next `GetMyGames` deciding whether it landed (the server's moves contain it: done; not,
//! and his turn there: sent again).

use std::sync::Arc;

use shakmaty::san::{San, SanPlus};
use shakmaty::{Chess, Color, Move, Position};

use super::marks::{CallState, OutMark};
use super::xfcc::{CallFailed, XfccDesk};
use super::{at_table, mark_of, words};
use crate::chess::game::GameResult as Outcome;
use crate::chess::language::Language;
use crate::chess::phrases::move_count_phrase;
use crate::correspondence::server_call::{self, AtServer, Decision, NoClaim};
use crate::correspondence::xfcc::{self as soap, GameResult, Operation, ResultCode, XfccGame};
use crate::io::clock::unix_ms;
use crate::table::control::{Role, TableRequest};
use crate::table::state::DeskView;

/// The moves of a SAN list played from the standard position, up to the first that does not
/// read (named).
pub(super) fn replay(san: &[String]) -> (Vec<Move>, Option<String>) {
    let mut pos = Chess::default();
    let mut moves = Vec::new();
    for token in san {
        let m = SanPlus::from_ascii(token.as_bytes())
            .ok()
            .and_then(|s| s.san.to_move(&pos).ok());
        let Some(m) = m else {
            return (moves, Some(token.clone()));
        };
        pos.play_unchecked(m);
        moves.push(m);
    }
    (moves, None)
}

/// The position before half-move `ply` of `moves` from the standard position.
pub(super) fn position_before(moves: &[Move], ply: usize) -> Chess {
    let mut pos = Chess::default();
    for m in moves.iter().take(ply) {
        pos.play_unchecked(*m);
    }
    pos
}

/// Half-move `ply` of the game in English SAN.
pub(super) fn san_at(view: &DeskView, ply: usize) -> Option<String> {
    let m = view.game.moves().get(ply)?;
    let pos = view.game.position_before(ply)?;
    Some(San::from_move(&pos, *m).to_string())
}

/// The server's side of game `game` with `plies` half-moves read.
fn at_server(game: &XfccGame, plies: usize) -> AtServer {
    AtServer {
        plies,
        my_turn: game.my_turn,
        over: game.result.as_ref().is_some_and(GameResult::is_over),
        opponent_offers_draw: game.draw_offered,
        adjudicating: matches!(game.result, Some(GameResult::AdjudicationPending)),
    }
}

fn time_words(t: &soap::TimeLeft) -> (String, String) {
    (t.days.to_string(), t.hours.to_string())
}

impl XfccDesk {
    /// Brings table `i` in step with the server's `game`.
    pub(super) async fn sync(&mut self, i: usize, game: XfccGame) {
        let view = Arc::clone(&self.games[i].table.view.borrow());
        let me = view.peg_side;
        let (server, unread) = replay(&game.san());
        if let Some(token) = unread {
            tracing::warn!(
                game = game.id,
                token,
                "a move of the server's game does not read; the moves after it are left"
            );
        }
        self.decide(i, &view, &server, &game).await;
        let local = view.game.moves();
        let common = local
            .iter()
            .zip(&server)
            .take_while(|(a, b)| a == b)
            .count();
        let first_seen = self.games[i].last.is_none();
        let mut played = 0;
        if common == local.len() {
            for ply in local.len()..server.len() {
                let pos = position_before(&server, ply);
                let mover = pos.turn();
                if mover == me {
                    tracing::warn!(
                        game = game.id,
                        ply,
                        "his move on the server was not made at the desk; the table waits"
                    );
                    break;
                }
                let text = San::from_move(&pos, server[ply]).to_string();
                let reply = self.games[i]
                    .table
                    .handle
                    .ask(
                        Role::Player(mover),
                        Language::english(),
                        TableRequest::MailMove {
                            text,
                            arrived_unix_ms: unix_ms(),
                        },
                    )
                    .await;
                if let Err(refusal) = reply {
                    tracing::warn!(game = game.id, ply, why = %refusal.message, "the table did not take the server's move");
                    break;
                }
                played += 1;
            }
        } else if common < server.len() {
            tracing::warn!(
                game = game.id,
                table_plies = local.len(),
                server_plies = server.len(),
                common,
                "the table and the server disagree; the arbiter decides"
            );
        }
        self.record_extras(i, &view, &game, me).await;
        if first_seen || played > 0 {
            self.tell_state(i, &game).await;
        }
        self.games[i].last = Some(game);
        self.games[i].dirty = true;
    }

    /// The opponent's draw offer, his message and the server's result, recorded at the table.
    async fn record_extras(&mut self, i: usize, view: &DeskView, game: &XfccGame, me: Color) {
        let handle = self.games[i].table.handle.clone();
        let lang = Language::english();
        let was_offered = self.games[i].last.as_ref().is_some_and(|l| l.draw_offered);
        if game.draw_offered && game.my_turn && !was_offered && view.draw_offer.is_none() {
            let reply = handle
                .ask(Role::Player(!me), lang, TableRequest::OfferDraw)
                .await;
            tracing::info!(
                game = game.id,
                ok = reply.is_ok(),
                "the opponent's draw offer"
            );
        }
        let message = game.message.trim();
        if !message.is_empty() && self.games[i].message != message {
            let text: String = message
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .take(400)
                .collect();
            handle
                .ask(
                    Role::Arbiter,
                    lang,
                    TableRequest::Comment { text: text.clone() },
                )
                .await
                .ok();
            self.games[i].message = message.to_owned();
            self.tell(i, "server_message", &[("message", &text)]).await;
        }
        let over = view.game.is_over();
        if let Some(result) = game.result.as_ref().filter(|r| r.is_over())
            && !over
        {
            let result = match result.winner() {
                Some(Some(c)) => Outcome::win_for(c),
                Some(None) => Outcome::Draw,
                None => return,
            };
            let reply = handle
                .ask(Role::Arbiter, lang, TableRequest::Result { result })
                .await;
            tracing::info!(
                game = game.id,
                ok = reply.is_ok(),
                ?result,
                "the server's result recorded"
            );
        }
        if matches!(game.result, Some(GameResult::Cancelled)) && !over {
            tracing::info!(game = game.id, "the server cancelled the game");
        }
    }

    /// The game's state from the server: players, event, both sides' time.
    async fn tell_state(&self, i: usize, game: &XfccGame) {
        let (days, hours) = time_words(&game.player);
        let (opponent_days, _) = time_words(&game.opponent);
        let t = &self.games[i].table;
        let name = t.handle.name.to_string();
        let text = words(
            t.lang,
            "server_game_state",
            &[
                ("game", &name),
                ("white", &game.white),
                ("black", &game.black),
                ("event", &game.event),
                ("days", &days),
                ("hours", &hours),
                ("opponent_days", &opponent_days),
            ],
        );
        let text = super::with_turn(text, &t.view.borrow());
        tracing::info!(table = %name, "{text}");
        self.parts
            .notices
            .send(crate::app::desk_link::Notice::Say(t.index, text))
            .await
            .ok();
    }

    /// The list decides the call marked for table `i` (`server_call::decide`): landed — the
    /// mark goes; not answered and still awaited — sent again; a claim taken and the game
    /// going on without a result — not upheld, told.
    async fn decide(&mut self, i: usize, view: &DeskView, server: &[Move], game: &XfccGame) {
        let name = self.games[i].table.handle.name.to_string();
        let Some(mark) = OutMark::read(&self.out_dir, &name) else {
            return;
        };
        let at = at_server(game, server.len());
        match server_call::decide(mark.marked(), view.game.moves(), server, at) {
            Decision::Landed => {
                OutMark::clear(&self.out_dir, &name);
                tracing::info!(table = %name, ply = mark.ply, "the server has his call");
            }
            Decision::SendAgain => {
                tracing::info!(table = %name, ply = mark.ply, "the server does not have his call: sent again");
                self.send(i, mark).await;
            }
            Decision::ClaimNotUpheld => {
                OutMark::clear(&self.out_dir, &name);
                tracing::info!(table = %name, ply = mark.ply, "the server took his claim and the game goes on");
                let game = view.spoken_name.clone();
                self.tell(i, "server_claim_not_upheld", &[("game", &game)])
                    .await;
            }
            Decision::Wait => {}
        }
    }

    /// Looks at every table for what he released and has not been sent: his move (with his
    /// draw offer), his resignation, his acceptance of the opponent's offer. A table is looked
    /// at when its view changed or the server's list of it did.
    pub(super) async fn send_due(&mut self) {
        for i in 0..self.games.len() {
            let changed = self.games[i].table.view.has_changed().unwrap_or(false);
            if !changed && !std::mem::take(&mut self.games[i].dirty) {
                continue;
            }
            let view = Arc::clone(&self.games[i].table.view.borrow_and_update());
            if let Some(mark) = self.due(i, &view) {
                self.send(i, mark).await;
            }
        }
    }

    /// The call due at table `i`, if any (`server_call::due`), against the server's list
    /// seen in this run.
    fn due(&self, i: usize, view: &DeskView) -> Option<OutMark> {
        let name = self.games[i].table.handle.name.to_string();
        let last = self.games[i].last.as_ref()?;
        let server = at_server(last, replay(&last.san()).0.len());
        let marked = OutMark::read(&self.out_dir, &name).map(|m| m.marked());
        let call = server_call::due(at_table(view), server, marked)?;
        mark_of(view, &call, true)
    }

    /// `KC` at table `table`: his draw claim checked as an arbiter would (his turn, the
    /// grounds) and sent as `MakeAMove` with `claimDraw` (with his move not yet released, if
    /// any, which is released with it); or he hears why not.
    pub(super) async fn claim(&mut self, table: &str) {
        let Some(i) = self
            .games
            .iter()
            .position(|g| &*g.table.handle.name == table)
        else {
            return;
        };
        let view = Arc::clone(&self.games[i].table.view.borrow());
        let game = view.spoken_name.clone();
        let Some(last) = self.games[i].last.as_ref() else {
            // Not heard from the server in this run: whose turn it is there is not known.
            self.tell(i, "server_claim_not_now", &[("game", &game)])
                .await;
            return;
        };
        let server = at_server(last, replay(&last.san()).0.len());
        let marked = OutMark::read(&self.out_dir, table).map(|m| m.marked());
        let (reason, call) = match server_call::claim(at_table(&view), server, marked) {
            Ok(claim) => claim,
            Err(NoClaim::NoGrounds { halfmoves, .. }) => {
                let moves = move_count_phrase(halfmoves / 2, self.games[i].table.lang.vocabulary());
                self.tell(i, "key_claim_refused", &[("moves", &moves)])
                    .await;
                return;
            }
            Err(NoClaim::Over) => {
                self.tell(i, "key_game_over", &[]).await;
                return;
            }
            Err(NoClaim::NotHisTurn | NoClaim::CallPending) => {
                self.tell(i, "server_claim_not_now", &[("game", &game)])
                    .await;
                return;
            }
        };
        let Some(mark) = mark_of(&view, &call, true) else {
            return;
        };
        tracing::info!(table, %reason, ply = call.ply, san = %mark.san, "his draw claim goes to the server");
        if call.his_move.is_some() {
            // Marked first, so the move is never also due alone; then released at the table,
            // as the server will have it.
            if let Err(e) = mark.write(&self.out_dir, table) {
                tracing::error!(table, error = %e, "the claim's mark was not written; not sent");
                return;
            }
            let me = view.peg_side;
            let released = self.games[i]
                .table
                .handle
                .ask(Role::Player(me), Language::english(), TableRequest::Send)
                .await;
            if let Err(refusal) = released {
                tracing::warn!(table, why = %refusal.message, "his move with the claim was not released");
            }
        }
        self.send(i, mark).await;
    }

    /// Sends `mark` for table `i`: the mark written first, then the call; its answer told.
    async fn send(&mut self, i: usize, mut mark: OutMark) {
        let name = self.games[i].table.handle.name.to_string();
        if let Err(e) = mark.write(&self.out_dir, &name) {
            // Without the mark a crash could send it twice: not sent now, tried again later.
            tracing::error!(table = %name, error = %e, "the server call's mark was not written; not sent");
            return;
        }
        let call = soap::MoveCall {
            game_id: self.games[i].id,
            movecount: soap::movecount(mark.ply),
            my_move: mark.san.clone(),
            offer_draw: mark.offer_draw,
            accept_draw: mark.accept_draw,
            claim_draw: mark.claim_draw,
            resign: mark.resign,
            message: mark.message.clone(),
        };
        let envelope = self.envelope_move(&call);
        let answer = match self.call(Operation::MakeAMove, envelope).await {
            Ok(text) => match soap::parse_make_a_move(&text) {
                Ok(code) => Some(code),
                Err(soap::XfccError::Fault { code, text }) => {
                    code.or(Some(ResultCode::Unknown(text.chars().take(80).collect())))
                }
                Err(e) => {
                    tracing::warn!(table = %name, error = %e, "MakeAMove's answer does not read; the next list decides");
                    None
                }
            },
            Err(CallFailed(why)) => {
                tracing::warn!(table = %name, why, "MakeAMove not answered; the next list decides");
                None
            }
        };
        let Some(code) = answer else { return };
        tracing::info!(table = %name, ply = mark.ply, san = %mark.san, code = code.text(), "MakeAMove answered");
        let game = self.games[i].table.view.borrow().spoken_name.clone();
        let key = match code {
            ResultCode::Success if mark.claim_draw => "server_claim_sent",
            _ => code.voice_key(),
        };
        self.tell(i, key, &[("game", &game), ("code", code.text())])
            .await;
        match code {
            // Kept until the list shows the move: until then the stale list must not send
            // it again.
            ResultCode::Success => {
                mark.state = CallState::Accepted;
                if !mark.message.is_empty() {
                    self.tell(i, "own_message_sent", &[("game", &game)]).await;
                }
            }
            code if code.is_transient() => return,
            // A claim refused leaves the game as it was: his move at that half-move (if the
            // claim carried it, released with it) is his to send or keep, so no mark stays.
            _ if mark.claim_draw => {
                OutMark::clear(&self.out_dir, &name);
                return;
            }
            code => mark.state = CallState::Refused(code.text().to_owned()),
        }
        if let Err(e) = mark.write(&self.out_dir, &name) {
            tracing::warn!(table = %name, error = %e, "the answer was not marked");
        }
    }
}
