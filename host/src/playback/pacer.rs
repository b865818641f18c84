//! Waiting for a deadline as exactly as an unprivileged process can, on a
//! machine whose cores are busy (a laptop running Unreal beside `llv`).
//!
//! - [`Pacer::new`] asks for what the OS gives without privileges: 1 ns timer
//!   slack (`PR_SET_TIMERSLACK`; the default 50 µs lets the kernel fire
//!   late to batch wakeups), and real-time priority (`SCHED_FIFO`) where the
//!   process is allowed it (root, `CAP_SYS_NICE`, or an `rtprio` limit in
//!   `/etc/security/limits.conf`); [`Pacer::priority`] says which it got.
//! - [`Pacer::wait_until`] sleeps to the deadline. At normal priority it
//!   never spins: a spinning thread uses up its share of a busy machine and
//!   is then preempted for a whole time slice of the programs beside it (a
//!   few ms), which makes frames later, not earlier; the short slice gets its
//!   wakeups run at once instead. At real-time priority nothing preempts it,
//!   so it sleeps to [`RT_SPIN`] before the deadline and spins the rest.
//!
//! Measured with two busy processes on two cores, as an unprivileged user
//! (`host/benches/pacing.rs`): see host/README.md.

use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// How long before a deadline a real-time wait stops sleeping and spins.
pub const RT_SPIN: Duration = Duration::from_micros(100);
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

/// Waits for deadlines; see the module docs.
pub struct Pacer {
    priority: Priority,
    /// The thread's scheduling before, put back on drop; ties the pacer to its thread.
    saved: os::Saved,
}

impl Pacer {
    /// Sets the calling thread's timer slack to 1 ns and, if `real_time`, tries
    /// real-time priority.
    pub fn new(real_time: bool) -> Self {
        let (saved, priority) = os::raise(real_time);
        Pacer { priority, saved }
    }

    /// What scheduling the thread got.
    pub fn priority(&self) -> Priority {
        self.priority
    }

    /// Returns at `deadline` (at once if it has passed); false if `stop` was set first.
    pub fn wait_until(&mut self, deadline: Instant, stop: &AtomicBool) -> bool {
        let spin = match self.priority {
            Priority::RealTime => RT_SPIN,
            Priority::Normal => Duration::ZERO,
        };
        loop {
            if stop.load(Ordering::Relaxed) {
                return false;
            }
            let now = Instant::now();
            if now >= deadline {
                return true;
            }
            let left = deadline - now;
            if left > spin {
                thread::sleep((left - spin).min(SLICE));
            } else {
                std::hint::spin_loop();
            }
        }
    }
}

impl Drop for Pacer {
    /// Puts the thread's scheduling and timer slack back: the thread lives on,
    /// and what it starts (threads, processes) would inherit them.
    fn drop(&mut self) {
        os::restore(&self.saved);
    }
}

/// The only `unsafe` of the crate: the system calls that read and set the
/// calling thread's own scheduling, one call per `unsafe` block.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
mod os {
    use std::marker::PhantomData;

    use super::Priority;

    /// A thread's scheduling attributes and timer slack.
    pub struct Saved {
        attr: Option<libc::sched_attr>,
        slack: libc::c_int,
        /// The calls act on the calling thread: the pacer must stay on it.
        _thread: PhantomData<*const ()>,
    }

    /// 1 ns timer slack; `SCHED_FIFO` at a middle priority if `real_time` and
    /// allowed, else the normal scheduler with a short slice (see [`SLICE_NS`]).
    pub fn raise(real_time: bool) -> (Saved, Priority) {
        let slack = timer_slack();
        set_timer_slack(1);
        let size = std::mem::size_of::<libc::sched_attr>() as libc::c_uint;
        // SAFETY: `sched_attr` is a struct of integers, for which all zeroes is a value.
        let mut attr: libc::sched_attr = unsafe { std::mem::zeroed() };
        // SAFETY: sched_getattr(0, ...) reads the calling thread's own scheduling
        // into `attr`, which outlives the call; `size` is the size of `attr`.
        let got = unsafe { libc::syscall(libc::SYS_sched_getattr, 0, &mut attr, size, 0) } == 0;
        let saved = Saved {
            attr: got.then_some(attr),
            slack,
            _thread: PhantomData,
        };
        let mut fifo = attr;
        fifo.sched_policy = libc::SCHED_FIFO as u32;
        fifo.sched_priority = 10;
        fifo.sched_nice = 0;
        // Threads and processes started meanwhile stay normal.
        fifo.sched_flags = libc::SCHED_FLAG_RESET_ON_FORK as u64;
        if got && real_time && set_attr(&fifo) {
            return (saved, Priority::RealTime);
        }
        if got && attr.sched_policy == libc::SCHED_OTHER as u32 {
            let mut short = attr;
            short.sched_runtime = SLICE_NS;
            set_attr(&short);
        }
        (saved, Priority::Normal)
    }

