//! The box's control protocol: requests and responses as postcard messages over
//! TCP port [`CONTROL_PORT`], each framed by a little-endian `u16` body length
//! (documented in `docs/control-protocol.md`).
//!
//! A connection starts with [`Request::Hello`]; the box answers
//! [`Response::Hello`] when both speak [`PROTOCOL_VERSION`] (and the token, if
//! the box has one, matches) and refuses everything else until then. The first
//! variant of both enums and [`Response::Error`] keep their layout in every
//! protocol version, so an old host and a new box always understand the refusal.
//! Every message fits in [`MAX_FRAME`] bytes; encoding and decoding use caller
//! buffers, never the heap.

use core::fmt;

use heapless::{String, Vec};
use serde::{Deserialize, Serialize};

use crate::chase::ChaseState;
pub use crate::chase::ChaseStatus;
pub use crate::ports::{CONTROL_PORT, LIVE_LINK_PORT};
use crate::settings::{ChaseSpec, Setting, Settings, Target, MAX_CHANGES, MAX_TARGETS};
pub use crate::take::MAX_CHUNK;
use crate::take::{TakeHeader, NAME_LEN};

/// The protocol version this code speaks.
pub const PROTOCOL_VERSION: u16 = 6;
/// Bytes of the length prefix in front of every message.
pub const PREFIX_LEN: usize = 2;
/// Largest message body in bytes; a longer one is refused with [`ErrorCode::TooLarge`].
pub const MAX_FRAME: usize = 2048;
/// Largest response body the box sends (a list of [`MAX_TAKES`] takes is
/// the longest, about 780 bytes); a box's response buffer needs no more.
pub const MAX_RESPONSE: usize = 1024;
/// Most takes one [`Response::List`] holds, and the most the box's flash stores.
pub const MAX_TAKES: usize = 16;
/// Takes in one page of [`Response::Takes`]; a list longer than that is
/// read a page at a time ([`Request::ListPage`]).
pub const PAGE_TAKES: usize = 16;
/// Bad card files a [`CardStatus`] names (it counts them all).
pub const BAD_NAMED: usize = 4;
/// Longest card file name (8.3: `NAMENAME.TAK`).
pub const FILE_NAME_LEN: usize = 12;
/// Longest firmware version string.
pub const FIRMWARE_LEN: usize = 24;
/// Longest error detail.
pub const DETAIL_LEN: usize = 80;
/// Most faults one [`Status`] reports.
pub const MAX_FAULTS: usize = 4;

/// A message from the host to the box.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[allow(
    clippy::large_enum_variant,
    reason = "no heap to box into: one message lives at a time"
)]
pub enum Request<'a> {
    /// Opens the conversation: the host's protocol version and the box's token, if it has one.
    Hello {
        /// The host's [`PROTOCOL_VERSION`].
        protocol: u16,
        /// The shared token.
        #[serde(borrow)]
        token: Option<&'a str>,
    },
    /// Asks for [`Response::Status`].
    Status,
    /// Asks for [`Response::List`].
    List,
    /// Starts uploading a take image of `total_len` bytes whose CRC (see `take`) is `crc32`.
    UploadBegin {
        /// Take name; must equal the name in the image header.
        name: &'a str,
        /// Image length in bytes.
        total_len: u32,
        /// Image CRC from its header.
        crc32: u32,
        /// Where the take goes: the box's flash or its card.
        place: Place,
    },
    /// The image bytes at `offset` (chunks come in order, at most [`MAX_CHUNK`] bytes).
    UploadChunk {
        /// Offset in the image.
        offset: u32,
        /// The bytes.
        data: &'a [u8],
    },
    /// Checks the uploaded image and makes the take visible (replacing one of the same name).
    UploadCommit,
    /// Deletes a stored take.
    Delete {
        /// Take name.
        name: &'a str,
    },
    /// Plays a stored take; no targets means the configured ones.
    Play {
        /// Take name.
        name: &'a str,
        /// Where to send frames.
        targets: Vec<Target, MAX_TARGETS>,
        /// How many times to play it; 0 loops forever (unused when chasing).
        loop_count: u32,
        /// When the first frame goes out.
        start: Start,
    },
    /// Stops playback.
    Stop,
    /// Asks for [`Response::Settings`].
    GetSettings,
    /// Applies these changes together and stores the settings.
    SetSettings {
        /// The changes, in order.
        changes: Vec<Setting, MAX_CHANGES>,
    },
    /// Asks for [`Response::Clock`] (hosts measure the box's clock with it, to
    /// start several boxes together).
    Clock,
    /// Asks for [`Response::Takes`]: the takes from the `start`th on, a page of them.
    ListPage {
        /// Index of the first take of the page (0 for the first page).
        start: u32,
    },
    /// Turns the live relay (the settings' [`crate::settings::LiveSpec`])
    /// on or off now; answered with `Ok`.
    Live {
        /// On or off.
        on: bool,
    },
}

