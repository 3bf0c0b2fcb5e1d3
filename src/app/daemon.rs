//! `annabella serve` wired up: the journal, the tokens, speech, one actor per table with its
//! board links, the control interface, the heartbeat; and a graceful stop.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::task::JoinSet;

use crate::app::board_links::{BOARD_BACKLOG, decoders, spawn_link, spawn_link_with};
use crate::app::table_actor::{BoardMessage, Journal, TableActor};
use crate::boards::Protocol;
use crate::chess::language::Language;
use crate::config::{Config, NormalBoard as NormalConfig, PegSource, TableConfig};
use crate::control::hub::{EVENT_BACKLOG, Hub, REQUEST_BACKLOG, TableHandle};
use crate::control::web::WebSettings;
use crate::io::clock::{TableClock, unix_ms};
use crate::io::link::Endpoint;
use crate::io::simulator::{self, SimulatedBoard};
use crate::io::speech::{Speaker, SpeechSettings};
use crate::io::store::{Store, StoreError, StoreHandle};
use crate::table::name::TableName;
use crate::table::state::{BoardId, NormalBoard, Step, Table, TableSettings};

/// How often the daemon stamps "still alive" in the journal, which bounds the downtime a
/// restart can misjudge.
const HEARTBEAT: Duration = Duration::from_secs(1);

/// What a caller embedding the daemon (the demo, tests) gets once it is ready.
#[derive(Debug)]
pub struct Running {
    /// The control interface's address (useful with port 0).
    pub listen: SocketAddr,
    /// The web page's address, when it is served.
    pub web: Option<SocketAddr>,
    pub hub: Hub,
    /// Operator lines for each table's simulated peg board (`--peg sim`), by table name.
    pub simulated: Vec<(TableName, std::sync::mpsc::Sender<String>)>,
}

/// How the daemon is embedded.
#[derive(Debug, Default)]
pub struct Options {
    /// Told the address and the tables once everything listens.
    pub on_ready: Option<oneshot::Sender<Running>>,
    /// Simulated peg boards read operator lines from standard input (`serve --peg sim`).
    pub sim_from_stdin: bool,
}

impl Journal for StoreHandle {
    type Error = StoreError;

    async fn append(&self, table: &str, lines: Vec<(u64, String)>) -> Result<(), StoreError> {
        StoreHandle::append_all(self, table, lines)
            .await
            .map(|_| ())
    }

    async fn begin(&self, table: &str, lines: Vec<(u64, String)>) -> Result<u64, StoreError> {
        StoreHandle::begin_game_with(self, table, lines).await
    }

    async fn archive(&self, table: &str, pgn: String) -> Result<PathBuf, StoreError> {
        let game = self.current_game(table).await?.unwrap_or(0);
        self.archive_pgn(table, game, &pgn).await
    }
}

