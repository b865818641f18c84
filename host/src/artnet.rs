//! Art-Net timecode over UDP on the host: a receiver that feeds a [`Chase`]
//! from its own thread, and the generator `llv tc send` runs.

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use llv_core::artnet::{ArtTimeCode, TimecodeKind, LEN};
use llv_core::chase::{Chase, ChaseConfig};
use socket2::{Domain, Protocol, Socket, Type};

use crate::pacer::Pacer;

/// A chase fed by the timecode that arrives on a UDP port.
pub struct Receiver {
    chase: Arc<Mutex<Chase>>,
    epoch: Instant,
    counts: Arc<Counts>,
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// What arrived that was not timecode to chase.
#[derive(Debug, Default)]
pub struct Counts {
    /// Valid timecode frames of the chased stream.
    pub frames: AtomicU64,
    /// Datagrams that are not valid `OpTimeCode` (wrong id, fields out of range, ...).
    pub bad: AtomicU64,
    /// Valid timecode of another stream id.
    pub other_stream: AtomicU64,
}

impl Receiver {
    /// Listens on `port` (all IPv4 interfaces, shared with other listeners) for
    /// stream `stream` and chases it with `config`.
    pub fn start(port: u16, stream: u8, config: ChaseConfig) -> Result<Receiver> {
        let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))?;
        socket.set_reuse_address(true)?;
        #[cfg(unix)]
        socket.set_reuse_port(true)?;
        let addr = SocketAddr::from(([0, 0, 0, 0], port));
        socket
            .bind(&addr.into())
            .with_context(|| format!("listening for Art-Net timecode on UDP {port}"))?;
        let socket: UdpSocket = socket.into();
        socket.set_read_timeout(Some(Duration::from_millis(50)))?;
        let chase = Arc::new(Mutex::new(Chase::new(config)));
        let counts = Arc::new(Counts::default());
        let done = Arc::new(AtomicBool::new(false));
        let epoch = Instant::now();
        let thread = {
            let (chase, counts, done) = (chase.clone(), counts.clone(), done.clone());
            thread::spawn(move || listen(&socket, stream, epoch, &chase, &counts, &done))
        };
        Ok(Receiver {
            chase,
            epoch,
            counts,
            done,
            thread: Some(thread),
        })
    }

    /// Microseconds on the chase's local clock.
    pub fn now_us(&self) -> u64 {
        micros(self.epoch.elapsed())
    }

    /// The instant of a local-clock time.
    pub fn instant_of(&self, local_us: u64) -> Instant {
        self.epoch + Duration::from_micros(local_us)
    }

    /// Runs `f` on the chase, its state moved on to now.
    pub fn with<T>(&self, f: impl FnOnce(&Chase, u64) -> T) -> T {
        let now = self.now_us();
        let mut chase = self.chase.lock().unwrap_or_else(|e| e.into_inner());
        chase.tick(now);
        f(&chase, now)
    }

    /// What arrived so far.
    pub fn counts(&self) -> &Counts {
        &self.counts
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

fn listen(
    socket: &UdpSocket,
    stream: u8,
    epoch: Instant,
    chase: &Mutex<Chase>,
    counts: &Counts,
    done: &AtomicBool,
) {
    let mut buf = [0u8; 1024];
    while !done.load(Ordering::Relaxed) {
        let Ok(n) = socket.recv(&mut buf) else {
            continue;
        };
        let now = micros(epoch.elapsed());
        match ArtTimeCode::parse(&buf[..n]) {
            Ok(tc) if tc.stream == stream => {
                counts.frames.fetch_add(1, Ordering::Relaxed);
                let frame_us = tc.kind.micros(1);
                let mut chase = chase.lock().unwrap_or_else(|e| e.into_inner());
                chase.tick(now);
                chase.on_timecode(tc.micros(), frame_us, now);
            }
            Ok(_) => {
                counts.other_stream.fetch_add(1, Ordering::Relaxed);
            }
            Err(_) => {
                counts.bad.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// Sends timecode frames from `start` at the type's real rate to `target`
/// until `frames` were sent (all, if `None`) or `stop` is set; `each` sees
/// every frame as it leaves. Returns the frames sent.
pub fn send(
    socket: &UdpSocket,
    target: SocketAddr,
    start: ArtTimeCode,
    frames: Option<u64>,
    stop: &AtomicBool,
    mut each: impl FnMut(&ArtTimeCode),
) -> Result<u64> {
    let kind: TimecodeKind = start.kind;
    let first = u64::from(start.frame_count());
    let mut pacer = Pacer::new(true);
    let began = Instant::now();
    let mut buf = [0u8; LEN];
    let mut sent = 0u64;
    while frames.is_none_or(|n| sent < n) {
        let deadline = began + Duration::from_micros(kind.micros(sent));
        if !pacer.wait_until(deadline, stop) {
            break;
        }
        let count = (first + sent) % u64::from(kind.frames_per_day());
        let tc = ArtTimeCode::from_frame_count(count as u32, kind, start.stream);
        let len = tc.emit(&mut buf).map_err(|e| anyhow::anyhow!("{e}"))?;
        socket
            .send_to(&buf[..len], target)
            .with_context(|| format!("sending timecode to {target}"))?;
        each(&tc);
        sent += 1;
    }
    Ok(sent)
}