/// When a [`Request::Play`] starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Start {
    /// At once.
    Now,
    /// The first frame is due when the box's clock ([`Response::Clock`]) reads
    /// this many µs; a time already past is refused (`Invalid`).
    At(u64),
    /// Following Art-Net timecode (UDP 6454): each frame goes out when the
    /// show's timecode reaches it.
    Chase(ChaseSpec),
}

/// Why the box refused a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ErrorCode {
    /// The host speaks another protocol version (the detail names the box's).
    ProtocolMismatch,
    /// No `Hello` yet, or the token was missing or wrong.
    Unauthorized,
    /// The message did not decode.
    BadRequest,
    /// The message was longer than [`MAX_FRAME`] (it was skipped).
    TooLarge,
    /// No take of that name.
    NotFound,
    /// Not enough contiguous free flash, or [`MAX_TAKES`] takes already stored.
    NoSpace,
    /// A chunk or commit that does not follow the upload in progress.
    UploadOrder,
    /// The uploaded image is not a valid take (header, entries, name or length).
    BadImage,
    /// The uploaded image's CRC does not check out.
    Crc,
    /// An invalid argument (empty target list with none configured, bad name...).
    Invalid,
    /// The flash failed.
    Flash,
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorCode::ProtocolMismatch => "protocol version mismatch",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::BadRequest => "bad request",
            ErrorCode::TooLarge => "message too large",
            ErrorCode::NotFound => "no such take",
            ErrorCode::NoSpace => "no space",
            ErrorCode::UploadOrder => "upload out of order",
            ErrorCode::BadImage => "bad take image",
            ErrorCode::Crc => "CRC mismatch",
            ErrorCode::Invalid => "invalid argument",
            ErrorCode::Flash => "flash error",
        })
    }
}

/// One stored take, as listed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TakeInfo {
    /// Take name.
    pub name: String<NAME_LEN>,
    /// Number of frames.
    pub frame_count: u32,
    /// From frame 0 to where a loop restarts, in µs: the take's length.
    pub period_us: u32,
    /// Image length in bytes.
    pub total_len: u32,
    /// Image CRC.
    pub crc32: u32,
    /// Where it lives.
    pub place: Place,
}

impl TakeInfo {
    /// The listing of a take whose image has `header`, stored at `place`.
    pub fn of(header: &TakeHeader, place: Place) -> TakeInfo {
        TakeInfo {
            name: header.name.clone(),
            frame_count: header.frame_count,
            period_us: header.period_us,
            total_len: header.total_len,
            crc32: header.crc32,
            place,
        }
    }
}

/// Where a take lives: the box's internal flash (a folder for `llv serve`)
/// or its microSD card.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Place {
    /// The box's internal flash (always there, small); `llv serve`'s folder.
    #[default]
    Internal,
    /// The box's microSD card (hours of takes; may be pulled out).
    Card,
}

impl Place {
    /// The name `llv` shows: `flash` or `card`.
    pub fn as_str(self) -> &'static str {
        match self {
            Place::Internal => "flash",
            Place::Card => "card",
        }
    }
}

