//! The player: every stored packet, bit-exact, to every target, at the
//! take's own timing.
//!
//! Deadlines are absolute: frame `n` of loop `k` is due at
//! `start + k * period + time(n)`, computed from `start` each time, so
//! rounding and late wake-ups never accumulate into drift. A late frame is
//! sent at once and the following ones keep their own deadlines.

use core::net::SocketAddrV4;

use embassy_futures::select::{select, Either};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::{Duration, Instant, Timer};

use crate::config::Loops;
use crate::fmt::info;
use crate::sink::PacketSink;
use crate::source::{FrameSource, MAX_PACKET};

/// Signalled to stop playback early (a clean stop: the socket is flushed).
pub type StopSignal = Signal<CriticalSectionRawMutex, ()>;

/// A frame sent more than this after its deadline counts as late.
pub const LATE_AFTER_US: u64 = 2_000;

/// What a playback did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PlayReport {
    /// Frames sent (each to every target).
    pub frames: u32,
    /// Datagrams queued without error.
    pub packets: u32,
    /// Datagrams the sink refused.
    pub send_errors: u32,
    /// Complete passes through the take.
    pub loops_done: u32,
    /// Frames sent more than [`LATE_AFTER_US`] after their deadline.
    pub late_frames: u32,
    /// The largest lateness seen, in µs.
    pub max_late_us: u64,
    /// Playback ended through the stop signal.
    pub stopped: bool,
}

/// Why playback could not go on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PlayError<E> {
    /// The take has no frames.
    EmptyTake,
    /// No target to send to.
    NoTargets,
    /// Reading frame `index` failed.
    Source { index: u32, error: E },
}

/// Offset of frame `time_us` in loop `loop_index` from the start, in µs.
pub fn deadline_offset_us(loop_index: u64, period_us: u32, time_us: u32) -> u64 {
    loop_index
        .saturating_mul(u64::from(period_us))
        .saturating_add(u64::from(time_us))
}

/// Plays `source` to `targets` through `sink`, `loops` times or until `stop`
/// is signalled, then flushes the sink.
pub async fn play<S: FrameSource, K: PacketSink>(
    source: &mut S,
    sink: &mut K,
    targets: &[SocketAddrV4],
    loops: Loops,
    stop: &StopSignal,
) -> Result<PlayReport, PlayError<S::Error>> {
    let count = source.frame_count();
    if count == 0 {
        return Err(PlayError::EmptyTake);
    }
    if targets.is_empty() {
        return Err(PlayError::NoTargets);
    }
    // A zero period would make an endless loop spin without waiting.
    let period_us = source.period_us().max(1);
    let mut report = PlayReport::default();
    let mut buf = [0u8; MAX_PACKET];
    let start = Instant::now();
    let mut loop_index: u64 = 0;

    'play: loop {
        if let Loops::Times(n) = loops {
            if loop_index >= u64::from(n) {
                break;
            }
        }
        for index in 0..count {
            let frame = source
                .read_frame(index, &mut buf)
                .await
                .map_err(|error| PlayError::Source { index, error })?;
            let due = start
                + Duration::from_micros(deadline_offset_us(loop_index, period_us, frame.time_us));
            if let Either::Second(()) = select(Timer::at(due), stop.wait()).await {
                report.stopped = true;
                break 'play;
            }
            let late = Instant::now().saturating_duration_since(due).as_micros();
            if late > LATE_AFTER_US {
                report.late_frames += 1;
            }
            report.max_late_us = report.max_late_us.max(late);
            let packet = &buf[..frame.len.min(MAX_PACKET)];
            for target in targets {
                match sink.send(packet, *target).await {
                    Ok(()) => report.packets += 1,
                    Err(_) => report.send_errors += 1,
                }
            }
            report.frames += 1;
        }
        loop_index += 1;
        report.loops_done += 1;
        info!("loop {} done", report.loops_done);
    }
    sink.flush().await;
    Ok(report)
}
