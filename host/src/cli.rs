//! Command-line parsing and dispatch.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::{boxctl, flash};

/// Record and play back Live Link Face frames.
#[derive(Parser, Debug)]
#[command(name = "llv", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Upload a recording to the box as a take.
    Flash(flash::FlashArgs),
    /// Ask or tell the box: status, list, play, stop, delete, config.
    #[command(name = "box")]
    BoxCtl(boxctl::BoxArgs),
}

/// Parses the arguments, runs the command and turns errors into an exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Flash(args) => flash::run(args),
        Command::BoxCtl(args) => boxctl::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("llv: {e:#}");
            ExitCode::FAILURE
        }
    }
}
