//! The box's settings: one model for the box's stored settings, its command
//! line and the control messages that read and change them.
//!
//! Their text form (`KEY VALUE`, as `llv box ADDR config` and the box's
//! command line write them) is [`Setting::parse`], in `grammar`.
//!
//! Stored as one postcard record (see `firmware/store`, whose record carries the
//! schema version), sent in [`crate::control::Response::Settings`] and changed
//! by [`Setting`]s. [`Settings::check`] is the one rule for what the box
//! accepts, stores and uses: the box refuses a change that breaks it, and
//! ignores (and reports) a stored setting that breaks it.

use core::fmt;
use core::net::{Ipv4Addr, SocketAddrV4};

use heapless::{String, Vec};
use serde::{Deserialize, Serialize};

use crate::artnet::TimecodeLabel;
use crate::chase::{AfterFreewheel, ChaseConfig};
use crate::ports::{ARTNET_PORT, CONTROL_PORT, LIVE_LINK_PORT};
pub use crate::ports::{HTTP_PORT, MDNS_PORT, OSC_PORT};
use crate::relay::{RelayConfig, MAX_BUFFER};
use crate::take::NAME_LEN;

mod grammar;

pub use grammar::{
    parse_address, parse_count, parse_ipv4, parse_on_off, parse_targets, ParseError,
    ParseErrorKind, KEYS,
};

/// Most playback targets.
pub const MAX_TARGETS: usize = 4;
/// Longest shared token in bytes.
pub const TOKEN_LEN: usize = 32;
/// Longest subject name the box can rename its frames to.
pub const SUBJECT_LEN: usize = 64;
/// Most changes in one [`crate::control::Request::SetSettings`].
pub const MAX_CHANGES: usize = 8;
/// Longest box name in bytes (one DNS label of `NAME.local`).
pub const BOX_NAME_LEN: usize = 32;

/// Who sends the frames, which decides what a target may be: the box cannot
/// reach a laptop's loopback (127.x on the box is the box itself, where
/// nothing listens for frames); `llv serve` on a laptop can.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Sender {
    /// The box: targets are on the network.
    Box,
    /// A laptop (`llv serve`): its loopback is a target too.
    Laptop,
}

/// Ports other services use, which neither the OSC port nor the reply port
/// may be: a box listening there would take their traffic, replies sent
/// there would land in another program.
pub const RESERVED_PORTS: [(u16, &str); 6] = [
    (67, "DHCP"),
    (68, "DHCP"),
    (MDNS_PORT, "mDNS"),
    (ARTNET_PORT, "Art-Net"),
    (LIVE_LINK_PORT, "Live Link"),
    (CONTROL_PORT, "the control port"),
];

/// What uses `port` among [`RESERVED_PORTS`], if anything.
pub fn reserved_port(port: u16) -> Option<&'static str> {
    RESERVED_PORTS
        .iter()
        .find(|(p, _)| *p == port)
        .map(|(_, what)| *what)
}

/// What kind of IPv4 address `ip` is, for the rules of targets and static addresses.
fn kind(ip: [u8; 4]) -> AddressKind {
    match ip {
        [0, ..] => AddressKind::ThisNetwork,
        [127, ..] => AddressKind::Loopback,
        [169, 254, ..] => AddressKind::LinkLocal,
        [255, 255, 255, 255] => AddressKind::Broadcast,
        [224..=239, ..] => AddressKind::Multicast,
        [240..=255, ..] => AddressKind::Reserved,
        _ => AddressKind::Unicast,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum AddressKind {
    ThisNetwork,
    Loopback,
    LinkLocal,
    Broadcast,
    Multicast,
    Reserved,
    Unicast,
}

/// A UDP destination for playback: IPv4 address and port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Target {
    /// IPv4 address.
    pub ip: [u8; 4],
    /// UDP port.
    pub port: u16,
}

impl Target {
    /// Whether `sender` can send frames to it: a port, and an address that is
    /// a destination (not 0.x, "this network", nor 240.x to 255.255.255.254,
    /// reserved); 127.x only from a laptop. Unicast, link-local, multicast
    /// and the broadcast address 255.255.255.255 are allowed.
    pub fn check(&self, sender: Sender) -> Result<(), SettingError> {
        match kind(self.ip) {
            AddressKind::ThisNetwork | AddressKind::Reserved => Err(SettingError::Target(*self)),
            AddressKind::Loopback if sender == Sender::Box => {
                Err(SettingError::LoopbackTarget(*self))
            }
            _ if self.port == 0 => Err(SettingError::Target(*self)),
            _ => Ok(()),
        }
    }

    /// The target as a socket address.
    pub fn socket_addr(&self) -> SocketAddrV4 {
        SocketAddrV4::new(Ipv4Addr::from(self.ip), self.port)
    }
}

impl From<SocketAddrV4> for Target {
    fn from(addr: SocketAddrV4) -> Self {
        Target {
            ip: addr.ip().octets(),
            port: addr.port(),
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.socket_addr().fmt(f)
    }
}

/// How often a take is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Loops {
    /// This many times.
    Times(u32),
    /// Until stopped.
    Forever,
}

impl Loops {
    /// From the count messages carry: 0 loops forever, `n` plays `n` times.
    pub fn from_count(count: u32) -> Loops {
        match count {
            0 => Loops::Forever,
            n => Loops::Times(n),
        }
    }
}

/// The take the box plays by itself at power-up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Autoplay {
    /// Name of the stored take.
    pub take: String<NAME_LEN>,
    /// How many times to play it; 0 loops forever.
    pub loop_count: u32,
}

