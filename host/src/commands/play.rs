//! `llv play`: send a take's frames at absolute deadlines to every target.
//!
//! Deadline of frame n = start + offset(n), where the offset comes from the
//! take's own frame times ([`FrameClock`]) or from a fixed rate
//! ([`fixed_offset`]), so the rate never drifts; [`Pacer`] waits for each
//! deadline (see its docs for sleeping and spinning).

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use llv_core::artnet::Label;
use llv_core::pacing::{fixed_offset, FrameClock};
use llv_core::packet::{FaceFrame, MAX_LEN};
use llv_core::time::FrameRate;

use crate::address::resolve;
use crate::args::{parse_rate, ChaseArgs, EditArgs, ReadArgs, LIVE_LINK_PORT};
use crate::artnet::Receiver;
use crate::chasing::{self, ChaseReport};
use crate::console;
use crate::pacer::{Pacer, Priority};
use crate::recording;
use crate::stop;
use crate::take::Take;

/// `llv play FILE`.
#[derive(clap::Args, Debug)]
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
    #[arg(long = "loop", value_name = "N", num_args = 0..=1,
          value_parser = clap::value_parser!(u64).range(1..))]
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

/// How a take is played.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// A fixed rate instead of the take's frame times.
    pub fps: Option<FrameRate>,
    /// How many times to play the take; `None` is until stopped.
    pub repeat: Option<u64>,
    /// Shift frame numbers by one take length per loop so time keeps increasing.
    pub restamp: bool,
    /// Stay at normal priority instead of trying real-time (see [`Pacer`]).
    pub normal_priority: bool,
    /// When the first frame is due (default: as soon as playback begins).
    pub start_at: Option<Instant>,
}

