//! Where bank 2 sits, its sectors and flash words, and the checks that keep
//! every access inside the region the board hands to the driver.
//!
//! STM32H743xI (RM0433, embedded flash memory organization): two banks of 1 MiB,
//! each eight 128 KiB sectors; bank 2 at 0x0810_0000 unless the banks are
//! swapped. The program and ECC unit is the 256-bit flash word.

use core::ops::Range;

use crate::error::{FlashError, SetupError};

/// Bus address of internal flash (bank 1, sector 0).
pub const FLASH_BASE: u32 = 0x0800_0000;
/// Bus address of bank 2 (banks not swapped).
pub const BANK2_BASE: u32 = 0x0810_0000;
/// Bytes in one bank.
pub const BANK_SIZE: u32 = 0x10_0000;
/// Bytes in one sector, the erase unit.
pub const SECTOR_SIZE: u32 = 0x2_0000;
/// Bytes in one flash word (256 bits), the program and ECC unit.
pub const WORD_SIZE: u32 = 32;

/// Whole bank-2 sectors, addressed from the region's own start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Region {
    /// Bus address of the first byte.
    base: u32,
    /// Bytes in the region.
    size: u32,
}

impl Region {
    /// The sectors of `range`, given as offsets from the start of flash (like
    /// embassy-stm32's `Flash`): `0x10_0000..0x20_0000` is all of bank 2.
    pub const fn new(range: Range<u32>) -> Result<Region, SetupError> {
        let bank2 = BANK2_BASE - FLASH_BASE;
        let whole =
            range.start.is_multiple_of(SECTOR_SIZE) && range.end.is_multiple_of(SECTOR_SIZE);
        if !whole
            || range.start < bank2
            || range.end > bank2 + BANK_SIZE
            || range.start >= range.end
        {
            return Err(SetupError::Region);
        }
        Ok(Region {
            base: FLASH_BASE + range.start,
            size: range.end - range.start,
        })
    }

    /// Bytes in the region.
    pub const fn size(&self) -> u32 {
        self.size
    }

    /// Bus address of `len` bytes at `offset`, if they lie inside the region.
    pub(crate) fn read_address(&self, offset: u32, len: usize) -> Result<u32, FlashError> {
        let len = u32::try_from(len).map_err(|_| FlashError::OutOfBounds)?;
        match offset.checked_add(len) {
            Some(end) if end <= self.size => Ok(self.base + offset),
            _ => Err(FlashError::OutOfBounds),
        }
    }

    /// Bus address of a write of `len` bytes at `offset`: whole flash words, inside the region.
    pub(crate) fn write_address(&self, offset: u32, len: usize) -> Result<u32, FlashError> {
        let address = self.read_address(offset, len)?;
        if !offset.is_multiple_of(WORD_SIZE) || !len.is_multiple_of(WORD_SIZE as usize) {
            return Err(FlashError::NotAligned);
        }
        Ok(address)
    }

    /// Bank-2 sector numbers (FLASH_CR2.SNB) covering `from..to`, whole sectors inside the region.
    pub(crate) fn sectors(&self, from: u32, to: u32) -> Result<Range<u8>, FlashError> {
        if from > to || to > self.size {
            return Err(FlashError::OutOfBounds);
        }
        if !from.is_multiple_of(SECTOR_SIZE) || !to.is_multiple_of(SECTOR_SIZE) {
            return Err(FlashError::NotAligned);
        }
        let first = (self.base + from - BANK2_BASE) / SECTOR_SIZE;
        let end = (self.base + to - BANK2_BASE) / SECTOR_SIZE;
        // At most 8 sectors in a bank: both fit in a u8.
        Ok(first as u8..end as u8)
    }

    /// Offset from the region's start of the bus address `address` (inside the region).
    pub(crate) fn offset_of(&self, address: u32) -> u32 {
        address - self.base
    }
}

/// Index of the flash word holding bus address `address` in bank 2, as
/// FLASH_ECC_FA2R.FAIL_ECC_ADDR2 reports a failing word (15 bits: 2^15 words
/// of 32 bytes are the bank's 1 MiB).
pub(crate) fn bank2_word(address: u32) -> u32 {
    (address - BANK2_BASE) / WORD_SIZE
}

