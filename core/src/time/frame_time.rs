//! The qualified frame time a packet carries: frame number and subframe at a
//! rate, read as a time of day whose labels wrap at midnight.

use super::day::wrapped_diff;
use super::rate::FrameRate;

/// The qualified frame time of a packet: frame number plus subframe at a rate.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FrameTime {
    /// Whole frames at `rate`.
    pub frame_number: i32,
    /// Fraction of a frame, normally in `0..1` (kept as sent, whatever it is).
    pub subframe: f32,
    /// The rate the frame number counts at.
    pub rate: FrameRate,
}

impl FrameTime {
    /// Seconds since the rate's zero, or `None` for an invalid rate.
    pub fn seconds(&self) -> Option<f64> {
        let frames = f64::from(self.frame_number) + f64::from(self.subframe);
        Some(frames * f64::from(self.rate.denominator) / f64::from(self.rate.numerator))
            .filter(|_| self.rate.is_valid())
    }

    /// The frame's place in its day of labels: the frame number modulo a day
    /// of labels at its rate (a count that runs past a day, or below zero,
    /// wraps), or `None` for an invalid rate.
    pub fn frame_of_day(&self) -> Option<u32> {
        let day = i64::from(self.rate.frames_per_day()?);
        u32::try_from(i64::from(self.frame_number).rem_euclid(day)).ok()
    }

    /// The subframe as a fraction in `0..=1` (anything else reads as 0 or 1).
    fn fraction(&self) -> f64 {
        if self.subframe.is_finite() {
            f64::from(self.subframe.clamp(0.0, 1.0))
        } else {
            0.0
        }
    }

    /// µs since the label midnight: [`Self::frame_of_day`] at the rate, plus
    /// the subframe's part of a frame; `None` for an invalid rate.
    pub fn micros_of_day(&self) -> Option<u64> {
        let frame = i64::from(self.frame_of_day()?);
        let whole = self.rate.micros_between(0, frame)?;
        let period = self.rate.micros_between(0, 1)? as f64;
        u64::try_from(whole + (self.fraction() * period) as i64).ok()
    }

    /// Frames from `earlier` to `self` at one rate, the short way round a day
    /// of labels (a take runs through at most one midnight): `None` when the
    /// rates differ or are invalid.
    pub fn frames_since(&self, earlier: &FrameTime) -> Option<i64> {
        if self.rate != earlier.rate {
            return None;
        }
        let day = i64::from(self.rate.frames_per_day()?);
        let ahead =
            (i64::from(self.frame_number) - i64::from(earlier.frame_number)).rem_euclid(day);
        Some(if ahead > day / 2 { ahead - day } else { ahead })
    }

    /// Seconds from `earlier` to `self`, the short way round a day (so
    /// 23:59:59:00 to 00:00:01:00 is 2 s): exact in whole frames when both
    /// share a rate, else from their times of day.
    pub fn seconds_since(&self, earlier: &FrameTime) -> Option<f64> {
        if let Some(frames) = self.frames_since(earlier) {
            let frames = frames as f64 + (f64::from(self.subframe) - f64::from(earlier.subframe));
            return Some(
                frames * f64::from(self.rate.denominator) / f64::from(self.rate.numerator),
            );
        }
        let day = self.rate.micros_per_day()?;
        let us = wrapped_diff(self.micros_of_day()?, earlier.micros_of_day()?, day);
        Some(us as f64 / 1e6)
    }
}
