//! Shared by the app's host tests: the mock clock, a recording sink and an
//! in-memory take.
#![allow(dead_code, reason = "each test binary uses a part of these helpers")]

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::sync::{Mutex, MutexGuard};
use std::task::{Context, Poll, Wake, Waker};

use embassy_time::{Duration, Instant, MockDriver};
use llv_box::sink::{Offer, PacketSink};
use llv_box::{Frame, FrameSource};
use llv_core::packet::MAX_LEN;
use llv_core::settings::Target;

/// The mock clock is one per process: tests that move it take turns.
static CLOCK: Mutex<()> = Mutex::new(());

/// Holds the mock clock for one test.
pub fn clock() -> MutexGuard<'static, ()> {
    CLOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `fut` to its end, moving the mock clock on `step` whenever it waits;
/// returns its output. Panics past `limit` of mock time.
pub fn on_mock_clock<F: Future>(fut: F, step: Duration, limit: Duration) -> F::Output {
    let start = Instant::now();
    let mut fut = pin!(fut);
    let woken = Arc::new(Woken(AtomicBool::new(false)));
    let waker = Waker::from(woken.clone());
    let mut cx = Context::from_waker(&waker);
    let mut polls_this_instant = 0u32;
    loop {
        woken.0.store(false, Ordering::Relaxed);
        if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
            return out;
        }
        // Time moves only when nothing is ready to run at this instant.
        if woken.0.load(Ordering::Relaxed) {
            polls_this_instant += 1;
            assert!(
                polls_this_instant < 1_000_000,
                "a million polls at {} us without waiting: a future wakes itself for ever",
                Instant::now().as_micros()
            );
        } else {
            assert!(
                Instant::now() - start < limit,
                "still running after {limit:?}"
            );
            MockDriver::get().advance(step);
            polls_this_instant = 0;
        }
    }
}

/// Notes that the future under test woke itself.
struct Woken(AtomicBool);

impl Wake for Woken {
    fn wake(self: Arc<Self>) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A take in memory: frames at given times, optionally failing at one index.
pub struct VecSource {
    pub frames: Vec<(u32, Vec<u8>)>,
    pub period_us: u32,
    pub fail_at: Option<u32>,
}

impl FrameSource for VecSource {
    type Error = &'static str;

    fn frame_count(&self) -> u32 {
        self.frames.len() as u32
    }

    fn period_us(&self) -> u32 {
        self.period_us
    }

    async fn read_frame(
        &mut self,
        index: u32,
        buf: &mut [u8; MAX_LEN],
    ) -> Result<Frame, Self::Error> {
        if self.fail_at == Some(index) {
            return Err("broken");
        }
        let (time_us, bytes) = &self.frames[index as usize];
        buf[..bytes.len()].copy_from_slice(bytes);
        Ok(Frame {
            time_us: *time_us,
            len: bytes.len(),
        })
    }

    async fn frame_time(&mut self, index: u32) -> Result<u32, Self::Error> {
        self.frames
            .get(index as usize)
            .map(|f| f.0)
            .ok_or("no such frame")
    }
}

/// Frame `i`'s bytes: distinct, of realistic sizes (264..=774 bytes).
pub fn packet(i: u32) -> Vec<u8> {
    let len = 264 + (i as usize * 37) % 511;
    (0..len)
        .map(|b| (b as u32 ^ i.wrapping_mul(2654435761)) as u8)
        .collect()
}

/// `n` frames `step_us` apart, the loop period `n * step_us`.
pub fn source(n: u32, step_us: u32) -> VecSource {
    VecSource {
        frames: (0..n).map(|i| (i * step_us, packet(i))).collect(),
        period_us: n * step_us,
        fail_at: None,
    }
}

/// A target on QEMU's host address.
pub fn target(port: u16) -> Target {
    Target {
        ip: [10, 0, 2, 2],
        port,
    }
}

/// One datagram the sink took: when, for which target, what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sent {
    pub at: Instant,
    pub target: Target,
    pub bytes: Vec<u8>,
}

/// A sink that records what it is offered. A target can be made to have a
/// full queue or to be refused; an offer can stall the (mock) host.
#[derive(Default)]
pub struct Recorder {
    pub targets: Vec<Target>,
    pub sent: Vec<Sent>,
    pub opened: u32,
    pub flushed: u32,
    /// Offers to this target index find its queue full.
    pub full: Option<usize>,
    /// Offers to this target index are refused.
    pub refused: Option<usize>,
    /// After this many datagrams, the clock jumps (a busy host).
    pub stall_after: Option<(usize, Duration)>,
    /// `flush` never ends (a target that never drains).
    pub stuck: bool,
}

impl PacketSink for Recorder {
    fn open(&mut self, targets: &[Target]) {
        self.targets = targets.to_vec();
        self.opened += 1;
    }

    fn offer(&mut self, index: usize, packet: &[u8]) -> Offer {
        if self.full == Some(index) {
            return Offer::Full;
        }
        if self.refused == Some(index) {
            return Offer::Refused;
        }
        self.sent.push(Sent {
            at: Instant::now(),
            target: self.targets[index],
            bytes: packet.to_vec(),
        });
        if let Some((n, stall)) = self.stall_after {
            if self.sent.len() == n {
                MockDriver::get().advance(stall);
            }
        }
        Offer::Queued
    }

    async fn flush(&mut self) {
        if self.stuck {
            std::future::pending::<()>().await;
        }
        self.flushed += 1;
    }
}

/// The live port in the tests: each datagram arrives at its instant on the
/// mock clock, from 10.0.2.2; `listen` fails on port 0.
#[derive(Default)]
pub struct ScriptedLive {
    /// What arrives, in order: when and what.
    pub datagrams: std::collections::VecDeque<(Instant, Vec<u8>)>,
    /// Ports listened on, in order.
    pub listened: Vec<u16>,
    /// Whether it listens now.
    pub open: bool,
}

impl llv_box::live::LiveInput for ScriptedLive {
    fn listen(&mut self, port: u16) -> bool {
        self.listened.push(port);
        self.open = port != 0;
        self.open
    }

    fn close(&mut self) {
        self.open = false;
    }

    async fn receive<R>(&mut self, take: impl FnOnce(&[u8], core::net::IpAddr) -> R) -> R {
        let from = core::net::IpAddr::V4(core::net::Ipv4Addr::new(10, 0, 2, 2));
        let Some((at, _)) = self.datagrams.front() else {
            return std::future::pending().await;
        };
        embassy_time::Timer::at(*at).await;
        let Some((_, bytes)) = self.datagrams.pop_front() else {
            return std::future::pending().await;
        };
        take(&bytes, from)
    }
}
