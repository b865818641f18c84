//! The embassy-time driver, on the two CMSDK APB timers (25 MHz).
//!
//! Timer0 runs free from 0xFFFF_FFFF down; its wrap interrupt extends it to
//! 64 bits. Timer1 is the alarm: loaded with the number of counts until the
//! next expiry, it interrupts once and is then stopped. The tick rate must
//! divide 25 MHz (`tick-hz-1_000_000`: 25 counts per tick).

use core::cell::{Cell, RefCell};
use core::task::Waker;

use critical_section::{CriticalSection, Mutex};
use embassy_time_driver::Driver;
use embassy_time_queue_utils::Queue;

use crate::interrupt::{interrupt, Interrupt};
use crate::mmio::Regs;

/// Timer0, the free-running counter.
// SAFETY: CMSDK APB timer 0 of the AN386 image.
const COUNTER: Regs = unsafe { Regs::new(0x4000_0000) };
/// Timer1, the alarm.
// SAFETY: CMSDK APB timer 1 of the AN386 image.
const ALARM: Regs = unsafe { Regs::new(0x4000_1000) };
const CTRL: usize = 0x0;
const VALUE: usize = 0x4;
const RELOAD: usize = 0x8;
const INTSTATUS: usize = 0xC;
const CTRL_EN: u32 = 1 << 0;
const CTRL_IRQEN: u32 = 1 << 3;

/// Timer input clock over tick rate.
const COUNTS_PER_TICK: u64 = 25_000_000 / embassy_time_driver::TICK_HZ;
const _: () = assert!(
    25_000_000 % embassy_time_driver::TICK_HZ == 0,
    "tick rate must divide 25 MHz"
);

struct CmsdkDriver {
    /// Completed wraps of Timer0 (each is 2^32 counts).
    wraps: Mutex<Cell<u32>>,
    queue: Mutex<RefCell<Queue>>,
}

embassy_time_driver::time_driver_impl!(static DRIVER: CmsdkDriver = CmsdkDriver {
    wraps: Mutex::new(Cell::new(0)),
    queue: Mutex::new(RefCell::new(Queue::new())),
});

impl CmsdkDriver {
    /// Counts of Timer0 since `init`, as a 64-bit number.
    fn counts(&self, cs: CriticalSection<'_>) -> u64 {
        let mut wraps = self.wraps.borrow(cs).get();
        let value = COUNTER.read(VALUE);
        // The wrap interrupt may be pending but not yet served (we are in a
        // critical section). If the counter has already reloaded (it reads
        // high), count that wrap now; if it still reads near zero, the wrap
        // has not happened yet.
        if COUNTER.read(INTSTATUS) & 1 != 0 && value >= 0x8000_0000 {
            wraps += 1;
        }
        (u64::from(wraps) << 32) | u64::from(u32::MAX - value)
    }

    /// Program the alarm for tick `at`. Returns false if `at` has passed.
    fn set_alarm(&self, cs: CriticalSection<'_>, at: u64) -> bool {
        ALARM.write(CTRL, 0);
        ALARM.write(INTSTATUS, 1);
        if at == u64::MAX {
            return true;
        }
        let now = self.counts(cs);
        let target = at.saturating_mul(COUNTS_PER_TICK);
        if target <= now {
            return false;
        }
        // A far alarm fires early and is simply re-armed by `TIMER1`.
        let delta = (target - now).min(u64::from(u32::MAX)) as u32;
        ALARM.write(RELOAD, delta);
        ALARM.write(CTRL, CTRL_EN | CTRL_IRQEN);
        true
    }

    fn rearm(&self, cs: CriticalSection<'_>) {
        let mut queue = self.queue.borrow(cs).borrow_mut();
        let mut next = queue.next_expiration(self.counts(cs) / COUNTS_PER_TICK);
        while !self.set_alarm(cs, next) {
            next = queue.next_expiration(self.counts(cs) / COUNTS_PER_TICK);
        }
    }
}

impl Driver for CmsdkDriver {
    fn now(&self) -> u64 {
        critical_section::with(|cs| self.counts(cs) / COUNTS_PER_TICK)
    }

    fn schedule_wake(&self, at: u64, waker: &Waker) {
        critical_section::with(|cs| {
            let changed = self.queue.borrow(cs).borrow_mut().schedule_wake(at, waker);
            if changed {
                self.rearm(cs);
            }
        })
    }
}

/// Starts the clock: Timer0 free-running, Timer1 stopped, both lines unmasked.
pub fn init() {
    COUNTER.write(CTRL, 0);
    ALARM.write(CTRL, 0);
    COUNTER.write(INTSTATUS, 1);
    ALARM.write(INTSTATUS, 1);
    COUNTER.write(RELOAD, u32::MAX);
    COUNTER.write(CTRL, CTRL_EN | CTRL_IRQEN);
    Interrupt::TIMER0.unmask();
    Interrupt::TIMER1.unmask();
}

/// Timer0 wrapped: one more 2^32 counts.
#[interrupt]
fn TIMER0() {
    critical_section::with(|cs| {
        if COUNTER.read(INTSTATUS) & 1 != 0 {
            COUNTER.write(INTSTATUS, 1);
            let wraps = DRIVER.wraps.borrow(cs);
            wraps.set(wraps.get().wrapping_add(1));
        }
    })
}

/// Timer1 reached zero: wake what is due and program the next alarm.
#[interrupt]
fn TIMER1() {
    critical_section::with(|cs| DRIVER.rearm(cs));
}
