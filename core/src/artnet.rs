//! Art-Net timecode (`OpTimeCode`, Art-Net 4): the 19-byte UDP packet a
//! show's timecode master sends to port [`PORT`], a zero-copy view
//! ([`TimeCodePacket`]) and its parsed form ([`ArtTimeCode`]) in the style of
//! smoltcp's `wire` module, with the frame arithmetic of the four timecode
//! types, 29.97 drop-frame included.
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | `Art-Net\0` |
//! | 8..10 | OpCode 0x9700, little-endian (`00 97`) |
//! | 10..12 | protocol version, big-endian (14) |
//! | 12 | filler, 0 |
//! | 13 | stream id (0: the master stream) |
//! | 14 | frames |
//! | 15 | seconds, 0..60 |
//! | 16 | minutes, 0..60 |
//! | 17 | hours, 0..24 |
//! | 18 | type: 0 film 24, 1 EBU 25, 2 29.97 drop-frame, 3 SMPTE 30 |

use core::fmt;

use crate::time::FrameRate;

/// The UDP port Art-Net uses.
pub const PORT: u16 = crate::ports::ARTNET_PORT;
/// Bytes of an `OpTimeCode` packet.
pub const LEN: usize = 19;
/// The packet's first 8 bytes.
pub const ID: [u8; 8] = *b"Art-Net\0";
/// `OpTimeCode`.
pub const OP_TIME_CODE: u16 = 0x9700;
/// The protocol version this code writes; older packets (lower versions) are refused.
pub const PROTOCOL: u16 = 14;

/// The four timecode types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TimecodeKind {
    /// Film, 24 frames a second.
    Film24,
    /// EBU, 25 frames a second.
    Ebu25,
    /// NTSC 29.97 frames a second, drop-frame labels.
    DropFrame2997,
    /// SMPTE, 30 frames a second.
    Smpte30,
}

impl TimecodeKind {
    /// From the packet's type byte.
    pub fn from_byte(b: u8) -> Option<TimecodeKind> {
        Some(match b {
            0 => TimecodeKind::Film24,
            1 => TimecodeKind::Ebu25,
            2 => TimecodeKind::DropFrame2997,
            3 => TimecodeKind::Smpte30,
            _ => return None,
        })
    }

    /// The packet's type byte.
    pub fn byte(self) -> u8 {
        match self {
            TimecodeKind::Film24 => 0,
            TimecodeKind::Ebu25 => 1,
            TimecodeKind::DropFrame2997 => 2,
            TimecodeKind::Smpte30 => 3,
        }
    }

    /// Frame labels per second: 24, 25, 30, 30.
    pub fn base(self) -> u8 {
        match self {
            TimecodeKind::Film24 => 24,
            TimecodeKind::Ebu25 => 25,
            TimecodeKind::DropFrame2997 | TimecodeKind::Smpte30 => 30,
        }
    }

    /// The real frame rate: 24, 25, 30000/1001, 30.
    pub fn rate(self) -> FrameRate {
        match self {
            TimecodeKind::DropFrame2997 => FrameRate::new(30_000, 1001),
            other => FrameRate::new(i32::from(other.base()), 1),
        }
    }

    /// The type whose count matches `rate` (30000/1001 is drop-frame), if any.
    pub fn for_rate(rate: FrameRate) -> Option<TimecodeKind> {
        [
            TimecodeKind::Film24,
            TimecodeKind::Ebu25,
            TimecodeKind::DropFrame2997,
            TimecodeKind::Smpte30,
        ]
        .into_iter()
        .find(|k| k.rate() == rate)
    }

    /// Frames in a day (drop-frame leaves out labels, not time).
    pub fn frames_per_day(self) -> u32 {
        // Every kind's rate is valid and its day fits.
        self.rate().frames_per_day().unwrap_or(0)
    }

    /// µs a day of labels lasts (86,400 s; 86,399.9136 s for 29.97 drop-frame).
    pub fn micros_per_day(self) -> u64 {
        self.micros(u64::from(self.frames_per_day()))
    }

    /// Microseconds from frame 0 to frame `count` (exact, floored).
    pub fn micros(self, count: u64) -> u64 {
        let rate = self.rate();
        let (num, den) = (rate.numerator as u64, rate.denominator as u64);
        count.saturating_mul(den).saturating_mul(1_000_000) / num
    }
}

/// One timecode value of an `OpTimeCode` packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ArtTimeCode {
    /// The stream it belongs to (0: the master).
    pub stream: u8,
    /// Hours, 0..24.
    pub hours: u8,
    /// Minutes, 0..60.
    pub minutes: u8,
    /// Seconds, 0..60.
    pub seconds: u8,
    /// Frame label within the second, below the type's base.
    pub frames: u8,
    /// The type.
    pub kind: TimecodeKind,
}

