//! Command-line parsing and dispatch.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Record and play back Live Link Face frames.
#[derive(Parser, Debug)]
#[command(name = "llv", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {}

/// Parses the arguments, runs the command and turns errors into an exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {}
}
