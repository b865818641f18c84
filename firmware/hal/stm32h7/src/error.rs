//! What can go wrong: setting the driver up, and each read, write or erase.

use embedded_storage_async::nor_flash::{NorFlashError, NorFlashErrorKind};

/// Why a read, write or erase failed. Offsets are from the start of the region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FlashError {
    /// The range is not inside the region.
    OutOfBounds,
    /// A write not on whole 32-byte flash words, or an erase not on whole sectors.
    NotAligned,
    /// The 32-byte flash word at `offset` holds a double-bit ECC error: a program
    /// or erase was cut short there. Its data is lost; erasing its sector repairs it.
    Ecc {
        /// Offset of the flash word (a multiple of 32).
        offset: u32,
    },
    /// The flash word at `offset` is not blank: programming it again would corrupt
    /// its ECC, so the write stopped before it.
    NotErased {
        /// Offset of the flash word (a multiple of 32).
        offset: u32,
    },
    /// The controller refused or failed the operation; `flags` holds FLASH_SR2's
    /// error bits (WRPERR 17, PGSERR 18, STRBERR 19, INCERR 21, OPERR 22).
    Failed {
        /// FLASH_SR2 masked to the program/erase error bits.
        flags: u32,
    },
    /// Bank 2 was still busy after the bounded wait (4 s for an erase).
    Timeout,
    /// FLASH_CR2 stayed locked after the unlock keys (a wrong key locks it until reset).
    Locked,
}

impl NorFlashError for FlashError {
    fn kind(&self) -> NorFlashErrorKind {
        match self {
            FlashError::OutOfBounds => NorFlashErrorKind::OutOfBounds,
            FlashError::NotAligned => NorFlashErrorKind::NotAligned,
            _ => NorFlashErrorKind::Other,
        }
    }
}

/// Why the driver cannot take the flash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SetupError {
    /// The region is empty, not whole sectors, or not inside bank 2.
    Region,
    /// The option bytes swap the banks (OPTSR_CUR.SWAP_BANK_OPT): bank 2's
    /// registers would then drive the bank the program runs from.
    BanksSwapped,
    /// The Cortex-M7 data cache is on: reads could return lines cached before
    /// an erase or program (the driver does not maintain the cache).
    DataCacheOn,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_for_the_traits_callers() {
        assert_eq!(
            FlashError::OutOfBounds.kind(),
            NorFlashErrorKind::OutOfBounds
        );
        assert_eq!(FlashError::NotAligned.kind(), NorFlashErrorKind::NotAligned);
        assert_eq!(
            FlashError::Ecc { offset: 64 }.kind(),
            NorFlashErrorKind::Other
        );
        assert_eq!(FlashError::Timeout.kind(), NorFlashErrorKind::Other);
    }
}
