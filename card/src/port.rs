//! The card's blocks, for the file system and for the player.
//!
//! Every read and write of the card awaits the board's async driver
//! ([`Blocks`]) block by block, so a card that takes 100 ms for a block (or
//! an upload that writes 30 MB) holds no one but the task that asked: the
//! executor runs the player meanwhile.
//!
//! The port ([`CardPort`]) owns the driver and one block buffer (the block
//! read or written last, kept for the next read of it).

use core::fmt;

use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::mutex::Mutex;

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

/// How long a card may take to come up (the SD specification's
/// initialisation timeout for ACMD41): a driver gives up on a card still
/// busy after this and reports it with [`STAYS_BUSY`].
pub const POWER_UP_LIMIT: embassy_time::Duration = embassy_time::Duration::from_secs(1);

/// What [`Blocks::unusable`] says of a card that stays busy past
/// [`POWER_UP_LIMIT`].
pub const STAYS_BUSY: &str =
    "it stays busy past its 1 s power-up (damaged, or a weak supply at the socket)";

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
pub trait CardDriver: Blocks + 'static {}

impl<T: Blocks + 'static> CardDriver for T {}

/// How long the answer of a [`CardPort::look`] stands for the next
/// [`CardPort::present`] (longer than the library is held by an erase).
pub const LOOK_STANDS: embassy_time::Duration = embassy_time::Duration::from_secs(5);

/// The port's state: the driver, the block read last, the card's size.
struct PortState<B> {
    blocks: B,
    fetched: Option<u32>,
    block: BlockBuf,
    size: u32,
    /// The driver's answer to the last [`CardPort::look`], and when.
    looked: Option<(embassy_time::Instant, Option<u64>)>,
}

/// The card slot: its driver and the block fetched last.
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
                looked: None,
            }),
        }
    }

    /// Whether a card is in: the answer of a [`CardPort::look`] made within
    /// [`LOOK_STANDS`], else the driver's.
    pub async fn present(&self) -> bool {
        let mut s = self.state.lock().await;
        let size = match s.looked.take() {
            Some((at, size)) if at.elapsed() < LOOK_STANDS => size,
            _ => s.blocks.present().await,
        };
        s.size = size.map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX));
        if size.is_none() {
            s.fetched = None;
        }
        size.is_some()
    }

    /// Asks the driver whether a card is in (initialising one that just came
    /// in: up to its power-up, [`POWER_UP_LIMIT`]) for the next
    /// [`CardPort::present`]: the box looks before it takes the library's
    /// lock, so the library is not held through a card's power-up.
    pub async fn look(&self) {
        let mut s = self.state.lock().await;
        let size = s.blocks.present().await;
        s.looked = Some((embassy_time::Instant::now(), size));
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

    /// The card's size in blocks, as the driver said when last asked.
    pub async fn blocks(&self) -> u32 {
        self.state.lock().await.size
    }

    /// Writes `data` to block `block`, awaiting the card as long as it
    /// takes, then lets the other tasks run once (a driver that completes a
    /// write at once, as a file does, would otherwise keep an upload's
    /// chunk in one poll of the executor).
    pub async fn write(&self, block: u32, data: &[u8; BLOCK]) -> Result<(), BlockError> {
        {
            let mut guard = self.state.lock().await;
            let s = &mut *guard;
            s.fetched = None;
            s.block.0 = *data;
            s.blocks.write(u64::from(block), &s.block).await?;
            s.fetched = Some(block);
        }
        embassy_futures::yield_now().await;
        Ok(())
    }

    /// Writes block `block` as `f` fills it (from zeros, nothing read
    /// first), then lets the other tasks run once, as [`CardPort::write`].
    pub async fn fill(
        &self,
        block: u32,
        f: impl FnOnce(&mut [u8; BLOCK]),
    ) -> Result<(), BlockError> {
        {
            let mut guard = self.state.lock().await;
            let s = &mut *guard;
            s.fetched = None;
            s.block.0 = [0; BLOCK];
            f(&mut s.block.0);
            s.blocks.write(u64::from(block), &s.block).await?;
            s.fetched = Some(block);
        }
        embassy_futures::yield_now().await;
        Ok(())
    }

    /// Runs `f` on block `block` and writes what it made of it back.
    pub async fn modify<R>(
        &self,
        block: u32,
        f: impl FnOnce(&mut [u8; BLOCK]) -> R,
    ) -> Result<R, BlockError> {
        let mut guard = self.state.lock().await;
        let s = &mut *guard;
        if s.fetched != Some(block) {
            s.fetched = None;
            s.blocks.read(u64::from(block), &mut s.block).await?;
            s.fetched = Some(block);
        }
        let r = f(&mut s.block.0);
        s.fetched = None;
        s.blocks.write(u64::from(block), &s.block).await?;
        s.fetched = Some(block);
        Ok(r)
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
