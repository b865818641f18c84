//! The card's takes: mount, scan, play, upload, delete.
//!
//! - A card that comes in is mounted (FAT12/16/32) and scanned by
//!   [`Card::step`]: every `*.TAK` file of the folder `LLV` is read once,
//!   a piece per step, through the same checks as an upload
//!   ([`ImageCheck`]: header, entries, lengths, CRC); only a take that checks
//!   out is listed.
//! - The player reads frames with [`Card::packet`] (the file of the take
//!   that plays stays open).
//! - An upload goes to `LLV/UPLOAD.TMP`, checked as it streams in; the commit
//!   closes it and renames it to the take's 8.3 name (replacing the take of
//!   the same name in one step), so a cut leaves at most that temporary file,
//!   which never lists.
//! - A card pulled out (the device answers "removed") drops the volume, its
//!   takes and what was open, and says so ([`Card::fault`]); it is mounted
//!   and scanned again when it comes back.
//!
//! Nothing is written to the card but what an upload or a delete asks for.

use core::fmt;
use core::ops::ControlFlow;
use core::slice::IterMut;

use hadris_fat::embedded::async_::Fat;
use hadris_fat::embedded::{Dir, File, MountToken};
use hadris_fs::{DirCursor, ErrorKind, OpenOptions, SeekFrom};
use hadris_io::Error;
use hadris_storage::async_::BlockDevice;
use heapless::{String, Vec};
use llv_core::control::MAX_TAKES;
use llv_core::packet::MAX_LEN;
use llv_core::take::{FrameEntry, ImageCheck, TakeError, TakeHeader, ENTRY_LEN, NAME_LEN};

use crate::names::{file_name, from_short, is_take_file, DIR, FILE_LEN, TEMP};

/// Open files at once: the take that plays, and an upload or a scanned take.
const FILES: usize = 2;
/// Bytes read per call while scanning.
const SCAN_READ: usize = 256;
/// Bytes scanned per [`Card::step`].
pub const SCAN_STEP: usize = 8 * 1024;

/// A block device that is a card slot: it tells a removal from other errors.
pub trait Slot: BlockDevice {
    /// Whether `e` means the card is not there.
    fn is_removal(e: &Self::Error) -> bool;
}

/// Why a card operation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CardError {
    /// No card, or none mounted.
    NoCard,
    /// The card was pulled out.
    Removed,
    /// The card failed (read, write, or its file system), with the driver's word.
    Io(ErrorKind),
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
    /// A chunk at another offset than the next expected one.
    Order {
        /// The next offset expected.
        expected: u32,
    },
    /// More bytes than announced.
    TooLong,
    /// Commit before all bytes arrived.
    Incomplete {
        /// Bytes received.
        received: u32,
        /// Bytes announced.
        total: u32,
    },
    /// The image is not a valid take.
    Image(TakeError),
    /// The image's name differs from the upload's, or its CRC from the announced one.
    NameMismatch,
    /// The take name is empty or longer than 32 bytes.
    BadName,
}

impl fmt::Display for CardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CardError::NoCard => f.write_str("no card in the box"),
            CardError::Removed => f.write_str("the card was pulled out"),
            CardError::Io(kind) => write!(f, "card error: {kind}"),
            CardError::NotFound => f.write_str("no take of that name on the card"),
            CardError::Full => write!(f, "{MAX_TAKES} takes on the card already"),
            CardError::NoSpace => f.write_str("the card is full"),
            CardError::Busy => f.write_str("another upload to the card is in progress"),
            CardError::NoUpload => f.write_str("no upload in progress"),
            CardError::Order { expected } => write!(f, "expected a chunk at offset {expected}"),
            CardError::TooLong => f.write_str("more bytes than announced"),
            CardError::Incomplete { received, total } => {
                write!(f, "received {received} of {total} bytes")
            }
            CardError::Image(e) => write!(f, "{e}"),
            CardError::NameMismatch => f.write_str("image name or CRC differs from the upload's"),
            CardError::BadName => write!(f, "name must be 1..={NAME_LEN} bytes"),
        }
    }
}

