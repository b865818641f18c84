//! The box's TCP connection slots, one per socket: [`CONTROL_SLOTS`] on the
//! control port, then [`OSC_SLOTS`] on the OSC port, then [`HTTP_SLOTS`] on the HTTP port, kept by one
//! `llv_control::DoorKeeper` (the door policy `llv serve` runs too: one
//! slot of each door kept free, see `llv_control::slots`), and how a slot's
//! connection ends ([`hang_up`]).

use core::future::Future;
use core::pin::Pin;

use embassy_futures::select::{select, Either};
use embassy_net::tcp::TcpSocket;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_time::{with_timeout, Duration, Timer};
use llv_control::{Door, DoorKeeper, Ended};

use crate::fmt::info;

/// How long an ending connection may take to deliver its last response,
/// and its reset.
const CLOSE_WAIT: Duration = Duration::from_millis(250);
/// How long an HTTP connection told to close for a newcomer may still end
/// by itself: a reply under way (the page, to a browser that opened a
/// second connection beside it) leaves whole. The control and OSC doors
/// close at once: their clients never open two connections at once, and the
/// newcomer's slot must listen again for the next.
pub const FINISH_WAIT: Duration = Duration::from_millis(300);

/// Control connections at once (slots `0..CONTROL_SLOTS`).
pub const CONTROL_SLOTS: usize = 3;
/// OSC over TCP connections at once (the slots after the control ones).
pub const OSC_SLOTS: usize = 2;
/// HTTP connections at once (the slots after the OSC ones): the page's
/// event stream and its requests; 4 with the `http-wide` feature, none
/// without the `http` feature.
pub const HTTP_SLOTS: usize = if cfg!(feature = "http-wide") {
    4
} else if cfg!(feature = "http") {
    2
} else {
    0
};
/// Every TCP slot.
pub const SLOTS: usize = CONTROL_SLOTS + OSC_SLOTS + HTTP_SLOTS;

/// The keeper of the box's slots.
pub type BoxKeeper = DoorKeeper<CriticalSectionRawMutex, SLOTS>;

/// Every slot free, each serving its door.
pub const fn keeper() -> BoxKeeper {
    let mut doors = [Some(Door::Control); SLOTS];
    let mut i = CONTROL_SLOTS;
    while i < CONTROL_SLOTS + OSC_SLOTS {
        doors[i] = Some(Door::Osc);
        i += 1;
    }
    while i < SLOTS {
        doors[i] = Some(Door::Http);
        i += 1;
    }
    DoorKeeper::new(doors)
}

/// Runs a connection on `door` (`served`, pinned where it was made: a
/// future moved in here would take its room twice) until it ends by itself
/// (`true`) or `closing` fires (`false`: the keeper closes it for a
/// newcomer, [`closing`]); [`hang_up`] next.
pub async fn run_connection(
    door: &'static str,
    served: Pin<&mut impl Future<Output = Ended>>,
    closing: impl Future<Output = ()>,
) -> bool {
    match select(served, closing).await {
        Either::First(ended) => {
            info!("{} connection closed: {}", door, ended);
            true
        }
        Either::Second(()) => {
            info!("{} connection closed for a newcomer", door);
            false
        }
    }
}

/// When the keeper closes slot `me`'s connection for a newcomer, `finish`
/// later: an HTTP connection gets [`FINISH_WAIT`] to end by itself.
pub async fn closing(keeper: &BoxKeeper, me: usize, finish: Duration) {
    keeper.closing(me).await;
    Timer::after(finish).await;
}

/// Ends slot `me`'s connection: one that ended by itself (`by_itself`) lets
/// its last response leave first; then the slot is given back and the
/// connection reset. The reset is sent before the socket goes (a dropped
/// socket is forgotten at once, and the peer, a browser's event stream say,
/// would wait on a connection that is gone).
pub async fn hang_up(keeper: &BoxKeeper, me: usize, socket: &mut TcpSocket<'_>, by_itself: bool) {
    if by_itself {
        socket.close();
        let _ = with_timeout(CLOSE_WAIT, socket.flush()).await;
    }
    keeper.release(me);
    socket.abort();
    let _ = with_timeout(CLOSE_WAIT, socket.flush()).await;
}
