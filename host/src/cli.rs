//! Command-line parsing and dispatch.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::{convert, info, play, record, sequence};

/// Record and play back Live Link Face frames.
#[derive(Parser, Debug)]
#[command(name = "llv", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Record face frames from the Live Link Face app (UDP) into a native recording.
    Record(record::Args),
    /// Send a recording's frames to one or more targets, timed like the take.
    Play(play::Args),
    /// Write a recording as clear JSON (LLV's `unpack`).
    Unpack(convert::UnpackArgs),
    /// Turn a clear JSON file (or any recording) into a recording (LLV's `pack`).
    Pack(convert::PackArgs),
    /// Convert between recording formats.
    Convert(convert::ConvertArgs),
    /// Show a recording's format, timing, subjects, gaps and blendshape ranges.
    Info(info::Args),
    /// Write a debug take that moves each blendshape in turn (LLV's `sequence`).
    Sequence(sequence::Args),
}

/// Parses the arguments, runs the command and turns errors into an exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Record(args) => record::run(args),
        Command::Play(args) => play::run(args),
        Command::Unpack(args) => convert::unpack(args),
        Command::Pack(args) => convert::pack(args),
        Command::Convert(args) => convert::convert(args),
        Command::Info(args) => info::run(args),
        Command::Sequence(args) => sequence::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
