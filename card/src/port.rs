//! The card's blocks, for the file system and for the player.
//!
//! The FAT library (embedded-sdmmc) is blocking: it asks its block device
//! ([`Dev`]) for a block and wants it at once, so its calls run the board's
//! async driver ([`Blocks`]) to the end in place, the executor waiting with
//! them. Only a mount, the folder's listing, an upload and a delete go that
//! way. The player's and the scan's reads do not: they follow a take's
//! clusters themselves ([`crate::card`]) and await each block with
//! [`CardPort::read_with`], so a card that takes 100 ms for a block holds no
//! one but the reader.
//!
//! The port ([`CardPort`]) owns the driver and one block buffer (the block
//! read last, kept for the next read of it); the card and its device share it.

use core::fmt;

use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::mutex::Mutex;
use embedded_sdmmc::{Block, BlockCount, BlockDevice, BlockIdx};

/// Bytes of a card block.
pub const BLOCK: usize = 512;

/// A block's bytes, aligned to 4 (SD drivers move words by DMA).
#[derive(Clone)]
#[repr(C, align(4))]
pub struct BlockBuf(pub [u8; BLOCK]);

/// Why a block could not be read or written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum BlockError {
    /// No card in the slot (pulled out, or never put in).
    Removed,
    /// The card did not answer, or answered with an error.
    Failed,
}

impl fmt::Display for BlockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BlockError::Removed => "no card",
            BlockError::Failed => "card read or write failed",
        })
    }
}

impl core::error::Error for BlockError {}

/// A board's card driver: 512-byte blocks, async.
#[allow(async_fn_in_trait, reason = "the box's executor is single-threaded")]
pub trait Blocks {
    /// The card's size in blocks if one is in (initialising it if it just
    /// came in), else `None`.
    async fn present(&mut self) -> Option<u64>;
    /// Reads block `block` into `buf`.
    async fn read(&mut self, block: u64, buf: &mut BlockBuf) -> Result<(), BlockError>;
    /// Writes `buf` to block `block`.
    async fn write(&mut self, block: u64, buf: &BlockBuf) -> Result<(), BlockError>;
    /// Why the card in the slot cannot be used, when the last
    /// [`Blocks::present`] found one that did not come up (one that stays
    /// busy past its power-up deadline); `None` otherwise, and for a driver
    /// that cannot tell.
    fn unusable(&self) -> Option<&'static str> {
        None
    }
}

/// A card driver the box can keep: [`Blocks`] that live as long as the box.
pub trait Slot: Blocks + 'static {}

impl<T: Blocks + 'static> Slot for T {}

/// The port's state: the driver, the block read last, the card's size.
struct PortState<B> {
    blocks: B,
    fetched: Option<u32>,
    block: BlockBuf,
    size: u32,
}

/// The card slot: its driver and the block fetched last, shared by the
/// card's library and its file system's device.
pub struct CardPort<B> {
    state: Mutex<CriticalSectionRawMutex, PortState<B>>,
}

impl<B: Blocks> CardPort<B> {
    /// A port over the driver `blocks`.
    pub const fn new(blocks: B) -> Self {
        CardPort {
            state: Mutex::new(PortState {
                blocks,
                fetched: None,
                block: BlockBuf([0; BLOCK]),
                size: 0,
            }),
        }
    }

