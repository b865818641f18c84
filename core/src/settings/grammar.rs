//! The settings' text form, one grammar for `llv box ADDR config KEY VALUE`
//! and the box's command line (`KEY=VALUE`, see `firmware/app/src/config.rs`):
//! [`Setting::parse`] turns a key and its value into the change it asks for.
//!
//! | key | value |
//! |---|---|
//! | `targets` | `IPv4[:PORT],...` (port 11111 when left out), at most 4, or `none` |
//! | `autoplay` | a take name, or `none` |
//! | `autoplay-loops` | `N` (`0` or `forever`: loops forever) |
//! | `subject` | a subject name, or `none` |
//! | `address` | `IP/PREFIX[,GATEWAY]`, or `dhcp` |
//! | `token` | 1 to 32 printable ASCII characters, or `none` |
//! | `name` | a host name label, or `none` (the board's default) |
//! | `osc-port` | a port, or `default` (11114) |
//! | `reply-port` | a port, or `none` |
//! | `chase` | `own`, `HH:MM:SS:FF` (the take's first frame at this label), or `off` |
//! | `chase-stream` | `0` to `255` |
//! | `chase-freewheel` | seconds, `0` to `3600`, to the millisecond |
//! | `chase-hold` | `on` or `off` |
//! | `live` | `on` (relay from power-up) or `off` |
//! | `live-port` | the port it listens on for the phone (11111) |
//! | `live-subject` | only this subject is live, or `none` (the first heard) |
//! | `live-from` | only this IPv4 address is live, or `none` |
//! | `live-buffer` | frames of re-clocking buffer, `0` to `6` |
//! | `live-timeout` | seconds of silence before the fallback, to the millisecond (0.25) |
//! | `live-fade` | seconds of each crossfade, to the millisecond (0.3) |
//! | `live-return` | consecutive live frames it takes to return (10) |
//! | `live-idle` | the idle take's name, or `none` (hold the last frame) |
//! | `live-pass-other` | `on` or `off`: pass datagrams that are not faces on untouched |
//! | `live-record` | `on` or `off`: record the live stream |
//! | `http-port` | a port, or `default` (80) |
//!
//! Parsing checks the form of a value; [`Settings::check`] checks the
//! settings that result (a gateway on the subnet, a port nobody else uses...).

use core::fmt;
use core::net::{Ipv4Addr, SocketAddrV4};
use core::str::FromStr;

use heapless::{String, Vec};

use super::{
    check_box_name, Autoplay, ChaseSpec, LiveChange, Setting, Settings, StaticAddress, Target,
    BOX_NAME_LEN, MAX_FREEWHEEL_MS, MAX_TARGETS, SUBJECT_LEN, TOKEN_LEN,
};
use crate::artnet::TimecodeLabel;
use crate::ports::LIVE_LINK_PORT;
use crate::take::NAME_LEN;

/// Every key, in the order `llv box ADDR config` documents them.
pub const KEYS: [&str; 25] = [
    "targets",
    "autoplay",
    "autoplay-loops",
    "subject",
    "address",
    "token",
    "name",
    "osc-port",
    "reply-port",
    "chase",
    "chase-stream",
    "chase-freewheel",
    "chase-hold",
    "live",
    "live-port",
    "live-subject",
    "live-from",
    "live-buffer",
    "live-timeout",
    "live-fade",
    "live-return",
    "live-idle",
    "live-pass-other",
    "live-record",
    "http-port",
];

/// What is wrong with a key or its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ParseErrorKind {
    /// Not one of [`KEYS`].
    UnknownKey,
    /// A target that is not `IPv4[:PORT]` with a port other than 0.
    Target,
    /// More than [`MAX_TARGETS`] targets.
    TooManyTargets,
    /// No target at all where one is needed.
    NoTargets,
    /// Not a count, `0` or `forever`.
    Count,
    /// `autoplay-loops` before any `autoplay` take.
    AutoplayFirst,
    /// Longer than this many bytes.
    TooLong(usize),
    /// Not `IP/PREFIX[,GATEWAY]` (prefix 0 to 32), or the keyword.
    Address,
    /// Not an IPv4 address (or `none`).
    Ipv4,
    /// An empty token.
    Token,
    /// Not a host name label.
    Name,
    /// Not a port from 1 to 65535 (or the keyword).
    Port,
    /// Not `own`, `off` or `HH:MM:SS:FF`.
    Chase,
    /// A `chase-...` key before `chase`.
    ChaseFirst,
    /// Not 0 to 255.
    Stream,
    /// Not seconds from 0 to 3600.
    Freewheel,
    /// Not `on` or `off`.
    OnOff,
    /// Not a whole number.
    Number,
    /// Not seconds to the millisecond, up to 65.535.
    Seconds,
}

