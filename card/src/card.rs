//! The card's takes: mount, scan, play, upload, delete.
//!
//! - A card that comes in is mounted (FAT16/FAT32 in the first MBR
//!   partition) and scanned by [`Card::step`]: every `*.TAK` file of the
//!   folder `LLV` is read once, a piece per step, through the same checks as
//!   an upload ([`ImageCheck`]: header, entries, lengths, CRC); only a take
//!   that checks out is listed.
//! - The player reads frames with [`Card::packet`]. It does not go through
//!   the FAT library: a take's reader ([`CardReader`]) follows the file's
//!   clusters itself, one chain for the entries and one for the packets, each
//!   walking forward, and awaits every block (see [`crate::port`]), so a
//!   slow card holds no one but the player's read-ahead.
//! - An upload goes to a new file whose first 8 bytes (the magic) are
//!   written as zeros; the commit writes the magic last, so a cut upload
//!   leaves a file that never lists, and the next scan deletes it. A
//!   replacement is a new file, and the old one is deleted after the commit.
//! - A card pulled out (the driver answers "removed") drops the volume, its
//!   takes and what was open, and says so ([`Card::fault`]); it is mounted
//!   and scanned again when it comes back.
//!
//! Nothing is written to the card but what an upload, a delete or the scan's
//! removal of a cut upload asks for.

use core::fmt;
use core::ops::ControlFlow;

use embassy_time::{Duration, Instant};
use embedded_sdmmc::{
    Error, Mode as FileMode, RawDirectory, RawFile, RawVolume, ShortFileName, TimeSource,
    Timestamp, VolumeIdx, VolumeManager,
};
use heapless::{String, Vec};
use llv_core::control::MAX_TAKES;
use llv_core::packet::MAX_LEN;
use llv_core::take::{
    FrameEntry, ImageCheck, TakeError, TakeHeader, UploadError, ENTRY_LEN, MAGIC, NAME_LEN,
};

use crate::names::{file_name, from_short, is_take_file, DIR, FILE_LEN};
use crate::port::{BlockError, CardPort, Dev, Slot, BLOCK};

/// Bytes scanned per [`Card::step`].
pub const SCAN_STEP: usize = 8 * 1024;
/// Bytes the scan reads at a time (from the port's block).
const SCAN_READ: usize = 128;
/// Bytes written between two updates of an upload's directory entry (so a
/// cut upload's clusters can be freed when its file is deleted).
const FLUSH_EVERY: u32 = 64 * 1024;
/// How often the slot is asked whether a card is in while none is mounted
/// or its scan is over (a read that finds it gone says so at once).
pub const LOOK_EVERY: Duration = Duration::from_millis(250);
/// Bad files remembered per scan (not read again in it).
const BAD: usize = 4;

/// The FAT library over the card: an upload's file open at most, and the
/// root and the takes' folder.
type Fs<D> = VolumeManager<Dev<D>, NoClock, 2, 1, 1>;
type FsError = Error<BlockError>;

/// The box has no calendar: files get this date (2025-01-01).
pub struct NoClock;

impl TimeSource for NoClock {
    fn get_timestamp(&self) -> Timestamp {
        Timestamp {
            year_since_1970: 55,
            zero_indexed_month: 0,
            zero_indexed_day: 0,
            hours: 0,
            minutes: 0,
            seconds: 0,
        }
    }
}

/// Why a card operation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CardError {
    /// No card, or none mounted.
    NoCard,
    /// The card was pulled out.
    Removed,
    /// The card failed (read, write, or its file system), with the driver's word.
    Io(&'static str),
    /// No take of that name on the card.
    NotFound,
    /// [`MAX_TAKES`] takes on the card already.
    Full,
    /// The card is full.
    NoSpace,
    /// Another upload is in progress.
    Busy,
    /// No upload of that id.
    NoUpload,
    /// The upload breaks the upload contract (order, length, name, CRC, image).
    Upload(UploadError),
    /// A file on the card is not a valid take.
    Image(TakeError),
}

impl fmt::Display for CardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CardError::NoCard => f.write_str("no card in the box"),
            CardError::Removed => f.write_str("the card was pulled out"),
            CardError::Io(what) => write!(f, "card error: {what}"),
            CardError::NotFound => f.write_str("no take of that name on the card"),
            CardError::Full => write!(f, "{MAX_TAKES} takes on the card already"),
            CardError::NoSpace => f.write_str("the card is full"),
            CardError::Busy => f.write_str("another upload to the card is in progress"),
            CardError::NoUpload => f.write_str("no upload in progress"),
            CardError::Upload(e) => write!(f, "{e}"),
            CardError::Image(e) => write!(f, "{e}"),
        }
    }
}

impl From<TakeError> for CardError {
    fn from(e: TakeError) -> Self {
        CardError::Image(e)
    }
}

impl From<UploadError> for CardError {
    fn from(e: UploadError) -> Self {
        CardError::Upload(e)
    }
}

