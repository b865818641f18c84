//! The take image: one recording as the playback box stores and plays it.
//! Fixed little-endian layout so the box can read any frame straight from flash
//! (documented in `docs/take-image.md`):
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `LLVTAKE\0` |
//! | 8..10 | format version (u16, 1) |
//! | 10 | name length (u8, at most 32) |
//! | 11 | reserved, 0 |
//! | 12..44 | name, UTF-8, zero padded |
//! | 44..48 | frame count (u32) |
//! | 48..52 | total length of the image in bytes (u32) |
//! | 52..56 | period in µs: from frame 0 to where a loop restarts (u32) |
//! | 56..60 | reserved, 0 |
//! | 60..64 | CRC-32/ISO-HDLC of bytes 0..60 then 64..total length |
//!
//! Then one 8-byte entry per frame (time in µs from frame 0 as u32, packet
//! length as u16, reserved u16), then the packets back to back.
//!
//! [`build_image`] turns face packets into an image by the one timing rule the
//! host (`llv flash`) and the firmware's built-in take share; [`upload`] is
//! how an image arrives at any library ([`Upload`]).

use core::fmt;

use crc::{Crc, Digest, CRC_32_ISO_HDLC};
use heapless::String;

use crate::pacing::FrameClock;
use crate::packet::{DecodeError, Packet, MAX_LEN, MIN_LEN};
use crate::time::{FrameRate, FrameTime};

pub mod upload;
pub use upload::{Upload, UploadError, MAX_CHUNK};

/// The image's first eight bytes.
pub const MAGIC: [u8; 8] = *b"LLVTAKE\0";
/// The layout version this code reads and writes.
pub const FORMAT_VERSION: u16 = 1;
/// Bytes of the header.
pub const HEADER_LEN: usize = 64;
/// Bytes of one frame entry.
pub const ENTRY_LEN: usize = 8;
/// Longest take name in bytes.
pub const NAME_LEN: usize = 32;
/// The fastest average frame rate a take may loop at (Live Link Face sends at
/// most 60; high-speed capture rigs 120).
pub const MAX_FPS: u32 = 240;
const CRC_AT: usize = 60;
const CRC: Crc<u32> = Crc::<u32>::new(&CRC_32_ISO_HDLC);

/// Why an image (or a part of one) is not a valid take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TakeError {
    /// The image does not start with [`MAGIC`].
    BadMagic,
    /// A layout version this code does not know.
    UnsupportedVersion(u16),
    /// The name is longer than 32 bytes or not UTF-8.
    BadName,
    /// The header's sizes do not fit together (frame count vs total length).
    Inconsistent,
    /// The image holds this many bytes where the header says another number.
    LengthMismatch {
        /// Length from the header.
        expected: u32,
        /// Length found.
        actual: u32,
    },
    /// Frame `frame` has a packet length outside `264..=774`.
    BadFrameLength {
        /// Frame index.
        frame: u32,
        /// Its length.
        len: u16,
    },
    /// Frame `frame` is timed before the frame ahead of it.
    TimeGoesBack {
        /// Frame index.
        frame: u32,
    },
    /// The CRC does not check out.
    Crc {
        /// CRC from the header.
        expected: u32,
        /// CRC of the bytes.
        actual: u32,
    },
    /// The buffer is too small for the image (this many bytes are needed).
    BufferTooSmall(usize),
    /// More frames were pushed than announced, or fewer before `finish`.
    FrameCount,
}

