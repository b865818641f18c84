//! Frame times and rates as the packet carries them, and `HH:MM:SS:FF.fff`
//! timecodes (frame plus fraction of a frame at the timecode rate).

use core::fmt;

/// A frame rate as a fraction, e.g. 60/1 or 60000/1001.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FrameRate {
    /// Frames per `denominator` seconds.
    pub numerator: i32,
    /// Seconds the numerator counts over.
    pub denominator: i32,
}

impl FrameRate {
    /// 60 frames per second, the phone's timecode rate.
    pub const FPS_60: FrameRate = FrameRate::new(60, 1);

    /// A rate of `numerator / denominator` frames per second.
    pub const fn new(numerator: i32, denominator: i32) -> Self {
        FrameRate {
            numerator,
            denominator,
        }
    }

    /// True when both parts are positive (a rate time can be computed with).
    pub fn is_valid(self) -> bool {
        self.numerator > 0 && self.denominator > 0
    }

    /// Frames per second as `f64`, or `None` for an invalid rate.
    pub fn fps(self) -> Option<f64> {
        self.is_valid()
            .then(|| f64::from(self.numerator) / f64::from(self.denominator))
    }

    /// The whole frames per timecode second: 60 for both 60/1 and 60000/1001.
    pub fn timecode_base(self) -> Option<u32> {
        if !self.is_valid() {
            return None;
        }
        let (n, d) = (self.numerator as u32, self.denominator as u32);
        Some((n + d / 2) / d).filter(|b| *b > 0)
    }

    /// Parses `60`, `59.94`, `29.97` (as 60000/1001, 30000/1001) or `N/D`.
    pub fn parse(text: &str) -> Option<FrameRate> {
        let text = text.trim();
        if let Some((n, d)) = text.split_once('/') {
            let rate = FrameRate::new(n.trim().parse().ok()?, d.trim().parse().ok()?);
            return rate.is_valid().then_some(rate);
        }
        if let Ok(n) = text.parse::<i32>() {
            return (n > 0).then_some(FrameRate::new(n, 1));
        }
        let fps: f64 = text.parse().ok()?;
        if !(fps > 0.0 && fps < 1.0e6) {
            return None;
        }
        // NTSC style rates: N*1000/1001 for a whole N.
        let ntsc = fps * 1001.0 / 1000.0;
        let whole = round(ntsc);
        if (ntsc - whole).abs() < 0.005 {
            return Some(FrameRate::new(whole as i32 * 1000, 1001));
        }
        let per_thousand = round(fps * 1000.0);
        if (fps * 1000.0 - per_thousand).abs() < 1.0e-6 {
            return Some(FrameRate::new(per_thousand as i32, 1000));
        }
        None
    }
}

impl fmt::Display for FrameRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.denominator == 1 {
            write!(f, "{}", self.numerator)
        } else {
            write!(f, "{}/{}", self.numerator, self.denominator)
        }
    }
}

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

    /// Microseconds since midnight (the time modulo a day; the subframe from
    /// 0 to 1), or `None` for an invalid rate or a negative frame number.
    pub fn micros_of_day(&self) -> Option<u64> {
        const DAY_US: u64 = 86_400_000_000;
        let frames = u64::try_from(self.frame_number).ok()?;
        let (num, den) = (
            u64::try_from(self.rate.numerator).ok()?,
            u64::try_from(self.rate.denominator).ok()?,
        );
        if num == 0 || den == 0 {
            return None;
        }
        // Below 2^31 frames of at most 2^31 / 1 s: fits u128.
        let whole = u128::from(frames) * u128::from(den) * 1_000_000 / u128::from(num);
        let frame_us = den as f32 * 1.0e6 / num as f32;
        let sub = (self.subframe.clamp(0.0, 1.0) * frame_us) as u128;
        u64::try_from((whole + sub) % u128::from(DAY_US)).ok()
    }

    /// Seconds from `earlier` to `self`, exact in whole frames when both share a rate.
    pub fn seconds_since(&self, earlier: &FrameTime) -> Option<f64> {
        if self.rate == earlier.rate && self.rate.is_valid() {
            let frames = (i64::from(self.frame_number) - i64::from(earlier.frame_number)) as f64
                + (f64::from(self.subframe) - f64::from(earlier.subframe));
            return Some(
                frames * f64::from(self.rate.denominator) / f64::from(self.rate.numerator),
            );
        }
        Some(self.seconds()? - earlier.seconds()?)
    }

    /// This time as a timecode at its own rate (non-drop-frame).
    pub fn timecode(&self) -> Option<Timecode> {
        let base = self.rate.timecode_base()?;
        let frame = u32::try_from(self.frame_number).ok()?;
        let total_seconds = frame / base;
        Some(Timecode {
            hours: total_seconds / 3600,
            minutes: ((total_seconds / 60) % 60) as u8,
            seconds: (total_seconds % 60) as u8,
            frames: frame % base,
            subframe: self.subframe,
        })
    }
}

