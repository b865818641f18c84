//! What the host tests of the control crate share: a store on the mock
//! flash and a runner on embassy-time's mock clock.
#![allow(dead_code, reason = "each test uses its part")]

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::sync::Mutex as StdMutex;
use std::task::{Context, Poll, Wake, Waker};

use embassy_futures::block_on;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::mutex::Mutex;
use embassy_time::{Duration, Instant, MockDriver};
use llv_box_store::mock::MockFlash;
use llv_box_store::Store;

pub type Flash = MockFlash<4, 1024>;
/// The store the tests share.
pub type StoreOf = Store<Flash>;
pub type SharedStore = Mutex<CriticalSectionRawMutex, StoreOf>;

/// The mock clock is one per process: tests that move it take turns.
pub static CLOCK: StdMutex<()> = StdMutex::new(());

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

/// A store on 18 KiB of mock flash (2 settings blocks, 16 take blocks).
pub fn store() -> SharedStore {
    let flash = Flash::new(18 * 1024);
    Mutex::new(block_on(Store::mount(flash, 0..18 * 1024)))
}

/// A store whose settings record is of a newer schema (99): the box is
/// locked, its token unknown.
pub fn locked_store() -> SharedStore {
    use embedded_storage_async::nor_flash::NorFlash;
    let payload = [0u8; 5];
    let mut record = b"LLVS".to_vec();
    record.extend(1u32.to_le_bytes());
    record.extend((payload.len() as u16).to_le_bytes());
    record.extend(99u16.to_le_bytes());
    let crc = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC)
        .checksum(&[&record[4..12], &payload[..]].concat());
    record.extend(crc.to_le_bytes());
    record.extend(payload);
    record.resize(32, 0xFF);
    let mut flash = Flash::new(18 * 1024);
    block_on(flash.write(0, &record)).unwrap();
    Mutex::new(block_on(Store::mount(flash, 0..18 * 1024)))
}
