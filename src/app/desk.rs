//! The correspondence desk's task: owns the pure [`Desk`], reads the shared peg board's link,
//! answers `focus` and `games`, hears of each correspondence table's steps (its
//! [`DeskView`]) and of messages received, and carries out what the desk decides — the peg
//! board's events to the focused table, the set-up's words to the blind player.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::{broadcast, mpsc, watch};

use crate::app::desk_link::Notice;
use crate::app::table_actor::BoardMessage;
use crate::boards::Timed;
use crate::control::hub::Request;
use crate::io::clock::unix_ms;
use crate::io::link::LinkEvent;
use crate::io::speech::{Speaker, Utterance};
use crate::table::control::{DeskRequest, ErrorCode, Refusal};
use crate::table::desk::{Desk, DeskAction};
use crate::table::event::{DeskEvent, Listener, Say, TableEvent};
use crate::table::reply::{Answer, Reply};
use crate::table::state::{BoardId, DeskView, Input};

/// How often the desk looks at every game's days (a side's time running out is told).
const TIME_CHECK: std::time::Duration = std::time::Duration::from_secs(30);

/// How long a stopping desk waits for the notices of tasks finishing their last step.
const NOTICE_DRAIN: std::time::Duration = std::time::Duration::from_secs(15);

/// One correspondence table as the desk reaches it.
pub struct DeskTable {
    pub name: Arc<str>,
    /// The game's identifier in its messages, as the desk says it.
    pub game: String,
    /// The table's board channel: the peg board's events while it has the board.
    pub boards: mpsc::Sender<BoardMessage>,
    pub view: watch::Receiver<Arc<DeskView>>,
    pub events: broadcast::Sender<Arc<TableEvent>>,
    /// The voice (language code) of the table's words.
    pub voice: String,
    /// The same code for the page's announcements.
    pub lang: &'static str,
    /// Names the desk's words in the audio record.
    pub record_id: String,
}

/// The desk's task.
pub struct DeskActor {
    pub desk: Desk,
    pub tables: Vec<DeskTable>,
    pub speaker: Arc<Speaker>,
    /// Keeps the focused game's name across restarts (`<state_dir>/desk-focus`).
    pub focus_file: PathBuf,
    /// Keeps each game's count of messages he has not turned to (`<state_dir>/desk-messages`).
    pub messages_file: PathBuf,
    /// Keeps which game's time being over he was told of (`<state_dir>/desk-time-over`).
    pub time_over_file: PathBuf,
    /// The mail desk's requests (`KJ` accepts a held message), when mail is configured.
    pub mail: Option<mpsc::Sender<crate::control::hub::Request<DeskRequest>>>,
    /// Asks the server desks to call their servers at once (`KL`, `KG`, `focus`, `games`).
    pub poke: Option<watch::Sender<u64>>,
}

impl DeskActor {
    fn views(&self) -> Vec<DeskView> {
        self.tables
            .iter()
            .map(|t| DeskView::clone(&t.view.borrow()))
            .collect()
    }