/// A key or value that does not parse, naming both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseError<'a> {
    /// The key as given.
    pub key: &'a str,
    /// The value as given.
    pub value: &'a str,
    /// What is wrong.
    pub kind: ParseErrorKind,
}

impl fmt::Display for ParseError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (key, value) = (self.key, self.value);
        match self.kind {
            ParseErrorKind::UnknownKey => {
                write!(f, "unknown setting {key:?}: ")?;
                for (i, k) in KEYS.iter().enumerate() {
                    f.write_str(if i == 0 { "" } else { ", " })?;
                    f.write_str(k)?;
                }
                Ok(())
            }
            ParseErrorKind::Target => write!(
                f,
                "{key}: {value:?} is not IPv4[:PORT],... (port 1 to 65535) or none"
            ),
            ParseErrorKind::TooManyTargets => write!(f, "{key}: at most {MAX_TARGETS} targets"),
            ParseErrorKind::NoTargets => write!(f, "{key}: at least one target"),
            ParseErrorKind::Count => {
                write!(f, "{key}: {value:?} is not a count (0 or forever: loop)")
            }
            ParseErrorKind::AutoplayFirst => write!(f, "{key}: set autoplay NAME first"),
            ParseErrorKind::TooLong(n) => write!(f, "{key}: {value:?} is over {n} bytes"),
            ParseErrorKind::Address => {
                write!(f, "{key}: {value:?} is not IP/PREFIX[,GATEWAY] or dhcp")
            }
            ParseErrorKind::Ipv4 => write!(f, "{key}: {value:?} is not an IPv4 address or none"),
            ParseErrorKind::Token => write!(f, "{key}: 1 to {TOKEN_LEN} bytes"),
            ParseErrorKind::Name => write!(
                f,
                "{key}: 1 to {BOX_NAME_LEN} letters, digits and '-', not starting or ending with '-'"
            ),
            ParseErrorKind::Port => write!(f, "{key}: {value:?} is not a port (1..=65535)"),
            ParseErrorKind::Chase => write!(f, "{key}: {value:?} is not own, off or HH:MM:SS:FF"),
            ParseErrorKind::ChaseFirst => {
                write!(f, "{key}: set chase own or chase HH:MM:SS:FF first")
            }
            ParseErrorKind::Stream => write!(f, "{key}: {value:?} is not 0..=255"),
            ParseErrorKind::Freewheel => write!(
                f,
                "{key}: {value:?} is not seconds from 0 to {}",
                MAX_FREEWHEEL_MS / 1000
            ),
            ParseErrorKind::OnOff => write!(f, "{key}: on or off, not {value:?}"),
            ParseErrorKind::Number => write!(f, "{key}: {value:?} is not a whole number"),
            ParseErrorKind::Seconds => write!(
                f,
                "{key}: {value:?} is not seconds to the millisecond (0.25)"
            ),
        }
    }
}

