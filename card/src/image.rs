//! A card image in a host file (`std` only): what `llv card` writes and
//! reads, and the host tests' card. The same [`Card`] code as on the box
//! runs over it, through a [`Port`] served from the file.

use std::boxed::Box;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};

use crate::card::{Card, Mode, Scanned};
use crate::port::{BlockBuf, BlockError, Blocks, CardPort, BLOCK};

/// A card image file; `inserted` false makes it a slot with no card.
pub struct ImageFile {
    file: File,
    blocks: u64,
    /// Whether the card is in the slot.
    pub inserted: bool,
}

impl ImageFile {
    /// The image in `file` (whole 512-byte blocks): a file, or a card's
    /// block device (whose length only a seek to its end tells).
    pub fn new(mut file: File) -> std::io::Result<Self> {
        let blocks = file.seek(SeekFrom::End(0))? / BLOCK as u64;
        Ok(ImageFile {
            file,
            blocks,
            inserted: true,
        })
    }

    /// Its size in blocks.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    fn at(&mut self, block: u64) -> Result<(), BlockError> {
        if !self.inserted {
            return Err(BlockError::Removed);
        }
        if block >= self.blocks {
            return Err(BlockError::Failed);
        }
        self.file
            .seek(SeekFrom::Start(block * BLOCK as u64))
            .map(drop)
            .map_err(|_| BlockError::Failed)
    }
}

impl Blocks for ImageFile {
    async fn present(&mut self) -> Option<u64> {
        self.inserted.then_some(self.blocks)
    }

    async fn read(&mut self, block: u64, buf: &mut BlockBuf) -> Result<(), BlockError> {
        self.at(block)?;
        self.file
            .read_exact(&mut buf.0)
            .map_err(|_| BlockError::Failed)
    }

    async fn write(&mut self, block: u64, buf: &BlockBuf) -> Result<(), BlockError> {
        self.at(block)?;
        self.file.write_all(&buf.0).map_err(|_| BlockError::Failed)
    }
}

/// Mounts the card in `image` (for `mode`), scans it through (`seen` hears
/// every file's verdict), runs `body` on it and closes it (writing what it
/// left pending). Blocks the thread; for hosts (`llv card`, tests) only: the
/// slot lives as long as the process (about 1 KiB per call).
pub fn on_image<R>(
    image: ImageFile,
    mode: Mode,
    mut seen: impl FnMut(&Scanned),
    body: impl AsyncFnOnce(&mut Card<ImageFile>) -> R,
) -> R {
    let port: &'static CardPort<ImageFile> = Box::leak(Box::new(CardPort::new(image)));
    embassy_futures::block_on(async {
        let mut card = Card::with_mode(port, mode);
        loop {
            let scanned = card.step().await;
            seen(&scanned);
            if matches!(scanned, Scanned::Done | Scanned::Idle) && !card.scanning() {
                break;
            }
        }
        let result = body(&mut card).await;
        card.close().await;
        result
    })
}
