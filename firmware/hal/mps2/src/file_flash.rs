//! A NOR flash in a host file (semihosting), shaped and timed like bank 2
//! of the STM32H743 so that tests under QEMU show what the real box does:
//!
//! - 128 KiB erase blocks (the H7's sectors), 32-byte write units (its
//!   256-bit flash words), 4 MiB in all (32 blocks);
//! - NOR semantics: a write only clears bits, an erase sets a block to 0xFF;
//! - each block erase takes a modelled time (the H7 datasheet: about 1.1 s
//!   typical per sector), awaited with embassy-time, so other tasks run
//!   meanwhile, as with embassy-stm32's interrupt-driven async flash. The
//!   block is filled with 0xFF once its time is over, a file call of
//!   [`FILL_CHUNK`] bytes at a time with other tasks run between them (the
//!   real erase happens in hardware); a power cut (QEMU killed) before that
//!   leaves it as it was, during the fill partly erased.
//!
//! Reads and writes reach the file at once. A new or short file is extended
//! with 0xFF, so the file survives QEMU restarts as flash survives power-off.

use core::ffi::CStr;

use embassy_time::{Duration, Timer};
use embedded_storage_async::nor_flash::{
    ErrorType, NorFlash, NorFlashError, NorFlashErrorKind, ReadNorFlash,
};
use semihosting::fs::{File, OpenOptions};
use semihosting::io::{Read, Seek, SeekFrom, Write};

/// Erase block size: one STM32H7 sector.
pub const ERASE_SIZE: usize = 128 * 1024;
/// Write unit: one STM32H7 flash word (256 bits).
pub const WRITE_SIZE: usize = 32;
/// Flash size: 32 blocks.
pub const CAPACITY: usize = 4 * 1024 * 1024;
/// Modelled time of one block erase: the H7's typical sector erase.
pub const ERASE_TIME: Duration = Duration::from_millis(1100);

/// Bytes of 0xFF written per file call when extending or erasing.
pub const FILL_CHUNK: usize = 4096;

/// Why a flash operation failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlashError {
    /// Out of bounds or misaligned.
    Range(NorFlashErrorKind),
    /// The host file could not be read or written.
    Host,
}

impl NorFlashError for FlashError {
    fn kind(&self) -> NorFlashErrorKind {
        match self {
            FlashError::Range(kind) => *kind,
            FlashError::Host => NorFlashErrorKind::Other,
        }
    }
}

/// The flash file.
pub struct FileFlash {
    file: File,
    erase_time: Duration,
}

impl FileFlash {
    /// Opens `path` (or creates it), extends it with 0xFF to [`CAPACITY`];
    /// each block erase will take `erase_time` ([`ERASE_TIME`] models the H7).
    pub fn open(path: &CStr, erase_time: Duration) -> Result<Self, FlashError> {
        let file = match OpenOptions::new().read(true).write(true).open(path) {
            Ok(file) => file,
            Err(_) => OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(path)
                .map_err(|_| FlashError::Host)?,
        };
        let mut flash = FileFlash { file, erase_time };
        let len = flash
            .file
            .seek(SeekFrom::End(0))
            .map_err(|_| FlashError::Host)?;
        let len = u32::try_from(len).map_or(CAPACITY as u32, |len| len.min(CAPACITY as u32));
        flash.fill_ff(len, CAPACITY as u32)?;
        Ok(flash)
    }

    fn read_at(&mut self, offset: u32, bytes: &mut [u8]) -> Result<(), FlashError> {
        self.file
            .seek(SeekFrom::Start(u64::from(offset)))
            .map_err(|_| FlashError::Host)?;
        self.file.read_exact(bytes).map_err(|_| FlashError::Host)
    }

    fn write_at(&mut self, offset: u32, bytes: &[u8]) -> Result<(), FlashError> {
        self.file
            .seek(SeekFrom::Start(u64::from(offset)))
            .map_err(|_| FlashError::Host)?;
        self.file.write_all(bytes).map_err(|_| FlashError::Host)
    }

    /// Sets `from..to` of the file to 0xFF.
    fn fill_ff(&mut self, from: u32, to: u32) -> Result<(), FlashError> {
        let ff = [0xFF; FILL_CHUNK];
        let mut at = from;
        while at < to {
            let n = (to - at).min(FILL_CHUNK as u32);
            self.write_at(at, &ff[..n as usize])?;
            at += n;
        }
        Ok(())
    }
}

/// Checks that `from..to` lies in the flash and both ends are multiples of `align`.
fn check(from: u32, to: u32, align: usize) -> Result<(), FlashError> {
    if from > to || to as usize > CAPACITY {
        return Err(FlashError::Range(NorFlashErrorKind::OutOfBounds));
    }
    if !(from as usize).is_multiple_of(align) || !(to as usize).is_multiple_of(align) {
        return Err(FlashError::Range(NorFlashErrorKind::NotAligned));
    }
    Ok(())
}

/// The end of `len` bytes from `offset` (saturating: too far is out of bounds).
fn end(offset: u32, len: usize) -> u32 {
    offset.saturating_add(u32::try_from(len).unwrap_or(u32::MAX))
}

impl ErrorType for FileFlash {
    type Error = FlashError;
}

impl ReadNorFlash for FileFlash {
    const READ_SIZE: usize = 1;

    async fn read(&mut self, offset: u32, bytes: &mut [u8]) -> Result<(), FlashError> {
        check(offset, end(offset, bytes.len()), Self::READ_SIZE)?;
        self.read_at(offset, bytes)
    }

    fn capacity(&self) -> usize {
        CAPACITY
    }
}

impl NorFlash for FileFlash {
    const WRITE_SIZE: usize = WRITE_SIZE;
    const ERASE_SIZE: usize = ERASE_SIZE;

    /// One block after the other, each erased after its modelled time.
    async fn erase(&mut self, from: u32, to: u32) -> Result<(), FlashError> {
        check(from, to, Self::ERASE_SIZE)?;
        let ff = [0xFF; FILL_CHUNK];
        for block in (from..to).step_by(ERASE_SIZE) {
            Timer::after(self.erase_time).await;
            for at in (block..block + ERASE_SIZE as u32).step_by(FILL_CHUNK) {
                self.write_at(at, &ff)?;
                embassy_futures::yield_now().await;
            }
        }
        Ok(())
    }

    /// NOR semantics: each byte becomes old AND new.
    async fn write(&mut self, offset: u32, bytes: &[u8]) -> Result<(), FlashError> {
        check(offset, end(offset, bytes.len()), Self::WRITE_SIZE)?;
        let mut old = [0u8; 256];
        for (i, chunk) in bytes.chunks(old.len()).enumerate() {
            let at = offset + (i * old.len()) as u32;
            let old = &mut old[..chunk.len()];
            self.read_at(at, old)?;
            for (o, n) in old.iter_mut().zip(chunk) {
                *o &= n;
            }
            self.write_at(at, old)?;
        }
        Ok(())
    }
}