impl fmt::Display for TakeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TakeError::BadMagic => f.write_str("not a take image (bad magic)"),
            TakeError::UnsupportedVersion(v) => {
                write!(f, "take image version {v} is not supported")
            }
            TakeError::BadName => write!(f, "take name must be UTF-8 of at most {NAME_LEN} bytes"),
            TakeError::Inconsistent => f.write_str("take header sizes do not fit together"),
            TakeError::LengthMismatch { expected, actual } => {
                write!(f, "take image is {actual} bytes, header says {expected}")
            }
            TakeError::BadFrameLength { frame, len } => write!(
                f,
                "frame {frame}: packet of {len} bytes, outside {MIN_LEN}..={MAX_LEN}"
            ),
            TakeError::TimeGoesBack { frame } => {
                write!(f, "frame {frame} is timed before the previous one")
            }
            TakeError::Crc { expected, actual } => {
                write!(f, "CRC mismatch: header {expected:08x}, data {actual:08x}")
            }
            TakeError::BufferTooSmall(n) => write!(f, "buffer too small: {n} bytes needed"),
            TakeError::FrameCount => f.write_str("frame count differs from the announced one"),
        }
    }
}

/// The parsed header of a take image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TakeHeader {
    /// The take's name.
    pub name: String<NAME_LEN>,
    /// Number of frames.
    pub frame_count: u32,
    /// Length of the whole image in bytes.
    pub total_len: u32,
    /// From frame 0 to where a loop restarts, in µs.
    pub period_us: u32,
    /// CRC-32 of the image (see the module docs).
    pub crc32: u32,
}

impl TakeHeader {
    /// Parses and checks the first [`HEADER_LEN`] bytes of an image.
    pub fn parse(bytes: &[u8]) -> Result<TakeHeader, TakeError> {
        let h = bytes
            .get(..HEADER_LEN)
            .ok_or(TakeError::BufferTooSmall(HEADER_LEN))?;
        if h.get(..8) != Some(&MAGIC[..]) {
            return Err(TakeError::BadMagic);
        }
        let version = u16::from_le_bytes([h[8], h[9]]);
        if version != FORMAT_VERSION {
            return Err(TakeError::UnsupportedVersion(version));
        }
        let name_len = usize::from(h[10]);
        let raw_name = h.get(12..12 + name_len).filter(|_| name_len <= NAME_LEN);
        let name = raw_name
            .and_then(|raw| core::str::from_utf8(raw).ok())
            .ok_or(TakeError::BadName)?;
        let mut owned = String::new();
        owned.push_str(name).map_err(|_| TakeError::BadName)?;
        let header = TakeHeader {
            name: owned,
            frame_count: le32(h, 44),
            total_len: le32(h, 48),
            period_us: le32(h, 52),
            crc32: le32(h, CRC_AT),
        };
        let count = u64::from(header.frame_count);
        let fixed = HEADER_LEN as u64 + count * ENTRY_LEN as u64;
        let total = u64::from(header.total_len);
        if total < fixed + count * MIN_LEN as u64 || total > fixed + count * MAX_LEN as u64 {
            return Err(TakeError::Inconsistent);
        }
        Ok(header)
    }

    /// Writes the header (CRC field included) into `out[..HEADER_LEN]`.
    pub fn emit(&self, out: &mut [u8]) -> Result<(), TakeError> {
        let h = out
            .get_mut(..HEADER_LEN)
            .ok_or(TakeError::BufferTooSmall(HEADER_LEN))?;
        h.fill(0);
        h[..8].copy_from_slice(&MAGIC);
        h[8..10].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        h[10] = self.name.len() as u8;
        h[12..12 + self.name.len()].copy_from_slice(self.name.as_bytes());
        h[44..48].copy_from_slice(&self.frame_count.to_le_bytes());
        h[48..52].copy_from_slice(&self.total_len.to_le_bytes());
        h[52..56].copy_from_slice(&self.period_us.to_le_bytes());
        h[CRC_AT..HEADER_LEN].copy_from_slice(&self.crc32.to_le_bytes());
        Ok(())
    }

    /// Byte offset of frame `index`'s entry.
    pub fn entry_offset(index: u32) -> usize {
        HEADER_LEN + index as usize * ENTRY_LEN
    }

    /// Byte offset of the first packet.
    pub fn packets_offset(&self) -> usize {
        Self::entry_offset(self.frame_count)
    }

    /// Whether the take loops faster than [`MAX_FPS`] (see [`too_fast`]).
    pub fn plays_too_fast(&self) -> bool {
        too_fast(self.frame_count, self.period_us)
    }
}

