//! The control port: [`LISTENERS`] TCP connections at a time on
//! [`CONTROL_PORT`], each served by `llv_control::serve_connection` (which
//! closes connections that do not say Hello in time, trickle, or idle).
//!
//! An operator can always connect: when a connection takes the last listening
//! socket, the oldest connection that has not yet said an accepted `Hello` is
//! dropped, so a socket listens again at once. Connections that said Hello
//! are never dropped for a newcomer.

use core::cell::Cell;
use core::sync::atomic::{AtomicBool, Ordering};

use crate::library::BoxLibrary;
use embassy_futures::select::{select, select3, Either, Either3};
use embassy_net::tcp::TcpSocket;
use embassy_net::{IpAddress, Stack};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::{Duration, Instant};
use embedded_storage_async::nor_flash::NorFlash;
use llv_card::Slot as CardSlot;
use llv_control::{serve_connection, ConnectionBuffers, Control};
use llv_core::control::CONTROL_PORT;

use crate::device::{BoxDevice, BoxState};
use crate::fmt::info;

/// Connections served at once.
pub const LISTENERS: usize = 3;

/// TCP receive and send buffer of one connection (frames pass through in parts).
const SOCKET_BUF: usize = 1024;

/// How long a closing connection may take to deliver its last response.
const CLOSE_WAIT: Duration = Duration::from_millis(250);

/// Memory for one control connection.
struct Memory {
    rx: [u8; SOCKET_BUF],
    tx: [u8; SOCKET_BUF],
    frames: ConnectionBuffers,
}

/// Memory for the control connections.
pub struct ControlBuffers {
    slots: [Memory; LISTENERS],
}

impl ControlBuffers {
    /// Zeroed buffers.
    pub const fn new() -> Self {
        const EMPTY: Memory = Memory {
            rx: [0; SOCKET_BUF],
            tx: [0; SOCKET_BUF],
            frames: ConnectionBuffers::new(),
        };
        ControlBuffers {
            slots: [EMPTY; LISTENERS],
        }
    }
}

impl Default for ControlBuffers {
    fn default() -> Self {
        Self::new()
    }
}

/// What one listening socket is doing, as the others see it.
struct Slot {
    /// Whether it waits for a connection now.
    listening: Cell<bool>,
    /// When its connection opened; `None` while it has none.
    since: Cell<Option<Instant>>,
    authenticated: AtomicBool,
    /// Signalled to drop its connection.
    drop: Signal<CriticalSectionRawMutex, ()>,
}

impl Slot {
    const fn new() -> Self {
        Slot {
            listening: Cell::new(false),
            since: Cell::new(None),
            authenticated: AtomicBool::new(false),
            drop: Signal::new(),
        }
    }
}

/// Serves control connections forever.
pub async fn serve<F: NorFlash, D: CardSlot>(
    stack: Stack<'_>,
    control: &Control<'_, CriticalSectionRawMutex, BoxLibrary<F, D>>,
    state: &BoxState,
    buffers: &mut ControlBuffers,
) -> ! {
    let slots = [Slot::new(), Slot::new(), Slot::new()];
    let [a, b, c] = &mut buffers.slots;
    let listen = |i: usize, memory| listen(stack, control, state, &slots, i, memory);
    match select3(listen(0, a), listen(1, b), listen(2, c)).await {
        Either3::First(never) | Either3::Second(never) | Either3::Third(never) => never,
    }
}

/// Serves one connection after another on slot `me`'s socket.
async fn listen<F: NorFlash, D: CardSlot>(
    stack: Stack<'_>,
    control: &Control<'_, CriticalSectionRawMutex, BoxLibrary<F, D>>,
    state: &BoxState,
    slots: &[Slot; LISTENERS],
    me: usize,
    memory: &mut Memory,
) -> ! {
    let slot = &slots[me];
    loop {
        let mut socket = TcpSocket::new(stack, &mut memory.rx, &mut memory.tx);
        slot.listening.set(true);
        let accepted = socket.accept(CONTROL_PORT).await;
        slot.listening.set(false);
        if accepted.is_err() {
            continue;
        }
        slot.drop.reset();
        slot.authenticated.store(false, Ordering::Relaxed);
        slot.since.set(Some(Instant::now()));
        make_room(slots, me);
        let source = match socket.remote_endpoint().map(|e| e.addr) {
            Some(IpAddress::Ipv4(ip)) => ip.octets(),
            _ => [0; 4],
        };
        info!("control connection from {}", source);
        let mut device = BoxDevice { state };
        let served = serve_connection(
            &mut socket,
            source,
            control,
            &mut device,
            &mut memory.frames,
            &slot.authenticated,
        );
        match select(served, slot.drop.wait()).await {
            Either::First(ended) => {
                info!("control connection closed: {}", ended);
                // Let the last response leave, briefly: the slot listens again after.
                socket.close();
                let _ = embassy_time::with_timeout(CLOSE_WAIT, socket.flush()).await;
            }
            Either::Second(()) => info!("control connection dropped for a newcomer"),
        }
        slot.since.set(None);
        socket.abort();
    }
}

/// If no other slot listens, drops the oldest connection that has not said an
/// accepted Hello, so that one listens again (a slot still closing its last
/// connection does not listen yet).
fn make_room(slots: &[Slot; LISTENERS], me: usize) {
    if slots.iter().any(|s| s.listening.get()) {
        return;
    }
    let oldest = slots
        .iter()
        .enumerate()
        .filter(|(i, s)| *i != me && !s.authenticated.load(Ordering::Relaxed))
        .filter_map(|(_, s)| s.since.get().map(|t| (t, s)))
        .min_by_key(|(t, _)| *t);
    if let Some((_, s)) = oldest {
        s.drop.signal(());
    }
}
