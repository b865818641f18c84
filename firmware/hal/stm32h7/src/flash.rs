//! [`Bank2Flash`]: the `embedded_storage_async` NOR flash over whole sectors of
//! bank 2, for a store that must survive power cuts.

use core::ops::Range;

use cortex_m::peripheral::SCB;
use embassy_stm32::interrupt::typelevel::{Binding, FLASH as FlashInterrupt};
use embassy_stm32::interrupt::InterruptExt;
use embassy_stm32::peripherals::FLASH as FlashPeripheral;
use embassy_stm32::{interrupt, Peri};
use embedded_storage_async::nor_flash::{ErrorType, NorFlash, ReadNorFlash};
use stm32_metapac::FLASH;

use crate::ecc_read;
use crate::error::{FlashError, SetupError};
use crate::geometry::{bank2_word, word_pieces, Region, SECTOR_SIZE, WORD_SIZE};
use crate::operation::{self, InterruptHandler, ERASE};
use crate::status::{self, ReadCheck};

/// The sectors of bank 2 the board gives to its store, addressed from 0.
///
/// Reads are ECC-safe (a torn flash word is [`FlashError::Ecc`], never a
/// HardFault); writes and erases await the FLASH interrupt, so the executor
/// keeps running while bank 2 is busy (the program runs from bank 1).
pub struct Bank2Flash<'d> {
    _flash: Peri<'d, FlashPeripheral>,
    region: Region,
    corrected: u32,
}

impl<'d> Bank2Flash<'d> {
    /// Takes the flash controller for `region`: offsets from the start of flash,
    /// whole sectors inside bank 2 (`0x10_0000..0x20_0000` is the whole bank).
    /// `irq` proves the FLASH interrupt is bound to [`InterruptHandler`].
    pub fn new(
        flash: Peri<'d, FlashPeripheral>,
        _irq: impl Binding<FlashInterrupt, InterruptHandler> + 'd,
        region: Range<u32>,
    ) -> Result<Self, SetupError> {
        let region = Region::new(region)?;
        if FLASH.optsr_cur().read().swap_bank_opt() {
            return Err(SetupError::BanksSwapped);
        }
        if SCB::dcache_enabled() {
            return Err(SetupError::DataCacheOn);
        }
        interrupt::FLASH.unpend();
        // SAFETY: `_irq` proves the FLASH vector runs `InterruptHandler`, which
        // only masks FLASH_CR2's interrupt enables and wakes a waker.
        unsafe { interrupt::FLASH.enable() };
        Ok(Bank2Flash {
            _flash: flash,
            region,
            corrected: 0,
        })
    }

    /// The region, in bank 2.
    pub fn region(&self) -> Region {
        self.region
    }

    /// Single-bit ECC errors the flash corrected on reads so far (the data was good).
    pub fn corrected_errors(&self) -> u32 {
        self.corrected
    }

    /// Reads `buf.len()` bytes at bus address `address`, all inside one flash word.
    fn read_in_word(&mut self, address: u32, buf: &mut [u8]) -> Result<(), FlashError> {
        let word = bank2_word(address);
        // A double-bit error reported for another word came from an access
        // outside this read (a speculative fetch): read once more, then trust it.
        for _ in 0..2 {
            let (sr, failing_word) = ecc_read::read_piece(address, buf);
            let check = status::read_check(sr, failing_word, word);
            if check != ReadCheck::Clean {
                FLASH.bank(1).ccr().write_value(status::clear_ecc());
            }
            match check {
                ReadCheck::Clean => return Ok(()),
                ReadCheck::Corrected => {
                    self.corrected = self.corrected.saturating_add(1);
                    return Ok(());
                }
                ReadCheck::Torn => {
                    let offset = self.region.offset_of(address - address % WORD_SIZE);
                    return Err(FlashError::Ecc { offset });
                }
                ReadCheck::Elsewhere => {}
            }
        }
        Ok(())
    }
}

impl ErrorType for Bank2Flash<'_> {
    type Error = FlashError;
}

impl ReadNorFlash for Bank2Flash<'_> {
    const READ_SIZE: usize = 1;

    /// On [`FlashError::Ecc`], the bytes before the torn word hold the data; the rest are unspecified.
    async fn read(&mut self, offset: u32, bytes: &mut [u8]) -> Result<(), FlashError> {
        let address = self.region.read_address(offset, bytes.len())?;
        // A read of a bank that is being programmed or erased stalls the bus
        // until it ends: wait for an operation a dropped future left running.
        operation::wait_idle(ERASE).await?;
        for (at, range) in word_pieces(address, bytes.len()) {
            self.read_in_word(at, &mut bytes[range])?;
        }
        Ok(())
    }

    fn capacity(&self) -> usize {
        self.region.size() as usize
    }
}

impl NorFlash for Bank2Flash<'_> {
    const WRITE_SIZE: usize = WORD_SIZE as usize;
    const ERASE_SIZE: usize = SECTOR_SIZE as usize;

    /// Programs whole flash words, each checked blank first ([`FlashError::NotErased`]).
    async fn write(&mut self, offset: u32, bytes: &[u8]) -> Result<(), FlashError> {
        let address = self.region.write_address(offset, bytes.len())?;
        for (i, word) in bytes.chunks_exact(WORD_SIZE as usize).enumerate() {
            let at = address + i as u32 * WORD_SIZE;
            operation::wait_idle(ERASE).await?;
            let mut current = [0u8; WORD_SIZE as usize];
            self.read_in_word(at, &mut current)?;
            if current.iter().any(|&b| b != 0xFF) {
                return Err(FlashError::NotErased {
                    offset: self.region.offset_of(at),
                });
            }
            operation::program_word(at, word).await?;
        }
        Ok(())
    }

    async fn erase(&mut self, from: u32, to: u32) -> Result<(), FlashError> {
        for snb in self.region.sectors(from, to)? {
            operation::erase_sector(snb).await?;
        }
        Ok(())
    }
}
