//! Running the box's async protocol code on `std` threads: a `block_on`
//! that sleeps until woken (embassy-time's std driver wakes timers from its
//! own thread), and `std` TCP streams as `embedded_io_async` streams whose
//! reads give way every [`POLL`] so the protocol's deadlines are seen.

use std::future::Future;
use std::io::{ErrorKind as IoKind, Read, Write};
use std::net::TcpStream;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;
use std::time::Duration;

use embedded_io_async::ErrorKind;

/// How long a blocking read waits before it lets the future's timers run
/// (an OSC push, a close for room): within `llv serve`'s push promise.
pub const POLL: Duration = Duration::from_millis(4);

struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs `future` on this thread, sleeping while it waits.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        // A missed wake costs at most this.
        std::thread::park_timeout(POLL);
    }
}

/// A TCP connection as the protocol's byte stream.
pub struct Stream(pub TcpStream);

impl Stream {
    /// Wraps `stream`, its reads bounded by [`POLL`].
    pub fn new(stream: TcpStream) -> std::io::Result<Stream> {
        stream.set_read_timeout(Some(POLL))?;
        stream.set_nodelay(true)?;
        Ok(Stream(stream))
    }
}

impl embedded_io_async::ErrorType for Stream {
    type Error = ErrorKind;
}

impl embedded_io_async::Read for Stream {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, ErrorKind> {
        loop {
            match self.0.read(buf) {
                Ok(n) => return Ok(n),
                Err(e) if matches!(e.kind(), IoKind::WouldBlock | IoKind::TimedOut) => {
                    embassy_futures::yield_now().await;
                }
                Err(e) if e.kind() == IoKind::Interrupted => {}
                Err(_) => return Err(ErrorKind::Other),
            }
        }
    }
}

impl embedded_io_async::Write for Stream {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, ErrorKind> {
        self.0.write(buf).map_err(|_| ErrorKind::Other)
    }

    async fn flush(&mut self) -> Result<(), ErrorKind> {
        self.0.flush().map_err(|_| ErrorKind::Other)
    }
}
