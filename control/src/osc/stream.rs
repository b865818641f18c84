//! The OSC door over TCP: OSC 1.1's SLIP and OSC 1.0's size prefix, told
//! apart by the first byte; each packet's messages run as over UDP and are
//! answered on the connection.

use embassy_futures::select::{select, Either};
use embassy_sync::blocking_mutex::raw::RawMutex;
use embassy_time::{with_deadline, Instant, Timer};
use embedded_io_async::{Read, Write};
use llv_core::osc::{
    size_prefix, FrameWriter, Framing, Packet, SlipDecoder, SlipEvent, SIZE_PREFIX_LEN,
};

use super::message::{handle_message, Client, PenaltyMode};
use super::reply::{error_reply, packet_error, state_message, too_many};
use super::{FRAME_LIMIT, IDLE_LIMIT, MAX_MESSAGES, MAX_PACKET, MAX_REPLY};
use crate::door::{Control, Ended, Seat};
use crate::library::TakeLibrary;
use crate::session::Playback;
use crate::worker::Finish;

/// Memory for one OSC stream connection: the packet being read and the reply.
pub struct OscBuffers {
    packet: [u8; MAX_PACKET],
    out: [u8; MAX_REPLY],
}

impl OscBuffers {
    /// Zeroed buffers.
    pub const fn new() -> Self {
        OscBuffers {
            packet: [0; MAX_PACKET],
            out: [0; MAX_REPLY],
        }
    }
}

impl Default for OscBuffers {
    fn default() -> Self {
        Self::new()
    }
}

