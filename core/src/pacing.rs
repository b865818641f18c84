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

#[cfg(test)]
mod tests {
    use super::*;

    fn t(frame_number: i32, subframe: f32, rate: FrameRate) -> FrameTime {
        FrameTime {
            frame_number,
            subframe,
            rate,
        }
    }

    #[test]
    fn fixed_rate_is_exact_over_hours() {
        let ntsc = FrameRate::new(60000, 1001);
        // Ten hours of 59.94 fps: 2_160_000 frames are exactly 36_036 s.
        assert_eq!(
            fixed_offset(2_160_000, ntsc),
            Some(Duration::from_secs(36_036))
        );
        assert_eq!(
            fixed_offset(2_160_001, ntsc),
            Some(Duration::new(36_036, 16_683_333))
        );
        assert_eq!(
            fixed_offset(1, FrameRate::FPS_60),
            Some(Duration::new(0, 16_666_666))
        );
        assert_eq!(
            fixed_offset(3, FrameRate::FPS_60),
            Some(Duration::from_millis(50))
        );
        assert_eq!(fixed_offset(1, FrameRate::new(0, 1)), None);
    }

    #[test]
    fn frame_times_give_exact_offsets_with_gaps() {
        let r = FrameRate::FPS_60;
        let first = t(5375735, 0.0, r);
        assert_eq!(
            frame_time_offset(&first, &t(5375735 + 60, 0.0, r)),
            Some(Duration::from_secs(1))
        );
        assert_eq!(
            frame_time_offset(&first, &t(5375735 + 216_000, 0.0, r)),
            Some(Duration::from_secs(3600))
        );
        assert_eq!(frame_time_offset(&first, &t(5375734, 0.0, r)), None);
        assert_eq!(
            frame_time_offset(&first, &t(5375736, 0.0, FrameRate::new(30, 1))),
            None
        );
        let half = frame_time_offset(&first, &t(5375735, 0.5, r)).unwrap();
        assert_eq!(half.as_nanos(), 8_333_333);
    }

    #[test]
    fn clock_reanchors_when_time_goes_back() {
        let r = FrameRate::FPS_60;
        let mut clock = FrameClock::new(r);
        assert_eq!(clock.next(&t(100, 0.0, r)), Duration::ZERO);
        assert_eq!(clock.next(&t(102, 0.0, r)).as_nanos(), 33_333_333);
        // A loop of the take: the time restarts.
        let after = clock.next(&t(100, 0.0, r));
        assert_eq!(after.as_nanos(), 33_333_333 + 16_666_666);
        assert_eq!(
            clock.next(&t(101, 0.0, r)).as_nanos(),
            33_333_333 + 16_666_666 * 2
        );
    }
}