/// A timecode `HH:MM:SS:FF.fff`: frame `FF` plus a fraction `.fff` of a frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timecode {
    /// Hours (may pass 23 for long counts).
    pub hours: u32,
    /// Minutes, 0..60.
    pub minutes: u8,
    /// Seconds, 0..60.
    pub seconds: u8,
    /// Frame within the second, below the rate's timecode base.
    pub frames: u32,
    /// Fraction of a frame.
    pub subframe: f32,
}

/// Why a timecode did not parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TimecodeError {
    /// Not `HH:MM:SS:FF` with an optional `.fff`.
    Syntax,
    /// Minutes or seconds of 60 or more, or a frame at or past the rate's base.
    OutOfRange,
    /// The rate has a non-positive part.
    BadRate,
}

impl fmt::Display for TimecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TimecodeError::Syntax => "timecode is not HH:MM:SS:FF[.fff]",
            TimecodeError::OutOfRange => "timecode field out of range",
            TimecodeError::BadRate => "frame rate must be positive",
        })
    }
}

impl Timecode {
    /// Parses `HH:MM:SS:FF` or `HH:MM:SS:FF.fff` (`;` is accepted before `FF`).
    pub fn parse(text: &str) -> Result<Timecode, TimecodeError> {
        let mut parts = text.trim().splitn(4, [':', ';']);
        let mut next = || parts.next().ok_or(TimecodeError::Syntax);
        let (h, m, s, f) = (next()?, next()?, next()?, next()?);
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
        })
    }

    /// The frame time of this timecode at `rate` (non-drop-frame counting).
    pub fn to_frame_time(&self, rate: FrameRate) -> Result<FrameTime, TimecodeError> {
        let base = rate.timecode_base().ok_or(TimecodeError::BadRate)?;
        if self.frames >= base {
            return Err(TimecodeError::OutOfRange);
        }
        let secs =
            u64::from(self.hours) * 3600 + u64::from(self.minutes) * 60 + u64::from(self.seconds);
        let frame = secs * u64::from(base) + u64::from(self.frames);
        Ok(FrameTime {
            frame_number: i32::try_from(frame).map_err(|_| TimecodeError::OutOfRange)?,
            subframe: self.subframe,
            rate,
        })
    }
}

impl fmt::Display for Timecode {
    /// `HH:MM:SS:FF.fff`, the Live Link Face CSV form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Three decimals, truncated like the app, so `.999` never rounds into the next frame.
        // The subframe is an f32: `.650` is stored as 0.64999998, up to 3e-5 thousandths
        // below; the 1e-4 nudge restores the written digits.
        let millis = (f64::from(self.subframe) * 1000.0 + 1.0e-4).clamp(0.0, 999.0) as u32;
        write!(
            f,
            "{:02}:{:02}:{:02}:{:02}.{:03}",
            self.hours, self.minutes, self.seconds, self.frames, millis
        )
    }
}

fn round(x: f64) -> f64 {
    // `f64::round` needs std; this is enough for the rates seen here.
    if x >= 0.0 {
        (x + 0.5) as i64 as f64
    } else {
        -((-x + 0.5) as i64 as f64)
    }
}
