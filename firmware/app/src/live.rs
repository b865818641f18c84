//! The box's live relay: the phone's datagrams from a UDP port through the
//! core's one relay engine ([`llv_core::relay`], which `llv relay` and
//! `llv serve` run too) to the player's targets, an idle take from the
//! library covering a dropout. The player task runs it ([`relay`]) in
//! place of a playback: one stream goes to the targets at a time.

use core::net::IpAddr;

use embassy_futures::select::select;
use embassy_net::udp::{PacketMetadata, UdpSocket};
use embassy_net::Stack;
use embassy_time::{Duration, Instant, Timer};
use llv_card::journal::Stamp;
use llv_core::blendshape::COUNT;
use llv_core::packet::{FaceFrame, MAX_LEN};
use llv_core::relay::{Arrived, Idle, Relay};
use llv_core::settings::Target;

use crate::black_box::BlackBox;
use crate::sink::PacketSink;
use crate::source::FrameSource;

/// Bytes of datagrams the live port queues: six of the phone's frames.
pub const LIVE_RX: usize = 2048;
/// Datagrams the live port queues.
const LIVE_PACKETS: usize = 8;
/// How often the relay reports its counts.
pub const REPORT_EVERY: Duration = Duration::from_millis(250);

/// Where the phone's datagrams come in.
#[allow(async_fn_in_trait)]
pub trait LiveInput {
    /// Listens on `port`, forgetting what an earlier listen queued; `false`
    /// when it cannot.
    fn listen(&mut self, port: u16) -> bool;

    /// Stops listening.
    fn close(&mut self);

    /// Waits for the next datagram and hands it to `take` where it lies
    /// (no copy), with who sent it.
    async fn receive<R>(&mut self, take: impl FnOnce(&[u8], IpAddr) -> R) -> R;
}

/// Memory for the live port's socket.
pub struct LiveBuffers {
    rx_meta: [PacketMetadata; LIVE_PACKETS],
    rx: [u8; LIVE_RX],
    tx_meta: [PacketMetadata; 1],
    tx: [u8; 0],
}

impl LiveBuffers {
    /// Zeroed buffers.
    pub const fn new() -> Self {
        LiveBuffers {
            rx_meta: [PacketMetadata::EMPTY; LIVE_PACKETS],
            rx: [0; LIVE_RX],
            tx_meta: [PacketMetadata::EMPTY; 1],
            tx: [0; 0],
        }
    }
}

impl Default for LiveBuffers {
    fn default() -> Self {
        Self::new()
    }
}

/// The live port: an embassy-net UDP socket, bound while the relay runs.
pub struct UdpLive<'a> {
    socket: UdpSocket<'a>,
}

impl<'a> UdpLive<'a> {
    /// The socket on `stack` with `buffers`, not yet listening.
    pub fn new(stack: Stack<'a>, buffers: &'a mut LiveBuffers) -> Self {
        let LiveBuffers {
            rx_meta,
            rx,
            tx_meta,
            tx,
        } = buffers;
        UdpLive {
            socket: UdpSocket::new(stack, rx_meta, rx, tx_meta, tx),
        }
    }
}

impl LiveInput for UdpLive<'_> {
    fn listen(&mut self, port: u16) -> bool {
        self.socket.close();
        self.socket.bind(port).is_ok()
    }

    fn close(&mut self) {
        self.socket.close();
    }

    async fn receive<R>(&mut self, take: impl FnOnce(&[u8], IpAddr) -> R) -> R {
        // A datagram longer than the socket's buffer never gets in (smoltcp
        // drops it on arrival): whatever comes is whole.
        self.socket
            .recv_from_with(|bytes, meta| take(bytes, IpAddr::from(meta.endpoint.addr)))
            .await
    }
}

