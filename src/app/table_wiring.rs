//! One configured table wired up: its game restored or begun, its channels, its board links, its
//! place at the correspondence desk, its actor started; one typed handle for the rest.

use std::sync::Arc;

use anyhow::Context;
use tokio::sync::{broadcast, mpsc, watch};
use tokio::task::JoinSet;

use crate::app::board_links::{BOARD_BACKLOG, decoders, spawn_link, spawn_link_with};
use crate::app::desk::DeskTable;
use crate::app::desk_link::Notice;
use crate::app::mail_desk::MailTable;
use crate::app::table_actor::{BoardMessage, DeskLink, TableActor};
use crate::boards::Protocol;
use crate::chess::language::Language;
use crate::config::{
    Config, CorrespondenceSource, NormalBoard as NormalConfig, PegSource, TableConfig, TableKind,
};
use crate::control::hub::{EVENT_BACKLOG, REQUEST_BACKLOG, TableHandle};
use crate::io::clock::{TableClock, restart_gap, unix_ms};
use crate::io::simulator::SimulatedBoard;
use crate::io::speech::{BackendSpec, OutputSpec, Speaker};
use crate::io::store::StoreHandle;
use crate::table::control::GameTag;
use crate::table::name::TableName;
use crate::table::state::{BoardId, NormalBoard, Step, Table, TableSettings};

/// Each table's name and time, for its sign of life at each heartbeat; server games join
/// while the daemon runs (read briefly, never held across an await).
pub type Clocks = Arc<std::sync::RwLock<Vec<(String, TableClock)>>>;

/// What every table is wired with: the daemon's parts made before the tables.
pub struct Wiring<'a> {
    pub config: &'a Config,
    pub store: &'a StoreHandle,
    pub speaker: &'a Arc<Speaker>,
    /// The daemon's language, for the tables without one of their own.
    pub lang: &'static Language,
    /// The last heartbeat of the daemon before this start, which bounds the downtime.
    pub last_alive: Option<u64>,
    /// Where the correspondence tables tell the desk and the mail what changed.
    pub notices: &'a mpsc::Sender<Notice>,
    pub shutdown: &'a watch::Receiver<bool>,
    /// Simulated peg boards read operator lines from standard input (`serve --peg sim`).
    pub sim_from_stdin: bool,
}

/// One running table as the rest of the daemon reaches it.
pub struct WiredTable {
    pub name: TableName,
    /// Its requests and events, for the control interface.
    pub handle: TableHandle,
    /// Its place at the desk and in the mail, for a correspondence table.
    pub correspondence: Option<Correspondence>,
    /// Operator lines for its simulated peg board (`--peg sim`).
    pub simulated: Option<std::sync::mpsc::Sender<String>>,
    /// Its time, for the heartbeat's sign of life.
    pub clock: TableClock,
}

/// A correspondence table as the desk and the mail (or its server) reach it.
pub struct Correspondence {
    pub desk: DeskTable,
    pub mail: MailTable,
    /// Where its game is played: the mail desk or a server desk plays it.
    pub source: crate::config::CorrespondenceSource,
}

