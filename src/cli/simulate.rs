//! `annabella simulate-board`: a board behind a pseudo-terminal (or TCP port) for trying the
//! daemon without hardware.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use crate::boards::Protocol;
use crate::io::recording::RecordingDevice;
use crate::io::simulator::{self, SimulatedBoard};

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The protocol the simulated board speaks: peg, dgt, millennium or certabo.
    #[arg(long, value_parser = parse_protocol)]
    pub protocol: Protocol,
    /// Open a pseudo-terminal and print its path (the default).
    #[arg(long)]
    pub pty: bool,
    /// Also make this path a symbolic link to the pseudo-terminal, so that a board re-plugged
    /// under a new pseudo-terminal keeps its name.
    #[arg(long, value_name = "PATH")]
    pub link: Option<PathBuf>,
    /// Listen on TCP instead, like a serial-to-network bridge (e.g. 127.0.0.1:7422).
    #[arg(long, value_name = "ADDR", conflicts_with_all = ["pty", "link"])]
    pub tcp: Option<String>,
    /// Unplug the board (exit) when standard input ends.
    #[arg(long)]
    pub exit_at_eof: bool,
    /// Write what a peg board sends to standard output instead of a device, each line stamped
    /// `@<ms>` as in a recording: first a snapshot of the starting position, then the lines of
    /// each operator line at a hand's pace, until standard input ends. For a harness that makes
    /// those lines with real switches (firmware/sim/pegsim, docs/peg-firmware.md); nobody asks
    /// this board anything.
    #[arg(long, conflicts_with_all = ["pty", "link", "tcp"])]
    pub to_stdout: bool,
    /// Also write everything the board sends to FILE, each chunk stamped with the milliseconds
    /// since the start (`@1220 8e 00 05 0c 00`): a recording with a hand's timing, rests
    /// included, that `annabella replay` reads back.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    #[command(flatten)]
    pub start: super::StartArgs,
    #[command(flatten)]
    pub language: super::LanguageArgs,
}

fn parse_protocol(s: &str) -> Result<Protocol, String> {
    s.parse()
}

pub fn run(args: SimulateArgs) -> anyhow::Result<ExitCode> {
    let board = SimulatedBoard::new(args.protocol, args.start.game()?, args.language.load()?);
    eprintln!("simulate-board: {}", simulator::OPERATOR_HELP);
    if args.to_stdout {
        if args.protocol != Protocol::Peg {
            anyhow::bail!(
                "--to-stdout writes a peg board's lines; a DGT board's bytes are no lines"
            );
        }
        let out = simulator::StdoutDevice::new();
        let mut out = recorded(out, &args)?;
        out.write_all(&board.snapshot())?;
        out.flush()?;
        simulator::serve(board, out, true)?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(addr) = &args.tcp {
        let listener =
            std::net::TcpListener::bind(addr).with_context(|| format!("listening on {addr}"))?;
        println!("tcp:{}", listener.local_addr()?);
        std::io::stdout().flush()?;
        // One host at a time, as on a real serial-to-network bridge.
        let (stream, peer) = listener.accept().context("waiting for the host")?;
        eprintln!("simulate-board: host connected from {peer}");
        simulator::serve(board, recorded(stream, &args)?, args.exit_at_eof)?;
        return Ok(ExitCode::SUCCESS);
    }
    serve_on_pty(board, &args)
}

/// The board on a fresh pseudo-terminal (printed, and linked at `--link`).
#[cfg(unix)]
fn serve_on_pty(board: SimulatedBoard, args: &SimulateArgs) -> anyhow::Result<ExitCode> {
    let pty = simulator::open_pty()?;
    if let Some(link) = &args.link {
        simulator::replace_symlink(&pty.path, link)?;
    }
    println!("{}", pty.path.display());
    std::io::stdout().flush()?;
    let device = std::fs::File::from(pty.master);
    let _slave = pty.slave;
    simulator::serve(board, recorded(device, args)?, args.exit_at_eof)?;
    Ok(ExitCode::SUCCESS)
}

/// Windows has no pseudo-terminals: the board is served on a TCP port instead
/// (docs/windows.md).
#[cfg(not(unix))]
fn serve_on_pty(_board: SimulatedBoard, _args: &SimulateArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!(
        "a simulated board on a pseudo-terminal needs Unix; on Windows serve it on a local \
         port with --tcp 127.0.0.1:9999 and give the daemon --peg tcp:127.0.0.1:9999 \
         (or run `annabella serve --peg sim`, whose simulated board needs no port)"
    )
}

/// The device, writing a recording beside it with `--record` (without, the recording goes
/// nowhere).
fn recorded<D>(device: D, args: &SimulateArgs) -> anyhow::Result<RecordingDevice<D>> {
    let out: Box<dyn Write + Send> = match &args.record {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .with_context(|| format!("creating the recording {}", path.display()))?,
        ),
        None => Box::new(std::io::sink()),
    };
    Ok(RecordingDevice::new(device, args.protocol, out)?)
}
