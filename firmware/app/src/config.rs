//! The box's settings and their text form, a kernel-style command line:
//!
//! ```text
//! targets=10.0.2.2:11111,10.0.2.2:11112 loop=2 static=10.0.2.15/24 gw=10.0.2.2
//! ```
//!
//! | key | value | default |
//! |---|---|---|
//! | `targets` | up to [`MAX_TARGETS`] `IPv4:port`, comma separated | board default |
//! | `loop` | `N` plays the take N times; `0` or `forever` loops without end | `1` |
//! | `dhcp` | `on` or `off` | `on` |
//! | `dhcp_timeout_ms` | wait this long for a lease before the static address | `4000` |
//! | `static` | `IPv4/prefix`: the fallback address (the only one with `dhcp=off`) | board default |
//! | `gw` | gateway for the static address, or `none` | none |
//!
//! Keys may come in any order; a later one wins. Words are separated by
//! spaces. Anything else is an error naming the word (counted from 0).

use core::net::{Ipv4Addr, SocketAddrV4};
use core::str::FromStr;

use heapless::Vec;
use llv_core::settings::{Loops, StaticAddress, Target, MAX_TARGETS};

/// How the box gets its address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetPolicy {
    /// Try DHCP first.
    pub dhcp: bool,
    /// How long to wait for a lease before falling back to `fallback`.
    pub dhcp_timeout_ms: u32,
    /// Used when DHCP is off or gets no lease in time.
    pub fallback: StaticAddress,
}

/// Everything the command line can set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoxConfig {
    /// Where the built-in take is sent.
    pub targets: Vec<Target, MAX_TARGETS>,
    /// How often the built-in take is played.
    pub loops: Loops,
    /// How the box gets its address.
    pub net: NetPolicy,
}

/// What was wrong with a command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ConfigErrorKind {
    /// A word without `=`.
    NotKeyValue,
    /// A key the box does not know.
    UnknownKey,
    /// A target that is not `a.b.c.d:port`, or port 0.
    BadTarget,
    /// More than [`MAX_TARGETS`] targets.
    TooManyTargets,
    /// `targets=` with nothing after it.
    NoTargets,
    /// Not a number, `0` or `forever`.
    BadLoop,
    /// Not `a.b.c.d/prefix` with prefix 0..=32.
    BadStatic,
    /// Not an IPv4 address or `none`.
    BadGateway,
    /// Not `on` or `off`.
    BadDhcp,
    /// Not a number of milliseconds.
    BadTimeout,
}

/// A command-line error and the index of the word it is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ConfigError {
    /// Index of the word, counted from 0.
    pub word: usize,
    /// What is wrong with it.
    pub kind: ConfigErrorKind,
}

impl BoxConfig {
    /// A configuration that sends to `targets` once, DHCP first and then
    /// `fallback` after four seconds.
    pub fn new(targets: &[SocketAddrV4], fallback: StaticAddress) -> Self {
        let mut list = Vec::new();
        for t in targets.iter().take(MAX_TARGETS) {
            // Cannot fail: at most MAX_TARGETS are taken.
            let _ = list.push(Target::from(*t));
        }
        BoxConfig {
            targets: list,
            loops: Loops::Times(1),
            net: NetPolicy {
                dhcp: true,
                dhcp_timeout_ms: 4000,
                fallback,
            },
        }
    }

    /// Applies the keys of `line` on top of `self`.
    pub fn apply(mut self, line: &str) -> Result<Self, ConfigError> {
        for (word, token) in line.split_ascii_whitespace().enumerate() {
            let err = |kind| ConfigError { word, kind };
            let (key, value) = token
                .split_once('=')
                .ok_or(err(ConfigErrorKind::NotKeyValue))?;
            match key {
                "targets" => self.targets = parse_targets(value).map_err(err)?,
                "loop" => self.loops = parse_loops(value).ok_or(err(ConfigErrorKind::BadLoop))?,
                "dhcp" => {
                    self.net.dhcp = match value {
                        "on" => true,
                        "off" => false,
                        _ => return Err(err(ConfigErrorKind::BadDhcp)),
                    }
                }
                "dhcp_timeout_ms" => {
                    self.net.dhcp_timeout_ms = value
                        .parse()
                        .map_err(|_| err(ConfigErrorKind::BadTimeout))?
                }
                "static" => {
                    let (address, prefix_len) =
                        parse_cidr(value).ok_or(err(ConfigErrorKind::BadStatic))?;
                    self.net.fallback.ip = address.octets();
                    self.net.fallback.prefix_len = prefix_len;
                }
                "gw" => {
                    self.net.fallback.gateway = match value {
                        "none" => None,
                        v => Some(
                            Ipv4Addr::from_str(v)
                                .map_err(|_| err(ConfigErrorKind::BadGateway))?
                                .octets(),
                        ),
                    }
                }
                _ => return Err(err(ConfigErrorKind::UnknownKey)),
            }
        }
        Ok(self)
    }
}