/// What the card reports for `Status`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CardFault {
    /// Pulled out; `playing` names the take that stopped, if one did.
    Removed {
        /// The take that played from it.
        playing: Option<String<NAME_LEN>>,
    },
    /// In, but no FAT16/FAT32 volume could be mounted.
    NoVolume(&'static str),
    /// In, but it does not come up (the slot's words: a card that stays busy).
    Unusable(&'static str),
    /// A file that did not check out (the last one found).
    BadTake {
        /// Its 8.3 name.
        file: String<FILE_LEN>,
        /// Why.
        why: TakeError,
    },
    /// A take whose name another card take has already.
    Duplicate {
        /// Its 8.3 name.
        file: String<FILE_LEN>,
    },
}

impl fmt::Display for CardFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CardFault::Removed {
                playing: Some(take),
            } => write!(
                f,
                "card pulled out while \"{take}\" played: insert it again"
            ),
            CardFault::Removed { playing: None } => {
                f.write_str("card pulled out: its takes are back when it is in again")
            }
            CardFault::NoVolume(why) => write!(f, "card: no FAT16/FAT32 volume ({why})"),
            CardFault::Unusable(why) => write!(f, "card: {why}"),
            CardFault::BadTake { file, why } => write!(f, "card: {DIR}/{file} not listed: {why}"),
            CardFault::Duplicate { file } => {
                write!(f, "card: {DIR}/{file} not listed: its name is taken")
            }
        }
    }
}

/// Where the volume's clusters are (from its boot sector).
#[derive(Clone, Copy, Debug)]
struct Layout {
    /// First block of the (first) FAT.
    fat: u32,
    /// Block of cluster 2.
    data: u32,
    /// Blocks per cluster.
    per_cluster: u32,
    /// FAT32 (4-byte entries) or FAT16 (2-byte).
    fat32: bool,
}

impl Layout {
    /// The layout of the volume whose boot sector `boot` is at block `start`
    /// (`None` for one this reader does not follow: not 512-byte sectors,
    /// no clusters, sizes past the card).
    fn parse(start: u32, boot: &[u8; BLOCK]) -> Option<Layout> {
        let u16_at = |i: usize| Some(u16::from_le_bytes([*boot.get(i)?, *boot.get(i + 1)?]));
        let u32_at = |i: usize| {
            Some(u32::from_le_bytes([
                *boot.get(i)?,
                *boot.get(i + 1)?,
                *boot.get(i + 2)?,
                *boot.get(i + 3)?,
            ]))
        };
        if u16_at(11)? != BLOCK as u16 {
            return None;
        }
        let per_cluster = u32::from(*boot.get(13)?);
        let reserved = u32::from(u16_at(14)?);
        let fats = u32::from(*boot.get(16)?);
        let root_entries = u32::from(u16_at(17)?);
        let fat_size = match u16_at(22)? {
            0 => u32_at(36)?,
            n => u32::from(n),
        };
        let total = match u16_at(19)? {
            0 => u32_at(32)?,
            n => u32::from(n),
        };
        if per_cluster == 0 {
            return None;
        }
        let root_blocks = (root_entries * 32).div_ceil(BLOCK as u32);
        let data = fats
            .checked_mul(fat_size)?
            .checked_add(reserved)?
            .checked_add(root_blocks)?;
        let clusters = total.checked_sub(data)? / per_cluster;
        Some(Layout {
            fat: start.checked_add(reserved)?,
            data: start.checked_add(data)?,
            per_cluster,
            fat32: clusters >= 65_525,
        })
    }

    fn cluster_bytes(&self) -> u32 {
        self.per_cluster * BLOCK as u32
    }
}

/// A file's clusters, followed forward: the cluster that holds byte
/// `index * cluster_bytes`. Clusters `0..=straight` are known to follow one
/// another on the card (as in a file written to a fresh card): any of them
/// is found at once, in either direction, without reading the FAT.
#[derive(Clone, Copy, Debug)]
struct Chain {
    first: u32,
    cluster: u32,
    index: u32,
    straight: u32,
}

impl Chain {
    /// The chain from cluster `first`, of which clusters `0..=straight`
    /// are known to be contiguous.
    fn new(first: u32, straight: u32) -> Self {
        Chain {
            first,
            cluster: first,
            index: 0,
            straight,
        }
    }

    /// Moves to cluster `index` of the file: at once within the contiguous
    /// start, else on from there (or from where it is, if past it) through
    /// the FAT, learning how far the file stays contiguous.
    async fn seek<D: Slot>(
        &mut self,
        port: &CardPort<D>,
        layout: &Layout,
        index: u32,
    ) -> Result<(), Failure> {
        let to = index.min(self.straight);
        if index < self.index || self.index < to {
            self.cluster = self.first.checked_add(to).ok_or(SHORT)?;
            self.index = to;
        }
        while self.index < index {
            let next = next_cluster(port, layout, self.cluster).await?;
            if self.index == self.straight && Some(next) == self.cluster.checked_add(1) {
                self.straight += 1;
            }
            self.cluster = next;
            self.index += 1;
        }
        Ok(())
    }
}