/// A timecode label without its type: what a person writes (`01:00:00:12`),
/// read at the rate of the timecode it is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TimecodeLabel {
    /// Hours, 0..24.
    pub hours: u8,
    /// Minutes, 0..60.
    pub minutes: u8,
    /// Seconds, 0..60.
    pub seconds: u8,
    /// Frames, 0..30.
    pub frames: u8,
}

impl TimecodeLabel {
    /// Reads `HH:MM:SS:FF` (`;` or `.` before the frames too, as drop-frame
    /// timecode is written); `None` unless it is a valid label.
    pub fn parse(text: &str) -> Option<TimecodeLabel> {
        let bytes = text.as_bytes();
        let field = |i: usize| -> Option<u8> {
            let pair = bytes.get(i..i + 2)?;
            pair.iter()
                .all(u8::is_ascii_digit)
                .then(|| (pair[0] - b'0') * 10 + (pair[1] - b'0'))
        };
        let seps = [bytes.get(2), bytes.get(5), bytes.get(8)];
        let ok_seps = seps[0] == Some(&b':')
            && seps[1] == Some(&b':')
            && matches!(seps[2], Some(b':' | b';' | b'.'));
        if bytes.len() != 11 || !ok_seps {
            return None;
        }
        let label = TimecodeLabel {
            hours: field(0)?,
            minutes: field(3)?,
            seconds: field(6)?,
            frames: field(9)?,
        };
        label.is_valid().then_some(label)
    }

    /// Whether it is a label of some type: hours, minutes, seconds in range, frames below 30.
    pub fn is_valid(&self) -> bool {
        self.hours < 24 && self.minutes < 60 && self.seconds < 60 && self.frames < 30
    }

    /// Microseconds since 00:00:00:00 of this label in timecode of type `kind`.
    /// A label `kind` lacks counts its frames on from the first label of its
    /// second: frame 27 at 25 fps is 27 frames into the second, a dropped
    /// drop-frame label (`;00`, `;01` at most minutes) is the second's first
    /// label (`;02`). A label that is not valid reads as 0.
    pub fn micros(&self, kind: TimecodeKind) -> u64 {
        let rate = kind.rate();
        let (h, m, s) = (self.hours, self.minutes, self.seconds);
        let first = (0..4).find_map(|f| rate.count_of((h, m, s, f)).map(|count| (f, count)));
        let Some((first_frame, first_count)) = first else {
            return 0;
        };
        let count = first_count + u32::from(self.frames).saturating_sub(first_frame);
        kind.micros(u64::from(count))
    }
}

/// Where and why a packet is not a valid `OpTimeCode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ArtError {
    /// Not 19 bytes or more.
    Short(usize),
    /// The first 8 bytes are not `Art-Net\0`.
    Id,
    /// Another Art-Net operation (not a timecode).
    OpCode(u16),
    /// A protocol version below 14.
    Version(u16),
    /// The type byte is not 0..=3.
    Kind(u8),
    /// Frames at or past the type's base, or a drop-frame label that does not exist.
    Frames(u8),
    /// Seconds of 60 or more.
    Seconds(u8),
    /// Minutes of 60 or more.
    Minutes(u8),
    /// Hours of 24 or more.
    Hours(u8),
}

impl fmt::Display for ArtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ArtError::Short(n) => write!(f, "{n} bytes, an ArtTimeCode has {LEN}"),
            ArtError::Id => f.write_str("not an Art-Net packet"),
            ArtError::OpCode(op) => write!(f, "Art-Net operation {op:#06x}, not OpTimeCode"),
            ArtError::Version(v) => write!(f, "Art-Net protocol {v}, need {PROTOCOL}"),
            ArtError::Kind(k) => write!(f, "timecode type {k}, not 0..=3"),
            ArtError::Frames(n) => {
                write!(f, "frame label {n} does not exist at this type and time")
            }
            ArtError::Seconds(n) => write!(f, "seconds {n}, not 0..60"),
            ArtError::Minutes(n) => write!(f, "minutes {n}, not 0..60"),
            ArtError::Hours(n) => write!(f, "hours {n}, not 0..24"),
        }
    }
}

/// A zero-copy view of an `OpTimeCode` packet, checked by [`TimeCodePacket::new_checked`].
#[derive(Clone, Copy, Debug)]
pub struct TimeCodePacket<'a> {
    bytes: &'a [u8],
}