/// Wires the table `tc` and starts its actor; `desk_index` is its place in the desk's list
/// (the number of correspondence tables before it).
pub async fn wire_table(
    wiring: &Wiring<'_>,
    tasks: &mut JoinSet<()>,
    tc: &TableConfig,
    desk_index: usize,
) -> anyhow::Result<WiredTable> {
    let config = wiring.config;
    // A table with its own language keeps it for the daemon's life too.
    let lang: &'static Language = match &tc.lang {
        Some(own) => Box::leak(Box::new(own.clone())),
        None => wiring.lang,
    };
    let settings = table_settings(config, tc, lang);
    let (table, startup, game_no, clock) = open_table(
        wiring.store,
        settings,
        wiring.last_alive,
        config,
        tc.peg != PegSource::None,
    )
    .await?;
    let (requests_tx, requests) = mpsc::channel(REQUEST_BACKLOG);
    let (events, _) = broadcast::channel(EVENT_BACKLOG);
    let (boards_tx, boards) = mpsc::channel::<BoardMessage>(BOARD_BACKLOG);
    let handle = TableHandle {
        name: Arc::from(tc.name.as_str()),
        requests: requests_tx,
        events,
    };
    // A lichess table's requests pass its lichess task first (`seek`, `challenge`).
    let handle = match tc.kind {
        TableKind::Lichess => crate::app::lichess_table::start(
            tasks,
            config.lichess.as_ref(),
            tc,
            lang,
            wiring.speaker,
            handle,
            wiring.shutdown,
        )?,
        _ => handle,
    };
    let simulated = link_peg(wiring, tasks, tc, &table, lang, &boards_tx)?;
    link_normal(wiring, tasks, tc, &boards_tx);
    let (desk, correspondence) =
        match join_desk(wiring, tc, &table, lang, &handle, &boards_tx, desk_index) {
            Some((link, parts)) => (Some(link), Some(parts)),
            None => (None, None),
        };
    drop(boards_tx);

    let mut actor = TableActor {
        table,
        clock: clock.clone(),
        journal: Arc::new(wiring.store.clone()),
        speaker: Arc::clone(wiring.speaker),
        voice: lang.code().to_owned(),
        // The audio record is named after the game: a name safe as a file, as the page
        // looks it up (`/audio/TABLE`).
        game_id: format!("{}-{game_no}", tc.name.file_stem()),
        game_stem: tc.name.file_stem(),
        events: handle.events.clone(),
        record_dir: config.state_dir.join("records"),
        desk,
        cassette: tc.cassette,
    };
    actor
        .perform(startup)
        .await
        .map_err(|e| anyhow::anyhow!("table {}: {e}", tc.name))?;
    actor.tell_desk();
    tasks.spawn(actor.run(requests, boards, wiring.shutdown.clone()));
    Ok(WiredTable {
        name: tc.name.clone(),
        handle,
        correspondence,
        simulated,
        clock,
    })
}

/// Links the table's peg board: a device, a simulated board on a pseudo-terminal (whose
/// operator lines are returned), or none (a correspondence table gets the desk's).
fn link_peg(
    wiring: &Wiring<'_>,
    tasks: &mut JoinSet<()>,
    tc: &TableConfig,
    table: &Table,
    lang: &'static Language,
    boards: &mpsc::Sender<BoardMessage>,
) -> anyhow::Result<Option<std::sync::mpsc::Sender<String>>> {
    let (endpoint, operator) = match &tc.peg {
        PegSource::Device(endpoint) => (endpoint.clone(), None),
        PegSource::None => return Ok(None),
        PegSource::Simulated => {
            let board = SimulatedBoard::new(Protocol::Peg, table.game().clone(), lang.clone());
            let (endpoint, operator) = crate::io::sim_socket::plug_in(board, Protocol::Peg)
                .with_context(|| format!("table {}: the simulated peg board", tc.name))?;
            tracing::info!(target: "annabella::app::daemon", table = %tc.name, device = %endpoint, "simulated peg board");
            (endpoint, Some(operator))
        }
    };
    spawn_link(
        tasks,
        endpoint,
        Protocol::Peg,
        BoardId::Peg,
        boards.clone(),
        wiring.shutdown,
    );
    if let Some(operator) = &operator
        && wiring.sim_from_stdin
    {
        forward_stdin(operator.clone());
    }
    Ok(operator)
}

