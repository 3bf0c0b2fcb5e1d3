//! `annabella serve` wired up: the journal, the tokens, speech, one actor per table with its
//! board links, the control interface, the heartbeat; and a graceful stop.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinSet;

use crate::app::desk_link::{NOTICE_BACKLOG, Notice};
use crate::app::table_actor::Journal;
use crate::app::table_wiring::{Clocks, WiredTable, Wiring, wire_table};
use crate::chess::language::Language;
use crate::config::Config;
use crate::control::hub::Hub;
use crate::control::session_driver::ControlService;
use crate::control::web::WebSettings;
use crate::io::clock::unix_ms;
use crate::io::speech::devices::AudioOutputs;
use crate::io::speech::{Speaker, SpeechSettings};
use crate::io::store::{Store, StoreError, StoreHandle};
use crate::io::tokens::Tokens;
use crate::table::name::TableName;

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

/// Operator lines for the simulated peg boards, by table name.
type Simulated = Vec<(TableName, std::sync::mpsc::Sender<String>)>;

/// Runs every table until `shutdown` turns true.
pub async fn run(
    config: Config,
    mut shutdown: watch::Receiver<bool>,
    options: Options,
) -> anyhow::Result<()> {
    let started = Instant::now();
    let store = open_journal(&config)?;
    let tokens = load_tokens(&config)?;
    let speaker = start_speech(&config);
    // Settings borrow the language for the daemon's whole life.
    let lang: &'static Language = Box::leak(Box::new(config.lang.clone()));
    let last_alive = store.last_heartbeat().await.ok().flatten();
    // The ports are taken before anything is said, so that a port in use ends the start before
    // "annabella bereit"; and the ready phrase is said before the tables' first words (an
    // appliance without a screen says what it is first, then "Neue Partie").
    let control_listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("listening on {}", config.listen))?;
    let page_listener = bind_page(&config).await?;
    let web = page_listener.as_ref().map(|l| l.local_addr()).transpose()?;
    crate::app::ready::announce(&speaker, lang, web, unix_ms());

    let mut tasks = JoinSet::new();
    // The correspondence tables tell the desk and the mail what changed.
    let (notices_tx, notices) = mpsc::channel(NOTICE_BACKLOG);
    let wiring = Wiring {
        config: &config,
        store: &store,
        speaker: &speaker,
        lang,
        last_alive,
        notices: &notices_tx,
        shutdown: &shutdown,
        sim_from_stdin: options.sim_from_stdin,
    };
    let mut tables: Vec<WiredTable> = Vec::new();
    for tc in &config.tables {
        let desk_index = tables.iter().filter(|t| t.correspondence.is_some()).count();
        tables.push(wire_table(&wiring, &mut tasks, tc, desk_index).await?);
    }
    let clocks: Clocks = Arc::new(std::sync::RwLock::new(
        tables
            .iter()
            .map(|t| (t.name.as_str().to_owned(), t.clock.clone()))
            .collect(),
    ));
    let (hub, simulated) = start_desk(&wiring, &mut tasks, tables, notices, &clocks).await?;
    let hub = crate::app::broadcast::start(config.broadcast.as_ref(), hub, &mut tasks, &shutdown)
        .map_err(anyhow::Error::msg)?;
    drop(notices_tx);

    let audio = Arc::new(AudioOutputs::new(Arc::clone(&speaker), lang));
    let (listen, control) = serve_control(
        &config,
        control_listener,
        hub.clone(),
        tokens,
        audio,
        &mut tasks,
        &shutdown,
    )?;
    if let Some(listener) = page_listener {
        serve_page(&config, listener, control, lang, &mut tasks, &shutdown);
    }
    spawn_heartbeat(&mut tasks, store.clone(), clocks.clone(), shutdown.clone());
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
    shut_down(tasks, &speaker, &store, &clocks).await;
    Ok(())
}

/// Opens the journal in the state directory, on a thread of its own.
fn open_journal(config: &Config) -> anyhow::Result<StoreHandle> {
    Store::open(&config.state_dir)
        .and_then(StoreHandle::spawn)
        .with_context(|| format!("opening the journal in {}", config.state_dir.display()))
}

/// Loads the control interface's tokens (creating them on the first start), and refuses to
/// listen beyond this machine without them.
fn load_tokens(config: &Config) -> anyhow::Result<Tokens> {
    let names = crate::io::tokens::known_tables(
        config.tables.iter().map(|t| t.name.as_str()),
        config.xfcc.is_some(),
        config.lichess.is_some(),
    );
    let loaded = crate::io::tokens::load_or_create(&config.state_dir, &config.tokens, &names)
        .context("loading the control interface's tokens")?;
    if loaded.created {
        tracing::info!(path = %loaded.path.display(), "created a token for each role");
    }
    crate::control::tcp::check_listen(config.listen, &loaded.tokens).map_err(anyhow::Error::msg)?;
    Ok(loaded.tokens)
}