    /// Whether a card is in (asks the driver).
    pub async fn present(&self) -> bool {
        let mut s = self.state.lock().await;
        let size = s.blocks.present().await;
        s.size = size.map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX));
        if size.is_none() {
            s.fetched = None;
        }
        size.is_some()
    }

    /// Why the card in the slot cannot be used, if the driver says so
    /// ([`Blocks::unusable`]).
    pub async fn unusable(&self) -> Option<&'static str> {
        self.state.lock().await.blocks.unusable()
    }

    /// Whether a card is in and answers: the driver's word, and a fresh read
    /// of block 0 (a slot without a card-detect pin only finds a card gone
    /// when it reads).
    pub async fn answers(&self) -> bool {
        if !self.present().await {
            return false;
        }
        let mut guard = self.state.lock().await;
        let s = &mut *guard;
        s.fetched = None;
        let read = s.blocks.read(0, &mut s.block).await;
        if read.is_ok() {
            s.fetched = Some(0);
        }
        read.is_ok()
    }

    /// Runs `f` on block `block` (read from the card unless it is the
    /// block read last), awaiting the card as long as it takes.
    pub async fn read_with<R>(
        &self,
        block: u32,
        f: impl FnOnce(&[u8; BLOCK]) -> R,
    ) -> Result<R, BlockError> {
        let mut guard = self.state.lock().await;
        let s = &mut *guard;
        if s.fetched != Some(block) {
            s.fetched = None;
            s.blocks.read(u64::from(block), &mut s.block).await?;
            s.fetched = Some(block);
        }
        Ok(f(&s.block.0))
    }
}

/// The block device the file system sees: the port's (see the module docs).
pub struct Dev<B: 'static> {
    port: &'static CardPort<B>,
}

impl<B: Blocks> Dev<B> {
    /// The device of `port`.
    pub fn new(port: &'static CardPort<B>) -> Self {
        Dev { port }
    }

    fn with<R>(
        &self,
        f: impl FnOnce(&mut PortState<B>) -> Result<R, BlockError>,
    ) -> Result<R, BlockError> {
        // The card's library never holds the port while it runs the file
        // system, so the lock is free whenever the file system asks.
        let mut guard = self.port.state.try_lock().map_err(|_| BlockError::Failed)?;
        f(&mut guard)
    }
}

impl<B: Blocks> BlockDevice for Dev<B> {
    type Error = BlockError;

    fn read(&self, blocks: &mut [Block], start: BlockIdx) -> Result<(), BlockError> {
        self.with(|s| {
            for (i, out) in blocks.iter_mut().enumerate() {
                let at = start.0.wrapping_add(i as u32);
                if s.fetched != Some(at) {
                    s.fetched = None;
                    embassy_futures::block_on(s.blocks.read(u64::from(at), &mut s.block))?;
                    s.fetched = Some(at);
                }
                out.contents = s.block.0;
            }
            Ok(())
        })
    }

    fn write(&self, blocks: &[Block], start: BlockIdx) -> Result<(), BlockError> {
        self.with(|s| {
            for (i, block) in blocks.iter().enumerate() {
                let at = start.0.wrapping_add(i as u32);
                s.block.0 = block.contents;
                s.fetched = None;
                embassy_futures::block_on(s.blocks.write(u64::from(at), &s.block))?;
                s.fetched = Some(at);
            }
            Ok(())
        })
    }

    fn num_blocks(&self) -> Result<BlockCount, BlockError> {
        self.with(|s| Ok(BlockCount(s.size)))
    }
}

/// A slot that never has a card (a board without one, tests).
pub struct NoCard;

impl Blocks for NoCard {
    async fn present(&mut self) -> Option<u64> {
        None
    }

    async fn read(&mut self, _: u64, _: &mut BlockBuf) -> Result<(), BlockError> {
        Err(BlockError::Removed)
    }

    async fn write(&mut self, _: u64, _: &BlockBuf) -> Result<(), BlockError> {
        Err(BlockError::Removed)
    }
}

/// A slot that may have no driver (a board started without a card): empty.
impl<B: Blocks> Blocks for Option<B> {
    async fn present(&mut self) -> Option<u64> {
        match self {
            Some(b) => b.present().await,
            None => None,
        }
    }

    async fn read(&mut self, block: u64, buf: &mut BlockBuf) -> Result<(), BlockError> {
        match self {
            Some(b) => b.read(block, buf).await,
            None => Err(BlockError::Removed),
        }
    }

    async fn write(&mut self, block: u64, buf: &BlockBuf) -> Result<(), BlockError> {
        match self {
            Some(b) => b.write(block, buf).await,
            None => Err(BlockError::Removed),
        }
    }

    fn unusable(&self) -> Option<&'static str> {
        self.as_ref().and_then(Blocks::unusable)
    }
}