    /// The slice asked of the normal scheduler (EEVDF, Linux 6.12+): a thread
    /// with a shorter slice than the running one preempts it when it wakes.
    /// Any thread may ask; older kernels ignore it.
    const SLICE_NS: u64 = 100_000;

    /// Puts back what [`raise`] changed.
    pub fn restore(saved: &Saved) {
        if let Some(attr) = &saved.attr {
            // The slice read back is the default one; 0 asks for the default again.
            set_attr(&libc::sched_attr {
                sched_runtime: 0,
                ..*attr
            });
        }
        set_timer_slack(saved.slack as libc::c_ulong);
    }

    /// The calling thread's timer slack, in ns.
    fn timer_slack() -> libc::c_int {
        // SAFETY: PR_GET_TIMERSLACK reads the calling thread's own timer slack;
        // it takes no pointer.
        unsafe { libc::prctl(libc::PR_GET_TIMERSLACK, 0, 0, 0, 0) }
    }

    /// Sets the calling thread's timer slack to `ns`.
    fn set_timer_slack(ns: libc::c_ulong) {
        // SAFETY: PR_SET_TIMERSLACK changes only the calling thread's own timer
        // slack; it takes no pointer.
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, ns, 0, 0, 0) };
    }

    /// Sets the calling thread's scheduling to `attr`; true if the kernel agreed.
    fn set_attr(attr: &libc::sched_attr) -> bool {
        // SAFETY: sched_setattr(0, ...) changes only the calling thread's own
        // scheduling and reads `attr`, which outlives the call and was read from
        // this thread by sched_getattr (so its `size` field is right).
        unsafe { libc::syscall(libc::SYS_sched_setattr, 0, attr, 0) == 0 }
    }

    /// The calling thread's scheduling policy and timer slack (for tests).
    #[cfg(test)]
    pub fn scheduling() -> (libc::c_int, libc::c_int) {
        // SAFETY: sched_getscheduler(0) reads the calling thread's own policy.
        let policy = unsafe { libc::sched_getscheduler(0) };
        (policy, timer_slack())
    }
}

/// Elsewhere the normal scheduler as it is.
#[cfg(not(target_os = "linux"))]
mod os {
    use super::Priority;

    /// Nothing changed, nothing to put back.
    pub struct Saved;

    pub fn raise(_real_time: bool) -> (Saved, Priority) {
        (Saved, Priority::Normal)
    }

    pub fn restore(_saved: &Saved) {}
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::os::scheduling;
    use super::*;

    #[test]
    fn a_dropped_pacer_puts_the_threads_scheduling_back() {
        thread::spawn(|| {
            let before = scheduling();
            let pacer = Pacer::new(true);
            let during = scheduling();
            // 1 ns as asked, or 0: real-time threads get none at all (Linux 6.7+).
            assert!(during.1 <= 1, "timer slack while pacing: {}", during.1);
            match pacer.priority() {
                Priority::RealTime => {
                    assert_eq!(during.0, libc::SCHED_FIFO | libc::SCHED_RESET_ON_FORK)
                }
                Priority::Normal => assert_eq!(during.0, before.0),
            }
            drop(pacer);
            assert_eq!(scheduling(), before);
        })
        .join()
        .expect("pacing thread");
    }

    #[test]
    fn waits_end_at_the_deadline_and_a_stop_ends_them_early() {
        let mut pacer = Pacer::new(false);
        let stop = AtomicBool::new(false);
        let deadline = Instant::now() + Duration::from_millis(30);
        assert!(pacer.wait_until(deadline, &stop));
        assert!(Instant::now() >= deadline);
        stop.store(true, Ordering::Relaxed);
        let far = Instant::now() + Duration::from_secs(10);
        assert!(!pacer.wait_until(far, &stop));
        assert!(Instant::now() < far);
    }
}
