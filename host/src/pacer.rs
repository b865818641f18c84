//! Waiting for a deadline as exactly as an unprivileged process can, on a
//! machine whose cores are busy (a laptop running Unreal beside `llv`).
//!
//! - [`Pacer::new`] asks for what the OS gives without privileges: 1 ns timer
//!   slack (`PR_SET_TIMERSLACK`; the default 50 µs lets the kernel fire
//!   late to batch wakeups), and real-time priority (`SCHED_FIFO`) where the
//!   process is allowed it (root, `CAP_SYS_NICE`, or an `rtprio` limit in
//!   `/etc/security/limits.conf`); [`Pacer::priority`] says which it got.
//! - [`Pacer::wait_until`] sleeps until a margin before the deadline, then
//!   spins. The margin follows how late the sleeps have woken lately (their
//!   worst over the last [`WINDOW`] waits, plus a little), from 0.2 to 4 ms: on
//!   a quiet machine the player barely spins, on a busy one it wakes early
//!   enough that a late wakeup does not make a late frame. Spinning costs CPU
//!   only while the machine is busy, which is when it is needed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// The least and the most a wait spins before its deadline.
const MARGIN: (Duration, Duration) = (Duration::from_micros(200), Duration::from_millis(4));
/// Waits whose oversleep decides the margin.
pub const WINDOW: usize = 120;
/// Added to the worst oversleep seen, for wakeups a little later still.
const HEADROOM: Duration = Duration::from_micros(300);
/// Longest single sleep, so a stop is seen within it.
const SLICE: Duration = Duration::from_millis(50);

/// What scheduling the pacing thread got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// `SCHED_FIFO`: the kernel runs this thread before any normal one.
    RealTime,
    /// The normal scheduler (the process may not raise its priority).
    Normal,
}

/// Sleeps and spins to deadlines; see the module docs.
pub struct Pacer {
    priority: Priority,
    /// How late the last [`WINDOW`] sleeps woke, past the time asked for.
    oversleeps: [Duration; WINDOW],
    next: usize,
}

impl Pacer {
    /// Sets the calling thread's timer slack to 1 ns and tries real-time priority.
    pub fn new() -> Self {
        Pacer {
            priority: raise_priority(),
            oversleeps: [Duration::ZERO; WINDOW],
            next: 0,
        }
    }

    /// What scheduling the thread got.
    pub fn priority(&self) -> Priority {
        self.priority
    }

    /// How long before a deadline the next wait stops sleeping.
    pub fn margin(&self) -> Duration {
        let worst = self.oversleeps.iter().max().copied().unwrap_or_default();
        (worst + HEADROOM).clamp(MARGIN.0, MARGIN.1)
    }

    /// Returns at `deadline` (at once if it has passed); false if `stop` was set first.
    pub fn wait_until(&mut self, deadline: Instant, stop: &AtomicBool) -> bool {
        let margin = self.margin();
        loop {
            if stop.load(Ordering::Relaxed) {
                return false;
            }
            let now = Instant::now();
            if now >= deadline {
                return true;
            }
            let left = deadline - now;
            if left > margin {
                let asked = (left - margin).min(SLICE);
                thread::sleep(asked);
                let over = now.elapsed().saturating_sub(asked);
                self.oversleeps[self.next] = over;
                self.next = (self.next + 1) % WINDOW;
            } else {
                std::hint::spin_loop();
            }
        }
    }
}

impl Default for Pacer {
    fn default() -> Self {
        Self::new()
    }
}

/// 1 ns timer slack, and `SCHED_FIFO` at a middle priority if allowed.
#[cfg(target_os = "linux")]
fn raise_priority() -> Priority {
    // SAFETY: prctl(PR_SET_TIMERSLACK) and sched_setscheduler(0, ...) only
    // change the calling thread's own scheduling; `param` outlives the call.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
        let param = libc::sched_param { sched_priority: 10 };
        if libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0 {
            Priority::RealTime
        } else {
            Priority::Normal
        }
    }
}

/// Elsewhere the normal scheduler; the margin still adapts.
#[cfg(not(target_os = "linux"))]
fn raise_priority() -> Priority {
    Priority::Normal
}
