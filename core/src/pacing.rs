//! When to send frame `n`: offsets from a start instant, each computed on its
//! own from integers (fixed rate) or from the frame's own time, so no rounding
//! accumulates over hours. Add the offset to your clock's start instant.

use core::time::Duration;

use crate::time::{FrameRate, FrameTime};

const NANOS: u128 = 1_000_000_000;

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

/// Offset of the frame at `time` from the frame at `first`, or `None` when it is
/// earlier, the rates differ, or a rate is invalid.
pub fn frame_time_offset(first: &FrameTime, time: &FrameTime) -> Option<Duration> {
    if first.rate != time.rate || !time.rate.is_valid() {
        return None;
    }
    let (num, den) = (
        i128::from(time.rate.numerator),
        i128::from(time.rate.denominator),
    );
    let whole = i128::from(time.frame_number) - i128::from(first.frame_number);
    let whole_ns = whole * den * NANOS as i128 / num;
    let fraction = f64::from(time.subframe) - f64::from(first.subframe);
    if !fraction.is_finite() {
        return None;
    }
    let fraction_ns = fraction * den as f64 * 1.0e9 / num as f64;
    let ns = whole_ns.checked_add(fraction_ns as i128)?;
    let ns = u128::try_from(ns).ok()?;
    Some(Duration::new(
        u64::try_from(ns / NANOS).ok()?,
        (ns % NANOS) as u32,
    ))
}

/// A take's schedule from its own frame times, robust to real-world takes: when
/// a time goes backwards, changes rate or is invalid, the clock re-anchors one
/// `fallback` frame after the previous deadline and goes on from there.
#[derive(Clone, Copy, Debug)]
pub struct FrameClock {
    fallback: FrameRate,
    anchor: Option<(FrameTime, Duration)>,
    last: Option<Duration>,
}

impl FrameClock {
    /// A clock whose gaps in bad places are one frame of `fallback`.
    pub fn new(fallback: FrameRate) -> Self {
        FrameClock {
            fallback,
            anchor: None,
            last: None,
        }
    }

    /// The offset of the next frame, whose time is `time`; never earlier than the previous.
    pub fn next(&mut self, time: &FrameTime) -> Duration {
        if let (Some((first, base)), Some(last)) = (self.anchor, self.last) {
            if let Some(offset) = frame_time_offset(&first, time) {
                let at = base + offset;
                if at >= last {
                    self.last = Some(at);
                    return at;
                }
            }
        }
        let step = fixed_offset(1, self.fallback).unwrap_or(Duration::ZERO);
        let at = self.last.map_or(Duration::ZERO, |last| last + step);
        self.anchor = Some((*time, at));
        self.last = Some(at);
        at
    }

    /// The length of one frame at the fallback rate (the gap after the last frame of a loop).
    pub fn frame_period(&self) -> Duration {
        fixed_offset(1, self.fallback).unwrap_or(Duration::ZERO)
    }
}
