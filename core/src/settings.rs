//! The box's settings: one model for the box's stored settings, its command
//! line and the control messages that read and change them.
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

use crate::artnet::Label;
use crate::chase::{AfterFreewheel, ChaseConfig};
use crate::ports::CONTROL_PORT;
pub use crate::ports::{MDNS_PORT, OSC_PORT};
use crate::take::NAME_LEN;

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
    /// Whether frames can be sent to it: a port, and an address that is not
    /// unspecified (0.0.0.0). Broadcast, multicast and loopback (a laptop
    /// playing to itself) are allowed.
    pub fn check(&self) -> Result<(), SettingError> {
        if self.port == 0 || Ipv4Addr::from(self.ip).is_unspecified() {
            return Err(SettingError::Target(*self));
        }
        Ok(())
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
    pub offset: Option<Label>,
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

    /// Checks the offset (a label, see [`Label::is_valid`]) and the freewheel
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
    /// Whether the box can take this address: a prefix of 1 to 32 bits, a
    /// unicast address that is neither the network nor the broadcast address
    /// of its subnet (for prefixes up to 30), and a gateway, if any, on that
    /// subnet and not the box itself.
    pub fn check(&self) -> Result<(), SettingError> {
        let bad = Err(SettingError::Address(*self));
        if !(1..=32).contains(&self.prefix_len) {
            return bad;
        }
        let ip = u32::from_be_bytes(self.ip);
        let mask = u32::MAX << (32 - u32::from(self.prefix_len));
        let addr = Ipv4Addr::from(self.ip);
        if addr.is_unspecified() || addr.is_loopback() || addr.is_multicast() || addr.is_broadcast()
        {
            return bad;
        }
        if self.prefix_len <= 30 && (ip & !mask == 0 || ip & !mask == !mask) {
            return bad;
        }
        if let Some(gw) = self.gateway {
            let gw = u32::from_be_bytes(gw);
            if gw & mask != ip & mask || gw == ip {
                return bad;
            }
        }
        Ok(())
    }
}

/// A setting the box refuses: it would break playback or the network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SettingError {
    /// A target without a port, or to 0.0.0.0.
    Target(Target),
    /// A static address the network cannot use (see [`StaticAddress::check`]).
    Address(StaticAddress),
    /// An autoplay take name that is empty.
    AutoplayName,
    /// A subject name that is empty.
    Subject,
    /// A token that is empty or holds other than printable ASCII without spaces.
    Token,
    /// A box name that is not a host name label (see [`check_box_name`]).
    Name,
    /// An OSC or reply port that is 0, or an OSC port another service of the box uses.
    Port(u16),
    /// A chase offset of a day or more, or a freewheel over [`MAX_FREEWHEEL_MS`].
    Chase,
}

impl fmt::Display for SettingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingError::Target(t) => write!(
                f,
                "target {t}: needs a port and an address other than 0.0.0.0 or 127.x"
            ),
            SettingError::Address(a) => {
                let ip = Ipv4Addr::from(a.ip);
                write!(f, "address {ip}/{}", a.prefix_len)?;
                if let Some(gw) = a.gateway {
                    write!(f, " gateway {}", Ipv4Addr::from(gw))?;
                }
                f.write_str(": not a usable host address and gateway")
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
            SettingError::Port(p) => write!(
                f,
                "port {p}: not 0, and an OSC port is not the control port {} or mDNS {MDNS_PORT}",
                CONTROL_PORT
            ),
            SettingError::Chase => write!(
                f,
                "chase: the offset is a timecode below 24:00:00:00 (frames below 30), the freewheel at most {} s",
                MAX_FREEWHEEL_MS / 1000
            ),
        }
    }
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
}

impl Settings {
    /// Checks every setting (see [`SettingError`]); the first bad one is the error.
    pub fn check(&self) -> Result<(), SettingError> {
        for t in &self.targets {
            t.check()?;
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
        if let Some(p) = self.osc_port {
            if p == 0 || p == CONTROL_PORT || p == MDNS_PORT {
                return Err(SettingError::Port(p));
            }
        }
        if self.reply_port == Some(0) {
            return Err(SettingError::Port(0));
        }
        if let Some(chase) = &self.chase {
            chase.check()?;
        }
        Ok(())
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
        }
    }

    /// The OSC port in use: the setting, else [`OSC_PORT`].
    pub fn osc_port(&self) -> u16 {
        self.osc_port.unwrap_or(OSC_PORT)
    }
}
