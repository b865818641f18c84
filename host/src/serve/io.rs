//! Running the box's async protocol code on `std` threads: a `block_on`
//! that sleeps until woken (embassy-time's std driver wakes timers from its
//! own thread), and `std` sockets as async sources whose blocking reads run
//! on a thread of their own and wake the protocol when something arrives,
//! so its timers (OSC pushes, deadlines, a close for room) run on time,
//! never later than a socket timeout's tick (a few ms on Linux) would allow.

use std::collections::VecDeque;
use std::future::{poll_fn, Future};
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream, UdpSocket};
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;
use std::time::Duration;

use embedded_io_async::ErrorKind;

/// How long `block_on` sleeps at most without a wake (a safety net: every
/// source here wakes it).
const PARK: Duration = Duration::from_millis(100);

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
        std::thread::park_timeout(PARK);
    }
}

/// What a reading thread handed over, and who waits for it.
struct Inbox<T> {
    items: VecDeque<T>,
    /// The source ended (`Ok`) or failed (`Err`); nothing more comes.
    ended: Option<Result<(), ()>>,
    waker: Option<Waker>,
}

/// Items a thread reads from a blocking source, for an async reader.
struct Mailbox<T>(Arc<Mutex<Inbox<T>>>);

impl<T> Clone for Mailbox<T> {
    fn clone(&self) -> Self {
        Mailbox(self.0.clone())
    }
}

impl<T> Mailbox<T> {
    fn new() -> Self {
        Mailbox(Arc::new(Mutex::new(Inbox {
            items: VecDeque::new(),
            ended: None,
            waker: None,
        })))
    }

    fn with<R>(&self, f: impl FnOnce(&mut Inbox<T>) -> R) -> R {
        f(&mut self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Hands `item` over (or the end) and wakes the reader.
    fn put(&self, item: Result<T, Result<(), ()>>) {
        let waker = self.with(|inbox| {
            match item {
                Ok(item) => inbox.items.push_back(item),
                Err(ended) => inbox.ended = Some(ended),
            }
            inbox.waker.take()
        });
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// The next item, or how the source ended.
    async fn next(&self) -> Result<T, Result<(), ()>> {
        poll_fn(|cx| {
            self.with(|inbox| {
                if let Some(item) = inbox.items.pop_front() {
                    return Poll::Ready(Ok(item));
                }
                if let Some(ended) = inbox.ended {
                    return Poll::Ready(Err(ended));
                }
                inbox.waker = Some(cx.waker().clone());
                Poll::Pending
            })
        })
        .await
    }
}

/// A TCP connection as the protocol's byte stream: a thread reads it,
/// writes go straight out. Dropping it shuts the connection down (which
/// ends the reading thread).
pub struct Stream {
    writer: TcpStream,
    incoming: Mailbox<Vec<u8>>,
    /// The chunk being read, and how far.
    chunk: Vec<u8>,
    at: usize,
}

impl Stream {
    /// Wraps `stream`, starting its reading thread.
    pub fn new(stream: TcpStream) -> std::io::Result<Stream> {
        stream.set_nodelay(true)?;
        let mut reader = stream.try_clone()?;
        let incoming = Mailbox::new();
        let inbox = incoming.clone();
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 4096];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) => return inbox.put(Err(Ok(()))),
                    Ok(n) => inbox.put(Ok(buf[..n].to_vec())),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => return inbox.put(Err(Err(()))),
                }
            }
        });
        Ok(Stream {
            writer: stream,
            incoming,
            chunk: Vec::new(),
            at: 0,
        })
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        let _ = self.writer.shutdown(Shutdown::Both);
    }
}

impl embedded_io_async::ErrorType for Stream {
    type Error = ErrorKind;
}

impl embedded_io_async::Read for Stream {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, ErrorKind> {
        if self.at == self.chunk.len() {
            match self.incoming.next().await {
                Ok(chunk) => (self.chunk, self.at) = (chunk, 0),
                Err(Ok(())) => return Ok(0),
                Err(Err(())) => return Err(ErrorKind::Other),
            }
        }
        let n = buf.len().min(self.chunk.len() - self.at);
        buf[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

impl embedded_io_async::Write for Stream {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, ErrorKind> {
        self.writer.write(buf).map_err(|_| ErrorKind::Other)
    }

    async fn flush(&mut self) -> Result<(), ErrorKind> {
        self.writer.flush().map_err(|_| ErrorKind::Other)
    }
}

/// A UDP socket's datagrams, read whole (up to 64 KiB) by a thread of
/// their own, with their senders.
pub struct Datagrams(Mailbox<(Vec<u8>, SocketAddr)>);

impl Datagrams {
    /// Starts reading `socket` (a clone of it: the caller keeps sending on its own).
    pub fn new(socket: &UdpSocket) -> std::io::Result<Datagrams> {
        let reader = socket.try_clone()?;
        reader.set_read_timeout(None)?;
        let incoming = Mailbox::new();
        let inbox = incoming.clone();
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 65_536];
            loop {
                if let Ok((n, from)) = reader.recv_from(&mut buf) {
                    inbox.put(Ok((buf[..n].to_vec(), from)));
                }
            }
        });
        Ok(Datagrams(incoming))
    }

    /// The next datagram and its sender (the reading never ends).
    pub async fn next(&self) -> (Vec<u8>, SocketAddr) {
        match self.0.next().await {
            Ok(datagram) => datagram,
            Err(_) => core::future::pending().await,
        }
    }
}
