//! The box's doors for show tools: OSC on UDP and TCP (the OSC port of the
//! settings, 11114 by default, read at power-up), served by
//! `llv_control::osc` through the same session as the control port; and
//! the mDNS/DNS-SD responder (`llv_control::mdns`) on UDP 5353, so the
//! box is `NAME.local` and lists as `_llv._tcp` and `_osc._udp`; and the
//! page and its HTTP API (`crate::web`, feature `http`).
//!
//! Replies and pushes wait at most [`SEND_WAIT`] for room in their socket:
//! a reply is not worth holding a door for, and nothing here ever touches
//! the player's sockets. The OSC TCP connections take their slots from the
//! box's [`BoxKeeper`], as the control connections do. A datagram over 512
//! bytes is answered with `/llv/error` as `llv serve` answers it (one
//! larger than an Ethernet frame is fragmented, and the box's network stack
//! drops fragments: it never arrives).

use core::net::Ipv4Addr;

use crate::library::BoxControl;
use embassy_futures::join::join3;
use embassy_futures::select::{select, Either};
use embassy_net::tcp::TcpSocket;
use embassy_net::udp::{PacketMetadata, UdpSocket};
use embassy_net::{IpAddress, IpEndpoint, Stack};
use embassy_time::{with_timeout, Duration, Instant, Timer};
use embedded_storage_async::nor_flash::NorFlash;
use heapless::String;
use llv_card::CardDriver;
use llv_control::osc::{
    serve_osc_connection, OscBuffers, ReplySink, UdpDoor, MAX_PACKET, MAX_REPLY,
};
use llv_control::{mdns, Door};
use llv_core::control::CONTROL_PORT;
use llv_core::settings::BOX_NAME_LEN;
use llv_core::take::NAME_LEN;

use crate::device::{BoxDevice, BoxState};
use crate::door_slots::{hang_up, run_connection, BoxKeeper, CONTROL_SLOTS, HTTP_SLOTS, OSC_SLOTS};
use crate::fmt::{info, warning};
#[cfg(feature = "http")]
use crate::web::{self, HttpMemory};

/// Sockets of the show doors: OSC UDP, the OSC TCP connections, mDNS, the HTTP connections.
pub const SOCKETS: usize = 1 + OSC_SLOTS + 1 + HTTP_SLOTS;
/// The longest a reply or push waits for room in its socket.
pub const SEND_WAIT: Duration = Duration::from_millis(50);
/// How often the responder looks whether its records changed (to announce them).
const ANNOUNCE_CHECK: Duration = Duration::from_secs(1);

/// TCP receive and send buffer of one OSC connection.
const TCP_BUF: usize = 512;
/// Receive buffer of the OSC UDP socket: a datagram as large as one
/// Ethernet frame carries (so one over 512 bytes is seen, and answered)
/// and a few small ones.
const UDP_RX: usize = 3072;
/// Send buffer of the OSC UDP socket: one reply, and a short one behind it
/// (the copy to the reply port waits, at most SEND_WAIT, for the first to leave).
const UDP_TX: usize = MAX_REPLY + 256;
/// mDNS: one query in, one answer out at a time.
const MDNS_RX: usize = 512;

/// Memory for one OSC connection.
struct TcpMemory {
    rx: [u8; TCP_BUF],
    tx: [u8; TCP_BUF],
    buffers: OscBuffers,
}

/// Memory for the show doors.
pub struct DoorBuffers {
    udp_rx_meta: [PacketMetadata; 4],
    udp_rx: [u8; UDP_RX],
    udp_tx_meta: [PacketMetadata; 4],
    udp_tx: [u8; UDP_TX],
    packet: [u8; MAX_PACKET],
    out: [u8; MAX_REPLY],
    tcp: [TcpMemory; OSC_SLOTS],
    mdns_rx_meta: [PacketMetadata; 2],
    mdns_rx: [u8; MDNS_RX],
    mdns_tx_meta: [PacketMetadata; 2],
    mdns_tx: [u8; mdns::MAX_MESSAGE],
    mdns_out: [u8; mdns::MAX_MESSAGE],
    #[cfg(feature = "http")]
    http: [HttpMemory; HTTP_SLOTS],
}

impl DoorBuffers {
    /// Zeroed buffers.
    pub const fn new() -> Self {
        const TCP: TcpMemory = TcpMemory {
            rx: [0; TCP_BUF],
            tx: [0; TCP_BUF],
            buffers: OscBuffers::new(),
        };
        DoorBuffers {
            udp_rx_meta: [PacketMetadata::EMPTY; 4],
            udp_rx: [0; UDP_RX],
            udp_tx_meta: [PacketMetadata::EMPTY; 4],
            udp_tx: [0; UDP_TX],
            packet: [0; MAX_PACKET],
            out: [0; MAX_REPLY],
            tcp: [TCP; OSC_SLOTS],
            mdns_rx_meta: [PacketMetadata::EMPTY; 2],
            mdns_rx: [0; MDNS_RX],
            mdns_tx_meta: [PacketMetadata::EMPTY; 2],
            mdns_tx: [0; mdns::MAX_MESSAGE],
            mdns_out: [0; mdns::MAX_MESSAGE],
            #[cfg(feature = "http")]
            http: [const { HttpMemory::new() }; HTTP_SLOTS],
        }
    }
}

