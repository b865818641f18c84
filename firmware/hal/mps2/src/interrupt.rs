//! The device interrupt lines this crate's drivers use, and the device part
//! of the vector table (`__INTERRUPTS`, which cortex-m-rt's `device` feature
//! expects from a peripheral access crate; none exists for this machine).
//!
//! The table refers to handlers by symbol only; `device.x` makes each symbol
//! `DefaultHandler` unless a driver defines it with [`interrupt`] (the
//! attribute checks the name against [`Interrupt`]). Every other line runs
//! `DefaultHandler`.

use cortex_m::interrupt::InterruptNumber;
use cortex_m::peripheral::NVIC;
pub use cortex_m_rt::interrupt;

/// Device interrupt lines of the AN386 image (CMSDK subsystem numbering).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
#[allow(clippy::upper_case_acronyms)]
pub enum Interrupt {
    /// CMSDK APB timer 0 (the time driver's free-running counter).
    TIMER0 = 8,
    /// CMSDK APB timer 1 (the time driver's alarm).
    TIMER1 = 9,
    /// SMSC LAN9118 Ethernet.
    ETHERNET = 13,
}

/// The name `#[interrupt]` checks handler names against.
pub use self::Interrupt as interrupt;

// SAFETY: the numbers above are valid device interrupt lines of the machine.
unsafe impl InterruptNumber for Interrupt {
    fn number(self) -> u16 {
        self as u16
    }
}

impl Interrupt {
    /// Enables the line in the NVIC.
    pub fn unmask(self) {
        // SAFETY: every handler of these lines touches only state behind
        // critical sections or atomics, so enabling one cannot break a
        // critical section in progress.
        unsafe { NVIC::unmask(self) }
    }
}

extern "C" {
    fn DefaultHandler();
    fn TIMER0();
    fn TIMER1();
    fn ETHERNET();
}

/// Device interrupt lines of the AN386 image.
const LINES: usize = 32;

/// The device vector table.
#[link_section = ".vector_table.interrupts"]
#[no_mangle]
#[used]
pub static __INTERRUPTS: [unsafe extern "C" fn(); LINES] = {
    let mut table = [DefaultHandler as unsafe extern "C" fn(); LINES];
    table[Interrupt::TIMER0 as usize] = TIMER0;
    table[Interrupt::TIMER1 as usize] = TIMER1;
    table[Interrupt::ETHERNET as usize] = ETHERNET;
    table
};
