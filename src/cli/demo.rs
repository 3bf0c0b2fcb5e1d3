//! `annabella demo`: the README's main job. A real daemon with a simulated peg board on a
//! pseudo-terminal plays a short scripted game through the whole path — sensor bytes on the
//! serial line, move detection, the journal, speech — with the opponent's moves arriving as
//! ICCF numeric notation over the control interface, one wrongly replicated move caught and
//! corrected, and the PGN written at the end.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::{broadcast, oneshot, watch};

use crate::app::daemon::{self, Options, Running};
use crate::config::{RawConfig, RawTable};
use crate::control::wire::{answer_text, event_line, reply_line};
use crate::table::control::Role;
use crate::table::detector::Conclusion;
use crate::table::event::{BoardId, TableEvent};
use crate::table::reply::{Answer, BoardSync};

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Speech backends (tts is the system voice; add wav:DIR for an audio record of the game).
    #[arg(long, default_value = "tts")]
    pub speech: String,
    /// Language of the announcements.
    #[arg(long, default_value = "de")]
    pub lang: String,
    /// Where the journal, tokens and the finished game go (default: a new temporary folder).
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// Pause after each step so that the voice can finish speaking, in milliseconds.
    #[arg(long, default_value_t = 2500)]
    pub pace_ms: u64,
}

