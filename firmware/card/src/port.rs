//! The card's blocks as the file system reads them.
//!
//! The FAT driver polls a block device ([`Port`], hadris's poll-based async
//! contract); a board's card driver is a plain async one ([`Blocks`]:
//! embassy-stm32's SDMMC, the QEMU board's image file). A worker ([`serve`])
//! runs the driver's calls and hands each 512-byte block over through a
//! [`Link`], one block at a time, in one buffer the two sides take turns on.
//! The worker also watches whether a card is in: a port with no card has no
//! blocks and every call fails with [`BlockError::Removed`].
//!
//! A request whose future is dropped (the player gave up waiting for a card
//! stalled by its own housekeeping) is forgotten: the worker finishes the
//! block and the next request takes its turn.

use core::cell::RefCell;
use core::fmt;
use core::task::{Context, Poll};

use embassy_futures::select::{select, Either};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::blocking_mutex::Mutex as BlockingMutex;
use embassy_sync::mutex::Mutex;
use embassy_sync::waitqueue::WakerRegistration;
use embassy_time::{Duration, Timer};
use hadris_io::{Error, ErrorKind, ErrorType};
use hadris_storage::async_::BlockDevice;
use hadris_storage::{BlockIndex, BlockSize};

/// Bytes of a card block.
pub const BLOCK: usize = 512;

const BLOCK_SIZE: BlockSize = match BlockSize::new(BLOCK as u32) {
    Some(size) => size,
    None => panic!("512 is a block size"),
};

/// How often an idle worker asks the driver whether a card is in.
pub const PRESENCE_EVERY: Duration = Duration::from_millis(200);

/// Why a block could not be read or written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum BlockError {
    /// No card is in (pulled out, or never inserted).
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

/// A board's card: 512-byte blocks, async.
#[allow(async_fn_in_trait, reason = "the box's executor is single-threaded")]
pub trait Blocks {
    /// Whether a card is in and answers (initialising it if it was not);
    /// its blocks when it is.
    async fn present(&mut self) -> Option<u64>;
    /// Reads block `block`.
    async fn read(&mut self, block: u64, buf: &mut [u8; BLOCK]) -> Result<(), BlockError>;
    /// Writes block `block`.
    async fn write(&mut self, block: u64, buf: &[u8; BLOCK]) -> Result<(), BlockError>;
}

/// What the worker is asked to do.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Job {
    Idle,
    /// Posted: block, and whether it is a write (its bytes are in the buffer).
    Posted {
        seq: u32,
        block: u64,
        write: bool,
    },
    /// The worker is on it.
    Taken {
        seq: u32,
    },
    /// Finished.
    Done {
        seq: u32,
        result: Result<(), BlockError>,
    },
}

struct Shared {
    job: Job,
    seq: u32,
    /// Blocks of the card in, 0 with none.
    blocks: u64,
    worker: WakerRegistration,
    client: WakerRegistration,
}

/// What the port and the worker share.
pub struct Link {
    shared: BlockingMutex<CriticalSectionRawMutex, RefCell<Shared>>,
    /// The block in flight; the worker holds it while the driver works.
    data: Mutex<CriticalSectionRawMutex, [u8; BLOCK]>,
}

impl Link {
    /// No card yet, nothing in flight.
    pub const fn new() -> Self {
        Link {
            shared: BlockingMutex::new(RefCell::new(Shared {
                job: Job::Idle,
                seq: 0,
                blocks: 0,
                worker: WakerRegistration::new(),
                client: WakerRegistration::new(),
            })),
            data: Mutex::new([0; BLOCK]),
        }
    }

    fn with<R>(&self, f: impl FnOnce(&mut Shared) -> R) -> R {
        self.shared.lock(|s| f(&mut s.borrow_mut()))
    }

    /// Blocks of the card in (0: none).
    pub fn blocks(&self) -> u64 {
        self.with(|s| s.blocks)
    }
}

impl Default for Link {
    fn default() -> Self {
        Self::new()
    }
}

/// Serves `link`'s requests with `blocks` forever, and asks it whether a
/// card is in whenever no request came for [`PRESENCE_EVERY`].
pub async fn serve<B: Blocks>(link: &Link, blocks: &mut B) -> ! {
    let found = blocks.present().await.unwrap_or(0);
    link.with(|s| s.blocks = found);
    loop {
        let next = core::future::poll_fn(|cx| {
            link.with(|s| match s.job {
                Job::Posted { seq, block, write } => {
                    s.job = Job::Taken { seq };
                    Poll::Ready((seq, block, write))
                }
                _ => {
                    s.worker.register(cx.waker());
                    Poll::Pending
                }
            })
        });
        let (seq, block, write) = match select(next, Timer::after(PRESENCE_EVERY)).await {
            Either::First(job) => job,
            Either::Second(()) => {
                let blocks = blocks.present().await.unwrap_or(0);
                link.with(|s| s.blocks = blocks);
                continue;
            }
        };
        let result = if link.blocks() == 0 {
            Err(BlockError::Removed)
        } else {
            let mut data = link.data.lock().await;
            if write {
                blocks.write(block, &data).await
            } else {
                blocks.read(block, &mut data).await
            }
        };
        link.with(|s| {
            if result == Err(BlockError::Removed) {
                s.blocks = 0;
            }
            s.job = Job::Done { seq, result };
            s.client.wake();
        });
    }
}

