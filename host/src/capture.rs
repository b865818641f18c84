//! The recorder: Live Link Face datagrams received on a UDP socket, one
//! native line appended per face frame, everything else counted. `llv record`
//! runs it.
//!
//! Flushing: lines go through a buffered writer that is flushed whenever the
//! socket has nothing more pending (after each burst of datagrams). Every frame
//! that has been received and drained from the socket is therefore in the
//! file (the kernel's page cache) before the recorder waits again, so a kill
//! loses nothing received, while a burst costs one write instead of one per
//! frame.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use llv_core::packet::{classify, Datagram, Packet};
use llv_core::time::FrameTime;
use socket2::{Domain, Protocol, Socket, Type};

use crate::recording::native;
use crate::take::Gaps;

/// Receive buffer asked for, so bursts wait in the kernel rather than being dropped.
pub const RECEIVE_BUFFER: usize = 8 << 20;
/// Subjects counted by name; frames of any further subject are counted together.
pub const MAX_SUBJECTS: usize = 16;
/// Longest the recorder drains a burst before it flushes, reports and checks its limits again.
const BURST: Duration = Duration::from_millis(100);

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

/// Receives into `out` until the limit or `stop`, checked before every datagram;
/// calls `progress` after each burst (at most `BURST` long) and at least every 100 ms.
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
