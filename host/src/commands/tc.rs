//! `llv tc send`: an Art-Net timecode generator for rehearsals and tests.

use std::net::UdpSocket;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args as ClapArgs, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use llv_core::artnet::{ArtTimeCode, TimecodeKind, PORT};

use crate::address::resolve;
use crate::args::parse_rate;
use crate::playback::timecode_generator;
use crate::stop;

/// `llv tc ...`.
#[derive(ClapArgs, Debug)]
#[command(after_help = "\
Examples:
  llv tc send --start 01:00:00:00 --rate 25 --to 10.0.0.20")]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(Subcommand, Debug)]
enum Action {
    /// Send Art-Net timecode (OpTimeCode, UDP 6454) from a start, at its real rate.
    #[command(after_help = "\
Examples:
  llv tc send                                   # 00:00:00:00 at 30 fps to 127.0.0.1:6454
  llv tc send --start 01:00:00:00 --rate 25 --to 10.0.0.20
  llv tc send --rate 29.97 --start '00:59:59;28'   # drop-frame
  llv tc send --to 255.255.255.255 --broadcast  # a whole subnet")]
    Send(SendArgs),
}

/// `llv tc send`.
#[derive(ClapArgs, Debug)]
struct SendArgs {
    /// First timecode, HH:MM:SS:FF (HH:MM:SS;FF for drop-frame).
    #[arg(long, default_value = "00:00:00:00")]
    start: String,
    /// Timecode rate: 24, 25, 29.97 (drop-frame) or 30.
    #[arg(long, default_value = "30", value_parser = parse_rate)]
    rate: llv_core::time::FrameRate,
    /// Where to send, HOST[:PORT] (port 6454 by default).
    #[arg(long, default_value = "127.0.0.1")]
    to: String,
    /// Allow a broadcast address in --to (never by default).
    #[arg(long)]
    broadcast: bool,
    /// Art-Net stream id (0: the master).
    #[arg(long, default_value_t = 0)]
    stream: u8,
    /// Stop after this many frames (default: until Ctrl-C).
    #[arg(long)]
    frames: Option<u64>,
}

/// Runs `llv tc`.
pub fn run(args: Args) -> Result<()> {
    let Action::Send(args) = args.action;
    let kind = TimecodeKind::for_rate(args.rate).ok_or_else(|| {
        anyhow!(
            "--rate {}: Art-Net timecode is 24, 25, 29.97 or 30",
            args.rate
        )
    })?;
    let start = parse_start(&args.start, kind, args.stream)?;
    let target = resolve(&args.to, PORT)?;
    if target.ip() == std::net::Ipv4Addr::BROADCAST && !args.broadcast {
        bail!("--to {target} is a broadcast address: add --broadcast to send to every host");
    }
    let socket = UdpSocket::bind(if target.is_ipv4() {
        "0.0.0.0:0"
    } else {
        "[::]:0"
    })
    .context("opening a UDP socket")?;
    if args.broadcast {
        socket.set_broadcast(true)?;
    }
    let stop = stop::on_ctrl_c()?;
    let progress = ProgressBar::new_spinner().with_style(
        ProgressStyle::with_template("{spinner} {msg} {elapsed_precise}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    eprintln!(
        "sending Art-Net timecode from {start} at {} fps to {target}; Ctrl-C stops",
        args.rate
    );
    let sent = timecode_generator::send(&socket, target, start, args.frames, stop, |tc| {
        progress.set_message(tc.to_string());
        progress.tick();
    })
    .map_err(|e| {
        let denied = e
            .chain()
            .filter_map(|c| c.downcast_ref::<std::io::Error>())
            .any(|io| io.kind() == std::io::ErrorKind::PermissionDenied);
        if denied && !args.broadcast {
            e.context("the system refused: a broadcast address needs --broadcast")
        } else {
            e
        }
    })?;
    progress.finish_and_clear();
    eprintln!("sent {sent} timecode frames");
    Ok(())
}

/// `HH:MM:SS:FF` (or `;FF`) as a timecode of `kind`, checked.
fn parse_start(text: &str, kind: TimecodeKind, stream: u8) -> Result<ArtTimeCode> {
    let parsed =
        llv_core::time::Timecode::parse(text).map_err(|e| anyhow!("--start {text:?}: {e}"))?;
    let byte = |n: u32| u8::try_from(n).map_err(|_| anyhow!("--start {text:?}: out of range"));
    let tc = ArtTimeCode {
        stream,
        hours: byte(parsed.hours)?,
        minutes: parsed.minutes,
        seconds: parsed.seconds,
        frames: byte(parsed.frames)?,
        kind,
    };
    if let Err(e) = tc.check() {
        bail!("--start {text:?}: {e}");
    }
    Ok(tc)
}
