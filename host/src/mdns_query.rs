//! One-shot ("legacy") mDNS queries (RFC 6762, 6.7), the asking side that
//! [`crate::discover`] and [`crate::address`] share: sent from a port of our
//! own to the mDNS group (or one responder), so responders answer us alone and
//! nothing needs port 5353 on this host. The answers are read with simple-dns,
//! a DNS implementation other than the responder's.

use std::net::{Ipv4Addr, SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use simple_dns::{Name, Packet, Question, CLASS, TYPE};

/// The control service every box announces.
pub const SERVICE: &str = "_llv._tcp.local";

/// A one-shot query with `questions`.
pub fn query(id: u16, questions: &[(&str, TYPE)]) -> Result<Vec<u8>> {
    let mut q = Packet::new_query(id);
    for (name, ty) in questions {
        let name = Name::new(name).with_context(|| format!("{name:?} is not a DNS name"))?;
        q.questions
            .push(Question::new(name, (*ty).into(), CLASS::IN.into(), false));
    }
    Ok(q.build_bytes_vec()?)
}

/// Sends `packet` to `to` (twice, for a lost datagram) and hands every
/// answer received within `wait` to `each`, until it says it is done.
pub fn ask(
    to: SocketAddr,
    packet: &[u8],
    wait: Duration,
    mut each: impl FnMut(&[u8], SocketAddr) -> bool,
) -> Result<()> {
    let socket = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0)).context("opening a UDP socket")?;
    socket.set_multicast_ttl_v4(255)?;
    let end = Instant::now() + wait;
    let resend = Instant::now() + wait / 3;
    socket
        .send_to(packet, to)
        .with_context(|| format!("sending the mDNS query to {to}"))?;
    let mut resent = false;
    let mut buf = vec![0u8; 9000];
    loop {
        let now = Instant::now();
        if now >= end {
            return Ok(());
        }
        if !resent && now >= resend {
            let _ = socket.send_to(packet, to);
            resent = true;
        }
        let until = if resent { end } else { resend };
        socket.set_read_timeout(Some((until - now).max(Duration::from_millis(1))))?;
        if let Ok((n, from)) = socket.recv_from(&mut buf) {
            if each(&buf[..n], from) {
                return Ok(());
            }
        }
    }
}
