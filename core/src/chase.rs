//! Chasing a show's timecode: where the show is now, on the local clock,
//! from timecode frames that arrive with jitter and sometimes not at all.
//!
//! States ([`ChaseState`]): **waiting** for timecode; **locking** while
//! [`ChaseConfig::lock_frames`] contiguous frames arrive; **locked**: the
//! position runs on the local clock from an anchor that each arriving frame
//! pulls by an eighth of its error (slewing: arrival jitter is divided by
//! eight, a drifting master is followed), and an error past
//! [`ChaseConfig::locate_us`] moves the anchor at once (a locate);
//! **freewheel** when no frame came for [`ChaseConfig::lost_after_us`]: the
//! position runs on, and a frame that fits re-locks at once; after
//! [`ChaseConfig::freewheel_us`] of freewheel, **stopped** or **held** (the
//! position frozen), per [`AfterFreewheel`], until timecode locks again.
//!
//! Times are microseconds: timecode since its midnight, local on any
//! monotonic clock. Pure arithmetic: the box and the host feed it their
//! clocks, and tests feed it invented ones.

use crate::artnet::{ArtError, ArtTimeCode, Label};

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
    /// A difference between timecode and position past this is a locate.
    pub locate_us: u64,
    /// Stop or hold when freewheel runs out.
    pub after_freewheel: AfterFreewheel,
}

