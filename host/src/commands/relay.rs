//! `llv relay`: the live safety net on a laptop. Frames from the phone go on
//! to the targets (at once, or re-clocked with `--buffer`), an idle take (or
//! the last frame held) covers a dropout, and `--record` keeps the live
//! stream as a take ([`crate::live`] runs it over the core's relay engine).

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use llv_core::relay::{NoIdle, Relay, RelayConfig, SwitchKind, MAX_BUFFER};

use crate::address::resolve;
use crate::args::LIVE_LINK_PORT;
use crate::capture::bind;
use crate::console;
use crate::live::black_box::BlackBox;
use crate::live::{self, IdleTake};
use crate::recording;
use crate::stop;

const EXAMPLES: &str = "\
Examples:
  llv relay --to 192.168.1.50                                  # phone on 11111, each frame on at once
  llv relay --to 192.168.1.50 --buffer 3 --idle idle.gesichter --record ~/show/live
  llv relay --listen 11120 --to 10.0.0.5 --to 10.0.0.6:11111 --subject alex --from 192.168.1.23";

/// `llv relay`.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// UDP port to listen on for the phone (0: any free port, printed).
    #[arg(long, default_value_t = LIVE_LINK_PORT)]
    listen: u16,
    /// Address to listen on; `::` for IPv6.
    #[arg(long, default_value = "0.0.0.0")]
    bind: IpAddr,
    /// Target HOST[:PORT]; repeat for several targets.
    #[arg(long = "to", value_name = "HOST[:PORT]", required = true)]
    to: Vec<String>,
    /// Port for targets given without one.
    #[arg(long, default_value_t = LIVE_LINK_PORT)]
    port: u16,
    /// The take that covers a dropout, looping (any format llv reads, a CSV
    /// take at 60 fps labels); without one the last frame is held.
    #[arg(long, value_name = "TAKE")]
    idle: Option<PathBuf>,
    /// Frames of buffer: 0 passes each frame on at once; N sends at the
    /// source's own rate on an exact period, N frames later.
    #[arg(long, default_value_t = 0, value_name = "N",
          value_parser = clap::value_parser!(u8).range(0..=i64::from(MAX_BUFFER)))]
    buffer: u8,
    /// No live frame for this long (ms) and the idle take (or the hold) takes over.
    #[arg(long, default_value_t = 250, value_name = "MS")]
    timeout: u16,
    /// Length of the crossfades to and from the idle take (ms).
    #[arg(long, default_value_t = 300, value_name = "MS")]
    fade: u16,
    /// Consecutive live frames it takes to return from the idle take.
    #[arg(long = "return", default_value_t = 10, value_name = "K",
          value_parser = clap::value_parser!(u8).range(1..))]
    return_frames: u8,
    /// Pass datagrams that are not face frames (MetaHuman Animator, no-face, garbage) on untouched.
    #[arg(long)]
    pass_other: bool,
    /// Record the live frames as they arrive into a take named by date and time in DIR.
    #[arg(long, value_name = "DIR")]
    record: Option<PathBuf>,
    /// Relay only this subject's frames (default: the first subject heard).
    #[arg(long, value_name = "NAME")]
    subject: Option<String>,
    /// Relay only frames from this address.
    #[arg(long, value_name = "ADDR")]
    from: Option<IpAddr>,
    /// Stop after SECS seconds (default: Ctrl-C stops).
    #[arg(long, value_name = "SECS")]
    duration: Option<f64>,
}

/// Runs `llv relay`.
pub fn run(args: &Args) -> Result<()> {
    let targets = args
        .to
        .iter()
        .map(|t| resolve(t, args.port))
        .collect::<Result<Vec<SocketAddr>>>()?;
    let mut idle = match &args.idle {
        Some(path) => {
            let loaded = recording::read(path, &recording::ReadOptions::default())?;
            if loaded.take.is_empty() {
                bail!("{}: no frames for the idle take", path.display());
            }
            Some(IdleTake::new(&loaded.take))
        }
        None => None,
    };
    let until = args
        .duration
        .map(Duration::try_from_secs_f64)
        .transpose()
        .context("--duration")?
        .map(|d| Instant::now() + d);
    let config = RelayConfig {
        buffer: args.buffer,
        timeout_ms: args.timeout,
        fade_ms: args.fade,
        return_frames: args.return_frames,
        pass_other: args.pass_other,
    };
    let relay = Relay::new(config, args.subject.as_deref(), args.from);
    let (socket, _) = bind(SocketAddr::new(args.bind, args.listen))?;
    let addr = socket.local_addr().context("the socket's address")?;
    let black_box = args.record.as_deref().map(BlackBox::start).transpose()?;
    let stop = stop::on_ctrl_c()?;
    eprintln!(
        "listening on {addr}, relaying to {}{}; {}",
        args.to.join(", "),
        black_box
            .as_ref()
            .map(|b| format!(", recording to {}", b.path().display()))
            .unwrap_or_default(),
        if until.is_some() {
            "stops after --duration or Ctrl-C"
        } else {
            "Ctrl-C stops"
        }
    );
    let mut no_idle = NoIdle;
    let idle: &mut dyn llv_core::relay::Idle = match &mut idle {
        Some(take) => take,
        None => &mut no_idle,
    };
    let bounds = live::Bounds {
        epoch: Instant::now(),
        stop,
        until,
    };
    let report = live::run(
        &socket,
        &targets,
        relay,
        idle,
        black_box,
        bounds,
        &mut |_, _| {},
    )?;
    let counts = report.relay.counts();
    let clock = report.relay.source_clock();
    let mut text = format!(
        "in {} frames ({} lost), out {} ({} made), not face {} ({} passed on), other source {}\n",
        counts.frames_in,
        counts.lost,
        counts.frames_out,
        counts.made,
        counts.not_face,
        counts.passed,
        counts.other_source
    );
    text += &format!(
        "source {:.3} Hz, jitter {:.1} ms; buffer underruns {}, dropped {}\n",
        clock.rate_hz(),
        clock.jitter_us() as f64 / 1000.0,
        counts.underruns,
        counts.dropped
    );
    text += &format!(
        "re-clocked frames more than 2 ms late {}, latest {:.1} ms\n",
        counts.late,
        counts.worst_late_us as f64 / 1000.0
    );
    text += &format!(
        "fallbacks {}, returns {}\n",
        counts.fallbacks, counts.returns
    );
    for switch in &counts.switches {
        let kind = match switch.kind {
            SwitchKind::Fallback => "fallback",
            SwitchKind::Return => "return",
        };
        text += &format!("{kind} at {:.3} s\n", switch.at_us as f64 / 1e6);
    }
    if let Some((path, bytes)) = &report.recorded {
        text += &format!("recorded {} ({bytes} bytes)\n", path.display());
    }
    if report.send_errors > 0 {
        text += &format!("failed sends: {}\n", report.send_errors);
    }
    console::print(&text)?;
    Ok(())
}