    /// The desk's start: the messages waiting, the times over already told, and the game he
    /// was at (with what waits at his other games told first), or every game once.
    async fn come_back(&mut self) {
        // The messages he had not turned to are still waiting for him.
        for (name, n) in read_message_counts(&self.messages_file) {
            if let Some(index) = self.index(&name) {
                self.desk.restore_unseen(index, n);
            }
        }
        // A time over he was told of is not told again at every start.
        for (name, side) in read_time_over(&self.time_over_file) {
            if let Some(index) = self.index(&name) {
                self.desk.restore_time_over(index, side);
            }
        }
        // The game he was at before the restart has the board again; with none, he hears
        // each of his games once.
        let actions = match read_focus(&self.focus_file).and_then(|n| self.index(&n)) {
            Some(index) => {
                // Messages waiting at his other games are told before the game he was at
                // (the list of his games, said in full: the next words do not cut it).
                let waiting_elsewhere = self
                    .desk
                    .unseen()
                    .iter()
                    .enumerate()
                    .any(|(i, n)| i != index && *n > 0);
                let mut actions: Vec<DeskAction> = if waiting_elsewhere {
                    self.desk
                        .greeting(&self.views(), unix_ms())
                        .into_iter()
                        .map(|a| match a {
                            DeskAction::Say {
                                table,
                                text,
                                urgency,
                                ..
                            } => DeskAction::Say {
                                table,
                                text,
                                urgency,
                                about: crate::table::event::About::Other,
                            },
                            other => other,
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                actions.extend(self.desk.turn_to(index, &self.views(), unix_ms()));
                actions
            }
            None => self.desk.greeting(&self.views(), unix_ms()),
        };
        self.carry_out(actions).await;
    }

    /// Runs until shutdown or until every channel has closed.
    pub async fn run(
        mut self,
        mut requests: mpsc::Receiver<Request<DeskRequest>>,
        mut peg: mpsc::Receiver<BoardMessage>,
        mut notices: mpsc::Receiver<Notice>,
        mut additions: mpsc::Receiver<DeskTable>,
        mut shutdown: watch::Receiver<bool>,
    ) {
        self.come_back().await;
        // Each game's days are looked at every so often: a side's time running out is told
        // even when nothing happens at its table.
        let mut time_check = tokio::time::interval(TIME_CHECK);
        time_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            if *shutdown.borrow() {
                break;
            }
            tokio::select! {
                biased;
                _ = shutdown.changed() => {}
                _ = time_check.tick() => {
                    let actions = self.check_time(&self.views());
                    self.carry_out(actions).await;
                }
                Some((_, event)) = peg.recv() => {
                    let views = self.views();
                    let actions = match event {
                        LinkEvent::Connected(detail) => self.desk.link(true, &detail),
                        LinkEvent::Disconnected(detail) | LinkEvent::Unreachable(detail) => {
                            self.desk.link(false, &detail)
                        }
                        LinkEvent::Decoded(Ok(Timed { event, .. })) => {
                            if matches!(
                                event,
                                crate::boards::SensorEvent::Key(
                                    crate::boards::BoardKey::ListGames
                                        | crate::boards::BoardKey::NextGame
                                )
                            ) {
                                self.poke();
                            }
                            self.desk.sensor(&event, &views, unix_ms())
                        }
                        LinkEvent::Decoded(Err(e)) => {
                            tracing::warn!(error = %e, "the desk's peg board sent a malformed line; skipped");
                            Vec::new()
                        }
                    };
                    self.carry_out(actions).await;
                }
                Some(table) = additions.recv() => self.add(table).await,
                Some(request) = requests.recv() => {
                    let reply = self.answer(&request.command).await;
                    request.reply.send(reply).ok();
                }
                Some(notice) = notices.recv() => {
                    let actions = match notice {
                        Notice::Stepped(i) => {
                            let views = self.views();
                            let mut actions = self.desk.view_changed(i, &views);
                            actions.extend(self.check_time(&views));
                            actions
                        }
                        Notice::MessageReceived(i) => {
                            self.desk.message_received(i);
                            self.keep_message_counts();
                            Vec::new()
                        }
                        Notice::Say(table, text) => vec![DeskAction::Say {
                            table,
                            text,
                            urgency: crate::table::event::Urgency::Polite,
                            about: crate::table::event::About::Other,
                        }],
                    };
                    self.carry_out(actions).await;
                }
                else => break,
            }
        }
        // A message the mail desk played just before the daemon was told to stop must still be
        // counted as waiting after the restart: the notices already sent, and those of tasks
        // finishing their last step, are taken until every sender has gone (or a moment passed).
        let drain = async {
            while let Some(notice) = notices.recv().await {
                if let Notice::MessageReceived(i) = notice {
                    self.desk.message_received(i);
                    self.keep_message_counts();
                }
            }
        };
        tokio::time::timeout(NOTICE_DRAIN, drain).await.ok();
    }

    /// A table started while the desk runs (a server's game): its place is the next index,
    /// which its actor's notices already carry (`app::server_desk` numbers them in order).
    /// What was kept of it across a restart (messages waiting, time over told) comes back.
    async fn add(&mut self, table: DeskTable) {
        let name = table.name.clone();
        let index = self.desk.add_game(table.game.clone());
        self.tables.push(table);
        if let Some((_, n)) = read_message_counts(&self.messages_file)
            .into_iter()
            .find(|(n, _)| *n == *name)
        {
            self.desk.restore_unseen(index, n);
        }
        if let Some((_, side)) = read_time_over(&self.time_over_file)
            .into_iter()
            .find(|(n, _)| *n == *name)
        {
            self.desk.restore_time_over(index, side);
        }
        // The game he was at before a restart has the board again when it comes back.
        if self.desk.focus().is_none() && read_focus(&self.focus_file).as_deref() == Some(&*name) {
            let actions = self.desk.turn_to(index, &self.views(), unix_ms());
            self.carry_out(actions).await;
        }
    }

    /// Each game's days now: a time over told once, and kept so across restarts.
    fn check_time(&mut self, views: &[DeskView]) -> Vec<DeskAction> {
        let before = self.desk.time_over_told().to_vec();
        let actions = self.desk.check_time(views, unix_ms());
        if self.desk.time_over_told() != before.as_slice() {
            let lines: String = self
                .tables
                .iter()
                .zip(self.desk.time_over_told())
                .filter_map(|(t, side)| {
                    side.map(|c| {
                        let word = match c {
                            shakmaty::Color::White => "white",
                            shakmaty::Color::Black => "black",
                        };
                        format!("{} {word}\n", t.name)
                    })
                })
                .collect();
            write_atomically(&self.time_over_file, &lines, "the times over told");
        }
        actions
    }

    /// Writes each game's count of messages he has not turned to.
    fn keep_message_counts(&self) {
        let lines: String = self
            .tables
            .iter()
            .zip(self.desk.unseen())
            .filter(|(_, n)| **n > 0)
            .map(|(t, n)| format!("{} {n}\n", t.name))
            .collect();
        write_atomically(&self.messages_file, &lines, "the count of messages waiting");
    }

    fn index(&self, name: &str) -> Option<usize> {
        self.tables.iter().position(|t| &*t.name == name)
    }

    /// The server desks are asked to call their servers now (coalesced: one waiting is enough).
    fn poke(&self) {
        if let Some(poke) = &self.poke {
            poke.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    async fn answer(&mut self, command: &DeskRequest) -> Reply {
        if matches!(command, DeskRequest::Focus { .. } | DeskRequest::Games) {
            self.poke();
        }
        match command {
            DeskRequest::Focus { table } => match self.index(table) {
                Some(index) => {
                    let actions = self.desk.turn_to(index, &self.views(), unix_ms());
                    self.carry_out(actions).await;
                    Ok(Answer::Focused {
                        table: table.clone(),
                    })
                }
                None => {
                    let names: Vec<&str> = self.tables.iter().map(|t| &*t.name).collect();
                    Err(Refusal::new(
                        ErrorCode::Syntax,
                        format!(
                            "no correspondence table {:?}; the desk has {}",
                            crate::control::wire::one_line(table),
                            names.join(", ")
                        ),
                    ))
                }
            },
            // The hub hands these to the mail desk; none reaches the desk.
            DeskRequest::Mail(_) => Err(Refusal::new(
                ErrorCode::State,
                "mail requests are answered by the mail desk",
            )),
            DeskRequest::Games => {
                // The assistant sees the games' identifiers too.
                let actions = self.desk.list(&self.views(), unix_ms(), true);
                let text = actions
                    .iter()
                    .find_map(|a| match a {
                        DeskAction::Say { text, .. } => Some(text.clone()),
                        _ => None,
                    })
                    .unwrap_or_default();
                self.carry_out(actions).await;
                Ok(Answer::Games { text })
            }
        }
    }

    /// `KJ`: the mail desk accepts the message held last; when there is none (or no mail), the
    /// words saying so. What it accepted the mail desk says itself.
    async fn accept_held(&self, table: usize) -> Option<DeskAction> {
        use crate::table::control::{MailRequest, Role};
        let request = DeskRequest::Mail(MailRequest::Accept { id: None });
        let reply = match &self.mail {
            Some(mail) => {
                crate::control::hub::ask(
                    mail,
                    "mail desk",
                    Role::Assistant,
                    crate::chess::language::Language::english(),
                    request,
                )
                .await
            }
            None => Err(Refusal::new(ErrorCode::State, "no [mail] is configured")),
        };
        let refusal = reply.err()?;
        tracing::info!(why = %refusal.message, "KJ: no held message accepted");
        let lang = crate::chess::language::Language::builtin(self.tables.get(table)?.lang)
            .unwrap_or(crate::chess::language::Language::english());
        Some(DeskAction::Say {
            table,
            text: lang
                .vocabulary()
                .event("desk_mail_none_held")
                .unwrap_or("desk_mail_none_held")
                .to_owned(),
            urgency: crate::table::event::Urgency::Polite,
            about: crate::table::event::About::Desk,
        })
    }

    async fn carry_out(&mut self, actions: Vec<DeskAction>) {
        let mut said = Vec::new();
        let mut actions: std::collections::VecDeque<DeskAction> = actions.into();
        while let Some(action) = actions.pop_front() {
            match action {
                DeskAction::AcceptHeld { table } => {
                    if let Some(words) = self.accept_held(table).await {
                        actions.push_back(words);
                    }
                }
                DeskAction::Input { table, input } => {
                    let Some(t) = self.tables.get(table) else {
                        continue;
                    };
                    let message = match input {
                        Input::Sensor { event, .. } => {
                            LinkEvent::Decoded(Ok(Timed { event, at: 0 }))
                        }
                        Input::Link {
                            up: true, detail, ..
                        } => LinkEvent::Connected(detail),
                        Input::Link {
                            up: false, detail, ..
                        } => LinkEvent::Disconnected(detail),
                        _ => continue,
                    };
                    // The table may have stopped (shutdown); the desk goes on.
                    t.boards.send((BoardId::Peg, message)).await.ok();
                }
                DeskAction::Say {
                    table,
                    text,
                    urgency,
                    about,
                } => {
                    let Some(t) = self.tables.get(table) else {
                        continue;
                    };
                    let u = Utterance::new(
                        Listener::BlindPlayer,
                        text.clone(),
                        t.voice.clone(),
                        t.record_id.clone(),
                        unix_ms(),
                    )
                    .about(about);
                    said.push(if urgency.is_urgent() { u.urgent() } else { u });
                    let say = Say {
                        listener: Listener::BlindPlayer,
                        text,
                        urgency,
                        about,
                        lang: t.lang,
                        id: 0,
                    };
                    t.events.send(Arc::new(TableEvent::Say(say))).ok();
                }
                DeskAction::Event { table, event } => {
                    let Some(t) = self.tables.get(table) else {
                        continue;
                    };
                    if matches!(&event, TableEvent::Desk(DeskEvent::Focus)) {
                        write_focus(&self.focus_file, &t.name);
                        // Turning to a game told him its messages.
                        self.keep_message_counts();
                    }
                    t.events.send(Arc::new(event)).ok();
                }
            }
        }
        self.speaker.say_step(said);
    }
}

/// Starts the desk with its peg board (`[desk] peg`) for these tables; returns the handle
/// that takes `focus` and `games`.
#[allow(clippy::too_many_arguments)]
pub fn spawn(
    tasks: &mut tokio::task::JoinSet<()>,
    config: &crate::config::Config,
    tables: Vec<DeskTable>,
    notices: mpsc::Receiver<Notice>,
    mail: Option<mpsc::Sender<crate::control::hub::Request<DeskRequest>>>,
    poke: Option<watch::Sender<u64>>,
    speaker: Arc<Speaker>,
    lang: &'static crate::chess::language::Language,
    shutdown: &watch::Receiver<bool>,
    simulated: &mut Vec<(
        crate::table::name::TableName,
        std::sync::mpsc::Sender<String>,
    )>,
) -> Result<(crate::control::hub::DeskHandle, mpsc::Sender<DeskTable>), DeskStartError> {
    use crate::boards::Protocol;
    use crate::config::PegSource;
    let (peg_tx, peg) = mpsc::channel(crate::app::board_links::BOARD_BACKLOG);
    match &config.desk.peg {
        PegSource::None => drop(peg_tx),
        PegSource::Device(endpoint) => crate::app::board_links::spawn_link(
            tasks,
            endpoint.clone(),
            Protocol::Peg,
            BoardId::Peg,
            peg_tx,
            shutdown,
        ),
        PegSource::Simulated => {
            let board = crate::io::simulator::SimulatedBoard::new(
                Protocol::Peg,
                crate::chess::game::Game::new(),
                lang.clone(),
            );
            let (endpoint, operator) = crate::io::sim_socket::plug_in(board, Protocol::Peg)
                .map_err(|e| DeskStartError::SimulatedPeg(e.into()))?;
            tracing::info!(device = %endpoint, "the desk's simulated peg board");
            crate::app::board_links::spawn_link(
                tasks,
                endpoint,
                Protocol::Peg,
                BoardId::Peg,
                peg_tx,
                shutdown,
            );
            let name = crate::table::name::TableName::new("desk").map_err(DeskStartError::Name)?;
            simulated.push((name, operator));
        }
    }
    let games = tables.iter().map(|t| t.game.clone()).collect();
    let actor_mail = mail.clone();
    let actor = DeskActor {
        desk: Desk::new(games, lang),
        tables,
        speaker,
        focus_file: config.state_dir.join("desk-focus"),
        messages_file: config.state_dir.join("desk-messages"),
        time_over_file: config.state_dir.join("desk-time-over"),
        mail,
        poke,
    };
    let (requests_tx, requests) = mpsc::channel(crate::control::hub::REQUEST_BACKLOG);
    // Server games join the desk while it runs (`app::server_desk`).
    let (additions_tx, additions) = mpsc::channel(crate::control::hub::REQUEST_BACKLOG);
    tasks.spawn(actor.run(requests, peg, notices, additions, shutdown.clone()));
    let handle = crate::control::hub::DeskHandle {
        requests: requests_tx,
        mail: actor_mail,
    };
    Ok((handle, additions_tx))
}

/// Why the desk could not start.
#[derive(Debug, thiserror::Error)]
pub enum DeskStartError {
    /// The simulator's own error (the command line's edge type), boxed.
    #[error("the desk's simulated peg board: {0}")]
    SimulatedPeg(Box<dyn std::error::Error + Send + Sync>),
    #[error("the desk's name: {0}")]
    Name(crate::table::name::TableNameError),
}

/// A small file the desk keeps, read with a bound; `None` when it is missing or unreadable.
fn read_small(path: &std::path::Path, limit: u64) -> Option<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)
        .ok()?
        .take(limit)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

/// The focused game's name from the last run, if any.
fn read_focus(path: &std::path::Path) -> Option<String> {
    let text = read_small(path, 256)?;
    Some(text.trim().to_owned()).filter(|t| !t.is_empty())
}

/// The counts of messages waiting from the last run: lines `TABLE COUNT`; a line that is not
/// one is skipped (the count is a courtesy, never a reason to refuse to start).
fn read_message_counts(path: &std::path::Path) -> Vec<(String, u32)> {
    let Some(text) = read_small(path, 64 * 1024) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| {
            let (name, n) = line.trim().rsplit_once(' ')?;
            Some((name.to_owned(), n.parse().ok()?))
        })
        .collect()
}

/// The times over told in the last run: lines `TABLE white|black`; a line that is not one is
/// skipped (at worst he hears it once more).
fn read_time_over(path: &std::path::Path) -> Vec<(String, shakmaty::Color)> {
    let Some(text) = read_small(path, 64 * 1024) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| {
            let (name, side) = line.trim().rsplit_once(' ')?;
            let side = match side {
                "white" => shakmaty::Color::White,
                "black" => shakmaty::Color::Black,
                _ => return None,
            };
            Some((name.to_owned(), side))
        })
        .collect()
}

/// Keeps the focused game's name; losing it costs only the first set-up after a restart.
fn write_focus(path: &std::path::Path, name: &str) {
    write_atomically(path, &format!("{name}\n"), "the desk's focus");
}

/// Replaces `path` by `text` (a temporary file renamed over it, never through a link); `what` names it in the log
/// when that fails.
fn write_atomically(path: &std::path::Path, text: &str, what: &str) {
    let written = crate::io::private_file::replace(
        path,
        text.as_bytes(),
        crate::io::private_file::Access::Private,
    );
    if let Err(e) = written {
        tracing::warn!(path = %path.display(), error = %e, "{what} was not kept");
    }
}
