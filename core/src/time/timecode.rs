//! Timecodes as people and the phone's CSV write them: `HH:MM:SS:FF.fff`, a
//! label (`;` before the frames for drop-frame) plus a fraction of a frame;
//! and the way between a label and a frame time, both ways.

use core::fmt;

use super::frame_time::FrameTime;
use super::rate::FrameRate;

/// A timecode `HH:MM:SS:FF.fff`: frame `FF` plus a fraction `.fff` of a frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timecode {
    /// Hours, 0..24 in a label (a parsed one may say more, and is refused
    /// when read at a rate).
    pub hours: u32,
    /// Minutes, 0..60.
    pub minutes: u8,
    /// Seconds, 0..60.
    pub seconds: u8,
    /// Frame within the second, below the rate's timecode base.
    pub frames: u32,
    /// Fraction of a frame.
    pub subframe: f32,
    /// Written with `;` before the frames: a drop-frame label.
    pub drop_frame: bool,
}

/// Why a timecode did not parse, or does not exist at a rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TimecodeError {
    /// Not `HH:MM:SS:FF` with an optional `.fff`.
    Syntax,
    /// Hours of 24 or more, minutes or seconds of 60 or more, or a frame at
    /// or past the rate's base.
    OutOfRange,
    /// The rate has a non-positive part.
    BadRate,
    /// A drop-frame label that is left out (`;00` and `;01` at 29.97, `;00`
    /// to `;03` at 59.94, at the start of each minute but every tenth).
    Dropped,
    /// Written as drop-frame (`;`) at a rate that has none (only 29.97 and 59.94 do).
    NotDropFrame,
}

impl fmt::Display for TimecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TimecodeError::Syntax => "timecode is not HH:MM:SS:FF[.fff]",
            TimecodeError::OutOfRange => "timecode field out of range",
            TimecodeError::BadRate => "frame rate must be positive",
            TimecodeError::Dropped => "drop-frame timecode has no such label",
            TimecodeError::NotDropFrame => {
                "a drop-frame label (`;`) needs a drop-frame rate (29.97 or 59.94)"
            }
        })
    }
}

impl Timecode {
    /// Parses `HH:MM:SS:FF` or `HH:MM:SS:FF.fff`; `;` before `FF` marks drop-frame.
    pub fn parse(text: &str) -> Result<Timecode, TimecodeError> {
        let text = text.trim();
        let mut parts = text.splitn(4, [':', ';']);
        let mut next = || parts.next().ok_or(TimecodeError::Syntax);
        let (h, m, s, f) = (next()?, next()?, next()?, next()?);
        // `;` anywhere but before the frames is not a timecode.
        let frames_at = text.len() - f.len();
        let drop_frame = text.as_bytes().get(frames_at.wrapping_sub(1)) == Some(&b';');
        if text[..frames_at.saturating_sub(1)].contains(';') {
            return Err(TimecodeError::Syntax);
        }
        let (ff, frac) = match f.split_once('.') {
            Some((ff, frac)) => (ff, Some(frac)),
            None => (f, None),
        };
        let digits = |t: &str| -> Result<u32, TimecodeError> {
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(TimecodeError::Syntax);
            }
            t.parse().map_err(|_| TimecodeError::Syntax)
        };
        let subframe = match frac {
            Some(frac) => {
                digits(frac)?;
                let mut value = 0.0f64;
                let mut scale = 0.1f64;
                for b in frac.bytes() {
                    value += f64::from(b - b'0') * scale;
                    scale /= 10.0;
                }
                value as f32
            }
            None => 0.0,
        };
        let (minutes, seconds) = (digits(m)?, digits(s)?);
        if minutes >= 60 || seconds >= 60 {
            return Err(TimecodeError::OutOfRange);
        }
        Ok(Timecode {
            hours: digits(h)?,
            minutes: minutes as u8,
            seconds: seconds as u8,
            frames: digits(ff)?,
            subframe,
            drop_frame,
        })
    }

    /// The frame time of this label at `rate`: its frame count in the day of
    /// labels (drop-frame at 29.97 and 59.94, whatever the separator).
    pub fn to_frame_time(&self, rate: FrameRate) -> Result<FrameTime, TimecodeError> {
        let base = rate.timecode_base().ok_or(TimecodeError::BadRate)?;
        if self.drop_frame && !rate.is_drop_frame() {
            return Err(TimecodeError::NotDropFrame);
        }
        let hours = u8::try_from(self.hours).map_err(|_| TimecodeError::OutOfRange)?;
        if hours >= 24 || self.frames >= base {
            return Err(TimecodeError::OutOfRange);
        }
        let count = rate
            .count_of((hours, self.minutes, self.seconds, self.frames))
            .ok_or(TimecodeError::Dropped)?;
        Ok(FrameTime {
            frame_number: i32::try_from(count).map_err(|_| TimecodeError::OutOfRange)?,
            subframe: self.subframe,
            rate,
        })
    }
}

impl FrameTime {
    /// This time's label at its own rate (drop-frame at 29.97 and 59.94),
    /// wrapped at 24 hours, with its subframe.
    pub fn timecode(&self) -> Option<Timecode> {
        let (hours, minutes, seconds, frames) = self.rate.label_of(self.frame_of_day()?)?;
        Some(Timecode {
            hours: u32::from(hours),
            minutes,
            seconds,
            frames,
            subframe: self.subframe,
            drop_frame: self.rate.is_drop_frame(),
        })
    }
}

impl fmt::Display for Timecode {
    /// `HH:MM:SS:FF.fff`, the Live Link Face CSV form (`;` before the frames
    /// for drop-frame).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Three decimals, truncated like the app, so `.999` never rounds into the next frame.
        // The subframe is an f32: `.650` is stored as 0.64999998, up to 3e-5 thousandths
        // below; the 1e-4 nudge restores the written digits.
        let millis = (f64::from(self.subframe) * 1000.0 + 1.0e-4).clamp(0.0, 999.0) as u32;
        let sep = if self.drop_frame { ';' } else { ':' };
        write!(
            f,
            "{:02}:{:02}:{:02}{sep}{:02}.{:03}",
            self.hours, self.minutes, self.seconds, self.frames, millis
        )
    }
}