/// How the box follows a show's Art-Net timecode (`llv_core::chase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChaseSpec {
    /// The timecode label at which the take's first frame plays, read at the
    /// chased timecode's rate; `None`: the first frame's own timecode.
    pub offset: Option<TimecodeLabel>,
    /// The Art-Net stream followed (0: the master).
    pub stream: u8,
    /// How long to run on when timecode stops, in ms, before stopping or holding.
    pub freewheel_ms: u32,
    /// When freewheel runs out, hold the last frame instead of stopping.
    pub hold: bool,
}

/// Longest freewheel a [`ChaseSpec`] may ask for: an hour.
pub const MAX_FREEWHEEL_MS: u32 = 3_600_000;

impl ChaseSpec {
    /// The chase of the take's own timecode on the master stream, 4 s of freewheel, then stop.
    pub const DEFAULT: ChaseSpec = ChaseSpec {
        offset: None,
        stream: 0,
        freewheel_ms: 4_000,
        hold: false,
    };

    /// Checks the offset (a label, see [`TimecodeLabel::is_valid`]) and the freewheel
    /// (at most [`MAX_FREEWHEEL_MS`]).
    pub fn check(&self) -> Result<(), SettingError> {
        if self.offset.is_some_and(|o| !o.is_valid()) || self.freewheel_ms > MAX_FREEWHEEL_MS {
            return Err(SettingError::Chase);
        }
        Ok(())
    }

    /// The chase's rules: [`ChaseConfig::default`] with this freewheel and end.
    pub fn config(&self) -> ChaseConfig {
        ChaseConfig {
            freewheel_us: u64::from(self.freewheel_ms) * 1000,
            after_freewheel: if self.hold {
                AfterFreewheel::Hold
            } else {
                AfterFreewheel::Stop
            },
            ..ChaseConfig::default()
        }
    }
}

/// The live relay (`llv_core::relay`): the phone it listens for, how it
/// re-clocks, falls back and returns, and whether it records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveSpec {
    /// Relay from power-up (`Request::Live` turns it on and off now).
    pub enabled: bool,
    /// The UDP port it listens on for the phone.
    pub port: u16,
    /// Only this subject's frames are live (else the first subject heard).
    pub subject: Option<String<SUBJECT_LEN>>,
    /// Only frames from this address are live.
    pub from: Option<[u8; 4]>,
    /// Frames of re-clocking buffer (0 passes each frame on at once).
    pub buffer: u8,
    /// No live frame for this long (ms) and the idle take takes over.
    pub timeout_ms: u16,
    /// Length of each crossfade (ms).
    pub fade_ms: u16,
    /// Consecutive live frames it takes to return.
    pub return_frames: u8,
    /// The take that covers a dropout, looping; `None` holds the last frame.
    pub idle: Option<String<NAME_LEN>>,
    /// Pass datagrams that are not face frames on untouched.
    pub pass_other: bool,
    /// Record the live stream as a take named by date and time.
    pub record: bool,
}

/// Longest timeout or crossfade a [`LiveSpec`] may ask for: ten seconds.
pub const MAX_LIVE_MS: u16 = 10_000;
/// Shortest timeout a [`LiveSpec`] may ask for: shorter would fall back on jitter.
pub const MIN_LIVE_TIMEOUT_MS: u16 = 20;