/// The speaker on the configured outputs, in the daemon's language.
fn start_speech(config: &Config) -> Arc<Speaker> {
    Arc::new(Speaker::with_settings(
        &config.speech,
        SpeechSettings {
            rate_wpm: config.speech_rate,
            languages: vec![config.lang.clone()],
        },
        crate::io::speech::DEFAULT_QUEUE_CAPACITY,
    ))
}

/// The tables as the control interface reaches them: with the desk when a table is a
/// correspondence table or a server's games are played here, the mail when it is configured,
/// and the server desks (`[xfcc]`). Returns the hub and the simulated boards' operator lines
/// (the tables' first, then the desk's).
async fn start_desk(
    wiring: &Wiring<'_>,
    tasks: &mut JoinSet<()>,
    tables: Vec<WiredTable>,
    notices: mpsc::Receiver<Notice>,
    clocks: &Clocks,
) -> anyhow::Result<(Hub, Simulated)> {
    use crate::config::CorrespondenceSource;
    let config = wiring.config;
    let mut handles = Vec::new();
    let mut simulated = Vec::new();
    let mut desk_tables = Vec::new();
    let mut mail_tables = Vec::new();
    let mut xfcc_tables = Vec::new();
    let mut lichess_tables = Vec::new();
    for table in tables {
        handles.push(table.handle);
        if let Some(operator) = table.simulated {
            simulated.push((table.name, operator));
        }
        if let Some(correspondence) = table.correspondence {
            desk_tables.push(correspondence.desk);
            match correspondence.source {
                CorrespondenceSource::Mail => mail_tables.push(correspondence.mail),
                CorrespondenceSource::Xfcc => xfcc_tables.push(correspondence.mail),
                CorrespondenceSource::Lichess => lichess_tables.push(correspondence.mail),
            }
        }
    }
    let hub = Hub::new(handles);
    let servers = config.xfcc.is_some() || config.lichess.is_some();
    if desk_tables.is_empty() && !servers {
        if config.mail.is_some() {
            tracing::warn!(
                "[mail] is configured but no table is kind = \"correspondence\"; no mail is read"
            );
        }
        return Ok((hub, simulated));
    }
    let desk_count = desk_tables.len();
    // The mail desk answers `mail …` for the control sessions and `KJ` for the desk.
    let (mail_tx, mail_rx) = tokio::sync::mpsc::channel(crate::control::hub::REQUEST_BACKLOG);
    let mail_tx = config.mail.is_some().then_some(mail_tx);
    let (poke_tx, poke) = watch::channel(0u64);
    let (desk, additions) = crate::app::desk::spawn(
        tasks,
        config,
        desk_tables,
        notices,
        mail_tx,
        servers.then_some(poke_tx),
        Arc::clone(wiring.speaker),
        wiring.lang,
        wiring.shutdown,
        &mut simulated,
    )
    .map_err(anyhow::Error::msg)?;
    if let Some(mail) = &config.mail {
        crate::app::mail_desk::spawn(
            tasks,
            &config.state_dir,
            mail,
            mail_tables,
            wiring.notices.clone(),
            mail_rx,
            wiring.shutdown,
        )
        .map_err(anyhow::Error::msg)?;
    }
    let hub = hub.with_desk(desk);
    let servers = ServerTables {
        additions,
        desk_count,
        xfcc: xfcc_tables,
        lichess: lichess_tables,
        poke,
        clocks: Arc::clone(clocks),
    };
    start_servers(wiring, tasks, &hub, servers).await?;
    Ok((hub, simulated))
}

/// What the server desks start from: the desk's channel for new tables and its count, the
/// configured tables of each server, the desk's call to ask the servers at once.
struct ServerTables {
    additions: mpsc::Sender<crate::app::desk::DeskTable>,
    desk_count: usize,
    xfcc: Vec<crate::app::mail_desk::MailTable>,
    lichess: Vec<crate::app::mail_desk::MailTable>,
    poke: watch::Receiver<u64>,
    clocks: Clocks,
}

/// Starts the server desks configured (`[xfcc]`, `[lichess]`), each game known wired before
/// the daemon says it is ready.
async fn start_servers(
    wiring: &Wiring<'_>,
    tasks: &mut JoinSet<()>,
    hub: &Hub,
    servers: ServerTables,
) -> anyhow::Result<()> {
    let config = wiring.config;
    let parts = crate::app::server_desk::ServerParts {
        config: Arc::new(config.clone()),
        store: wiring.store.clone(),
        speaker: Arc::clone(wiring.speaker),
        lang: wiring.lang,
        last_alive: wiring.last_alive,
        notices: wiring.notices.clone(),
        shutdown: wiring.shutdown.clone(),
        hub: hub.clone(),
        desk: servers.additions,
        desk_count: Arc::new(tokio::sync::Mutex::new(servers.desk_count)),
        clocks: servers.clocks,
    };
    if let Some(xfcc) = &config.xfcc {
        // The secret from its environment variable, now; never logged or written.
        let password = xfcc.password().map_err(anyhow::Error::msg)?;
        let desk =
            crate::app::server_desk::xfcc::prepare(parts.clone(), xfcc, password, servers.xfcc)
                .await;
        if let Some(desk) = desk {
            tasks.spawn(crate::app::server_desk::xfcc::run(
                desk,
                servers.poke.clone(),
            ));
        }
    }
    if let Some(lichess) = &config.lichess {
        let token = lichess.token().map_err(anyhow::Error::msg)?;
        let desk =
            crate::app::server_desk::lichess::prepare(parts, lichess, token, servers.lichess).await;
        if let Some(desk) = desk {
            tasks.spawn(crate::app::server_desk::lichess::run(desk, servers.poke));
        }
    }
    Ok(())
}