impl Default for ChaseConfig {
    /// Locks on 4 frames, freewheels after 100 ms without timecode (3 frames
    /// at 30 fps) for 4 s, locates past 5 frames at 30 fps, then stops.
    fn default() -> Self {
        ChaseConfig {
            lock_frames: 4,
            lost_after_us: 100_000,
            freewheel_us: 4_000_000,
            locate_us: 166_667,
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

/// Each arriving frame moves the anchor by its error divided by this.
const SLEW_DIVISOR: i64 = 8;

/// A chase of one timecode stream.
#[derive(Clone, Debug)]
pub struct Chase {
    config: ChaseConfig,
    state: ChaseState,
    /// Timecode at the anchor's local time: position = tc + (now - local).
    anchor: (u64, u64),
    /// The last frame that arrived: its timecode and local arrival time.
    last: Option<(u64, u64)>,
    contiguous: u32,
    held: u64,
    locates: u32,
}

impl Chase {
    /// A chase waiting for timecode.
    pub fn new(config: ChaseConfig) -> Self {
        Chase {
            config,
            state: ChaseState::Waiting,
            anchor: (0, 0),
            last: None,
            contiguous: 0,
            held: 0,
            locates: 0,
        }
    }

    /// Where it stands.
    pub fn state(&self) -> ChaseState {
        self.state
    }

    /// Locates so far (jumps past [`ChaseConfig::locate_us`] while locked).
    pub fn locates(&self) -> u32 {
        self.locates
    }

    /// A timecode frame `tc_us` (one frame lasts `frame_us`) arrived at local time `now_us`.
    pub fn on_timecode(&mut self, tc_us: u64, frame_us: u64, now_us: u64) {
        self.contiguous = match self.last {
            Some((last, _)) if tc_us.abs_diff(last.saturating_add(frame_us)) < frame_us / 2 => {
                self.contiguous.saturating_add(1)
            }
            _ => 1,
        };
        self.last = Some((tc_us, now_us));
        match self.state {
            ChaseState::Locked | ChaseState::Freewheel => {
                let error = tc_us as i64 - self.at(now_us) as i64;
                if error.unsigned_abs() > self.config.locate_us {
                    self.anchor = (tc_us, now_us);
                    self.locates = self.locates.saturating_add(1);
                } else {
                    let pull = error / SLEW_DIVISOR;
                    self.anchor.0 = self.anchor.0.saturating_add_signed(pull);
                }
                self.state = ChaseState::Locked;
            }
            ChaseState::Waiting | ChaseState::Locking | ChaseState::Stopped | ChaseState::Held => {
                if self.contiguous >= self.config.lock_frames {
                    self.anchor = (tc_us, now_us);
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

    /// The show's timecode now, in µs, when there is one to play: locked,
    /// freewheeling or held.
    pub fn position(&self, now_us: u64) -> Option<u64> {
        match self.state {
            ChaseState::Locked | ChaseState::Freewheel => Some(self.at(now_us)),
            ChaseState::Held => Some(self.held),
            ChaseState::Waiting | ChaseState::Locking | ChaseState::Stopped => None,
        }
    }

    /// The local time at which the position reaches `tc_us` (locked or freewheeling).
    pub fn local_time_of(&self, tc_us: u64) -> Option<u64> {
        matches!(self.state, ChaseState::Locked | ChaseState::Freewheel).then(|| {
            let ahead = tc_us as i64 - self.anchor.0 as i64;
            self.anchor.1.saturating_add_signed(ahead)
        })
    }

    fn at(&self, now_us: u64) -> u64 {
        let since = now_us as i64 - self.anchor.1 as i64;
        self.anchor.0.saturating_add_signed(since)
    }
}

/// A [`Chase`] fed with the datagrams of a timecode port: valid timecode of
/// its stream drives the chase; the rest is counted and ignored (other Art-Net
/// operations, such as the DMX a lighting network carries on the same port,
/// only counted apart).
#[derive(Clone, Debug)]
pub struct Follower {
    chase: Chase,
    stream: u8,
    last: Option<ArtTimeCode>,
    frames: u32,
    bad: u32,
    other_stream: u32,
    other_ops: u32,
}

impl Follower {
    /// Follows `stream` with `config`, waiting for timecode.
    pub fn new(config: ChaseConfig, stream: u8) -> Self {
        Follower {
            chase: Chase::new(config),
            stream,
            last: None,
            frames: 0,
            bad: 0,
            other_stream: 0,
            other_ops: 0,
        }
    }

    /// A datagram arrived at local time `now_us`.
    pub fn on_datagram(&mut self, bytes: &[u8], now_us: u64) {
        self.chase.tick(now_us);
        match ArtTimeCode::parse(bytes) {
            Ok(tc) if tc.stream == self.stream => {
                self.frames = self.frames.saturating_add(1);
                self.last = Some(tc);
                self.chase
                    .on_timecode(tc.micros(), tc.kind.micros(1), now_us);
            }
            Ok(_) => self.other_stream = self.other_stream.saturating_add(1),
            Err(ArtError::OpCode(_)) => self.other_ops = self.other_ops.saturating_add(1),
            Err(_) => self.bad = self.bad.saturating_add(1),
        }
    }

    /// Moves the chase on to local time `now_us` and returns it.
    pub fn chase_at(&mut self, now_us: u64) -> &Chase {
        self.chase.tick(now_us);
        &self.chase
    }

    /// Where a take's first frame sits on the timecode, in µs: at `label`
    /// read at the rate of the timecode followed (`None` until some arrived),
    /// or without a label at `own_us` (its own frame time).
    pub fn offset_us(&self, label: Option<Label>, own_us: u64) -> Option<u64> {
        match label {
            Some(label) => self.last.map(|tc| label.micros(tc.kind)),
            None => Some(own_us),
        }
    }

    /// The last valid timecode of the followed stream.
    pub fn last(&self) -> Option<ArtTimeCode> {
        self.last
    }

    /// Datagrams that were not valid timecode (not Art-Net, short, fields out of range).
    pub fn bad(&self) -> u32 {
        self.bad
    }

    /// Valid timecode of another stream.
    pub fn other_stream(&self) -> u32 {
        self.other_stream
    }

    /// Other Art-Net operations (DMX, polls, ...).
    pub fn other_ops(&self) -> u32 {
        self.other_ops
    }

    /// How it stands, as `Status` reports it.
    pub fn status(&self) -> ChaseStatus {
        ChaseStatus {
            state: self.chase.state(),
            timecode: self.last,
            locates: self.chase.locates(),
            timecode_frames: self.frames,
            bad_packets: self.bad,
        }
    }
}

/// How a playback that follows timecode stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChaseStatus {
    /// Waiting, locking, locked, freewheel, stopped or held.
    pub state: ChaseState,
    /// The last valid timecode received on the followed stream.
    pub timecode: Option<ArtTimeCode>,
    /// Jumps in the timecode the playback followed at once.
    pub locates: u32,
    /// Valid timecode frames received on the followed stream.
    pub timecode_frames: u32,
    /// Datagrams on the timecode port that were not valid timecode, ignored.
    pub bad_packets: u32,
}
