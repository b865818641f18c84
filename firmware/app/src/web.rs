//! The page and its HTTP API (`docs/http-api.md`) on the settings' HTTP
//! port (80 by default, read at power-up):
//! [`HTTP_SLOTS`] sockets, each serving one connection after another
//! through `llv_control::http`, the code `llv serve` runs, with their slots
//! from the box's [`BoxKeeper`] like every other TCP door.

use embassy_futures::select::{select, Either};
use embassy_net::tcp::TcpSocket;
use embassy_net::{IpAddress, Stack};
use embassy_time::{with_timeout, Duration, Timer};
use embedded_storage_async::nor_flash::NorFlash;
use llv_card::CardDriver;
use llv_control::http::{serve_http_connection, HttpBuffers};
use llv_control::Door;

use crate::device::{BoxDevice, BoxState};
use crate::door_slots::{BoxKeeper, CONTROL_SLOTS, HTTP_SLOTS, OSC_SLOTS};
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
    let [a, b] = memory;
    let first = CONTROL_SLOTS + OSC_SLOTS;
    info!("HTTP port {}", port);
    embassy_futures::join::join(
        listen(stack, control, state, keeper, port, first, a),
        listen(stack, control, state, keeper, port, first + 1, b),
    )
    .await;
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
        let served = serve_http_connection(
            &mut socket,
            source,
            control,
            &mut device,
            &mut memory.buffers,
            &seat,
        );
        match select(served, keeper.closing(me)).await {
            Either::First(ended) => {
                info!("HTTP connection closed: {}", ended);
                socket.close();
                let _ = with_timeout(Duration::from_millis(250), socket.flush()).await;
            }
            Either::Second(()) => info!("HTTP connection closed for a newcomer"),
        }
        keeper.release(me);
        socket.abort();
    }
}
