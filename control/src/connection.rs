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
//! [`crate::penalty::Penalties`] delay.

use embassy_sync::blocking_mutex::raw::RawMutex;
use embassy_time::{with_deadline, Instant, Timer};
use embedded_io_async::{Read, ReadExactError, Write};
use llv_core::control::{body_len, MAX_FRAME, PREFIX_LEN};

use crate::door::{Control, Ended, Seat, READ_AHEAD_POLL};
use crate::library::TakeLibrary;
use crate::session::{frame, Playback, Session, Step, Verdict, RESPONSE_BUF};
use crate::worker::Finish;

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

/// Serves one connection from `source` until it ends: each frame's request is
/// handled under the library's lock and answered in order. A garbled body gets
/// an error response and the connection goes on; an oversized one is skipped
/// and refused. Each request is reported to `seat`, with whether the
/// connection holds an accepted `Hello` (the door keeper chooses whom to
/// close by it). The connection's unfinished upload is dropped at the end.
pub async fn serve_connection<T, M, L, D, W>(
    io: &mut T,
    source: [u8; 4],
    control: &Control<'_, M, L, W>,
    device: &mut D,
    buffers: &mut ConnectionBuffers,
    seat: &dyn Seat,
) -> Ended
where
    T: Read + Write,
    M: RawMutex,
    L: TakeLibrary,
    W: Finish<M, L>,
    D: Playback<L::Take>,
{
    let mut session = Session::new(control.firmware);
    let ended = async {
        let ConnectionBuffers { body, out } = buffers;
        let hello_by = Instant::now() + control.limits.hello;
        let mut authenticated = false;
        loop {
            let waiting_until = if authenticated {
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
            let deadline = if authenticated {
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
                    // The step is taken apart in its own statement: matched
                    // on across the worker's wait, it would stay in this
                    // future beside the pending work it carries.
                    let response = 'step: {
                        let library = control.library.lock().await;
                        let pending = match session.start_frame(&body[..len], &*library, device) {
                            Step::Done(response) => {
                                authenticated = session.is_authenticated(&*library);
                                break 'step response;
                            }
                            Step::Wait(pending) => pending,
                        };
                        let finish = control
                            .finish
                            .finish(&mut session, pending, library, device);
                        let response = finish.await;
                        let library = control.library.lock().await;
                        authenticated = session.is_authenticated(&*library);
                        response
                    };
                    frame(&response, out)
                }
            };
            seat.request(authenticated);
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
    session.close(&mut *control.library.lock().await);
    ended
}