/// Runs every table until `shutdown` turns true.
pub async fn run(
    config: Config,
    mut shutdown: watch::Receiver<bool>,
    options: Options,
) -> anyhow::Result<()> {
    let started = Instant::now();
    let store = Store::open(&config.state_dir)
        .and_then(StoreHandle::spawn)
        .with_context(|| format!("opening the journal in {}", config.state_dir.display()))?;
    let names: Vec<&str> = config.tables.iter().map(|t| t.name.as_str()).collect();
    let loaded = crate::io::tokens::load_or_create(&config.state_dir, &config.tokens, &names)
        .context("loading the control interface's tokens")?;
    if loaded.created {
        tracing::info!(path = %loaded.path.display(), "created a token for each role");
    }
    let tokens = loaded.tokens;
    crate::control::tcp::check_listen(config.listen, &tokens).map_err(anyhow::Error::msg)?;
    let speaker = Arc::new(Speaker::with_settings(
        &config.speech,
        SpeechSettings {
            rate_wpm: config.speech_rate,
            languages: vec![config.lang.clone()],
        },
        crate::io::speech::DEFAULT_QUEUE_CAPACITY,
    ));
    // Settings borrow the language for the daemon's whole life.
    let lang: &'static Language = Box::leak(Box::new(config.lang.clone()));
    let last_alive = store.last_heartbeat().await.ok().flatten();

    let mut tasks = JoinSet::new();
    let mut handles = Vec::new();
    let mut simulated = Vec::new();
    // The correspondence tables, which the desk and the mail reach.
    let (notices_tx, notices) = mpsc::channel(crate::app::desk_link::NOTICE_BACKLOG);
    let mut desk_tables = Vec::new();
    let mut mail_tables = Vec::new();
    for tc in &config.tables {
        // A table with its own language keeps it for the daemon's life too.
        let lang: &'static Language = match &tc.lang {
            Some(own) => Box::leak(Box::new(own.clone())),
            None => lang,
        };
        let settings = table_settings(&config, tc, lang);
        let (table, startup, game_no, clock) =
            open_table(&store, settings, last_alive, &config).await?;
        let (requests_tx, requests) = mpsc::channel(REQUEST_BACKLOG);
        let (events, _) = broadcast::channel(EVENT_BACKLOG);
        let (boards_tx, boards) = mpsc::channel::<BoardMessage>(BOARD_BACKLOG);

        match &tc.peg {
            PegSource::Device(endpoint) => {
                spawn_link(
                    &mut tasks,
                    endpoint.clone(),
                    Protocol::Peg,
                    BoardId::Peg,
                    boards_tx.clone(),
                    &shutdown,
                );
            }
            // No board of its own; a correspondence table gets the desk's.
            PegSource::None => {}
            PegSource::Simulated => {
                let board = SimulatedBoard::new(Protocol::Peg, table.game().clone(), lang.clone());
                let (path, operator) = simulator::spawn_on_pty(board)
                    .with_context(|| format!("table {}: the simulated peg board", tc.name))?;
                tracing::info!(table = %tc.name, device = %path.display(), "simulated peg board");
                let endpoint = Endpoint::Serial {
                    path: path.display().to_string(),
                    baud: Endpoint::default_baud(Protocol::Peg),
                };
                spawn_link(
                    &mut tasks,
                    endpoint,
                    Protocol::Peg,
                    BoardId::Peg,
                    boards_tx.clone(),
                    &shutdown,
                );
                if options.sim_from_stdin {
                    forward_stdin(operator.clone());
                }
                simulated.push((tc.name.clone(), operator));
            }
        }
        if let Some((protocol, endpoint)) = tc.normal.link() {
            // A Certabo board's calibration is kept per table in the state directory.
            let calibration = config
                .state_dir
                .join("certabo")
                .join(format!("{}.calibration", tc.name.file_stem()));
            spawn_link_with(
                &mut tasks,
                endpoint.clone(),
                protocol,
                decoders(protocol, calibration),
                BoardId::Normal,
                boards_tx.clone(),
                &shutdown,
            );
        }
        let desk = match &tc.kind {
            crate::config::TableKind::Board => None,
            crate::config::TableKind::Correspondence {
                opponent_email,
                game_id,
                ..
            } => {
                let index = desk_tables.len();
                let (view_tx, view) = watch::channel(Arc::new(table.desk_view(unix_ms())));
                let name: Arc<str> = Arc::from(tc.name.as_str());
                desk_tables.push(crate::app::desk::DeskTable {
                    name: name.clone(),
                    game: game_id.as_str().to_owned(),
                    boards: boards_tx.clone(),
                    view: view.clone(),
                    events: events.clone(),
                    voice: lang.code().to_owned(),
                    lang: lang.code(),
                    record_id: format!("{}-desk", tc.name.file_stem()),
                });
                let tag = |t: crate::table::control::GameTag, or: &str| {
                    tc.tags
                        .iter()
                        .find(|(k, _)| *k == t)
                        .map_or(or.to_owned(), |(_, v)| v.clone())
                };
                mail_tables.push(crate::app::mail_desk::MailTable {
                    handle: TableHandle {
                        name,
                        requests: requests_tx.clone(),
                        events: events.clone(),
                    },
                    index,
                    game_id: game_id.clone(),
                    opponent_email: opponent_email.clone(),
                    white: tag(crate::table::control::GameTag::White, "White"),
                    black: tag(crate::table::control::GameTag::Black, "Black"),
                    view,
                    lang,
                });
                Some(crate::app::table_actor::DeskLink {
                    index,
                    view: view_tx,
                    notices: notices_tx.clone(),
                    braille: config
                        .state_dir
                        .join("braille")
                        .join(format!("{}.brf", tc.name.file_stem())),
                    scored: None,
                })
            }
        };
        drop(boards_tx);

        let mut actor = TableActor {
            table,
            clock,
            journal: Arc::new(store.clone()),
            speaker: Arc::clone(&speaker),
            voice: lang.code().to_owned(),
            // The audio record is named after the game: a name safe as a file, as the page
            // looks it up (`/audio/TABLE`).
            game_id: format!("{}-{game_no}", tc.name.file_stem()),
            game_stem: tc.name.file_stem(),
            events: events.clone(),
            record_dir: config.state_dir.join("records"),
            desk,
            cassette: tc.cassette,
        };
        actor
            .perform(startup)
            .await
            .map_err(|e| anyhow::anyhow!("table {}: {e}", tc.name))?;
        actor.tell_desk();
        tasks.spawn(actor.run(requests, boards, shutdown.clone()));
        handles.push(TableHandle {
            name: Arc::from(tc.name.as_str()),
            requests: requests_tx,
            events,
        });
    }
    let mut hub = Hub::new(handles);
    if !desk_tables.is_empty() {
        let desk = crate::app::desk::spawn(
            &mut tasks,
            &config,
            desk_tables,
            notices,
            Arc::clone(&speaker),
            lang,
            &shutdown,
            &mut simulated,
        )
        .map_err(anyhow::Error::msg)?;
        hub = hub.with_desk(desk);
        if let Some(mail) = &config.mail {
            crate::app::mail_desk::spawn(
                &mut tasks,
                &config.state_dir,
                mail,
                mail_tables,
                notices_tx.clone(),
                &shutdown,
            )
            .map_err(anyhow::Error::msg)?;
        }
    } else if config.mail.is_some() {
        tracing::warn!(
            "[mail] is configured but no table is kind = \"correspondence\"; no mail is read"
        );
    }
    drop(notices_tx);

    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("listening on {}", config.listen))?;
    let listen = listener.local_addr()?;
    // New connections speak English until they ask for another language (`lang`), as the
    // control protocol documents; the tables' words stay in their own languages.
    let control = crate::control::session_driver::ControlService::new(
        hub.clone(),
        tokens,
        config.control.clone(),
    );
    tasks.spawn(crate::control::tcp::run(
        listener,
        control.clone(),
        shutdown.clone(),
    ));
    let web = match config.web_listen {
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("listening for the web page on {addr}"))?;
            let web = listener.local_addr()?;
            let backends: Vec<_> = config.speech.iter().map(|o| o.backend.clone()).collect();
            let mut settings = WebSettings::new(lang, &backends);
            settings.allowed_hosts = config.web_hosts.clone();
            let shutdown = shutdown.clone();
            tasks.spawn(async move {
                if let Err(e) =
                    crate::control::web::run(listener, control, settings, shutdown).await
                {
                    tracing::error!(error = %e, "the web page stopped");
                }
            });
            Some(web)
        }
        None => None,
    };
    {
        let store = store.clone();
        let mut shutdown = shutdown.clone();
        tasks.spawn(async move {
            let mut tick = tokio::time::interval(HEARTBEAT);
            // A failing heartbeat is said when it starts failing (or fails otherwise), not
            // every second; a state directory gone is an error, every write now refused.
            let mut failing = None;
            loop {
                tokio::select! {
                    _ = tick.tick() => match store.heartbeat(unix_ms()).await {
                        Err(e) if failing.as_ref() != Some(&e.to_string()) => {
                            if matches!(e, StoreError::StateDirGone { .. }) {
                                tracing::error!(error = %e, "the journal refuses every write from now on");
                            } else {
                                tracing::warn!(error = %e, "heartbeat not written");
                            }
                            failing = Some(e.to_string());
                        }
                        Err(_) => {}
                        Ok(()) => failing = None,
                    },
                    _ = shutdown.changed() => break,
                }
            }
        });
    }
    tracing::info!(
        address = %listen,
        web = %web.map_or_else(|| "off".to_owned(), |a| format!("http://{a}/")),
        tables = config.tables.len(),
        state_dir = %config.state_dir.display(),
        speech = %speaker.backend_names().join(","),
        startup_ms = started.elapsed().as_millis() as u64,
        "ready"
    );
    if let Some(tx) = options.on_ready {
        tx.send(Running {
            listen,
            web,
            hub,
            simulated,
        })
        .ok();
    }
    while !*shutdown.borrow() {
        if shutdown.changed().await.is_err() {
            break;
        }
    }
    while tasks.join_next().await.is_some() {}
    // The last announcement (a result, a flag) is worth a moment before the voice is cut.
    let speaker = Arc::clone(&speaker);
    tokio::task::spawn_blocking(move || speaker.flush_blocking(Duration::from_secs(3)))
        .await
        .ok();
    store.heartbeat(unix_ms()).await.ok();
    // Releases the state directory's lock: the same process (the demo, tests) or the next
    // daemon may open it again at once.
    if let Err(e) = store.close().await {
        tracing::warn!(error = %e, "closing the journal");
    }
    tracing::info!("stopped");
    Ok(())
}

