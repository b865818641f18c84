//! What several commands share, in one place: frame rates, addresses (one
//! resolver, one rule), the default ports, the frame edits and the options of
//! every command that reads a take.

use std::net::{IpAddr, SocketAddr, ToSocketAddrs};

use anyhow::{anyhow, Context, Result};
use llv_core::time::FrameRate;

use crate::recording::csv::ImportOptions;
use crate::take::Edit;

pub use llv_core::control::{CONTROL_PORT, LIVE_LINK_PORT};

/// Parses a frame rate for clap: `60`, `59.94`, `29.97` or `N/D` such as `60000/1001`.
pub fn parse_rate(text: &str) -> Result<FrameRate, String> {
    FrameRate::parse(text)
        .ok_or_else(|| format!("{text:?} is not a frame rate (e.g. 60, 59.94, 60000/1001)"))
}

/// Resolves `HOST`, `HOST:PORT`, `IP`, `IP:PORT`, `[IPv6]` or `[IPv6]:PORT`;
/// `default_port` fills a missing port. The rule: an IP is used as written; a
/// name that resolves to several addresses gives its first IPv4 one, else its
/// first IPv6 one (so `localhost` reaches a listener on 0.0.0.0 and the box,
/// which speaks IPv4 only).
pub fn resolve(spec: &str, default_port: u16) -> Result<SocketAddr> {
    if let Ok(addr) = spec.parse::<SocketAddr>() {
        return Ok(addr);
    }
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

/// Edits shared by the commands that write frames.
#[derive(clap::Args, Debug, Clone)]
pub struct EditArgs {
    /// Set the subject name of every frame.
    #[arg(long, value_name = "SUBJECT")]
    pub rename: Option<String>,
    /// Replace the device id with LLV's anonymous DEADC0DE-1337-1337-1337-CAFEBABE.
    #[arg(long)]
    pub anonymize: bool,
}

impl EditArgs {
    /// The edit these flags ask for.
    pub fn edit(&self) -> Edit {
        Edit {
            subject: self.rename.clone(),
            anonymize: self.anonymize,
        }
    }
}

/// How the commands that read a take read a Live Link Face CSV take.
#[derive(clap::Args, Debug, Clone)]
pub struct CsvArgs {
    /// Timecode rate of CSV takes: 60, 30, 59.94, 29.97 or N/D.
    #[arg(long, value_name = "FPS", default_value = "60", value_parser = parse_rate)]
    pub rate: FrameRate,
    /// Subject name of CSV takes (default: take.json, else the file name).
    #[arg(long)]
    pub subject: Option<String>,
    /// Device id of CSV takes (default: take.json's deviceModel, else empty).
    #[arg(long, value_name = "ID")]
    pub device_id: Option<String>,
}

impl CsvArgs {
    /// The import options these flags ask for.
    pub fn options(&self) -> ImportOptions {
        ImportOptions {
            rate: self.rate,
            subject: self.subject.clone(),
            device_id: self.device_id.clone(),
        }
    }
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
        assert!(parse_rate("59.94").is_ok());
        assert!(parse_rate("fast").unwrap_err().contains("not a frame rate"));
    }
}