/// A take as people name it: `NAME` (the flash's copy first, as the box
/// plays it), or `flash:NAME` / `card:NAME` for the copy in that place,
/// wherever a take is named (`Play`, `Delete`, OSC, the autoplay setting).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TakeRef<'a> {
    /// The take's own name.
    pub name: &'a str,
    /// The place named, if one is.
    pub place: Option<Place>,
}

/// Which copy of a take a command acts on ([`TakeRef::which`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    /// The copy in this place.
    At(Place),
    /// No take of that name (in the place named).
    Missing,
    /// Unqualified, and in both places: a delete must name one.
    Both,
}

impl<'a> TakeRef<'a> {
    /// Reads `flash:NAME`, `card:NAME` or `NAME`.
    pub fn parse(text: &'a str) -> Self {
        let (place, name) = match text.split_once(':') {
            Some(("flash", name)) => (Some(Place::Internal), name),
            Some(("card", name)) => (Some(Place::Card), name),
            _ => (None, text),
        };
        TakeRef { name, place }
    }

    /// The copy a command acts on when takes of this name are on the flash
    /// (`on_flash`) and on the card (`on_card`): the place named; else the
    /// only copy; else, both there, the flash's to play and none to delete.
    pub fn which(&self, on_flash: bool, on_card: bool, deleting: bool) -> Which {
        match (self.place, on_flash, on_card) {
            (Some(Place::Internal), true, _) | (None, true, false) => Which::At(Place::Internal),
            (Some(Place::Card), _, true) | (None, false, true) => Which::At(Place::Card),
            (None, true, true) if deleting => Which::Both,
            (None, true, true) => Which::At(Place::Internal),
            _ => Which::Missing,
        }
    }
}

impl core::fmt::Display for TakeRef<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.place {
            Some(p) => write!(f, "{}:{}", p.as_str(), self.name),
            None => f.write_str(self.name),
        }
    }
}

/// What the box is playing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Playing {
    /// Take name.
    pub take: String<NAME_LEN>,
    /// Index of the frame last sent.
    pub frame: u32,
    /// Completed passes through the take.
    pub loops_done: u32,
    /// Frames sent more than 2 ms after their deadline.
    pub late_frames: u32,
    /// The latest a frame was sent after its deadline, in µs.
    pub max_late_us: u32,
    /// The fewest frames the read-ahead held when the player took one, once
    /// it had filled (after the start or a seek); `u32::MAX` until then.
    pub read_ahead_low: u32,
    /// Each target and what reached its queue.
    pub targets: Vec<TargetCounts, MAX_TARGETS>,
    /// How the chase stands, when the take follows timecode.
    pub chase: Option<ChaseStatus>,
}

impl Playing {
    /// Whether frames go out now: a playback at its deadlines always, a
    /// chase while it is locked, freewheeling or holding (not while it waits
    /// for timecode, locks to it or has stopped with it gone).
    pub fn sending(&self) -> bool {
        self.chase.is_none_or(|c| {
            matches!(
                c.state,
                ChaseState::Locked | ChaseState::Freewheel | ChaseState::Held
            )
        })
    }
}

/// How the last playback went: kept in [`Status`] from its end until the
/// next playback starts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Played {
    /// Take name.
    pub take: String<NAME_LEN>,
    /// Frames sent (each offered to every target).
    pub frames: u32,
    /// Frames sent more than 2 ms after their deadline (chasing: after the
    /// timecode reached them).
    pub late_frames: u32,
    /// Frames dropped, all targets together (their queues were full).
    pub dropped: u32,
    /// How it ended.
    pub ended: Ended,
}

/// How a playback ended (in JSON by its [`Ended::name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Ended {
    /// It played every loop it was asked for.
    Done,
    /// A `Stop` (or a delete of the take that played) ended it. A chase ends
    /// only so: it stays with its timecode, through stops, until told.
    Stopped,
    /// Its take could not be read on (deleted, replaced, its card pulled out).
    Failed,
}

