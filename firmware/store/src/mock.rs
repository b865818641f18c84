//! A NOR flash in RAM for host tests: a write only clears bits, an erase sets
//! whole blocks to `0xFF`, offsets and lengths must be aligned, every write
//! unit is written at most once between erases (like the STM32H7's ECC flash),
//! and power can be cut after a number of written bytes or erases; every
//! operation after the cut fails until [`MockFlash::power_on`]. What the cut
//! leaves depends on the [`Tear`] mode: the write's first bytes and a half
//! erased block, or, as on the STM32H7 whose 32-byte words carry ECC, units
//! that read back as an error until their block is erased.

use std::vec;
use std::vec::Vec;

use embedded_storage_async::nor_flash::{
    ErrorType, NorFlash, NorFlashError, NorFlashErrorKind, ReadNorFlash,
};
use llv_core::take::{image_len, ImageWriter};

/// Why a mock flash operation failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MockError {
    /// Offset or length not aligned.
    NotAligned,
    /// Beyond the flash.
    OutOfBounds,
    /// The power is off.
    PowerCut,
    /// The unit at this offset was torn by a cut (an ECC error on the H7).
    Torn(usize),
}

impl NorFlashError for MockError {
    fn kind(&self) -> NorFlashErrorKind {
        match self {
            MockError::NotAligned => NorFlashErrorKind::NotAligned,
            MockError::OutOfBounds => NorFlashErrorKind::OutOfBounds,
            MockError::PowerCut | MockError::Torn(_) => NorFlashErrorKind::Other,
        }
    }
}

/// What a power cut leaves of the operation it interrupts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tear {
    /// A write leaves its first bytes, an erase its block's first half erased.
    Prefix,
    /// The unit being written, or every unit of the block being erased, reads
    /// back as [`MockError::Torn`] until its block is erased.
    Unreadable,
}

/// `SIZE` bytes of NOR flash with write unit `WRITE` and erase block `ERASE`.
#[derive(Clone, Debug)]
pub struct MockFlash<const WRITE: usize, const ERASE: usize> {
    bytes: Vec<u8>,
    /// Whether each write unit was written since its last erase.
    written: Vec<bool>,
    /// Whether each write unit was torn by a cut since its last erase.
    torn: Vec<bool>,
    tear: Tear,
    bytes_left: Option<usize>,
    erases_left: Option<usize>,
    dead: bool,
    /// Bytes written so far.
    pub bytes_written: usize,
    /// Erase blocks erased so far.
    pub erases: usize,
    /// Erases per erase block.
    erase_counts: Vec<usize>,
}

impl<const WRITE: usize, const ERASE: usize> MockFlash<WRITE, ERASE> {
    /// An erased flash of `size` bytes (a multiple of `ERASE`).
    pub fn new(size: usize) -> Self {
        assert_eq!(size % ERASE, 0, "size must be whole erase blocks");
        MockFlash {
            bytes: vec![0xFF; size],
            written: vec![false; size / WRITE],
            torn: vec![false; size / WRITE],
            tear: Tear::Prefix,
            bytes_left: None,
            erases_left: None,
            dead: false,
            bytes_written: 0,
            erases: 0,
            erase_counts: vec![0; size / ERASE],
        }
    }

    /// How often each erase block was erased (wear).
    pub fn erases_per_block(&self) -> &[usize] {
        &self.erase_counts
    }

    /// Sets what a cut leaves from now on.
    pub fn set_tear(&mut self, tear: Tear) {
        self.tear = tear;
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
        if !start.is_multiple_of(align) || !len.is_multiple_of(align) {
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
        let end = start + bytes.len();
        if let Some(unit) = (start / WRITE..end.div_ceil(WRITE)).find(|u| self.torn[*u]) {
            return Err(MockError::Torn(unit * WRITE));
        }
        bytes.copy_from_slice(&self.bytes[start..end]);
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
            let units = block / WRITE..(block + ERASE) / WRITE;
            if self.erases_left == Some(0) {
                self.bytes[block..block + ERASE / 2].fill(0xFF);
                if self.tear == Tear::Unreadable {
                    self.torn[units].fill(true);
                }
                self.dead = true;
                return Err(MockError::PowerCut);
            }
            self.erases_left = self.erases_left.map(|n| n - 1);
            self.bytes[block..block + ERASE].fill(0xFF);
            self.written[units.clone()].fill(false);
            self.torn[units].fill(false);
            self.erases += 1;
            self.erase_counts[block / ERASE] += 1;
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
                if self.tear == Tear::Unreadable {
                    self.torn[(start + i) / WRITE] = true;
                }
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

/// A take image of `frames` frames, 16.667 ms apart, of varying lengths
/// (264 to 563 bytes) whose bytes depend on `seed`. The packets are not face
/// frames: the store never decodes them.
pub fn synthetic_image(name: &str, frames: u32, seed: u8) -> Vec<u8> {
    let lens: Vec<usize> = (0..frames as usize)
        .map(|i| 264 + (i * 37 + seed as usize) % 300)
        .collect();
    let mut buf = vec![0u8; image_len(frames, lens.iter().sum())];
    let mut w = ImageWriter::new(&mut buf, name, frames).expect("room for the entries");
    for (i, len) in lens.iter().enumerate() {
        let packet: Vec<u8> = (0..*len)
            .map(|j| (j as u8).wrapping_mul(seed).wrapping_add(i as u8))
            .collect();
        w.push(i as u32 * 16_667, &packet)
            .expect("a packet of valid length");
    }
    let n = w.finish(frames * 16_667).expect("every frame pushed");
    assert_eq!(n, buf.len());
    buf
}

/// The bytes of a take's begin record (what a forged image might hold).
pub fn begin_record(seq: u32, total_len: u32, crc32: u32) -> [u8; crate::layout::UNIT] {
    crate::layout::Begin {
        seq,
        total_len,
        crc32,
    }
    .emit()
}
