//! `llv play`: send a take's frames to every target, timed like the take or
//! at a fixed rate, or following Art-Net timecode ([`crate::playback`] plays).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use anyhow::{bail, Result};
use indicatif::{ProgressBar, ProgressStyle};
use llv_core::time::FrameRate;

use crate::address::resolve;
use crate::args::{parse_rate, ChaseArgs, EditArgs, ReadArgs, LIVE_LINK_PORT};
use crate::commands::info::Stats;
use crate::console;
use crate::playback::artnet::Receiver;
use crate::playback::{chasing, play, play_chased, Options};
use crate::recording;
use crate::stop;
use crate::take::Take;

const EXAMPLES: &str = "\
Examples:
  llv play examples/dao.gesichter                               # to 127.0.0.1:11111
  llv play take1.gesichter --to 10.0.0.69 --to 10.0.0.70:11112  # every target gets every frame
  llv play take1.gesichter --fps 59.94                          # a fixed rate, not the take's times
  llv play take1.gesichter --loop                               # until Ctrl-C (the take before --loop)
  llv play take1.gesichter --loop 3 --restamp --rename Hero
  llv play take1.gesichter --chase artnet --offset 01:00:00:00  # follow the show's Art-Net timecode";

/// `llv play FILE`.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Recording to play (any format llv reads).
    file: PathBuf,
    /// Target HOST[:PORT]; repeat for several targets (default 127.0.0.1). LLV's --host works too.
    #[arg(long = "to", visible_alias = "host", value_name = "HOST[:PORT]")]
    to: Vec<String>,
    /// Port for targets given without one (LLV's --port).
    #[arg(long, default_value_t = LIVE_LINK_PORT)]
    port: u16,
    /// Play at a fixed rate (60, 59.94, 60000/1001...) instead of the take's own frame times.
    #[arg(long, value_parser = parse_rate)]
    fps: Option<FrameRate>,
    /// Play the take N times; without N, until Ctrl-C.
    #[arg(long = "loop", value_name = "N", num_args = 0..=1, value_parser = parse_loops)]
    repeat: Option<Option<u64>>,
    /// Rewrite frame times so they keep increasing across loops.
    #[arg(long)]
    restamp: bool,
    /// Follow a show's Art-Net timecode: `artnet` (UDP 6454) or `artnet:PORT`.
    #[arg(long, value_name = "artnet[:PORT]", value_parser = parse_chase)]
    chase: Option<u16>,
    #[command(flatten)]
    chase_args: ChaseArgs,
    #[command(flatten)]
    edit: EditArgs,
    #[command(flatten)]
    read: ReadArgs,
}

/// Runs `llv play`.
pub fn run(args: Args) -> Result<()> {
    let loaded = recording::load(&args.file, &args.read.options())?;
    let take = loaded.take.edited(&args.edit.edit())?;
    if take.is_empty() {
        bail!("{}: no frames to play", args.file.display());
    }
    let specs = if args.to.is_empty() {
        vec!["127.0.0.1".to_string()]
    } else {
        args.to.clone()
    };
    let targets = specs
        .iter()
        .map(|spec| resolve(spec, args.port))
        .collect::<Result<Vec<_>>>()?;
    let options = Options {
        fps: args.fps,
        repeat: match args.repeat {
            None => Some(1),
            Some(n) => n,
        },
        restamp: args.restamp,
        ..Options::default()
    };
    let timing = match options.fps {
        Some(rate) => format!("at a fixed {rate} fps"),
        None => "timed by its frame times".to_string(),
    };
    let names: Vec<String> = targets.iter().map(|t| t.to_string()).collect();
    eprintln!(
        "playing {} ({} frames, {}) {} to {}; Ctrl-C stops",
        args.file.display(),
        take.len(),
        loaded.format.describe(),
        timing,
        names.join(", ")
    );
    let progress = match options.repeat {
        Some(n) => ProgressBar::new(take.len() as u64 * n).with_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} frames {elapsed_precise} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        ),
        None => ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template("{spinner} {pos} frames {elapsed_precise} (looping)")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        ),
    };
    let stop = stop::on_ctrl_c()?;
    if let Some(port) = args.chase {
        return chase(&args, &take, &targets, port, stop, &progress);
    }
    let report = play(&take, &targets, &options, stop, &progress)?;
    progress.finish_and_clear();
    let secs = report.elapsed.as_secs_f64();
    console::print(&format!(
        "{} {} frames to {} target(s) in {:.3} s (mean {:.3} Hz{}; latest send {:.3} ms after its deadline, {}){}\n",
        if report.stopped {
            "stopped after"
        } else {
            "played"
        },
        report.frames,
        targets.len(),
        secs,
        if secs > 0.0 {
            report.frames.saturating_sub(1) as f64 / secs
        } else {
            0.0
        },
        if options.fps.is_none() {
            timed_by_its_times(&take)
        } else {
            String::new()
        },
        report.max_late.as_secs_f64() * 1e3,
        if report.real_time {
            "real-time priority"
        } else {
            "normal priority"
        },
        if report.send_errors > 0 {
            format!(", {} sends failed", report.send_errors)
        } else {
            String::new()
        }
    ))?;
    Ok(())
}

