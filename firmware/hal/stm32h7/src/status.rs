//! Bank 2's control and status words: what to write to FLASH_CR2 and FLASH_CCR2
//! for each step, and what FLASH_SR2 means after it. Pure values over the PAC's
//! register types (field positions from ST's SVD), so the host tests check them
//! against the bit numbers of RM0433's FLASH_CRx / FLASH_SRx / FLASH_CCRx.
//!
//! FLASH_SRx is read-only: its flags clear only by writing 1 to the matching
//! CLR_ bit of FLASH_CCRx (ST's HAL: `__HAL_FLASH_CLEAR_FLAG_BANK2` writes CCR2).

use stm32_metapac::flash::regs::{Ccr, Cr, Sr};

use crate::error::FlashError;

/// FLASH_CRx.PSIZE for 32-bit program/erase parallelism (0b10; ST's
/// `FLASH_VOLTAGE_RANGE_3`), valid over the whole 1.62-3.6 V supply range.
const PSIZE_X32: u8 = 0b10;

/// Is the bank working: an operation running (BSY) or queued (QW)?
pub(crate) fn busy(sr: Sr) -> bool {
    sr.bsy() || sr.qw()
}

/// The program/erase error flags of `sr` (WRPERR, PGSERR, STRBERR, INCERR,
/// OPERR), as `FlashError::Failed`. Read-side flags (RDPERR, RDSERR, SNECCERR,
/// DBECCERR, CRCRDERR) say nothing about the operation and are left out.
pub(crate) fn op_result(sr: Sr) -> Result<(), FlashError> {
    let mut errors = Sr(0);
    errors.set_wrperr(true);
    errors.set_pgserr(true);
    errors.set_strberr(true);
    errors.set_incerr(true);
    errors.set_operr(true);
    match sr.0 & errors.0 {
        0 => Ok(()),
        flags => Err(FlashError::Failed { flags }),
    }
}

/// FLASH_CCRx value that clears every flag of FLASH_SRx (and FLASH_ECC_FAxR).
pub(crate) fn clear_all() -> Ccr {
    let mut c = Ccr(0);
    c.set_clr_eop(true);
    c.set_clr_wrperr(true);
    c.set_clr_pgserr(true);
    c.set_clr_strberr(true);
    c.set_clr_incerr(true);
    c.set_clr_operr(true);
    c.set_clr_rdperr(true);
    c.set_clr_rdserr(true);
    c.set_clr_sneccerr(true);
    c.set_clr_dbeccerr(true);
    c.set_clr_crcend(true);
    c.set_clr_crcrderr(true);
    c
}

/// FLASH_CCRx value that clears the two ECC flags (and so FLASH_ECC_FAxR).
pub(crate) fn clear_ecc() -> Ccr {
    let mut c = Ccr(0);
    c.set_clr_sneccerr(true);
    c.set_clr_dbeccerr(true);
    c
}

/// Enables the interrupts that end an operation: EOP and every program/erase error.
fn with_end_interrupts(cr: &mut Cr) {
    cr.set_eopie(true);
    cr.set_wrperrie(true);
    cr.set_pgserrie(true);
    cr.set_strberrie(true);
    cr.set_incerrie(true);
    cr.set_operrie(true);
}

/// FLASH_CRx for programming flash words: PG, 32-bit parallelism, end interrupts.
pub(crate) fn program() -> Cr {
    let mut cr = Cr(0);
    cr.set_pg(true);
    cr.set_psize(PSIZE_X32);
    with_end_interrupts(&mut cr);
    cr
}

/// FLASH_CRx for erasing sector `snb`: SER, SNB, 32-bit parallelism, end
/// interrupts. START goes in by a second write, once these are in place.
pub(crate) fn erase(snb: u8) -> Cr {
    let mut cr = Cr(0);
    cr.set_ser(true);
    cr.set_snb(snb);
    cr.set_psize(PSIZE_X32);
    with_end_interrupts(&mut cr);
    cr
}

/// `cr` with START set: begins the erase that `cr` describes.
pub(crate) fn start(mut cr: Cr) -> Cr {
    cr.set_start(true);
    cr
}

/// FLASH_CRx between operations: locked, nothing requested, no interrupts.
pub(crate) fn locked() -> Cr {
    let mut cr = Cr(0);
    cr.set_lock(true);
    cr
}

/// `cr` with every interrupt enable of FLASH_CRx cleared (the interrupt handler
/// masks them; the waiting task reads and clears the flags).
pub(crate) fn without_interrupts(mut cr: Cr) -> Cr {
    cr.set_eopie(false);
    cr.set_wrperrie(false);
    cr.set_pgserrie(false);
    cr.set_strberrie(false);
    cr.set_incerrie(false);
    cr.set_operrie(false);
    cr.set_rdperrie(false);
    cr.set_rdserrie(false);
    cr.set_sneccerrie(false);
    cr.set_dbeccerrie(false);
    cr.set_crcendie(false);
    cr.set_crcrderrie(false);
    cr
}

