//! The OSC door over UDP: the clients it remembers, replies to the sender
//! and to the configured reply port, pushes to subscribers.

use embassy_sync::blocking_mutex::raw::RawMutex;
use embassy_time::Instant;
use llv_core::osc::Packet;

use super::message::{handle_message, Client, PenaltyMode};
use super::reply::{packet_error, state_message, too_many};
use super::{MAX_MESSAGES, MAX_REPLY, UDP_CLIENTS};
use crate::door::Control;
use crate::library::TakeLibrary;
use crate::session::Playback;

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

/// The OSC door over UDP: remembers [`UDP_CLIENTS`] clients (each with its
/// session and subscription; a new client replaces the least recently heard
/// one without a running subscription, else the least recently heard), and
/// replies to the sender and to the configured reply port.
pub struct UdpDoor {
    firmware: &'static str,
    clients: [Option<UdpClient>; UDP_CLIENTS],
}

impl UdpDoor {
    /// A door of a box running `firmware`.
    pub const fn new(firmware: &'static str) -> Self {
        UdpDoor {
            firmware,
            clients: [const { None }; UDP_CLIENTS],
        }
    }

    fn client(&mut self, ip: [u8; 4], port: u16, now: Instant) -> &mut Client {
        let known = self
            .clients
            .iter()
            .position(|c| c.as_ref().is_some_and(|c| c.ip == ip && c.port == port));
        let slot = known.unwrap_or_else(|| {
            self.clients
                .iter()
                .enumerate()
                .min_by_key(|(_, c)| match c {
                    None => (false, None),
                    Some(c) => (c.client.subscription.active(now), Some(c.last)),
                })
                .map_or(0, |(i, _)| i)
        });
        let fresh = known.is_none();
        let firmware = self.firmware;
        let entry = &mut self.clients[slot];
        if fresh {
            *entry = None;
        }
        let c = entry.get_or_insert_with(|| UdpClient {
            ip,
            port,
            last: now,
            client: Client::new(firmware),
        });
        c.last = now;
        &mut c.client
    }

    /// Handles one datagram from `ip`:`port`: every message's reply goes to
    /// the sender and to the reply port; a subscription starts with the state.
    pub async fn handle<M, L, D, S>(
        &mut self,
        datagram: &[u8],
        (ip, port): ([u8; 4], u16),
        control: &Control<'_, M, L>,
        device: &mut D,
        out: &mut [u8; MAX_REPLY],
        sink: &mut S,
    ) where
        M: RawMutex,
        L: TakeLibrary,
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
        let packet = match Packet::parse(datagram) {
            Ok(packet) => packet,
            Err(e) => {
                let n = packet_error(e, out);
                send(sink, &out[..n]).await;
                return;
            }
        };
        let now = Instant::now();
        let client = self.client(ip, port, now);
        let mut messages = packet.messages();
        for m in messages.by_ref().take(MAX_MESSAGES) {
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
    }

    /// Pushes the state to every subscriber it is due to (call every [`PUSH_POLL`]).
    pub async fn push<M, L, D, S>(
        &mut self,
        control: &Control<'_, M, L>,
        device: &D,
        out: &mut [u8; MAX_REPLY],
        sink: &mut S,
    ) where
        M: RawMutex,
        L: TakeLibrary,
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
