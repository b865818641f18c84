//! What the host tests of the control crate share: a library in memory and
//! a runner on embassy-time's mock clock.
#![allow(dead_code, reason = "each test uses its part")]

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::sync::Mutex as StdMutex;
use std::task::{Context, Poll, Wake, Waker};

use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::mutex::Mutex;
use embassy_time::{Duration, Instant, MockDriver};
use llv_control::mock::MemoryLibrary;

/// The library the tests share.
pub type SharedStore = Mutex<CriticalSectionRawMutex, MemoryLibrary>;

/// The mock clock is one per process: tests that move it take turns.
static CLOCK: StdMutex<()> = StdMutex::new(());

/// This test's turn on the mock clock (a test that failed holding it does
/// not fail the others).
pub fn clock() -> std::sync::MutexGuard<'static, ()> {
    CLOCK
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs `fut` to its end, moving the mock clock on 1 ms whenever it waits;
/// returns its output and the mock time it took. Panics past `limit`.
pub fn on_mock_clock<F: Future>(fut: F, limit: Duration) -> (F::Output, Duration) {
    let start = Instant::now();
    let mut fut = pin!(fut);
    let woken = Arc::new(Woken(AtomicBool::new(false)));
    let waker = Waker::from(woken.clone());
    let mut cx = Context::from_waker(&waker);
    loop {
        woken.0.store(false, Ordering::Relaxed);
        if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
            return (out, Instant::now() - start);
        }
        // Time moves only when nothing is ready to run at this instant.
        if !woken.0.load(Ordering::Relaxed) {
            assert!(
                Instant::now() - start < limit,
                "still running after {limit:?}"
            );
            MockDriver::get().advance(Duration::from_millis(1));
        }
    }
}

/// Notes that the future under test woke itself.
pub struct Woken(AtomicBool);

impl Wake for Woken {
    fn wake(self: Arc<Self>) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// An empty library of 16 KiB.
pub fn store() -> SharedStore {
    let mut library = MemoryLibrary::new();
    library.capacity = 16 * 1024;
    Mutex::new(library)
}

/// A library whose stored settings cannot be read: the box is locked, its token unknown.
pub fn locked_store() -> SharedStore {
    let mut library = MemoryLibrary::new();
    library.locked = true;
    let unreadable = llv_control::mock::library::fault(
        llv_core::control::FaultCode::SettingsUnreadable,
        "settings record (schema 99) damaged: locked; factory reset",
    );
    library.faults.push(unreadable).unwrap();
    Mutex::new(library)
}
