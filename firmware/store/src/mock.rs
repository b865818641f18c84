//! A NOR flash in RAM for host tests: a write only clears bits, an erase sets
//! whole blocks to `0xFF`, offsets and lengths must be aligned, every write
//! unit is written at most once between erases (like the STM32H7's ECC flash),
//! and power can be cut after a number of written bytes or erases: the write
//! that crosses the limit writes only its first bytes, an erase cut leaves its
//! first block half erased, and every later operation fails.

use std::vec;
use std::vec::Vec;

use embedded_storage_async::nor_flash::{
    ErrorType, NorFlash, NorFlashError, NorFlashErrorKind, ReadNorFlash,
};

/// Why a mock flash operation failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MockError {
    /// Offset or length not aligned.
    NotAligned,
    /// Beyond the flash.
    OutOfBounds,
    /// The power is off.
    PowerCut,
}

impl NorFlashError for MockError {
    fn kind(&self) -> NorFlashErrorKind {
        match self {
            MockError::NotAligned => NorFlashErrorKind::NotAligned,
            MockError::OutOfBounds => NorFlashErrorKind::OutOfBounds,
            MockError::PowerCut => NorFlashErrorKind::Other,
        }
    }
}

/// `SIZE` bytes of NOR flash with write unit `WRITE` and erase block `ERASE`.
#[derive(Clone, Debug)]
pub struct MockFlash<const WRITE: usize, const ERASE: usize> {
    bytes: Vec<u8>,
    /// Whether each write unit was written since its last erase.
    written: Vec<bool>,
    bytes_left: Option<usize>,
    erases_left: Option<usize>,
    dead: bool,
    /// Bytes written so far.
    pub bytes_written: usize,
    /// Erase blocks erased so far.
    pub erases: usize,
}

impl<const WRITE: usize, const ERASE: usize> MockFlash<WRITE, ERASE> {
    /// An erased flash of `size` bytes (a multiple of `ERASE`).
    pub fn new(size: usize) -> Self {
        assert_eq!(size % ERASE, 0, "size must be whole erase blocks");
        MockFlash {
            bytes: vec![0xFF; size],
            written: vec![false; size / WRITE],
            bytes_left: None,
            erases_left: None,
            dead: false,
            bytes_written: 0,
            erases: 0,
        }
    }

    /// Cuts power once `n` more bytes have been written.
    pub fn cut_after_bytes(&mut self, n: usize) {
        self.bytes_left = Some(n);
    }

    /// Cuts power during the erase after `n` more whole erases.
    pub fn cut_after_erases(&mut self, n: usize) {
        self.erases_left = Some(n);
    }

    /// Whether the power was cut.
    pub fn is_dead(&self) -> bool {
        self.dead
    }

    /// The same bytes with power back on (what a reboot sees).
    pub fn power_on(&self) -> Self {
        MockFlash {
            bytes_left: None,
            erases_left: None,
            dead: false,
            ..self.clone()
        }
    }

    /// Flips one bit, as decay or an erase cut that spared the records would.
    pub fn flip_bit(&mut self, offset: usize, bit: u8) {
        self.bytes[offset] ^= 1 << bit;
    }

    fn check(&self, offset: u32, len: usize, align: usize) -> Result<usize, MockError> {
        if self.dead {
            return Err(MockError::PowerCut);
        }
        let start = offset as usize;
        if start % align != 0 || len % align != 0 {
            return Err(MockError::NotAligned);
        }
        if start + len > self.bytes.len() {
            return Err(MockError::OutOfBounds);
        }
        Ok(start)
    }
}

impl<const WRITE: usize, const ERASE: usize> ErrorType for MockFlash<WRITE, ERASE> {
    type Error = MockError;
}

impl<const WRITE: usize, const ERASE: usize> ReadNorFlash for MockFlash<WRITE, ERASE> {
    const READ_SIZE: usize = 1;

    async fn read(&mut self, offset: u32, bytes: &mut [u8]) -> Result<(), MockError> {
        let start = self.check(offset, bytes.len(), 1)?;
        bytes.copy_from_slice(&self.bytes[start..start + bytes.len()]);
        Ok(())
    }

    fn capacity(&self) -> usize {
        self.bytes.len()
    }
}

impl<const WRITE: usize, const ERASE: usize> NorFlash for MockFlash<WRITE, ERASE> {
    const WRITE_SIZE: usize = WRITE;
    const ERASE_SIZE: usize = ERASE;

    async fn erase(&mut self, from: u32, to: u32) -> Result<(), MockError> {
        let len = (to as usize)
            .checked_sub(from as usize)
            .ok_or(MockError::OutOfBounds)?;
        let start = self.check(from, len, ERASE)?;
        for block in (start..start + len).step_by(ERASE) {
            if self.erases_left == Some(0) {
                self.bytes[block..block + ERASE / 2].fill(0xFF);
                self.dead = true;
                return Err(MockError::PowerCut);
            }
            self.erases_left = self.erases_left.map(|n| n - 1);
            self.bytes[block..block + ERASE].fill(0xFF);
            self.written[block / WRITE..(block + ERASE) / WRITE].fill(false);
            self.erases += 1;
        }
        Ok(())
    }

    async fn write(&mut self, offset: u32, bytes: &[u8]) -> Result<(), MockError> {
        let start = self.check(offset, bytes.len(), WRITE)?;
        for unit in start / WRITE..(start + bytes.len()) / WRITE {
            assert!(
                !self.written[unit],
                "write unit at {:#x} written twice without an erase",
                unit * WRITE
            );
            self.written[unit] = true;
        }
        for (i, b) in bytes.iter().enumerate() {
            if self.bytes_left == Some(0) {
                self.dead = true;
                return Err(MockError::PowerCut);
            }
            self.bytes_left = self.bytes_left.map(|n| n - 1);
            self.bytes[start + i] &= *b;
            self.bytes_written += 1;
        }
        Ok(())
    }
}
