//! Where the player puts packets: one UDP socket per target, so a target that
//! never answers ARP or has no route fills only its own queue. Offers never
//! wait: a full queue drops the frame for that target (and the player counts
//! it); the other targets are not held up.

use core::net::Ipv4Addr;
use core::task::{Context, Poll, Waker};

use embassy_net::udp::{BindError, PacketMetadata, UdpSocket};
use embassy_net::{IpAddress, IpEndpoint, Stack};
use llv_core::packet::MAX_LEN;
use llv_core::settings::{Target, MAX_TARGETS};

/// What became of a packet offered to a target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Offer {
    /// Queued for sending.
    Queued,
    /// The target's queue is full: dropped.
    Full,
    /// The network refused it (no route, bad address): dropped.
    Refused,
}

/// Sends whole datagrams to the targets of one playback.
#[allow(async_fn_in_trait)]
pub trait PacketSink {
    /// Starts a playback to `targets`: datagrams still queued from an earlier
    /// one are forgotten.
    fn open(&mut self, targets: &[Target]);

    /// Offers `packet` to target `index` of those given to `open`; never waits.
    fn offer(&mut self, index: usize, packet: &[u8]) -> Offer;

    /// Waits until every queued datagram has left (callers bound the wait:
    /// a dead target's never leave).
    async fn flush(&mut self);
}

/// Datagrams one target's socket can queue before frames are dropped.
pub const TX_PACKETS: usize = 4;

/// Memory for one target's socket.
struct SocketMemory {
    rx_meta: [PacketMetadata; 1],
    rx: [u8; 64],
    tx_meta: [PacketMetadata; TX_PACKETS],
    tx: [u8; TX_PACKETS * MAX_LEN],
}

/// Memory for the sockets of [`MAX_TARGETS`] targets.
pub struct SocketBuffers {
    sockets: [SocketMemory; MAX_TARGETS],
}

impl SocketBuffers {
    /// Zeroed buffers.
    pub const fn new() -> Self {
        const EMPTY: SocketMemory = SocketMemory {
            rx_meta: [PacketMetadata::EMPTY; 1],
            rx: [0; 64],
            tx_meta: [PacketMetadata::EMPTY; TX_PACKETS],
            tx: [0; TX_PACKETS * MAX_LEN],
        };
        SocketBuffers {
            sockets: [EMPTY; MAX_TARGETS],
        }
    }
}

impl Default for SocketBuffers {
    fn default() -> Self {
        Self::new()
    }
}

/// A [`PacketSink`] over embassy-net UDP sockets, one per target, each bound
/// to an ephemeral port.
pub struct UdpSink<'a> {
    sockets: [UdpSocket<'a>; MAX_TARGETS],
    targets: [Option<IpEndpoint>; MAX_TARGETS],
}

impl<'a> UdpSink<'a> {
    /// The sockets on `stack` with `buffers`.
    pub fn bind(stack: Stack<'a>, buffers: &'a mut SocketBuffers) -> Result<Self, BindError> {
        let sockets = buffers
            .sockets
            .each_mut()
            .map(|m| UdpSocket::new(stack, &mut m.rx_meta, &mut m.rx, &mut m.tx_meta, &mut m.tx));
        let mut sink = UdpSink {
            sockets,
            targets: [None; MAX_TARGETS],
        };
        for socket in &mut sink.sockets {
            socket.bind(0)?;
        }
        Ok(sink)
    }
}

impl PacketSink for UdpSink<'_> {
    fn open(&mut self, targets: &[Target]) {
        for (i, socket) in self.sockets.iter_mut().enumerate() {
            // Closing empties the queue; the port stays ephemeral.
            let port = socket.endpoint().port;
            socket.close();
            // Rebinding the port it just had cannot fail.
            let _ = socket.bind(port);
            self.targets[i] = targets
                .get(i)
                .map(|t| IpEndpoint::new(IpAddress::Ipv4(Ipv4Addr::from(t.ip)), t.port));
        }
    }

    fn offer(&mut self, index: usize, packet: &[u8]) -> Offer {
        let (Some(socket), Some(Some(target))) =
            (self.sockets.get_mut(index), self.targets.get(index))
        else {
            return Offer::Refused;
        };
        let mut cx = Context::from_waker(Waker::noop());
        match socket.poll_send_to(packet, *target, &mut cx) {
            Poll::Ready(Ok(())) => Offer::Queued,
            Poll::Ready(Err(_)) => Offer::Refused,
            Poll::Pending => Offer::Full,
        }
    }

    async fn flush(&mut self) {
        for socket in &mut self.sockets {
            socket.flush().await;
        }
    }
}