/// Splits `len` bytes at bus address `address` into pieces that each lie inside
/// one flash word: (address of the piece, its range in the caller's buffer).
pub(crate) fn word_pieces(address: u32, len: usize) -> impl Iterator<Item = (u32, Range<usize>)> {
    let mut done = 0usize;
    core::iter::from_fn(move || {
        if done == len {
            return None;
        }
        // `done < len`, and the caller checked that `address + len` fits in bank 2.
        let at = address + done as u32;
        let room = (WORD_SIZE - at % WORD_SIZE) as usize;
        let n = room.min(len - done);
        let piece = (at, done..done + n);
        done += n;
        Some(piece)
    })
}

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    use super::*;

    const BANK2: Range<u32> = 0x10_0000..0x20_0000;

    #[test]
    fn region_is_whole_sectors_of_bank_2() {
        let all = Region::new(BANK2).unwrap();
        assert_eq!(all.size(), 1024 * 1024);
        assert_eq!(
            Region::new(0x16_0000..0x18_0000).unwrap().size(),
            SECTOR_SIZE
        );
        for bad in [
            0x0..0x2_0000,        // bank 1: the program
            0xE_0000..0x12_0000,  // straddles both banks
            0x10_0000..0x22_0000, // past bank 2
            0x10_0000..0x10_0000, // empty
            0x10_1000..0x12_0000, // not a sector boundary
            0x10_0000..0x11_ff00, // not a sector boundary
            Range {
                start: 0x12_0000,
                end: 0x10_0000,
            }, // reversed
        ] {
            assert_eq!(
                Region::new(bad.clone()),
                Err(SetupError::Region),
                "{bad:x?}"
            );
        }
    }

    #[test]
    fn reads_stay_inside_and_map_to_bank_2() {
        let r = Region::new(0x14_0000..0x18_0000).unwrap();
        assert_eq!(r.read_address(0, 1), Ok(0x0814_0000));
        assert_eq!(r.read_address(0x3_ffff, 1), Ok(0x0817_ffff));
        assert_eq!(r.read_address(0x4_0000, 0), Ok(0x0818_0000));
        assert_eq!(r.read_address(0x3_ffff, 2), Err(FlashError::OutOfBounds));
        assert_eq!(r.read_address(u32::MAX, 2), Err(FlashError::OutOfBounds));
        assert_eq!(r.offset_of(0x0814_0040), 0x40);
    }

    #[test]
    fn writes_are_whole_flash_words() {
        let r = Region::new(BANK2).unwrap();
        assert_eq!(r.write_address(32, 64), Ok(0x0810_0020));
        assert_eq!(r.write_address(16, 32), Err(FlashError::NotAligned));
        assert_eq!(r.write_address(32, 31), Err(FlashError::NotAligned));
        assert_eq!(r.write_address(0xf_ffe0, 32), Ok(0x081f_ffe0));
        assert_eq!(r.write_address(0xf_ffe0, 64), Err(FlashError::OutOfBounds));
    }

    #[test]
    fn erases_name_bank_2_sectors() {
        let all = Region::new(BANK2).unwrap();
        assert_eq!(all.sectors(0, 0x10_0000), Ok(0..8));
        assert_eq!(all.sectors(0x2_0000, 0x4_0000), Ok(1..2));
        assert_eq!(all.sectors(0x2_0000, 0x2_0000), Ok(1..1));
        let upper = Region::new(0x1C_0000..0x20_0000).unwrap();
        assert_eq!(upper.sectors(0, 0x4_0000), Ok(6..8));
        assert_eq!(upper.sectors(0, 0x6_0000), Err(FlashError::OutOfBounds));
        assert_eq!(all.sectors(0x1000, 0x2_0000), Err(FlashError::NotAligned));
        assert_eq!(all.sectors(0, 0x1_0000), Err(FlashError::NotAligned));
        assert_eq!(
            all.sectors(0x4_0000, 0x2_0000),
            Err(FlashError::OutOfBounds)
        );
    }

    #[test]
    fn fail_address_word_index_covers_the_bank_in_15_bits() {
        assert_eq!(bank2_word(BANK2_BASE), 0);
        assert_eq!(bank2_word(BANK2_BASE + 31), 0);
        assert_eq!(bank2_word(BANK2_BASE + 32), 1);
        assert_eq!(bank2_word(BANK2_BASE + BANK_SIZE - 1), 0x7fff);
    }

    #[test]
    fn pieces_never_cross_a_flash_word() {
        let pieces: Vec<_> = word_pieces(0x0810_001e, 70).collect();
        assert_eq!(
            pieces,
            [
                (0x0810_001e, 0..2),
                (0x0810_0020, 2..34),
                (0x0810_0040, 34..66),
                (0x0810_0060, 66..70),
            ]
        );
        assert_eq!(word_pieces(0x0810_0000, 0).count(), 0);
        assert_eq!(
            word_pieces(0x0810_0004, 3).collect::<Vec<_>>(),
            [(0x0810_0004, 0..3)]
        );
        // Every piece lies inside one word, and together they cover the buffer once.
        for start in 0x0810_0000..0x0810_0040u32 {
            for len in 0..100usize {
                let mut next = 0;
                for (at, range) in word_pieces(start, len) {
                    assert_eq!(at, start + next as u32);
                    assert_eq!(range.start, next);
                    assert_eq!(bank2_word(at), bank2_word(at + (range.len() as u32 - 1)));
                    next = range.end;
                }
                assert_eq!(next, len);
            }
        }
    }
}
