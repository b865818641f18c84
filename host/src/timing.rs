//! A take's cadence: how often the phone really captured, told from the
//! intervals between frame times, and the gaps measured against it. A phone
//! take whose timecode counts 60 fps may hold a frame every second timecode
//! frame (a steady 30 Hz capture, as `alex_rom_3.csv`): counted in frame
//! numbers that is a gap between every two frames, counted against the
//! cadence it is none.
//!
//! The cadence is the median interval. A take is steady when at least 95 %
//! of its intervals lie within 25 % of it. A gap is an interval longer than
//! 1.5 cadence intervals; it misses `round(interval / cadence) - 1` frames.

/// Share of intervals near the median for a take to be called steady.
pub const STEADY_SHARE: f64 = 0.95;
/// How far (relative) from the median an interval may be and still count as steady.
pub const STEADY_TOLERANCE: f64 = 0.25;
/// An interval over this many cadence intervals is a gap.
pub const GAP_FACTOR: f64 = 1.5;

/// A gap: where it starts and ends (seconds from the first frame), what it misses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gap {
    /// Index of the frame before the gap.
    pub after_frame: usize,
    /// Time of the frame before the gap, seconds from the first frame.
    pub start: f64,
    /// Time of the frame after the gap.
    pub end: f64,
    /// Frames missing at the cadence.
    pub missing: u64,
}

/// The cadence of a take and its gaps.
#[derive(Clone, Debug, PartialEq)]
pub struct Cadence {
    /// The median interval, seconds.
    pub interval: f64,
    /// Share of intervals within [`STEADY_TOLERANCE`] of it.
    pub steady_share: f64,
    /// The gaps, in order.
    pub gaps: Vec<Gap>,
    /// Intervals that were zero or negative (time standing or going back).
    pub backwards: u64,
}

impl Cadence {
    /// The cadence of frames at `times` (seconds from the first frame, in
    /// file order); `None` with fewer than two frames moving forward.
    pub fn of(times: &[f64]) -> Option<Cadence> {
        let intervals: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).collect();
        let mut forward: Vec<f64> = intervals.iter().copied().filter(|i| *i > 0.0).collect();
        if forward.is_empty() {
            return None;
        }
        forward.sort_by(f64::total_cmp);
        let interval = forward[forward.len() / 2];
        let near = forward
            .iter()
            .filter(|i| ((*i - interval) / interval).abs() <= STEADY_TOLERANCE)
            .count();
        let gaps = intervals
            .iter()
            .enumerate()
            .filter(|(_, i)| **i > GAP_FACTOR * interval)
            .map(|(at, i)| Gap {
                after_frame: at,
                start: times[at],
                end: times[at + 1],
                missing: ((i / interval).round() as u64).saturating_sub(1),
            })
            .collect();
        Some(Cadence {
            interval,
            steady_share: near as f64 / forward.len() as f64,
            gaps,
            backwards: intervals.iter().filter(|i| **i <= 0.0).count() as u64,
        })
    }

    /// Frames per second at the cadence.
    pub fn hz(&self) -> f64 {
        1.0 / self.interval
    }

    /// True when the take keeps its cadence ([`STEADY_SHARE`] of its intervals).
    pub fn is_steady(&self) -> bool {
        self.steady_share >= STEADY_SHARE
    }

    /// Frames missing in all gaps.
    pub fn missing(&self) -> u64 {
        self.gaps.iter().map(|g| g.missing).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_steady_thirty_hertz_take_has_no_gaps_but_real_ones() {
        // Every second 60 fps frame, with subframe jitter, and one lost second.
        let mut times: Vec<f64> = (0..300)
            .map(|i| (2 * i) as f64 / 60.0 + if i % 3 == 0 { 0.0004 } else { 0.0 })
            .collect();
        for t in &mut times[200..] {
            *t += 1.0;
        }
        let c = Cadence::of(&times).unwrap();
        assert!((c.hz() - 30.0).abs() < 0.5, "{}", c.hz());
        assert!(c.is_steady());
        assert_eq!(c.gaps.len(), 1);
        assert_eq!(c.gaps[0].after_frame, 199);
        assert_eq!(c.missing(), 30);
        assert_eq!(Cadence::of(&[0.0]), None);
    }
}
