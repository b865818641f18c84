//! A microSD card for tests under QEMU: a FAT image in a host file
//! (semihosting), 512-byte blocks, with what a real card does to a player:
//!
//! - read stalls: with `stall` set, every block read in the first `stall`
//!   of each `every` waits until that stall is over (a card busy with its
//!   own housekeeping), yielding meanwhile so the rest of the box runs (a
//!   yield, not an embassy-time timer, so a stall costs no timer slot);
//! - removal: while a file named like the image plus `.out` exists on the
//!   host, the slot is empty (the test creates it to pull the card out and
//!   deletes it to put the card back); looked at no more than every
//!   [`LOOK_EVERY`];
//! - a slow power-up: with `power_up` set, a card that comes in (or is in
//!   at boot) stays busy that long at each initialisation, the box running
//!   meanwhile (as the NUCLEO's slot awaits a card's power-up); one busy
//!   past [`POWER_UP_LIMIT`] is given up on at that limit and reported
//!   unusable ([`STAYS_BUSY`]), at every look, until it leaves.
//!
//! Large cards come in parts. Arm semihosting passes a file offset in a
//! 32-bit register (`SYS_SEEK`) and a length likewise (`SYS_FLEN`), and the
//! semihosting crate refuses seeks from 2 GiB on (its offsets are `isize`):
//! one image file reaches 2 GiB at most, and an image of 2 GiB or more in one
//! file would open as an empty slot with no word of why. A card of up to
//! [`MAX_PARTS`] GiB is given as files of [`PART`] bytes each (the last may
//! be shorter), `PATH.0`, `PATH.1`, ... (`card_parts=N` on the command line);
//! a single file of 2 GiB or more is refused by name.
//!
//! Reads and writes reach the file at once: QEMU killed in the middle of an
//! upload is a power cut.

use core::ffi::CStr;
use core::fmt;

use embassy_time::{Duration, Instant};
use heapless::Vec;
use llv_card::{BlockBuf, BlockError, Blocks, BLOCK, POWER_UP_LIMIT, STAYS_BUSY};
use semihosting::fs::{File, OpenOptions};
use semihosting::io::{Read, Seek, SeekFrom, Write};

/// How often the removal file is looked for.
pub const LOOK_EVERY: Duration = Duration::from_millis(50);
/// Bytes of each part of a card given in parts (every part but the last).
pub const PART: u64 = 1 << 30;
/// Most parts of a card (64 GiB).
pub const MAX_PARTS: usize = 64;
/// The largest single image file semihosting can seek through.
const MAX_FILE: u64 = 1 << 31;

/// Injected read stalls: `stall` at the start of every `every`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stalls {
    /// How long a stall lasts.
    pub stall: Duration,
    /// How often one starts.
    pub every: Duration,
}

/// Why the card image could not be opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, defmt::Format)]
pub enum OpenError {
    /// The file (or part `n` of it) cannot be opened read-write.
    Missing(u32),
    /// A single image file of 2 GiB or more (its length, mod 4 GiB).
    TooLarge(u64),
    /// Part `n` (not the last) is not [`PART`] bytes long.
    PartSize(u32),
    /// More than [`MAX_PARTS`] parts, or a path too long for a part's name.
    Parts,
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::Missing(n) => write!(f, "part {n} cannot be opened read-write"),
            OpenError::TooLarge(len) => write!(
                f,
                "{len} bytes (mod 4 GiB) in one file: semihosting seeks to 2 GiB; give it in 1 GiB parts (card_parts=N)"
            ),
            OpenError::PartSize(n) => write!(f, "part {n} is not 1 GiB long"),
            OpenError::Parts => write!(f, "more than {MAX_PARTS} parts, or too long a path"),
        }
    }
}

/// The card image.
pub struct FileCard<'p> {
    parts: Vec<File, MAX_PARTS>,
    /// Blocks of each part but the last.
    part_blocks: u64,
    removed_path: &'p CStr,
    blocks: u64,
    stalls: Option<Stalls>,
    /// How long the card stays busy at each initialisation.
    power_up: Option<Duration>,
    /// Whether the card came up since it came in.
    ready: bool,
    /// Whether the last initialisation gave up on a busy card.
    busy: bool,
    /// When the removal file was last looked for, and whether it was there.
    looked: Option<(Instant, bool)>,
}

impl<'p> FileCard<'p> {
    /// Opens the image `path` (without its NUL), in `parts` files (0: one
    /// file named `path`); the slot is empty while `removed_path` exists; the
    /// card stays busy for `power_up` at each initialisation. A card that
    /// does not open is a card that answers no read (the box reports it
    /// unusable), with the reason.
    pub fn open(
        path: &[u8],
        parts: u32,
        removed_path: &'p CStr,
        stalls: Option<Stalls>,
        power_up: Option<Duration>,
    ) -> (Self, Option<OpenError>) {
        let mut card = FileCard {
            parts: Vec::new(),
            part_blocks: PART / BLOCK as u64,
            removed_path,
            blocks: 0,
            stalls,
            power_up,
            ready: false,
            busy: false,
            looked: None,
        };
        let opened = card.open_parts(path, parts);
        if opened.is_err() {
            card.parts.clear();
            card.blocks = 0;
        }
        (card, opened.err())
    }

