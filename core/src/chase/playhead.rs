//! Which frame of a take plays now, and when the next one is due, while a
//! [`Chase`] moves the show's timecode: the one engine the box, `llv play
//! --chase` and `llv serve` drive (they bring the clock, the timecode and the
//! sending; this decides).
//!
//! The take sits on the timecode from an offset (a time of day; a take may
//! run through midnight). The frame playing is the one whose span holds the
//! take time there: a frame lasts until the next frame's time, the last one
//! until the take's end (its loop period), so a 30 Hz phone take numbered in
//! 60 fps frames plays every frame for its whole 33 ms.
//!
//! - While the position runs on (no lock or locate in between), frames go
//!   out once each and in order: the next one when the position reaches its
//!   time, late ones one after the other at once, never a frame skipped and
//!   never one resent, even when slewing pulls the position back a little.
//!   Only a position more than [`CATCH_UP_US`] past the next frame (the
//!   sender stalled that long) skips to where the timecode is.
//! - After a lock or a locate (the position jumped), the frame at the new
//!   place goes out at once: a seek, found by a binary search of the times.
//! - Held (freewheel ran out with hold on), the frame at the held place is
//!   sent again every average frame interval of the take (its loop period
//!   over its frame count), so a receiver that joins late gets the face.
//! - Before the take's place or past its end, and while the chase waits,
//!   locks or has stopped, nothing goes out.
//!
//! Sans-IO: [`Playhead::step`] takes the chase as it stands and the local
//! time, and answers with a [`Step`]; frame times come through
//! [`FrameTimes`], an async trait so the box can read them from flash or a
//! card (a take in memory answers at once).

use crate::pacing::LATE_AFTER_US;
use crate::time::day::{place, wrapped_add};

use super::{Chase, ChaseState};

/// How often a playhead looks at the chase when nothing is due sooner, in µs.
pub const LOOK_EVERY_US: u64 = 20_000;

/// A position this far past the next frame's time, or more, skips to where
/// the timecode is instead of sending the frames between, in µs.
pub const CATCH_UP_US: u64 = 1_000_000;

/// A take's frame times, as a chase reads them.
#[allow(async_fn_in_trait, reason = "single-threaded callers: no Send needed")]
pub trait FrameTimes {
    /// Why a time could not be read.
    type Error;

    /// Frames in the take.
    fn frame_count(&self) -> u32;

    /// Where the last frame ends: the take's loop period, µs from frame 0.
    fn end_us(&self) -> u32;

    /// Frame `index`'s time, µs from frame 0 (times never go back). The
    /// playhead asks for the frame after the one it last sent before any other.
    async fn time_us(&mut self, index: u32) -> Result<u32, Self::Error>;
}

/// What the driver does now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Send this frame at once, then step again.
    Send(Cue),
    /// Nothing to send before the local time `until_us`: step again then, or
    /// sooner when timecode arrives (a locate).
    Wait {
        /// Local time, µs.
        until_us: u64,
    },
}

/// A frame to send and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cue {
    /// The frame's index in the take.
    pub index: u32,
    /// How it follows what went before.
    pub kind: CueKind,
}

/// How a cued frame follows the frame sent before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CueKind {
    /// The frame after the one sent before, `late_us` after the position reached it.
    Next {
        /// µs from the position reaching the frame's time to now.
        late_us: u64,
    },
    /// A jump: the first frame, or the frame at the place of a lock or a locate.
    Seek,
    /// The held frame, again.
    Repeat,
}

/// What a playhead cued so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlayheadCounts {
    /// Frames cued (each cue is one frame to every target).
    pub frames: u32,
    /// Cues that jumped ([`CueKind::Seek`]).
    pub seeks: u32,
    /// Held frames sent again ([`CueKind::Repeat`]).
    pub repeats: u32,
    /// Next frames cued more than [`LATE_AFTER_US`] after the position reached them.
    pub late_frames: u32,
    /// The latest a next frame was cued, in µs.
    pub max_late_us: u64,
}

/// The frame sent last.
#[derive(Clone, Copy, Debug)]
struct Sent {
    index: u32,
    /// Where its span ends (the next frame's time, or the take's end), once read.
    until_us: Option<u32>,
    /// The chase's [`Chase::jumps`] when it was sent.
    jumps: u32,
    /// Local time it was cued.
    at_us: u64,
}

/// Plays a take to a chase: see the module docs.
#[derive(Clone, Debug)]
pub struct Playhead {
    count: u32,
    end_us: u32,
    repeat_us: u64,
    sent: Option<Sent>,
    counts: PlayheadCounts,
}

impl Playhead {
    /// A playhead for `times`' take, nothing sent yet.
    pub fn new<T: FrameTimes>(times: &T) -> Self {
        let count = times.frame_count();
        let end_us = times.end_us();
        Playhead {
            count,
            end_us,
            repeat_us: (u64::from(end_us) / u64::from(count.max(1))).max(1_000),
            sent: None,
            counts: PlayheadCounts::default(),
        }
    }

    /// What it cued so far.
    pub fn counts(&self) -> PlayheadCounts {
        self.counts
    }

    /// The frame sent last, if any.
    pub fn last_sent(&self) -> Option<u32> {
        self.sent.map(|s| s.index)
    }

