//! The OSC door over UDP: the clients it remembers, replies to the sender
//! and to the configured reply port, pushes to subscribers.

use core::cmp::Reverse;

use embassy_sync::blocking_mutex::raw::RawMutex;
use embassy_time::Instant;
use llv_core::osc::Packet;

use super::message::{handle_message, Client, PenaltyMode};
use super::reply::{error_reply, packet_error, state_message, too_many};
use super::{MAX_MESSAGES, MAX_PACKET, MAX_REPLY, UDP_CLIENTS};
use crate::door::Control;
use crate::library::TakeLibrary;
use crate::session::Playback;
use crate::worker::Finish;

/// Where the UDP door sends.
#[allow(
    async_fn_in_trait,
    reason = "the firmware's executor is single-threaded"
)]
pub trait ReplySink {
    /// Sends `packet` to `ip`:`port`; failures are dropped (a reply is not
    /// worth holding the door for).
    async fn send_to(&mut self, packet: &[u8], ip: [u8; 4], port: u16);
}

/// A UDP client the door remembers.
struct UdpClient {
    ip: [u8; 4],
    port: u16,
    last: Instant,
    client: Client,
}

/// The OSC door over UDP: remembers [`UDP_CLIENTS`] clients with rights
/// (each with its session and subscription), and replies to the sender and
/// to the configured reply port.
///
/// A sender is remembered once it has rights (it proved the token with
/// `/llv/connect`, or the box has none). A sender without rights is served
/// from a scratch client and forgotten, so it never takes the place of a
/// client with rights. A new client with rights takes a free place, else
/// that of a client whose rights lapsed (the token changed), else one of
/// the source address holding the most places (a laptop spraying ports
/// pushes out its own), preferring one without a running subscription,
/// the least recently heard.
pub struct UdpDoor {
    firmware: &'static str,
    clients: [Option<UdpClient>; UDP_CLIENTS],
    /// Serves a sender the door does not remember.
    scratch: Client,
}

impl UdpDoor {
    /// A door of a box running `firmware`.
    pub fn new(firmware: &'static str) -> Self {
        UdpDoor {
            firmware,
            clients: [const { None }; UDP_CLIENTS],
            scratch: Client::new(firmware),
        }
    }

    /// The place of a new client with rights (see [`UdpDoor`]).
    fn place<L: TakeLibrary>(&self, now: Instant, library: &L) -> usize {
        let count = |ip: [u8; 4]| self.clients.iter().flatten().filter(|c| c.ip == ip).count();
        self.clients
            .iter()
            .enumerate()
            .min_by_key(|(_, c)| match c {
                None => (0, Reverse(usize::MAX), false, None),
                Some(c) => (
                    if c.client.session.is_authenticated(library) {
                        2
                    } else {
                        1
                    },
                    Reverse(count(c.ip)),
                    c.client.subscription.active(now),
                    Some(c.last),
                ),
            })
            .map_or(0, |(i, _)| i)
    }

    /// Handles one datagram of `len` bytes from `ip`:`port`, of which
    /// `datagram` holds the first (all of it up to [`MAX_PACKET`]): one over
    /// [`MAX_PACKET`] gets an `/llv/error` reply. Every message's reply goes
    /// to the sender and to the reply port; a subscription starts with the
    /// state.
    #[allow(
        clippy::too_many_arguments,
        reason = "the datagram, its sender and everything it is handled with"
    )]
    pub async fn handle<M, L, D, S, W>(
        &mut self,
        datagram: &[u8],
        len: usize,
        (ip, port): ([u8; 4], u16),
        control: &Control<'_, M, L, W>,
        device: &mut D,
        out: &mut [u8; MAX_REPLY],
        sink: &mut S,
    ) where
        M: RawMutex,
        L: TakeLibrary,
        W: Finish<M, L>,
        D: Playback<L::Take>,
        S: ReplySink,
    {
        let reply_port = control.library.lock().await.settings().reply_port;
        let send = async |sink: &mut S, packet: &[u8]| {
            sink.send_to(packet, ip, port).await;
            if let Some(also) = reply_port.filter(|p| *p != port) {
                sink.send_to(packet, ip, also).await;
            }
        };
        if len > MAX_PACKET || datagram.len() > MAX_PACKET {
            let n = error_reply(out, "packet over 512 bytes");
            send(sink, &out[..n]).await;
            return;
        }
        let packet = match Packet::parse(datagram) {
            Ok(packet) => packet,
            Err(e) => {
                let n = packet_error(e, out);
                send(sink, &out[..n]).await;
                return;
            }
        };
        let now = Instant::now();
        let known = self
            .clients
            .iter()
            .position(|c| c.as_ref().is_some_and(|c| c.ip == ip && c.port == port));
        if known.is_none() {
            self.scratch = Client::new(self.firmware);
        }
        let mut messages = packet.messages();
        for m in messages.by_ref().take(MAX_MESSAGES) {
            let client = match known.and_then(|i| self.clients.get_mut(i)?.as_mut()) {
                Some(c) => {
                    c.last = now;
                    &mut c.client
                }
                None => &mut self.scratch,
            };
            let was_subscribed = client.subscription.active(now);
            let handled =
                handle_message(&m, client, ip, PenaltyMode::LockOut, control, device, out).await;
            if handled.reply > 0 {
                send(sink, &out[..handled.reply]).await;
            }
            if !was_subscribed
                && client
                    .subscription
                    .due(Instant::now(), device.playing().as_ref())
            {
                let n = state_message(out, device.playing().as_ref());
                send(sink, &out[..n]).await;
            }
        }
        if messages.next().is_some() {
            let n = too_many(out);
            send(sink, &out[..n]).await;
        }
        if known.is_none() {
            let library = control.library.lock().await;
            if self.scratch.session.is_authenticated(&*library) {
                let slot = self.place(now, &*library);
                let client = core::mem::replace(&mut self.scratch, Client::new(self.firmware));
                if let Some(entry) = self.clients.get_mut(slot) {
                    *entry = Some(UdpClient {
                        ip,
                        port,
                        last: now,
                        client,
                    });
                }
            }
        }
    }

    /// Pushes the state to every subscriber it is due to (call every
    /// [`crate::Limits::push_poll`]).
    pub async fn push<M, L, D, S, W>(
        &mut self,
        control: &Control<'_, M, L, W>,
        device: &D,
        out: &mut [u8; MAX_REPLY],
        sink: &mut S,
    ) where
        M: RawMutex,
        L: TakeLibrary,
        W: Finish<M, L>,
        D: Playback<L::Take>,
        S: ReplySink,
    {
        let now = Instant::now();
        let playing = device.playing();
        if !self
            .clients
            .iter_mut()
            .flatten()
            .any(|c| c.client.subscription.active(now))
        {
            return;
        }
        let reply_port = control.library.lock().await.settings().reply_port;
        let n = state_message(out, playing.as_ref());
        for c in self.clients.iter_mut().flatten() {
            if c.client.subscription.due(now, playing.as_ref()) {
                sink.send_to(&out[..n], c.ip, c.port).await;
                if let Some(also) = reply_port.filter(|p| *p != c.port) {
                    sink.send_to(&out[..n], c.ip, also).await;
                }
            }
        }
    }
}
