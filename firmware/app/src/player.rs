//! The player: every stored packet, bit-exact, to every target, at the
//! take's own timing.
//!
//! Deadlines are absolute: frame `n` of loop `k` is due at
//! `start + k * period + time(n)`, computed from `start` each time, so
//! rounding and late wake-ups never accumulate into drift. A late frame is
//! sent at once and the following ones keep their own deadlines.
//!
//! Sending never waits ([`PacketSink::offer`]): a target whose queue is full
//! loses that frame, counted in its [`TargetCounts`]. To stop a playback, drop
//! its future (the box races it against new commands): every wait in it is an
//! `.await`, so a stop always wins at once.

use embassy_time::{with_timeout, Duration, Instant, Timer};
use heapless::Vec;
use llv_core::control::TargetCounts;
use llv_core::packet::MAX_LEN;
use llv_core::settings::{Loops, Target, MAX_TARGETS};

use crate::fmt::info;
use crate::sink::{Offer, PacketSink};
use crate::source::FrameSource;

use llv_core::pacing::LATE_AFTER_US;

/// How long the end of a playback waits for the queues to drain.
pub const FLUSH_TIMEOUT: Duration = Duration::from_millis(500);

/// What a playback did so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PlayReport {
    /// Frames sent (each offered to every target).
    pub frames: u32,
    /// Index of the frame last sent.
    pub frame: u32,
    /// Complete passes through the take.
    pub loops_done: u32,
    /// Frames sent more than [`LATE_AFTER_US`] after their deadline.
    pub late_frames: u32,
    /// The largest lateness seen, in µs.
    pub max_late_us: u64,
    /// Per target: frames queued and dropped.
    pub targets: Vec<TargetCounts, MAX_TARGETS>,
    /// When the frame in hand is due, in µs since power-up.
    pub due_us: u64,
}

impl PlayReport {
    /// Frames dropped, all targets together.
    pub fn dropped(&self) -> u32 {
        self.targets.iter().map(|t| t.dropped).sum()
    }
}

/// Why playback could not go on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PlayError<E> {
    /// The take has no frames.
    EmptyTake,
    /// No target to send to.
    NoTargets,
    /// The take would loop faster than `llv_core::take::MAX_FPS`.
    TooFast,
    /// Chasing at the take's own timecode, but its first frame has none usable.
    NoTimecode,
    /// Reading frame `index` failed.
    Source {
        /// The frame.
        index: u32,
        /// Why.
        error: E,
    },
}

/// Offset of frame `time_us` in loop `loop_index` from the start, in µs.
pub fn deadline_offset_us(loop_index: u64, period_us: u32, time_us: u32) -> u64 {
    loop_index
        .saturating_mul(u64::from(period_us))
        .saturating_add(u64::from(time_us))
}

/// Checks that `source` has frames and there are `targets`, opens `sink` to
/// them and returns the frame count and an empty report for them.
pub(crate) fn begin<S: FrameSource, K: PacketSink>(
    source: &S,
    sink: &mut K,
    targets: &[Target],
) -> Result<(u32, PlayReport), PlayError<S::Error>> {
    let count = source.frame_count();
    if count == 0 {
        return Err(PlayError::EmptyTake);
    }
    if targets.is_empty() {
        return Err(PlayError::NoTargets);
    }
    let report = PlayReport {
        targets: targets
            .iter()
            .take(MAX_TARGETS)
            .map(|&target| TargetCounts {
                target,
                sent: 0,
                dropped: 0,
            })
            .collect(),
        ..PlayReport::default()
    };
    sink.open(targets);
    Ok((count, report))
}

/// Offers frame `index`'s `packet` to every target of `sink`, counting what
/// each queued or dropped in `report`.
pub(crate) fn send<K: PacketSink>(
    sink: &mut K,
    report: &mut PlayReport,
    index: u32,
    packet: &[u8],
) {
    for (i, counts) in report.targets.iter_mut().enumerate() {
        match sink.offer(i, packet) {
            Offer::Queued => counts.sent += 1,
            Offer::Full | Offer::Refused => counts.dropped += 1,
        }
    }
    report.frames += 1;
    report.frame = index;
}

/// Plays `source` to `targets` (at most [`MAX_TARGETS`]) through `sink`,
/// `loops` times, then waits up to [`FLUSH_TIMEOUT`] for the queues to drain.
/// Frame 0 is due at `start` (a time already past plays on that schedule),
/// or without one as soon as it is in hand. `progress` sees the report when
/// a frame is in hand (with its deadline) and when it has been sent.
pub async fn play<S: FrameSource, K: PacketSink>(
    source: &mut S,
    sink: &mut K,
    targets: &[Target],
    loops: Loops,
    start: Option<Instant>,
    mut progress: impl FnMut(&PlayReport),
) -> Result<PlayReport, PlayError<S::Error>> {
    let period_us = source.period_us();
    if llv_core::take::too_fast(source.frame_count(), period_us) {
        return Err(PlayError::TooFast);
    }
    let (count, mut report) = begin(source, sink, targets)?;
    let mut buf = [0u8; MAX_LEN];
    // Without a start, the schedule starts when the first frame is in hand (a
    // source may read ahead then), so frame 0 is never late by the time its read took.
    let mut start = start;
    let mut loop_index: u64 = 0;
    loop {
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
            let start = *start.get_or_insert_with(Instant::now);
            let due = start
                + Duration::from_micros(deadline_offset_us(loop_index, period_us, frame.time_us));
            report.due_us = due.as_micros();
            progress(&report);
            Timer::at(due).await;
            let late = Instant::now().saturating_duration_since(due).as_micros();
            if late > LATE_AFTER_US {
                report.late_frames += 1;
            }
            report.max_late_us = report.max_late_us.max(late);
            send(sink, &mut report, index, &buf[..frame.len.min(MAX_LEN)]);
            progress(&report);
        }
        loop_index += 1;
        report.loops_done += 1;
        info!("loop {} done", report.loops_done);
    }
    // A dead target's queue never drains: the wait is bounded.
    let _ = with_timeout(FLUSH_TIMEOUT, sink.flush()).await;
    Ok(report)
}