/// Links the table's normal board, when it is an electronic one.
fn link_normal(
    wiring: &Wiring<'_>,
    tasks: &mut JoinSet<()>,
    tc: &TableConfig,
    boards: &mpsc::Sender<BoardMessage>,
) {
    let Some((protocol, endpoint)) = tc.normal.link() else {
        return;
    };
    // A Certabo board's calibration is kept per table in the state directory.
    let calibration = wiring
        .config
        .state_dir
        .join("certabo")
        .join(format!("{}.calibration", tc.name.file_stem()));
    spawn_link_with(
        tasks,
        endpoint.clone(),
        protocol,
        decoders(protocol, calibration),
        BoardId::Normal,
        boards.clone(),
        wiring.shutdown,
    );
}

/// For a correspondence table: how its actor tells the desk and the mail what it is now, and
/// how they reach it. `None` for a board table.
fn join_desk(
    wiring: &Wiring<'_>,
    tc: &TableConfig,
    table: &Table,
    lang: &'static Language,
    handle: &TableHandle,
    boards: &mpsc::Sender<BoardMessage>,
    index: usize,
) -> Option<(DeskLink, Correspondence)> {
    let TableKind::Correspondence {
        opponent_email,
        opponent_addresses,
        game_id,
        source,
        ..
    } = &tc.kind
    else {
        return None;
    };
    let (view_tx, view) = watch::channel(Arc::new(table.desk_view(unix_ms())));
    let desk = DeskTable {
        name: handle.name.clone(),
        game: game_id.as_str().to_owned(),
        boards: boards.clone(),
        view: view.clone(),
        events: handle.events.clone(),
        voice: lang.code().to_owned(),
        lang: lang.code(),
        record_id: format!("{}-desk", tc.name.file_stem()),
    };
    let tag = |t: GameTag, or: &str| {
        tc.tags
            .iter()
            .find(|(k, _)| *k == t)
            .map_or(or.to_owned(), |(_, v)| v.clone())
    };
    let mail = MailTable {
        handle: handle.clone(),
        index,
        game_id: game_id.clone(),
        opponent_email: opponent_email.clone(),
        opponent_addresses: opponent_addresses.clone(),
        white: tag(GameTag::White, "White"),
        black: tag(GameTag::Black, "Black"),
        view,
        lang,
    };
    let link = DeskLink {
        index,
        view: view_tx,
        notices: wiring.notices.clone(),
        braille: wiring
            .config
            .state_dir
            .join("braille")
            .join(format!("{}.brf", tc.name.file_stem())),
        scored: None,
    };
    Some((
        link,
        Correspondence {
            desk,
            mail,
            source: *source,
        },
    ))
}

/// The table's settings from the configuration (its own keys, or the daemon's).
pub fn table_settings(config: &Config, tc: &TableConfig, lang: &'static Language) -> TableSettings {
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
            TableKind::Correspondence { game_id, .. } => Some(game_id.as_str().to_owned()),
            TableKind::Board | TableKind::Lichess => None,
        },
        days: match &tc.kind {
            TableKind::Correspondence { days, .. } => Some(*days),
            TableKind::Board | TableKind::Lichess => None,
        },
        confirm_send: config.desk.confirm,
        shared_speaker: matches!(tc.kind, TableKind::Board | TableKind::Lichess)
            && shared_speaker(&config.speech),
        server_game: tc.kind == TableKind::Lichess,
        claims_to_server: matches!(
            tc.kind,
            TableKind::Correspondence {
                source: CorrespondenceSource::Xfcc | CorrespondenceSource::Lichess,
                ..
            }
        ),
        messages_to_server: matches!(
            tc.kind,
            TableKind::Correspondence {
                source: CorrespondenceSource::Xfcc,
                ..
            }
        ),
    }
}

/// Whether one voice at the table (`tts`, `espeak-ng`, `espeak-ng@DEVICE`) serves both the
/// blind player and the opponent (the default single output, or `blind+opponent=…`): then a
/// board's sentences say whose board. The audio record (`wav:DIR`) and the transcript are
/// heard by nobody at the table. A game by mail has no opponent at the table.
pub fn shared_speaker(outputs: &[OutputSpec]) -> bool {
    outputs.iter().any(|o| {
        let heard = matches!(
            o.backend,
            BackendSpec::Tts | BackendSpec::EspeakNg | BackendSpec::EspeakNgOn(_)
        );
        heard && o.listeners.blind && o.listeners.opponent
    })
}

