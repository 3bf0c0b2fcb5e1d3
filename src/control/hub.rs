//! The tables a daemon runs, as the network adapters see them: a request channel and an event
//! feed per table, and the correspondence desk's request channel. The control sessions (TCP and
//! the page's WebSocket) talk to tables and the desk only here; each channel carries only the
//! requests its receiver answers.

use std::sync::Arc;

use tokio::sync::{broadcast, mpsc, oneshot};

use crate::chess::language::Language;
use crate::table::control::{DeskRequest, ErrorCode, Refusal, Role, TableRequest};
use crate::table::event::TableEvent;
use crate::table::reply::Reply;

/// Events a slow subscriber may fall behind by before it is told it missed some.
pub const EVENT_BACKLOG: usize = 256;
/// Requests waiting for one table before senders wait their turn.
pub const REQUEST_BACKLOG: usize = 64;

/// One request for a table (or, as `Request<DeskRequest>`, for the correspondence desk), from a
/// connection that has authenticated.
#[derive(Debug)]
pub struct Request<R = TableRequest> {
    /// Who asks (the token's role). The control server has refused what the role may never
    /// do (an observer changing the game, `control::permitted_to_role`); the table checks the
    /// rest with its side to move, `control::permitted(role, &command, side_to_move)`, when it
    /// takes the request, so the check and the move cannot race.
    pub role: Role,
    /// The connection's language: SAN piece letters and spoken words of `move` text.
    pub lang: &'static Language,
    /// What is asked: by its type, a request the table (or the desk) answers.
    pub command: R,
    /// The answer, typed; each transport writes it in its own form (`control::wire`).
    pub reply: oneshot::Sender<Reply>,
}

/// A running table, cheap to clone.
#[derive(Debug, Clone)]
pub struct TableHandle {
    /// The table's name from the configuration (`table-1`).
    pub name: Arc<str>,
    /// Requests for the table's actor.
    pub requests: mpsc::Sender<Request>,
    /// Every event at the table, typed; each transport encodes it (a line for TCP, fields by
    /// name for the page).
    pub events: broadcast::Sender<Arc<TableEvent>>,
}

impl TableHandle {
    /// Sends a request and waits for its reply; a table that has stopped answers with a refusal
    /// rather than leaving the caller waiting.
    pub async fn ask(&self, role: Role, lang: &'static Language, command: TableRequest) -> Reply {
        ask(&self.requests, &self.name, role, lang, command).await
    }
}

/// The correspondence desk as the control sessions reach it: its request channel, which takes
/// only the desk's requests.
#[derive(Debug, Clone)]
pub struct DeskHandle {
    pub requests: mpsc::Sender<Request<DeskRequest>>,
    /// The mail desk's channel, which answers `mail …` (`None`: no `[mail]` configured).
    pub mail: Option<mpsc::Sender<Request<DeskRequest>>>,
}

impl DeskHandle {
    /// Sends a request and waits for the desk's reply (the mail desk's for `mail …`), as
    /// [`TableHandle::ask`].
    pub async fn ask(&self, role: Role, lang: &'static Language, command: DeskRequest) -> Reply {
        if let DeskRequest::Mail(_) = &command {
            return match &self.mail {
                Some(mail) => ask(mail, "mail desk", role, lang, command).await,
                None => Err(Refusal::new(
                    ErrorCode::State,
                    "this daemon reads no mail: [mail] is not configured",
                )),
            };
        }
        ask(&self.requests, "desk", role, lang, command).await
    }
}

/// Sends a request on `requests` and waits for its reply; a receiver that has stopped answers
/// with a refusal rather than leaving the caller waiting.
pub async fn ask<R>(
    requests: &mpsc::Sender<Request<R>>,
    name: &str,
    role: Role,
    lang: &'static Language,
    command: R,
) -> Reply {
    let (reply, answer) = oneshot::channel();
    let request = Request {
        role,
        lang,
        command,
        reply,
    };
    let stopped = || Refusal::new(ErrorCode::State, format!("table {name} has stopped"));
    if requests.send(request).await.is_err() {
        return Err(stopped());
    }
    answer.await.unwrap_or_else(|_| Err(stopped()))
}

/// Every table of the daemon, in configuration order.
#[derive(Debug, Clone, Default)]
pub struct Hub {
    tables: Arc<Vec<TableHandle>>,
    /// The correspondence desk, which answers `focus` and `games` (`crate::app::desk`).
    desk: Option<DeskHandle>,
}

impl Hub {
    pub fn new(tables: Vec<TableHandle>) -> Hub {
        Hub {
            tables: Arc::new(tables),
            desk: None,
        }
    }

    /// The hub with the correspondence desk's request channel.
    pub fn with_desk(mut self, desk: DeskHandle) -> Hub {
        self.desk = Some(desk);
        self
    }

    /// The correspondence desk, when the daemon runs one.
    pub fn desk(&self) -> Option<&DeskHandle> {
        self.desk.as_ref()
    }

    pub fn tables(&self) -> &[TableHandle] {
        &self.tables
    }

    pub fn get(&self, name: &str) -> Option<&TableHandle> {
        self.tables.iter().find(|t| &*t.name == name)
    }
}