impl From<TakeError> for CardError {
    fn from(e: TakeError) -> Self {
        CardError::Image(e)
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
    /// In, but no FAT volume could be mounted.
    NoVolume(ErrorKind),
    /// Inserted more often since power-up than the box can mount.
    TooManyMounts,
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
            } => {
                write!(
                    f,
                    "card pulled out while \"{take}\" played: insert it again"
                )
            }
            CardFault::Removed { playing: None } => {
                f.write_str("card pulled out: its takes are back when it is in again")
            }
            CardFault::NoVolume(kind) => write!(f, "card: no FAT16/FAT32 volume ({kind})"),
            CardFault::TooManyMounts => {
                f.write_str("card inserted too often since power-up: restart the box")
            }
            CardFault::BadTake { file, why } => write!(f, "card: {DIR}/{file} not listed: {why}"),
            CardFault::Duplicate { file } => {
                write!(f, "card: {DIR}/{file} not listed: its name is taken")
            }
        }
    }
}

/// A take on the card that checked out.
#[derive(Clone, Debug)]
pub struct CardTake {
    /// Its header.
    pub header: TakeHeader,
    /// Its 8.3 file name in [`DIR`].
    pub file: String<FILE_LEN>,
    serial: u32,
}

/// A card take opened for the player.
#[derive(Clone, Debug)]
pub struct CardReader {
    header: TakeHeader,
    serial: u32,
    /// The next frame in order and its packet's offset in the image.
    next: (u32, u32),
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

struct Checking {
    file: String<FILE_LEN>,
    handle: File<'static>,
    check: ImageCheck,
}

struct Upload {
    id: u32,
    name: String<NAME_LEN>,
    crc32: u32,
    total: u32,
    received: u32,
    handle: File<'static>,
    check: ImageCheck,
}

enum Volume<D: Slot> {
    /// No volume mounted; `tried` once a mount failed (retried after a removal).
    Out { dev: D, tried: bool },
    In {
        fat: Fat<'static, D, FILES>,
        dir: Option<Dir>,
    },
    /// Only while changing from one to the other.
    Gone,
}

/// The card's take library.
pub struct Card<D: Slot> {
    volume: Volume<D>,
    tokens: IterMut<'static, MountToken>,
    takes: Vec<CardTake, MAX_TAKES>,
    /// Where the scan goes on in the folder, and the file it reads.
    scan: Option<(DirCursor, Option<Checking>)>,
    play: Option<(u32, File<'static>)>,
    upload: Option<Upload>,
    /// An aborted upload's file, closed at the next step.
    closing: Option<File<'static>>,
    fault: Option<CardFault>,
    serial: u32,
}

impl<D: Slot> Card<D> {
    /// The library of the card in `dev`, mounted at the first [`Card::step`]
    /// that finds it in; each mount takes one of `tokens` (one per insertion
    /// since power-up).
    pub fn new(dev: D, tokens: IterMut<'static, MountToken>) -> Self {
        Card {
            volume: Volume::Out { dev, tried: false },
            tokens,
            takes: Vec::new(),
            scan: None,
            play: None,
            upload: None,
            closing: None,
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
        matches!(self.volume, Volume::In { .. })
    }

    /// The background work, a piece at a time: with `present` (the slot has a
    /// card) and none mounted, mounts it; else scans the next piece of the
    /// folder ([`SCAN_STEP`] bytes at most) and closes what an aborted upload
    /// left open. A card found gone is dropped.
    pub async fn step(&mut self, present: bool) -> Scanned {
        match &mut self.volume {
            Volume::Out { tried, .. } => {
                if !present {
                    *tried = false;
                    return Scanned::Idle;
                }
                if *tried {
                    return Scanned::Idle;
                }
                self.mount().await;
                return Scanned::Reading;
            }
            Volume::In { .. } if !present => {
                self.lose(None);
                return Scanned::Idle;
            }
            Volume::In { .. } | Volume::Gone => {}
        }
        self.close_aborted().await;
        match self.scan_step().await {
            Ok(scanned) => scanned,
            Err(e) => {
                let _ = self.error(Failure::Fs(e), None);
                Scanned::Idle
            }
        }
    }

    async fn mount(&mut self) {
        let Volume::Out { dev, .. } = core::mem::replace(&mut self.volume, Volume::Gone) else {
            return;
        };
        let Some(token) = self.tokens.next() else {
            self.fault = Some(CardFault::TooManyMounts);
            self.volume = Volume::Out { dev, tried: true };
            return;
        };
        match Fat::mount(dev, token).await {
            Ok(mut fat) => {
                let dir = fat.open_dir(fat.root(), DIR).await.ok();
                self.volume = Volume::In { fat, dir };
                self.fault = None;
                self.takes.clear();
                self.scan = dir.map(|_| (DirCursor::START, None));
            }
            Err(e) => {
                let removed = e.error().device_error().is_some_and(D::is_removal);
                if !removed {
                    self.fault = Some(CardFault::NoVolume(e.kind()));
                }
                self.volume = Volume::Out {
                    dev: e.into_device(),
                    tried: !removed,
                };
            }
        }
    }

    async fn scan_step(&mut self) -> Result<Scanned, Error<D::Error>> {
        let Volume::In {
            fat,
            dir: Some(dir),
        } = &mut self.volume
        else {
            return Ok(Scanned::Idle);
        };
        let dir = *dir;
        let Some((cursor, current)) = &mut self.scan else {
            return Ok(Scanned::Idle);
        };
        let Some(checking) = current else {
            let mut found: Option<(String<FILE_LEN>, DirCursor)> = None;
            fat.list(dir, *cursor, |entry| {
                let file = from_short(&entry.short_name());
                if !entry.is_dir() && is_take_file(&file) {
                    found = Some((file, entry.next_cursor()));
                    return ControlFlow::Break(());
                }
                ControlFlow::Continue(())
            })
            .await?;
            let Some((file, next)) = found else {
                self.scan = None;
                return Ok(Scanned::Done);
            };
            *cursor = next;
            let handle = fat.open(dir, &file, OpenOptions::new().read()).await?;
            *current = Some(Checking {
                file,
                handle,
                check: ImageCheck::default(),
            });
            return Ok(Scanned::Reading);
        };
        let mut buf = [0u8; SCAN_READ];
        let mut read = 0;
        let mut end = false;
        while read < SCAN_STEP {
            let n = fat.read(&checking.handle, &mut buf).await?;
            if n == 0 {
                end = true;
                break;
            }
            read += n;
            if checking.check.update(&buf[..n]).is_err() {
                end = true;
                break;
            }
        }
        if !end {
            return Ok(Scanned::Reading);
        }
        let Some(Checking {
            file,
            handle,
            check,
        }) = current.take()
        else {
            return Ok(Scanned::Reading);
        };
        fat.close(handle).await?;
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
        if let Err(fault) = &verdict {
            self.fault = Some(fault.clone());
        }
        Ok(Scanned::Checked { file, verdict })
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
            })
    }

