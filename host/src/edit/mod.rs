//! Editing takes as streams: each operation is a [`Stage`] that takes frames
//! one at a time and hands on what it makes of them, so a take of any length
//! is edited in flat memory. A frame an operation does not change is handed
//! on as it came, and re-encoding an unchanged frame gives its packet back bit
//! for bit (the codec keeps every float's bits, NaN payloads and -0 included).
//!
//! The operations run in one fixed order, whatever the order of the flags:
//! join, trim, retime, mirror, smooth, modifiers, gain, offset, zero, clamp,
//! then the subject and device id edits.
//!
//! - [`join`]: several takes one after the other, the time continuing.
//! - [`trim`]: a span by timecode, seconds or frame index.
//! - [`retime`]: resampling to a new rate, values interpolated.
//! - [`values`]: per-shape gain, offset, zero, clamp, LLV's modifiers, mirror.
//! - [`smooth`]: the one-euro filter.

pub mod join;
pub mod retime;
pub mod smooth;
pub mod trim;
pub mod values;

use anyhow::{anyhow, Result};
use llv_core::blendshape::COUNT;
use llv_core::packet::{FaceFrame, MAX_LEN, VERSION};
use llv_core::time::FrameTime;

/// One frame, decoded and owned, as the stages pass it on.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// The device id.
    pub device_id: String,
    /// The subject name.
    pub subject: String,
    /// When it was captured.
    pub time: FrameTime,
    /// The 61 values in packet order.
    pub values: [f32; COUNT],
}

impl Frame {
    /// Decodes a packet; the error names the field.
    pub fn decode(packet: &[u8]) -> Result<Frame> {
        let frame = FaceFrame::decode(packet).map_err(|e| anyhow!("{e}"))?;
        Ok(Frame {
            device_id: frame.device_id.to_string(),
            subject: frame.subject.to_string(),
            time: frame.time,
            values: frame.blendshapes,
        })
    }

    /// Encodes the frame as a v6 packet into `buf`.
    pub fn encode<'b>(&self, buf: &'b mut [u8; MAX_LEN]) -> Result<&'b [u8]> {
        let frame = FaceFrame {
            version: VERSION,
            device_id: &self.device_id,
            subject: &self.subject,
            time: self.time,
            blendshapes: self.values,
        };
        let len = frame.encode(buf).map_err(|e| anyhow!("{e}"))?;
        Ok(&buf[..len])
    }
}

/// Where a stage hands its frames.
pub type Out<'a> = &'a mut dyn FnMut(Frame) -> Result<()>;

/// One operation on a stream of frames.
pub trait Stage {
    /// Takes the next frame; hands on any frames it makes.
    fn push(&mut self, frame: Frame, out: Out<'_>) -> Result<()>;
    /// After the last frame: hands on what it still holds.
    fn finish(&mut self, _out: Out<'_>) -> Result<()> {
        Ok(())
    }
    /// What it did, one line for the summary.
    fn report(&self) -> String;
}

/// Stages run one after the other.
#[derive(Default)]
pub struct Pipeline {
    stages: Vec<Box<dyn Stage>>,
}

impl Pipeline {
    /// Adds a stage at the end.
    pub fn then(&mut self, stage: impl Stage + 'static) {
        self.stages.push(Box::new(stage));
    }

    /// True when no stage is set.
    pub fn is_empty(&self) -> bool {
        self.stages.is_empty()
    }

    /// Feeds one frame through every stage into `out`.
    pub fn push(&mut self, frame: Frame, out: Out<'_>) -> Result<()> {
        feed(&mut self.stages, frame, out)
    }

    /// Flushes every stage, first to last, into `out`.
    pub fn finish(&mut self, out: Out<'_>) -> Result<()> {
        for at in 0..self.stages.len() {
            let (done, rest) = self.stages.split_at_mut(at + 1);
            done[at].finish(&mut |frame| feed(rest, frame, out))?;
        }
        Ok(())
    }

    /// One line per stage: what it did.
    pub fn report(&self) -> Vec<String> {
        self.stages.iter().map(|s| s.report()).collect()
    }
}

fn feed(stages: &mut [Box<dyn Stage>], frame: Frame, out: Out<'_>) -> Result<()> {
    match stages.split_first_mut() {
        None => out(frame),
        Some((first, rest)) => first.push(frame, &mut |f| feed(rest, f, out)),
    }
}

/// Seconds from `earlier` to `later` (exact in whole frames at one rate).
pub fn seconds_between(earlier: &FrameTime, later: &FrameTime) -> Option<f64> {
    later.seconds_since(earlier)
}

/// Frames for unit tests.
#[cfg(test)]
pub mod tests_support {
    use super::*;
    use llv_core::time::FrameRate;

    /// A frame at `frame_number` (rate `rate`) whose values are `value(shape)`.
    pub fn frame(frame_number: i32, rate: FrameRate, value: impl Fn(usize) -> f32) -> Frame {
        Frame {
            device_id: "0E6C8A4F-6B1D-4B2A-9C5E-3F2A1B0C9D8E".into(),
            subject: "Test".into(),
            time: FrameTime {
                frame_number,
                subframe: 0.0,
                rate,
            },
            values: std::array::from_fn(value),
        }
    }

    /// Runs `stage` over `frames`; returns what it handed on.
    pub fn run(stage: &mut dyn Stage, frames: Vec<Frame>) -> Vec<Frame> {
        let mut out = Vec::new();
        let mut keep = |f: Frame| -> Result<()> {
            out.push(f);
            Ok(())
        };
        for f in frames {
            stage.push(f, &mut keep).unwrap();
        }
        stage.finish(&mut keep).unwrap();
        out
    }
}
