//! `llv discover`: the boxes (and `llv serve` laptops) on the network, found
//! by mDNS/DNS-SD, and the resolution of a box's name to its address for
//! every command that takes one ([`resolve_name`]).
//!
//! The queries are one-shot ("legacy") mDNS queries (RFC 6762, 6.7): sent
//! from a port of our own to the mDNS group, so responders answer us alone
//! and nothing needs port 5353 on this host. The answers are read with
//! simple-dns, a DNS implementation other than the responder's.

use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;
use llv_control::mdns::{GROUP, PORT};
use serde::Serialize;
use simple_dns::rdata::RData;
use simple_dns::{Name, Packet, PacketFlag, Question, CLASS, TYPE};

use crate::args::resolve;

/// The control service every box announces.
const SERVICE: &str = "_llv._tcp.local";

/// Arguments of `llv discover`.
#[derive(Args, Debug)]
pub struct DiscoverArgs {
    /// How long to listen for answers, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    pub wait: u64,
    /// Ask one responder at HOST:PORT instead of the mDNS group (a box whose
    /// port 5353 is forwarded, a responder on another network).
    #[arg(long, value_name = "HOST:PORT")]
    pub unicast: Option<String>,
    /// Print the boxes as JSON.
    #[arg(long)]
    pub json: bool,
}

/// A box found on the network.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Found {
    /// Its name (`NAME.local`).
    pub name: String,
    /// Its IPv4 address.
    pub address: Option<Ipv4Addr>,
    /// Its control port (TCP).
    pub control_port: Option<u16>,
    /// Its OSC port (UDP and TCP).
    pub osc_port: Option<u16>,
    /// Firmware name and version.
    pub firmware: Option<String>,
    /// The take playing, if any.
    pub playing: Option<String>,
    /// Bytes free for takes.
    pub free_bytes: Option<u64>,
    /// Control protocol version.
    pub protocol: Option<u16>,
}

/// Runs `llv discover`.
pub fn run(args: &DiscoverArgs) -> Result<()> {
    let to = match &args.unicast {
        Some(spec) => resolve(spec, PORT)?,
        None => SocketAddr::from((GROUP, PORT)),
    };
    let found = browse(to, Duration::from_millis(args.wait))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&found)?);
        return Ok(());
    }
    if found.is_empty() {
        println!("no box answered within {} ms", args.wait);
        return Ok(());
    }
    println!(
        "{:<32}  {:<21}  {:<24}  PLAYING",
        "NAME", "ADDRESS", "FIRMWARE"
    );
    for f in &found {
        let address = match (f.address, f.control_port) {
            (Some(ip), Some(port)) => format!("{ip}:{port}"),
            (Some(ip), None) => ip.to_string(),
            _ => "?".into(),
        };
        println!(
            "{:<32}  {:<21}  {:<24}  {}",
            f.name,
            address,
            f.firmware.as_deref().unwrap_or("?"),
            f.playing.as_deref().unwrap_or("-")
        );
    }
    Ok(())
}