impl Ended {
    /// In words: `done`, `stopped` or `failed`.
    pub fn name(self) -> &'static str {
        match self {
            Ended::Done => "done",
            Ended::Stopped => "stopped",
            Ended::Failed => "failed",
        }
    }
}

/// What one playback target got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TargetCounts {
    /// Where frames go.
    pub target: Target,
    /// Frames queued for it.
    pub sent: u32,
    /// Frames dropped for it: its queue was full (nobody answers its ARP, no
    /// route) or the network refused the datagram. The other targets are not
    /// held up.
    pub dropped: u32,
}

/// Something wrong with the box that it works around, and how to recover.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// What kind of fault.
    pub code: FaultCode,
    /// What happened and what to do, for people.
    pub detail: String<DETAIL_LEN>,
}

/// The kinds of [`Fault`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FaultCode {
    /// The take store did not mount: no takes, settings at their defaults.
    StoreUnusable,
    /// The stored settings could not be read (newer schema, or damaged): the box
    /// runs on its defaults and accepts only Status, List and GetSettings.
    SettingsUnreadable,
    /// A stored setting breaks the rules; the box ignores it (the record is kept).
    BadStoredSetting,
    /// The settings were cleared at power-up (factory reset); takes were kept.
    FactoryReset,
    /// The box restarted itself after a hang (hardware watchdog).
    WatchdogReset,
    /// The board runs on a fallback clock (timing less exact).
    ClockFallback,
    /// The card was pulled out (a card take that played stopped); its takes
    /// come back when it is inserted again.
    CardRemoved,
    /// The card is in but cannot be used (no FAT16/FAT32 volume, a read
    /// error, or a take that does not check out): the detail says which.
    CardUnusable,
}

/// The box's state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    /// Firmware version.
    pub firmware: String<FIRMWARE_LEN>,
    /// Time since power-up in ms.
    pub uptime_ms: u64,
    /// The box's IPv4 address, once it has one.
    pub address: Option<[u8; 4]>,
    /// The take being played, if any.
    pub playing: Option<Playing>,
    /// Flash bytes holding takes (`llv serve`: its folder's takes). A u64
    /// since protocol 6, the same bytes on the wire as a u32 below 4 GiB.
    pub used_bytes: u64,
    /// Flash bytes free for takes (`llv serve`: its folder's file system's).
    pub free_bytes: u64,
    /// What is wrong, if anything, and how to recover.
    pub faults: Vec<Fault, MAX_FAULTS>,
    /// The card, when the box has a slot for one.
    pub card: Option<CardStatus>,
    /// What the flash went through since power-up (protocol 6).
    pub wear: Wear,
    /// How the last playback went, while none plays (protocol 6).
    pub last: Option<Played>,
    /// What the box's clock runs from (protocol 6).
    pub clock: ClockSource,
    /// The OSC port it serves on now, UDP and TCP (protocol 6): the
    /// settings' `osc-port` from the next power-up, `llv serve --osc-port`.
    pub osc_port: u16,
    /// The live relay, while it runs (protocol 6).
    pub live: Option<LiveStatus>,
}

/// What the box's clock runs from: how far its frame times can be trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ClockSource {
    /// A crystal or a crystal-driven clock (the NUCLEO's 8 MHz from its ST-LINK).
    Crystal,
    /// The chip's internal RC oscillator: a few hundred ppm, drifts with temperature.
    Internal,
    /// An emulator's virtual clock (the box under QEMU), which follows the host's.
    Emulated,
    /// The operating system's clock (`llv serve`).
    Host,
}

impl ClockSource {
    /// In words: `crystal`, `internal`, `emulated` or `host`.
    pub fn name(self) -> &'static str {
        match self {
            ClockSource::Crystal => "crystal",
            ClockSource::Internal => "internal",
            ClockSource::Emulated => "emulated",
            ClockSource::Host => "host",
        }
    }
}

