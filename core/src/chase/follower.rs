//! A [`Chase`] fed with the datagrams of a timecode port, and where a take
//! sits on the timecode it follows.

use crate::artnet::{ArtError, ArtTimeCode, TimecodeKind, TimecodeLabel};
use crate::time::FrameTime;

use super::{Chase, ChaseConfig, ChaseState};

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
                self.chase.on_timecode(tc.micros(), tc.kind, now_us);
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

    /// Where a take's first frame sits on the timecode followed, in µs since
    /// its midnight (`None` until timecode arrived, which tells its type): at
    /// `label`, or without one at the label of `first`, the take's first
    /// frame time (see [`own_place`]; `None` without one).
    pub fn offset_us(
        &self,
        label: Option<TimecodeLabel>,
        first: Option<&FrameTime>,
    ) -> Option<u64> {
        let kind = self.last?.kind;
        match label {
            Some(label) => Some(label.micros(kind)),
            None => own_place(first?, kind),
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

/// Where a frame time's label falls on timecode of type `kind`, in µs since
/// its midnight: labels are matched, not real times (a phone take labelled
/// 13:13:05:20 at 60 fps plays at 13:13:05 of 29.97 drop-frame timecode, a
/// third of a second on), as a show lines up timecode. `None` for an invalid rate.
pub fn own_place(first: &FrameTime, kind: TimecodeKind) -> Option<u64> {
    let tc = first.timecode()?;
    let second = TimecodeLabel {
        hours: u8::try_from(tc.hours).ok()?,
        minutes: tc.minutes,
        seconds: tc.seconds,
        frames: 0,
    };
    let rate = first.rate;
    let frames = u64::try_from(rate.micros_between(0, i64::from(tc.frames))?).ok()?;
    let fraction = if tc.subframe.is_finite() {
        f64::from(tc.subframe.clamp(0.0, 1.0))
    } else {
        0.0
    };
    let part = (fraction * rate.micros_between(0, 1)? as f64) as u64;
    Some((second.micros(kind) + frames + part) % kind.micros_per_day())
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
