//! The box's command line, a kernel-style line of `KEY=VALUE` words in the
//! settings' one grammar (`llv_core::settings::Setting::parse`, as `llv box
//! ADDR config KEY VALUE` writes them), plus the box's own network keys:
//!
//! ```text
//! targets=10.0.2.2:11111,10.0.2.2:11112 autoplay-loops=2 address=10.0.2.15/24,10.0.2.2
//! ```
//!
//! | key | value | default |
//! |---|---|---|
//! | `targets` | up to [`MAX_TARGETS`] `IPv4[:PORT]` (port 11111 when left out), comma separated | board default |
//! | `autoplay-loops` (alias `loop`) | `N` plays the take N times; `0` or `forever` loops without end | `1` |
//! | `address` | `IP/PREFIX[,GATEWAY]`: that address, no DHCP; `dhcp`: DHCP first | DHCP, then the board's fallback |
//! | `dhcp` | `on` or `off` | `on` |
//! | `dhcp_timeout_ms` | wait this long for a lease before the fallback address | `4000` |
//! | `static` | `IPv4/PREFIX`: the fallback address (the only one with `dhcp=off`) | board default |
//! | `gw` | the fallback's gateway, or `none` | board default |
//!
//! `loop`, `static`, `gw` and `dhcp` are the older spellings, kept:
//! `address=IP/P,GW` is `dhcp=off static=IP/P gw=GW`. Keys may come in any
//! order; a later one wins. The fallback address must pass the settings'
//! rule (`StaticAddress::check`). Anything else is an error naming the word
//! as text: `unknown key "hang_after_ms" in "hang_after_ms=3000"`.

use core::fmt;
use core::net::SocketAddrV4;

use heapless::Vec;
use llv_core::settings::{
    parse_address, parse_count, parse_ipv4, parse_on_off, parse_targets, AddressError, Loops,
    ParseError, ParseErrorKind, StaticAddress, Target, MAX_TARGETS,
};

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

/// What was wrong with a command-line word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigErrorKind {
    /// A word without `=`.
    NotKeyValue,
    /// A key the box does not know.
    UnknownKey,
    /// A value the settings' grammar refuses.
    Value(ParseErrorKind),
    /// A static address the box cannot use (the settings' rule).
    Address(StaticAddress, AddressError),
}

/// A command-line error and the word it is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConfigError<'a> {
    /// The word, as given.
    pub word: &'a str,
    /// What is wrong with it.
    pub kind: ConfigErrorKind,
}

