//! Frame rates, and the labels (`HH:MM:SS:FF`) a day of frames at a rate
//! carries, drop-frame included.

use core::fmt;

/// Seconds in a day of labels.
const DAY_SECONDS: u32 = 86_400;
/// Minutes in a day, and those of them that keep every drop-frame label (every tenth).
const DAY_MINUTES: u32 = 1_440;
const TENTH_MINUTES: u32 = 144;

/// A frame rate as a fraction, e.g. 60/1 or 60000/1001.
///
/// The NTSC rates 30000/1001 (29.97) and 60000/1001 (59.94) count in
/// drop-frame labels ([`FrameRate::is_drop_frame`]), as Unreal reads them by
/// default (`timecode.UseDropFormatTimecodeByDefaultWhenSupported`): a frame
/// time carries no drop-frame flag, so the rate decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FrameRate {
    /// Frames per `denominator` seconds.
    pub numerator: i32,
    /// Seconds the numerator counts over.
    pub denominator: i32,
}

/// A label's fields: hours (0..24), minutes, seconds, frames.
pub type LabelFields = (u8, u8, u8, u32);

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

    /// Whether labels at this rate drop frames: 29.97 and 59.94 (any
    /// fraction equal to 30000/1001 or 60000/1001) do, every other rate does not.
    pub fn is_drop_frame(self) -> bool {
        self.is_valid()
            && [30_000i64, 60_000]
                .iter()
                .any(|n| i64::from(self.numerator) * 1001 == n * i64::from(self.denominator))
    }

    /// Labels left out at the start of each minute but every tenth: 2 at
    /// 29.97, 4 at 59.94, none at other rates.
    fn dropped_per_minute(self) -> u32 {
        match (self.is_drop_frame(), self.timecode_base()) {
            (true, Some(base)) => base / 15,
            _ => 0,
        }
    }

    /// Frames in a day of labels (00:00:00:00 to 23:59:59:last): `None` for
    /// an invalid rate or one whose day does not fit a `u32`.
    pub fn frames_per_day(self) -> Option<u32> {
        let base = self.timecode_base()?;
        let labels = base.checked_mul(DAY_SECONDS)?;
        Some(labels - self.dropped_per_minute() * (DAY_MINUTES - TENTH_MINUTES))
    }

    /// µs from `from` frames to `to` frames (exact, floored; negative when
    /// `to` is earlier), or `None` for an invalid rate.
    pub fn micros_between(self, from: i64, to: i64) -> Option<i64> {
        if !self.is_valid() {
            return None;
        }
        let frames = i128::from(to) - i128::from(from);
        let us = (frames * i128::from(self.denominator) * 1_000_000)
            .div_euclid(i128::from(self.numerator));
        i64::try_from(us).ok()
    }

    /// µs a day of labels lasts at this rate (86,400 s but for 29.97 and
    /// 59.94, whose day of labels is 86,399.9136 s).
    pub fn micros_per_day(self) -> Option<u64> {
        let frames = self.frames_per_day()?;
        u64::try_from(self.micros_between(0, i64::from(frames))?).ok()
    }

    /// The label of frame `count` of a day (taken modulo a day of labels).
    pub fn label_of(self, count: u32) -> Option<LabelFields> {
        let base = self.timecode_base()?;
        let count = count % self.frames_per_day()?;
        let drop = self.dropped_per_minute();
        let labels = if drop == 0 {
            count
        } else {
            // Per ten minutes: the first keeps all its labels, nine drop `drop`.
            let per_minute = 60 * base - drop;
            let per_ten = 10 * 60 * base - 9 * drop;
            let (tens, rest) = (count / per_ten, count % per_ten);
            let extra = if rest < drop {
                0
            } else {
                (rest - drop) / per_minute
            };
            count + 9 * drop * tens + drop * extra
        };
        let seconds = labels / base;
        Some((
            (seconds / 3600) as u8,
            ((seconds / 60) % 60) as u8,
            (seconds % 60) as u8,
            labels % base,
        ))
    }

    /// The frame count of a day's label, or `None` when the rate has no
    /// such label: fields out of range (hours from 24 on), a frame at or past
    /// the base, or a drop-frame label that is left out.
    pub fn count_of(self, (hours, minutes, seconds, frames): LabelFields) -> Option<u32> {
        let base = self.timecode_base()?;
        if hours >= 24 || minutes >= 60 || seconds >= 60 || frames >= base {
            return None;
        }
        let drop = self.dropped_per_minute();
        if seconds == 0 && minutes % 10 != 0 && frames < drop {
            return None;
        }
        let minutes = u32::from(hours) * 60 + u32::from(minutes);
        let labels = (minutes * 60 + u32::from(seconds)) * base + frames;
        Some(labels - drop * (minutes - minutes / 10))
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

fn round(x: f64) -> f64 {
    // `f64::round` needs std; this is enough for the rates seen here.
    if x >= 0.0 {
        (x + 0.5) as i64 as f64
    } else {
        -((-x + 0.5) as i64 as f64)
    }
}