/// `--chase artnet[:PORT]`: the port.
/// How a take timed by its own frame times plays, in words: its cadence
/// and the gaps kept, which make the mean rate lower than the cadence.
fn timed_by_its_times(take: &Take) -> String {
    let Some(c) = Stats::of(take).cadence() else {
        return ", timed by the take's frame times".into();
    };
    let missing: u64 = c.gaps.iter().map(|g| g.missing).sum();
    let gaps = match c.gaps.len() {
        0 => "no gaps".to_string(),
        1 => format!("its gap of {missing} frames kept"),
        n => format!("its {n} gaps ({missing} frames missing) kept"),
    };
    format!(
        ", timed by the take's frame times: cadence {:.3} Hz, {gaps}",
        1.0 / c.interval
    )
}

/// `--loop N`: a count of at least 1; a word that is no number is most
/// likely the take, written after `--loop`.
fn parse_loops(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(0) => Err("play at least once: give 1 or more".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "--loop takes an optional count; to loop {text:?} until Ctrl-C, \
             write the take first: llv play {text} --loop"
        )),
    }
}

fn parse_chase(text: &str) -> Result<u16, String> {
    match text.split_once(':') {
        None if text == "artnet" => Ok(llv_core::artnet::PORT),
        Some(("artnet", port)) => port.parse().map_err(|_| format!("{port:?} is not a port")),
        _ => Err("give artnet or artnet:PORT".into()),
    }
}

/// Plays following Art-Net timecode until Ctrl-C, and says what happened.
fn chase(
    args: &Args,
    take: &Take,
    targets: &[SocketAddr],
    port: u16,
    stop: &AtomicBool,
    progress: &ProgressBar,
) -> Result<()> {
    let spec = args.chase_args.spec()?;
    let config = spec.config();
    let receiver = Receiver::start(port, spec.stream, config)?;
    eprintln!(
        "chasing Art-Net timecode on UDP {port} (stream {}), the take's first frame at {}; Ctrl-C stops",
        spec.stream,
        args.chase_args.offset_text()
    );
    progress.set_style(
        ProgressStyle::with_template("{spinner} {pos} frames {elapsed_precise} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    let (report, errors) = play_chased(take, targets, spec.offset, &receiver, stop, progress)?;
    progress.finish_and_clear();
    console::print(&format!(
        "chased: {} frames sent ({} held frames again), {} late, {} seeks (starts and jumps), {} locates; {} timecode frames received, {} bad packets, {} of other streams and {} other Art-Net packets ignored; last state {}, {}{}\n",
        report.cues.frames,
        report.cues.repeats,
        report.cues.late_frames,
        report.cues.seeks,
        report.locates,
        report.timecode_frames,
        report.bad_packets,
        report.other_stream,
        report.other_ops,
        report.last_state.map_or("none", chasing::describe),
        if report.real_time { "real-time priority" } else { "normal priority" },
        if errors > 0 { format!(", {errors} sends failed") } else { String::new() },
    ))?;
    Ok(())
}