    /// Frame `index`'s entry and packet of `reader`'s take, read into `buf`
    /// (its length is the entry's). `NotFound` once the take was deleted or
    /// replaced, `Removed` once the card was pulled out.
    pub async fn packet(
        &mut self,
        reader: &mut CardReader,
        index: u32,
        buf: &mut [u8; MAX_LEN],
    ) -> Result<FrameEntry, CardError> {
        let found = self.takes.iter().find(|t| t.serial == reader.serial);
        let Some(file) = found.map(|t| t.file.clone()) else {
            return Err(if self.mounted() {
                CardError::NotFound
            } else {
                CardError::Removed
            });
        };
        if index >= reader.header.frame_count {
            return Err(CardError::NotFound);
        }
        let result = self.read_frame(reader, &file, index, buf).await;
        result.map_err(|e| {
            let playing = Some(reader.header.name.clone());
            self.error(e, playing)
        })
    }

    /// Frame `index`'s entry of `reader`'s take.
    pub async fn entry(
        &mut self,
        reader: &mut CardReader,
        index: u32,
    ) -> Result<FrameEntry, CardError> {
        let mut buf = [0u8; MAX_LEN];
        let next = reader.next;
        let entry = self.packet(reader, index, &mut buf).await?;
        reader.next = next;
        Ok(entry)
    }

