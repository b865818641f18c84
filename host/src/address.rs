//! Addresses as a user types them, turned into socket addresses: an IP, a
//! host name ([`resolve`], one rule for every command), or a box's name looked
//! up on the network by mDNS ([`resolve_box`], [`resolve_name`]).

use std::net::{IpAddr, Ipv4Addr, SocketAddr, SocketAddrV4, ToSocketAddrs};
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use llv_control::mdns::{GROUP, PORT};
use simple_dns::rdata::RData;
use simple_dns::{Packet, TYPE};

use crate::mdns_query::{ask, query, SERVICE};

/// Resolves `HOST`, `HOST:PORT`, `IP`, `IP:PORT`, `[IPv6]` or `[IPv6]:PORT`;
/// `default_port` fills a missing port. The rule: an IP is used as written; a
/// name that resolves to several addresses gives its first IPv4 one, else its
/// first IPv6 one (so `localhost` reaches a listener on 0.0.0.0 and the box,
/// which speaks IPv4 only).
pub fn resolve(spec: &str, default_port: u16) -> Result<SocketAddr> {
    if let Ok(addr) = spec.parse::<SocketAddr>() {
        return Ok(addr);
    }
    check_port(spec)?;
    let bare = spec.strip_prefix('[').and_then(|s| s.strip_suffix(']'));
    if let Ok(ip) = bare.unwrap_or(spec).parse::<IpAddr>() {
        return Ok(SocketAddr::new(ip, default_port));
    }
    let with_port = match spec.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') && port.parse::<u16>().is_ok() => {
            spec.to_string()
        }
        _ => format!("{spec}:{default_port}"),
    };
    let addrs: Vec<SocketAddr> = with_port
        .to_socket_addrs()
        .with_context(|| format!("cannot resolve {spec:?}"))?
        .collect();
    addrs
        .iter()
        .find(|a| a.is_ipv4())
        .or(addrs.first())
        .copied()
        .ok_or_else(|| anyhow!("{spec:?} resolves to no address"))
}

/// Refuses a port that is written but is no port (`HOST:99999`, `[::1]:x`),
/// which would otherwise read as part of a host name that does not resolve.
fn check_port(spec: &str) -> Result<()> {
    let port = match spec.strip_prefix('[') {
        Some(rest) => rest.split_once("]:").map(|(_, port)| port),
        None => match spec.split_once(':') {
            Some((_, port)) if !port.contains(':') => Some(port),
            _ => None,
        },
    };
    match port {
        Some(port) if port.parse::<u16>().is_err() => {
            bail!("{spec}: the port {port:?} is not a port: give a number from 1 to 65535")
        }
        _ => Ok(()),
    }
}

/// How long a box's name is looked for on the network.
pub const NAME_WAIT: Duration = Duration::from_millis(1500);

/// Resolves a box: an address as [`resolve`] takes it, or the box's name
/// (`NAME`, `NAME.local`, with or without `:PORT`) looked up by mDNS on the
/// network (the box's own control port when it says, else `default_port`);
/// a name no box answers for is resolved as a host name.
pub fn resolve_box(spec: &str, default_port: u16) -> Result<SocketAddr> {
    if spec.parse::<SocketAddr>().is_err() {
        check_port(spec)?;
    }
    let (host, port) = match spec.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') => match port.parse::<u16>() {
            Ok(port) => (host, Some(port)),
            Err(_) => (spec, None),
        },
        _ => (spec, None),
    };
    let label = host.strip_suffix(".local").unwrap_or(host);
    let is_name = host != "localhost"
        && host.parse::<IpAddr>().is_err()
        && llv_core::settings::check_box_name(label).is_ok()
        && (host.ends_with(".local") || !host.contains('.'));
    if is_name {
        if let Some((ip, announced)) = resolve_name(label, NAME_WAIT)? {
            let port = port.or(announced).unwrap_or(default_port);
            return Ok(SocketAddr::from((ip, port)));
        }
    }
    resolve(spec, default_port).with_context(|| {
        if is_name {
            format!("no box named {label:?} answered on the network (llv discover lists them)")
        } else {
            format!("cannot resolve {spec:?}")
        }
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_resolve_with_and_without_ports() {
        let cases = [
            ("127.0.0.1", "127.0.0.1:11111"),
            ("127.0.0.1:9000", "127.0.0.1:9000"),
            ("::1", "[::1]:11111"),
            ("[::1]", "[::1]:11111"),
            ("[::1]:9000", "[::1]:9000"),
            ("localhost", "127.0.0.1:11111"),
            ("localhost:9000", "127.0.0.1:9000"),
        ];
        for (spec, expected) in cases {
            assert_eq!(
                resolve(spec, 11111).unwrap().to_string(),
                expected,
                "{spec}"
            );
        }
        assert!(resolve("127.0.0.1:99999", 1).is_err());
    }
}