impl Default for DoorBuffers {
    fn default() -> Self {
        Self::new()
    }
}

/// Who the box is on the network.
pub struct Identity<'a> {
    /// Firmware name and version.
    pub firmware: &'static str,
    /// The name when the settings give none (the board's, from its MAC).
    pub default_name: &'a str,
    /// The OSC port (from the settings at power-up).
    pub osc_port: u16,
    /// The HTTP port (from the settings at power-up).
    pub http_port: u16,
}

/// The endpoint's IPv4 address (`0.0.0.0` for another family).
fn ipv4(endpoint: &IpEndpoint) -> [u8; 4] {
    match endpoint.addr {
        IpAddress::Ipv4(ip) => ip.octets(),
        #[allow(unreachable_patterns, reason = "IPv6 when the stack has it")]
        _ => [0; 4],
    }
}

/// Sends through a UDP socket, waiting at most [`SEND_WAIT`] for room.
struct Replies<'s, 'a>(&'s UdpSocket<'a>);

impl ReplySink for Replies<'_, '_> {
    async fn send_to(&mut self, packet: &[u8], ip: [u8; 4], port: u16) {
        let to = IpEndpoint::new(IpAddress::Ipv4(Ipv4Addr::from(ip)), port);
        if let Ok(Err(e)) = with_timeout(SEND_WAIT, self.0.send_to(packet, to)).await {
            warning!("OSC reply to {}:{} not sent: {}", ip, port, e);
        }
    }
}

/// Serves OSC on UDP and TCP and answers mDNS, forever.
pub async fn serve<F: NorFlash, D: CardDriver>(
    stack: Stack<'_>,
    control: &BoxControl<'_, F, D>,
    state: &BoxState,
    keeper: &BoxKeeper,
    identity: &Identity<'_>,
    buffers: &mut DoorBuffers,
) -> ! {
    let DoorBuffers {
        udp_rx_meta,
        udp_rx,
        udp_tx_meta,
        udp_tx,
        packet,
        out,
        tcp,
        mdns_rx_meta,
        mdns_rx,
        mdns_tx_meta,
        mdns_tx,
        mdns_out,
        #[cfg(feature = "http")]
        http,
    } = buffers;
    let port = identity.osc_port;
    info!("OSC port {} (UDP and TCP)", port);
    let mut udp = UdpSocket::new(stack, udp_rx_meta, udp_rx, udp_tx_meta, udp_tx);
    let udp_door = async {
        if udp.bind(port).is_err() {
            warning!("OSC: UDP port {} cannot be bound", port);
            core::future::pending::<()>().await;
        }
        let mut door = UdpDoor::new(control.firmware);
        let mut device = BoxDevice { state };
        let poll = control.limits.push_poll;
        let mut next_push = Instant::now() + poll;
        loop {
            // On a fixed cadence, busy socket or not.
            if Instant::now() >= next_push {
                next_push += poll;
                if next_push < Instant::now() {
                    next_push = Instant::now() + poll;
                }
                door.push(control, &device, out, &mut Replies(&udp)).await;
            }
            let received = udp.recv_from_with(|datagram, meta| {
                let n = datagram.len().min(MAX_PACKET);
                packet[..n].copy_from_slice(&datagram[..n]);
                (datagram.len(), meta)
            });
            if let Either::First((len, meta)) = select(received, Timer::at(next_push)).await {
                let from = (ipv4(&meta.endpoint), meta.endpoint.port);
                door.handle(
                    &packet[..len.min(MAX_PACKET)],
                    len,
                    from,
                    control,
                    &mut device,
                    out,
                    &mut Replies(&udp),
                )
                .await;
            }
        }
    };
    let [a, b] = tcp;
    let tcp_doors = embassy_futures::join::join(
        listen(stack, control, state, keeper, port, CONTROL_SLOTS, a),
        listen(stack, control, state, keeper, port, CONTROL_SLOTS + 1, b),
    );
    let responder = respond(
        stack,
        control,
        state,
        identity,
        (mdns_rx_meta, mdns_rx, mdns_tx_meta, mdns_tx),
        mdns_out,
    );
    #[cfg(feature = "http")]
    let http_door = web::serve(stack, control, state, keeper, identity.http_port, http);
    #[cfg(not(feature = "http"))]
    let http_door = core::future::pending::<()>();
    embassy_futures::join::join(join3(udp_door, tcp_doors, responder), http_door).await;
    // All three run forever.
    core::future::pending().await
}