/// Restores the table's game from the journal, or begins a new one when there is none or the
/// last one is over. Returns the outputs to perform before the table runs. A game begun after
/// a finished one waits for its boards to be set up (`peg_board`: the table has one to set up),
/// as after the arbiter's `new-game`.
async fn open_table(
    store: &StoreHandle,
    settings: TableSettings,
    last_alive: Option<u64>,
    config: &Config,
    peg_board: bool,
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
            // The table's own sign of life at the last heartbeat (`docs/clock.md`): the gap is
            // then measured without the wall clock unless the machine rebooted.
            let own = store.last_alive(&name).await.ok().flatten();
            // The table's time goes on from its last record or its last sign of life, whichever
            // is later (a second restart before the next heartbeat charges that time once):
            // the clocks continue, and the restart's gap is charged only by the rebase record.
            let base = own
                .as_ref()
                .map_or(0, |a| a.table_ms)
                .max(table.table_time());
            let clock = TableClock::starting_at(base);
            let now = clock.now();
            let gap = restart_gap(own.as_ref(), alive, now.unix_ms);
            let out = table.resume_after(now, gap, config.charge_downtime);
            tell_resumed(&name, &gap, &out);
            let game = store.current_game(&name).await?.unwrap_or(0);
            tracing::info!(target: "annabella::app::daemon", table = %name, plies = table.game().ply_count(), "game restored");
            return Ok((table, out, game, clock));
        }
        tracing::info!(target: "annabella::app::daemon", table = %name, "the last game is over; a new one begins");
        let game = store.begin_game(&name, wall).await?;
        let clock = TableClock::starting_at(0);
        let (table, out) =
            Table::next_game(settings, clock.now(), peg_board).map_err(anyhow::Error::msg)?;
        return Ok((table, out, game, clock));
    }
    // The first game at this table: its clock, too, waits until the boards are set up
    // (issue 24), or it would run from the daemon's start.
    let game = store.begin_game(&name, wall).await?;
    let clock = TableClock::starting_at(0);
    let (table, out) =
        Table::next_game(settings, clock.now(), peg_board).map_err(anyhow::Error::msg)?;
    Ok((table, out, game, clock))
}

/// The operator's log says what a restart charged, and by which clock it measured the gap.
fn tell_resumed(name: &TableName, gap: &crate::table::state::RestartGap, out: &Step) {
    for event in out.events() {
        if let crate::table::event::TableEvent::Resumed {
            downtime_ms,
            charged_ms,
            measured_by,
        } = event
        {
            tracing::info!(
                target: "annabella::app::daemon",
                table = %name,
                downtime_ms,
                charged_ms,
                measured_by = measured_by.name(),
                alive_table_ms = ?gap.alive_table_ms,
                "clock resumed"
            );
        }
    }
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

#[cfg(test)]
mod tests {
    use super::shared_speaker;
    use crate::io::speech::parse_outputs;

    #[test]
    fn a_voice_both_players_hear_is_a_shared_speaker_a_record_is_not() {
        let shared = |spec: &str| shared_speaker(&parse_outputs(spec).unwrap());
        assert!(shared("tts"), "the default: one voice for everyone");
        assert!(shared("blind+opponent=espeak-ng,arbiter=tts"));
        assert!(shared("blind+opponent+arbiter=espeak-ng@plughw:1"));
        assert!(!shared(
            "blind=espeak-ng@plughw:1,opponent+arbiter=espeak-ng@plughw:2"
        ));
        assert!(!shared("blind=tts,wav:/srv/rec,transcript:/tmp/t.txt"));
        assert!(!shared("none"));
    }
}
