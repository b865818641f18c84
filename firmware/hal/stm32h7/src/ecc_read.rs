//! Reading bank 2 without a bus fault on a torn flash word.
//!
//! A CPU load from a flash word with a double-bit ECC error ends in an AXI error
//! response: a precise BusFault, escalated to HardFault since BusFault is not
//! enabled. Loads made at execution priority -1 (FAULTMASK set) with
//! SCB.CCR.BFHFNMIGN set ignore that fault and return an UNKNOWN value (ARMv7-M
//! Architecture Reference Manual: CCR.BFHFNMIGN, FAULTMASK). The flash interface
//! still raises FLASH_SR2.DBECCERR and latches the failing word in
//! FLASH_ECC_FA2R, which is how the read learns that its bytes are garbage.
//! Zephyr's `flash_stm32h7_read` does the same (zephyr PR 34374).

use core::arch::asm;
use core::sync::atomic::{compiler_fence, Ordering};

use cortex_m::peripheral::SCB;
use stm32_metapac::flash::regs::Sr;
use stm32_metapac::FLASH;

use crate::status;

/// SCB.CCR bit 8: handlers at priority -1 and -2 ignore data bus faults.
const BFHFNMIGN: u32 = 1 << 8;

/// Copies the bytes at bus address `address` (all inside one flash word of
/// bank 2) into `buf` with data bus faults ignored, and returns FLASH_SR2 and
/// the failing word of FLASH_ECC_FA2R as they stand right after. If SR2 reports
/// a double-bit error in this word, `buf` holds garbage.
pub(crate) fn read_piece(address: u32, buf: &mut [u8]) -> (Sr, u32) {
    let bank2 = FLASH.bank(1);
    // FA2R latches only while no ECC flag is set: clear them so a flag set now
    // belongs to an access from here on. The DSB makes the clear land before
    // the loads (the loads are to Normal memory, CCR2 is Device memory).
    bank2.ccr().write_value(status::clear_ecc());
    cortex_m::asm::dsb();

    // cortex-m names the states from the exceptions' side: `Inactive` means
    // FAULTMASK is set (every exception but NMI masked), `Active` that it is clear.
    let faultmask_was_set = cortex_m::register::faultmask::read().is_inactive();
    // SAFETY: `cpsid f` only raises the execution priority to -1 (no interrupt
    // but NMI can preempt) until the matching `cpsie f` below; it touches no
    // memory the compiler knows about, and without `nomem` it is also a compiler
    // barrier, so no load of `address` moves above it.
    unsafe { asm!("cpsid f", options(nostack, preserves_flags)) };
    // SAFETY: SCB.CCR is a core register; with FAULTMASK set nothing can preempt
    // this read-modify-write, and the value is restored below before FAULTMASK
    // is lowered. Setting BFHFNMIGN changes no memory mapping.
    let ccr = unsafe { (*SCB::PTR).ccr.read() };
    unsafe { (*SCB::PTR).ccr.write(ccr | BFHFNMIGN) };
    cortex_m::asm::dsb();
    cortex_m::asm::isb();
    compiler_fence(Ordering::SeqCst);

    for (i, byte) in buf.iter_mut().enumerate() {
        // SAFETY: the caller checked that `address..address + buf.len()` lies in
        // bank 2, which is always mapped and readable; a load that hits an ECC
        // error does not fault here (BFHFNMIGN at priority -1) but returns an
        // unknown byte, which the caller discards when SR2 says so. Volatile:
        // every load happens, in order, between the fences.
        *byte = unsafe { core::ptr::read_volatile((address + i as u32) as *const u8) };
    }

    compiler_fence(Ordering::SeqCst);
    // Every load (and its error response) is complete before faults count again.
    cortex_m::asm::dsb();
    // SAFETY: restores the value read above, still under FAULTMASK.
    unsafe { (*SCB::PTR).ccr.write(ccr) };
    cortex_m::asm::dsb();
    cortex_m::asm::isb();
    if !faultmask_was_set {
        // SAFETY: lowers FAULTMASK only if it was clear on entry; a compiler
        // barrier like `cpsid f` above.
        unsafe { asm!("cpsie f", options(nostack, preserves_flags)) };
    }

    let sr = bank2.sr().read();
    let failing_word = u32::from(bank2.far().read().fail_ecc_addr());
    (sr, failing_word)
}
