//! The body of an LLV 1.1+ recording (FORMATS 3b), once gunzipped: u8 version
//! (6), u32 BE frame count, then per frame a u32 BE length and the raw packet.
//!
//! Zero-copy and alloc-free: [`Frames`] walks a body in memory and hands out
//! each packet as a slice of it. A reader that streams the body instead (the
//! host's, to keep memory to what a file really holds) uses the same steps,
//! [`header`] and [`frame_len`], on the bytes as they come. Errors name the
//! frame and the byte offset in the body. Packets are not decoded here.

use core::fmt;

use crate::packet::{MAX_LEN, MIN_LEN};

/// The body version LLV writes and reads.
pub const VERSION: u8 = 6;
/// Bytes before the first frame: version and frame count.
pub const HEADER_LEN: usize = 5;
/// Bytes of a frame's length prefix.
pub const PREFIX_LEN: usize = 4;

/// Why a body is not (or not all) a valid LLV recording.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LlvError {
    /// The body holds this many bytes, fewer than version and frame count.
    ShortHeader(usize),
    /// The version byte is not [`VERSION`].
    Version(u8),
    /// The body ends before frame `frame`'s length prefix is whole.
    EndsBeforeFrame {
        /// Frame index (0-based).
        frame: u32,
        /// Byte offset of its length prefix.
        offset: usize,
        /// Bytes of the prefix present (0: the body ends between frames).
        present: usize,
    },
    /// Frame `frame`'s length is outside the packet bounds (264..=774).
    BadLength {
        /// Frame index (0-based).
        frame: u32,
        /// Byte offset of its length prefix.
        offset: usize,
        /// The length it gives.
        len: u32,
    },
    /// The body ends inside frame `frame`'s packet.
    EndsInFrame {
        /// Frame index (0-based).
        frame: u32,
        /// Byte offset of its packet.
        offset: usize,
        /// The packet's length.
        len: usize,
        /// Bytes of it present.
        present: usize,
    },
    /// Bytes follow the last frame the header announced.
    Trailing {
        /// Byte offset after the last frame.
        offset: usize,
        /// How many bytes follow.
        len: usize,
    },
}

impl fmt::Display for LlvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LlvError::ShortHeader(n) => write!(
                f,
                "LLV recording of {n} bytes ends inside its header (version and frame count)"
            ),
            LlvError::Version(v) => write!(f, "LLV recording version {v}, expected {VERSION}"),
            LlvError::EndsBeforeFrame {
                frame,
                offset,
                present,
            } => write!(
                f,
                "frame {frame}: the recording ends at byte {offset} with {present} of the 4 length bytes"
            ),
            LlvError::BadLength { frame, offset, len } => write!(
                f,
                "frame {frame}: length at byte {offset}: {len} bytes, outside {MIN_LEN}..={MAX_LEN}"
            ),
            LlvError::EndsInFrame {
                frame,
                offset,
                len,
                present,
            } => write!(
                f,
                "frame {frame}: the recording ends in the packet at byte {offset} ({present} of {len} bytes)"
            ),
            LlvError::Trailing { offset, len } => {
                write!(f, "{len} bytes at byte {offset}, after the last frame")
            }
        }
    }
}

/// The frame count announced by the first [`HEADER_LEN`] bytes of a body.
/// Only a claim: a reader must not reserve memory from it.
pub fn header(bytes: &[u8]) -> Result<u32, LlvError> {
    let Some((&version, rest)) = bytes.split_first() else {
        return Err(LlvError::ShortHeader(0));
    };
    if version != VERSION {
        return Err(LlvError::Version(version));
    }
    let count = rest
        .first_chunk::<4>()
        .ok_or(LlvError::ShortHeader(bytes.len()))?;
    Ok(u32::from_be_bytes(*count))
}

/// The packet length in frame `frame`'s length prefix at byte `offset`, checked
/// against the packet bounds (so a reader never needs more than [`MAX_LEN`] bytes).
pub fn frame_len(prefix: [u8; PREFIX_LEN], frame: u32, offset: usize) -> Result<usize, LlvError> {
    let len = u32::from_be_bytes(prefix);
    match usize::try_from(len) {
        Ok(n) if (MIN_LEN..=MAX_LEN).contains(&n) => Ok(n),
        _ => Err(LlvError::BadLength { frame, offset, len }),
    }
}

/// One frame of a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame<'a> {
    /// Frame index (0-based).
    pub index: u32,
    /// Byte offset of the packet in the body.
    pub offset: usize,
    /// The raw packet (not decoded).
    pub packet: &'a [u8],
}

/// The frames of a whole body in memory, in order; after an error, nothing more.
#[derive(Clone, Debug)]
pub struct Frames<'a> {
    body: &'a [u8],
    at: usize,
    next: u32,
    count: u32,
    done: bool,
}

impl<'a> Frames<'a> {
    /// Checks the header of `body` and walks its frames.
    pub fn new(body: &'a [u8]) -> Result<Frames<'a>, LlvError> {
        Ok(Frames {
            body,
            at: HEADER_LEN,
            next: 0,
            count: header(body)?,
            done: false,
        })
    }

    /// The frame count the header announces.
    pub fn announced(&self) -> u32 {
        self.count
    }

    fn step(&mut self) -> Option<Result<Frame<'a>, LlvError>> {
        let rest = self.body.get(self.at..).unwrap_or_default();
        if self.next == self.count {
            return (!rest.is_empty()).then_some(Err(LlvError::Trailing {
                offset: self.at,
                len: rest.len(),
            }));
        }
        let (frame, offset) = (self.next, self.at);
        let Some((prefix, after)) = rest.split_first_chunk::<PREFIX_LEN>() else {
            return Some(Err(LlvError::EndsBeforeFrame {
                frame,
                offset,
                present: rest.len(),
            }));
        };
        let len = match frame_len(*prefix, frame, offset) {
            Ok(len) => len,
            Err(e) => return Some(Err(e)),
        };
        let start = offset + PREFIX_LEN;
        let Some(packet) = after.get(..len) else {
            return Some(Err(LlvError::EndsInFrame {
                frame,
                offset: start,
                len,
                present: after.len(),
            }));
        };
        self.at = start + len;
        self.next += 1;
        Some(Ok(Frame {
            index: frame,
            offset: start,
            packet,
        }))
    }
}

impl<'a> Iterator for Frames<'a> {
    type Item = Result<Frame<'a>, LlvError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = self.step();
        self.done = !matches!(item, Some(Ok(_)));
        item
    }
}