impl LiveStatus {
    /// The status of `relay`, which started `started_ms` into the box's
    /// clock, having recorded `recorded_bytes`.
    pub fn of(relay: &crate::relay::Relay, started_ms: u64, recorded_bytes: u64) -> LiveStatus {
        use crate::relay::{RelayState, SwitchKind};
        let counts = relay.counts();
        let clock = relay.source_clock();
        let skip = counts.switches.len().saturating_sub(LIVE_SWITCHES);
        LiveStatus {
            state: match relay.state() {
                RelayState::Waiting => 0,
                RelayState::Live => 1,
                RelayState::Fallback => 2,
                RelayState::Returning => 3,
            },
            rate_mhz: clock
                .period_us()
                .and_then(|p| u32::try_from(1_000_000_000 / p.max(1)).ok())
                .unwrap_or(0),
            jitter_us: u32::try_from(clock.jitter_us()).unwrap_or(u32::MAX),
            frames_in: counts.frames_in,
            lost: counts.lost,
            not_face: counts.not_face,
            fallbacks: counts.fallbacks,
            returns: counts.returns,
            switches: counts
                .switches
                .iter()
                .skip(skip)
                .map(|s| (s.kind == SwitchKind::Fallback, started_ms + s.at_us / 1000))
                .collect(),
            recorded_bytes,
        }
    }
}

/// Switches a [`LiveStatus`] lists (the latest).
pub const LIVE_SWITCHES: usize = 4;

/// How the live relay stands (`llv_core::relay`'s counts and source clock).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveStatus {
    /// Where it is: 0 waiting for the phone, 1 live, 2 fallback, 3 returning.
    pub state: u8,
    /// The source's rate in mHz (0 before it is known).
    pub rate_mhz: u32,
    /// The source's arrival jitter (µs, smoothed mean deviation from its period).
    pub jitter_us: u32,
    /// Face frames from the live source.
    pub frames_in: u64,
    /// Live frames missing by their frame numbers.
    pub lost: u64,
    /// Datagrams that were not face frames.
    pub not_face: u64,
    /// Switches to the fallback.
    pub fallbacks: u32,
    /// Returns to the live source.
    pub returns: u32,
    /// The latest switches: to the fallback (`true`) or back, and when
    /// (ms on the box's clock, as `uptime_ms`).
    pub switches: Vec<(bool, u64), LIVE_SWITCHES>,
    /// Bytes of the live stream recorded.
    pub recorded_bytes: u64,
}

/// How the card stands.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardStatus {
    /// Whether its takes are being checked (a card just in): the list is
    /// not whole until this is `false`.
    pub scanning: bool,
    /// Takes listed from it.
    pub takes: u32,
    /// Take files on it that do not check out (litter laptops leave is
    /// not counted).
    pub bad_files: u32,
    /// The first [`BAD_NAMED`] of them, by 8.3 name in its folder `LLV`.
    pub bad: Vec<String<FILE_NAME_LEN>, BAD_NAMED>,
}

/// A page of the stored takes: flash takes first, then the card's.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TakePage {
    /// Index of its first take in the whole list.
    pub start: u32,
    /// Takes in the whole list.
    pub total: u32,
    /// Changes whenever a take comes or goes: a host that reads several
    /// pages reads them again when it changed between them.
    pub revision: u32,
    /// The takes `start..start + takes.len()`.
    pub takes: Vec<TakeInfo, PAGE_TAKES>,
}

/// What the box's flash went through since power-up. Settings saves are
/// paced to spare it: a save that changes nothing is not written, and saves
/// that follow a write within a few seconds are held and written together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Wear {
    /// Settings records written.
    pub settings_writes: u32,
    /// Settings saves that changed nothing (not written).
    pub settings_unchanged: u32,
    /// Settings saves held back and written with a later one.
    pub settings_coalesced: u32,
    /// Whether saved settings wait to be written (a power cut now loses them).
    pub settings_pending: bool,
    /// Erases of the settings blocks.
    pub settings_erases: u32,
    /// Erases of take blocks (uploads, deletes, replaced takes).
    pub take_erases: u32,
}