impl Setting {
    /// The change `key` `value` asks for, given the settings `current`
    /// (`autoplay-loops` and the `chase-...` keys change a part of a setting).
    pub fn parse<'a>(
        key: &'a str,
        value: &'a str,
        current: &Settings,
    ) -> Result<Setting, ParseError<'a>> {
        let err = |kind| ParseError { key, value, kind };
        let none = value == "none";
        Ok(match key {
            "targets" if none => Setting::Targets(Vec::new()),
            "targets" => Setting::Targets(parse_targets(value).map_err(err)?),
            "autoplay" if none => Setting::Autoplay(None),
            "autoplay" => Setting::Autoplay(Some(Autoplay {
                take: bounded_text::<NAME_LEN>(value)
                    .ok_or(err(ParseErrorKind::TooLong(NAME_LEN)))?,
                loop_count: current.autoplay.as_ref().map_or(0, |a| a.loop_count),
            })),
            "autoplay-loops" => {
                let loop_count = parse_count(value).ok_or(err(ParseErrorKind::Count))?;
                let take = current
                    .autoplay
                    .as_ref()
                    .map(|a| a.take.clone())
                    .ok_or(err(ParseErrorKind::AutoplayFirst))?;
                Setting::Autoplay(Some(Autoplay { take, loop_count }))
            }
            "subject" if none => Setting::Subject(None),
            "subject" => Setting::Subject(Some(
                bounded_text::<SUBJECT_LEN>(value)
                    .ok_or(err(ParseErrorKind::TooLong(SUBJECT_LEN)))?,
            )),
            "address" if value == "dhcp" => Setting::Address(None),
            "address" => Setting::Address(Some(parse_address(value).map_err(err)?)),
            "token" if none => Setting::Token(None),
            "token" if value.is_empty() => return Err(err(ParseErrorKind::Token)),
            "token" => Setting::Token(Some(
                bounded_text::<TOKEN_LEN>(value).ok_or(err(ParseErrorKind::TooLong(TOKEN_LEN)))?,
            )),
            "name" if none => Setting::Name(None),
            "name" => {
                check_box_name(value).map_err(|_| err(ParseErrorKind::Name))?;
                Setting::Name(Some(
                    bounded_text::<BOX_NAME_LEN>(value)
                        .ok_or(err(ParseErrorKind::TooLong(BOX_NAME_LEN)))?,
                ))
            }
            "osc-port" if value == "default" => Setting::OscPort(None),
            "osc-port" => {
                Setting::OscPort(Some(parse_port(value).ok_or(err(ParseErrorKind::Port))?))
            }
            "http-port" if value == "default" => Setting::HttpPort(None),
            "http-port" => {
                Setting::HttpPort(Some(parse_port(value).ok_or(err(ParseErrorKind::Port))?))
            }
            "reply-port" if none => Setting::ReplyPort(None),
            "reply-port" => {
                Setting::ReplyPort(Some(parse_port(value).ok_or(err(ParseErrorKind::Port))?))
            }
            "chase" if value == "off" => Setting::Chase(None),
            "chase" => {
                let offset = match value {
                    "own" => None,
                    tc => Some(TimecodeLabel::parse(tc).ok_or(err(ParseErrorKind::Chase))?),
                };
                let spec = current.chase.unwrap_or(ChaseSpec::DEFAULT);
                Setting::Chase(Some(ChaseSpec { offset, ..spec }))
            }
            "chase-stream" | "chase-freewheel" | "chase-hold" => {
                let mut spec = current.chase.ok_or(err(ParseErrorKind::ChaseFirst))?;
                match key {
                    "chase-stream" => {
                        spec.stream = value.parse().map_err(|_| err(ParseErrorKind::Stream))?;
                    }
                    "chase-freewheel" => {
                        spec.freewheel_ms = parse_millis(value)
                            .filter(|ms| *ms <= MAX_FREEWHEEL_MS)
                            .ok_or(err(ParseErrorKind::Freewheel))?;
                    }
                    _ => spec.hold = parse_on_off(value).ok_or(err(ParseErrorKind::OnOff))?,
                }
                Setting::Chase(Some(spec))
            }
            "live" | "live-port" | "live-subject" | "live-from" | "live-buffer"
            | "live-timeout" | "live-fade" | "live-return" | "live-idle" | "live-pass-other"
            | "live-record" => Setting::Live(parse_live(key, value).map_err(err)?),
            _ => return Err(err(ParseErrorKind::UnknownKey)),
        })
    }
}