/// The card as the FAT driver sees it.
pub struct Port<'a> {
    link: &'a Link,
}

impl<'a> Port<'a> {
    /// The port of `link`.
    pub fn new(link: &'a Link) -> Self {
        Port { link }
    }

    /// Whether a card is in.
    pub fn present(&self) -> bool {
        self.link.blocks() > 0
    }

    /// Moves the transfer of `buf` (whole blocks from `first`) on, block by block.
    fn poll_blocks(
        &mut self,
        state: &mut Transfer,
        cx: &mut Context<'_>,
        first: BlockIndex,
        write: Option<&[u8]>,
        mut read: Option<&mut [u8]>,
    ) -> Poll<Result<(), Error<BlockError>>> {
        let len = write.map_or_else(|| read.as_ref().map_or(0, |b| b.len()), <[u8]>::len);
        loop {
            let at = state.done * BLOCK;
            if at >= len {
                return Poll::Ready(Ok(()));
            }
            let block = first.get() + state.done as u64;
            let step = self.link.with(|s| match (state.seq, s.job) {
                (Some(mine), Job::Done { seq, result }) if seq == mine => {
                    s.job = Job::Idle;
                    Step::Finished(result)
                }
                (Some(_), _) => {
                    s.client.register(cx.waker());
                    Step::Wait
                }
                (None, Job::Posted { .. } | Job::Taken { .. }) => {
                    s.client.register(cx.waker());
                    Step::Wait
                }
                (None, Job::Idle | Job::Done { .. }) => {
                    if s.blocks == 0 {
                        return Step::Finished(Err(BlockError::Removed));
                    }
                    let Ok(mut data) = self.link.data.try_lock() else {
                        s.client.register(cx.waker());
                        return Step::Wait;
                    };
                    if let Some(bytes) = write {
                        data.copy_from_slice(&bytes[at..at + BLOCK]);
                    }
                    s.seq = s.seq.wrapping_add(1);
                    s.job = Job::Posted {
                        seq: s.seq,
                        block,
                        write: write.is_some(),
                    };
                    state.seq = Some(s.seq);
                    s.worker.wake();
                    s.client.register(cx.waker());
                    Step::Wait
                }
            });
            match step {
                Step::Wait => return Poll::Pending,
                Step::Finished(Err(e)) => {
                    state.seq = None;
                    return Poll::Ready(Err(Error::device(e, "card")));
                }
                Step::Finished(Ok(())) => {
                    if let Some(out) = read.as_deref_mut() {
                        let Ok(data) = self.link.data.try_lock() else {
                            // The worker let go of it before saying done.
                            return Poll::Ready(Err(Error::new(ErrorKind::Io, "card busy")));
                        };
                        out[at..at + BLOCK].copy_from_slice(&data[..]);
                    }
                    state.seq = None;
                    state.done += 1;
                }
            }
        }
    }
}

enum Step {
    Wait,
    Finished(Result<(), BlockError>),
}

/// How far one read or write got.
#[derive(Default)]
pub struct Transfer {
    /// Blocks done.
    done: usize,
    /// The request posted for the next one.
    seq: Option<u32>,
}

impl ErrorType for Port<'_> {
    type Error = BlockError;
}

impl BlockDevice for Port<'_> {
    type State = Transfer;

    fn block_size(&self) -> BlockSize {
        BLOCK_SIZE
    }

    fn block_count(&self) -> u64 {
        self.link.blocks()
    }

    fn writable(&self) -> bool {
        true
    }

    fn poll_read_blocks(
        &mut self,
        state: &mut Transfer,
        cx: &mut Context<'_>,
        first: BlockIndex,
        buf: &mut [u8],
    ) -> Poll<Result<(), Error<BlockError>>> {
        self.poll_blocks(state, cx, first, None, Some(buf))
    }

    fn poll_write_blocks(
        &mut self,
        state: &mut Transfer,
        cx: &mut Context<'_>,
        first: BlockIndex,
        buf: &[u8],
    ) -> Poll<Result<(), Error<BlockError>>> {
        self.poll_blocks(state, cx, first, Some(buf), None)
    }

    fn cancel(&mut self, state: &mut Transfer) {
        // A request not yet taken is withdrawn; one taken finishes unseen.
        if let Some(mine) = state.seq.take() {
            self.link.with(|s| {
                if matches!(s.job, Job::Posted { seq, .. } if seq == mine) {
                    s.job = Job::Idle;
                }
            });
        }
    }
}
