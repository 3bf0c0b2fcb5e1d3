//! The `annabella` binary: parses the command line and hands over to [`annabella::cli`].

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = annabella::cli::Cli::parse();
    match annabella::cli::run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("annabella: {e:#}");
            ExitCode::FAILURE
        }
    }
}