/// Serves control connections on `listener`; returns its address and the control service,
/// which the page shares.
fn serve_control(
    config: &Config,
    listener: tokio::net::TcpListener,
    hub: Hub,
    tokens: Tokens,
    audio: Arc<AudioOutputs>,
    tasks: &mut JoinSet<()>,
    shutdown: &watch::Receiver<bool>,
) -> anyhow::Result<(SocketAddr, ControlService)> {
    let listen = listener.local_addr()?;
    // New connections speak English until they ask for another language (`lang`), as the
    // control protocol documents; the tables' words stay in their own languages.
    let control = ControlService::new(hub, tokens, config.control.clone()).with_audio(audio);
    tasks.spawn(crate::control::tcp::run(
        listener,
        control.clone(),
        shutdown.clone(),
    ));
    Ok((listen, control))
}

/// The web page's port when the page is configured.
async fn bind_page(config: &Config) -> anyhow::Result<Option<tokio::net::TcpListener>> {
    let Some(addr) = config.web_listen else {
        return Ok(None);
    };
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("listening for the web page on {addr}"))?;
    Ok(Some(listener))
}

/// Serves the web page on `listener`.
fn serve_page(
    config: &Config,
    listener: tokio::net::TcpListener,
    control: ControlService,
    lang: &'static Language,
    tasks: &mut JoinSet<()>,
    shutdown: &watch::Receiver<bool>,
) {
    let backends: Vec<_> = config.speech.iter().map(|o| o.backend.clone()).collect();
    let mut settings = WebSettings::new(lang, &backends);
    settings.allowed_hosts = config.web_hosts.clone();
    settings.trusted_proxies = config.web_trusted_proxies.clone();
    settings.pages_per_address = config.web_pages_per_address;
    settings.max_connections =
        config.control.max_connections + crate::control::session_driver::ROOM_WAITERS;
    let shutdown = shutdown.clone();
    tasks.spawn(async move {
        if let Err(e) = crate::control::web::run(listener, control, settings, shutdown).await {
            tracing::error!(error = %e, "the web page stopped");
        }
    });
}

/// Every table's sign of life now: its table time, the boot and the boot-time clock.
fn signs_of_life(clocks: &Clocks) -> Vec<crate::io::store::Alive> {
    clocks
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .map(|(name, clock)| crate::io::clock::alive(name, clock.now().table_ms))
        .collect()
}

/// Stamps "still alive" in the journal every [`HEARTBEAT`] until shutdown, with each table's
/// own sign of life (what a restart measures its gap from, `docs/clock.md`).
fn spawn_heartbeat(
    tasks: &mut JoinSet<()>,
    store: StoreHandle,
    clocks: Clocks,
    mut shutdown: watch::Receiver<bool>,
) {
    tasks.spawn(async move {
        let mut tick = tokio::time::interval(HEARTBEAT);
        // A failing heartbeat is said when it starts failing (or fails otherwise), not
        // every second; a state directory gone is an error, every write now refused.
        let mut failing = None;
        loop {
            tokio::select! {
                _ = tick.tick() => match store.heartbeat_with(unix_ms(), signs_of_life(&clocks)).await {
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

/// Waits for every task, gives the last words a moment, stamps the journal and closes it.
async fn shut_down(
    mut tasks: JoinSet<()>,
    speaker: &Arc<Speaker>,
    store: &StoreHandle,
    clocks: &Clocks,
) {
    while tasks.join_next().await.is_some() {}
    // The last announcement (a result, a flag) is worth a moment before the voice is cut.
    let speaker = Arc::clone(speaker);
    tokio::task::spawn_blocking(move || speaker.flush_blocking(Duration::from_secs(3)))
        .await
        .ok();
    store
        .heartbeat_with(unix_ms(), signs_of_life(clocks))
        .await
        .ok();
    // Releases the state directory's lock: the same process (the demo, tests) or the next
    // daemon may open it again at once.
    if let Err(e) = store.close().await {
        tracing::warn!(error = %e, "closing the journal");
    }
    tracing::info!("stopped");
}
