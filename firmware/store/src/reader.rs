//! Reading a stored take frame by frame, for the player.

use embedded_storage_async::nor_flash::NorFlash;
use llv_core::packet::MAX_LEN;
use llv_core::take::{FrameEntry, TakeHeader, ENTRY_LEN};

use crate::layout::IMAGE_AT;
use crate::store::{Store, StoreError};

/// A stored take's frames, read straight from flash. Reading frames in order
/// (and restarting at 0 for a loop) costs one entry read and one packet read each.
#[derive(Clone, Debug)]
pub struct TakeReader {
    header: TakeHeader,
    image_at: u32,
    seq: u32,
    /// The next frame in order and its packet's offset in the image.
    next: (u32, u32),
}

impl<F: NorFlash> Store<F> {
    /// A reader for the take named `name`.
    pub fn reader(&self, name: &str) -> Result<TakeReader, StoreError<F::Error>> {
        let e = self.find(name).ok_or(StoreError::NotFound)?;
        Ok(TakeReader {
            image_at: self.block_addr(e.first_block) + IMAGE_AT,
            seq: e.begin.seq,
            next: (0, e.header.packets_offset() as u32),
            header: e.header.clone(),
        })
    }
}

impl TakeReader {
    /// The take's header (name, frame count, period, CRC).
    pub fn header(&self) -> &TakeHeader {
        &self.header
    }

    /// Frame `index`'s entry; `NotFound` once the take was deleted or replaced.
    pub async fn entry<F: NorFlash>(
        &self,
        store: &mut Store<F>,
        index: u32,
    ) -> Result<FrameEntry, StoreError<F::Error>> {
        if !store.is_current(self.seq) {
            return Err(StoreError::NotFound);
        }
        if index >= self.header.frame_count {
            return Err(StoreError::NotFound);
        }
        let mut raw = [0u8; ENTRY_LEN];
        let at = TakeHeader::entry_offset(index) as u32;
        store.read(self.image_at + at, &mut raw).await?;
        Ok(FrameEntry::parse(&raw, index)?)
    }

    /// Frame `index`'s entry and packet, read into `buf`.
    pub async fn packet<'b, F: NorFlash>(
        &mut self,
        store: &mut Store<F>,
        index: u32,
        buf: &'b mut [u8; MAX_LEN],
    ) -> Result<(FrameEntry, &'b [u8]), StoreError<F::Error>> {
        if index != self.next.0 {
            // Out of order: walk the entries to find the offset, from the
            // frame read next when going forward, else from the start.
            let (from, mut offset) = if index > self.next.0 {
                self.next
            } else {
                (0, self.header.packets_offset() as u32)
            };
            for i in from..index {
                offset += u32::from(self.entry(store, i).await?.len);
            }
            self.next = (index, offset);
        }
        let entry = self.entry(store, index).await?;
        let packet = &mut buf[..usize::from(entry.len)];
        store.read(self.image_at + self.next.1, packet).await?;
        self.next = (index + 1, self.next.1 + u32::from(entry.len));
        Ok((entry, packet))
    }
}
