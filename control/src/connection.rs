//! The connection loop: length-prefixed frames (docs/control-protocol.md) read
//! from any async byte stream, each answered by the connection's [`Session`].
//!
//! The firmware's TCP listener and the host-side protocol tests both call
//! [`serve_connection`], so the tests exercise the loop the box runs.
//!
//! Nobody can hold a connection without using it: a connection must have its
//! `Hello` accepted within [`Limits::hello`] of opening, every frame must
//! arrive whole within [`Limits::frame`] of its first byte, and an
//! authenticated connection idle for [`Limits::idle`] is closed. A refused
//! `Hello` ends the connection; a wrong token first waits out its
//! [`Penalties`] delay.

use core::sync::atomic::{AtomicBool, Ordering};

use embassy_sync::blocking_mutex::raw::RawMutex;
use embassy_sync::mutex::Mutex;
use embassy_time::{with_deadline, Duration, Instant, Timer};
use embedded_io_async::{Read, ReadExactError, Write};
use llv_core::control::{body_len, MAX_FRAME, PREFIX_LEN};

use crate::library::TakeLibrary;
use crate::penalty::Penalties;
use crate::session::{Device, Session, Verdict, RESPONSE_BUF};

/// How long a connection may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// From opening to an accepted `Hello`.
    pub hello: Duration,
    /// From a frame's first byte to its last.
    pub frame: Duration,
    /// Between frames, once authenticated.
    pub idle: Duration,
    /// The longest an erasing upload chunk waits for the player's read-ahead.
    pub read_ahead: Duration,
}

/// How often an erasing chunk looks at the player's read-ahead while it waits.
const READ_AHEAD_POLL: Duration = Duration::from_millis(5);

/// The box's limits: 5 s to say Hello, 5 s per frame, 30 s idle, and an
/// erase waits at most 1 s for the read-ahead (which refills in a few frames).
pub const LIMITS: Limits = Limits {
    hello: Duration::from_secs(5),
    frame: Duration::from_secs(5),
    idle: Duration::from_secs(30),
    read_ahead: Duration::from_secs(1),
};

/// What every connection of one box shares (over every front door).
pub struct Control<'a, M: RawMutex, L> {
    /// Firmware name and version, as `Hello` and `Status` report it.
    pub firmware: &'static str,
    /// The take library (the box's store on flash, `llv serve`'s folder).
    pub library: &'a Mutex<M, L>,
    /// Recent wrong tokens per source.
    pub penalties: &'a Penalties,
    /// How long a connection may take.
    pub limits: Limits,
}

/// Memory for one connection: the request body and the framed response.
pub struct ConnectionBuffers {
    body: [u8; MAX_FRAME],
    out: [u8; RESPONSE_BUF],
}

impl ConnectionBuffers {
    /// Zeroed buffers.
    pub const fn new() -> Self {
        ConnectionBuffers {
            body: [0; MAX_FRAME],
            out: [0; RESPONSE_BUF],
        }
    }
}

impl Default for ConnectionBuffers {
    fn default() -> Self {
        Self::new()
    }
}

/// Why a connection ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Ended {
    /// The peer closed the stream (between frames or within one).
    Closed,
    /// Reading or writing failed.
    Failed,
    /// No accepted `Hello` in time, a frame too slow, or idle too long.
    TimedOut,
    /// A `Hello` was refused.
    Refused,
}

impl<E> From<ReadExactError<E>> for Ended {
    fn from(e: ReadExactError<E>) -> Self {
        match e {
            ReadExactError::UnexpectedEof => Ended::Closed,
            ReadExactError::Other(_) => Ended::Failed,
        }
    }
}

/// Serves one connection from `source` until it ends: each frame's request is
/// handled under the library's lock and answered in order. A garbled body gets
/// an error response and the connection goes on; an oversized one is skipped
/// and refused. `authenticated` follows whether the connection holds an
/// accepted `Hello` (the listener uses it to choose a connection to drop).
/// The connection's unfinished upload is dropped at the end.
pub async fn serve_connection<T, M, L, D>(
    io: &mut T,
    source: [u8; 4],
    control: &Control<'_, M, L>,
    device: &mut D,
    buffers: &mut ConnectionBuffers,
    authenticated: &AtomicBool,
) -> Ended
where
    T: Read + Write,
    M: RawMutex,
    L: TakeLibrary,
    D: Device<L::Take>,
{
    let mut session = Session::new(control.firmware);
    let ended = async {
        let ConnectionBuffers { body, out } = buffers;
        let hello_by = Instant::now() + control.limits.hello;
        loop {
            let waiting_until = if authenticated.load(Ordering::Relaxed) {
                Instant::now() + control.limits.idle
            } else {
                hello_by
            };
            let mut prefix = [0u8; PREFIX_LEN];
            match with_deadline(waiting_until, io.read_exact(&mut prefix[..1])).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => return e.into(),
                Err(_) => return Ended::TimedOut,
            }
            let whole_by = Instant::now() + control.limits.frame;
            let deadline = if authenticated.load(Ordering::Relaxed) {
                whole_by
            } else {
                whole_by.min(hello_by)
            };
            let read = with_deadline(deadline, async {
                io.read_exact(&mut prefix[1..]).await?;
                let len = body_len(prefix);
                if len <= MAX_FRAME {
                    io.read_exact(&mut body[..len]).await?;
                    return Ok(Some(len));
                }
                let mut left = len;
                while left > 0 {
                    let n = left.min(body.len());
                    io.read_exact(&mut body[..n]).await?;
                    left -= n;
                }
                Ok::<_, ReadExactError<T::Error>>(None)
            })
            .await;
            let response = match read {
                Err(_) => return Ended::TimedOut,
                Ok(Err(e)) => return e.into(),
                Ok(Ok(None)) => Session::refuse_oversized(body_len(prefix), out),
                Ok(Ok(Some(len))) => {
                    // Back-to-back erases would starve the player's read-ahead:
                    // each waits (a moment) for it to fill again.
                    if session.erases_first(&body[..len], &*control.library.lock().await) {
                        let until = Instant::now() + control.limits.read_ahead;
                        while device.read_ahead_short() && Instant::now() < until {
                            Timer::after(READ_AHEAD_POLL).await;
                        }
                    }
                    let mut library = control.library.lock().await;
                    let frame = session
                        .handle_frame(&body[..len], &mut *library, device, out)
                        .await;
                    authenticated.store(session.is_authenticated(&*library), Ordering::Relaxed);
                    frame
                }
            };
            let verdict = session.verdict();
            if verdict == Verdict::Penalize {
                Timer::after(control.penalties.wrong_token(source)).await;
            }
            // No flush: it would wait for the peer's ACK of every response.
            if io.write_all(response).await.is_err() {
                return Ended::Failed;
            }
            if verdict != Verdict::Continue {
                // Give the refusal a moment to leave before the caller closes.
                let _ = io.flush().await;
                return Ended::Refused;
            }
        }
    }
    .await;
    authenticated.store(false, Ordering::Relaxed);
    session.close(&mut *control.library.lock().await);
    ended
}