/// Whether `frame_count` frames every `period_us` play faster than [`MAX_FPS`]
/// on average: a box refuses such a take (looped, it would flood the network).
pub fn too_fast(frame_count: u32, period_us: u32) -> bool {
    u64::from(period_us) * u64::from(MAX_FPS) < u64::from(frame_count) * 1_000_000
}

/// One frame's entry: when it plays and how long its packet is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FrameEntry {
    /// Time from frame 0, in µs.
    pub time_us: u32,
    /// Packet length in bytes.
    pub len: u16,
}

impl FrameEntry {
    /// Parses an 8-byte entry; `frame` is its index for errors.
    pub fn parse(bytes: &[u8], frame: u32) -> Result<FrameEntry, TakeError> {
        let e = bytes
            .get(..ENTRY_LEN)
            .ok_or(TakeError::BufferTooSmall(ENTRY_LEN))?;
        let entry = FrameEntry {
            time_us: le32(e, 0),
            len: u16::from_le_bytes([e[4], e[5]]),
        };
        if !(MIN_LEN..=MAX_LEN).contains(&usize::from(entry.len)) {
            return Err(TakeError::BadFrameLength {
                frame,
                len: entry.len,
            });
        }
        Ok(entry)
    }

    /// Writes the 8-byte entry into `out`.
    pub fn emit(&self, out: &mut [u8]) -> Result<(), TakeError> {
        let e = out
            .get_mut(..ENTRY_LEN)
            .ok_or(TakeError::BufferTooSmall(ENTRY_LEN))?;
        e[..4].copy_from_slice(&self.time_us.to_le_bytes());
        e[4..6].copy_from_slice(&self.len.to_le_bytes());
        e[6..8].fill(0);
        Ok(())
    }
}

/// The image's CRC, fed in pieces as they arrive (an upload, a flash read).
pub struct ImageCrc {
    digest: Digest<'static, u32>,
    seen: usize,
}

impl Default for ImageCrc {
    fn default() -> Self {
        ImageCrc {
            digest: CRC.digest(),
            seen: 0,
        }
    }
}

impl ImageCrc {
    /// Feeds the next bytes of the image, from offset 0 on; the CRC field is skipped.
    pub fn update(&mut self, bytes: &[u8]) {
        let start = self.seen;
        let end = start + bytes.len();
        // The part before the CRC field, then the part after it.
        if start < CRC_AT {
            let upto = (CRC_AT.min(end)) - start;
            self.digest.update(&bytes[..upto]);
        }
        if end > HEADER_LEN {
            let from = HEADER_LEN.saturating_sub(start);
            self.digest.update(&bytes[from..]);
        }
        self.seen = end;
    }

    /// The CRC of everything fed.
    pub fn finalize(self) -> u32 {
        self.digest.finalize()
    }
}

/// An image checked as its bytes stream by (an upload, a read of flash or a
/// card file), without holding it: header, entries, lengths and CRC, the
/// same checks as [`TakeImage::parse`].
pub struct ImageCheck {
    head: [u8; HEADER_LEN],
    header: Option<TakeHeader>,
    crc: ImageCrc,
    seen: usize,
    entry: [u8; ENTRY_LEN],
    filled: usize,
    index: u32,
    previous: u32,
    packets: u64,
    error: Option<TakeError>,
}

impl Default for ImageCheck {
    fn default() -> Self {
        ImageCheck {
            head: [0; HEADER_LEN],
            header: None,
            crc: ImageCrc::default(),
            seen: 0,
            entry: [0; ENTRY_LEN],
            filled: 0,
            index: 0,
            previous: 0,
            packets: 0,
            error: None,
        }
    }
}

