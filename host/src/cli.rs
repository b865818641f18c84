//! Command-line parsing and dispatch.

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use crate::boxctl::{card, control as boxctl, flash};
use crate::commands::{
    convert, docs, edit, import, info, play, plot, record, relay, remap, retarget, sequence, tc,
};
use crate::{discover, serve};

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
    /// Relay a live phone to the targets: re-clocked, covered by an idle take when it drops, recorded.
    Relay(relay::Args),
    /// Write a recording as clear JSON (LLV's `unpack`).
    Unpack(convert::UnpackArgs),
    /// Turn a clear JSON file (or any recording) into a recording (LLV's `pack`).
    Pack(convert::PackArgs),
    /// Convert between recording formats, Live Link Face CSV takes included.
    Convert(convert::ConvertArgs),
    /// Show a recording's format, timing, subjects, gaps and blendshape ranges.
    Info(info::Args),
    /// Write a debug take that moves each blendshape in turn (LLV's `sequence`).
    Sequence(sequence::Args),
    /// Turn takes (CSV or recordings) into MetaHuman curves with a PoseAsset T3D mapping.
    Retarget(retarget::RetargetArgs),
    /// Art-Net timecode: `tc send` is a generator for rehearsals and tests.
    Tc(tc::Args),
    /// Trim, join, retime, mirror, smooth and adjust takes, frame by frame.
    Edit(Box<edit::Args>),
    /// Turn takes into the curves of any rig through a rig map (LLV's JSON or a CSV table).
    Remap(remap::Args),
    /// Turn a rig's keyframed animation (glTF, LLV's FBX JSON) into a take through a rig map.
    Import(import::Args),
    /// Draw a take's curves over time (PNG or SVG), gaps and no-face spans shaded.
    Plot(plot::Args),
    /// Print the completion script for a shell (bash, zsh, fish, powershell, elvish).
    Completions(docs::CompletionsArgs),
    /// Print the man page llv(1), or write every command's page into a folder.
    Man(docs::ManArgs),
    /// Upload a recording to the box as a take (to its flash or its card).
    Flash(flash::FlashArgs),
    /// Write, list and check takes on a microSD card for the box (a folder or a FAT image).
    Card(card::CardArgs),
    /// Ask or tell the box: status, list, play, stop, delete, config.
    #[command(name = "box")]
    BoxCtl(boxctl::BoxArgs),
    /// Be a box: serve a folder of recordings over the box's control protocol, OSC and mDNS.
    Serve(serve::ServeArgs),
    /// List the boxes (and llv serve laptops) on the network.
    Discover(discover::DiscoverArgs),
}

/// Parses the arguments, runs the command and turns errors into an exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let done = |r: anyhow::Result<()>| r.map(|()| ExitCode::SUCCESS);
    let result = match cli.command {
        Command::Record(args) => done(record::run(args)),
        Command::Play(args) => done(play::run(args)),
        Command::Relay(args) => done(relay::run(&args)),
        Command::Unpack(args) => done(convert::unpack(args)),
        Command::Pack(args) => done(convert::pack(args)),
        Command::Convert(args) => done(convert::convert(args)),
        Command::Info(args) => done(info::run(args)),
        Command::Sequence(args) => done(sequence::run(args)),
        Command::Retarget(args) => retarget::run(&args),
        Command::Tc(args) => done(tc::run(args)),
        Command::Edit(args) => done(edit::run(*args)),
        Command::Remap(args) => remap::run(&args),
        Command::Import(args) => done(import::run(args)),
        Command::Plot(args) => done(plot::run(args)),
        Command::Completions(args) => done(docs::completions(&args, Cli::command())),
        Command::Man(args) => done(docs::man(&args, Cli::command())),
        Command::Flash(args) => done(flash::run(&args)),
        Command::Card(args) => done(card::run(&args)),
        Command::BoxCtl(args) => done(boxctl::run(&args)),
        Command::Serve(args) => done(serve::run(&args)),
        Command::Discover(args) => done(discover::run(&args)),
    };
    result.unwrap_or_else(|e| {
        // A reader that closed standard output has seen enough: no error.
        if crate::console::is_closed_pipe(&e) {
            return ExitCode::SUCCESS;
        }
        eprintln!("error: {e:#}");
        ExitCode::FAILURE
    })
}