/// A message from the box to the host.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[allow(
    clippy::large_enum_variant,
    reason = "no heap to box into: one message lives at a time"
)]
pub enum Response {
    /// Accepts the `Hello`.
    Hello {
        /// The box's [`PROTOCOL_VERSION`].
        protocol: u16,
        /// Firmware version.
        firmware: String<FIRMWARE_LEN>,
    },
    /// Refuses the request.
    Error {
        /// Why.
        code: ErrorCode,
        /// A short explanation for people.
        detail: String<DETAIL_LEN>,
    },
    /// Done.
    Ok,
    /// The box's state.
    Status(Status),
    /// The stored takes.
    List {
        /// One entry per take.
        takes: Vec<TakeInfo, MAX_TAKES>,
    },
    /// The settings; the token itself is never sent back, only whether one is set.
    Settings {
        /// The settings, `token` always `None`.
        settings: Settings,
        /// Whether a token is set.
        token_set: bool,
    },
    /// The box's monotonic clock.
    Clock {
        /// µs since power-up.
        now_us: u64,
    },
    /// A page of the stored takes.
    Takes(TakePage),
}

impl Response {
    /// An error response; `detail` is cut (at a character boundary) to [`DETAIL_LEN`] bytes.
    pub fn error(code: ErrorCode, detail: &str) -> Response {
        Response::Error {
            code,
            detail: bounded(detail),
        }
    }
}

/// Copies `text` into a bounded string, cut at a character boundary when too long.
pub fn bounded<const N: usize>(text: &str) -> String<N> {
    let mut end = text.len().min(N);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::new();
    // Cannot fail: at most N bytes.
    let _ = out.push_str(&text[..end]);
    out
}

/// Why a message could not be framed or read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FrameError {
    /// A body of this many bytes exceeds [`MAX_FRAME`].
    TooLarge(usize),
    /// The output buffer is too small.
    BufferTooSmall,
    /// The body is not a valid message.
    Decode,
    /// The body holds this many bytes after a complete message.
    Trailing(usize),
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FrameError::TooLarge(n) => write!(f, "message of {n} bytes exceeds {MAX_FRAME}"),
            FrameError::BufferTooSmall => f.write_str("output buffer too small"),
            FrameError::Decode => f.write_str("message does not decode"),
            FrameError::Trailing(n) => write!(f, "{n} stray bytes after the message"),
        }
    }
}

/// Writes `message` as one frame (length prefix and body) into `out`; returns the frame.
pub fn encode<'o, T: Serialize>(message: &T, out: &'o mut [u8]) -> Result<&'o [u8], FrameError> {
    let body_room = out.len().saturating_sub(PREFIX_LEN);
    let limit = body_room.min(MAX_FRAME);
    let body = out
        .get_mut(PREFIX_LEN..PREFIX_LEN + limit)
        .ok_or(FrameError::BufferTooSmall)?;
    let len = match postcard::to_slice(message, body) {
        Ok(used) => used.len(),
        Err(_) if body_room > MAX_FRAME => return Err(FrameError::TooLarge(MAX_FRAME + 1)),
        Err(_) => return Err(FrameError::BufferTooSmall),
    };
    out[..PREFIX_LEN].copy_from_slice(&(len as u16).to_le_bytes());
    Ok(&out[..PREFIX_LEN + len])
}

/// The body length announced by a frame's prefix; bodies over [`MAX_FRAME`] must be skipped.
pub fn body_len(prefix: [u8; PREFIX_LEN]) -> usize {
    usize::from(u16::from_le_bytes(prefix))
}

/// Decodes one frame body (without its prefix) as a whole message.
pub fn decode<'a, T: Deserialize<'a>>(body: &'a [u8]) -> Result<T, FrameError> {
    if body.len() > MAX_FRAME {
        return Err(FrameError::TooLarge(body.len()));
    }
    let (message, rest) = postcard::take_from_bytes(body).map_err(|_| FrameError::Decode)?;
    if !rest.is_empty() {
        return Err(FrameError::Trailing(rest.len()));
    }
    Ok(message)
}