/// A take on the card that checked out.
#[derive(Clone, Debug)]
pub struct CardTake {
    /// Its header.
    pub header: TakeHeader,
    /// Its 8.3 file name in [`DIR`].
    pub file: String<FILE_LEN>,
    first: u32,
    /// Clusters `0..=straight` of its file are contiguous (from the scan).
    straight: u32,
    serial: u32,
}

/// A card take opened for the player: where it is in the entries and in
/// the packets.
#[derive(Clone, Debug)]
pub struct CardReader {
    header: TakeHeader,
    serial: u32,
    /// The next frame in order and its packet's offset in the image.
    next: (u32, u32),
    entries: Chain,
    packets: Chain,
}

impl CardReader {
    /// The take's header.
    pub fn header(&self) -> &TakeHeader {
        &self.header
    }
}

/// What one scan step found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scanned {
    /// Nothing to scan (no card, or scanned through).
    Idle,
    /// Part of a file was read.
    Reading,
    /// A file was read whole: its verdict (listed, or why not).
    Checked {
        /// The 8.3 file name.
        file: String<FILE_LEN>,
        /// The take's header, or why it is not listed.
        verdict: Result<TakeHeader, CardFault>,
    },
    /// Scanned through: every take on the card is listed.
    Done,
}

/// A file of the folder, as its directory entry says.
struct Found {
    file: String<FILE_LEN>,
    /// The block and byte offset of its directory entry.
    entry: (u32, u32),
    size: u32,
}

struct Checking {
    found: Found,
    first: u32,
    chain: Chain,
    at: u32,
    check: ImageCheck,
}

struct Scan {
    checking: Option<Checking>,
    bad: Vec<String<FILE_LEN>, BAD>,
}

struct Upload {
    id: u32,
    /// The contract every library keeps: order, length, name, CRC, image.
    contract: llv_core::take::Upload,
    file: String<FILE_LEN>,
    handle: RawFile,
}

struct Mounted {
    volume: RawVolume,
    root: RawDirectory,
    dir: Option<RawDirectory>,
    layout: Layout,
}

/// The card's take library.
pub struct Card<D: Slot> {
    port: &'static CardPort<D>,
    fs: Fs<D>,
    mounted: Option<Mounted>,
    /// A mount failed on the card that is in (not tried again until it is
    /// pulled out).
    tried: bool,
    looked: Option<Instant>,
    takes: Vec<CardTake, MAX_TAKES>,
    scan: Option<Scan>,
    upload: Option<Upload>,
    fault: Option<CardFault>,
    serial: u32,
}

/// A failed operation: the card's, its file system's, or one of ours.
enum Failure {
    Fs(FsError),
    Card(CardError),
}

impl From<FsError> for Failure {
    fn from(e: FsError) -> Self {
        Failure::Fs(e)
    }
}

impl From<BlockError> for Failure {
    fn from(e: BlockError) -> Self {
        Failure::Fs(Error::DeviceError(e))
    }
}

impl From<CardError> for Failure {
    fn from(e: CardError) -> Self {
        Failure::Card(e)
    }
}

impl From<TakeError> for Failure {
    fn from(e: TakeError) -> Self {
        Failure::Card(CardError::Image(e))
    }
}

fn describe(e: &FsError) -> &'static str {
    match e {
        Error::DeviceError(BlockError::Removed) => "no card",
        Error::DeviceError(BlockError::Failed) => "read or write failed",
        Error::FormatError(why) => why,
        Error::NoSuchVolume => "no partition",
        Error::NotFound => "not found",
        Error::DiskFull | Error::NotEnoughSpace => "card full",
        _ => "file system error",
    }
}

/// The image is shorter than its header says.
const SHORT: Failure = Failure::Card(CardError::Image(TakeError::Inconsistent));

impl<D: Slot> Card<D> {
    /// The library of the card in `port`, mounted at the first
    /// [`Card::step`] that finds it in.
    pub fn new(port: &'static CardPort<D>) -> Self {
        Card {
            port,
            fs: VolumeManager::new_with_limits(Dev::new(port), NoClock, 0),
            mounted: None,
            tried: false,
            looked: None,
            takes: Vec::new(),
            scan: None,
            upload: None,
            fault: None,
            serial: 0,
        }
    }

    /// The takes that checked out, in folder order.
    pub fn takes(&self) -> &[CardTake] {
        &self.takes
    }

    /// What is wrong, for `Status`.
    pub fn fault(&self) -> Option<&CardFault> {
        self.fault.as_ref()
    }

    /// Whether a volume is mounted and its scan is not over.
    pub fn scanning(&self) -> bool {
        self.scan.is_some()
    }

    /// Whether a volume is mounted.
    pub fn mounted(&self) -> bool {
        self.mounted.is_some()
    }