impl Default for LiveSpec {
    fn default() -> Self {
        let relay = RelayConfig::default();
        LiveSpec {
            enabled: false,
            port: LIVE_LINK_PORT,
            subject: None,
            from: None,
            buffer: relay.buffer,
            timeout_ms: relay.timeout_ms,
            fade_ms: relay.fade_ms,
            return_frames: relay.return_frames,
            idle: None,
            pass_other: relay.pass_other,
            record: false,
        }
    }
}

impl LiveSpec {
    /// Checks the port (not 0, and 11111 or no other service's), the buffer
    /// (at most [`MAX_BUFFER`]), the timeout ([`MIN_LIVE_TIMEOUT_MS`] to
    /// [`MAX_LIVE_MS`]), the fade (at most [`MAX_LIVE_MS`]), the return
    /// count (at least 1) and the names (not empty).
    pub fn check(&self) -> Result<(), SettingError> {
        let port_ok = self.port == LIVE_LINK_PORT || port_ok(self.port);
        let ok = port_ok
            && self.buffer <= MAX_BUFFER
            && (MIN_LIVE_TIMEOUT_MS..=MAX_LIVE_MS).contains(&self.timeout_ms)
            && self.fade_ms <= MAX_LIVE_MS
            && self.return_frames >= 1
            && self.subject.as_ref().is_none_or(|s| !s.is_empty())
            && self.idle.as_ref().is_none_or(|s| !s.is_empty());
        if ok {
            Ok(())
        } else {
            Err(SettingError::Live)
        }
    }

    /// The relay engine's configuration.
    pub fn config(&self) -> RelayConfig {
        RelayConfig {
            buffer: self.buffer,
            timeout_ms: self.timeout_ms,
            fade_ms: self.fade_ms,
            return_frames: self.return_frames,
            pass_other: self.pass_other,
        }
    }
}

/// A fixed IPv4 configuration (instead of DHCP).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StaticAddress {
    /// The box's address.
    pub ip: [u8; 4],
    /// Network prefix length, e.g. 24.
    pub prefix_len: u8,
    /// Default gateway, if any.
    pub gateway: Option<[u8; 4]>,
}

impl StaticAddress {
    /// Whether the box can take this address and still be reached: a prefix
    /// of 1 to 32 bits; a unicast address, not 0.x ("this network"), 127.x
    /// (loopback), 169.254.x (link-local: configured by the hosts
    /// themselves, never by hand, RFC 3927), 224.x and up (multicast,
    /// reserved, broadcast), nor its subnet's network or broadcast address
    /// (prefixes up to 30); and a gateway, if any, of the same kind, on that
    /// subnet and not the box itself.
    pub fn check(&self) -> Result<(), SettingError> {
        let bad = |why| Err(SettingError::Address(*self, why));
        if !(1..=32).contains(&self.prefix_len) {
            return bad(AddressError::Prefix);
        }
        if kind(self.ip) != AddressKind::Unicast {
            return bad(AddressError::NotUnicast);
        }
        let ip = u32::from_be_bytes(self.ip);
        let mask = u32::MAX << (32 - u32::from(self.prefix_len));
        let edge = |a: u32| self.prefix_len <= 30 && (a & !mask == 0 || a & !mask == !mask);
        if edge(ip) {
            return bad(AddressError::NetworkOrBroadcast);
        }
        if let Some(gw) = self.gateway {
            let gw_ip = u32::from_be_bytes(gw);
            if kind(gw) != AddressKind::Unicast
                || gw_ip & mask != ip & mask
                || gw_ip == ip
                || edge(gw_ip)
            {
                return bad(AddressError::Gateway);
            }
        }
        Ok(())
    }
}

/// Why a static address was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum AddressError {
    /// The prefix is not 1 to 32.
    Prefix,
    /// 0.x, 127.x, 169.254.x, or 224.x and up.
    NotUnicast,
    /// The network or broadcast address of its own subnet.
    NetworkOrBroadcast,
    /// The gateway is not a host of the subnet other than the box.
    Gateway,
}

impl fmt::Display for AddressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AddressError::Prefix => "the prefix is 1 to 32",
            AddressError::NotUnicast => "not a host address (0.x, 127.x, 169.254.x, 224.x and up)",
            AddressError::NetworkOrBroadcast => "its subnet's network or broadcast address",
            AddressError::Gateway => "the gateway is not another host of its subnet",
        })
    }
}