/// The change one `live...` key asks for.
fn parse_live(key: &str, value: &str) -> Result<LiveChange, ParseErrorKind> {
    let none = value == "none";
    let on_off = || parse_on_off(value).ok_or(ParseErrorKind::OnOff);
    let number = || value.parse::<u8>().map_err(|_| ParseErrorKind::Number);
    let millis = || {
        parse_millis(value)
            .and_then(|ms| u16::try_from(ms).ok())
            .ok_or(ParseErrorKind::Seconds)
    };
    Ok(match key {
        "live" => LiveChange::Enabled(on_off()?),
        "live-port" => LiveChange::Port(parse_port(value).ok_or(ParseErrorKind::Port)?),
        "live-subject" if none => LiveChange::Subject(None),
        "live-subject" => LiveChange::Subject(Some(
            bounded_text::<SUBJECT_LEN>(value).ok_or(ParseErrorKind::TooLong(SUBJECT_LEN))?,
        )),
        "live-from" if none => LiveChange::From(None),
        "live-from" => LiveChange::From(Some(parse_ipv4(value).ok_or(ParseErrorKind::Ipv4)?)),
        "live-buffer" => LiveChange::Buffer(number()?),
        "live-timeout" => LiveChange::TimeoutMs(millis()?),
        "live-fade" => LiveChange::FadeMs(millis()?),
        "live-return" => LiveChange::ReturnFrames(number()?),
        "live-idle" if none => LiveChange::Idle(None),
        "live-idle" => LiveChange::Idle(Some(
            bounded_text::<NAME_LEN>(value).ok_or(ParseErrorKind::TooLong(NAME_LEN))?,
        )),
        "live-pass-other" => LiveChange::PassOther(on_off()?),
        _ => LiveChange::Record(on_off()?),
    })
}

/// `value` as a bounded string, if it fits `N` bytes.
fn bounded_text<const N: usize>(value: &str) -> Option<String<N>> {
    String::from_str(value).ok()
}

/// `IPv4[:PORT],...`: 1 to [`MAX_TARGETS`] targets, port [`LIVE_LINK_PORT`]
/// when left out, never 0 (empty parts between commas are skipped).
pub fn parse_targets(value: &str) -> Result<Vec<Target, MAX_TARGETS>, ParseErrorKind> {
    let mut targets = Vec::new();
    for part in value.split(',').filter(|p| !p.is_empty()) {
        let addr = match Ipv4Addr::from_str(part) {
            Ok(ip) => SocketAddrV4::new(ip, LIVE_LINK_PORT),
            Err(_) => SocketAddrV4::from_str(part).map_err(|_| ParseErrorKind::Target)?,
        };
        if addr.port() == 0 {
            return Err(ParseErrorKind::Target);
        }
        targets
            .push(Target::from(addr))
            .map_err(|_| ParseErrorKind::TooManyTargets)?;
    }
    if targets.is_empty() {
        return Err(ParseErrorKind::NoTargets);
    }
    Ok(targets)
}

/// `IP/PREFIX[,GATEWAY]`, prefix 0 to 32 (whether the box can use it is
/// [`StaticAddress::check`]'s to say).
pub fn parse_address(value: &str) -> Result<StaticAddress, ParseErrorKind> {
    let (net, gateway) = match value.split_once(',') {
        Some((net, gw)) => (net, Some(parse_ipv4(gw).ok_or(ParseErrorKind::Address)?)),
        None => (value, None),
    };
    let (ip, prefix) = net.split_once('/').ok_or(ParseErrorKind::Address)?;
    let prefix_len = prefix
        .parse::<u8>()
        .ok()
        .filter(|p| *p <= 32)
        .ok_or(ParseErrorKind::Address)?;
    Ok(StaticAddress {
        ip: parse_ipv4(ip).ok_or(ParseErrorKind::Address)?,
        prefix_len,
        gateway,
    })
}

/// A dotted IPv4 address.
pub fn parse_ipv4(value: &str) -> Option<[u8; 4]> {
    Ipv4Addr::from_str(value).ok().map(|ip| ip.octets())
}

/// A play count: `N`, where `0` or `forever` loops forever (0).
pub fn parse_count(value: &str) -> Option<u32> {
    match value {
        "forever" => Some(0),
        v => v.parse().ok(),
    }
}

/// `on` or `off`.
pub fn parse_on_off(value: &str) -> Option<bool> {
    match value {
        "on" => Some(true),
        "off" => Some(false),
        _ => None,
    }
}

/// A port from 1 to 65535.
fn parse_port(value: &str) -> Option<u16> {
    value.parse().ok().filter(|p| *p != 0)
}

/// Seconds with up to three decimals (`2`, `2.5`, `0.125`) as milliseconds.
fn parse_millis(value: &str) -> Option<u32> {
    let (whole, frac) = value.split_once('.').unwrap_or((value, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(frac) || frac.len() > 3 {
        return None;
    }
    let mut ms = whole.parse::<u32>().ok()?.checked_mul(1000)?;
    for (b, scale) in frac.bytes().zip([100, 10, 1]) {
        ms = ms.checked_add(u32::from(b - b'0') * scale)?;
    }
    Some(ms)
}