    /// The background work, a piece at a time: with a card in and none
    /// mounted, mounts it; else scans the next piece of the folder
    /// ([`SCAN_STEP`] bytes at most). Once scanned, the card is read (block
    /// 0) every [`LOOK_EVERY`] to find it gone when nothing plays from it;
    /// a card found gone is dropped.
    pub async fn step(&mut self) -> Scanned {
        let scanning = self.scan.is_some() && self.mounted.is_some();
        let look = self.looked.is_none_or(|at| at.elapsed() >= LOOK_EVERY);
        if !scanning && look {
            self.looked = Some(Instant::now());
            let mounted = self.mounted.is_some();
            let here = if mounted {
                self.port.answers().await
            } else {
                self.port.present().await
            };
            if !here {
                self.tried = false;
                if self.mounted.is_some() {
                    self.lose(None);
                }
                // A card in the slot that does not come up is a fault; an
                // empty slot leaves what was said before (a card pulled out).
                match self.port.unusable().await {
                    Some(why) => self.fault = Some(CardFault::Unusable(why)),
                    None if matches!(self.fault, Some(CardFault::Unusable(_))) => {
                        self.fault = None;
                    }
                    None => {}
                }
                return Scanned::Idle;
            }
            if self.mounted.is_none() {
                if self.tried {
                    return Scanned::Idle;
                }
                self.mount().await;
                return Scanned::Reading;
            }
        }
        match self.scan_step().await {
            Ok(scanned) => scanned,
            Err(e) => {
                let _ = self.error(e, None);
                Scanned::Idle
            }
        }
    }

    async fn mount(&mut self) {
        self.tried = true;
        let fs = &self.fs;
        let opened = (|| {
            let volume = fs.open_raw_volume(VolumeIdx(0))?;
            let root = match fs.open_root_dir(volume) {
                Ok(root) => root,
                Err(e) => {
                    let _ = fs.close_volume(volume);
                    return Err(e);
                }
            };
            Ok((volume, root, fs.open_dir(root, DIR).ok()))
        })();
        let mounted = match opened {
            Ok(handles) => self.layout().await.map(|layout| (handles, layout)),
            Err(e) => Err(Failure::Fs(e)),
        };
        match mounted {
            Ok(((volume, root, dir), layout)) => {
                self.scan = dir.map(|_| Scan {
                    checking: None,
                    bad: Vec::new(),
                });
                self.mounted = Some(Mounted {
                    volume,
                    root,
                    dir,
                    layout,
                });
                self.fault = None;
                self.takes.clear();
            }
            Err(Failure::Fs(Error::DeviceError(BlockError::Removed))) => {
                self.forget();
            }
            Err(Failure::Fs(e)) => {
                self.forget();
                self.fault = Some(CardFault::NoVolume(describe(&e)));
            }
            Err(Failure::Card(_)) => {
                self.forget();
                self.fault = Some(CardFault::NoVolume("FAT12 or not 512-byte sectors"));
            }
        }
    }

    /// The first partition's layout (the mount checked it is FAT).
    async fn layout(&self) -> Result<Layout, Failure> {
        let start = self
            .port
            .read_with(0, |mbr| {
                mbr.get(454..458)
                    .and_then(|b| b.try_into().ok())
                    .map(u32::from_le_bytes)
            })
            .await?
            .ok_or(Failure::Card(CardError::NoCard))?;
        let layout = self
            .port
            .read_with(start, |boot| Layout::parse(start, boot))
            .await?;
        layout.ok_or(Failure::Card(CardError::NoCard))
    }

    async fn scan_step(&mut self) -> Result<Scanned, Failure> {
        let (Some(dir), Some(layout)) = (self.folder().ok(), self.layout_of()) else {
            return Ok(Scanned::Idle);
        };
        let Some(scan) = self.scan.as_mut() else {
            return Ok(Scanned::Idle);
        };
        if scan.checking.is_none() {
            let found = self.next_file(dir)?;
            let Some(found) = found else {
                self.scan = None;
                return Ok(Scanned::Done);
            };
            let first = self.first_cluster(found.entry).await?;
            if let Some(scan) = self.scan.as_mut() {
                scan.checking = Some(Checking {
                    chain: Chain::new(first, 0),
                    first,
                    found,
                    at: 0,
                    check: ImageCheck::default(),
                });
            }
            return Ok(Scanned::Reading);
        }
        // Read in place: the future holds a borrow of the file's state, not
        // the state itself.
        let port = self.port;
        let Some(checking) = self.scan.as_mut().and_then(|s| s.checking.as_mut()) else {
            return Ok(Scanned::Idle);
        };
        let mut buf = [0u8; SCAN_READ];
        let mut read = 0;
        let mut end = false;
        while read < SCAN_STEP {
            let left = checking.found.size.saturating_sub(checking.at);
            let n = (left as usize).min(SCAN_READ);
            if n == 0 {
                end = true;
                break;
            }
            let piece = &mut buf[..n];
            let at = checking.at;
            if let Err(e) = read_chain(port, &layout, &mut checking.chain, at, piece).await {
                let file = checking.found.file.clone();
                if let Some(scan) = self.scan.as_mut() {
                    scan.checking = None;
                }
                let Failure::Card(CardError::Image(why)) = e else {
                    // The card failed: read the file again at the next step.
                    return Err(e);
                };
                // Its clusters end before its size says: not a take.
                let fault = CardFault::BadTake {
                    file: file.clone(),
                    why,
                };
                return Ok(self.reject(file, fault));
            }
            if at == 0 && piece.get(..8) == Some(&[0; 8]) {
                // A cut upload: its magic was never written.
                let file = checking.found.file.clone();
                if let Some(scan) = self.scan.as_mut() {
                    scan.checking = None;
                }
                remove(&self.fs, dir, &file)?;
                return Ok(Scanned::Reading);
            }
            checking.at += n as u32;
            read += n;
            if checking.check.update(piece).is_err() {
                end = true;
                break;
            }
        }
        if !end {
            return Ok(Scanned::Reading);
        }
        let Some(Checking {
            found,
            first,
            check,
            chain,
            ..
        }) = self.scan.as_mut().and_then(|s| s.checking.take())
        else {
            return Ok(Scanned::Idle);
        };
        let file = found.file;
        let verdict = match check.finish() {
            Err(why) => Err(CardFault::BadTake {
                file: file.clone(),
                why,
            }),
            Ok(header) if self.takes.iter().any(|t| t.header.name == header.name) => {
                Err(CardFault::Duplicate { file: file.clone() })
            }
            Ok(header) => {
                self.serial = self.serial.wrapping_add(1);
                let take = CardTake {
                    header: header.clone(),
                    file: file.clone(),
                    first,
                    straight: chain.straight,
                    serial: self.serial,
                };
                match self.takes.push(take) {
                    Ok(()) => Ok(header),
                    Err(_) => Err(CardFault::BadTake {
                        file: file.clone(),
                        why: TakeError::FrameCount,
                    }),
                }
            }
        };
        match verdict {
            Ok(header) => Ok(Scanned::Checked {
                file,
                verdict: Ok(header),
            }),
            Err(fault) => Ok(self.reject(file.clone(), fault)),
        }
    }