/// A one-shot query with `questions`.
fn query(id: u16, questions: &[(&str, TYPE)]) -> Result<Vec<u8>> {
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
fn ask(
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

/// The boxes that answer a browse for `_llv._tcp` sent to `to` within `wait`, by name.
pub fn browse(to: SocketAddr, wait: Duration) -> Result<Vec<Found>> {
    let packet = query(0x11bb, &[(SERVICE, TYPE::PTR)])?;
    let mut boxes: BTreeMap<String, Found> = BTreeMap::new();
    ask(to, &packet, wait, |bytes, from| {
        if let Ok(reply) = Packet::parse(bytes) {
            if reply.has_flags(PacketFlag::RESPONSE) {
                read_reply(&reply, from, &mut boxes);
            }
        }
        false
    })?;
    Ok(boxes.into_values().collect())
}

/// What one reply says of boxes, merged into `boxes`.
fn read_reply(reply: &Packet<'_>, from: SocketAddr, boxes: &mut BTreeMap<String, Found>) {
    let records: Vec<_> = reply
        .answers
        .iter()
        .chain(&reply.additional_records)
        .collect();
    let lower = |n: &Name<'_>| n.to_string().to_ascii_lowercase();
    let mut addresses: BTreeMap<String, Ipv4Addr> = BTreeMap::new();
    for r in &records {
        if let RData::A(a) = &r.rdata {
            addresses.insert(lower(&r.name), Ipv4Addr::from(a.address));
        }
    }
    let instances: Vec<String> = records
        .iter()
        .filter(|r| lower(&r.name) == SERVICE)
        .filter_map(|r| match &r.rdata {
            RData::PTR(ptr) => Some(ptr.0.to_string()),
            _ => None,
        })
        .collect();
    for instance in instances {
        let Some(label) = instance.strip_suffix(&format!(".{SERVICE}")) else {
            continue;
        };
        let entry = boxes.entry(label.to_ascii_lowercase()).or_default();
        entry.name = label.to_string();
        let osc_instance = format!("{}._osc._udp.local", label.to_ascii_lowercase());
        for r in &records {
            let owner = lower(&r.name);
            match &r.rdata {
                RData::SRV(srv) if owner == instance.to_ascii_lowercase() => {
                    entry.control_port = Some(srv.port);
                    if let Some(ip) = addresses.get(&lower(&srv.target)) {
                        entry.address = Some(*ip);
                    }
                }
                RData::SRV(srv) if owner == osc_instance => entry.osc_port = Some(srv.port),
                RData::TXT(txt) if owner == instance.to_ascii_lowercase() => {
                    let kv = txt.attributes();
                    let text = |k: &str| kv.get(k).cloned().flatten();
                    entry.firmware = text("fw");
                    entry.playing = text("play").filter(|p| !p.is_empty());
                    entry.free_bytes = text("free").and_then(|f| f.parse().ok());
                    entry.protocol = text("proto").and_then(|p| p.parse().ok());
                    if let Some(name) = text("name") {
                        entry.name = name;
                    }
                }
                _ => {}
            }
        }
        if entry.address.is_none() {
            if let SocketAddr::V4(v4) = from {
                entry.address = Some(*v4.ip());
            }
        }
    }
}

/// The address of the box named `name` (`NAME` or `NAME.local`), and its
/// control port if it says: asked of the mDNS group, answers waited for at
/// most `wait`. `None` when no box of that name answered.
pub fn resolve_name(name: &str, wait: Duration) -> Result<Option<(Ipv4Addr, Option<u16>)>> {
    let label = name.strip_suffix(".local").unwrap_or(name);
    let host = format!("{label}.local").to_ascii_lowercase();
    let instance = format!("{label}.{SERVICE}").to_ascii_lowercase();
    let packet = query(0x11bc, &[(&host, TYPE::A), (&instance, TYPE::SRV)])?;
    let mut found: Option<(Ipv4Addr, Option<u16>)> = None;
    let to = SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::from(GROUP), PORT));
    ask(to, &packet, wait, |bytes, _| {
        let Ok(reply) = Packet::parse(bytes) else {
            return false;
        };
        let (mut ip, mut port) = (None, None);
        for r in reply.answers.iter().chain(&reply.additional_records) {
            let owner = r.name.to_string().to_ascii_lowercase();
            match &r.rdata {
                RData::A(a) if owner == host => ip = Some(Ipv4Addr::from(a.address)),
                RData::SRV(srv) if owner == instance => port = Some(srv.port),
                _ => {}
            }
        }
        if let Some(ip) = ip {
            let port = port.or(found.and_then(|(_, p)| p));
            found = Some((ip, port));
        }
        // Done once the address and the port are known.
        found.is_some_and(|(_, p)| p.is_some())
    })?;
    Ok(found)
}
