//! Art-Net timecode on the box: the listener on UDP 6454 ([`listen`]) feeds
//! a [`ChaseFeed`], which a chasing playback (`crate::chaser`) reads. While
//! nothing chases, datagrams are read and dropped.

use core::cell::RefCell;

use embassy_net::udp::{PacketMetadata, UdpSocket};
use embassy_net::Stack;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::blocking_mutex::Mutex as BlockingMutex;
use embassy_sync::signal::Signal;
use embassy_time::Instant;
use llv_core::artnet::PORT;
use llv_core::chase::Follower;
use llv_core::control::ChaseStatus;
use llv_core::settings::ChaseSpec;

use crate::fmt::warning;

/// Receive buffer: a few `OpTimeCode`s (19 bytes each) queued. Longer
/// datagrams (DMX on the same port, up to 530 bytes) do not fit and are
/// dropped unread: the box has no use for them.
const RX: usize = 256;

/// Memory for the timecode socket.
pub struct ChaseFeedBuffers {
    rx_meta: [PacketMetadata; 4],
    rx: [u8; RX],
    tx_meta: [PacketMetadata; 1],
    tx: [u8; 1],
}

impl ChaseFeedBuffers {
    /// Zeroed buffers.
    pub const fn new() -> Self {
        ChaseFeedBuffers {
            rx_meta: [PacketMetadata::EMPTY; 4],
            rx: [0; RX],
            tx_meta: [PacketMetadata::EMPTY; 1],
            tx: [0; 1],
        }
    }
}

impl Default for ChaseFeedBuffers {
    fn default() -> Self {
        Self::new()
    }
}

/// The chase of the playback that follows timecode, if one does.
pub struct ChaseFeed {
    follower: BlockingMutex<CriticalSectionRawMutex, RefCell<Option<Follower>>>,
    arrived: Signal<CriticalSectionRawMutex, ()>,
}

impl ChaseFeed {
    /// Nothing chasing.
    pub const fn new() -> Self {
        ChaseFeed {
            follower: BlockingMutex::new(RefCell::new(None)),
            arrived: Signal::new(),
        }
    }

    /// Starts following `spec`'s stream afresh: waiting for timecode.
    pub fn begin(&self, spec: &ChaseSpec) {
        let follower = Follower::new(spec.config(), spec.stream);
        self.follower.lock(|f| *f.borrow_mut() = Some(follower));
    }

    /// Stops following; datagrams are dropped from now on.
    pub fn end(&self) {
        self.follower.lock(|f| *f.borrow_mut() = None);
    }

    /// A datagram arrived at `now`.
    pub fn on_datagram(&self, bytes: &[u8], now: Instant) {
        let chasing = self.follower.lock(|f| {
            f.borrow_mut()
                .as_mut()
                .map(|f| f.on_datagram(bytes, now.as_micros()))
                .is_some()
        });
        if chasing {
            self.arrived.signal(());
        }
    }

    /// Runs `f` on the follower moved on to `now`; `None` while nothing chases.
    pub fn with<T>(&self, now: Instant, f: impl FnOnce(&mut Follower) -> T) -> Option<T> {
        self.follower.lock(|cell| {
            cell.borrow_mut().as_mut().map(|follower| {
                follower.chase_at(now.as_micros());
                f(follower)
            })
        })
    }

    /// How the chase stands, while one runs.
    pub fn status(&self) -> Option<ChaseStatus> {
        self.follower
            .lock(|f| f.borrow().as_ref().map(Follower::status))
    }

    /// Waits for the next datagram fed to a chase.
    pub async fn arrival(&self) {
        self.arrived.wait().await
    }
}

impl Default for ChaseFeed {
    fn default() -> Self {
        Self::new()
    }
}

/// Reads Art-Net datagrams on UDP [`PORT`] into `timecode`, forever (or,
/// if the port cannot be bound, never: chases then wait for timecode).
pub async fn listen(stack: Stack<'_>, timecode: &ChaseFeed, buffers: &mut ChaseFeedBuffers) -> ! {
    let ChaseFeedBuffers {
        rx_meta,
        rx,
        tx_meta,
        tx,
    } = buffers;
    let mut socket = UdpSocket::new(stack, rx_meta, rx, tx_meta, tx);
    if socket.bind(PORT).is_err() {
        warning!("timecode: cannot bind UDP {}", PORT);
        core::future::pending::<()>().await;
    }
    loop {
        socket
            .recv_from_with(|bytes, _| timecode.on_datagram(bytes, Instant::now()))
            .await;
    }
}