impl fmt::Display for ConfigError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let word = self.word;
        let (key, value) = word.split_once('=').unwrap_or((word, ""));
        match self.kind {
            ConfigErrorKind::NotKeyValue => write!(f, "{word:?} is not KEY=VALUE"),
            ConfigErrorKind::UnknownKey => write!(f, "unknown key {key:?} in {word:?}"),
            ConfigErrorKind::Value(kind) => {
                write!(f, "in {word:?}: {}", ParseError { key, value, kind })
            }
            ConfigErrorKind::Address(a, why) => write!(
                f,
                "in {word:?}: {}",
                llv_core::settings::SettingError::Address(a, why)
            ),
        }
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for ConfigError<'_> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(f, "{}", defmt::Display2Format(self));
    }
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

    /// Applies the words of `line` on top of `self`.
    pub fn apply(mut self, line: &str) -> Result<Self, ConfigError<'_>> {
        // The word that last set the fallback address, to name if it is unusable.
        let mut address_word = None;
        for word in line.split_ascii_whitespace() {
            let err = |kind| ConfigError { word, kind };
            let value_err = |kind| err(ConfigErrorKind::Value(kind));
            let (key, value) = word
                .split_once('=')
                .ok_or(err(ConfigErrorKind::NotKeyValue))?;
            match key {
                "targets" => self.targets = parse_targets(value).map_err(value_err)?,
                "autoplay-loops" | "loop" => {
                    let count = parse_count(value).ok_or(value_err(ParseErrorKind::Count))?;
                    self.loops = Loops::from_count(count);
                }
                "address" if value == "dhcp" => self.net.dhcp = true,
                "address" => {
                    self.net.fallback = parse_address(value).map_err(value_err)?;
                    self.net.dhcp = false;
                    address_word = Some(word);
                }
                "dhcp" => {
                    self.net.dhcp = parse_on_off(value).ok_or(value_err(ParseErrorKind::OnOff))?
                }
                "dhcp_timeout_ms" => {
                    self.net.dhcp_timeout_ms = value
                        .parse()
                        .map_err(|_| value_err(ParseErrorKind::Number))?
                }
                "static" => {
                    let a = parse_address(value)
                        .ok()
                        .filter(|a| a.gateway.is_none())
                        .ok_or(value_err(ParseErrorKind::Address))?;
                    self.net.fallback.ip = a.ip;
                    self.net.fallback.prefix_len = a.prefix_len;
                    address_word = Some(word);
                }
                "gw" => {
                    self.net.fallback.gateway = match value {
                        "none" => None,
                        v => Some(parse_ipv4(v).ok_or(value_err(ParseErrorKind::Ipv4))?),
                    };
                    address_word = Some(word);
                }
                _ => return Err(err(ConfigErrorKind::UnknownKey)),
            }
        }
        if let (Some(word), Err(llv_core::settings::SettingError::Address(a, why))) =
            (address_word, self.net.fallback.check())
        {
            return Err(ConfigError {
                word,
                kind: ConfigErrorKind::Address(a, why),
            });
        }
        Ok(self)
    }
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
    use std::string::ToString;

    fn base() -> BoxConfig {
        BoxConfig::new(
            &[SocketAddrV4::new(
                core::net::Ipv4Addr::new(10, 0, 2, 2),
                11111,
            )],
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
    fn the_old_keys_still_work() {
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
    fn the_settings_keys_say_the_same() {
        let old = base()
            .apply("loop=2 dhcp=off static=192.168.1.50/16 gw=192.168.1.1 targets=10.0.2.2")
            .unwrap();
        let new = base()
            .apply("autoplay-loops=2 address=192.168.1.50/16,192.168.1.1 targets=10.0.2.2:11111")
            .unwrap();
        assert_eq!(old, new);
        let dhcp = base().apply("address=10.0.2.16/24 address=dhcp").unwrap();
        assert!(dhcp.net.dhcp);
    }

    #[test]
    fn loop_forms() {
        assert_eq!(base().apply("loop=forever").unwrap().loops, Loops::Forever);
        assert_eq!(base().apply("loop=0").unwrap().loops, Loops::Forever);
        assert_eq!(
            base().apply("autoplay-loops=7").unwrap().loops,
            Loops::Times(7)
        );
        assert_eq!(
            base().apply("loop=-1").unwrap_err().kind,
            ConfigErrorKind::Value(ParseErrorKind::Count)
        );
    }

    #[test]
    fn errors_name_the_word_as_text() {
        let line = "flash=x.bin loop=1 hang_after_ms=3000";
        let rest = &line["flash=x.bin ".len()..];
        let e = base().apply(rest).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown key \"hang_after_ms\" in \"hang_after_ms=3000\""
        );
        let texts = [
            ("targets=10.0.2.2:0", "in \"targets=10.0.2.2:0\": targets: \"10.0.2.2:0\" is not IPv4[:PORT],... (port 1 to 65535) or none"),
            ("targets=host:1", "is not IPv4[:PORT]"),
            ("targets=", "targets: at least one target"),
            (
                "targets=1.1.1.1:1,1.1.1.1:2,1.1.1.1:3,1.1.1.1:4,1.1.1.1:5",
                "at most 4 targets",
            ),
            ("static=10.0.2.15", "is not IP/PREFIX"),
            ("static=10.0.2.15/33", "is not IP/PREFIX"),
            ("gw=10.0.2", "gw: \"10.0.2\" is not an IPv4 address or none"),
            ("dhcp=yes", "dhcp: on or off, not \"yes\""),
            ("dhcp_timeout_ms=soon", "dhcp_timeout_ms: \"soon\" is not a whole number"),
            ("verbose", "\"verbose\" is not KEY=VALUE"),
            (
                "static=0.0.0.1/8",
                "in \"static=0.0.0.1/8\": address 0.0.0.1/8,10.0.2.2: not a host address",
            ),
            (
                "address=169.254.1.1/16",
                "in \"address=169.254.1.1/16\": address 169.254.1.1/16: not a host address",
            ),
            (
                "gw=10.0.3.1",
                "in \"gw=10.0.3.1\": address 10.0.2.15/24,10.0.3.1: the gateway is not",
            ),
        ];
        for (line, text) in texts {
            let e = base().apply(line).unwrap_err();
            assert_eq!(e.word, line);
            assert!(e.to_string().contains(text), "{line}: {e}");
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
