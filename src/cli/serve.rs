//! `annabella serve`: the daemon — the configuration file, overridden by flags, validated key by
//! key; logging; the runtime; SIGINT and SIGTERM for a graceful stop.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use crate::config::{RawConfig, RawTable};

#[derive(Debug, Args, Default)]
pub struct ServeArgs {
    /// The TOML configuration (config/annabella.example.toml documents every key). Flags
    /// override it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The blind player's peg board: a serial device, tcp:HOST:PORT, or `sim` for a simulated
    /// board on a pseudo-terminal driven from standard input.
    #[arg(long, value_name = "DEVICE|tcp:HOST:PORT|sim")]
    pub peg: Option<String>,
    /// The side the blind player plays: white or black.
    #[arg(long, value_name = "white|black")]
    pub peg_side: Option<String>,
    /// The sighted player's board: `virtual` (moves come from the control interface),
    /// dgt:DEVICE, millennium:DEVICE or certabo:DEVICE (DEVICE a serial device or
    /// tcp:HOST:PORT).
    #[arg(long, value_name = "dgt|millennium|certabo:DEVICE|virtual")]
    pub normal: Option<String>,
    /// The first game's start position (a FEN); later games: the arbiter's `new-game`.
    #[arg(long, value_name = "FEN")]
    pub fen: Option<String>,
    /// White's name for the scoresheet (PGN tag).
    #[arg(long, value_name = "NAME")]
    pub white: Option<String>,
    /// Black's name for the scoresheet (PGN tag).
    #[arg(long, value_name = "NAME")]
    pub black: Option<String>,
    /// The event (PGN tag).
    #[arg(long, value_name = "TEXT")]
    pub event: Option<String>,
    /// The round (PGN tag).
    #[arg(long, value_name = "TEXT")]
    pub round: Option<String>,
    /// Address of the control interface.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
    /// Address of the table's web page, or `off`.
    #[arg(long, value_name = "ADDR|off")]
    pub web: Option<String>,
    /// Speech outputs, comma-separated, each optionally for some listeners:
    /// [blind|opponent|arbiter[+…]=]tts|espeak-ng|espeak-ng@DEVICE|wav:DIR|transcript:FILE|none.
    #[arg(long, value_name = "[LISTENERS=]BACKEND[,…]")]
    pub speech: Option<String>,
    /// Speech rate in words per minute (80 to 450; espeak-ng's default is 175).
    #[arg(long, value_name = "WPM")]
    pub speech_rate: Option<u32>,
    /// Language of the announcements: de, en, es, fr, it, nl, pt or a language file.
    #[arg(long)]
    pub lang: Option<String>,
    /// Spoken moves: short or long.
    #[arg(long)]
    pub verbosity: Option<String>,
    /// PGN TimeControl with delays, e.g. 40/5400+30:1800+30, 300d5, or with units: 90m+30s.
    #[arg(long, value_name = "TC")]
    pub time_control: Option<String>,
    /// Where tokens, the journal and finished games are kept.
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// Log format: human or json.
    #[arg(long, value_name = "human|json")]
    pub log_format: Option<String>,
}

impl ServeArgs {
    /// The configuration file (or the defaults) with the flags applied, not yet validated.
    pub fn raw_config(&self) -> anyhow::Result<RawConfig> {
        let mut raw = match &self.config {
            Some(path) => RawConfig::read(path)?,
            None => RawConfig::default(),
        };
        let set = |field: &mut String, value: &Option<String>| {
            if let Some(v) = value {
                field.clone_from(v);
            }
        };
        set(&mut raw.listen, &self.listen);
        set(&mut raw.web_listen, &self.web);
        set(&mut raw.log_format, &self.log_format);
        set(&mut raw.speech.backends, &self.speech);
        if self.speech_rate.is_some() {
            raw.speech.rate = self.speech_rate;
        }
        set(&mut raw.speech.lang, &self.lang);
        set(&mut raw.speech.verbosity, &self.verbosity);
        set(&mut raw.clock.time_control, &self.time_control);
        if let Some(dir) = &self.state_dir {
            raw.state_dir.clone_from(dir);
        }
        let table_flags = [
            &self.peg,
            &self.peg_side,
            &self.normal,
            &self.fen,
            &self.white,
            &self.black,
            &self.event,
            &self.round,
        ]
        .iter()
        .any(|f| f.is_some());
        if table_flags {
            if raw.tables.len() > 1 {
                anyhow::bail!(
                    "--peg, --peg-side, --normal, --fen, --white, --black, --event and --round \
                     describe the one table of a simple setup; the configuration has {} tables: \
                     set them in its [[table]] sections",
                    raw.tables.len()
                );
            }
            if raw.tables.is_empty() {
                raw.tables.push(RawTable::default());
            }
            let table = &mut raw.tables[0];
            set(&mut table.peg, &self.peg);
            set(&mut table.peg_side, &self.peg_side);
            set(&mut table.normal, &self.normal);
            set(&mut table.fen, &self.fen);
            set(&mut table.white, &self.white);
            set(&mut table.black, &self.black);
            set(&mut table.event, &self.event);
            set(&mut table.round, &self.round);
        }
        Ok(raw)
    }
}

pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let raw = args.raw_config()?;
    let config = raw.validate().with_context(|| match &args.config {
        Some(path) => format!("configuration {}", path.display()),
        None => "configuration".to_owned(),
    })?;
    init_logging_to(config.json_logs, "info", config.log_file.as_ref())?;
    crate::io::private_file::share_records_with_group(config.records_group_readable);
    #[cfg(windows)]
    if config.records_group_readable {
        tracing::warn!(
            "records_group_readable has no effect on Windows: a folder's readers are set in its \
             Properties, Security tab (docs/windows.md)"
        );
    }
    // Whatever a service file or a shell left as the umask, nothing the daemon creates is
    // readable by others (SQLite creates its files 0644 less the umask); records shared with
    // the group get their modes set exactly where they are made (`io::private_file`).
    // Windows has no umask: files in the user's profile are private by its ACL
    // (docs/windows.md).
    #[cfg(unix)]
    nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(0o077));
    raise_open_file_limit();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("annabella")
        .build()
        .context("starting the runtime")?;
    runtime.block_on(async move {
        let (stop, shutdown) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            wait_for_signal().await;
            tracing::info!("stopping: finishing what is under way");
            stop.send(true).ok();
        });
        let options = crate::app::daemon::Options {
            // `--peg sim`: the person at the terminal plays the peg board's moves.
            sim_from_stdin: true,
            ..crate::app::daemon::Options::default()
        };
        crate::app::daemon::run(config, shutdown, options).await
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Raises the open-file limit to what the system allows (systemd's default soft limit is
/// 1024): connections that come and go must never leave the board links, the journal and
/// the archive without a file descriptor. Says what it got.
#[cfg(unix)]
fn raise_open_file_limit() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    match getrlimit(Resource::RLIMIT_NOFILE) {
        Ok((soft, hard)) if soft < hard => match setrlimit(Resource::RLIMIT_NOFILE, hard, hard) {
            Ok(()) => tracing::info!(from = soft, to = hard, "open-file limit raised"),
            Err(e) => {
                tracing::warn!(soft, hard, error = %e, "the open-file limit could not be raised")
            }
        },
        Ok((soft, _)) => tracing::debug!(soft, "open-file limit"),
        Err(e) => tracing::warn!(error = %e, "the open-file limit could not be read"),
    }
}

/// Windows has no open-file limit to raise: a process may hold 16 million handles, and the C
/// runtime's own limit does not apply to the sockets and files Rust opens.
#[cfg(windows)]
fn raise_open_file_limit() {}

/// Logs to standard error: readable lines by default, JSON objects for log collectors.
/// `RUST_LOG` overrides the level.
pub fn init_logging(json: bool, default_level: &str) {
    init_logging_to(json, default_level, None).ok();
}

/// Logs to standard error, or to `file` rotated within its bound (`io::log_file`); fails only
/// when that file cannot be opened.
pub fn init_logging_to(
    json: bool,
    default_level: &str,
    file: Option<&crate::config::LogFile>,
) -> anyhow::Result<()> {
    use std::io::IsTerminal;
    use tracing_subscriber::fmt::writer::BoxMakeWriter;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::{EnvFilter, Layer};
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_level));
    // Each place that logs is throttled, so that no flood fills the disk
    // (`io::log_throttle`); a log file is bounded in total besides.
    let throttle = crate::io::log_throttle::Throttle::new(json);
    let (writer, ansi) = match file {
        Some(f) => {
            let log = crate::io::log_file::RotatingLog::open(&f.path, f.max_bytes)
                .with_context(|| format!("opening the log file {} (log_file)", f.path.display()))?;
            (BoxMakeWriter::new(std::sync::Mutex::new(log)), false)
        }
        // Colours only for a person at a terminal, not in a journal or a log file.
        None => (
            BoxMakeWriter::new(std::io::stderr),
            std::io::stderr().is_terminal(),
        ),
    };
    let layer = tracing_subscriber::fmt::layer()
        .with_ansi(ansi)
        .with_writer(writer);
    let registry = tracing_subscriber::registry().with(filter);
    // A second initialisation (tests, the demo) keeps the first.
    if json {
        registry
            .with(layer.json().with_filter(throttle))
            .try_init()
            .ok();
    } else {
        registry.with(layer.with_filter(throttle)).try_init().ok();
    }
    Ok(())
}

/// Waits for a stop: SIGINT or SIGTERM (systemd's stop).
#[cfg(unix)]
async fn wait_for_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    match (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) {
        (Ok(mut int), Ok(mut term)) => {
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
            }
        }
        _ => {
            tokio::signal::ctrl_c().await.ok();
        }
    }
}

/// Waits for a stop: Ctrl-C or Ctrl-Break at the console, or the console window being closed
/// (Windows then gives the process a few seconds, enough to finish what is under way).
#[cfg(windows)]
async fn wait_for_signal() {
    use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close};
    match (ctrl_c(), ctrl_break(), ctrl_close()) {
        (Ok(mut c), Ok(mut brk), Ok(mut close)) => {
            tokio::select! {
                _ = c.recv() => {}
                _ = brk.recv() => {}
                _ = close.recv() => {}
            }
        }
        _ => {
            tokio::signal::ctrl_c().await.ok();
        }
    }
}