/// What reading one stream frame gave.
enum Frame {
    /// A packet of this many bytes at the start of the packet buffer.
    Packet(usize),
    /// A frame that is no packet, and why.
    Bad(&'static str),
    /// No packet yet (only the ENDs between SLIP frames, or an empty packet).
    Nothing,
}

/// Reads up to `buf.len()` bytes, or reports `Closed` / `Failed`.
async fn read_some<T: Read>(io: &mut T, buf: &mut [u8]) -> Result<usize, Ended> {
    match io.read(buf).await {
        Ok(0) => Err(Ended::Closed),
        Ok(n) => Ok(n),
        Err(_) => Err(Ended::Failed),
    }
}

/// Writes `packet` to `io` in `framing`, a few bytes at a time.
async fn send_framed<T: Write>(io: &mut T, framing: Framing, packet: &[u8]) -> Result<(), Ended> {
    let mut frame = FrameWriter::new(framing, packet);
    let mut chunk = [0u8; 64];
    while !frame.is_done() {
        let n = frame.next_chunk(&mut chunk);
        io.write_all(&chunk[..n]).await.map_err(|_| Ended::Failed)?;
    }
    Ok(())
}

/// Pushes the state to `client` if it is due (a change, or the heartbeat).
async fn push<T: Write, P: Playback<L>, L>(
    io: &mut T,
    framing: Option<Framing>,
    client: &mut Client,
    device: &P,
    out: &mut [u8; MAX_REPLY],
) -> Result<(), Ended> {
    let playing = device.playing();
    if client.subscription.due(Instant::now(), playing.as_ref()) {
        let n = state_message(out, playing.as_ref());
        send_framed(io, framing.unwrap_or(Framing::Slip), &out[..n]).await?;
    }
    Ok(())
}

/// Serves one OSC stream connection (OSC over TCP) from `source` until it
/// ends: the first byte tells the framing (SLIP or size prefix, see
/// [`Framing::detect`]; anything else ends the connection), then each
/// packet's messages are handled as over UDP and answered on the
/// connection. A frame must arrive whole within [`FRAME_LIMIT`]; a
/// connection without input or a running subscription for [`IDLE_LIMIT`]
/// is closed; a connection that sent one message and closed still gets its
/// message run. Each message is reported to `seat` with whether the
/// connection has rights (the door keeper chooses whom to close by it).
/// Subscribers get the state within [`crate::Limits::push_poll`] of a
/// change, however busy the connection's input is.
pub async fn serve_osc_connection<T, M, L, D, W>(
    io: &mut T,
    source: [u8; 4],
    control: &Control<'_, M, L, W>,
    device: &mut D,
    buffers: &mut OscBuffers,
    seat: &dyn Seat,
) -> Ended
where
    T: Read + Write,
    M: RawMutex,
    L: TakeLibrary,
    W: Finish<M, L>,
    D: Playback<L::Take>,
{
    let mut client = Client::new(control.firmware);
    let OscBuffers { packet, out } = buffers;
    let mut chunk = [0u8; 64];
    let (mut at, mut len) = (0usize, 0usize);
    let mut framing = None;
    let mut slip = SlipDecoder::new();
    let mut idle_since = Instant::now();
    let poll = control.limits.push_poll;
    // Looked at on a fixed cadence, not after each read: a busy connection
    // is pushed to as promptly as an idle one.
    let mut next_push = Instant::now() + poll;
    let ended = 'conn: loop {
        // Between packets: wait for input, pushing the state meanwhile.
        if at == len {
            let now = Instant::now();
            if !client.subscription.active(now)
                && now.saturating_duration_since(idle_since) > IDLE_LIMIT
            {
                break Ended::TimedOut;
            }
            if now >= next_push {
                next_push = now + poll;
                if let Err(e) = push(io, framing, &mut client, device, out).await {
                    break e;
                }
            }
            match select(io.read(&mut chunk), Timer::at(next_push)).await {
                Either::First(Ok(0)) => break Ended::Closed,
                Either::First(Ok(n)) => {
                    (at, len) = (0, n);
                    idle_since = Instant::now();
                }
                Either::First(Err(_)) => break Ended::Failed,
                Either::Second(()) => continue,
            }
        }
        let framing = match framing {
            Some(f) => f,
            None => match Framing::detect(chunk[at]) {
                Some(f) => *framing.insert(f),
                None => break Ended::Refused,
            },
        };
        // Read one packet whole, within FRAME_LIMIT of its first byte.
        let whole_by = Instant::now() + FRAME_LIMIT;
        let frame = with_deadline(whole_by, async {
            match framing {
                Framing::Slip => loop {
                    while at < len {
                        let b = chunk[at];
                        at += 1;
                        match slip.push(b, packet) {
                            SlipEvent::Pending => {}
                            SlipEvent::Frame(n) => return Ok(Frame::Packet(n)),
                            SlipEvent::Overflow => return Ok(Frame::Bad("packet over 512 bytes")),
                            SlipEvent::BadEscape => return Ok(Frame::Bad("bad SLIP escape")),
                        }
                    }
                    if !slip.in_frame() {
                        // Only ENDs so far: not a packet yet, nothing to time.
                        return Ok(Frame::Nothing);
                    }
                    len = read_some(io, &mut chunk).await?;
                    at = 0;
                },
                Framing::SizePrefix => {
                    let mut prefix = [0u8; SIZE_PREFIX_LEN];
                    let mut got = 0;
                    while got < SIZE_PREFIX_LEN {
                        if at == len {
                            len = read_some(io, &mut chunk).await?;
                            at = 0;
                        }
                        let n = (SIZE_PREFIX_LEN - got).min(len - at);
                        prefix[got..got + n].copy_from_slice(&chunk[at..at + n]);
                        (got, at) = (got + n, at + n);
                    }
                    let size = size_prefix(prefix).ok_or(Ended::Refused)?;
                    let mut got = 0;
                    while got < size {
                        if at == len {
                            len = read_some(io, &mut chunk).await?;
                            at = 0;
                        }
                        let n = (size - got).min(len - at);
                        if let Some(dst) = packet.get_mut(got..got + n) {
                            dst.copy_from_slice(&chunk[at..at + n]);
                        }
                        (got, at) = (got + n, at + n);
                    }
                    Ok(match size {
                        0 => Frame::Nothing,
                        n if n > MAX_PACKET => Frame::Bad("packet over 512 bytes"),
                        n => Frame::Packet(n),
                    })
                }
            }
        })
        .await;
        let size = match frame {
            Err(_) => break Ended::TimedOut,
            Ok(Err(e)) => break e,
            Ok(Ok(Frame::Nothing)) => continue,
            Ok(Ok(Frame::Bad(why))) => {
                let n = error_reply(out, why);
                if let Err(e) = send_framed(io, framing, &out[..n]).await {
                    break e;
                }
                continue;
            }
            Ok(Ok(Frame::Packet(size))) => size,
        };
        let parsed = match Packet::parse(&packet[..size]) {
            Ok(p) => p,
            Err(e) => {
                let n = packet_error(e, out);
                if let Err(e) = send_framed(io, framing, &out[..n]).await {
                    break e;
                }
                continue;
            }
        };
        let mut messages = parsed.messages();
        for m in messages.by_ref().take(MAX_MESSAGES) {
            let was_subscribed = client.subscription.active(Instant::now());
            let handled = handle_message(
                &m,
                &mut client,
                source,
                PenaltyMode::Wait,
                control,
                device,
                out,
            )
            .await;
            seat.request(
                client
                    .session
                    .is_authenticated(&*control.library.lock().await),
            );
            if let Some(wait) = handled.wait {
                Timer::after(wait).await;
            }
            if handled.reply > 0 {
                if let Err(e) = send_framed(io, framing, &out[..handled.reply]).await {
                    break 'conn e;
                }
            }
            if handled.close {
                let _ = io.flush().await;
                break 'conn Ended::Refused;
            }
            let playing = device.playing();
            if !was_subscribed && client.subscription.due(Instant::now(), playing.as_ref()) {
                let n = state_message(out, playing.as_ref());
                if let Err(e) = send_framed(io, framing, &out[..n]).await {
                    break 'conn e;
                }
            }
        }
        if messages.next().is_some() {
            let n = too_many(out);
            if let Err(e) = send_framed(io, framing, &out[..n]).await {
                break e;
            }
        }
    };
    // A connection that sent its message and closed still gets it answered
    // above; what is left unsent (a reply to a closed peer) is dropped.
    let _ = io.flush().await;
    ended
}