/// One step of the script.
enum Step {
    /// Hands on the peg board: operator lines for the simulated board (moves or raw lines).
    Peg(&'static str, &'static [&'static str]),
    /// The correspondence opponent (Black) sends a request over the control interface.
    Opponent(&'static str, &'static str),
    /// The simulated board learns the game's position after pegs were moved by hand (`raw`
    /// lines), so that its next moves start from it.
    SyncBoard,
}

/// The game: a Scholar's mate, with the blind player as White on the peg board. Black's third
/// move is replicated on the wrong square first.
const SCRIPT: &[Step] = &[
    Step::Peg("The blind player plays e2-e4 on his peg board", &["e2e4"]),
    Step::Opponent(
        "The correspondence opponent sends 5755 (e7-e5)",
        "move 5755",
    ),
    Step::Peg("The blind player replicates e7-e5 on his board", &["e7e5"]),
    Step::Peg(
        "He asks for the clock (key T on the peg board)",
        &["raw KT"],
    ),
    Step::Peg("Bishop f1-c4", &["f1c4"]),
    Step::Opponent("The opponent sends 2836 (knight b8-c6)", "move 2836"),
    Step::Peg(
        "He replicates it wrongly: the knight goes to a6",
        &["raw Lb8", "raw Pa6"],
    ),
    Step::Peg(
        "He follows the correction: knight from a6 to c6",
        &["raw La6", "raw Pc6"],
    ),
    Step::SyncBoard,
    Step::Peg("Queen d1-h5", &["d1h5"]),
    Step::Opponent("The opponent sends 7866 (knight g8-f6)", "move 7866"),
    Step::Peg("He replicates g8-f6", &["g8f6"]),
    Step::Peg("Queen takes f7: mate", &["h5f7"]),
];

pub fn run(args: DemoArgs) -> anyhow::Result<ExitCode> {
    let state_dir = match &args.state_dir {
        Some(dir) => dir.clone(),
        None => fresh_demo_dir().context("making the demo's state directory")?,
    };
    let mut raw = RawConfig {
        listen: "127.0.0.1:0".to_owned(),
        // The demo runs to its end unattended: no page, and no port that another daemon holds.
        web_listen: "off".to_owned(),
        state_dir: state_dir.clone(),
        tables: vec![RawTable {
            name: "demo".to_owned(),
            ..RawTable::default()
        }],
        ..RawConfig::default()
    };
    raw.speech.backends = args.speech.clone();
    raw.speech.lang = args.lang.clone();
    raw.clock.time_control = "900+10".to_owned();
    let config = raw.validate().context("the demo's configuration")?;
    // The demo's own lines tell the story; the daemon's log says only what went wrong.
    crate::cli::serve::init_logging(false, "warn");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    runtime.block_on(async move {
        let (stop, shutdown) = watch::channel(false);
        let (ready_tx, ready) = oneshot::channel();
        let options = Options {
            on_ready: Some(ready_tx),
            sim_from_stdin: false,
        };
        let daemon = tokio::spawn(daemon::run(config, shutdown, options));
        let running = match ready.await {
            Ok(r) => r,
            Err(_) => {
                return match daemon.await {
                    Ok(Err(e)) => Err(e),
                    _ => Err(anyhow::anyhow!("the daemon stopped before it was ready")),
                };
            }
        };
        let result = play(&running, &state_dir, args.pace_ms).await;
        stop.send(true).ok();
        daemon.await.context("the daemon")??;
        result
    })?;
    Ok(ExitCode::SUCCESS)
}

async fn play(running: &Running, state_dir: &std::path::Path, pace_ms: u64) -> anyhow::Result<()> {
    let Some(table) = running.hub.tables().into_iter().next() else {
        bail!("the demo has no table");
    };
    let Some((_, operator)) = running.simulated.first() else {
        bail!("the demo's table has no simulated peg board");
    };
    let mut events = table.events.subscribe();
    println!(
        "annabella demo: a table with a simulated peg board; the control interface listens on {}",
        running.listen
    );
    println!(
        "journal, tokens and the finished game: {}\n",
        state_dir.display()
    );

    // The peg board is plugged in and compared with the game first (it may already be).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let status = table
            .ask(
                Role::Observer,
                crate::chess::language::Language::english(),
                crate::table::control::TableRequest::Status,
            )
            .await;
        if let Ok(Answer::Status(s)) = &status
            && s.peg.connected
            && s.peg.sync == BoardSync::InSync
        {
            println!("   table: {}", answer_text(&Answer::Status(s.clone())));
            break;
        }
        if tokio::time::Instant::now() > deadline {
            bail!(
                "the simulated peg board did not report the start position: {}",
                reply_line(&status)
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let raw = crate::io::tokens::read_file(&state_dir.join(crate::io::tokens::TOKENS_FILE))
        .context("reading the demo's tokens")?;
    let token = crate::io::tokens::token_for(&raw, Role::Player(shakmaty::Color::Black), None)
        .context("the demo's tokens have none for black")?;
    let stream = TcpStream::connect(running.listen)
        .await
        .context("connecting to the control interface")?;
    let (read, mut write) = stream.into_split();
    let mut replies = BufReader::new(read).lines();
    write
        .write_all(format!("auth {token}\n").as_bytes())
        .await?;
    let auth = replies.next_line().await?.unwrap_or_default();
    if !auth.starts_with("ok") {
        bail!("the control interface refused the demo's token: {auth}");
    }

    let mut archived: Option<String> = None;
    for step in SCRIPT {
        match step {
            Step::Peg(what, lines) => {
                println!("\n== {what}");
                for line in *lines {
                    println!("   peg board <- {line}");
                    operator
                        .send((*line).to_owned())
                        .map_err(|_| anyhow::anyhow!("the simulated board has stopped"))?;
                }
            }
            Step::SyncBoard => {
                let fen = table
                    .ask(
                        Role::Observer,
                        crate::chess::language::Language::english(),
                        crate::table::control::TableRequest::Board,
                    )
                    .await;
                let Ok(Answer::Position { fen }) = fen else {
                    bail!("the table did not show its position: {}", reply_line(&fen));
                };
                operator
                    .send(format!("fen {fen}"))
                    .map_err(|_| anyhow::anyhow!("the simulated board has stopped"))?;
            }
            Step::Opponent(what, request) => {
                println!("\n== {what}");
                println!("   control   -> {request}");
                write.write_all(format!("{request}\n").as_bytes()).await?;
                let reply = replies.next_line().await?.unwrap_or_default();
                println!("   control   <- {reply}");
            }
        }
        if matches!(step, Step::SyncBoard) {
            continue;
        }
        // Show what the table did: every spoken line and every conclusion.
        let deadline = tokio::time::Instant::now() + Duration::from_millis(pace_ms.max(700));
        loop {
            match tokio::time::timeout_at(deadline, events.recv()).await {
                Ok(Ok(event)) => {
                    show(&event);
                    if let TableEvent::Archived { path } = &*event {
                        archived = Some(path.clone());
                    }
                }
                Ok(Err(broadcast::error::RecvError::Lagged(n))) => {
                    println!("   ({n} events skipped)")
                }
                Ok(Err(broadcast::error::RecvError::Closed)) | Err(_) => break,
            }
        }
    }
    let path = match archived {
        Some(path) => path,
        None => {
            let archived = wait_for(
                &mut events,
                |e| matches!(e, TableEvent::Archived { .. }),
                Duration::from_secs(5),
            )
            .await
            .context("the finished game was not archived")?;
            match &*archived {
                TableEvent::Archived { path } => path.clone(),
                _ => bail!("the finished game was not archived"),
            }
        }
    };
    println!("\n== The game as PGN ({path})\n");
    let pgn = std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))?;
    println!("{pgn}");
    Ok(())
}

/// Prints an event the way a person follows the game.
fn show(event: &TableEvent) {
    match event {
        TableEvent::Say(say) => println!(
            "   speaks to {:<8} «{}»",
            say.listener.to_string(),
            say.text
        ),
        TableEvent::Detected {
            board: BoardId::Peg,
            conclusion: Conclusion::Touched { .. },
            ..
        } => {}
        other => {
            let line = event_line(other);
            println!("   table: {}", line.trim_start_matches("event "));
        }
    }
}

async fn wait_for(
    events: &mut broadcast::Receiver<Arc<TableEvent>>,
    want: impl Fn(&TableEvent) -> bool,
    within: Duration,
) -> anyhow::Result<Arc<TableEvent>> {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Ok(event)) => {
                show(&event);
                if want(&event) {
                    return Ok(event);
                }
            }
            Ok(Err(broadcast::error::RecvError::Lagged(_))) => {}
            Ok(Err(broadcast::error::RecvError::Closed)) => bail!("the table stopped"),
            Err(_) => bail!("nothing within {} s", within.as_secs()),
        }
    }
}

/// A new directory for the demo's state under the temporary directory: an unpredictable name,
/// created (never reused) with mode 0700. A predictable name in a shared `/tmp` would let
/// another user plant the directory, or links in it, before the demo writes there.
fn fresh_demo_dir() -> std::io::Result<std::path::PathBuf> {
    let mut last = None;
    for _ in 0..16 {
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).map_err(std::io::Error::other)?;
        let name: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let dir = std::env::temp_dir().join(format!("annabella-demo-{name}"));
        // Windows: the temporary directory is in the user's profile, private by its ACL.
        #[cfg_attr(not(unix), allow(unused_mut))]
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            builder.mode(0o700);
        }
        match builder.create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no fresh name")))
}

#[cfg(test)]
mod fresh_dir_tests {
    #[test]
    fn the_demo_directory_is_new_private_and_unpredictable() {
        let a = super::fresh_demo_dir().unwrap();
        let b = super::fresh_demo_dir().unwrap();
        assert_ne!(a, b);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&a).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700);
        }
        std::fs::remove_dir(&a).ok();
        std::fs::remove_dir(&b).ok();
    }
}
