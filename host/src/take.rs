//! A take in memory: validated face packets back to back, plus the edits
//! every command shares (rename the subject, anonymise the device id).

use anyhow::{anyhow, Result};
use llv_core::packet::{check_face, DecodeError, FaceFrame, Packet, MAX_LEN};
use llv_core::time::{FrameTime, Timecode};

/// The device id LLV writes when it anonymises a take.
pub const ANONYMOUS_DEVICE_ID: &str = "DEADC0DE-1337-1337-1337-CAFEBABE";

/// The namespace of [`derived_device_id`] (a UUID v5 of `llv take` in the URL namespace).
fn take_namespace() -> uuid::Uuid {
    uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, b"llv take")
}

/// A stable 36-character device id for a take made without a phone (a CSV
/// take, an imported animation): the UUID v5 of the take's name, upper case
/// like the phone's (`0E6C8A4F-6B1D-5B2A-...`). The same name always gives
/// the same id, so a take keeps its Live Link source across re-imports, and
/// decoders that read only the phone's 36-character form (PyLiveLinkFace)
/// read it.
pub fn derived_device_id(take_name: &str) -> String {
    uuid::Uuid::new_v5(&take_namespace(), take_name.as_bytes())
        .hyphenated()
        .encode_upper(&mut uuid::Uuid::encode_buffer())
        .to_string()
}

/// Face packets in order, stored in one buffer; every packet is a valid face frame.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Take {
    data: Vec<u8>,
    ends: Vec<usize>,
}

impl Take {
    /// An empty take with room for `frames` packets of about 320 bytes.
    pub fn with_capacity(frames: usize) -> Self {
        Take {
            data: Vec::with_capacity(frames * 320),
            ends: Vec::with_capacity(frames),
        }
    }

    /// Appends `packet` if it is a valid face frame; otherwise says which field is wrong.
    pub fn push(&mut self, packet: &[u8]) -> Result<(), DecodeError> {
        check_face(packet)?;
        self.data.extend_from_slice(packet);
        self.ends.push(self.data.len());
        Ok(())
    }

    /// Moves the frames of `other` to the end of this take.
    pub fn append(&mut self, other: Take) {
        let base = self.data.len();
        self.data.extend_from_slice(&other.data);
        self.ends.extend(other.ends.iter().map(|end| end + base));
    }

    /// Number of frames.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when the take holds no frame.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The raw packets in order.
    pub fn packets(&self) -> impl ExactSizeIterator<Item = &[u8]> + Clone + '_ {
        self.ends.iter().enumerate().map(move |(i, &end)| {
            let start = if i == 0 { 0 } else { self.ends[i - 1] };
            &self.data[start..end]
        })
    }

    /// The packets as checked views (every stored packet is valid, so none is skipped).
    pub fn frames(&self) -> impl Iterator<Item = Packet<'_>> + '_ {
        self.packets().filter_map(|p| Packet::new_checked(p).ok())
    }

    /// A copy with the subject and/or device id replaced in every frame.
    pub fn edited(&self, edit: &Edit) -> Result<Take> {
        if edit.is_noop() {
            return Ok(self.clone());
        }
        let mut out = Take::with_capacity(self.len());
        let mut buf = [0u8; MAX_LEN];
        for (index, packet) in self.frames().enumerate() {
            let mut frame: FaceFrame<'_> = packet.frame();
            if let Some(subject) = &edit.subject {
                frame.subject = subject;
            }
            if edit.anonymize {
                frame.device_id = ANONYMOUS_DEVICE_ID;
            }
            let len = frame
                .encode(&mut buf)
                .map_err(|e| anyhow!("frame {index}: {e}"))?;
            out.push(&buf[..len])
                .map_err(|e| anyhow!("frame {index}: {e}"))?;
        }
        Ok(out)
    }
}

/// Changes applied to every frame on the way out.
#[derive(Clone, Debug, Default)]
pub struct Edit {
    /// New subject name.
    pub subject: Option<String>,
    /// Replace the device id with [`ANONYMOUS_DEVICE_ID`].
    pub anonymize: bool,
}

impl Edit {
    /// True when the edit changes nothing.
    pub fn is_noop(&self) -> bool {
        self.subject.is_none() && !self.anonymize
    }

    /// `packet` edited; `packet` itself when the edit changes nothing.
    pub fn apply<'b>(&self, packet: &'b [u8], buf: &'b mut [u8; MAX_LEN]) -> Result<&'b [u8]> {
        if self.is_noop() {
            return Ok(packet);
        }
        let mut frame = FaceFrame::decode(packet).map_err(|e| anyhow!("{e}"))?;
        if let Some(subject) = &self.subject {
            frame.subject = subject;
        }
        if self.anonymize {
            frame.device_id = ANONYMOUS_DEVICE_ID;
        }
        let len = frame.encode(buf).map_err(|e| anyhow!("{e}"))?;
        Ok(&buf[..len])
    }
}

/// Frame-number gaps: forward jumps of more than one frame at the same rate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Gaps {
    /// How many jumps.
    pub gaps: u64,
    /// Frame numbers missing in them.
    pub missing: u64,
}

impl Gaps {
    /// Counts the step from the frame at `prev` to the frame at `time`.
    pub fn note(&mut self, prev: &FrameTime, time: &FrameTime) {
        // The step the short way round a day: midnight is no gap.
        if let Some(step) = time.frames_since(prev) {
            if step > 1 {
                self.gaps += 1;
                self.missing += (step - 1) as u64;
            }
        }
    }
}

/// The timecode of frame `index` (0-based), or an error naming the frame (1-based).
pub fn timecode(index: usize, time: &FrameTime) -> Result<Timecode> {
    time.timecode().ok_or_else(|| {
        anyhow!(
            "frame {}: frame {} at rate {} has no timecode",
            index + 1,
            time.frame_number,
            time.rate
        )
    })
}

/// Takes for unit tests.
#[cfg(test)]
pub mod tests_support {
    use super::*;
    use llv_core::blendshape::COUNT;
    use llv_core::time::{FrameRate, FrameTime};

    /// `frames` frames at 60 fps with varied values (tiny, negative, exact zero).
    pub fn sample_take(frames: usize) -> Take {
        let mut take = Take::with_capacity(frames);
        let mut buf = [0u8; MAX_LEN];
        for i in 0..frames {
            let mut blendshapes = [0.0f32; COUNT];
            for (j, v) in blendshapes.iter_mut().enumerate() {
                *v = match j % 4 {
                    0 => 0.0,
                    1 => (i * COUNT + j) as f32 * 1.0e-7,
                    2 => -((j as f32) / 61.0),
                    _ => (i as f32 * 0.37 + j as f32 * 0.013).fract(),
                };
            }
            let frame = FaceFrame {
                version: 6,
                device_id: "0E6C8A4F-6B1D-4B2A-9C5E-3F2A1B0C9D8E",
                subject: "Test",
                time: FrameTime {
                    frame_number: 1000 + i as i32,
                    subframe: i as f32 * 0.01,
                    rate: FrameRate::FPS_60,
                },
                blendshapes,
            };
            let len = frame.encode(&mut buf).unwrap();
            take.push(&buf[..len]).unwrap();
        }
        take
    }
}
