//! A take in the box's store as a [`FrameSource`]: each frame is read from
//! flash under the store's mutex (held only for that read), its subject
//! renamed when the settings ask for it, and the playing position recorded
//! for `Status`.

use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::mutex::Mutex;
use embedded_storage_async::nor_flash::NorFlash;
use llv_box_store::{Store, StoreError, TakeReader};
use llv_core::packet::FaceFrame;

use crate::device::BoxState;
use crate::source::{Frame, FrameSource, MAX_PACKET};

/// The store shared by the control session and the player.
pub type SharedStore<F> = Mutex<CriticalSectionRawMutex, Store<F>>;

/// Why a stored frame could not be played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum StoredError {
    /// The take is gone (deleted or replaced) or unreadable.
    Read,
    /// The renamed packet does not decode or no longer fits a packet.
    Rename,
}

/// Frames of a stored take.
pub struct StoreSource<'a, F> {
    store: &'a SharedStore<F>,
    reader: TakeReader,
    state: &'a BoxState,
}

impl<'a, F: NorFlash> StoreSource<'a, F> {
    /// Plays `reader`'s take from `store`, reporting progress into `state`.
    pub fn new(store: &'a SharedStore<F>, reader: TakeReader, state: &'a BoxState) -> Self {
        StoreSource {
            store,
            reader,
            state,
        }
    }
}

impl<F: NorFlash> FrameSource for StoreSource<'_, F> {
    type Error = StoredError;

    fn frame_count(&self) -> u32 {
        self.reader.header().frame_count
    }

    fn period_us(&self) -> u32 {
        self.reader.header().period_us
    }

    async fn read_frame(
        &mut self,
        index: u32,
        buf: &mut [u8; MAX_PACKET],
    ) -> Result<Frame, StoredError> {
        let mut raw = [0u8; MAX_PACKET];
        let (entry, len) = {
            let mut store = self.store.lock().await;
            let read: Result<_, StoreError<F::Error>> =
                self.reader.packet(&mut store, index, &mut raw).await;
            let (entry, packet) = read.map_err(|_| StoredError::Read)?;
            (entry, packet.len())
        };
        self.state.frame_read(index);
        let len = match self.state.subject() {
            Some(subject) => {
                let mut frame = FaceFrame::decode(&raw[..len]).map_err(|_| StoredError::Rename)?;
                frame.subject = subject.as_str();
                frame.encode(buf).map_err(|_| StoredError::Rename)?
            }
            None => {
                buf[..len].copy_from_slice(&raw[..len]);
                len
            }
        };
        Ok(Frame {
            time_us: entry.time_us,
            len,
        })
    }
}