fn parse_targets(value: &str) -> Result<Vec<Target, MAX_TARGETS>, ConfigErrorKind> {
    let mut targets = Vec::new();
    for part in value.split(',').filter(|p| !p.is_empty()) {
        let addr = SocketAddrV4::from_str(part).map_err(|_| ConfigErrorKind::BadTarget)?;
        if addr.port() == 0 {
            return Err(ConfigErrorKind::BadTarget);
        }
        targets
            .push(Target::from(addr))
            .map_err(|_| ConfigErrorKind::TooManyTargets)?;
    }
    if targets.is_empty() {
        return Err(ConfigErrorKind::NoTargets);
    }
    Ok(targets)
}

fn parse_loops(value: &str) -> Option<Loops> {
    match value {
        "forever" => Some(Loops::Forever),
        v => v.parse().ok().map(Loops::from_count),
    }
}

fn parse_cidr(value: &str) -> Option<(Ipv4Addr, u8)> {
    let (addr, prefix) = value.split_once('/')?;
    let addr = Ipv4Addr::from_str(addr).ok()?;
    let prefix: u8 = prefix.parse().ok()?;
    (prefix <= 32).then_some((addr, prefix))
}

/// The box's network name when its settings give none: `llv-` and the last
/// three bytes of its MAC address in hex (`llv-123456`), a host name label.
pub fn default_name(mac: &[u8; 6]) -> heapless::String<{ llv_core::settings::BOX_NAME_LEN }> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut name = heapless::String::new();
    // 10 bytes: fits.
    let _ = name.push_str("llv-");
    for b in &mac[3..] {
        let _ = name.push(char::from(HEX[usize::from(b >> 4)]));
        let _ = name.push(char::from(HEX[usize::from(b & 15)]));
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> BoxConfig {
        BoxConfig::new(
            &[SocketAddrV4::new(Ipv4Addr::new(10, 0, 2, 2), 11111)],
            StaticAddress {
                ip: [10, 0, 2, 15],
                prefix_len: 24,
                gateway: Some([10, 0, 2, 2]),
            },
        )
    }

    #[test]
    fn empty_line_keeps_defaults() {
        assert_eq!(base().apply("").unwrap(), base());
        assert_eq!(base().apply("   ").unwrap(), base());
    }

    #[test]
    fn full_line() {
        let c = base()
            .apply("targets=10.0.2.2:11111,10.0.2.2:11112 loop=2 static=192.168.1.50/16 gw=none dhcp=off dhcp_timeout_ms=250")
            .unwrap();
        assert_eq!(
            c.targets.as_slice(),
            &[
                Target {
                    ip: [10, 0, 2, 2],
                    port: 11111
                },
                Target {
                    ip: [10, 0, 2, 2],
                    port: 11112
                }
            ]
        );
        assert_eq!(c.loops, Loops::Times(2));
        assert!(!c.net.dhcp);
        assert_eq!(c.net.dhcp_timeout_ms, 250);
        assert_eq!(c.net.fallback.ip, [192, 168, 1, 50]);
        assert_eq!(c.net.fallback.prefix_len, 16);
        assert_eq!(c.net.fallback.gateway, None);
    }

    #[test]
    fn loop_forms() {
        assert_eq!(base().apply("loop=forever").unwrap().loops, Loops::Forever);
        assert_eq!(base().apply("loop=0").unwrap().loops, Loops::Forever);
        assert_eq!(base().apply("loop=7").unwrap().loops, Loops::Times(7));
        assert_eq!(
            base().apply("loop=-1").unwrap_err().kind,
            ConfigErrorKind::BadLoop
        );
    }

    #[test]
    fn errors_name_the_word() {
        let e = base().apply("loop=1 colour=blue").unwrap_err();
        assert_eq!(
            e,
            ConfigError {
                word: 1,
                kind: ConfigErrorKind::UnknownKey
            }
        );
        let kinds = [
            ("targets=10.0.2.2", ConfigErrorKind::BadTarget),
            ("targets=10.0.2.2:0", ConfigErrorKind::BadTarget),
            ("targets=host:1", ConfigErrorKind::BadTarget),
            ("targets=", ConfigErrorKind::NoTargets),
            (
                "targets=1.1.1.1:1,1.1.1.1:2,1.1.1.1:3,1.1.1.1:4,1.1.1.1:5",
                ConfigErrorKind::TooManyTargets,
            ),
            ("static=10.0.2.15", ConfigErrorKind::BadStatic),
            ("static=10.0.2.15/33", ConfigErrorKind::BadStatic),
            ("gw=10.0.2", ConfigErrorKind::BadGateway),
            ("dhcp=yes", ConfigErrorKind::BadDhcp),
            ("dhcp_timeout_ms=soon", ConfigErrorKind::BadTimeout),
            ("verbose", ConfigErrorKind::NotKeyValue),
        ];
        for (line, kind) in kinds {
            assert_eq!(
                base().apply(line).unwrap_err(),
                ConfigError { word: 0, kind },
                "{line}"
            );
        }
    }

    #[test]
    fn later_key_wins() {
        let c = base().apply("loop=3 loop=4").unwrap();
        assert_eq!(c.loops, Loops::Times(4));
    }

    #[test]
    fn the_default_name_is_llv_and_the_macs_last_three_bytes() {
        let name = super::default_name(&[0x52, 0x54, 0x00, 0x12, 0x34, 0xab]);
        assert_eq!(name.as_str(), "llv-1234ab");
        assert_eq!(llv_core::settings::check_box_name(&name), Ok(()));
    }
}