    /// Notes `file` as not a take (not read again in this scan) and why.
    fn reject(&mut self, file: String<FILE_LEN>, fault: CardFault) -> Scanned {
        self.fault = Some(fault.clone());
        if let Some(scan) = self.scan.as_mut() {
            if scan.bad.push(file.clone()).is_err() {
                // Too many bad files to tell apart: stop here.
                self.scan = None;
            }
        }
        Scanned::Checked {
            file,
            verdict: Err(fault),
        }
    }

    /// The next take file of the folder neither listed nor found bad in this
    /// scan, if any (the folder is read in place).
    fn next_file(&self, dir: RawDirectory) -> Result<Option<Found>, Failure> {
        let bad = self.scan.as_ref().map(|s| &s.bad);
        let mut found = None;
        self.fs.iterate_dir(dir, |entry| {
            let file = from_short(&short(&entry.name));
            let known = self.takes.iter().any(|t| t.file == file)
                || bad.is_some_and(|b| b.contains(&file))
                || self.upload.as_ref().is_some_and(|u| u.file == file);
            if !entry.attributes.is_directory() && is_take_file(&file) && !known {
                found = Some(Found {
                    file,
                    entry: (entry.entry_block.0, entry.entry_offset),
                    size: entry.size,
                });
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        })?;
        Ok(found)
    }

    /// The first cluster of the file whose directory entry is at `entry`.
    async fn first_cluster(&self, entry: (u32, u32)) -> Result<u32, Failure> {
        let (block, offset) = (entry.0, entry.1 as usize);
        let first = self
            .port
            .read_with(block, |b| {
                let hi = b.get(offset + 20..offset + 22)?;
                let lo = b.get(offset + 26..offset + 28)?;
                Some(
                    u32::from(u16::from_le_bytes([hi[0], hi[1]])) << 16
                        | u32::from(u16::from_le_bytes([lo[0], lo[1]])),
                )
            })
            .await?;
        first.ok_or(SHORT)
    }

    fn layout_of(&self) -> Option<Layout> {
        self.mounted.as_ref().map(|m| m.layout)
    }

    /// A reader for the card take `name`.
    pub fn reader(&self, name: &str) -> Option<CardReader> {
        self.takes
            .iter()
            .find(|t| t.header.name == name)
            .map(|t| CardReader {
                header: t.header.clone(),
                serial: t.serial,
                next: (0, t.header.packets_offset() as u32),
                entries: Chain::new(t.first, t.straight),
                packets: Chain::new(t.first, t.straight),
            })
    }

    /// Frame `index`'s entry and packet of `reader`'s take, read into `buf`
    /// (its length is the entry's). `NotFound` once the take was deleted or
    /// replaced, `Removed` once the card was pulled out. Awaits the card for
    /// each block; holds nothing else (the library may be used meanwhile
    /// only through another borrow of it, so callers that share the card
    /// should give it up between frames).
    pub async fn packet(
        &mut self,
        reader: &mut CardReader,
        index: u32,
        buf: &mut [u8; MAX_LEN],
    ) -> Result<FrameEntry, CardError> {
        let layout = self.playable(reader, index)?;
        let result = read_frame(self.port, &layout, reader, index, buf).await;
        result.map_err(|e| {
            let playing = Some(reader.header.name.clone());
            self.error(e, playing)
        })
    }

    /// Frame `index`'s entry of `reader`'s take (where the reader is in the
    /// packets stays).
    pub async fn entry(
        &mut self,
        reader: &mut CardReader,
        index: u32,
    ) -> Result<FrameEntry, CardError> {
        let layout = self.playable(reader, index)?;
        let mut raw = [0u8; ENTRY_LEN];
        let at = TakeHeader::entry_offset(index) as u32;
        let read = read_chain(self.port, &layout, &mut reader.entries, at, &mut raw).await;
        let entry = read.and_then(|()| Ok(FrameEntry::parse(&raw, index)?));
        entry.map_err(|e| {
            let playing = Some(reader.header.name.clone());
            self.error(e, playing)
        })
    }

    /// The layout to read frame `index` of `reader`'s take with, if the
    /// take is still on the card and has that frame.
    fn playable(&mut self, reader: &CardReader, index: u32) -> Result<Layout, CardError> {
        if !self.takes.iter().any(|t| t.serial == reader.serial) {
            if self.mounted() {
                return Err(CardError::NotFound);
            }
            // Found gone by the keeper first: the take that played stopped.
            if let Some(CardFault::Removed { playing: p @ None }) = &mut self.fault {
                *p = Some(reader.header.name.clone());
            }
            return Err(CardError::Removed);
        }
        if index >= reader.header.frame_count {
            return Err(CardError::NotFound);
        }
        self.layout_of().ok_or(CardError::Removed)
    }

    /// Starts an upload of the take `name` (`total_len` bytes, CRC `crc32`)
    /// to a new file; returns its id.
    pub fn begin_upload(
        &mut self,
        name: &str,
        total_len: u32,
        crc32: u32,
    ) -> Result<u32, CardError> {
        if self.upload.is_some() {
            return Err(CardError::Busy);
        }
        let contract = llv_core::take::Upload::begin(name, total_len, crc32)?;
        let replaces = self.takes.iter().any(|t| t.header.name == name);
        if self.takes.is_full() && !replaces {
            return Err(CardError::Full);
        }
        let opened = self.open_new(name);
        let (file, handle) = opened.map_err(|e| self.error(e, None))?;
        self.serial = self.serial.wrapping_add(1);
        self.upload = Some(Upload {
            id: self.serial,
            contract,
            file,
            handle,
        });
        Ok(self.serial)
    }

    /// Creates the folder if the card has none, and a new take file for `name`.
    fn open_new(&mut self, name: &str) -> Result<(String<FILE_LEN>, RawFile), Failure> {
        let Some(m) = self.mounted.as_mut() else {
            return Err(Failure::Card(CardError::NoCard));
        };
        let dir = match m.dir {
            Some(d) => d,
            None => {
                self.fs.make_dir_in_dir(m.root, DIR)?;
                let d = self.fs.open_dir(m.root, DIR)?;
                m.dir = Some(d);
                d
            }
        };
        let fs = &self.fs;
        let file = file_name(name, |f| fs.find_directory_entry(dir, f).is_ok());
        let handle = fs.open_file_in_dir(dir, file.as_str(), FileMode::ReadWriteCreate)?;
        Ok((file, handle))
    }

    /// Writes the next chunk of upload `id` at image offset `offset`.
    pub fn write_chunk(&mut self, id: u32, offset: u32, data: &[u8]) -> Result<(), CardError> {
        let up = self.upload_of(id)?;
        let (handle, at) = (up.handle, up.contract.received());
        if let Err(e) = up.contract.chunk(offset, data) {
            if e.is_fatal() {
                self.abort_upload(id);
            }
            return Err(e.into());
        }
        if let Err(e) = write_upload(&self.fs, handle, at, data) {
            let e = self.error(e, None);
            self.abort_upload(id);
            return Err(e);
        }
        Ok(())
    }

    /// Checks upload `id` and makes it a take (replacing the card take of the
    /// same name); returns its header.
    pub async fn commit_upload(&mut self, id: u32) -> Result<TakeHeader, CardError> {
        let up = self.upload_of(id)?;
        if !up.contract.is_complete() {
            return Err(CardError::Upload(UploadError::Incomplete {
                received: up.contract.received(),
                total: up.contract.total(),
            }));
        }
        let Some(up) = self.upload.take() else {
            return Err(CardError::NoUpload);
        };
        let header = match up.contract.finish() {
            Ok(h) => h,
            Err(e) => {
                self.discard(up.handle, &up.file);
                return Err(e.into());
            }
        };
        let old = self.takes.iter().position(|t| t.header.name == header.name);
        let replaced = old.and_then(|i| self.takes.get(i)).map(|t| t.file.clone());
        let done = self.publish(up.handle, &up.file, replaced.as_deref()).await;
        let first = done.map_err(|e| self.error(e, None))?;
        if let Some(i) = old {
            self.takes.remove(i);
        }
        self.serial = self.serial.wrapping_add(1);
        // Room was checked at begin; the list cannot have grown since.
        let _ = self.takes.push(CardTake {
            header: header.clone(),
            file: up.file,
            first,
            // Learnt by its readers as they follow it.
            straight: 0,
            serial: self.serial,
        });
        Ok(header)
    }

    /// Writes the magic, closes the file and deletes the file `replaced`;
    /// the new file's first cluster.
    async fn publish(
        &mut self,
        handle: RawFile,
        file: &str,
        replaced: Option<&str>,
    ) -> Result<u32, Failure> {
        let dir = self.folder()?;
        let fs = &self.fs;
        fs.file_seek_from_start(handle, 0)?;
        fs.write(handle, &MAGIC)?;
        fs.close_file(handle)?;
        if let Some(old) = replaced {
            remove(fs, dir, old)?;
        }
        let entry = fs.find_directory_entry(dir, file)?;
        self.first_cluster((entry.entry_block.0, entry.entry_offset))
            .await
    }

    /// Whether upload `id` is in progress.
    pub fn uploading(&self, id: u32) -> bool {
        self.upload.as_ref().is_some_and(|u| u.id == id)
    }

    /// Drops upload `id` if it is in progress, deleting its file.
    pub fn abort_upload(&mut self, id: u32) {
        if !self.uploading(id) {
            return;
        }
        if let Some(up) = self.upload.take() {
            self.discard(up.handle, &up.file);
        }
    }

    /// Closes and deletes an upload's file.
    fn discard(&mut self, handle: RawFile, file: &str) {
        let removed = self.folder().and_then(|dir| {
            self.fs.close_file(handle)?;
            remove(&self.fs, dir, file)
        });
        if let Err(e) = removed {
            let _ = self.error(e, None);
        }
    }

    /// Deletes the card take `name`.
    pub fn delete(&mut self, name: &str) -> Result<(), CardError> {
        let i = self
            .takes
            .iter()
            .position(|t| t.header.name == name)
            .ok_or(CardError::NotFound)?;
        let Some(file) = self.takes.get(i).map(|t| t.file.clone()) else {
            return Err(CardError::NotFound);
        };
        let removed = self.folder().and_then(|dir| remove(&self.fs, dir, &file));
        removed.map_err(|e| self.error(e, None))?;
        self.takes.remove(i);
        Ok(())
    }

    /// Closes what is open and the volume (writing what an upload left),
    /// and gives the port back.
    pub fn unmount(mut self) -> &'static CardPort<D> {
        if let Some(up) = self.upload.take() {
            let _ = self.fs.close_file(up.handle);
        }
        if let Some(m) = self.mounted.take() {
            if let Some(d) = m.dir {
                let _ = self.fs.close_dir(d);
            }
            let _ = self.fs.close_dir(m.root);
            let _ = self.fs.close_volume(m.volume);
        }
        self.port
    }