/// Serves one OSC connection after another on slot `me`'s socket.
async fn listen<F: NorFlash, D: CardDriver>(
    stack: Stack<'_>,
    control: &BoxControl<'_, F, D>,
    state: &BoxState,
    keeper: &BoxKeeper,
    port: u16,
    me: usize,
    memory: &mut TcpMemory,
) -> ! {
    loop {
        let mut socket = TcpSocket::new(stack, &mut memory.rx, &mut memory.tx);
        if socket.accept(port).await.is_err() {
            Timer::after(Duration::from_millis(100)).await;
            continue;
        }
        let source = socket.remote_endpoint().map_or([0; 4], |e| ipv4(&e));
        keeper.open_at(me, Door::Osc, source);
        info!("OSC connection from {}", source);
        let mut device = BoxDevice { state };
        let seat = keeper.seat(me);
        let by_itself = {
            let served = core::pin::pin!(serve_osc_connection(
                &mut socket,
                source,
                control,
                &mut device,
                &mut memory.buffers,
                &seat,
            ));
            run_connection("OSC", served, keeper.closing(me)).await
        };
        hang_up(keeper, me, &mut socket, by_itself).await;
    }
}

/// The mDNS responder: joins the group, announces the box once it has an
/// address, answers queries, and announces again whenever its records
/// change (after a goodbye of the old ones when its name or address did).
async fn respond<F: NorFlash, D: CardDriver>(
    stack: Stack<'_>,
    control: &BoxControl<'_, F, D>,
    state: &BoxState,
    identity: &Identity<'_>,
    (rx_meta, rx, tx_meta, tx): (
        &mut [PacketMetadata],
        &mut [u8],
        &mut [PacketMetadata],
        &mut [u8],
    ),
    out: &mut [u8; mdns::MAX_MESSAGE],
) -> ! {
    let mut socket = UdpSocket::new(stack, rx_meta, rx, tx_meta, tx);
    let group = Ipv4Addr::from(mdns::GROUP);
    if stack.join_multicast_group(group).is_err() || socket.bind(mdns::PORT).is_err() {
        warning!("mDNS: cannot join 224.0.0.251 or bind port 5353");
        core::future::pending::<()>().await;
    }
    info!("mDNS responder on port {}", mdns::PORT);
    let group_endpoint = IpEndpoint::new(IpAddress::Ipv4(group), mdns::PORT);
    let mut announced: Option<Key> = None;
    let mut next_check = Instant::now();
    let mut free = 0;
    loop {
        if Instant::now() >= next_check {
            next_check = Instant::now() + ANNOUNCE_CHECK;
            free = control.library.lock().await.store.free_bytes();
        }
        // The records as they are when a query comes (name, address and
        // take from the box's state; the free space as of the last check).
        let key = || Key {
            name: state
                .name()
                .unwrap_or_else(|| llv_core::control::bounded(identity.default_name)),
            ipv4: state.address().unwrap_or([0; 4]),
            playing: state.playing().map(|p| p.take).unwrap_or_default(),
        };
        let now = key();
        if announced.as_ref() != Some(&now) && now.ipv4 != [0; 4] {
            if let Some(before) = &announced {
                let old = records(before, identity, free);
                if mdns::needs_goodbye(&old, &records(&now, identity, free)) {
                    let n = mdns::goodbye(&old, out);
                    if n > 0 {
                        let sent = socket.send_to(&out[..n], group_endpoint);
                        let _ = with_timeout(SEND_WAIT, sent).await;
                    }
                }
            }
            let n = mdns::announce(&records(&now, identity, free), out);
            if n > 0 {
                let _ = with_timeout(SEND_WAIT, socket.send_to(&out[..n], group_endpoint)).await;
            }
            announced = Some(now);
        }
        match select(
            socket.recv_from_with(|query, meta| {
                let from = (ipv4(&meta.endpoint), meta.endpoint.port);
                let key = key();
                (
                    mdns::answer(&records(&key, identity, free), query, from.1, out),
                    from,
                )
            }),
            Timer::at(next_check),
        )
        .await
        {
            Either::First((n, from)) if n > 0 => {
                let (ip, port) = mdns::reply_to(from);
                let to = IpEndpoint::new(IpAddress::Ipv4(Ipv4Addr::from(ip)), port);
                let _ = with_timeout(SEND_WAIT, socket.send_to(&out[..n], to)).await;
            }
            _ => {}
        }
    }
}

/// The records of the box as `key` and `identity` say.
fn records<'k>(key: &'k Key, identity: &'k Identity<'_>, free: u32) -> mdns::Identity<'k> {
    mdns::Identity {
        name: &key.name,
        firmware: identity.firmware,
        ipv4: key.ipv4,
        control_port: CONTROL_PORT,
        osc_port: identity.osc_port,
        http_port: cfg!(feature = "http").then_some(identity.http_port),
        free_bytes: free.into(),
        playing: &key.playing,
    }
}

/// What the announced records depend on.
#[derive(Clone, PartialEq, Eq)]
struct Key {
    name: String<BOX_NAME_LEN>,
    ipv4: [u8; 4],
    playing: String<NAME_LEN>,
}
