//! `llv record`: receive Live Link Face datagrams and append one native line
//! per face frame.
//!
//! Flushing: lines go through a buffered writer that is flushed whenever the
//! socket has nothing more pending (after each burst of datagrams). Every frame
//! that has been received and drained from the socket is therefore in the
//! file (the kernel's page cache) before the recorder waits again, so a kill
//! loses nothing received, while a burst costs one write instead of one per
//! frame.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::{self, BufWriter, Write};
use std::net::{IpAddr, SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::ProgressBar;
use llv_core::packet::{classify, Datagram, Packet};
use llv_core::time::FrameTime;
use socket2::{Domain, Protocol, Socket, Type};

use crate::args::LIVE_LINK_PORT;
use crate::console;
use crate::recording::native;
use crate::stop;
use crate::take::Gaps;

/// Receive buffer asked for, so bursts wait in the kernel rather than being dropped.
pub const RECEIVE_BUFFER: usize = 8 << 20;
/// Subjects counted by name; frames of any further subject are counted together.
pub const MAX_SUBJECTS: usize = 16;
/// Longest the recorder drains a burst before it flushes, reports and checks its limits again.
const BURST: Duration = Duration::from_millis(100);
/// The hint shown when MetaHuman Animator packets arrive.
const MHA_HINT: &str = "the phone sends MetaHuman Animator packets: switch the Live Link Face app's capture mode to ARKit";

/// `llv record`.
#[derive(clap::Args, Debug)]
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

/// When recording stops (besides Ctrl-C).
#[derive(Clone, Copy, Debug, Default)]
pub struct Limit {
    /// After this many face frames.
    pub frames: Option<u64>,
    /// After this long.
    pub duration: Option<Duration>,
}

/// What arrived, by kind.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    /// Face frames written.
    pub frames: u64,
    /// Header-only packets (the phone lost the face).
    pub no_face: u64,
    /// Datagrams that are not valid packets.
    pub invalid: u64,
    /// MetaHuman Animator packets (app in the wrong capture mode).
    pub metahuman: u64,
    /// Face frames of other subjects (with --subject).
    pub other_subject: u64,
    /// Forward jumps of the frame number by more than one.
    pub gaps: Gaps,
    /// The subject of the latest frame.
    pub subject: String,
    /// The latest invalid datagram's error.
    pub last_invalid: Option<String>,
    /// Receive times of the first and latest frame written.
    pub span: Option<(Instant, Instant)>,
    /// Frames per subject, for the first [`MAX_SUBJECTS`] subjects seen.
    pub subjects: BTreeMap<String, u64>,
    /// Frames of the subjects seen after those.
    pub later_subjects: u64,
}

impl Counts {
    /// Seconds from the first to the latest frame written.
    pub fn seconds(&self) -> f64 {
        self.span.map_or(0.0, |(a, b)| (b - a).as_secs_f64())
    }

    /// Mean frames per second over that span.
    pub fn mean_rate(&self) -> f64 {
        let secs = self.seconds();
        if secs > 0.0 {
            (self.frames - 1) as f64 / secs
        } else {
            0.0
        }
    }
}

