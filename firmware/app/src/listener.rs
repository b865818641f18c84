//! The control port: [`CONTROL_SLOTS`] TCP connections at a time on
//! [`CONTROL_PORT`], each served by `llv_control::serve_connection` (which
//! closes connections that do not say Hello in time, trickle, or idle).
//!
//! Who gets a socket is the door policy (`llv_control::slots`, run by the
//! box's [`BoxKeeper`]): one socket always listens, so an operator can
//! always connect; a connection taking the last one closes another (first
//! one that had time to say Hello and did not, else the quietest).

use crate::library::BoxControl;
use embassy_futures::select::{select3, Either3};
use embassy_net::tcp::TcpSocket;
use embassy_net::{IpAddress, Stack};
use embedded_storage_async::nor_flash::NorFlash;
use llv_card::CardDriver;
use llv_control::{serve_connection, ConnectionBuffers, Door};
use llv_core::control::CONTROL_PORT;

use crate::device::{BoxDevice, BoxState};
use crate::door_slots::{hang_up, run_connection, BoxKeeper, CONTROL_SLOTS};
use crate::fmt::info;

/// TCP receive and send buffer of one connection (frames pass through in parts).
const SOCKET_BUF: usize = 1024;

/// Memory for one control connection.
struct Memory {
    rx: [u8; SOCKET_BUF],
    tx: [u8; SOCKET_BUF],
    frames: ConnectionBuffers,
}

/// Memory for the control connections.
pub struct ControlBuffers {
    slots: [Memory; CONTROL_SLOTS],
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
            slots: [EMPTY; CONTROL_SLOTS],
        }
    }
}

impl Default for ControlBuffers {
    fn default() -> Self {
        Self::new()
    }
}

/// Serves control connections forever.
pub async fn serve<F: NorFlash, D: CardDriver>(
    stack: Stack<'_>,
    control: &BoxControl<'_, F, D>,
    state: &BoxState,
    keeper: &BoxKeeper,
    buffers: &mut ControlBuffers,
) -> ! {
    let [a, b, c] = &mut buffers.slots;
    let listen = |i: usize, memory| listen(stack, control, state, keeper, i, memory);
    match select3(listen(0, a), listen(1, b), listen(2, c)).await {
        Either3::First(never) | Either3::Second(never) | Either3::Third(never) => never,
    }
}

/// Serves one connection after another on slot `me`'s socket.
async fn listen<F: NorFlash, D: CardDriver>(
    stack: Stack<'_>,
    control: &BoxControl<'_, F, D>,
    state: &BoxState,
    keeper: &BoxKeeper,
    me: usize,
    memory: &mut Memory,
) -> ! {
    loop {
        let mut socket = TcpSocket::new(stack, &mut memory.rx, &mut memory.tx);
        if socket.accept(CONTROL_PORT).await.is_err() {
            continue;
        }
        let source = match socket.remote_endpoint().map(|e| e.addr) {
            Some(IpAddress::Ipv4(ip)) => ip.octets(),
            _ => [0; 4],
        };
        keeper.open_at(me, Door::Control, source);
        info!("control connection from {}", source);
        let mut device = BoxDevice { state };
        let seat = keeper.seat(me);
        let by_itself = {
            let served = core::pin::pin!(serve_connection(
                &mut socket,
                source,
                control,
                &mut device,
                &mut memory.frames,
                &seat,
            ));
            run_connection("control", served, keeper.closing(me)).await
        };
        hang_up(keeper, me, &mut socket, by_itself).await;
    }
}
