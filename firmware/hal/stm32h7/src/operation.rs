//! One program or erase on bank 2, from unlock to relock: start it through
//! FLASH_CR2, await its end on the FLASH interrupt (EOP or an error flag) with
//! a bounded number of timer polls as a fallback, then report and clear its
//! flags through FLASH_CCR2.
//!
//! The sequences follow RM0433's "FLASH program operations" and "FLASH erase
//! operations" and ST's HAL (`HAL_FLASH_Program`, `FLASH_Erase_Sector`,
//! `FLASH_WaitForLastOperation`): wait for QW to clear, clear the error flags,
//! unlock with the two keys, set PG (or SER + SNB, then START), write the
//! 256-bit word as eight 32-bit stores, wait for QW to clear, check the error
//! flags, clear PG/SER.

use core::future::poll_fn;
use core::task::Poll;

use embassy_futures::select::select;
use embassy_stm32::interrupt::typelevel::{Handler, FLASH as FlashInterrupt};
use embassy_sync::waitqueue::AtomicWaker;
use embassy_time::{Duration, Timer};
use stm32_metapac::flash::regs::Sr;
use stm32_metapac::FLASH;

use crate::error::FlashError;
use crate::status;

/// FLASH_KEYR2 unlock sequence (RM0433 "FLASH_KEYR": KEY1, then KEY2).
const KEY1: u32 = 0x4567_0123;
const KEY2: u32 = 0xCDEF_89AB;

/// Woken by the FLASH interrupt at the end of a bank-2 operation.
static WAKER: AtomicWaker = AtomicWaker::new();

/// How long, and how often, to look at the bank while waiting for it.
#[derive(Clone, Copy)]
pub(crate) struct Patience {
    /// Timer period of the fallback poll (the interrupt normally comes first).
    period: Duration,
    /// Polls before giving up.
    polls: u32,
}

/// A 128 KiB sector erase takes 1.1 s typical, 2.2 s at most with 32-bit
/// parallelism (STM32H743 datasheet, t_ERASE128KB): wait up to 4 s.
pub(crate) const ERASE: Patience = Patience {
    period: Duration::from_millis(10),
    polls: 400,
};

/// Programming one flash word takes tens of microseconds: wait up to 100 ms.
const PROGRAM: Patience = Patience {
    period: Duration::from_millis(1),
    polls: 100,
};

/// Handles the FLASH interrupt for bank 2: bind it with
/// `bind_interrupts!(struct Irqs { FLASH => llv_hal_stm32h7::InterruptHandler; })`.
pub struct InterruptHandler;

impl Handler<FlashInterrupt> for InterruptHandler {
    unsafe fn on_interrupt() {
        let cr2 = FLASH.bank(1).cr();
        let enabled = cr2.read();
        let masked = status::without_interrupts(enabled);
        // The flags stay set for the waiting task, which reads and clears them;
        // masking the enables stops the (level) interrupt from firing again.
        if masked.0 != enabled.0 {
            cr2.write_value(masked);
        }
        WAKER.wake();
    }
}

/// Waits until bank 2 is neither busy nor has an operation queued; returns
/// FLASH_SR2 then. Woken by the interrupt, or by the timer every `period`.
pub(crate) async fn wait_idle(patience: Patience) -> Result<Sr, FlashError> {
    let sr2 = FLASH.bank(1).sr();
    for _ in 0..patience.polls {
        let sr = sr2.read();
        if !status::busy(sr) {
            return Ok(sr);
        }
        let end = poll_fn(|cx| {
            WAKER.register(cx.waker());
            if status::busy(sr2.read()) {
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        });
        select(end, Timer::after(patience.period)).await;
    }
    let sr = sr2.read();
    if status::busy(sr) {
        Err(FlashError::Timeout)
    } else {
        Ok(sr)
    }
}

/// Programs the 32-byte flash word `word` at bus address `address` (32-byte
/// aligned, in bank 2, blank: the caller checks all three).
pub(crate) async fn program_word(address: u32, word: &[u8]) -> Result<(), FlashError> {
    begin().await?;
    let bank2 = FLASH.bank(1);
    bank2.cr().write_value(status::program());
    // PG is set before the first data write reaches the flash interface.
    cortex_m::asm::dsb();
    cortex_m::asm::isb();
    for (i, bytes) in word.chunks_exact(4).enumerate() {
        let value = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        let at = address + 4 * i as u32;
        // SAFETY: `at` is 4-byte aligned inside bank 2 (the caller checked the
        // word), PG is set, so the store goes to the flash interface's write
        // buffer; bank 2 holds no Rust object (the image lives in bank 1), so no
        // reference is invalidated.
        unsafe { core::ptr::write_volatile(at as *mut u32, value) };
    }
    // The eighth store fills the write buffer and sets QW; the DSB makes sure it
    // has reached the flash interface before SR2 is read.
    cortex_m::asm::dsb();
    end(PROGRAM).await
}

/// Erases bank-2 sector `snb` (0..=7).
pub(crate) async fn erase_sector(snb: u8) -> Result<(), FlashError> {
    begin().await?;
    let cr2 = FLASH.bank(1).cr();
    let erase = status::erase(snb);
    cr2.write_value(erase);
    cr2.write_value(status::start(erase));
    cortex_m::asm::dsb();
    end(ERASE).await
}

/// Waits out any operation still running (one a dropped future started, or
/// one that timed out), clears every flag of FLASH_SR2 through FLASH_CCR2 (a
/// stale flag would otherwise fail this operation) and unlocks FLASH_CR2.
async fn begin() -> Result<(), FlashError> {
    wait_idle(ERASE).await?;
    let bank2 = FLASH.bank(1);
    bank2.ccr().write_value(status::clear_all());
    if bank2.cr().read().lock() {
        bank2.keyr().write_value(KEY1);
        bank2.keyr().write_value(KEY2);
    }
    if bank2.cr().read().lock() {
        return Err(FlashError::Locked);
    }
    Ok(())
}

/// Waits for the operation to end, relocks FLASH_CR2 (clearing PG/SER and the
/// interrupt enables), clears the flags and reports the error flags. After a
/// timeout the operation is still running: FLASH_CR2 is left alone and the
/// next [`begin`] waits for it.
async fn end(patience: Patience) -> Result<(), FlashError> {
    let sr = wait_idle(patience).await?;
    let bank2 = FLASH.bank(1);
    bank2.cr().write_value(status::locked());
    bank2.ccr().write_value(status::clear_all());
    status::op_result(sr)
}
