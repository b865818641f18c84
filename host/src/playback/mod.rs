//! The player: a take's frames sent to every target, either at absolute
//! deadlines ([`play`]) or following a show's Art-Net timecode
//! ([`play_chased`]). `llv play` and `llv serve` run it.
//!
//! Deadline of frame n = start + offset(n), where the offset comes from the
//! take's own frame times ([`FrameClock`]) or from a fixed rate
//! ([`fixed_offset`]), so the rate never drifts; [`Pacer`] waits for each
//! deadline (see its docs for sleeping and spinning).
//!
//! | module | what it holds |
//! |---|---|
//! | [`pacer`] | [`Pacer`]: waiting for a deadline, real-time priority where allowed |
//! | [`chasing`] | playing a take to a show's timecode, and its [`ChaseReport`] |
//! | [`artnet`] | the Art-Net timecode [`Receiver`] a chase follows |
//! | [`timecode_generator`] | the Art-Net timecode generator `llv tc send` runs |

pub mod artnet;
pub mod chasing;
pub mod pacer;
pub mod timecode_generator;

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use indicatif::ProgressBar;
use llv_core::artnet::TimecodeLabel;
use llv_core::pacing::{fixed_offset, FrameClock, LATE_AFTER_US};
use llv_core::packet::{FaceFrame, MAX_LEN};
use llv_core::time::FrameRate;

use crate::take::Take;
use artnet::Receiver;
use chasing::ChaseReport;
use pacer::{Pacer, Priority};

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
    /// Frames sent late as `Status` counts them (over [`LATE_AFTER_US`]).
    pub late_frames: u64,
    /// The player ran with real-time priority (see [`Pacer`]).
    pub real_time: bool,
}

/// One UDP socket per address family the targets use.
pub struct Senders {
    v4: Option<UdpSocket>,
    v6: Option<UdpSocket>,
}

impl Senders {
    /// Sockets for the address families of `targets` (IPv4 may broadcast).
    pub fn new(targets: &[SocketAddr]) -> io::Result<Senders> {
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

    /// Sends `packet` to `target` (never waits on a full buffer: UDP).
    pub fn send(&self, packet: &[u8], target: &SocketAddr) -> io::Result<()> {
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
    let mut late_frames = 0u64;
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
            late_frames += u64::from(late > Duration::from_micros(LATE_AFTER_US));
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
        late_frames,
        real_time: pacer.priority() == Priority::RealTime,
    })
}

/// Plays `take` to `targets` following `receiver`'s timecode, its first frame
/// at `offset` (its own timecode without one), until `stop` is set; returns
/// what happened and how many sends failed.
pub fn play_chased(
    take: &Take,
    targets: &[SocketAddr],
    offset: Option<TimecodeLabel>,
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
