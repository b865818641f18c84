//! The CMSDK APB watchdog: 0x4000_8000 on the AN386 image, clocked at
//! 25 MHz, its interrupt wired to the NMI.
//!
//! The counter counts down from WDOGLOAD. At zero it raises its interrupt
//! (the NMI) and starts again from WDOGLOAD; at zero a second time, with the
//! interrupt still raised and RESEN set, it resets the machine. A feed (any
//! write to WDOGINTCLR) clears the interrupt and reloads the counter. The
//! registers stay locked (WDOGLOCK) except during a start or a feed.
//!
//! The NMI handler here writes a mark into a RAM word that the C runtime
//! does not initialise, then waits for the reset; the next boot reads and
//! clears the mark with [`take_reset_cause`]. Under QEMU 7.2 a system reset
//! leaves that word alone, reloads the `-kernel` image and boots it with the
//! same command line (measured; see the firmware README).

use core::mem::MaybeUninit;
use core::ptr::{addr_of_mut, read_volatile, write_volatile};

use cortex_m_rt::exception;
use embassy_time::Duration;

use crate::mmio::Regs;

// SAFETY: the CMSDK APB watchdog of the AN386 image.
const WDOG: Regs = unsafe { Regs::new(0x4000_8000) };
const LOAD: usize = 0x000;
const CONTROL: usize = 0x008;
const INTCLR: usize = 0x00C;
const LOCK: usize = 0xC00;
const CONTROL_INTEN: u32 = 1 << 0;
const CONTROL_RESEN: u32 = 1 << 1;
/// WDOGLOCK's key; writing anything else locks the registers.
const UNLOCK: u32 = 0x1ACC_E551;
/// Watchdog clock (the machine's SYSCLK) in counts per microsecond.
const COUNTS_PER_US: u64 = 25;

/// The mark the NMI handler leaves for the next boot ("WDOG").
const WATCHDOG_MARK: u32 = 0x5744_4F47;

/// Left alone by the C runtime and, under QEMU, by a system reset: zero
/// when QEMU starts, garbage at power-on on real RAM.
#[link_section = ".uninit.llv_hal_mps2.reset_mark"]
static mut RESET_MARK: MaybeUninit<u32> = MaybeUninit::uninit();

/// What started the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, defmt::Format)]
pub enum ResetCause {
    /// The watchdog expired (its NMI ran) before this boot.
    Watchdog,
    /// Anything else: QEMU started, or power came on.
    PowerOn,
}

/// Why this boot happened; clears the mark, so ask once, early in `main`.
pub fn take_reset_cause() -> ResetCause {
    let mark = addr_of_mut!(RESET_MARK).cast::<u32>();
    // SAFETY: a word of RAM reserved for this module and accessed only with
    // volatile word accesses; any bit pattern is a valid u32.
    let cause = match unsafe { read_volatile(mark) } {
        WATCHDOG_MARK => ResetCause::Watchdog,
        _ => ResetCause::PowerOn,
    };
    // SAFETY: as above.
    unsafe { write_volatile(mark, 0) };
    cause
}

/// The running watchdog. There is no stop: once started, only a reset ends it.
pub struct Watchdog {
    _running: (),
}

impl Watchdog {
    /// Starts the watchdog: if not fed for `timeout` (at most about 171 s),
    /// its NMI marks the cause and the machine resets one `timeout` later.
    pub fn start(timeout: Duration) -> Self {
        let counts = timeout
            .as_micros()
            .saturating_mul(COUNTS_PER_US)
            .clamp(1, u64::from(u32::MAX)) as u32;
        WDOG.write(LOCK, UNLOCK);
        WDOG.write(LOAD, counts);
        WDOG.write(INTCLR, 1);
        WDOG.write(CONTROL, CONTROL_INTEN | CONTROL_RESEN);
        WDOG.write(LOCK, 0);
        Self { _running: () }
    }

    /// Reloads the counter: the next expiry is one `timeout` from now.
    pub fn feed(&mut self) {
        WDOG.write(LOCK, UNLOCK);
        WDOG.write(INTCLR, 1);
        WDOG.write(LOCK, 0);
    }
}

/// The watchdog expired (the only NMI source on this machine): leave the
/// mark and sleep until its second expiry resets the machine.
#[exception]
unsafe fn NonMaskableInt() -> ! {
    // SAFETY: as in `take_reset_cause`.
    unsafe { write_volatile(addr_of_mut!(RESET_MARK).cast::<u32>(), WATCHDOG_MARK) };
    loop {
        cortex_m::asm::wfi();
    }
}