/// What FLASH_SR2 says about a read of the flash word with index `word`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReadCheck {
    /// No ECC flag: the data is what is stored.
    Clean,
    /// A single-bit error, corrected by the ECC: the data is good.
    Corrected,
    /// A double-bit error in this word: the data is garbage.
    Torn,
    /// A double-bit error in another word (FLASH_ECC_FA2R names it), which an
    /// access outside this read (a speculative fetch) touched: read again.
    Elsewhere,
}

/// Classifies a read of flash word `word` from FLASH_SR2 and the failing word
/// FLASH_ECC_FA2R reports. FA2R latches the first failing address while an ECC
/// flag is set, so the ECC flags must be cleared just before the read.
pub(crate) fn read_check(sr: Sr, failing_word: u32, word: u32) -> ReadCheck {
    if sr.dbeccerr() {
        if failing_word == word {
            ReadCheck::Torn
        } else {
            ReadCheck::Elsewhere
        }
    } else if sr.sneccerr1() {
        ReadCheck::Corrected
    } else {
        ReadCheck::Clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Bit numbers as RM0433 lists them for FLASH_CRx, FLASH_SRx and FLASH_CCRx
    // (the same as ST's CMSIS header, e.g. FLASH_CR_SNB_Pos = 8).
    const LOCK: u32 = 1 << 0;
    const PG: u32 = 1 << 1;
    const SER: u32 = 1 << 2;
    const PSIZE_32: u32 = 0b10 << 4;
    const START: u32 = 1 << 7;
    const SNB: u32 = 8;
    const END_IES: u32 = (1 << 16) | (1 << 17) | (1 << 18) | (1 << 19) | (1 << 21) | (1 << 22);
    const BSY: u32 = 1 << 0;
    const WBNE: u32 = 1 << 1;
    const QW: u32 = 1 << 2;
    const EOP: u32 = 1 << 16;
    const WRPERR: u32 = 1 << 17;
    const PGSERR: u32 = 1 << 18;
    const STRBERR: u32 = 1 << 19;
    const INCERR: u32 = 1 << 21;
    const OPERR: u32 = 1 << 22;
    const RDPERR: u32 = 1 << 23;
    const RDSERR: u32 = 1 << 24;
    const SNECCERR: u32 = 1 << 25;
    const DBECCERR: u32 = 1 << 26;
    const CRCRDERR: u32 = 1 << 28;

    #[test]
    fn control_words_match_the_manual() {
        assert_eq!(program().0, PG | PSIZE_32 | END_IES);
        assert_eq!(erase(0).0, SER | PSIZE_32 | END_IES);
        assert_eq!(erase(7).0, SER | PSIZE_32 | (7 << SNB) | END_IES);
        assert_eq!(start(erase(3)).0, erase(3).0 | START);
        assert_eq!(locked().0, LOCK);
        // The interrupt enables are bits 16..=28 but 20; clearing them keeps the rest.
        let all = Cr(u32::MAX);
        assert_eq!(without_interrupts(all).0, !0x1fef_0000);
        assert_eq!(without_interrupts(program()).0, PG | PSIZE_32);
    }

    #[test]
    fn clear_words_match_the_manual() {
        // CCRx: CLR_EOP 16 .. CLR_CRCRDERR 28, bit 20 reserved.
        assert_eq!(clear_all().0, 0x1fef_0000);
        assert_eq!(clear_ecc().0, SNECCERR | DBECCERR);
    }

    #[test]
    fn busy_is_bsy_or_qw() {
        assert!(busy(Sr(BSY)));
        assert!(busy(Sr(QW)));
        assert!(!busy(Sr(WBNE)));
        assert!(!busy(Sr(EOP | OPERR)));
        assert!(!busy(Sr(0)));
    }

    #[test]
    fn operation_errors_are_the_program_erase_flags_only() {
        assert_eq!(op_result(Sr(0)), Ok(()));
        assert_eq!(op_result(Sr(EOP)), Ok(()));
        // Stale read-side flags do not fail a write or an erase.
        assert_eq!(
            op_result(Sr(EOP | RDPERR | RDSERR | SNECCERR | DBECCERR | CRCRDERR)),
            Ok(())
        );
        for flag in [WRPERR, PGSERR, STRBERR, INCERR, OPERR] {
            assert_eq!(
                op_result(Sr(flag | EOP | SNECCERR)),
                Err(FlashError::Failed { flags: flag })
            );
        }
        assert_eq!(
            op_result(Sr(WRPERR | OPERR)),
            Err(FlashError::Failed {
                flags: WRPERR | OPERR
            })
        );
    }

    #[test]
    fn reads_classified_by_ecc_flags_and_failing_word() {
        assert_eq!(read_check(Sr(0), 0, 5), ReadCheck::Clean);
        assert_eq!(read_check(Sr(EOP | RDPERR), 0, 5), ReadCheck::Clean);
        assert_eq!(read_check(Sr(SNECCERR), 5, 5), ReadCheck::Corrected);
        assert_eq!(read_check(Sr(DBECCERR), 5, 5), ReadCheck::Torn);
        assert_eq!(read_check(Sr(DBECCERR | SNECCERR), 5, 5), ReadCheck::Torn);
        assert_eq!(read_check(Sr(DBECCERR), 6, 5), ReadCheck::Elsewhere);
    }
}
