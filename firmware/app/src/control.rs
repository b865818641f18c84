//! The control server: [`LISTENERS`] TCP connections at a time on
//! [`CONTROL_PORT`] (so a host reconnecting while the last connection closes
//! is not refused), each a [`Session`] over length-prefixed frames
//! (docs/control-protocol.md). Requests are handled one at a time under the
//! store's mutex. A garbled body gets an error response and the connection
//! goes on; an oversized one is skipped and refused; a connection that stalls
//! is dropped after [`IDLE_TIMEOUT`].

use embassy_futures::select::{select, Either};
use embassy_net::tcp::TcpSocket;
use embassy_net::Stack;
use embassy_time::Duration;
use embedded_storage_async::nor_flash::NorFlash;
use llv_box_store::server::FRAME_BUF;
use llv_box_store::Session;
use llv_core::control::{body_len, CONTROL_PORT, MAX_FRAME, PREFIX_LEN};

use crate::device::{BoxDevice, BoxState};
use crate::fmt::{info, warning};
use crate::stored::SharedStore;

/// A connection silent this long is closed.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// Connections served at once.
pub const LISTENERS: usize = 2;

/// TCP receive and send buffer of one connection (frames pass through in parts).
const SOCKET_BUF: usize = 1024;

/// Memory for one control connection.
struct Slot {
    rx: [u8; SOCKET_BUF],
    tx: [u8; SOCKET_BUF],
    body: [u8; MAX_FRAME],
    out: [u8; FRAME_BUF],
}

impl Slot {
    const fn new() -> Self {
        Slot {
            rx: [0; SOCKET_BUF],
            tx: [0; SOCKET_BUF],
            body: [0; MAX_FRAME],
            out: [0; FRAME_BUF],
        }
    }
}

/// Memory for the control connections.
pub struct ControlBuffers {
    slots: [Slot; LISTENERS],
}

impl ControlBuffers {
    pub const fn new() -> Self {
        ControlBuffers {
            slots: [Slot::new(), Slot::new()],
        }
    }
}

impl Default for ControlBuffers {
    fn default() -> Self {
        Self::new()
    }
}

/// The connection ended (closed by the host, reset, or timed out).
struct Closed;

async fn read_exact(socket: &mut TcpSocket<'_>, buf: &mut [u8]) -> Result<(), Closed> {
    let mut at = 0;
    while at < buf.len() {
        match socket.read(&mut buf[at..]).await {
            Ok(0) | Err(_) => return Err(Closed),
            Ok(n) => at += n,
        }
    }
    Ok(())
}

async fn write_all(socket: &mut TcpSocket<'_>, mut buf: &[u8]) -> Result<(), Closed> {
    while !buf.is_empty() {
        match socket.write(buf).await {
            Ok(0) | Err(_) => return Err(Closed),
            Ok(n) => buf = &buf[n..],
        }
    }
    Ok(())
}

/// Serves control connections forever.
pub async fn serve<F: NorFlash>(
    stack: Stack<'_>,
    store: &SharedStore<F>,
    state: &BoxState,
    firmware: &'static str,
    buffers: &mut ControlBuffers,
) -> ! {
    let [a, b] = &mut buffers.slots;
    match select(
        listen(stack, store, state, firmware, a),
        listen(stack, store, state, firmware, b),
    )
    .await
    {
        Either::First(never) | Either::Second(never) => never,
    }
}

/// Serves one connection after another on one socket.
async fn listen<F: NorFlash>(
    stack: Stack<'_>,
    store: &SharedStore<F>,
    state: &BoxState,
    firmware: &'static str,
    buffers: &mut Slot,
) -> ! {
    loop {
        let mut socket = TcpSocket::new(stack, &mut buffers.rx, &mut buffers.tx);
        socket.set_timeout(Some(IDLE_TIMEOUT));
        if socket.accept(CONTROL_PORT).await.is_err() {
            continue;
        }
        info!("control connection");
        let mut session = Session::new(firmware);
        // Ends when the connection does.
        let _ = converse(
            &mut socket,
            &mut session,
            store,
            state,
            &mut buffers.body,
            &mut buffers.out,
        )
        .await;
        session.close(&mut *store.lock().await);
        socket.close();
        let _ = embassy_time::with_timeout(Duration::from_secs(2), socket.flush()).await;
        socket.abort();
        info!("control connection closed");
    }
}

async fn converse<F: NorFlash>(
    socket: &mut TcpSocket<'_>,
    session: &mut Session,
    store: &SharedStore<F>,
    state: &BoxState,
    body: &mut [u8; MAX_FRAME],
    out: &mut [u8; FRAME_BUF],
) -> Result<(), Closed> {
    loop {
        let mut prefix = [0u8; PREFIX_LEN];
        read_exact(socket, &mut prefix).await?;
        let len = body_len(prefix);
        let response = if len > MAX_FRAME {
            warning!("control: refusing a {} byte frame", len);
            let mut left = len;
            while left > 0 {
                let n = left.min(body.len());
                read_exact(socket, &mut body[..n]).await?;
                left -= n;
            }
            Session::refuse_oversized(len, out)
        } else {
            read_exact(socket, &mut body[..len]).await?;
            let mut store = store.lock().await;
            let mut device = BoxDevice { state };
            session
                .handle_frame(&body[..len], &mut store, &mut device, out)
                .await
        };
        write_all(socket, response).await?;
    }
}
