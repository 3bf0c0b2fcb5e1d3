//! `annabella announce MOVE...`: the spoken phrase of each move, one per line.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;

use crate::chess::notation::{self, Notation, Style};

#[derive(Debug, Args)]
pub struct AnnounceArgs {
    #[command(flatten)]
    pub language: super::LanguageArgs,
    #[command(flatten)]
    pub start: super::StartArgs,
    /// Notation of the moves (default: detected per move).
    #[arg(long, value_parser = parse_notation)]
    pub from: Option<Notation>,
    /// The moves, in any notation, each applied to the position in turn.
    #[arg(required = true, num_args = 1.., allow_hyphen_values = true)]
    pub moves: Vec<String>,
}

fn parse_notation(s: &str) -> Result<Notation, String> {
    s.parse()
}

pub fn run(args: AnnounceArgs) -> anyhow::Result<ExitCode> {
    let lang = args.language.load()?;
    let mut game = args.start.game()?;
    let style = Style {
        lang: &lang,
        verbosity: args.language.verbosity,
        name_captured: args.language.name_captured,
        figurines: false,
    };
    let mut out = std::io::stdout().lock();
    for (i, text) in args.moves.iter().enumerate() {
        let pos = game.position().clone();
        let mode = game.castling_mode();
        let m = match notation::parse_move(&pos, mode, text, args.from, &lang) {
            Ok(m) => m,
            Err(e) => {
                out.flush()?;
                eprintln!(
                    "annabella: move {} (ply {}): {e}",
                    i + 1,
                    game.ply_count() + 1
                );
                return Ok(ExitCode::FAILURE);
            }
        };
        // Played first: a move the game refuses (it is already over) is not announced.
        if let Err(e) = game.play(m) {
            out.flush()?;
            eprintln!(
                "annabella: move {} (ply {}): {e}",
                i + 1,
                game.ply_count() + 1
            );
            return Ok(ExitCode::FAILURE);
        }
        writeln!(
            out,
            "{}",
            notation::format_move(&pos, mode, m, Notation::Spoken, &style)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
