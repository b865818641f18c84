//! A ring of whole frames in RAM: the read-ahead between storage and the
//! player, so a flash erase or a slow read never delays a frame that is
//! already buffered.
//!
//! Each frame is stored as its time (u32 LE), its length (u16 LE) and its
//! bytes, wrapping around the end of the buffer.

/// Bytes of a frame's record before its packet.
pub const HEAD: usize = 6;

/// Frames in `N` bytes, first in first out.
pub struct FrameRing<const N: usize> {
    buf: [u8; N],
    /// Where the oldest frame starts.
    start: usize,
    /// Bytes in use.
    used: usize,
    /// Frames held.
    frames: usize,
}

impl<const N: usize> FrameRing<N> {
    /// An empty ring.
    pub const fn new() -> Self {
        FrameRing {
            buf: [0; N],
            start: 0,
            used: 0,
            frames: 0,
        }
    }

    /// Frames held.
    pub fn len(&self) -> usize {
        self.frames
    }

    /// Whether no frame is held.
    pub fn is_empty(&self) -> bool {
        self.frames == 0
    }

    /// Whether a packet of `len` bytes fits now.
    pub fn fits(&self, len: usize) -> bool {
        self.used + HEAD + len <= N
    }

    /// Drops every frame.
    pub fn clear(&mut self) {
        self.start = 0;
        self.used = 0;
        self.frames = 0;
    }

    /// Appends a frame; false (and nothing changes) if it does not fit.
    pub fn push(&mut self, time_us: u32, packet: &[u8]) -> bool {
        let Ok(len) = u16::try_from(packet.len()) else {
            return false;
        };
        if !self.fits(packet.len()) {
            return false;
        }
        let mut at = (self.start + self.used) % N;
        let mut head = [0u8; HEAD];
        head[..4].copy_from_slice(&time_us.to_le_bytes());
        head[4..].copy_from_slice(&len.to_le_bytes());
        at = self.copy_in(at, &head);
        self.copy_in(at, packet);
        self.used += HEAD + packet.len();
        self.frames += 1;
        true
    }

    /// Takes the oldest frame into `out`; returns its time and length.
    /// `None` if the ring is empty or `out` is too small (then nothing changes).
    pub fn pop(&mut self, out: &mut [u8]) -> Option<(u32, usize)> {
        if self.frames == 0 {
            return None;
        }
        let mut head = [0u8; HEAD];
        let at = self.copy_out(self.start, &mut head);
        let time_us = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        let len = usize::from(u16::from_le_bytes([head[4], head[5]]));
        let slot = out.get_mut(..len)?;
        let end = self.copy_out(at, slot);
        self.start = end;
        self.used -= HEAD + len;
        self.frames -= 1;
        if self.frames == 0 {
            self.start = 0;
        }
        Some((time_us, len))
    }

    /// The oldest frame's time, without taking it.
    pub fn peek_time(&self) -> Option<u32> {
        if self.frames == 0 {
            return None;
        }
        let mut time = [0u8; 4];
        self.copy_out(self.start, &mut time);
        Some(u32::from_le_bytes(time))
    }

    /// Copies `bytes` in at `at`, wrapping; returns where the copy ended.
    fn copy_in(&mut self, at: usize, bytes: &[u8]) -> usize {
        let first = bytes.len().min(N - at);
        self.buf[at..at + first].copy_from_slice(&bytes[..first]);
        self.buf[..bytes.len() - first].copy_from_slice(&bytes[first..]);
        (at + bytes.len()) % N
    }

    /// Copies out into `bytes` from `at`, wrapping; returns where the copy ended.
    fn copy_out(&self, at: usize, bytes: &mut [u8]) -> usize {
        let first = bytes.len().min(N - at);
        bytes[..first].copy_from_slice(&self.buf[at..at + first]);
        let rest = bytes.len() - first;
        bytes[first..].copy_from_slice(&self.buf[..rest]);
        (at + bytes.len()) % N
    }
}

impl<const N: usize> Default for FrameRing<N> {
    fn default() -> Self {
        Self::new()
    }
}