    async fn read_frame(
        &mut self,
        reader: &mut CardReader,
        file: &str,
        index: u32,
        buf: &mut [u8; MAX_LEN],
    ) -> Result<FrameEntry, Failure<D::Error>> {
        if self.play.as_ref().is_none_or(|(s, _)| *s != reader.serial) {
            self.close_play().await?;
            let (fat, dir) = self.folder()?;
            let handle = fat.open(dir, file, OpenOptions::new().read()).await?;
            self.play = Some((reader.serial, handle));
        }
        if index != reader.next.0 {
            // Out of order: walk the entries from the start to find the offset.
            let mut offset = reader.header.packets_offset() as u32;
            for i in 0..index {
                let mut raw = [0u8; ENTRY_LEN];
                self.read_at(TakeHeader::entry_offset(i) as u32, &mut raw)
                    .await?;
                offset += u32::from(FrameEntry::parse(&raw, i)?.len);
            }
            reader.next = (index, offset);
        }
        let mut raw = [0u8; ENTRY_LEN];
        self.read_at(TakeHeader::entry_offset(index) as u32, &mut raw)
            .await?;
        let entry = FrameEntry::parse(&raw, index)?;
        let packet = &mut buf[..usize::from(entry.len)];
        self.read_at(reader.next.1, packet).await?;
        reader.next = (index + 1, reader.next.1 + u32::from(entry.len));
        Ok(entry)
    }

    /// Reads `buf.len()` bytes at `offset` of the file that plays.
    async fn read_at(&mut self, offset: u32, buf: &mut [u8]) -> Result<(), Failure<D::Error>> {
        let (Volume::In { fat, .. }, Some((_, handle))) = (&mut self.volume, &self.play) else {
            return Err(Failure::Card(CardError::NoCard));
        };
        fat.seek(handle, SeekFrom::Start(u64::from(offset)))?;
        let mut done = 0;
        while done < buf.len() {
            let n = fat.read(handle, &mut buf[done..]).await?;
            if n == 0 {
                return Err(Failure::Card(CardError::Image(TakeError::Inconsistent)));
            }
            done += n;
        }
        Ok(())
    }

    /// Starts an upload of the take `name` (`total_len` bytes, CRC `crc32`) to
    /// the temporary file; returns its id.
    pub async fn begin_upload(
        &mut self,
        name: &str,
        total_len: u32,
        crc32: u32,
    ) -> Result<u32, CardError> {
        if self.upload.is_some() {
            return Err(CardError::Busy);
        }
        self.close_aborted().await;
        let mut owned = String::new();
        if name.is_empty() || owned.push_str(name).is_err() {
            return Err(CardError::BadName);
        }
        let replaces = self.takes.iter().any(|t| t.header.name == name);
        if self.takes.is_full() && !replaces {
            return Err(CardError::Full);
        }
        let opened = self.open_temp().await;
        let handle = opened.map_err(|e| self.error(e, None))?;
        self.serial = self.serial.wrapping_add(1);
        self.upload = Some(Upload {
            id: self.serial,
            name: owned,
            crc32,
            total: total_len,
            received: 0,
            handle,
            check: ImageCheck::default(),
        });
        Ok(self.serial)
    }

    async fn open_temp(&mut self) -> Result<File<'static>, Failure<D::Error>> {
        let Volume::In { fat, dir } = &mut self.volume else {
            return Err(Failure::Card(CardError::NoCard));
        };
        let folder = match dir {
            Some(d) => *d,
            None => {
                let d = fat.create_dir(fat.root(), DIR).await?;
                *dir = Some(d);
                d
            }
        };
        let options = OpenOptions::new().write().create().truncate();
        Ok(fat.open(folder, TEMP, options).await?)
    }

