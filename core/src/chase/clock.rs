//! The chase itself: where the show's timecode is now, on the local clock,
//! from timecode frames that arrive with jitter and sometimes not at all.
//! Times of the timecode are µs since its midnight, on a clock that wraps
//! at the timecode's day (a show runs through midnight); local times are µs
//! on any monotonic clock.

use crate::artnet::TimecodeKind;
use crate::time::day::{wrapped_add, wrapped_diff};

use super::{AfterFreewheel, ChaseConfig, ChaseState};

/// Each arriving frame moves the anchor by its error divided by this.
const SLEW_DIVISOR: i64 = 8;

/// A chase of one timecode stream.
#[derive(Clone, Debug)]
pub struct Chase {
    config: ChaseConfig,
    state: ChaseState,
    /// Timecode at the anchor's local time: position = tc + (now - local), modulo the day.
    anchor: (u64, u64),
    /// One frame and one day of the timecode followed, in µs.
    frame_us: u64,
    day_us: u64,
    /// The last frame that arrived: its timecode and local arrival time.
    last: Option<(u64, u64)>,
    contiguous: u32,
    held: u64,
    locates: u32,
    jumps: u32,
}

impl Chase {
    /// A chase waiting for timecode.
    pub fn new(config: ChaseConfig) -> Self {
        Chase {
            config,
            state: ChaseState::Waiting,
            anchor: (0, 0),
            frame_us: TimecodeKind::Smpte30.micros(1),
            day_us: TimecodeKind::Smpte30.micros_per_day(),
            last: None,
            contiguous: 0,
            held: 0,
            locates: 0,
            jumps: 0,
        }
    }

    /// Where it stands.
    pub fn state(&self) -> ChaseState {
        self.state
    }

    /// Locates so far (jumps past [`ChaseConfig::locate_frames`] while locked).
    pub fn locates(&self) -> u32 {
        self.locates
    }

    /// Times the position was set anew, at a lock or a locate: between two
    /// of these it runs on smoothly (slewing moves it by a fraction of a frame).
    pub fn jumps(&self) -> u32 {
        self.jumps
    }

    /// µs a day of the timecode followed lasts (the clock positions wrap at).
    pub fn day_us(&self) -> u64 {
        self.day_us
    }

    /// An error of more than this, in µs, is a locate: the configured frames
    /// of the timecode followed, and half a frame more for arrival jitter.
    pub fn locate_after_us(&self) -> u64 {
        u64::from(self.config.locate_frames) * self.frame_us + self.frame_us / 2
    }

    /// A timecode frame at `tc_us` (µs since its midnight) of type `kind`
    /// arrived at local time `now_us`.
    pub fn on_timecode(&mut self, tc_us: u64, kind: TimecodeKind, now_us: u64) {
        self.frame_us = kind.micros(1);
        self.day_us = kind.micros_per_day();
        let (frame, day) = (self.frame_us, self.day_us);
        self.contiguous = match self.last {
            Some((last, _))
                if wrapped_diff(tc_us, last, day).abs_diff(frame as i64) < frame / 2 =>
            {
                self.contiguous.saturating_add(1)
            }
            _ => 1,
        };
        self.last = Some((tc_us, now_us));
        match self.state {
            ChaseState::Locked | ChaseState::Freewheel => {
                let error = wrapped_diff(tc_us, self.at(now_us), day);
                if error.unsigned_abs() > self.locate_after_us() {
                    self.anchor = (tc_us % day, now_us);
                    self.locates = self.locates.saturating_add(1);
                    self.jumps = self.jumps.wrapping_add(1);
                } else {
                    self.anchor.0 = wrapped_add(self.anchor.0, error / SLEW_DIVISOR, day);
                }
                self.state = ChaseState::Locked;
            }
            ChaseState::Waiting | ChaseState::Locking | ChaseState::Stopped | ChaseState::Held => {
                if self.contiguous >= self.config.lock_frames {
                    self.anchor = (tc_us % day, now_us);
                    self.jumps = self.jumps.wrapping_add(1);
                    self.state = ChaseState::Locked;
                } else if self.state == ChaseState::Waiting {
                    self.state = ChaseState::Locking;
                }
            }
        }
    }

    /// Moves the state on at local time `now_us` (timecode lost, freewheel over).
    pub fn tick(&mut self, now_us: u64) {
        let Some((_, arrived)) = self.last else {
            return;
        };
        let silent = now_us.saturating_sub(arrived);
        match self.state {
            ChaseState::Locked if silent > self.config.lost_after_us => {
                self.state = ChaseState::Freewheel;
            }
            ChaseState::Freewheel
                if silent > self.config.lost_after_us + self.config.freewheel_us =>
            {
                self.state = match self.config.after_freewheel {
                    AfterFreewheel::Stop => ChaseState::Stopped,
                    AfterFreewheel::Hold => {
                        self.held = self.at(now_us);
                        ChaseState::Held
                    }
                };
            }
            ChaseState::Locking if silent > self.config.lost_after_us => {
                self.contiguous = 0;
                self.state = ChaseState::Waiting;
            }
            _ => {}
        }
    }

    /// The show's timecode now, in µs since its midnight, when there is one
    /// to play: locked, freewheeling or held.
    pub fn position(&self, now_us: u64) -> Option<u64> {
        match self.state {
            ChaseState::Locked | ChaseState::Freewheel => Some(self.at(now_us)),
            ChaseState::Held => Some(self.held),
            ChaseState::Waiting | ChaseState::Locking | ChaseState::Stopped => None,
        }
    }

    /// The local time at which the position reaches `tc_us` (locked or
    /// freewheeling), the short way round the day: a time already passed
    /// (at most half a day ago) is in the past.
    pub fn local_time_of(&self, tc_us: u64) -> Option<u64> {
        matches!(self.state, ChaseState::Locked | ChaseState::Freewheel).then(|| {
            let ahead = wrapped_diff(tc_us, self.anchor.0, self.day_us);
            self.anchor.1.saturating_add_signed(ahead)
        })
    }

    fn at(&self, now_us: u64) -> u64 {
        let since = now_us as i64 - self.anchor.1 as i64;
        wrapped_add(self.anchor.0, since, self.day_us)
    }
}
