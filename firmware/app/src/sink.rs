//! Where the player puts packets: a UDP socket of embassy-net, or anything
//! else that can send a datagram to an IPv4 address (tests record them).

use core::net::SocketAddrV4;

use embassy_net::udp::{PacketMetadata, SendError, UdpSocket};
use embassy_net::{IpAddress, IpEndpoint, Stack};

use crate::source::MAX_PACKET;

/// Sends whole datagrams.
#[allow(async_fn_in_trait)]
pub trait PacketSink {
    type Error;

    /// Queues `packet` for `target`.
    async fn send(&mut self, packet: &[u8], target: SocketAddrV4) -> Result<(), Self::Error>;

    /// Waits until everything queued has left.
    async fn flush(&mut self);
}

/// Datagrams the UDP socket can queue before `send` waits.
pub const TX_PACKETS: usize = 8;

/// Memory for one sending UDP socket.
pub struct SocketBuffers {
    rx_meta: [PacketMetadata; 1],
    rx: [u8; 64],
    tx_meta: [PacketMetadata; TX_PACKETS],
    tx: [u8; TX_PACKETS * MAX_PACKET],
}

impl SocketBuffers {
    pub const fn new() -> Self {
        SocketBuffers {
            rx_meta: [PacketMetadata::EMPTY; 1],
            rx: [0; 64],
            tx_meta: [PacketMetadata::EMPTY; TX_PACKETS],
            tx: [0; TX_PACKETS * MAX_PACKET],
        }
    }
}

impl Default for SocketBuffers {
    fn default() -> Self {
        Self::new()
    }
}

/// A [`PacketSink`] over an embassy-net UDP socket bound to an ephemeral port.
pub struct UdpSink<'a> {
    socket: UdpSocket<'a>,
}

impl<'a> UdpSink<'a> {
    pub fn bind(
        stack: Stack<'a>,
        buffers: &'a mut SocketBuffers,
    ) -> Result<Self, embassy_net::udp::BindError> {
        let mut socket = UdpSocket::new(
            stack,
            &mut buffers.rx_meta,
            &mut buffers.rx,
            &mut buffers.tx_meta,
            &mut buffers.tx,
        );
        socket.bind(0)?;
        Ok(UdpSink { socket })
    }
}

impl PacketSink for UdpSink<'_> {
    type Error = SendError;

    async fn send(&mut self, packet: &[u8], target: SocketAddrV4) -> Result<(), SendError> {
        let endpoint = IpEndpoint::new(IpAddress::Ipv4(*target.ip()), target.port());
        self.socket.send_to(packet, endpoint).await
    }

    async fn flush(&mut self) {
        self.socket.flush().await;
    }
}
