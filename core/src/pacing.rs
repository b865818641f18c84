//! When to send frame `n`: offsets from a start instant, each computed on its
//! own from integers (fixed rate) or from the frame's own time, so no rounding
//! accumulates over hours. Add the offset to your clock's start instant.

use core::time::Duration;

use crate::time::{FrameRate, FrameTime, TakeTime};

const NANOS: u128 = 1_000_000_000;

/// A frame sent more than this after its deadline (chasing: after the
/// timecode reached it) counts as late, in µs: `Status`'s `late_frames`.
pub const LATE_AFTER_US: u64 = 2_000;

/// Offset of frame `n` at a fixed rate: exactly `n * den / num` seconds, floored to ns.
pub fn fixed_offset(n: u64, rate: FrameRate) -> Option<Duration> {
    if !rate.is_valid() {
        return None;
    }
    let ns = u128::from(n) * rate.denominator as u128 * NANOS / rate.numerator as u128;
    Some(Duration::new(
        u64::try_from(ns / NANOS).ok()?,
        (ns % NANOS) as u32,
    ))
}

/// A take's schedule from its own frame times ([`TakeTime`]: through
/// midnight), robust to real-world takes: when a time goes backwards or is
/// invalid, the clock re-anchors one `fallback` frame after the previous
/// deadline and goes on from there.
#[derive(Clone, Copy, Debug)]
pub struct FrameClock {
    fallback: FrameRate,
    take: TakeTime,
    /// A take time (ns) and the offset it plays at.
    anchor: Option<(i128, Duration)>,
    last: Option<Duration>,
}

impl FrameClock {
    /// A clock whose gaps in bad places are one frame of `fallback`.
    pub fn new(fallback: FrameRate) -> Self {
        FrameClock {
            fallback,
            take: TakeTime::new(),
            anchor: None,
            last: None,
        }
    }

    /// The offset of the next frame, whose time is `time`; never earlier than the previous.
    pub fn next(&mut self, time: &FrameTime) -> Duration {
        let take_ns = self.take.next_nanos(time);
        if let (Some(ns), Some((anchor_ns, base)), Some(last)) = (take_ns, self.anchor, self.last) {
            let at = u64::try_from(ns - anchor_ns)
                .ok()
                .and_then(|ahead| base.checked_add(Duration::from_nanos(ahead)));
            if let Some(at) = at.filter(|at| *at >= last) {
                self.last = Some(at);
                return at;
            }
        }
        let step = fixed_offset(1, self.fallback).unwrap_or(Duration::ZERO);
        let at = self.last.map_or(Duration::ZERO, |last| last + step);
        self.anchor = take_ns.map(|ns| (ns, at));
        self.last = Some(at);
        at
    }

    /// The length of one frame at the fallback rate (the gap after the last frame of a loop).
    pub fn frame_period(&self) -> Duration {
        fixed_offset(1, self.fallback).unwrap_or(Duration::ZERO)
    }
}
