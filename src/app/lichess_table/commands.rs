//! What the blind player asks of lichess: a seek (its connection held open), a challenge, and
//! in a game his draw offer or acceptance, his resignation and his claim of the win when the
//! opponent has gone — from his keys (`KD`, `KX KX`, `KC`) as the table reports them, and from
//! the control interface. Each command is one short request (the client sends one at a time);
//! its outcome comes back to the task as [`Posted`].

use tokio::sync::oneshot;
use tokio::time::Instant;

use super::streams::{self, Incoming};
use super::{Command, LiveTable, Posted};
use crate::boards::BoardKey;
use crate::io::http_client::{HttpError, HttpRequest};
use crate::table::control::{ErrorCode, Refusal};
use crate::table::event::TableEvent;
use crate::table::reply::{Answer, Reply};
use annabella_chess::game::GameResult;
use annabella_correspondence::lichess::lines::Status;
use annabella_correspondence::lichess::speed::LiveControl;

fn color_word(c: shakmaty::Color) -> String {
    match c {
        shakmaty::Color::White => "white".to_owned(),
        shakmaty::Color::Black => "black".to_owned(),
    }
}

impl LiveTable {
    /// The control in words ("15 minutes plus 10 seconds").
    pub(super) fn control_words(&self, control: LiveControl) -> String {
        self.voice.words(
            "lichess_control",
            &[
                ("minutes", &control.minutes.to_string()),
                ("seconds", &control.increment_s.to_string()),
            ],
        )
    }

    /// `seek`: refused at once below Rapid, with the reason; otherwise held open.
    pub(super) fn seek(&mut self, control: LiveControl, rated: bool) -> Reply {
        if let Err(e) = control.check_seek() {
            let words = self.control_words(control);
            self.voice
                .say("lichess_seek_too_fast", &[("control", &words)]);
            return Err(Refusal::new(ErrorCode::State, e.to_string()));
        }
        if self.game.is_some() {
            return Err(Refusal::new(
                ErrorCode::State,
                "a lichess game is being played at this table",
            ));
        }
        if let Some(old) = self.seek.take() {
            old.abort();
        }
        let form = vec![
            ("time".to_owned(), control.minutes.to_string()),
            ("increment".to_owned(), control.increment_s.to_string()),
            ("rated".to_owned(), rated.to_string()),
            ("color".to_owned(), color_word(self.peg_side)),
        ];
        let task = tokio::spawn(streams::hold_seek(
            self.client.clone(),
            form,
            self.incoming.clone(),
        ));
        self.seek = Some(task.abort_handle());
        let words = self.control_words(control);
        self.voice.say("lichess_seeking", &[("control", &words)]);
        Ok(Answer::Seeking {
            control: control.to_string(),
            rated,
        })
    }

    /// `seek cancel`: the seek's connection closed (which cancels it on lichess), told.
    pub(super) fn cancel_seek(&mut self) -> Reply {
        let Some(seek) = self.seek.take() else {
            return Err(Refusal::new(ErrorCode::State, "no seek is running"));
        };
        // The task owns the connection: ended, it closes it.
        seek.abort();
        self.seek_ended = None;
        self.voice.say("lichess_seek_cancelled", &[]);
        Ok(Answer::SeekCancelled)
    }

    /// `challenge USER 5+3`: sent, and answered once lichess has it.
    pub(super) fn challenge(
        &mut self,
        user: String,
        control: LiveControl,
        reply: oneshot::Sender<Reply>,
    ) {
        if let Err(e) = control.check_challenge() {
            reply
                .send(Err(Refusal::new(ErrorCode::State, e.to_string())))
                .ok();
            return;
        }
        let form = vec![
            ("clock.limit".to_owned(), control.limit_s().to_string()),
            (
                "clock.increment".to_owned(),
                control.increment_s.to_string(),
            ),
            ("color".to_owned(), color_word(self.peg_side)),
            ("rated".to_owned(), "false".to_owned()),
        ];
        let (client, tx) = (self.client.clone(), self.incoming.clone());
        tokio::spawn(async move {
            let req = HttpRequest::post_form(format!("/api/challenge/{user}"), form);
            let result = client.request(req).await.map(|_| ());
            let posted = Posted::Challenge {
                user,
                control,
                result,
                reply,
            };
            tx.send(Incoming::Posted(posted)).await.ok();
        });
    }