impl ImageCheck {
    /// Feeds the next bytes of the image, from offset 0 on. The first error
    /// found is kept (and returned) and later bytes are ignored.
    pub fn update(&mut self, bytes: &[u8]) -> Result<(), TakeError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let result = self.feed(bytes);
        if let Err(e) = result {
            self.error = Some(e);
        }
        result
    }

    fn feed(&mut self, bytes: &[u8]) -> Result<(), TakeError> {
        self.crc.update(bytes);
        for &byte in bytes {
            let pos = self.seen;
            self.seen += 1;
            if pos < HEADER_LEN {
                self.head[pos] = byte;
                if pos + 1 == HEADER_LEN {
                    self.header = Some(TakeHeader::parse(&self.head)?);
                }
                continue;
            }
            let Some(header) = &self.header else {
                return Err(TakeError::Inconsistent);
            };
            if pos >= header.total_len as usize {
                return Err(TakeError::LengthMismatch {
                    expected: header.total_len,
                    actual: self.seen as u32,
                });
            }
            if pos < header.packets_offset() {
                self.entry[self.filled] = byte;
                self.filled += 1;
                if self.filled == ENTRY_LEN {
                    let e = FrameEntry::parse(&self.entry, self.index)?;
                    if e.time_us < self.previous {
                        return Err(TakeError::TimeGoesBack { frame: self.index });
                    }
                    self.previous = e.time_us;
                    self.packets += u64::from(e.len);
                    self.index += 1;
                    self.filled = 0;
                }
            }
        }
        Ok(())
    }

    /// Bytes fed so far.
    pub fn seen(&self) -> usize {
        self.seen
    }

    /// The header, once its 64 bytes went by.
    pub fn header(&self) -> Option<&TakeHeader> {
        self.header.as_ref()
    }

    /// The verdict once every byte went by: the header of a valid image.
    pub fn finish(self) -> Result<TakeHeader, TakeError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let header = self.header.ok_or(TakeError::Inconsistent)?;
        let total = header.total_len as usize;
        if self.seen != total {
            return Err(TakeError::LengthMismatch {
                expected: header.total_len,
                actual: self.seen as u32,
            });
        }
        if header.packets_offset() as u64 + self.packets != total as u64 {
            return Err(TakeError::Inconsistent);
        }
        let actual = self.crc.finalize();
        if actual != header.crc32 {
            return Err(TakeError::Crc {
                expected: header.crc32,
                actual,
            });
        }
        Ok(header)
    }
}

/// A whole image in memory, checked: header, entries, lengths and CRC.
#[derive(Clone, Debug)]
pub struct TakeImage<'a> {
    header: TakeHeader,
    bytes: &'a [u8],
}

impl<'a> TakeImage<'a> {
    /// Checks `bytes` as one complete take image.
    pub fn parse(bytes: &'a [u8]) -> Result<TakeImage<'a>, TakeError> {
        let header = TakeHeader::parse(bytes)?;
        let actual = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
        if actual != header.total_len {
            return Err(TakeError::LengthMismatch {
                expected: header.total_len,
                actual,
            });
        }
        let mut sum = header.packets_offset();
        let mut previous = 0u32;
        for i in 0..header.frame_count {
            let at = TakeHeader::entry_offset(i);
            let entry = FrameEntry::parse(bytes.get(at..).unwrap_or_default(), i)?;
            if entry.time_us < previous {
                return Err(TakeError::TimeGoesBack { frame: i });
            }
            previous = entry.time_us;
            sum += usize::from(entry.len);
        }
        if sum != bytes.len() {
            return Err(TakeError::Inconsistent);
        }
        let mut crc = ImageCrc::default();
        crc.update(bytes);
        let actual = crc.finalize();
        if actual != header.crc32 {
            return Err(TakeError::Crc {
                expected: header.crc32,
                actual,
            });
        }
        Ok(TakeImage { header, bytes })
    }

    /// The header.
    pub fn header(&self) -> &TakeHeader {
        &self.header
    }

    /// The image's bytes.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Every frame's entry and packet, in order.
    pub fn frames(&self) -> impl Iterator<Item = (FrameEntry, &'a [u8])> + 'a {
        let bytes = self.bytes;
        let count = self.header.frame_count;
        let mut at = self.header.packets_offset();
        (0..count).map_while(move |i| {
            let entry = FrameEntry::parse(bytes.get(TakeHeader::entry_offset(i)..)?, i).ok()?;
            let packet = bytes.get(at..at + usize::from(entry.len))?;
            at += usize::from(entry.len);
            Some((entry, packet))
        })
    }
}

/// Builds an image into a caller's buffer: `new`, a `push` per frame, `finish`.
pub struct ImageWriter<'b> {
    buf: &'b mut [u8],
    name: String<NAME_LEN>,
    frame_count: u32,
    pushed: u32,
    at: usize,
    last_time: u32,
}

impl<'b> ImageWriter<'b> {
    /// Starts an image of exactly `frame_count` frames named `name` in `buf`.
    pub fn new(buf: &'b mut [u8], name: &str, frame_count: u32) -> Result<Self, TakeError> {
        let mut owned = String::new();
        owned.push_str(name).map_err(|_| TakeError::BadName)?;
        let at = TakeHeader::entry_offset(frame_count);
        if buf.len() < at {
            return Err(TakeError::BufferTooSmall(at));
        }
        Ok(ImageWriter {
            buf,
            name: owned,
            frame_count,
            pushed: 0,
            at,
            last_time: 0,
        })
    }

