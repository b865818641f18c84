//! A thread-mode executor that sleeps with WFI.
//!
//! embassy's stock Cortex-M executor sleeps with WFE, which QEMU runs as a
//! no-op, so an idle guest would spin a host core. WFI does stop QEMU's vCPU
//! until an interrupt arrives. Interrupts are masked between the "anything to
//! do?" check and the WFI, so a wake-up in between is never lost: WFI returns
//! on a pending interrupt even while PRIMASK masks it.

use core::marker::PhantomData;
use core::sync::atomic::{AtomicBool, Ordering};

use embassy_executor::{raw, Spawner};

/// Set by the pender when a task was woken.
static WORK: AtomicBool = AtomicBool::new(false);

#[export_name = "__pender"]
fn pender(_context: *mut ()) {
    WORK.store(true, Ordering::Release);
}

/// The thread-mode executor; one per program, made once (e.g. in a `StaticCell`).
pub struct Executor {
    inner: raw::Executor,
    not_send: PhantomData<*mut ()>,
}

impl Executor {
    /// An executor with no tasks yet.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Self {
            inner: raw::Executor::new(core::ptr::null_mut()),
            not_send: PhantomData,
        }
    }

    /// Spawn the first tasks with `init`, then poll forever, sleeping in WFI
    /// whenever no task is ready.
    pub fn run(&'static mut self, init: impl FnOnce(Spawner)) -> ! {
        init(self.inner.spawner());
        loop {
            WORK.store(false, Ordering::Release);
            // SAFETY: `poll` is only called from this one thread-mode loop.
            unsafe { self.inner.poll() };
            cortex_m::interrupt::disable();
            if !WORK.load(Ordering::Acquire) {
                cortex_m::asm::wfi();
            }
            // SAFETY: interrupts were enabled when the loop started.
            unsafe { cortex_m::interrupt::enable() };
        }
    }
}
