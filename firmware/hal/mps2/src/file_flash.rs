//! A NOR flash backed by a host file through semihosting: reads and writes
//! go to the file, and it behaves like NOR (a write can only clear bits, an
//! erase sets a whole 4 KiB block to 0xFF), so the store's power-cut safety
//! is exercised as on real flash. A new or short file is extended with 0xFF.

use core::ffi::CStr;

use embedded_storage_async::nor_flash::{
    ErrorType, NorFlash, NorFlashError, NorFlashErrorKind, ReadNorFlash,
};
use semihosting::fs::{File, OpenOptions};
use semihosting::io::{Read, Seek, SeekFrom, Write};

/// Erase block size.
pub const BLOCK: usize = 4096;
/// Flash size (room for a take of `debug-all-blendshapes`, 1.2 MB, and more).
pub const CAPACITY: usize = 4 * 1024 * 1024;

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
}

impl FileFlash {
    /// Opens `path` (or creates it) and extends it with 0xFF to [`CAPACITY`].
    pub fn open(path: &CStr) -> Result<Self, FlashError> {
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
        let mut flash = FileFlash { file };
        let len = flash
            .file
            .seek(SeekFrom::End(0))
            .map_err(|_| FlashError::Host)? as usize;
        let ff = [0xFF; BLOCK];
        let mut at = len;
        while at < CAPACITY {
            let n = (CAPACITY - at).min(ff.len());
            flash
                .file
                .write_all(&ff[..n])
                .map_err(|_| FlashError::Host)?;
            at += n;
        }
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
}

/// Checks that `from..to` lies in the flash and both ends are multiples of `align`.
fn check(from: u32, to: u32, align: usize) -> Result<(), FlashError> {
    if from > to || to as usize > CAPACITY {
        return Err(FlashError::Range(NorFlashErrorKind::OutOfBounds));
    }
    if from as usize % align != 0 || to as usize % align != 0 {
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
    const WRITE_SIZE: usize = 4;
    const ERASE_SIZE: usize = BLOCK;

    async fn erase(&mut self, from: u32, to: u32) -> Result<(), FlashError> {
        check(from, to, Self::ERASE_SIZE)?;
        let ff = [0xFF; BLOCK];
        for block in (from..to).step_by(BLOCK) {
            self.write_at(block, &ff)?;
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
