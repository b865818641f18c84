//! Where the player gets its frames from.
//!
//! [`FrameSource`] is the seam between the player and storage: today the
//! take image built into the firmware ([`ImageSource`]), later a take in NOR
//! flash. Reads are async so a flash-backed source can await its driver.

/// The largest packet the project handles (FORMATS.md, section 1).
pub const MAX_PACKET: usize = 774;

/// One frame's timing and size; its bytes are in the caller's buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Frame {
    /// Offset from frame 0, in µs (absolute, not a delta).
    pub time_us: u32,
    /// Packet length in bytes (at most [`MAX_PACKET`]).
    pub len: usize,
}

/// A stored take, frame by frame.
// The box runs on a single-threaded executor: futures need not be Send.
#[allow(async_fn_in_trait)]
pub trait FrameSource {
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
        buf: &mut [u8; MAX_PACKET],
    ) -> Result<Frame, Self::Error>;
}