    /// Writes the next chunk of upload `id` at image offset `offset`.
    pub async fn write_chunk(
        &mut self,
        id: u32,
        offset: u32,
        data: &[u8],
    ) -> Result<(), CardError> {
        let up = self.upload_of(id)?;
        if offset != up.received {
            return Err(CardError::Order {
                expected: up.received,
            });
        }
        if u64::from(offset) + data.len() as u64 > u64::from(up.total) {
            return Err(CardError::TooLong);
        }
        if let Err(e) = up.check.update(data) {
            self.abort_upload(id);
            return Err(e.into());
        }
        let written = self.write_upload(data).await;
        written.map_err(|e| {
            self.abort_upload(id);
            self.error(e, None)
        })?;
        if let Some(up) = self.upload.as_mut() {
            up.received += data.len() as u32;
        }
        Ok(())
    }

    async fn write_upload(&mut self, data: &[u8]) -> Result<(), Failure<D::Error>> {
        let (Volume::In { fat, .. }, Some(up)) = (&mut self.volume, &self.upload) else {
            return Err(Failure::Card(CardError::NoUpload));
        };
        let mut done = 0;
        while done < data.len() {
            done += fat.write(&up.handle, &data[done..]).await?;
        }
        Ok(())
    }

    /// Checks upload `id` and makes it a take (replacing the card take of the
    /// same name); returns its header.
    pub async fn commit_upload(&mut self, id: u32) -> Result<TakeHeader, CardError> {
        let up = self.upload_of(id)?;
        if up.received != up.total {
            return Err(CardError::Incomplete {
                received: up.received,
                total: up.total,
            });
        }
        let Some(up) = self.upload.take() else {
            return Err(CardError::NoUpload);
        };
        let header = match core::mem::take(&mut { up.check }).finish() {
            Ok(h) if h.name == up.name && h.crc32 == up.crc32 => h,
            Ok(_) => {
                self.closing = Some(up.handle);
                return Err(CardError::NameMismatch);
            }
            Err(e) => {
                self.closing = Some(up.handle);
                return Err(e.into());
            }
        };
        let old = self.takes.iter().position(|t| t.header.name == header.name);
        let file = match old {
            Some(i) => self.takes[i].file.clone(),
            None => file_name(&header.name, |f| self.takes.iter().any(|t| t.file == f)),
        };
        let replaced = old.map(|i| self.takes[i].serial);
        let done = self.publish(up.handle, &file, replaced).await;
        done.map_err(|e| self.error(e, None))?;
        if let Some(i) = old {
            self.takes.remove(i);
        }
        self.serial = self.serial.wrapping_add(1);
        // Room was checked at begin; the list cannot have grown since.
        let _ = self.takes.push(CardTake {
            header: header.clone(),
            file,
            serial: self.serial,
        });
        Ok(header)
    }

    /// Closes the temporary file and renames it to `file` (closing the
    /// take `replaced` if it plays).
    async fn publish(
        &mut self,
        handle: File<'static>,
        file: &str,
        replaced: Option<u32>,
    ) -> Result<(), Failure<D::Error>> {
        if replaced.is_some() && self.play.as_ref().map(|(s, _)| *s) == replaced {
            self.close_play().await?;
        }
        let (fat, dir) = self.folder()?;
        fat.close(handle).await?;
        fat.rename(dir, TEMP, dir, file).await?;
        fat.sync().await?;
        Ok(())
    }

    /// Whether upload `id` is in progress.
    pub fn uploading(&self, id: u32) -> bool {
        self.upload.as_ref().is_some_and(|u| u.id == id)
    }

    /// Drops upload `id` if it is in progress (its file is closed at the next step).
    pub fn abort_upload(&mut self, id: u32) {
        if self.uploading(id) {
            if let Some(up) = self.upload.take() {
                self.closing = Some(up.handle);
            }
        }
    }

    /// Deletes the card take `name`.
    pub async fn delete(&mut self, name: &str) -> Result<(), CardError> {
        let i = self
            .takes
            .iter()
            .position(|t| t.header.name == name)
            .ok_or(CardError::NotFound)?;
        let (serial, file) = (self.takes[i].serial, self.takes[i].file.clone());
        let removed = self.remove(serial, &file).await;
        removed.map_err(|e| self.error(e, None))?;
        self.takes.remove(i);
        Ok(())
    }

