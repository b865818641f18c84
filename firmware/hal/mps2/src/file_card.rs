//! A microSD card for tests under QEMU: a FAT image in a host file
//! (semihosting), 512-byte blocks, with what a real card does to a player:
//!
//! - read stalls: with `stall` set, every block read in the first `stall`
//!   of each `every` waits until that stall is over (a card busy with its
//!   own housekeeping), yielding meanwhile so the rest of the box runs (a
//!   yield, not an embassy-time timer: the card library also runs reads to
//!   their end in place, outside the executor, where a timer cannot wake);
//! - removal: while a file named like the image plus `.out` exists on the
//!   host, the slot is empty (the test creates it to pull the card out and
//!   deletes it to put the card back); looked at no more than every
//!   [`LOOK_EVERY`].
//!
//! Reads and writes reach the file at once: QEMU killed in the middle of an
//! upload is a power cut.

use core::ffi::CStr;

use embassy_time::{Duration, Instant};
use llv_card::{BlockBuf, BlockError, Blocks, BLOCK};
use semihosting::fs::{File, OpenOptions};
use semihosting::io::{Read, Seek, SeekFrom, Write};

/// How often the removal file is looked for.
pub const LOOK_EVERY: Duration = Duration::from_millis(50);

/// Injected read stalls: `stall` at the start of every `every`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stalls {
    /// How long a stall lasts.
    pub stall: Duration,
    /// How often one starts.
    pub every: Duration,
}

/// The card image.
pub struct FileCard<'p> {
    file: File,
    removed_path: &'p CStr,
    blocks: u64,
    stalls: Option<Stalls>,
    /// When the removal file was last looked for, and whether it was there.
    looked: Option<(Instant, bool)>,
}

impl<'p> FileCard<'p> {
    /// Opens the image `path`; the slot is empty while `removed_path` exists.
    pub fn open(path: &CStr, removed_path: &'p CStr, stalls: Option<Stalls>) -> Option<Self> {
        let mut file = OpenOptions::new().read(true).write(true).open(path).ok()?;
        let len = file.seek(SeekFrom::End(0)).ok()?;
        Some(FileCard {
            file,
            removed_path,
            blocks: len / BLOCK as u64,
            stalls,
            looked: None,
        })
    }

    fn inserted(&mut self) -> bool {
        let now = Instant::now();
        match self.looked {
            Some((at, inserted)) if now.saturating_duration_since(at) < LOOK_EVERY => inserted,
            _ => {
                let inserted = File::open(self.removed_path).is_err();
                self.looked = Some((now, inserted));
                inserted
            }
        }
    }

    fn seek(&mut self, block: u64) -> Result<(), BlockError> {
        if !self.inserted() {
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

impl Blocks for FileCard<'_> {
    async fn present(&mut self) -> Option<u64> {
        self.looked = None;
        self.inserted().then_some(self.blocks)
    }

    async fn read(&mut self, block: u64, buf: &mut BlockBuf) -> Result<(), BlockError> {
        if let Some(Stalls { stall, every }) = self.stalls {
            let now = Instant::now().as_ticks();
            let into = now % every.as_ticks().max(1);
            if into < stall.as_ticks() {
                let until = Instant::from_ticks(now - into + stall.as_ticks());
                core::future::poll_fn(|cx| {
                    if Instant::now() >= until {
                        return core::task::Poll::Ready(());
                    }
                    cx.waker().wake_by_ref();
                    core::task::Poll::Pending
                })
                .await;
            }
        }
        self.seek(block)?;
        self.file
            .read_exact(&mut buf.0)
            .map_err(|_| BlockError::Failed)
    }

    async fn write(&mut self, block: u64, buf: &BlockBuf) -> Result<(), BlockError> {
        self.seek(block)?;
        self.file.write_all(&buf.0).map_err(|_| BlockError::Failed)
    }
}