    fn open_parts(&mut self, path: &[u8], parts: u32) -> Result<(), OpenError> {
        let open = |name: &CStr, n: u32| {
            OpenOptions::new()
                .read(true)
                .write(true)
                .open(name)
                .map_err(|_| OpenError::Missing(n))
        };
        if parts == 0 {
            let mut name: Vec<u8, 600> = Vec::new();
            name.extend_from_slice(path).map_err(|_| OpenError::Parts)?;
            name.push(0).map_err(|_| OpenError::Parts)?;
            let name = CStr::from_bytes_with_nul(&name).map_err(|_| OpenError::Parts)?;
            let file = open(name, 0)?;
            let len = file.metadata().map_err(|_| OpenError::Missing(0))?.len();
            if len >= MAX_FILE {
                return Err(OpenError::TooLarge(len));
            }
            self.part_blocks = len / BLOCK as u64;
            self.blocks = self.part_blocks;
            self.parts.push(file).map_err(|_| OpenError::Parts)?;
            return Ok(());
        }
        for n in 0..parts {
            let mut name: Vec<u8, 600> = Vec::new();
            let mut digits: heapless::String<10> = heapless::String::new();
            fmt::write(&mut digits, format_args!(".{n}")).map_err(|_| OpenError::Parts)?;
            name.extend_from_slice(path).map_err(|_| OpenError::Parts)?;
            name.extend_from_slice(digits.as_bytes())
                .map_err(|_| OpenError::Parts)?;
            name.push(0).map_err(|_| OpenError::Parts)?;
            let name = CStr::from_bytes_with_nul(&name).map_err(|_| OpenError::Parts)?;
            let file = open(name, n)?;
            let len = file.metadata().map_err(|_| OpenError::Missing(n))?.len();
            let last = n + 1 == parts;
            if len > PART || (!last && len != PART) {
                return Err(OpenError::PartSize(n));
            }
            self.blocks += len / BLOCK as u64;
            self.parts.push(file).map_err(|_| OpenError::Parts)?;
        }
        Ok(())
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

    /// The file holding block `block`, at it.
    fn seek(&mut self, block: u64) -> Result<&mut File, BlockError> {
        if !self.inserted() {
            return Err(BlockError::Removed);
        }
        if block >= self.blocks {
            return Err(BlockError::Failed);
        }
        let part = (block / self.part_blocks.max(1)) as usize;
        let within = block % self.part_blocks.max(1);
        let file = self.parts.get_mut(part).ok_or(BlockError::Failed)?;
        file.seek(SeekFrom::Start(within * BLOCK as u64))
            .map_err(|_| BlockError::Failed)?;
        Ok(file)
    }
}

/// Waits until `until`, yielding to the executor meanwhile (a yield, not an
/// embassy-time timer, so a wait costs no timer slot).
async fn yield_until(until: Instant) {
    core::future::poll_fn(|cx| {
        if Instant::now() >= until {
            return core::task::Poll::Ready(());
        }
        cx.waker().wake_by_ref();
        core::task::Poll::Pending
    })
    .await;
}

impl Blocks for FileCard<'_> {
    async fn present(&mut self) -> Option<u64> {
        self.looked = None;
        if !self.inserted() {
            self.ready = false;
            self.busy = false;
            return None;
        }
        if !self.ready {
            if let Some(busy_for) = self.power_up {
                let started = Instant::now();
                self.busy = busy_for > POWER_UP_LIMIT;
                yield_until(started + busy_for.min(POWER_UP_LIMIT)).await;
                if self.busy {
                    return None;
                }
            }
            self.ready = true;
        }
        Some(self.blocks)
    }

    fn unusable(&self) -> Option<&'static str> {
        self.busy.then_some(STAYS_BUSY)
    }

    async fn read(&mut self, block: u64, buf: &mut BlockBuf) -> Result<(), BlockError> {
        if let Some(Stalls { stall, every }) = self.stalls {
            let now = Instant::now().as_ticks();
            let into = now % every.as_ticks().max(1);
            if into < stall.as_ticks() {
                yield_until(Instant::from_ticks(now - into + stall.as_ticks())).await;
            }
        }
        self.seek(block)?
            .read_exact(&mut buf.0)
            .map_err(|_| BlockError::Failed)
    }

    async fn write(&mut self, block: u64, buf: &BlockBuf) -> Result<(), BlockError> {
        self.seek(block)?
            .write_all(&buf.0)
            .map_err(|_| BlockError::Failed)
    }
}