/// A setting the box refuses: it would break playback or the network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SettingError {
    /// A target without a port, or to an address that is no destination (see [`Target::check`]).
    Target(Target),
    /// A target on 127.x, which the box cannot reach (see [`Sender`]).
    LoopbackTarget(Target),
    /// A static address the network cannot use (see [`StaticAddress::check`]), and why.
    Address(StaticAddress, AddressError),
    /// An autoplay take name that is empty.
    AutoplayName,
    /// A subject name that is empty.
    Subject,
    /// A token that is empty or holds other than printable ASCII without spaces.
    Token,
    /// A box name that is not a host name label (see [`check_box_name`]).
    Name,
    /// An OSC port that is 0 or one of the [`RESERVED_PORTS`].
    OscPort(u16),
    /// A reply port that is 0 or one of the [`RESERVED_PORTS`].
    ReplyPort(u16),
    /// A chase offset of a day or more, or a freewheel over [`MAX_FREEWHEEL_MS`].
    Chase,
    /// A live relay setting out of its range (see [`LiveSpec::check`]).
    Live,
    /// An HTTP port (the setting's, or [`HTTP_PORT`]) that is 0, one of the
    /// [`RESERVED_PORTS`], or the OSC port.
    HttpPort(u16),
}

impl fmt::Display for SettingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingError::Target(t) => write!(
                f,
                "target {t}: needs a port, and an address other than 0.x or 240.x and up"
            ),
            SettingError::LoopbackTarget(t) => write!(
                f,
                "target {t}: 127.x is the box itself; give the laptop's address"
            ),
            SettingError::Address(a, why) => {
                let ip = Ipv4Addr::from(a.ip);
                write!(f, "address {ip}/{}", a.prefix_len)?;
                if let Some(gw) = a.gateway {
                    write!(f, ",{}", Ipv4Addr::from(gw))?;
                }
                write!(f, ": {why}")
            }
            SettingError::AutoplayName => f.write_str("autoplay: the take name is empty"),
            SettingError::Subject => f.write_str("subject: the name is empty"),
            SettingError::Token => {
                write!(
                    f,
                    "token: 1..={TOKEN_LEN} printable ASCII characters, no spaces"
                )
            }
            SettingError::Name => write!(
                f,
                "name: 1..={BOX_NAME_LEN} letters, digits and '-', not starting or ending with '-'"
            ),
            SettingError::OscPort(p) | SettingError::ReplyPort(p) => {
                let key = match self {
                    SettingError::OscPort(_) => "osc-port",
                    _ => "reply-port",
                };
                match reserved_port(*p) {
                    Some(what) => write!(f, "{key} {p} is {what}'s:")?,
                    None => write!(f, "{key} {p}:")?,
                }
                f.write_str(" not 0, 67, 68, 5353, 6454, 11111 or 11113")
            }
            SettingError::Chase => write!(
                f,
                "chase: the offset is a timecode below 24:00:00:00 (frames below 30), the freewheel at most {} s",
                MAX_FREEWHEEL_MS / 1000
            ),
            SettingError::Live => write!(
                f,
                "live: the port is 11111 or not another service's, the buffer at most {MAX_BUFFER} frames, \
                 the timeout {MIN_LIVE_TIMEOUT_MS} ms to {} s, the fade at most {} s, the return at least 1 frame, \
                 names not empty",
                MAX_LIVE_MS / 1000,
                MAX_LIVE_MS / 1000
            ),
            SettingError::HttpPort(p) => {
                match reserved_port(*p) {
                    Some(what) => write!(f, "http-port {p} is {what}'s:")?,
                    None => write!(f, "http-port {p}:")?,
                }
                f.write_str(" not 0, 67, 68, 5353, 6454, 11111, 11113 or the OSC port")
            }
        }
    }
}

/// Whether `port` may be the OSC or the reply port: not 0 nor reserved.
fn port_ok(port: u16) -> bool {
    port != 0 && reserved_port(port).is_none()
}

/// Whether `name` can be the box's name: a host name label (RFC 1123) of 1
/// to [`BOX_NAME_LEN`] ASCII letters, digits and hyphens, neither starting
/// nor ending with a hyphen, so that `NAME.local` resolves.
pub fn check_box_name(name: &str) -> Result<(), SettingError> {
    let ok = (1..=BOX_NAME_LEN).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-');
    if ok {
        Ok(())
    } else {
        Err(SettingError::Name)
    }
}