    /// The takes' folder.
    fn folder(&self) -> Result<RawDirectory, Failure> {
        match &self.mounted {
            Some(Mounted { dir: Some(d), .. }) => Ok(*d),
            Some(_) => Err(Failure::Card(CardError::NotFound)),
            None => Err(Failure::Card(CardError::NoCard)),
        }
    }

    fn upload_of(&mut self, id: u32) -> Result<&mut Upload, CardError> {
        self.upload
            .as_mut()
            .filter(|u| u.id == id)
            .ok_or(CardError::NoUpload)
    }

    /// The error of a failed operation; a removal drops the volume.
    fn error(&mut self, e: Failure, playing: Option<String<NAME_LEN>>) -> CardError {
        match e {
            Failure::Card(e) => e,
            Failure::Fs(Error::DeviceError(BlockError::Removed)) => {
                self.lose(playing);
                CardError::Removed
            }
            Failure::Fs(Error::DiskFull | Error::NotEnoughSpace) => CardError::NoSpace,
            Failure::Fs(e) => CardError::Io(describe(&e)),
        }
    }

    /// A new file system: the old one's handles and block cache belong to a
    /// card that went (or never mounted).
    fn forget(&mut self) {
        self.fs = VolumeManager::new_with_limits(Dev::new(self.port), NoClock, 0);
        self.mounted = None;
        self.takes.clear();
        self.scan = None;
        self.upload = None;
    }

