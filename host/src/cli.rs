//! Command-line parsing and dispatch.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::{boxctl, flash, retarget};

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
    /// Turn takes (CSV or recordings) into MetaHuman curves with a PoseAsset T3D mapping.
    Retarget(retarget::RetargetArgs),
}

/// Parses the arguments, runs the command and turns errors into an exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Flash(args) => flash::run(args).map(|()| ExitCode::SUCCESS),
        Command::BoxCtl(args) => boxctl::run(args).map(|()| ExitCode::SUCCESS),
        Command::Retarget(args) => retarget::run(args),
    };
    result.unwrap_or_else(|e| {
        eprintln!("llv: {e:#}");
        ExitCode::FAILURE
    })
}
