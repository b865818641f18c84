//! `llv discover`: the boxes (and `llv serve` laptops) on the network, found
//! by mDNS/DNS-SD with a one-shot query ([`crate::mdns_query`]). A box's name
//! is resolved to its address in [`crate::address`].

use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use llv_control::mdns::{GROUP, PORT};
use serde::Serialize;
use simple_dns::rdata::RData;
use simple_dns::{Name, Packet, PacketFlag, TYPE};

use crate::address::resolve;
use crate::console::printable;
use crate::mdns_query::{ask, query, SERVICE};

/// Arguments of `llv discover`.
#[derive(Args, Debug)]
#[command(after_help = "\
Examples:
  llv discover                      # every box (and llv serve laptop) that answers within a second
  llv discover --json --wait 3000
  llv discover --unicast 127.0.0.1:5353   # one responder, e.g. a QEMU box's forwarded port")]
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
        crate::outln!("{}", serde_json::to_string_pretty(&found)?);
        return Ok(());
    }
    if found.is_empty() {
        crate::outln!("no box answered within {} ms", args.wait);
        return Ok(());
    }
    crate::outln!(
        "{:<32}  {:<21}  {:<24}  PLAYING",
        "NAME",
        "ADDRESS",
        "FIRMWARE"
    );
    for f in &found {
        let address = match (f.address, f.control_port) {
            (Some(ip), Some(port)) => format!("{ip}:{port}"),
            (Some(ip), None) => ip.to_string(),
            _ => "?".into(),
        };
        crate::outln!(
            "{:<32}  {:<21}  {:<24}  {}",
            printable(&f.name),
            address,
            printable(f.firmware.as_deref().unwrap_or("?")),
            printable(f.playing.as_deref().unwrap_or("-"))
        );
    }
    Ok(())
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