/// The box's persistent settings (stored as one postcard record).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Where `Play` without targets and autoplay send frames.
    pub targets: Vec<Target, MAX_TARGETS>,
    /// Take played at power-up, if any.
    pub autoplay: Option<Autoplay>,
    /// Subject name written into every sent frame, if set.
    pub subject: Option<String<SUBJECT_LEN>>,
    /// Fixed address; `None` uses DHCP.
    pub address: Option<StaticAddress>,
    /// Shared token every connection must present in its `Hello`; `None` for an open box.
    pub token: Option<String<TOKEN_LEN>>,
    /// The box's name on the network (`NAME.local`, its DNS-SD instances);
    /// `None` for the board's default name.
    pub name: Option<String<BOX_NAME_LEN>>,
    /// The UDP and TCP port the box listens for OSC on; `None` for [`OSC_PORT`].
    pub osc_port: Option<u16>,
    /// A UDP port on the sender's address that every OSC reply also goes to
    /// (where a show tool listens for feedback); `None`: replies go to the
    /// sender's port only.
    pub reply_port: Option<u16>,
    /// When set, the autoplay take follows Art-Net timecode this way instead
    /// of starting at power-up.
    pub chase: Option<ChaseSpec>,
    /// The live relay (schema 5); settings written before it (as JSON by
    /// `llv serve`) read as its defaults.
    #[serde(default)]
    pub live: LiveSpec,
    /// The TCP port the box serves its page and HTTP API on; `None` for [`HTTP_PORT`].
    #[serde(default)]
    pub http_port: Option<u16>,
}

/// One change to [`Settings`]; a [`crate::control::Request::SetSettings`] applies its changes together.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Setting {
    /// Replace the default targets.
    Targets(Vec<Target, MAX_TARGETS>),
    /// Set or clear the autoplay take.
    Autoplay(Option<Autoplay>),
    /// Set or clear the subject rename.
    Subject(Option<String<SUBJECT_LEN>>),
    /// Set a static address or go back to DHCP.
    Address(Option<StaticAddress>),
    /// Set or clear the shared token.
    Token(Option<String<TOKEN_LEN>>),
    /// Set the box's name, or go back to the board's default.
    Name(Option<String<BOX_NAME_LEN>>),
    /// Set the OSC port, or go back to [`OSC_PORT`].
    OscPort(Option<u16>),
    /// Set or clear the port OSC replies also go to.
    ReplyPort(Option<u16>),
    /// Make autoplay chase timecode this way, or start at power-up again.
    Chase(Option<ChaseSpec>),
    /// Change one of the live relay's settings.
    Live(LiveChange),
    /// Set the HTTP port, or go back to [`HTTP_PORT`].
    HttpPort(Option<u16>),
}

/// One change to [`LiveSpec`] (a field at a time, so that a
/// [`Setting`] stays as small as its largest other change).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LiveChange {
    /// Relay from power-up, or not.
    Enabled(bool),
    /// The port it listens on.
    Port(u16),
    /// Only this subject, or the first heard.
    Subject(Option<String<SUBJECT_LEN>>),
    /// Only this address, or any.
    From(Option<[u8; 4]>),
    /// Frames of buffer.
    Buffer(u8),
    /// Silence before the fallback (ms).
    TimeoutMs(u16),
    /// Crossfade length (ms).
    FadeMs(u16),
    /// Live frames it takes to return.
    ReturnFrames(u8),
    /// The idle take, or none (hold).
    Idle(Option<String<NAME_LEN>>),
    /// Pass other datagrams on, or not.
    PassOther(bool),
    /// Record the live stream, or not.
    Record(bool),
}

impl LiveSpec {
    /// Applies one change.
    pub fn apply(&mut self, change: &LiveChange) {
        match change {
            LiveChange::Enabled(on) => self.enabled = *on,
            LiveChange::Port(p) => self.port = *p,
            LiveChange::Subject(s) => self.subject = s.clone(),
            LiveChange::From(ip) => self.from = *ip,
            LiveChange::Buffer(n) => self.buffer = *n,
            LiveChange::TimeoutMs(ms) => self.timeout_ms = *ms,
            LiveChange::FadeMs(ms) => self.fade_ms = *ms,
            LiveChange::ReturnFrames(k) => self.return_frames = *k,
            LiveChange::Idle(name) => self.idle = name.clone(),
            LiveChange::PassOther(on) => self.pass_other = *on,
            LiveChange::Record(on) => self.record = *on,
        }
    }
}