    /// Appends the next frame: its time from frame 0 in µs and its packet.
    pub fn push(&mut self, time_us: u32, packet: &[u8]) -> Result<(), TakeError> {
        let frame = self.pushed;
        if frame >= self.frame_count {
            return Err(TakeError::FrameCount);
        }
        let len = u16::try_from(packet.len()).unwrap_or(u16::MAX);
        if !(MIN_LEN..=MAX_LEN).contains(&packet.len()) {
            return Err(TakeError::BadFrameLength { frame, len });
        }
        if time_us < self.last_time {
            return Err(TakeError::TimeGoesBack { frame });
        }
        let end = self.at + packet.len();
        let slot = self
            .buf
            .get_mut(self.at..end)
            .ok_or(TakeError::BufferTooSmall(end))?;
        slot.copy_from_slice(packet);
        let entry = FrameEntry { time_us, len };
        entry.emit(&mut self.buf[TakeHeader::entry_offset(frame)..])?;
        self.at = end;
        self.last_time = time_us;
        self.pushed += 1;
        Ok(())
    }

    /// Writes the header and CRC; `period_us` is when a loop restarts. Returns the length.
    pub fn finish(self, period_us: u32) -> Result<usize, TakeError> {
        if self.pushed != self.frame_count {
            return Err(TakeError::FrameCount);
        }
        let total_len = u32::try_from(self.at).map_err(|_| TakeError::Inconsistent)?;
        let mut header = TakeHeader {
            name: self.name,
            frame_count: self.frame_count,
            total_len,
            period_us: period_us.max(self.last_time),
            crc32: 0,
        };
        header.emit(self.buf)?;
        let mut crc = ImageCrc::default();
        crc.update(&self.buf[..self.at]);
        header.crc32 = crc.finalize();
        header.emit(self.buf)?;
        Ok(self.at)
    }
}

/// Why face packets could not become a take image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum BuildError {
    /// Packet `frame` (0-based) is not a valid face frame.
    Packet {
        /// Frame index.
        frame: u32,
        /// What the decoder found.
        error: DecodeError,
    },
    /// Frame `frame` (or the loop after it, for the last one) plays more than
    /// `u32::MAX` µs (about 71 minutes) after frame 0.
    TooLong {
        /// Frame index.
        frame: u32,
    },
    /// No packet at all.
    NoFrames,
    /// More than `u32::MAX` packets.
    TooManyFrames,
    /// The image itself refused: a bad name or a buffer that is too small.
    Image(TakeError),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Packet { frame, error } => write!(f, "frame {frame}: {error}"),
            BuildError::TooLong { frame } => write!(
                f,
                "frame {frame}: over {} µs (about 71 minutes) after frame 0, too long for one take",
                u32::MAX
            ),
            BuildError::NoFrames => f.write_str("no frames"),
            BuildError::TooManyFrames => f.write_str("more than 2^32 - 1 frames"),
            BuildError::Image(e) => write!(f, "{e}"),
        }
    }
}