fn table_settings(config: &Config, tc: &TableConfig, lang: &'static Language) -> TableSettings {
    TableSettings {
        name: tc.name.clone(),
        peg_side: tc.peg_side,
        normal: match tc.normal {
            NormalConfig::Virtual => NormalBoard::Virtual,
            NormalConfig::Dgt(_) | NormalConfig::Millennium(_) | NormalConfig::Certabo(_) => {
                NormalBoard::Identity
            }
        },
        lang,
        verbosity: config.verbosity,
        name_captured: config.name_captured,
        confirm_own_moves: config.confirm_own_moves,
        terse_below_ms: config.terse_below_ms,
        touch_move: tc.touch_move,
        debounce_ms: tc.debounce_ms,
        time_control: tc
            .time_control
            .clone()
            .unwrap_or_else(|| config.time_control.clone()),
        announce: config.announce.clone(),
        start_fen: tc.fen.clone(),
        chess960: false,
        tags: tc.tags.clone(),
        correspondence: match &tc.kind {
            crate::config::TableKind::Correspondence { game_id, .. } => {
                Some(game_id.as_str().to_owned())
            }
            crate::config::TableKind::Board => None,
        },
        days: match &tc.kind {
            crate::config::TableKind::Correspondence { days, .. } => Some(*days),
            crate::config::TableKind::Board => None,
        },
    }
}

