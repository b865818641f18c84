//! The page and its HTTP API (`docs/http-api.md`) on the settings' HTTP
//! port (80 by default, read at power-up):
//! [`HTTP_SLOTS`] sockets, each serving one connection after another
//! through `llv_control::http`, the code `llv serve` runs, with their slots
//! from the box's [`BoxKeeper`] like every other TCP door.

use embassy_net::tcp::TcpSocket;
use embassy_net::{IpAddress, Stack};
use embassy_time::{Duration, Timer};
use embedded_storage_async::nor_flash::NorFlash;
use llv_card::CardDriver;
use llv_control::http::{serve_http_connection, HttpBuffers};
use llv_control::Door;

use crate::device::{BoxDevice, BoxState};
use crate::door_slots::{
    closing, hang_up, run_connection, BoxKeeper, CONTROL_SLOTS, FINISH_WAIT, HTTP_SLOTS, OSC_SLOTS,
};
use crate::fmt::info;
use crate::library::BoxControl;

/// TCP receive and send buffer of one HTTP connection: an upload's chunk
/// arrives in two windows, a pushed status leaves in two segments.
const TCP_BUF: usize = 512;

/// Memory for one HTTP connection.
pub struct HttpMemory {
    rx: [u8; TCP_BUF],
    tx: [u8; TCP_BUF],
    buffers: HttpBuffers,
}

impl HttpMemory {
    /// Zeroed buffers.
    pub const fn new() -> Self {
        HttpMemory {
            rx: [0; TCP_BUF],
            tx: [0; TCP_BUF],
            buffers: HttpBuffers::new(),
        }
    }
}

impl Default for HttpMemory {
    fn default() -> Self {
        Self::new()
    }
}

/// Serves HTTP on every HTTP socket, forever.
pub async fn serve<F: NorFlash, D: CardDriver>(
    stack: Stack<'_>,
    control: &BoxControl<'_, F, D>,
    state: &BoxState,
    keeper: &BoxKeeper,
    port: u16,
    memory: &mut [HttpMemory; HTTP_SLOTS],
) -> ! {
    info!("HTTP port {}", port);
    let mut me = CONTROL_SLOTS + OSC_SLOTS;
    let listeners = memory.each_mut().map(|memory| {
        me += 1;
        listen(stack, control, state, keeper, port, me - 1, memory)
    });
    embassy_futures::join::join_array(listeners).await;
    core::future::pending().await
}

/// Serves one HTTP connection after another on slot `me`'s socket.
async fn listen<F: NorFlash, D: CardDriver>(
    stack: Stack<'_>,
    control: &BoxControl<'_, F, D>,
    state: &BoxState,
    keeper: &BoxKeeper,
    port: u16,
    me: usize,
    memory: &mut HttpMemory,
) -> ! {
    loop {
        let mut socket = TcpSocket::new(stack, &mut memory.rx, &mut memory.tx);
        if socket.accept(port).await.is_err() {
            Timer::after(Duration::from_millis(100)).await;
            continue;
        }
        let source = match socket.remote_endpoint().map(|e| e.addr) {
            Some(IpAddress::Ipv4(ip)) => ip.octets(),
            #[allow(unreachable_patterns, reason = "IPv6 when the stack has it")]
            _ => [0; 4],
        };
        keeper.open_at(me, Door::Http, source);
        let mut device = BoxDevice { state };
        let seat = keeper.seat(me);
        let by_itself = {
            let served = core::pin::pin!(serve_http_connection(
                &mut socket,
                source,
                control,
                &mut device,
                &mut memory.buffers,
                &seat,
            ));
            run_connection("HTTP", served, closing(keeper, me, FINISH_WAIT)).await
        };
        hang_up(keeper, me, &mut socket, by_itself).await;
    }
}