impl Settings {
    /// Checks every setting for `sender` (see [`SettingError`]); the first
    /// bad one is the error. The one rule for what the box and `llv serve`
    /// accept, store and use.
    pub fn check(&self, sender: Sender) -> Result<(), SettingError> {
        for t in &self.targets {
            t.check(sender)?;
        }
        if self.autoplay.as_ref().is_some_and(|a| a.take.is_empty()) {
            return Err(SettingError::AutoplayName);
        }
        if self.subject.as_ref().is_some_and(|s| s.is_empty()) {
            return Err(SettingError::Subject);
        }
        if let Some(a) = &self.address {
            a.check()?;
        }
        let token_ok =
            |t: &String<TOKEN_LEN>| !t.is_empty() && t.bytes().all(|b| b.is_ascii_graphic());
        if self.token.as_ref().is_some_and(|t| !token_ok(t)) {
            return Err(SettingError::Token);
        }
        if let Some(name) = &self.name {
            check_box_name(name)?;
        }
        if let Some(p) = self.osc_port.filter(|p| !port_ok(*p)) {
            return Err(SettingError::OscPort(p));
        }
        if let Some(p) = self.reply_port.filter(|p| !port_ok(*p)) {
            return Err(SettingError::ReplyPort(p));
        }
        if let Some(chase) = &self.chase {
            chase.check()?;
        }
        self.live.check()?;
        let http = self.http_port();
        if !port_ok(http) || http == self.osc_port() {
            return Err(SettingError::HttpPort(http));
        }
        Ok(())
    }

    /// The settings without those that break the rules for `sender` (each
    /// back at its default), and the first of those: what a box or a laptop
    /// uses of settings stored by an older version. The token stays
    /// whatever it is: dropping it would open the box.
    pub fn usable(&self, sender: Sender) -> (Settings, Option<SettingError>) {
        let mut usable = self.clone();
        let mut first = None;
        // Each setting is checked alone, among defaults (which pass).
        let mut bad = |alone: Settings| match alone.check(sender) {
            Ok(()) => false,
            Err(e) => {
                first.get_or_insert(e);
                true
            }
        };
        let defaults = Settings::default;
        usable.targets.retain(|t| {
            let mut targets = Vec::new();
            // One target fits.
            let _ = targets.push(*t);
            !bad(Settings {
                targets,
                ..defaults()
            })
        });
        if bad(Settings {
            address: usable.address,
            ..defaults()
        }) {
            usable.address = None;
        }
        if bad(Settings {
            autoplay: usable.autoplay.clone(),
            ..defaults()
        }) {
            usable.autoplay = None;
        }
        if bad(Settings {
            subject: usable.subject.clone(),
            ..defaults()
        }) {
            usable.subject = None;
        }
        if bad(Settings {
            name: usable.name.clone(),
            ..defaults()
        }) {
            usable.name = None;
        }
        if bad(Settings {
            http_port: usable.http_port,
            ..defaults()
        }) {
            usable.http_port = None;
        }
        // The OSC port beside the HTTP port in use: they may not be one.
        if bad(Settings {
            osc_port: usable.osc_port,
            http_port: usable.http_port,
            ..defaults()
        }) {
            usable.osc_port = None;
        }
        if bad(Settings {
            reply_port: usable.reply_port,
            ..defaults()
        }) {
            usable.reply_port = None;
        }
        if bad(Settings {
            chase: usable.chase,
            ..defaults()
        }) {
            usable.chase = None;
        }
        if bad(Settings {
            live: usable.live.clone(),
            ..defaults()
        }) {
            usable.live = LiveSpec::default();
        }
        (usable, first)
    }

    /// Applies one change.
    pub fn apply(&mut self, change: &Setting) {
        match change {
            Setting::Targets(t) => self.targets = t.clone(),
            Setting::Autoplay(a) => self.autoplay = a.clone(),
            Setting::Subject(s) => self.subject = s.clone(),
            Setting::Address(a) => self.address = *a,
            Setting::Token(t) => self.token = t.clone(),
            Setting::Name(n) => self.name = n.clone(),
            Setting::OscPort(p) => self.osc_port = *p,
            Setting::ReplyPort(p) => self.reply_port = *p,
            Setting::Chase(c) => self.chase = *c,
            Setting::Live(change) => self.live.apply(change),
            Setting::HttpPort(p) => self.http_port = *p,
        }
    }

    /// The OSC port in use: the setting, else [`OSC_PORT`].
    pub fn osc_port(&self) -> u16 {
        self.osc_port.unwrap_or(OSC_PORT)
    }

    /// The HTTP port in use: the setting, else [`HTTP_PORT`].
    pub fn http_port(&self) -> u16 {
        self.http_port.unwrap_or(HTTP_PORT)
    }
}