/// Restores the table's game from the journal, or begins a new one when there is none or the
/// last one is over. Returns the outputs to perform before the table runs.
async fn open_table(
    store: &StoreHandle,
    settings: TableSettings,
    last_alive: Option<u64>,
    config: &Config,
) -> anyhow::Result<(Table, Step, u64, TableClock)> {
    let name = settings.name.clone();
    crate::app::archive_repair::archive_missing(store, &config.state_dir, &settings).await;
    let entries = store
        .load(&name)
        .await
        .with_context(|| format!("table {name}: reading its journal"))?;
    let wall = unix_ms();
    if !entries.is_empty() {
        let journal: Vec<(u64, String)> = entries
            .iter()
            .map(|e| (e.at_unix_ms, e.line.clone()))
            .collect();
        let mut table = Table::restore(settings.clone(), &journal).with_context(|| {
            format!(
                "table {name}: its records in {} do not replay; stop here, keep a copy of the state directory and restore it from a backup (docs/storage.md)",
                config.state_dir.join(crate::io::store::JOURNAL_FILE).display()
            )
        })?;
        if !table.game().is_over() {
            let last_record = journal.last().map_or(0, |(at, _)| *at);
            let alive = last_alive.unwrap_or(last_record).max(last_record);
            // The table's time goes on from its last record: the clocks continue, and the
            // restart's gap is charged only by the rebase record.
            let clock = TableClock::starting_at(table.table_time());
            let out = table.resume(clock.now(), alive, config.charge_downtime);
            let game = store.current_game(&name).await?.unwrap_or(0);
            tracing::info!(table = %name, plies = table.game().ply_count(), "game restored");
            return Ok((table, out, game, clock));
        }
        tracing::info!(table = %name, "the last game is over; a new one begins");
    }
    let game = store.begin_game(&name, wall).await?;
    let clock = TableClock::starting_at(0);
    let (table, out) = Table::new(settings, clock.now()).map_err(anyhow::Error::msg)?;
    Ok((table, out, game, clock))
}

/// Lines typed on the daemon's standard input drive the simulated board.
fn forward_stdin(operator: std::sync::mpsc::Sender<String>) {
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if operator.send(line).is_err() {
                break;
            }
        }
    });
}
