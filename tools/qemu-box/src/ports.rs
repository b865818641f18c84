//! The host ports a box under QEMU is reached on: each port the box serves,
//! forwarded from 127.0.0.1 by QEMU's user network.

use std::fmt;
use std::net::{TcpListener, UdpSocket};

/// One service of the box and where the host reaches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Forward {
    /// What it is, in a word (`control`, `osc`, ...).
    pub name: &'static str,
    /// The box's port.
    pub guest: u16,
    /// The host's port on 127.0.0.1.
    pub host: u16,
    /// Forwarded over TCP.
    pub tcp: bool,
    /// Forwarded over UDP.
    pub udp: bool,
}

/// Every port the box serves, forwarded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ports(pub Vec<Forward>);

/// The box's services: name, port, TCP, UDP.
const SERVICES: [(&str, u16, bool, bool); 5] = [
    ("control", 11113, true, false),
    ("http", 80, true, false),
    ("osc", 11114, true, true),
    ("artnet", 6454, false, true),
    ("mdns", 5353, false, true),
];

impl Ports {
    /// Host ports for every service: the box's own number where it is free
    /// on 127.0.0.1 (for each protocol the service uses), else a free one.
    pub fn pick() -> std::io::Result<Ports> {
        let mut taken = Vec::new();
        let mut forwards = Vec::new();
        for (name, guest, tcp, udp) in SERVICES {
            let host = if free(guest, tcp, udp) && !taken.contains(&guest) {
                guest
            } else {
                any_free(tcp, udp, &taken)?
            };
            taken.push(host);
            forwards.push(Forward {
                name,
                guest,
                host,
                tcp,
                udp,
            });
        }
        Ok(Ports(forwards))
    }

    /// The host port of the service `name`.
    pub fn host(&self, name: &str) -> Option<u16> {
        self.0.iter().find(|f| f.name == name).map(|f| f.host)
    }

    /// QEMU's `-nic user` options that forward them (`,hostfwd=...` each).
    pub fn hostfwd(&self) -> String {
        let mut out = String::new();
        for f in &self.0 {
            for (proto, on) in [("tcp", f.tcp), ("udp", f.udp)] {
                if on {
                    out += &format!(",hostfwd={proto}:127.0.0.1:{}-:{}", f.host, f.guest);
                }
            }
        }
        out
    }

    /// The ports as one JSON object (`{"control":11113,...}`), for scripts.
    pub fn json(&self) -> String {
        let fields: Vec<String> = self
            .0
            .iter()
            .map(|f| format!("\"{}\":{}", f.name, f.host))
            .collect();
        format!("{{{}}}", fields.join(","))
    }
}

impl fmt::Display for Ports {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.0 {
            let protos = match (p.tcp, p.udp) {
                (true, true) => "TCP and UDP",
                (true, false) => "TCP",
                _ => "UDP",
            };
            writeln!(
                f,
                "  {:<8} 127.0.0.1:{:<5}  ({protos}, the box's {})",
                p.name, p.host, p.guest
            )?;
        }
        Ok(())
    }
}

/// Whether `port` can be bound on 127.0.0.1 for each protocol asked.
fn free(port: u16, tcp: bool, udp: bool) -> bool {
    (!tcp || TcpListener::bind(("127.0.0.1", port)).is_ok())
        && (!udp || UdpSocket::bind(("127.0.0.1", port)).is_ok())
}

/// A port the system hands out that is free for each protocol asked and not `taken`.
fn any_free(tcp: bool, udp: bool, taken: &[u16]) -> std::io::Result<u16> {
    for _ in 0..64 {
        let port = if tcp {
            TcpListener::bind("127.0.0.1:0")?.local_addr()?.port()
        } else {
            UdpSocket::bind("127.0.0.1:0")?.local_addr()?.port()
        };
        if free(port, tcp, udp) && !taken.contains(&port) {
            return Ok(port);
        }
    }
    Err(std::io::Error::other("no free port on 127.0.0.1"))
}