/// The idle take's values, read ahead one frame: the engine takes them
/// without waiting, and the relay reads the next between its sends.
struct IdleFeed<'s, S> {
    source: Option<&'s mut S>,
    /// The frame to read next.
    index: u32,
    values: [f32; COUNT],
    /// Values read and not yet taken.
    fresh: bool,
    /// Whether any frame was read (else the engine holds the last live frame).
    have: bool,
}

impl<S> Idle for IdleFeed<'_, S> {
    fn next(&mut self, out: &mut [f32; COUNT]) -> bool {
        // Taken twice before the next read: the same frame again.
        *out = self.values;
        self.fresh = false;
        self.have
    }
}

impl<S: FrameSource> IdleFeed<'_, S> {
    /// Reads the next frame once the last was taken; a frame that does not
    /// read or decode is passed over (the last good one stays).
    async fn refill(&mut self, buf: &mut [u8; MAX_LEN]) {
        let Some(source) = self.source.as_deref_mut() else {
            return;
        };
        if self.fresh {
            return;
        }
        let count = source.frame_count();
        if count == 0 {
            return;
        }
        let index = self.index % count;
        self.index = index.wrapping_add(1);
        if let Ok(frame) = source.read_frame(index, buf).await {
            if let Ok(face) = FaceFrame::decode(buf.get(..frame.len).unwrap_or_default()) {
                self.values = face.blendshapes;
                self.fresh = true;
                self.have = true;
            }
        }
    }
}

/// Relays from `input` (listening already) to `targets` through `sink`
/// (opened already) with the engine `relay`, the `idle` take's frames
/// covering a dropout, the live frames handed to `black_box` when it
/// records, forever: the caller ends it by dropping the future.
/// `report` gets the engine about four times a second.
pub async fn relay<S: FrameSource, K: PacketSink, L: LiveInput>(
    relay: &mut Relay,
    input: &mut L,
    sink: &mut K,
    targets: &[Target],
    idle: Option<&mut S>,
    black_box: Option<&BlackBox>,
    report: &mut dyn FnMut(&Relay),
) -> ! {
    let epoch = Instant::now();
    let micros = |at: Instant| at.saturating_duration_since(epoch).as_micros();
    let mut feed = IdleFeed {
        source: idle,
        index: 0,
        values: [0.0; COUNT],
        fresh: false,
        have: false,
    };
    let mut out = [0u8; MAX_LEN];
    feed.refill(&mut out).await;
    let mut report_at = Instant::now();
    let mut stamp = Stamp::default();
    loop {
        let due = relay.next_due().map(|us| epoch + Duration::from_micros(us));
        let wake = due.map_or(report_at, |d| d.min(report_at));
        let arrival = input.receive(|bytes, from| {
            let at = micros(Instant::now());
            match relay.arrive(at, bytes, from) {
                Arrived::PassOn => offer(sink, targets, bytes),
                Arrived::Face => {
                    // Recorded as it arrived (the clock wraps in the
                    // journal's u32 µs: differences do not).
                    let head = black_box.and_then(|_| stamp.stamp(at as u32, bytes));
                    if let (Some(b), Some(head)) = (black_box, head) {
                        b.keep(&head, bytes);
                    }
                }
                Arrived::Skipped => {}
            }
        });
        // A timer that wins leaves the datagram in the socket for the next turn.
        let _ = select(arrival, Timer::at(wake)).await;
        let mut sent = false;
        while let Some(len) = relay.poll(micros(Instant::now()), &mut feed, &mut out) {
            offer(sink, targets, out.get(..len).unwrap_or_default());
            sent = true;
        }
        if let (true, Some(b)) = (sent, black_box) {
            b.sent();
        }
        feed.refill(&mut out).await;
        let now = Instant::now();
        if now >= report_at {
            report(relay);
            report_at = now + REPORT_EVERY;
        }
    }
}

/// Offers `packet` to every target; a full queue loses it for that target.
fn offer<K: PacketSink>(sink: &mut K, targets: &[Target], packet: &[u8]) {
    for index in 0..targets.len() {
        let _ = sink.offer(index, packet);
    }
}
