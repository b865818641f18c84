//! `llv record`: receive Live Link Face datagrams and append one native line
//! per face frame to a new file ([`crate::capture`] records).

use std::fs::OpenOptions;
use std::io::{self, BufWriter};
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::ProgressBar;

use crate::args::LIVE_LINK_PORT;
use crate::capture::{bind, record, Counts, Limit, MAX_SUBJECTS};
use crate::console;
use crate::stop;

/// The hint shown when MetaHuman Animator packets arrive.
const MHA_HINT: &str = "the phone sends MetaHuman Animator packets: switch the Live Link Face app's capture mode to ARKit";

const EXAMPLES: &str = "\
Examples:
  llv record                                     # until Ctrl-C, to recording-<date>.gesichter-lines
  llv record -o take1.gesichter-lines --frames 600
  llv record -o take2.gesichter-lines --duration 30 --subject iPhone --port 11111
  llv convert take1.gesichter-lines take1.gesichter   # then a file LLV reads (its gzip)";

/// `llv record`.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// File to write, always in the native format (base64 lines, appended per frame, so a
    /// kill loses nothing); default recording-YYYY-MM-DD-HH-MM-SS.gesichter-lines. Never
    /// overwritten. `llv convert REC.gesichter-lines REC.gesichter` makes a file LLV reads.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Address to listen on (LLV's --host); `::` for IPv6.
    #[arg(long, visible_alias = "host", default_value = "0.0.0.0")]
    bind: IpAddr,
    /// UDP port to listen on.
    #[arg(long, default_value_t = LIVE_LINK_PORT)]
    port: u16,
    /// Stop after N face frames.
    #[arg(long, value_name = "N", conflicts_with = "duration")]
    frames: Option<u64>,
    /// Stop after SECS seconds.
    #[arg(long, value_name = "SECS")]
    duration: Option<f64>,
    /// Record only frames of this subject (others are counted and skipped).
    #[arg(long, value_name = "NAME")]
    subject: Option<String>,
}

/// Runs `llv record`.
pub fn run(args: Args) -> Result<()> {
    let path = args.output.clone().unwrap_or_else(|| {
        PathBuf::from(format!(
            "recording-{}{}",
            chrono::Local::now().format("%Y-%m-%d-%H-%M-%S"),
            crate::recording::format::NATIVE_EXTENSION
        ))
    });
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .with_context(|| {
            format!(
                "{}: cannot create (it is never overwritten)",
                path.display()
            )
        })?;
    let addr = SocketAddr::new(args.bind, args.port);
    let (socket, granted) = bind(addr)?;
    let addr = socket.local_addr().unwrap_or(addr);
    let limit = Limit {
        frames: args.frames,
        duration: args
            .duration
            .map(Duration::try_from_secs_f64)
            .transpose()
            .context("--duration")?,
    };
    let stop = stop::on_ctrl_c()?;
    eprintln!(
        "listening on {addr} (receive buffer {} KiB), writing {}; {}",
        granted / 1024,
        path.display(),
        match (limit.frames, limit.duration) {
            (Some(n), _) => format!("stops after {n} frames or Ctrl-C"),
            (None, Some(d)) => format!("stops after {:.1} s or Ctrl-C", d.as_secs_f64()),
            (None, None) => "Ctrl-C stops".to_string(),
        }
    );
    let progress = ProgressBar::new_spinner();
    let mut out = BufWriter::with_capacity(1 << 16, file);
    let mut last_draw = (Instant::now(), 0u64);
    let counts = record(
        &socket,
        &mut out,
        limit,
        args.subject.as_deref(),
        stop,
        |counts| {
            let now = Instant::now();
            let (at, frames) = last_draw;
            if now - at < Duration::from_millis(250) {
                return;
            }
            let rate = (counts.frames - frames) as f64 / (now - at).as_secs_f64();
            last_draw = (now, counts.frames);
            progress.set_message(format!(
                "{} frames  {rate:.1} fps  subject {:?}  no-face {}  invalid {}  MetaHuman Animator {}{}",
                counts.frames,
                counts.subject,
                counts.no_face,
                counts.invalid,
                counts.metahuman,
                if counts.metahuman > 0 {
                    format!("  ({MHA_HINT})")
                } else {
                    String::new()
                }
            ));
            progress.tick();
        },
    )
    .with_context(|| format!("recording to {}", path.display()))?;
    progress.finish_and_clear();
    out.into_inner()
        .map_err(|e| e.into_error())
        .and_then(|f| f.sync_all())
        .with_context(|| format!("{}: cannot write", path.display()))?;
    print_summary(&counts, &path)?;
    Ok(())
}

fn print_summary(counts: &Counts, path: &std::path::Path) -> io::Result<()> {
    let mut text = format!(
        "recorded {} frames in {:.3} s (mean {:.3} Hz) to {}\n",
        counts.frames,
        counts.seconds(),
        counts.mean_rate(),
        path.display()
    );
    for (subject, frames) in &counts.subjects {
        text += &format!("subject {subject:?}: {frames} frames\n");
    }
    if counts.later_subjects > 0 {
        text += &format!(
            "subjects after the first {MAX_SUBJECTS}: {} frames\n",
            counts.later_subjects
        );
    }
    text += &format!(
        "skipped: {} no-face, {} invalid, {} MetaHuman Animator, {} other subject\n",
        counts.no_face, counts.invalid, counts.metahuman, counts.other_subject
    );
    text += &format!(
        "frame-number gaps: {} ({} frames missing)\n",
        counts.gaps.gaps, counts.gaps.missing
    );
    if let Some(e) = &counts.last_invalid {
        eprintln!("last invalid datagram: {e}");
    }
    if counts.metahuman > 0 {
        eprintln!("hint: {MHA_HINT}");
    }
    console::print(&text)
}
