//! Blocks of 32-bit memory-mapped device registers.

use core::ptr::{read_volatile, write_volatile};

/// The registers of one device: 32-bit words at byte offsets from `base`.
#[derive(Clone, Copy)]
pub(crate) struct Regs {
    base: usize,
}

impl Regs {
    /// The register block at `base`.
    ///
    /// # Safety
    /// `base` must be the address of a device's register block on this
    /// machine, and every offset later read or written must lie inside it.
    pub(crate) const unsafe fn new(base: usize) -> Self {
        Self { base }
    }

    /// Reads the register at `offset`.
    pub(crate) fn read(self, offset: usize) -> u32 {
        // SAFETY: `new`'s contract: `base + offset` is a device register.
        unsafe { read_volatile((self.base + offset) as *const u32) }
    }

    /// Writes `value` to the register at `offset`.
    pub(crate) fn write(self, offset: usize, value: u32) {
        // SAFETY: as in `read`.
        unsafe { write_volatile((self.base + offset) as *mut u32, value) }
    }
}
