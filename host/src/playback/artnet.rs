//! Art-Net timecode received over UDP on the host: a [`Receiver`] that feeds
//! a chase ([`Follower`]) from its own thread.

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use llv_core::chase::{ChaseConfig, Follower};
use socket2::{Domain, Protocol, Socket, Type};

/// A chase fed by the timecode that arrives on a UDP port ([`Follower`]).
pub struct Receiver {
    follower: Arc<Mutex<Follower>>,
    epoch: Instant,
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
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
        let follower = Arc::new(Mutex::new(Follower::new(config, stream)));
        let done = Arc::new(AtomicBool::new(false));
        let epoch = Instant::now();
        let thread = {
            let (follower, done) = (follower.clone(), done.clone());
            thread::spawn(move || listen(&socket, epoch, &follower, &done))
        };
        Ok(Receiver {
            follower,
            epoch,
            done,
            thread: Some(thread),
        })
    }

    /// The instant of a local-clock time.
    pub fn instant_of(&self, local_us: u64) -> Instant {
        self.epoch + Duration::from_micros(local_us)
    }

    /// Runs `f` on the follower, its chase moved on to now (µs on the local clock).
    pub fn with<T>(&self, f: impl FnOnce(&mut Follower, u64) -> T) -> T {
        let now = micros(self.epoch.elapsed());
        let mut follower = self.follower.lock().unwrap_or_else(|e| e.into_inner());
        follower.chase_at(now);
        f(&mut follower, now)
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

fn listen(socket: &UdpSocket, epoch: Instant, follower: &Mutex<Follower>, done: &AtomicBool) {
    let mut buf = [0u8; 1024];
    while !done.load(Ordering::Relaxed) {
        let Ok(n) = socket.recv(&mut buf) else {
            continue;
        };
        let now = micros(epoch.elapsed());
        let mut follower = follower.lock().unwrap_or_else(|e| e.into_inner());
        follower.on_datagram(&buf[..n], now);
    }
}
