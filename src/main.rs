//! The `annabella` binary: parses the command line and hands over to [`annabella::cli`].

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = annabella::cli::Cli::parse();
    match annabella::cli::run(cli) {
        Ok(code) => code,
        Err(e) => {
            // Not eprintln!: it panics when standard error is closed.
            let _ = writeln!(std::io::stderr(), "annabella: {e:#}");
            ExitCode::FAILURE
        }
    }
}
