//! The source's clock as the relay sees it: its average period from the
//! arrival instants (a line through a window of 256 to 512 frames, placed by
//! their frame numbers so lost frames and dropouts do not bend it; arrival
//! jitter averages out and a drifting phone is followed), the
//! jitter of its arrivals, the frames its frame numbers say were lost; and
//! the output tick's slew toward the arrivals.

use crate::time::FrameTime;

/// Arrivals after which the period's window moves on (it spans one to two of these).
const WINDOW: u32 = 256;
/// After a gap that starts a new line, the previous period holds until the
/// new line has this many intervals.
const SETTLE: u32 = 16;
/// Shortest period believed (250 Hz).
const MIN_PERIOD_US: u64 = 4_000;
/// Longest period believed (5 Hz).
const MAX_PERIOD_US: u64 = 200_000;
/// The output tick's error is smoothed over this many ticks,
const SMOOTHING: i64 = 16;
/// ...and the tick moves by this fraction of it,
const SLEW_DIVISOR: i64 = 16;
/// ...and by at most this fraction of a period,
const SLEW_LIMIT_DIVISOR: i64 = 100;
/// ...or this fraction while the output settles: its first ticks.
const SETTLING_LIMIT_DIVISOR: i64 = 10;
/// Ticks the output settles for.
const SETTLING_TICKS: u32 = 32;

/// The live source's timing, fed with each face frame's arrival.
#[derive(Clone, Debug)]
pub struct SourceClock {
    gap_us: u64,
    last_at: Option<u64>,
    last_time: Option<FrameTime>,
    step: Option<i64>,
    /// Where the period's line starts: an arrival and its index in the run.
    anchor: (u64, u32),
    next_anchor: (u64, u32),
    run: u32,
    /// The latest frame's place on the line, counting the frames lost.
    index: u32,
    /// Whether the period comes from the current line (else from before
    /// a gap the frame numbers could not span).
    own_line: bool,
    period_us: Option<u64>,
    jitter_us: u64,
}

impl SourceClock {
    /// A clock for which a silence longer than `gap_us` starts a new run.
    pub fn new(gap_us: u64) -> Self {
        SourceClock {
            gap_us,
            last_at: None,
            last_time: None,
            step: None,
            anchor: (0, 0),
            next_anchor: (0, 0),
            run: 0,
            index: 0,
            own_line: false,
            period_us: None,
            jitter_us: 0,
        }
    }

    /// Takes a face frame's arrival at `at_us` carrying `time`; returns how
    /// many frames its frame number says went missing since the previous.
    pub fn arrive(&mut self, at_us: u64, time: FrameTime) -> u64 {
        let lost = self.lost_before(&time);
        let frames = u32::try_from(lost).unwrap_or(u32::MAX).saturating_add(1);
        let gap = self.last_at.map(|last| at_us.saturating_sub(last));
        let index = self.index.saturating_add(frames);
        match (gap, self.period_us) {
            (Some(gap), Some(p)) if gap <= self.gap_us => {
                let off = gap.abs_diff(p);
                self.jitter_us = self.jitter_us - self.jitter_us / 16 + off / 16;
            }
            (Some(gap), Some(p)) if fits(gap, u64::from(frames) * p, p) => {
                // The source's frame numbers span the silence: the line
                // through its arrivals goes on.
                self.run = 0;
            }
            (Some(gap), None) if gap <= self.gap_us => {}
            _ => {
                self.run = 0;
                self.own_line = false;
                self.anchor = (at_us, index);
                self.next_anchor = (at_us, index);
            }
        }
        self.run = self.run.saturating_add(1);
        self.last_at = Some(at_us);
        self.last_time = Some(time);
        self.index = index;
        let intervals = index - self.anchor.1;
        if intervals > 0 && (self.own_line || intervals >= SETTLE || self.period_us.is_none()) {
            let span = at_us.saturating_sub(self.anchor.0);
            let fitted = span / u64::from(intervals);
            self.period_us = Some(fitted.clamp(MIN_PERIOD_US, MAX_PERIOD_US));
            self.own_line = true;
        }
        if index >= self.next_anchor.1.saturating_add(WINDOW) {
            self.anchor = self.next_anchor;
            self.next_anchor = (at_us, index);
        }
        lost
    }

    /// Frames missing between the previous frame and `time`, by frame
    /// numbers in steps of the smallest step seen.
    fn lost_before(&mut self, time: &FrameTime) -> u64 {
        let Some(ahead) = self.last_time.and_then(|last| time.frames_since(&last)) else {
            return 0;
        };
        if ahead <= 0 {
            return 0;
        }
        let step = self.step.map_or(ahead, |s| s.min(ahead));
        self.step = Some(step);
        u64::try_from(ahead / step - 1).unwrap_or(0)
    }

    /// The source's average period (µs), once two frames of a run have come.
    pub fn period_us(&self) -> Option<u64> {
        self.period_us
    }

    /// The source's average rate in frames per second (0 before it is known).
    pub fn rate_hz(&self) -> f32 {
        self.period_us.map_or(0.0, |p| (1e6 / p as f64) as f32)
    }

    /// Mean deviation of the arrival intervals from the period (µs, smoothed).
    pub fn jitter_us(&self) -> u64 {
        self.jitter_us
    }

    /// Consecutive frames of the current run (none further apart than the gap).
    pub fn run(&self) -> u32 {
        self.run
    }

    /// The latest arrival.
    pub fn last_at(&self) -> Option<u64> {
        self.last_at
    }
}

/// The output tick's slew: each tick's error against where it should have
/// been (its frame's arrival plus the buffer), smoothed over sixteen ticks,
/// moves the next tick by a sixteenth of it and at most a hundredth of a
/// period (a tenth while the output settles): steady output that follows
/// the arrivals.
#[derive(Clone, Debug, Default)]
pub struct Slew {
    error_us: i64,
    ticks: u32,
}

impl Slew {
    /// Starts again (a new output run).
    pub fn restart(&mut self) {
        *self = Slew::default();
    }

    /// The tick after `tick` on a period of `period_us`, when this tick
    /// should have been at `target_us`.
    pub fn next_tick(&mut self, tick: u64, period_us: u64, target_us: u64) -> u64 {
        let error =
            i64::try_from(target_us).unwrap_or(i64::MAX) - i64::try_from(tick).unwrap_or(i64::MAX);
        let settling = self.ticks < SETTLING_TICKS;
        self.ticks = self.ticks.saturating_add(1);
        let smoothing = if settling { 2 } else { SMOOTHING };
        self.error_us += (error - self.error_us) / smoothing;
        let divisor = if settling {
            SETTLING_LIMIT_DIVISOR
        } else {
            SLEW_LIMIT_DIVISOR
        };
        let limit = i64::try_from(period_us / divisor as u64).unwrap_or(0);
        let adjust = (self.error_us / SLEW_DIVISOR).clamp(-limit, limit);
        tick.saturating_add(period_us).saturating_add_signed(adjust)
    }
}

/// Whether a silence of `gap_us` is `expect_us` (the frames the numbers say
/// it held, at the period `period_us`) within a period and an eighth.
fn fits(gap_us: u64, expect_us: u64, period_us: u64) -> bool {
    gap_us.abs_diff(expect_us) <= period_us + expect_us / 8
}
