//! Chasing a show's timecode, and playing a take to it.
//!
//! States ([`ChaseState`]): **waiting** for timecode; **locking** while
//! [`ChaseConfig::lock_frames`] contiguous frames arrive; **locked**: the
//! position runs on the local clock from an anchor that each arriving frame
//! pulls by an eighth of its error (slewing: arrival jitter is divided by
//! eight, a drifting master is followed), and an error of more than
//! [`ChaseConfig::locate_frames`] frames of the incoming timecode (and half a
//! frame for jitter) moves the anchor at once (a locate); **freewheel** when
//! no frame came for [`ChaseConfig::lost_after_us`]: the position runs on,
//! and a frame that fits re-locks at once; after
//! [`ChaseConfig::freewheel_us`] of freewheel, **stopped** or **held** (the
//! position frozen), per [`AfterFreewheel`], until timecode locks again.
//!
//! Times are microseconds: timecode since its midnight (the position wraps
//! there, so a show runs through midnight), local on any monotonic clock.
//! Pure arithmetic: the box and the host feed it their clocks, and tests
//! feed it invented ones.
//!
//! | module | what it holds |
//! |---|---|
//! | [`clock`] | [`Chase`]: the position on the local clock, lock, slew, locate, freewheel |
//! | [`follower`] | [`Follower`]: a chase fed with datagrams, its counts and [`ChaseStatus`] |
//! | [`playhead`] | [`Playhead`]: which frame of a take plays now and when the next is due |

pub mod clock;
pub mod follower;
pub mod playhead;

pub use clock::Chase;
pub use follower::{own_place, ChaseStatus, Follower};
pub use playhead::{Cue, CueKind, FrameTimes, Playhead, PlayheadCounts, Step};

/// What the chase does when freewheel runs out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum AfterFreewheel {
    /// Stop sending.
    Stop,
    /// Keep sending the last position's frame.
    Hold,
}

/// How a chase locks, slews, locates and gives up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChaseConfig {
    /// Contiguous timecode frames it takes to lock.
    pub lock_frames: u32,
    /// No frame for this long and the chase freewheels.
    pub lost_after_us: u64,
    /// How long it freewheels before it stops or holds.
    pub freewheel_us: u64,
    /// A difference between timecode and position of more than this many
    /// frames of the incoming timecode (and half a frame for arrival jitter)
    /// is a locate: a jump of 6 frames or more with 5, whatever the rate.
    pub locate_frames: u32,
    /// Stop or hold when freewheel runs out.
    pub after_freewheel: AfterFreewheel,
}

impl Default for ChaseConfig {
    /// Locks on 4 frames, freewheels after 100 ms without timecode (3 frames
    /// at 30 fps) for 4 s, locates on a jump of more than 5 frames, then stops.
    fn default() -> Self {
        ChaseConfig {
            lock_frames: 4,
            lost_after_us: 100_000,
            freewheel_us: 4_000_000,
            locate_frames: 5,
            after_freewheel: AfterFreewheel::Stop,
        }
    }
}

/// Where a chase stands (in JSON by its [`ChaseState::name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ChaseState {
    /// No timecode yet.
    Waiting,
    /// Timecode arrives; not yet enough contiguous frames.
    Locking,
    /// Following timecode.
    Locked,
    /// Timecode lost: running on the local clock.
    Freewheel,
    /// Freewheel ran out: nothing to send.
    Stopped,
    /// Freewheel ran out: the position is frozen.
    Held,
}

impl ChaseState {
    /// The state as one lower-case word (`waiting`, `locking`, `locked`,
    /// `freewheel`, `stopped`, `held`), as status and OSC show it.
    pub fn name(self) -> &'static str {
        match self {
            ChaseState::Waiting => "waiting",
            ChaseState::Locking => "locking",
            ChaseState::Locked => "locked",
            ChaseState::Freewheel => "freewheel",
            ChaseState::Stopped => "stopped",
            ChaseState::Held => "held",
        }
    }
}