    /// Removes the take file `file` (closing it first if the take `serial` plays).
    async fn remove(&mut self, serial: u32, file: &str) -> Result<(), Failure<D::Error>> {
        if self.play.as_ref().is_some_and(|(s, _)| *s == serial) {
            self.close_play().await?;
        }
        let (fat, dir) = self.folder()?;
        fat.remove_file(dir, file).await?;
        fat.sync().await?;
        Ok(())
    }

    /// Unmounts (syncing) and gives the device back.
    pub async fn unmount(self) -> Result<D, CardError> {
        match self.volume {
            Volume::In { fat, .. } => fat.unmount().await.map_err(|e| CardError::Io(e.kind())),
            Volume::Out { dev, .. } => Ok(dev),
            Volume::Gone => Err(CardError::NoCard),
        }
    }

    /// The mounted volume and the takes' folder (if the card has one).
    fn volume(&mut self) -> Result<(&mut Fat<'static, D, FILES>, Option<Dir>), Failure<D::Error>> {
        match &mut self.volume {
            Volume::In { fat, dir } => Ok((fat, *dir)),
            _ => Err(Failure::Card(CardError::NoCard)),
        }
    }

    /// The mounted volume and the takes' folder.
    fn folder(&mut self) -> Result<(&mut Fat<'static, D, FILES>, Dir), Failure<D::Error>> {
        match self.volume()? {
            (fat, Some(dir)) => Ok((fat, dir)),
            _ => Err(Failure::Card(CardError::NotFound)),
        }
    }

    /// Closes what an aborted upload left open.
    async fn close_aborted(&mut self) {
        if let Some(file) = self.closing.take() {
            let closed = match self.volume() {
                Ok((fat, _)) => fat.close(file).await.map_err(Failure::Fs),
                Err(e) => Err(e),
            };
            if let Err(e) = closed {
                let _ = self.error(e, None);
            }
        }
    }

    /// Closes the file the player had open.
    async fn close_play(&mut self) -> Result<(), Failure<D::Error>> {
        if let Some((_, handle)) = self.play.take() {
            self.volume()?.0.close(handle).await?;
        }
        Ok(())
    }

    fn upload_of(&mut self, id: u32) -> Result<&mut Upload, CardError> {
        self.upload
            .as_mut()
            .filter(|u| u.id == id)
            .ok_or(CardError::NoUpload)
    }

    /// The error of a failed operation; a removal drops the volume.
    fn error(&mut self, e: Failure<D::Error>, playing: Option<String<NAME_LEN>>) -> CardError {
        match e {
            Failure::Card(e) => e,
            Failure::Fs(e) => {
                if e.device_error().is_some_and(D::is_removal) {
                    self.lose(playing);
                    return CardError::Removed;
                }
                match e.kind() {
                    ErrorKind::NoSpace => CardError::NoSpace,
                    kind => CardError::Io(kind),
                }
            }
        }
    }

    /// The card is gone: drops the volume and all that was open on it.
    fn lose(&mut self, playing: Option<String<NAME_LEN>>) {
        if let Volume::In { fat, .. } = core::mem::replace(&mut self.volume, Volume::Gone) {
            self.volume = Volume::Out {
                dev: fat.into_inner(),
                tried: false,
            };
        }
        self.takes.clear();
        self.scan = None;
        self.play = None;
        self.upload = None;
        self.closing = None;
        self.fault = Some(CardFault::Removed { playing });
    }
}

/// A failed operation: the file system's error, or one of ours.
enum Failure<E> {
    Fs(Error<E>),
    Card(CardError),
}

impl<E> From<Error<E>> for Failure<E> {
    fn from(e: Error<E>) -> Self {
        Failure::Fs(e)
    }
}

impl<E> From<TakeError> for Failure<E> {
    fn from(e: TakeError) -> Self {
        Failure::Card(CardError::Image(e))
    }
}