impl<'a> TimeCodePacket<'a> {
    /// Checks id, operation (so a short packet of another operation, such as
    /// an `ArtPoll`, is told as such), length and version (the fields are
    /// checked by [`Self::timecode`]).
    pub fn new_checked(bytes: &'a [u8]) -> Result<Self, ArtError> {
        let short = ArtError::Short(bytes.len());
        let id_op = bytes.get(..10).ok_or(short)?;
        if id_op[..8] != ID {
            return Err(ArtError::Id);
        }
        let op = u16::from_le_bytes([id_op[8], id_op[9]]);
        if op != OP_TIME_CODE {
            return Err(ArtError::OpCode(op));
        }
        let head = bytes.get(..LEN).ok_or(short)?;
        let version = u16::from_be_bytes([head[10], head[11]]);
        if version < PROTOCOL {
            return Err(ArtError::Version(version));
        }
        Ok(TimeCodePacket { bytes: head })
    }

    /// The timecode it carries, every field checked.
    pub fn timecode(&self) -> Result<ArtTimeCode, ArtError> {
        let b = self.bytes;
        let kind = TimecodeKind::from_byte(b[18]).ok_or(ArtError::Kind(b[18]))?;
        let tc = ArtTimeCode {
            stream: b[13],
            frames: b[14],
            seconds: b[15],
            minutes: b[16],
            hours: b[17],
            kind,
        };
        tc.check()?;
        Ok(tc)
    }
}

impl ArtTimeCode {
    /// Parses a datagram (see [`TimeCodePacket`]).
    pub fn parse(bytes: &[u8]) -> Result<ArtTimeCode, ArtError> {
        TimeCodePacket::new_checked(bytes)?.timecode()
    }

    /// Writes the 19-byte packet into `out`; returns its length.
    pub fn emit(&self, out: &mut [u8]) -> Result<usize, ArtError> {
        self.check()?;
        let room = out.len();
        let out = out.get_mut(..LEN).ok_or(ArtError::Short(room))?;
        out[..8].copy_from_slice(&ID);
        out[8..10].copy_from_slice(&OP_TIME_CODE.to_le_bytes());
        out[10..12].copy_from_slice(&PROTOCOL.to_be_bytes());
        out[12] = 0;
        out[13] = self.stream;
        out[14] = self.frames;
        out[15] = self.seconds;
        out[16] = self.minutes;
        out[17] = self.hours;
        out[18] = self.kind.byte();
        Ok(LEN)
    }

    /// Checks every field against the type (drop-frame labels included).
    pub fn check(&self) -> Result<(), ArtError> {
        if self.hours >= 24 {
            return Err(ArtError::Hours(self.hours));
        }
        if self.minutes >= 60 {
            return Err(ArtError::Minutes(self.minutes));
        }
        if self.seconds >= 60 {
            return Err(ArtError::Seconds(self.seconds));
        }
        let label = (
            self.hours,
            self.minutes,
            self.seconds,
            u32::from(self.frames),
        );
        if self.kind.rate().count_of(label).is_none() {
            return Err(ArtError::Frames(self.frames));
        }
        Ok(())
    }

    /// Frames since 00:00:00:00 (drop-frame labels skipped, so this counts
    /// real frames); 0 for fields that [`Self::check`] refuses.
    pub fn frame_count(&self) -> u32 {
        let label = (
            self.hours,
            self.minutes,
            self.seconds,
            u32::from(self.frames),
        );
        self.kind.rate().count_of(label).unwrap_or(0)
    }

    /// The timecode of frame `count` (modulo a day) of type `kind` on `stream`.
    pub fn from_frame_count(count: u32, kind: TimecodeKind, stream: u8) -> ArtTimeCode {
        let (hours, minutes, seconds, frames) = kind.rate().label_of(count).unwrap_or((0, 0, 0, 0));
        ArtTimeCode {
            stream,
            hours,
            minutes,
            seconds,
            frames: frames as u8,
            kind,
        }
    }

    /// Microseconds since 00:00:00:00 at the type's real rate.
    pub fn micros(&self) -> u64 {
        self.kind.micros(u64::from(self.frame_count()))
    }
}

impl fmt::Display for ArtTimeCode {
    /// `HH:MM:SS:FF`, with `;` before the frames for drop-frame.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sep = if self.kind == TimecodeKind::DropFrame2997 {
            ';'
        } else {
            ':'
        };
        write!(
            f,
            "{:02}:{:02}:{:02}{sep}{:02}",
            self.hours, self.minutes, self.seconds, self.frames
        )
    }
}