/// The one timing rule of a take: each frame's time from frame 0 in µs,
/// from the packets' own frame times through a [`FrameClock`] (through
/// midnight; a time that goes back re-anchors one frame later), and the loop
/// period: the last frame's time plus one frame at the clock's fallback rate
/// (the first frame's rate when it is valid, else the caller's). The take
/// image stores these times; `llv play --chase` plays a take in memory by them.
pub struct TakeTiming {
    fallback: FrameRate,
    clock: Option<FrameClock>,
    /// The last frame: its index, time and one frame at the fallback rate, in µs.
    last: Option<(u32, u32, u128)>,
}

impl TakeTiming {
    /// Before the first frame; `fallback` counts when the first frame's rate is invalid.
    pub fn new(fallback: FrameRate) -> Self {
        TakeTiming {
            fallback,
            clock: None,
            last: None,
        }
    }

    /// The time of frame `frame` (the next in order), whose frame time is
    /// `time`: µs from frame 0, or [`BuildError::TooLong`] past `u32::MAX` µs.
    pub fn next(&mut self, frame: u32, time: &FrameTime) -> Result<u32, BuildError> {
        let fallback = self.fallback;
        let clock = self.clock.get_or_insert_with(|| {
            FrameClock::new(if time.rate.is_valid() {
                time.rate
            } else {
                fallback
            })
        });
        let offset = clock.next(time).as_micros();
        let time_us = u32::try_from(offset).map_err(|_| BuildError::TooLong { frame })?;
        self.last = Some((frame, time_us, clock.frame_period().as_micros()));
        Ok(time_us)
    }

    /// Where the take loops, in µs from frame 0 (the end of its last frame).
    pub fn period(&self) -> Result<u32, BuildError> {
        let (frame, time_us, step) = self.last.ok_or(BuildError::NoFrames)?;
        u32::try_from(u128::from(time_us) + step).map_err(|_| BuildError::TooLong { frame })
    }
}

/// Builds the take image of `packets` into `buf` (at least [`image_len`] bytes)
/// and returns its length. The rule, one for the host and the firmware:
///
/// - every packet must be a valid face frame, else [`BuildError::Packet`] names
///   its index: no frame is ever dropped;
/// - frame times and the loop period are [`TakeTiming`]'s;
/// - a time or period past `u32::MAX` µs is [`BuildError::TooLong`] naming the frame.
pub fn build_image<'p, I>(
    buf: &mut [u8],
    name: &str,
    packets: I,
    fallback: FrameRate,
) -> Result<usize, BuildError>
where
    I: IntoIterator<Item = &'p [u8]>,
    I::IntoIter: Clone,
{
    let packets = packets.into_iter();
    let count = u32::try_from(packets.clone().count()).map_err(|_| BuildError::TooManyFrames)?;
    let mut writer = ImageWriter::new(buf, name, count).map_err(BuildError::Image)?;
    let mut timing = TakeTiming::new(fallback);
    for (frame, bytes) in (0..count).zip(packets) {
        let packet =
            Packet::new_checked(bytes).map_err(|error| BuildError::Packet { frame, error })?;
        let time_us = timing.next(frame, &packet.time())?;
        writer.push(time_us, bytes).map_err(BuildError::Image)?;
    }
    writer.finish(timing.period()?).map_err(BuildError::Image)
}

/// The bytes an image of `frame_count` frames holding `packet_bytes` bytes of packets needs.
pub fn image_len(frame_count: u32, packet_bytes: usize) -> usize {
    TakeHeader::entry_offset(frame_count) + packet_bytes
}

fn le32(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    if let Some(s) = b.get(at..at + 4) {
        w.copy_from_slice(s);
    }
    u32::from_le_bytes(w)
}
