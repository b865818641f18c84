//! Resampling a take to a new frame rate. Output frame `k` falls at the first
//! frame's time plus `k / rate` (take time: on through midnight); it carries
//! frame number `F0 + k` at the new rate, with the first frame's subframe (the
//! first frame keeps its time), wrapped at midnight when the take's own
//! numbers count a time of day.
//! Its values are interpolated linearly between the input frames around it,
//! head and eye angles included; a frame that falls exactly on an input frame
//! takes that frame's values bit for bit. Output frames run on until the end
//! of the last input frame, whose length is the interval before it (a steady
//! 30 Hz take retimed to 60 fps keeps its duration: twice the frames), the
//! last values held. Subject and device id come from the input frame before.
//! An input frame whose time does not move forward is dropped and counted.

use anyhow::{anyhow, bail, Result};
use llv_core::blendshape::COUNT;
use llv_core::time::{FrameRate, FrameTime, TakeTime};

use super::{Frame, Out, Stage};

/// Times closer than this (seconds) are one time: f64 sums of frame periods
/// differ in their last bits, and no frame rate comes near it.
const SAME_TIME: f64 = 1e-7;

/// The retime stage.
pub struct Retime {
    rate: FrameRate,
    /// The first input frame's time at the new rate (frame, subframe), and
    /// whether its number counts a time of day (below a day of labels).
    start: Option<(i64, f32, bool)>,
    /// Gives each input frame its take time.
    take: TakeTime,
    /// The input frame before the next one, and its offset in seconds.
    prev: Option<(Frame, f64)>,
    /// The interval before `prev`, in seconds.
    last_interval: Option<f64>,
    /// The next output frame.
    next: u64,
    frames_in: u64,
    dropped: u64,
    rates_in: Vec<FrameRate>,
}

impl Retime {
    /// Resamples to `rate`.
    pub fn new(rate: FrameRate) -> Result<Self> {
        if !rate.is_valid() {
            bail!("retime: {rate} is not a frame rate");
        }
        Ok(Retime {
            rate,
            start: None,
            take: TakeTime::new(),
            prev: None,
            last_interval: None,
            next: 0,
            frames_in: 0,
            dropped: 0,
            rates_in: Vec::new(),
        })
    }

    /// Seconds from the first frame to output frame `k`.
    fn offset(&self, k: u64) -> f64 {
        k as f64 * f64::from(self.rate.denominator) / f64::from(self.rate.numerator)
    }

    /// The output frame `k` with `values`, the identity of `like`.
    fn output(&self, k: u64, like: &Frame, values: [f32; COUNT]) -> Result<Frame> {
        let (first_number, subframe, of_day) = self.start.expect("started");
        let mut number = first_number + k as i64;
        if let (true, Some(day)) = (of_day, self.rate.frames_per_day()) {
            number = number.rem_euclid(i64::from(day));
        }
        let frame_number = i32::try_from(number)
            .map_err(|_| anyhow!("retime: frame {k} is past the frame numbers of a packet"))?;
        Ok(Frame {
            device_id: like.device_id.clone(),
            subject: like.subject.clone(),
            time: FrameTime {
                frame_number,
                subframe,
                rate: self.rate,
            },
            values,
        })
    }
}

/// `time` counted in frames of `rate`: whole frames and the fraction.
fn at_rate(time: &FrameTime, rate: FrameRate) -> Result<(i64, f32)> {
    if time.rate == rate {
        return Ok((i64::from(time.frame_number), time.subframe));
    }
    let from = time.rate;
    if !from.is_valid() {
        bail!("retime: a frame at rate {from} has no time");
    }
    let frames = (f64::from(time.frame_number) + f64::from(time.subframe))
        * (f64::from(from.denominator) * f64::from(rate.numerator))
        / (f64::from(from.numerator) * f64::from(rate.denominator));
    let whole = frames.floor();
    Ok((whole as i64, (frames - whole) as f32))
}

/// `a + (b - a) * alpha`, in f64; a value that is not finite at either end keeps `a`.
fn lerp(a: f32, b: f32, alpha: f64) -> f32 {
    if alpha == 0.0 || !a.is_finite() || !b.is_finite() {
        return a;
    }
    (f64::from(a) + (f64::from(b) - f64::from(a)) * alpha) as f32
}