    /// Sends `command` for the game being played.
    pub(super) fn post(&self, command: Command) {
        let Some(game) = &self.game else {
            return;
        };
        let path = format!("/api/board/game/{}/{}", game.id, command.path());
        let (client, tx) = (self.client.clone(), self.incoming.clone());
        tokio::spawn(async move {
            let result = client
                .request(HttpRequest::post_form(path, Vec::new()))
                .await
                .map(|_| ());
            tx.send(Incoming::Posted(Posted::Command { command, result }))
                .await
                .ok();
        });
    }

    /// Why a command did not go through, as he needs to know it: lichess asks to wait, lichess
    /// refused it, or lichess could not be reached (then trying again later may work).
    fn say_failure(&mut self, error: &HttpError) {
        match error {
            HttpError::RateLimited { wait } => self.say_wait(*wait),
            HttpError::Status { status, .. } if *status < 500 => {
                self.voice.say("lichess_command_refused", &[])
            }
            _ => self.voice.say("lichess_unreachable", &[]),
        }
    }

    /// A short request's outcome, told when it matters to him.
    pub(super) async fn posted(&mut self, outcome: Posted) {
        match outcome {
            Posted::Move { ply, result } => self.move_posted(ply, result).await,
            Posted::Command { command, result } => match result {
                Ok(()) => {}
                Err(HttpError::RateLimited { wait }) => self.say_wait(wait),
                Err(e) => {
                    tracing::warn!(target: "annabella::app::lichess", ?command, "lichess: {e}");
                    self.say_failure(&e);
                }
            },
            Posted::Challenge {
                user,
                control,
                result,
                reply,
            } => {
                let answer = match result {
                    Ok(()) => {
                        let words = self.control_words(control);
                        self.voice.say(
                            "lichess_challenge_sent",
                            &[("user", &user), ("control", &words)],
                        );
                        Ok(Answer::Challenged {
                            user,
                            control: control.to_string(),
                        })
                    }
                    Err(e) => {
                        self.say_failure(&e);
                        Err(Refusal::new(ErrorCode::State, format!("lichess: {e}")))
                    }
                };
                reply.send(answer).ok();
            }
        }
    }

    /// What the table did that lichess must hear: his moves, his offers, his resignation, his
    /// claim.
    pub(super) async fn table_event(&mut self, event: &TableEvent) {
        match event {
            TableEvent::Move { color, .. } if *color == self.peg_side => {
                self.resign_intent = false;
                self.sync().await;
            }
            TableEvent::Key(BoardKey::Resign) => self.resign_intent = true,
            TableEvent::Key(BoardKey::Claim) => self.claim(),
            TableEvent::DrawOffer { color } if *color == self.peg_side => {
                self.post(Command::DrawYes);
            }
            TableEvent::End { result, .. } => self.table_ended(*result),
            _ => {}
        }
    }

    /// The table's game ended while lichess's runs: his resignation, or his acceptance of the
    /// opponent's offer, is sent; an end lichess decides itself (mate, a flag) is not.
    fn table_ended(&mut self, result: GameResult) {
        let Some(game) = &self.game else {
            return;
        };
        if game.state.status() != Status::Running {
            return;
        }
        let opponent = !self.peg_side;
        if result == GameResult::win_for(opponent) && self.resign_intent {
            self.resign_intent = false;
            self.post(Command::Resign);
        } else if result == GameResult::Draw && game.state.offers_draw(opponent) {
            self.post(Command::DrawYes);
        }
    }

    /// `KC`: the win claimed when the opponent has gone and his time to come back is over.
    fn claim(&mut self) {
        let Some(game) = &self.game else {
            self.voice.say("lichess_nothing_to_claim", &[]);
            return;
        };
        match game.gone {
            None => self.voice.say("lichess_nothing_to_claim", &[]),
            Some(at) if at > Instant::now() => {
                let left = at.saturating_duration_since(Instant::now());
                let time = annabella_chess::phrases::duration_phrase(
                    left.as_millis() as u64 + 999,
                    self.lang.vocabulary(),
                );
                self.voice.say("lichess_claim_wait", &[("time", &time)]);
            }
            Some(_) => self.post(Command::ClaimVictory),
        }
    }
}
