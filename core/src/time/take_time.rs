//! A take's own time: each frame's time from the first frame, monotonic
//! through one midnight of labels. Frames are read in take order and each
//! step is taken the short way round a day, so 23:59:59:59 followed by
//! 00:00:00:00 is one frame on, not a day back; a take is shorter than 24 h.

use super::day::wrapped_diff;
use super::frame_time::FrameTime;
use super::rate::FrameRate;

/// The frames of one rate read so far, counted exactly.
#[derive(Clone, Copy, Debug)]
struct Run {
    rate: FrameRate,
    /// Take time of the run's first frame, in ns.
    start_ns: i128,
    /// Frames from the run's first frame to the previous one.
    frames: i64,
    first_fraction: f64,
    previous: FrameTime,
}

/// Gives each frame of a take, in order, its time from the first frame.
#[derive(Clone, Copy, Debug, Default)]
pub struct TakeTime {
    run: Option<Run>,
}

impl TakeTime {
    /// Before the first frame.
    pub fn new() -> Self {
        TakeTime::default()
    }

    /// The take time of the next frame, in ns from the first frame (0 for the
    /// first): exact in whole frames while the rate stays, each step the short
    /// way round a day of labels; a step to another rate goes by the times of
    /// day. `None` for a frame with an invalid rate (the frame after it
    /// steps from the last valid one).
    pub fn next_nanos(&mut self, time: &FrameTime) -> Option<i128> {
        if !time.rate.is_valid() {
            return None;
        }
        let fraction = fraction_of(time);
        let Some(mut run) = self.run else {
            self.run = Some(Run {
                rate: time.rate,
                start_ns: 0,
                frames: 0,
                first_fraction: fraction,
                previous: *time,
            });
            return Some(0);
        };
        if let Some(step) = time.frames_since(&run.previous) {
            run.frames += step;
            run.previous = *time;
            self.run = Some(run);
            return Some(run.start_ns + nanos(run.rate, run.frames, fraction - run.first_fraction));
        }
        // Another rate: the step from the previous frame's time of day.
        let previous_ns = run.start_ns
            + nanos(
                run.rate,
                run.frames,
                fraction_of(&run.previous) - run.first_fraction,
            );
        let day = time.rate.micros_per_day()?;
        let step_us = wrapped_diff(time.micros_of_day()?, run.previous.micros_of_day()?, day);
        let start_ns = previous_ns + i128::from(step_us) * 1000;
        self.run = Some(Run {
            rate: time.rate,
            start_ns,
            frames: 0,
            first_fraction: fraction,
            previous: *time,
        });
        Some(start_ns)
    }

    /// The take time `time` would have as the next frame, without taking it
    /// (an in or out point, compared with the frames by the same arithmetic):
    /// `None` before the first frame, or for an invalid rate.
    pub fn peek_nanos(&self, time: &FrameTime) -> Option<i128> {
        self.run?;
        let mut ahead = *self;
        ahead.next_nanos(time)
    }

    /// [`Self::next_nanos`] in seconds.
    pub fn next_seconds(&mut self, time: &FrameTime) -> Option<f64> {
        self.next_nanos(time).map(|ns| ns as f64 / 1e9)
    }
}

/// ns of `frames` whole frames and `fraction` of a frame at `rate` (a valid one).
fn nanos(rate: FrameRate, frames: i64, fraction: f64) -> i128 {
    let (num, den) = (i128::from(rate.numerator), i128::from(rate.denominator));
    let whole = (i128::from(frames) * den * 1_000_000_000).div_euclid(num);
    let part = fraction * den as f64 * 1e9 / num as f64;
    whole + part as i128
}

/// The subframe as sent when it is finite, else 0.
fn fraction_of(time: &FrameTime) -> f64 {
    if time.subframe.is_finite() {
        f64::from(time.subframe)
    } else {
        0.0
    }
}