/// What a playback did.
#[derive(Clone, Copy, Debug)]
pub struct Report {
    /// Frames sent (to every target).
    pub frames: u64,
    /// From the first deadline to the last send.
    pub elapsed: Duration,
    /// Sends that failed, over all targets.
    pub send_errors: u64,
    /// True when stopped early (Ctrl-C).
    pub stopped: bool,
    /// The latest any send started after its deadline.
    pub max_late: Duration,
    /// Sends that started more than 1 ms after their deadline.
    pub late_over_1ms: u64,
    /// The player ran with real-time priority (see [`Pacer`]).
    pub real_time: bool,
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
        "{} {} frames to {} target(s) in {:.3} s (mean {:.3} fps{}; latest send {:.3} ms after its deadline, {}){}\n",
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
            ", timed by the take's frame times, gaps kept"
        } else {
            ""
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

/// One UDP socket per address family the targets use.
struct Senders {
    v4: Option<UdpSocket>,
    v6: Option<UdpSocket>,
}

impl Senders {
    fn new(targets: &[SocketAddr]) -> io::Result<Senders> {
        let bind = |any: &str| UdpSocket::bind(any);
        Ok(Senders {
            v4: targets
                .iter()
                .any(|t| t.is_ipv4())
                .then(|| {
                    // Stage networks sometimes play to a broadcast address.
                    bind("0.0.0.0:0").and_then(|s| s.set_broadcast(true).map(|()| s))
                })
                .transpose()?,
            v6: targets
                .iter()
                .any(|t| t.is_ipv6())
                .then(|| bind("[::]:0"))
                .transpose()?,
        })
    }

    fn send(&self, packet: &[u8], target: &SocketAddr) -> io::Result<()> {
        let socket = if target.is_ipv4() { &self.v4 } else { &self.v6 };
        let socket = socket
            .as_ref()
            .ok_or_else(|| io::Error::other("no socket"))?;
        socket.send_to(packet, target).map(|_| ())
    }
}

/// Plays `take` to every target until done or `stop` is set.
pub fn play(
    take: &Take,
    targets: &[SocketAddr],
    options: &Options,
    stop: &AtomicBool,
    progress: &ProgressBar,
) -> Result<Report> {
    let senders = Senders::new(targets).context("opening a UDP socket")?;
    let first = take
        .frames()
        .next()
        .ok_or_else(|| anyhow!("no frames to play"))?;
    let last = take
        .frames()
        .last()
        .ok_or_else(|| anyhow!("no frames to play"))?;
    let fallback = Some(first.time().rate)
        .filter(|r| r.is_valid())
        .unwrap_or(FrameRate::FPS_60);
    let span = i64::from(last.time().frame_number) - i64::from(first.time().frame_number) + 1;
    let mut clock = FrameClock::new(fallback);
    let mut buf = [0u8; MAX_LEN];
    let mut sent = 0u64;
    let mut send_errors = 0u64;
    let mut start = None;
    let mut stopped = false;
    let mut max_late = Duration::ZERO;
    let mut late_over_1ms = 0u64;
    let mut pass = 0u64;
    let mut pacer = Pacer::new(!options.normal_priority);
    'passes: while options.repeat.is_none_or(|n| pass < n) {
        for packet in take.frames() {
            let mut time = packet.time();
            let bytes = if options.restamp && pass > 0 {
                let mut frame: FaceFrame<'_> = packet.frame();
                let shifted = i64::from(time.frame_number) + span * pass as i64;
                frame.time.frame_number = i32::try_from(shifted)
                    .map_err(|_| anyhow!("--restamp: frame number {shifted} overflows"))?;
                time = frame.time;
                let len = frame.encode(&mut buf).map_err(|e| anyhow!("{e}"))?;
                &buf[..len]
            } else {
                packet.as_bytes()
            };
            let offset = match options.fps {
                Some(rate) => fixed_offset(sent, rate).unwrap_or_default(),
                None => clock.next(&time),
            };
            let begin = *start.get_or_insert_with(|| options.start_at.unwrap_or_else(Instant::now));
            let deadline = begin + offset;
            if !pacer.wait_until(deadline, stop) {
                stopped = true;
                break 'passes;
            }
            let late = deadline.elapsed();
            max_late = max_late.max(late);
            late_over_1ms += u64::from(late > Duration::from_millis(1));
            for target in targets {
                if let Err(e) = senders.send(bytes, target) {
                    if send_errors == 0 {
                        progress.suspend(|| eprintln!("warning: sending to {target}: {e}"));
                    }
                    send_errors += 1;
                }
            }
            sent += 1;
            progress.inc(1);
        }
        pass += 1;
    }
    Ok(Report {
        frames: sent,
        elapsed: start.map_or(Duration::ZERO, |s| s.elapsed()),
        send_errors,
        stopped,
        max_late,
        late_over_1ms,
        real_time: pacer.priority() == Priority::RealTime,
    })
}

/// `--chase artnet[:PORT]`: the port.
fn parse_chase(text: &str) -> Result<u16, String> {
    match text.split_once(':') {
        None if text == "artnet" => Ok(llv_core::artnet::PORT),
        Some(("artnet", port)) => port.parse().map_err(|_| format!("{port:?} is not a port")),
        _ => Err("give artnet or artnet:PORT".into()),
    }
}

/// Plays `take` to `targets` following `receiver`'s timecode, its first frame
/// at `offset` (its own timecode without one), until `stop` is set; returns
/// what happened and how many sends failed.
pub fn play_chased(
    take: &Take,
    targets: &[SocketAddr],
    offset: Option<Label>,
    receiver: &Receiver,
    stop: &AtomicBool,
    progress: &ProgressBar,
) -> Result<(ChaseReport, u64)> {
    let senders = Senders::new(targets).context("opening a UDP socket")?;
    let mut errors = 0u64;
    let report = chasing::play_chasing(take, offset, receiver, stop, progress, |packet| {
        for target in targets {
            if senders.send(packet, target).is_err() {
                errors += 1;
            }
        }
    })?;
    Ok((report, errors))
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
        "chased: {} frames sent, {} seeks, {} locates; {} timecode frames received, {} bad packets, {} of other streams and {} other Art-Net packets ignored; last state {}, {}{}\n",
        report.frames,
        report.seeks,
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
