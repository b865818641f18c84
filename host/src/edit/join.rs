//! Joining takes: the frames of each take after those of the one before.
//! By default the time continues: each take after the first moves by whole
//! frames so that its first frame follows the last frame of the take before
//! by that take's last interval (one frame of a 60 fps take, two timecode
//! frames of a 30 Hz phone take), subframes kept; frame numbers that count a
//! time of day wrap at midnight, so labels stay below 24 hours. Takes joined
//! this way must share a rate (retime first). With `keep_time`, frames keep
//! their times.

use anyhow::{anyhow, bail, Result};
use llv_core::time::{FrameRate, FrameTime};

use super::Frame;

/// Moves the frames of each take after the first so the time continues.
pub struct Join {
    keep_time: bool,
    /// The take being read: its index, name and shift in frames.
    part: Option<(usize, String, i64)>,
    last: Option<FrameTime>,
    interval: i64,
    /// Per take: its name, frames and shift in frames.
    parts: Vec<(String, u64, i64)>,
    /// The rate frames were shifted at (for the report).
    rate: Option<FrameRate>,
}

impl Join {
    /// A join; `keep_time` keeps every frame's time.
    pub fn new(keep_time: bool) -> Self {
        Join {
            keep_time,
            part: None,
            last: None,
            interval: 1,
            parts: Vec::new(),
            rate: None,
        }
    }

    /// Starts the next take, named `name` in messages.
    pub fn start(&mut self, name: &str) {
        let index = self.parts.len();
        self.part = Some((index, name.to_string(), 0));
        self.parts.push((name.to_string(), 0, 0));
    }

    /// Moves one frame of the current take.
    pub fn frame(&mut self, mut frame: Frame) -> Result<Frame> {
        let (index, name, shift) = self.part.as_mut().ok_or_else(|| anyhow!("join: no take"))?;
        let count = self.parts[*index].1;
        if count == 0 && *index > 0 && !self.keep_time {
            let last = self.last.expect("a take before");
            if frame.time.rate != last.rate {
                bail!(
                    "{name}: rate {} differs from the take before ({}): --retime to one rate, \
                     or --keep-time",
                    frame.time.rate,
                    last.rate
                );
            }
            let follow = FrameTime {
                frame_number: i32::try_from(i64::from(last.frame_number) + self.interval)
                    .unwrap_or(last.frame_number),
                ..last
            };
            // The short way round a day: a take that follows across midnight moves a little.
            *shift = follow.frames_since(&frame.time).unwrap_or(0);
            self.parts[*index].2 = *shift;
        }
        if *shift != 0 {
            let mut number = i64::from(frame.time.frame_number) + *shift;
            if let Some(day) = frame.time.rate.frames_per_day().map(i64::from) {
                if (0..day).contains(&i64::from(frame.time.frame_number)) {
                    number = number.rem_euclid(day);
                }
            }
            frame.time.frame_number = i32::try_from(number)
                .map_err(|_| anyhow!("{name}: frame numbers past what a packet holds"))?;
        }
        if let Some(last) = self.last.filter(|l| l.rate == frame.time.rate && count > 0) {
            if let Some(step) = frame.time.frames_since(&last).filter(|s| *s > 0) {
                self.interval = step;
            }
        }
        self.parts[*index].1 += 1;
        self.last = Some(frame.time);
        self.rate = Some(frame.time.rate);
        Ok(frame)
    }

    /// What it did.
    pub fn report(&self) -> String {
        let parts: Vec<String> = self
            .parts
            .iter()
            .map(|(name, frames, shift)| match (shift, self.rate) {
                (0, _) | (_, None) => format!("{name} ({frames} frames)"),
                (s, Some(rate)) => format!("{name} ({frames} frames, {})", moved(*s, rate)),
            })
            .collect();
        let how = if self.keep_time {
            "times kept"
        } else {
            "time continues"
        };
        format!("join ({how}): {}", parts.join(" + "))
    }
}

/// `shift` frames at `rate` in words: `moved 1:29:36.417 earlier`.
fn moved(shift: i64, rate: FrameRate) -> String {
    let seconds =
        shift.unsigned_abs() as f64 * f64::from(rate.denominator) / f64::from(rate.numerator);
    let whole = seconds as u64;
    let time = format!(
        "{}:{:02}:{:06.3}",
        whole / 3600,
        whole / 60 % 60,
        seconds - (whole - whole % 60) as f64
    );
    let way = if shift > 0 { "later" } else { "earlier" };
    format!("moved {time} {way}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::tests_support::frame;
    use llv_core::time::FrameRate;

    #[test]
    fn the_second_take_follows_at_the_first_takes_interval() {
        let rate = FrameRate::FPS_60;
        let mut join = Join::new(false);
        let mut numbers = Vec::new();
        join.start("a");
        for n in [10, 12, 14] {
            numbers.push(
                join.frame(frame(n, rate, |_| 0.0))
                    .unwrap()
                    .time
                    .frame_number,
            );
        }
        join.start("b");
        for n in [500, 502] {
            numbers.push(
                join.frame(frame(n, rate, |_| 0.0))
                    .unwrap()
                    .time
                    .frame_number,
            );
        }
        assert_eq!(numbers, [10, 12, 14, 16, 18]);
        assert_eq!(
            join.report(),
            "join (time continues): a (3 frames) + b (2 frames, moved 0:00:08.067 earlier)"
        );
        join.start("c");
        let err = join
            .frame(frame(0, FrameRate::new(30, 1), |_| 0.0))
            .unwrap_err();
        assert!(err.to_string().starts_with("c: rate 30 differs"), "{err}");
    }

    #[test]
    fn a_take_that_follows_across_midnight_wraps_its_numbers() {
        // a ends at 23:59:59:58; b, from 10:00:00:00, follows from 00:00:00:00.
        let rate = FrameRate::FPS_60;
        let day = 24 * 3600 * 60;
        let mut join = Join::new(false);
        join.start("a");
        for n in [day - 4, day - 2] {
            join.frame(frame(n, rate, |_| 0.0)).unwrap();
        }
        join.start("b");
        let numbers: Vec<i32> = [36_000 * 60, 36_000 * 60 + 2]
            .iter()
            .map(|&n| {
                join.frame(frame(n, rate, |_| 0.0))
                    .unwrap()
                    .time
                    .frame_number
            })
            .collect();
        assert_eq!(numbers, [0, 2]);
        // The short way round the day: 10 hours back.
        assert!(
            join.report().ends_with("moved 10:00:00.000 earlier)"),
            "{}",
            join.report()
        );
    }
}