impl Stage for Retime {
    fn push(&mut self, frame: Frame, out: Out<'_>) -> Result<()> {
        self.frames_in += 1;
        if !self.rates_in.contains(&frame.time.rate) {
            self.rates_in.push(frame.time.rate);
        }
        let t = self
            .take
            .next_seconds(&frame.time)
            .ok_or_else(|| anyhow!("retime: frame at rate {} has no time", frame.time.rate))?;
        if self.start.is_none() {
            let (number, subframe) = at_rate(&frame.time, self.rate)?;
            let of_day = frame.time.rate.frames_per_day().is_some_and(|day| {
                (0..i64::from(day)).contains(&i64::from(frame.time.frame_number))
            });
            self.start = Some((number, subframe, of_day));
            self.prev = Some((frame, 0.0));
            return Ok(());
        }
        let (prev, t_prev) = self.prev.take().expect("started");
        if t <= t_prev {
            self.dropped += 1;
            self.prev = Some((prev, t_prev));
            return Ok(());
        }
        loop {
            let tk = self.offset(self.next);
            if tk >= t - SAME_TIME {
                break;
            }
            let alpha = if tk - t_prev <= SAME_TIME {
                0.0
            } else {
                (tk - t_prev) / (t - t_prev)
            };
            let values = std::array::from_fn(|i| lerp(prev.values[i], frame.values[i], alpha));
            out(self.output(self.next, &prev, values)?)?;
            self.next += 1;
        }
        self.last_interval = Some(t - t_prev);
        self.prev = Some((frame, t));
        Ok(())
    }

    fn finish(&mut self, out: Out<'_>) -> Result<()> {
        let Some((last, t_last)) = self.prev.take() else {
            return Ok(());
        };
        let length = self.last_interval.unwrap_or(self.offset(1));
        while self.offset(self.next) < t_last + length - SAME_TIME {
            out(self.output(self.next, &last, last.values)?)?;
            self.next += 1;
        }
        Ok(())
    }

    fn report(&self) -> String {
        let rates: Vec<String> = self.rates_in.iter().map(|r| r.to_string()).collect();
        let dropped = if self.dropped > 0 {
            format!(
                " ({} frames whose time did not move forward dropped)",
                self.dropped
            )
        } else {
            String::new()
        };
        format!(
            "retime: {} frames (timecode {} fps) -> {} frames, one every timecode frame at {} fps{dropped}",
            self.frames_in,
            rates.join(", "),
            self.next,
            self.rate
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::tests_support::{frame, run};

    fn values(frames: &[Frame], shape: usize) -> Vec<f32> {
        frames.iter().map(|f| f.values[shape]).collect()
    }

    #[test]
    fn thirty_to_sixty_interpolates_and_keeps_the_duration() {
        let thirty = FrameRate::new(30, 1);
        let input: Vec<Frame> = (0..4)
            .map(|n| frame(100 + n, thirty, |s| n as f32 + s as f32))
            .collect();
        let out = run(&mut Retime::new(FrameRate::FPS_60).unwrap(), input.clone());
        assert_eq!(out.len(), 8);
        assert_eq!(values(&out, 0), [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.0]);
        assert_eq!(
            out.iter().map(|f| f.time.frame_number).collect::<Vec<_>>(),
            (200..208).collect::<Vec<_>>()
        );
        assert!(out.iter().all(|f| f.time.rate == FrameRate::FPS_60));
        let back = run(&mut Retime::new(thirty).unwrap(), out);
        assert_eq!(back, input);
    }

    #[test]
    fn same_rate_is_identity_and_backward_frames_are_dropped() {
        let rate = FrameRate::FPS_60;
        let input: Vec<Frame> = (0..5).map(|n| frame(n, rate, |s| s as f32 * 0.1)).collect();
        let mut stage = Retime::new(rate).unwrap();
        assert_eq!(run(&mut stage, input.clone()), input);
        let mut with_repeat = input.clone();
        with_repeat.insert(2, input[1].clone());
        let mut stage = Retime::new(rate).unwrap();
        assert_eq!(run(&mut stage, with_repeat), input);
        assert!(stage
            .report()
            .contains("1 frames whose time did not move forward dropped"));
    }

    #[test]
    fn ntsc_rates_count_frames_at_the_new_rate() {
        let input: Vec<Frame> = (0..60)
            .map(|n| frame(n, FrameRate::FPS_60, |_| 0.0))
            .collect();
        let ntsc = FrameRate::new(60000, 1001);
        let out = run(&mut Retime::new(ntsc).unwrap(), input);
        // One second at 59.94 fps: 59.94 frames, the last partial one included.
        assert_eq!(out.len(), 60);
        assert_eq!(out[59].time.frame_number, 59);
    }
}
