//! Joining takes: the frames of each take after those of the one before.
//! By default the time continues: each take after the first moves by whole
//! frames so that its first frame follows the last frame of the take before
//! by that take's last interval (one frame of a 60 fps take, two timecode
//! frames of a 30 Hz phone take), subframes kept. Takes joined this way must
//! share a rate (retime first). With `keep_time`, frames keep their times.

use anyhow::{anyhow, bail, Result};
use llv_core::time::FrameTime;

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
            *shift =
                i64::from(last.frame_number) + self.interval - i64::from(frame.time.frame_number);
            self.parts[*index].2 = *shift;
        }
        if *shift != 0 {
            frame.time.frame_number = i32::try_from(i64::from(frame.time.frame_number) + *shift)
                .map_err(|_| anyhow!("{name}: frame numbers past what a packet holds"))?;
        }
        if let Some(last) = self.last.filter(|l| l.rate == frame.time.rate && count > 0) {
            let step = i64::from(frame.time.frame_number) - i64::from(last.frame_number);
            if step > 0 {
                self.interval = step;
            }
        }
        self.parts[*index].1 += 1;
        self.last = Some(frame.time);
        Ok(frame)
    }

    /// What it did.
    pub fn report(&self) -> String {
        let parts: Vec<String> = self
            .parts
            .iter()
            .map(|(name, frames, shift)| match shift {
                0 => format!("{name} ({frames} frames)"),
                s => format!("{name} ({frames} frames, moved {s:+} frames)"),
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
            "join (time continues): a (3 frames) + b (2 frames, moved -484 frames)"
        );
        join.start("c");
        let err = join
            .frame(frame(0, FrameRate::new(30, 1), |_| 0.0))
            .unwrap_err();
        assert!(err.to_string().starts_with("c: rate 30 differs"), "{err}");
    }
}