    /// The card is gone: forgets the volume and all that was open on it.
    fn lose(&mut self, playing: Option<String<NAME_LEN>>) {
        self.forget();
        self.tried = false;
        self.fault = Some(CardFault::Removed { playing });
    }
}

/// Frame `index` of `reader`'s take: its entry, and its packet in `buf`.
async fn read_frame<D: Slot>(
    port: &CardPort<D>,
    layout: &Layout,
    reader: &mut CardReader,
    index: u32,
    buf: &mut [u8; MAX_LEN],
) -> Result<FrameEntry, Failure> {
    if index != reader.next.0 {
        // Out of order: sum the entries' lengths on from where the reader
        // is (forward), or from the start (back).
        let (mut i, mut offset) = if index > reader.next.0 {
            reader.next
        } else {
            (0, reader.header.packets_offset() as u32)
        };
        let mut raw = [0u8; 8 * ENTRY_LEN];
        while i < index {
            let at = TakeHeader::entry_offset(i) as u32;
            let n = (((index - i) as usize) * ENTRY_LEN).min(raw.len());
            let piece = &mut raw[..n];
            read_chain(port, layout, &mut reader.entries, at, piece).await?;
            for chunk in piece.chunks_exact(ENTRY_LEN) {
                offset += u32::from(FrameEntry::parse(chunk, i)?.len);
                i += 1;
            }
        }
        reader.next = (index, offset);
    }
    let mut raw = [0u8; ENTRY_LEN];
    let at = TakeHeader::entry_offset(index) as u32;
    read_chain(port, layout, &mut reader.entries, at, &mut raw).await?;
    let entry = FrameEntry::parse(&raw, index)?;
    let packet = buf.get_mut(..usize::from(entry.len)).ok_or(SHORT)?;
    read_chain(port, layout, &mut reader.packets, reader.next.1, packet).await?;
    reader.next = (index + 1, reader.next.1 + u32::from(entry.len));
    Ok(entry)
}

