//! The live relay on a laptop (`llv relay`): datagrams from a UDP socket
//! through the core's one relay engine ([`llv_core::relay`]) to the targets,
//! the live frames kept by the [`black_box`] on its own thread.

pub mod black_box;

use std::io::ErrorKind;
use std::net::{IpAddr, SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use llv_core::blendshape::COUNT;
use llv_core::packet::MAX_LEN;
use llv_core::relay::{Arrived, Idle, Relay};

use crate::playback::pacer::Pacer;
use crate::playback::Senders;
use crate::take::Take;
use black_box::BlackBox;

/// Longest the relay (and its reader) waits before it looks at the clock
/// and the stop flag again.
const LONGEST_WAIT: Duration = Duration::from_millis(100);

/// An idle take's values, frame after frame, looping.
pub struct IdleTake {
    frames: Vec<[f32; COUNT]>,
    next: usize,
}

impl IdleTake {
    /// The values of every frame of `take`.
    pub fn new(take: &Take) -> IdleTake {
        IdleTake {
            frames: take.frames().map(|p| p.frame().blendshapes).collect(),
            next: 0,
        }
    }
}

impl Idle for IdleTake {
    fn next(&mut self, out: &mut [f32; COUNT]) -> bool {
        let Some(frame) = self.frames.get(self.next % self.frames.len().max(1)) else {
            return false;
        };
        *out = *frame;
        self.next = self.next.wrapping_add(1);
        true
    }
}

/// What the relay did: the engine's counts and the source's timing, the
/// sends that failed, the black box's take.
pub struct Report {
    /// The engine, as it ended (counts, source clock).
    pub relay: Relay,
    /// Sends that failed, over all targets.
    pub send_errors: u64,
    /// The black box's take and its size in bytes.
    pub recorded: Option<(std::path::PathBuf, u64)>,
}

/// The relay's clock and when it ends.
pub struct Bounds<'a> {
    /// Zero on the relay's clock (what its switch instants count from).
    pub epoch: Instant,
    /// Set to stop.
    pub stop: &'a AtomicBool,
    /// Stop then, if given.
    pub until: Option<Instant>,
}

/// How often the relay reports its counts to `progress`.
const REPORT_EVERY: Duration = Duration::from_millis(250);

/// Relays from `socket` to `targets` until `bounds` end; `progress` gets the
/// engine and the bytes recorded about four times a second. A reader thread takes each datagram off the socket the moment it
/// comes, with its instant; the relay thread waits on it to the µs (a
/// socket's own timeout is rounded to the kernel's tick, milliseconds).
pub fn run(
    socket: &UdpSocket,
    targets: &[SocketAddr],
    mut relay: Relay,
    idle: &mut dyn Idle,
    black_box: Option<BlackBox>,
    bounds: Bounds<'_>,
    progress: &mut dyn FnMut(&Relay, u64),
) -> Result<Report> {
    let Bounds { epoch, stop, until } = bounds;
    let senders = Senders::new(targets).context("opening a UDP socket")?;
    socket
        .set_read_timeout(Some(LONGEST_WAIT))
        .context("setting the socket's timeout")?;
    let done = AtomicBool::new(false);
    let (arrivals, arrived) = mpsc::channel::<Datagram>();
    let micros = |at: Instant| u64::try_from((at - epoch).as_micros()).unwrap_or(u64::MAX);
    let mut out = [0u8; MAX_LEN];
    let mut send_errors = 0u64;
    let mut send = |packet: &[u8]| {
        for target in targets {
            if senders.send(packet, target).is_err() {
                send_errors += 1;
            }
        }
    };
    let ended = std::thread::scope(|scope| -> Result<()> {
        let reader = scope.spawn(|| read(socket, &arrivals, &done));
        // Timer slack of 1 ns, and real-time priority where the system
        // allows it: the black box's writer stays at normal priority.
        let _priority = Pacer::new(true);
        let mut reported = Instant::now();
        while !stop.load(Ordering::Relaxed) && until.is_none_or(|u| Instant::now() < u) {
            let now = micros(Instant::now());
            let wait = relay.next_due().map_or(LONGEST_WAIT, |due| {
                Duration::from_micros(due.saturating_sub(now)).min(LONGEST_WAIT)
            });
            match arrived.recv_timeout(wait) {
                Ok(datagram) => {
                    let bytes = datagram.bytes.as_slice();
                    match relay.arrive(micros(datagram.at), bytes, datagram.from) {
                        Arrived::Face => {
                            if let Some(black_box) = &black_box {
                                black_box.keep(bytes);
                            }
                        }
                        Arrived::PassOn => send(bytes),
                        Arrived::Skipped => {}
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            let now = micros(Instant::now());
            while let Some(len) = relay.poll(now, idle, &mut out) {
                send(&out[..len]);
            }
            if reported.elapsed() >= REPORT_EVERY {
                reported = Instant::now();
                progress(&relay, black_box.as_ref().map_or(0, BlackBox::bytes));
            }
        }
        done.store(true, Ordering::Relaxed);
        reader
            .join()
            .map_err(|_| anyhow::anyhow!("the reader thread panicked"))?
    });
    let recorded = match black_box {
        Some(black_box) => {
            let bytes = black_box.bytes();
            Some((black_box.finish()?, bytes))
        }
        None => None,
    };
    ended?;
    Ok(Report {
        relay,
        send_errors,
        recorded,
    })
}

/// A datagram as the reader took it off the socket.
struct Datagram {
    at: Instant,
    from: IpAddr,
    bytes: Vec<u8>,
}

/// The reader: every datagram off `socket` with its instant, until `done`.
fn read(socket: &UdpSocket, arrivals: &mpsc::Sender<Datagram>, done: &AtomicBool) -> Result<()> {
    let _priority = Pacer::new(true);
    // Larger than any datagram, so an oversized one is seen whole and called invalid.
    let mut buf = vec![0u8; 65536];
    while !done.load(Ordering::Relaxed) {
        match socket.recv_from(&mut buf) {
            Ok((len, from)) => {
                let datagram = Datagram {
                    at: Instant::now(),
                    from: from.ip().to_canonical(),
                    bytes: buf[..len].to_vec(),
                };
                if arrivals.send(datagram).is_err() {
                    break;
                }
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(e) => return Err(e).context("receiving"),
        }
    }
    Ok(())
}
