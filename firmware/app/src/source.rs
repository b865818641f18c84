//! Where the player gets its frames from.
//!
//! [`FrameSource`] is the seam between the player and storage: a take image in
//! memory ([`ImageSource`], the built-in take) or a take in the store
//! (`crate::stored`). Reads are async so a flash-backed source can await its driver.

use llv_core::packet::MAX_LEN;
use llv_core::take::{FrameEntry, TakeError, TakeHeader, TakeImage};

/// One frame's timing and size; its bytes are in the caller's buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Frame {
    /// Offset from frame 0, in µs (absolute, not a delta).
    pub time_us: u32,
    /// Packet length in bytes (at most [`MAX_LEN`]).
    pub len: usize,
}

/// A stored take, frame by frame.
// The box runs on a single-threaded executor: futures need not be Send.
#[allow(async_fn_in_trait)]
pub trait FrameSource {
    /// Why a frame could not be read.
    type Error;

    /// Number of frames in the take.
    fn frame_count(&self) -> u32;

    /// From frame 0 to where a loop restarts, in µs.
    fn period_us(&self) -> u32;

    /// Copies frame `index`'s packet into `buf` and returns its timing and
    /// length. Sources may be faster when frames are read in order.
    async fn read_frame(
        &mut self,
        index: u32,
        buf: &mut [u8; MAX_LEN],
    ) -> Result<Frame, Self::Error>;

    /// Frame `index`'s time from frame 0, in µs, without its packet (a chase
    /// looks up where to go on). Cheapest for the frame a sequential read
    /// comes to next.
    async fn frame_time(&mut self, index: u32) -> Result<u32, Self::Error>;
}

/// A take image held in memory (the built-in take, or one in memory-mapped
/// flash), checked once with its CRC by [`ImageSource::new`].
pub struct ImageSource<'a> {
    image: TakeImage<'a>,
    /// Index and byte offset of the frame a sequential read comes to next.
    next: (u32, usize),
}

impl<'a> ImageSource<'a> {
    /// Parses and CRC-checks `bytes` as a take image.
    pub fn new(bytes: &'a [u8]) -> Result<Self, TakeError> {
        let image = TakeImage::parse(bytes)?;
        let next = (0, image.header().packets_offset());
        Ok(ImageSource { image, next })
    }

    /// The take's header.
    pub fn header(&self) -> &TakeHeader {
        self.image.header()
    }

    fn entry(&self, index: u32) -> Result<FrameEntry, TakeError> {
        let bytes = self.image.as_bytes();
        let at = TakeHeader::entry_offset(index);
        FrameEntry::parse(bytes.get(at..).unwrap_or_default(), index)
    }

    /// Byte offset of frame `index`'s packet.
    fn packet_offset(&self, index: u32) -> Result<usize, TakeError> {
        if index == self.next.0 {
            return Ok(self.next.1);
        }
        let mut at = self.header().packets_offset();
        for i in 0..index {
            at += usize::from(self.entry(i)?.len);
        }
        Ok(at)
    }
}

impl FrameSource for ImageSource<'_> {
    type Error = TakeError;

    fn frame_count(&self) -> u32 {
        self.header().frame_count
    }

    fn period_us(&self) -> u32 {
        self.header().period_us
    }

    async fn read_frame(
        &mut self,
        index: u32,
        buf: &mut [u8; MAX_LEN],
    ) -> Result<Frame, TakeError> {
        if index >= self.frame_count() {
            return Err(TakeError::FrameCount);
        }
        let entry = self.entry(index)?;
        let len = usize::from(entry.len);
        let at = self.packet_offset(index)?;
        let packet = self
            .image
            .as_bytes()
            .get(at..at + len)
            .filter(|_| len <= MAX_LEN)
            .ok_or(TakeError::Inconsistent)?;
        buf[..len].copy_from_slice(packet);
        self.next = if index + 1 == self.frame_count() {
            (0, self.header().packets_offset())
        } else {
            (index + 1, at + len)
        };
        Ok(Frame {
            time_us: entry.time_us,
            len,
        })
    }

    async fn frame_time(&mut self, index: u32) -> Result<u32, TakeError> {
        if index >= self.frame_count() {
            return Err(TakeError::FrameCount);
        }
        Ok(self.entry(index)?.time_us)
    }
}
