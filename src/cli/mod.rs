//! The command-line face: `annabella convert`, `announce`, `reconcile` and the board commands.
//!
//! This is an adapter: it reads files and standard input, writes standard output, and hands
//! everything else to the pure core in [`crate::chess`].

pub mod announce;
pub mod board_session;
pub mod convert;
pub mod demo;
pub mod reconcile;
pub mod replay;
pub mod send;
pub mod serve;
pub mod simulate;
pub mod watch;

use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::{Args, Parser, Subcommand};

use crate::chess::game::Game;
use crate::chess::language::{Language, MAX_LANGUAGE_FILE_BYTES};
use crate::chess::notation::Verbosity;

/// Largest input `convert` reads: far above any real game collection a user converts at once,
/// small enough that a mistaken `/dev/zero` cannot exhaust memory.
pub const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Debug, Parser)]
#[command(
    name = "annabella",
    version,
    about = "Chess for blind and visually impaired players: \
    peg board, spoken moves with the FIDE file names, ICCF numeric notation, two-board reconciliation"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

// Windows' paths are a few bytes larger, which tips `serve`'s options over clippy's limit; the
// command is parsed once per run, so the size does not matter.
#[cfg_attr(windows, allow(clippy::large_enum_variant))]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Convert games between notations: PGN or a bare move list in any notation, to
    /// SAN, LAN, UCI, ICCF numeric, telegraph code, spoken words, PGN or a Braille scoresheet.
    Convert(convert::ConvertArgs),
    /// Print the spoken phrase of each move, each applied to the position in turn.
    Announce(announce::AnnounceArgs),
    /// A simulated board on a pseudo-terminal (prints its path) or a TCP port; type moves on
    /// standard input and it sends what a real board would (`key A` presses a peg board key).
    SimulateBoard(simulate::SimulateArgs),
    /// Feed a recorded board stream through the decoder and move detector; one line per
    /// conclusion (move, touched, illegal, mismatch, promotion-pending, takeback).
    Replay(replay::ReplayArgs),
    /// Watch a live board (serial device or tcp:HOST:PORT) and print each conclusion.
    Watch(watch::WatchArgs),
    /// Two boards, two scoresheets (FIDE D.2.9): where the sheets agree, the position both
    /// boards must show, each board's corrections; one JSON object.
    Reconcile(reconcile::ReconcileArgs),
    /// Run the daemon: one or more tables, each linking the blind player's peg board to the
    /// sighted side's board or to moves relayed over the control interface.
    Serve(serve::ServeArgs),
    /// A scripted game through a real daemon on a simulated peg board, with speech.
    Demo(demo::DemoArgs),
    /// Send requests to a running daemon's control interface (`move e4`, `board`, `events`)
    /// and print the replies; exit status 0 all ok, 1 an error reply, 2 no connection.
    Send(send::SendArgs),
}

/// The options every command that reads moves shares.
#[derive(Debug, Args)]
pub struct LanguageArgs {
    /// Language of SAN/LAN piece letters and of spoken words: a built-in code
    /// (de, en, es, fr, it, nl, pt) or the path of a language file like config/voices/de.toml.
    #[arg(long, default_value = "en")]
    pub lang: String,
    /// Spoken moves: `short` (like SAN) or `long` (always the from-square).
    #[arg(long, default_value = "short", value_parser = parse_verbosity)]
    pub verbosity: Verbosity,
    /// Spoken moves name the captured piece.
    #[arg(long)]
    pub name_captured: bool,
}

/// Where a bare move list starts.
#[derive(Debug, Args)]
pub struct StartArgs {
    /// Start position of bare move lists: a FEN (X-FEN and Shredder-FEN too), or with
    /// --chess960 a Chess960 position number 0–959. PGN games use their own FEN tag.
    #[arg(long)]
    pub fen: Option<String>,
    /// Chess960 castling rules (with --fen, or alone for the standard array, number 518).
    #[arg(long)]
    pub chess960: bool,
}

fn parse_verbosity(s: &str) -> Result<Verbosity, String> {
    s.parse()
}

impl LanguageArgs {
    /// A built-in language, or one read from the file the user named.
    pub fn load(&self) -> anyhow::Result<Language> {
        let looks_like_path = self.lang.contains('/') || self.lang.ends_with(".toml");
        if !looks_like_path {
            return Ok(Language::builtin(&self.lang)?.clone());
        }
        let path = PathBuf::from(&self.lang);
        let text = read_bounded(&path, MAX_LANGUAGE_FILE_BYTES as u64)
            .with_context(|| format!("reading language file {}", path.display()))?;
        Language::from_toml(&text).with_context(|| format!("in language file {}", path.display()))
    }
}

impl StartArgs {
    /// The game every bare move list starts from.
    pub fn game(&self) -> anyhow::Result<Game> {
        match (&self.fen, self.chess960) {
            (None, false) => Ok(Game::new()),
            (None, true) => Ok(Game::chess960(518)?),
            (Some(fen), chess960) if looks_like_number(fen) => {
                if !chess960 {
                    bail!(
                        "--fen {fen:?}: a Chess960 position number needs --chess960 \
                         (or give a FEN)"
                    );
                }
                // Out of range, negative or too long for any integer: the same message.
                match fen.trim().trim_start_matches('+').parse::<u32>() {
                    Ok(n) => Ok(Game::chess960(n)?),
                    Err(_) => bail!(
                        "no chess960 position number {}; the numbers run from 0 to 959",
                        fen.trim()
                    ),
                }
            }
            (Some(fen), chess960) => {
                Game::from_fen(fen, chess960).with_context(|| format!("--fen {fen:?}"))
            }
        }
    }
}

/// An integer, perhaps signed: meant as a Chess960 position number (no FEN is a number).
fn looks_like_number(text: &str) -> bool {
    let t = text.trim();
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Reads a whole file (or standard input for `-`) as bytes, refusing more than `limit`.
pub fn read_bytes_bounded(path: &std::path::Path, limit: u64) -> anyhow::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    let reader: Box<dyn Read> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(
            crate::io::regular_file::open_regular(path)
                .with_context(|| format!("{}", path.display()))?,
        )
    };
    reader.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        bail!("input is larger than {limit} bytes");
    }
    Ok(bytes)
}

/// Reads a whole text file (or standard input for `-`), refusing anything larger than `limit`.
pub fn read_bounded(path: &std::path::Path, limit: u64) -> anyhow::Result<String> {
    let bytes = read_bytes_bounded(path, limit)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        anyhow::anyhow!("input is not UTF-8 text (first bad byte at offset {at}, line {line})")
    })
}

/// Runs a parsed command line; the exit status is 0 when everything was converted.
pub fn run(cli: Cli) -> anyhow::Result<std::process::ExitCode> {
    match cli.command {
        Command::Convert(args) => convert::run(args),
        Command::Announce(args) => announce::run(args),
        Command::SimulateBoard(args) => simulate::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Watch(args) => watch::run(args),
        Command::Reconcile(args) => reconcile::run(args),
        Command::Send(args) => send::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Demo(args) => demo::run(args),
    }
}