/// Reads `buf.len()` bytes at `offset` of the file whose clusters `chain`
/// follows (forward from where it is; from the start if `offset` is before).
async fn read_chain<D: Slot>(
    port: &CardPort<D>,
    layout: &Layout,
    chain: &mut Chain,
    offset: u32,
    buf: &mut [u8],
) -> Result<(), Failure> {
    let per = layout.cluster_bytes();
    let mut done = 0;
    while done < buf.len() {
        let at = offset + done as u32;
        let index = at / per;
        chain.seek(port, layout, index).await?;
        let within = at % per;
        let cluster = chain.cluster.checked_sub(2).ok_or(SHORT)?;
        let block = cluster
            .checked_mul(layout.per_cluster)
            .and_then(|b| b.checked_add(layout.data + within / BLOCK as u32))
            .ok_or(SHORT)?;
        let from = (within % BLOCK as u32) as usize;
        let n = (BLOCK - from).min(buf.len() - done);
        let out = &mut buf[done..done + n];
        port.read_with(block, |b| {
            if let Some(src) = b.get(from..from + n) {
                out.copy_from_slice(src);
            }
        })
        .await?;
        done += n;
    }
    Ok(())
}

/// The cluster after `cluster` in the FAT; an end or a free or bad cluster
/// is an image shorter than its header says.
async fn next_cluster<D: Slot>(
    port: &CardPort<D>,
    layout: &Layout,
    cluster: u32,
) -> Result<u32, Failure> {
    let width = if layout.fat32 { 4 } else { 2 };
    let byte = cluster * width;
    let block = layout.fat + byte / BLOCK as u32;
    let at = (byte % BLOCK as u32) as usize;
    let next = port
        .read_with(block, |b| {
            let e = b.get(at..at + width as usize)?;
            Some(if layout.fat32 {
                u32::from_le_bytes([e[0], e[1], e[2], e[3]]) & 0x0FFF_FFFF
            } else {
                u32::from(u16::from_le_bytes([e[0], e[1]]))
            })
        })
        .await?;
    let end = if layout.fat32 { 0x0FFF_FFF7 } else { 0xFFF7 };
    match next {
        Some(n) if (2..end).contains(&n) => Ok(n),
        _ => Err(SHORT),
    }
}

/// Writes `data` at `received` of the upload `handle`, the magic as zeros
/// (written at the commit); updates the directory entry now and then.
fn write_upload<D: Slot>(
    fs: &Fs<D>,
    handle: RawFile,
    received: u32,
    data: &[u8],
) -> Result<(), Failure> {
    let magic = (MAGIC.len() as u32).saturating_sub(received) as usize;
    let zeros = [0u8; MAGIC.len()];
    let (head, rest) = data.split_at(magic.min(data.len()));
    if !head.is_empty() {
        fs.write(handle, zeros.get(..head.len()).unwrap_or(&[]))?;
    }
    fs.write(handle, rest)?;
    let after = received + data.len() as u32;
    if received == 0 || after / FLUSH_EVERY != received / FLUSH_EVERY {
        fs.flush_file(handle)?;
    }
    Ok(())
}

/// Deletes `file` of `dir`, its clusters freed first (embedded-sdmmc frees
/// none when it deletes; truncating frees all but the first).
fn remove<D: Slot>(fs: &Fs<D>, dir: RawDirectory, file: &str) -> Result<(), Failure> {
    let handle = fs.open_file_in_dir(dir, file, FileMode::ReadWriteTruncate)?;
    fs.close_file(handle)?;
    fs.delete_entry_in_dir(dir, file)?;
    Ok(())
}

/// A short name's 11 bytes (8 + 3, space-padded).
fn short(name: &ShortFileName) -> [u8; 11] {
    let mut out = [b' '; 11];
    for (o, b) in out.iter_mut().zip(name.base_name()) {
        *o = *b;
    }
    for (o, b) in out.iter_mut().skip(8).zip(name.extension()) {
        *o = *b;
    }
    out
}