    /// What to do at local time `now_us`, the chase moved on to it (see
    /// [`super::Follower::chase_at`]), the take's first frame at `offset_us`
    /// on the timecode (µs since its midnight; `None` while unknown).
    pub async fn step<T: FrameTimes>(
        &mut self,
        times: &mut T,
        chase: &Chase,
        offset_us: Option<u64>,
        now_us: u64,
    ) -> Result<Step, T::Error> {
        let look = now_us.saturating_add(LOOK_EVERY_US);
        let (Some(position), Some(offset)) = (chase.position(now_us), offset_us) else {
            return Ok(self.wait(look, now_us, look));
        };
        if self.count == 0 {
            return Ok(self.wait(look, now_us, look));
        }
        let day = chase.day_us();
        let media = place(position, offset, u64::from(self.end_us), day);
        let Ok(media) = u64::try_from(media) else {
            // Before the take: its first frame is due at its place.
            let due = chase.local_time_of(offset).unwrap_or(look);
            return Ok(self.wait(due, now_us, look));
        };
        if media >= u64::from(self.end_us) {
            return Ok(self.wait(look, now_us, look));
        }
        if let Some(cue) = self.cue(times, chase, media).await? {
            self.note(cue, chase, now_us);
            return Ok(Step::Send(cue));
        }
        let Some(sent) = self.sent else {
            return Ok(self.wait(look, now_us, look));
        };
        if chase.state() == ChaseState::Held {
            if now_us >= sent.at_us.saturating_add(self.repeat_us) {
                let cue = Cue {
                    index: sent.index,
                    kind: CueKind::Repeat,
                };
                self.note(cue, chase, now_us);
                return Ok(Step::Send(cue));
            }
            return Ok(self.wait(sent.at_us + self.repeat_us, now_us, look));
        }
        // The next frame is due when the position reaches its time.
        let due = match sent.until_us {
            Some(until) if sent.index + 1 < self.count => {
                chase.local_time_of(wrapped_add(offset, i64::from(until), day))
            }
            _ => None,
        };
        Ok(self.wait(due.unwrap_or(look), now_us, look))
    }

    /// A wait until `due`, never past `look` nor at or before `now`.
    fn wait(&self, due: u64, now_us: u64, look: u64) -> Step {
        Step::Wait {
            until_us: due.clamp(now_us.saturating_add(1), look),
        }
    }

    /// The frame to send for take time `media` (inside the take), if any.
    async fn cue<T: FrameTimes>(
        &mut self,
        times: &mut T,
        chase: &Chase,
        media: u64,
    ) -> Result<Option<Cue>, T::Error> {
        if let Some(mut sent) = self.sent.filter(|s| s.jumps == chase.jumps()) {
            // The position ran on: the frame after the last, never one back.
            let until = match sent.until_us {
                Some(until) => until,
                None => {
                    let until = self.until(times, sent.index).await?;
                    sent.until_us = Some(until);
                    self.sent = Some(sent);
                    until
                }
            };
            let next = sent.index + 1;
            if media < u64::from(until) || next >= self.count {
                return Ok(None);
            }
            if media - u64::from(until) < CATCH_UP_US {
                let late_us = media - u64::from(until);
                return Ok(Some(Cue {
                    index: next,
                    kind: CueKind::Next { late_us },
                }));
            }
        }
        // A jump (or the first frame): the frame whose span holds `media`.
        let index = self.search(times, media).await?;
        Ok(match self.sent {
            Some(s) if s.index == index => {
                self.sent = Some(Sent {
                    jumps: chase.jumps(),
                    ..s
                });
                None
            }
            // A lock that finds the timecode where it left off goes on in order.
            Some(s) if s.index + 1 == index => Some(Cue {
                index,
                kind: CueKind::Next {
                    late_us: s.until_us.map_or(0, |u| media.saturating_sub(u64::from(u))),
                },
            }),
            _ => Some(Cue {
                index,
                kind: CueKind::Seek,
            }),
        })
    }

    /// The last frame whose time is not past `media` (frame 0's time is 0).
    async fn search<T: FrameTimes>(&self, times: &mut T, media: u64) -> Result<u32, T::Error> {
        let (mut lo, mut hi) = (0u32, self.count);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if u64::from(times.time_us(mid).await?) <= media {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    }

    /// Where frame `index`'s span ends: the next frame's time, or the take's end.
    async fn until<T: FrameTimes>(&self, times: &mut T, index: u32) -> Result<u32, T::Error> {
        match index.checked_add(1).filter(|n| *n < self.count) {
            Some(next) => times.time_us(next).await,
            None => Ok(self.end_us),
        }
    }

    /// Notes `cue` as sent at `now_us`.
    fn note(&mut self, cue: Cue, chase: &Chase, now_us: u64) {
        let c = &mut self.counts;
        c.frames = c.frames.saturating_add(1);
        match cue.kind {
            CueKind::Next { late_us } => {
                if late_us > LATE_AFTER_US {
                    c.late_frames = c.late_frames.saturating_add(1);
                }
                c.max_late_us = c.max_late_us.max(late_us);
            }
            CueKind::Seek => c.seeks = c.seeks.saturating_add(1),
            CueKind::Repeat => c.repeats = c.repeats.saturating_add(1),
        }
        // A repeat keeps what is known of the frame's span; a new frame's is read when needed.
        let until_us = self
            .sent
            .filter(|s| s.index == cue.index)
            .and_then(|s| s.until_us);
        self.sent = Some(Sent {
            index: cue.index,
            until_us,
            jumps: chase.jumps(),
            at_us: now_us,
        });
    }
}