/// Opens the receiving socket with a large receive buffer; returns it and the buffer size granted.
pub fn bind(addr: SocketAddr) -> Result<(UdpSocket, usize)> {
    let socket = Socket::new(Domain::for_address(addr), Type::DGRAM, Some(Protocol::UDP))
        .context("creating the UDP socket")?;
    if addr.is_ipv6() {
        // Also receive IPv4 on `::` where the system allows it.
        let _ = socket.set_only_v6(false);
    }
    // The kernel caps this at net.core.rmem_max; we report what was granted.
    let _ = socket.set_recv_buffer_size(RECEIVE_BUFFER);
    let granted = socket.recv_buffer_size().unwrap_or(0);
    socket
        .bind(&addr.into())
        .with_context(|| format!("cannot listen on {addr}"))?;
    Ok((socket.into(), granted))
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
        "recorded {} frames in {:.3} s (mean {:.3} fps) to {}\n",
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

/// Receives into `out` until the limit or `stop`, checked before every datagram;
/// calls `progress` after each burst (at most [`BURST`] long) and at least every 100 ms.
pub fn record(
    socket: &UdpSocket,
    out: &mut dyn Write,
    limit: Limit,
    subject: Option<&str>,
    stop: &AtomicBool,
    mut progress: impl FnMut(&Counts),
) -> io::Result<Counts> {
    let started = Instant::now();
    let deadline = limit.duration.map(|d| started + d);
    let mut counts = Counts::default();
    let mut last_time: Option<FrameTime> = None;
    // Larger than any datagram, so an oversized one is seen whole and called invalid.
    let mut buf = vec![0u8; 65536];
    let full = |c: &Counts| limit.frames.is_some_and(|n| c.frames >= n);
    while !full(&counts) && !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        let wait = match deadline {
            Some(d) if now >= d => break,
            Some(d) => (d - now).min(Duration::from_millis(100)),
            None => Duration::from_millis(100),
        };
        socket.set_read_timeout(Some(wait.max(Duration::from_millis(1))))?;
        match socket.recv(&mut buf) {
            Ok(n) => take_in(&buf[..n], out, subject, &mut counts, &mut last_time)?,
            Err(e) if is_timeout(&e) => {
                progress(&counts);
                continue;
            }
            Err(e) => return Err(e),
        }
        // Drain the burst without blocking, then flush once. A flood is cut
        // into bursts, and every datagram waits for the limits to be checked.
        socket.set_nonblocking(true)?;
        let burst_end = Instant::now() + BURST;
        loop {
            let now = Instant::now();
            let past = |end: Instant| now >= end;
            if full(&counts)
                || stop.load(Ordering::Relaxed)
                || deadline.is_some_and(past)
                || past(burst_end)
            {
                break;
            }
            match socket.recv(&mut buf) {
                Ok(n) => take_in(&buf[..n], out, subject, &mut counts, &mut last_time)?,
                Err(e) if is_timeout(&e) => break,
                Err(e) => return Err(e),
            }
        }
        socket.set_nonblocking(false)?;
        out.flush()?;
        progress(&counts);
    }
    out.flush()?;
    Ok(counts)
}

fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
    )
}

/// Classifies one datagram, writes it if it is a wanted face frame, and counts it.
fn take_in(
    datagram: &[u8],
    out: &mut dyn Write,
    subject: Option<&str>,
    counts: &mut Counts,
    last_time: &mut Option<FrameTime>,
) -> io::Result<()> {
    match classify(datagram) {
        Datagram::Face(packet) if subject.is_some_and(|s| s != packet.subject()) => {
            counts.other_subject += 1;
        }
        Datagram::Face(packet) => {
            native::write_line(packet.as_bytes(), out)?;
            note_frame(&packet, counts, last_time);
        }
        Datagram::NoFace(_) => counts.no_face += 1,
        Datagram::MetaHumanAnimator(_) => counts.metahuman += 1,
        Datagram::Invalid(e) => {
            counts.invalid += 1;
            counts.last_invalid = Some(format!("{} bytes: {e}", datagram.len()));
        }
    }
    Ok(())
}

fn note_frame(packet: &Packet<'_>, counts: &mut Counts, last_time: &mut Option<FrameTime>) {
    let now = Instant::now();
    let time = packet.time();
    if let Some(prev) = last_time {
        counts.gaps.note(prev, &time);
    }
    *last_time = Some(time);
    counts.frames += 1;
    counts.span = Some((counts.span.map_or(now, |(first, _)| first), now));
    if counts.subject != packet.subject() {
        counts.subject = packet.subject().to_string();
    }
    let named = counts.subjects.len();
    match counts.subjects.get_mut(packet.subject()) {
        Some(n) => *n += 1,
        None if named < MAX_SUBJECTS => {
            counts.subjects.insert(packet.subject().to_string(), 1);
        }
        None => counts.later_subjects += 1,
    }
}
