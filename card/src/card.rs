//! The card's take library ([`Card`]): a card that comes in is mounted and
//! scanned ([`crate::scan`]) a piece per [`Card::step`]; the player reads
//! frames with [`Card::packet`], following a take's clusters and awaiting
//! each block; uploads ([`crate::upload`]) and deletes write a block at a
//! time too, so nothing the card does holds the executor.
//!
//! - A replacement is a new file; the old one is deleted after the commit,
//!   and the new one takes its 8.3 name.
//!   A take whose file is read-only (set on a computer) is neither replaced
//!   nor deleted: the error names the file.
//! - An upload dropped before its commit leaves its file to be deleted at
//!   the next [`Card::step`] (or [`Card::close`]).
//! - A card pulled out (the driver answers "removed") drops the volume, its
//!   takes and what was open, and says so ([`Card::fault`]); it is mounted
//!   and scanned again when it comes back.
//! - Mounted for reading ([`Mode::Read`]), the card is never written: an
//!   upload cut short is reported, not removed.

use embassy_time::{Duration, Instant};
use heapless::{String, Vec};
use llv_core::packet::MAX_LEN;
use llv_core::take::{
    FrameEntry, TakeError, TakeHeader, Upload as Contract, UploadError, ENTRY_LEN, NAME_LEN,
};

use crate::convert::{Convert, Stage, PER_STEP, PIECE};
use crate::dir::{rename, Cursor};
use crate::error::{CardError, CardFault, Failure, SHORT};
use crate::fat::{read_chain, Chain, Dir, Volume};
use crate::index::{name_hash, read_header, CardTake, Index};
use crate::journal::{journal_number, live_name, Journal, Split};
use crate::mount::{MountError, Mounted};
use crate::names::{from_short, FILE_LEN};
use crate::port::{BlockError, CardDriver, CardPort, BLOCK};
use crate::scan::{Scan, Step};
use crate::upload::Writer;

/// How often the slot is asked whether a card is in while none is mounted
/// or its scan is over (a read that finds it gone says so at once).
pub const LOOK_EVERY: Duration = Duration::from_millis(250);
/// Bad files the card names (it counts them all).
pub const BAD_NAMED: usize = 4;

/// Whether the card may be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Never written (`llv card list` and `check`).
    Read,
    /// Written by uploads and deletes; uploads cut short are removed at the
    /// mount (the box, `llv card write` and `repair`).
    Write,
}

/// What one step of the card's background work did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scanned {
    /// Nothing to scan (no card, or scanned through).
    Idle,
    /// Part of the card was read (or written, tidying up).
    Reading,
    /// A file was read whole: its verdict (listed, or why not).
    Checked {
        /// The 8.3 file name.
        file: String<FILE_LEN>,
        /// The take's header, or why it is not listed.
        verdict: Result<TakeHeader, CardFault>,
    },
    /// An upload cut short was removed.
    Removed {
        /// The 8.3 file name it had.
        file: String<FILE_LEN>,
    },
    /// Scanned through: every take on the card is listed.
    Done,
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

/// The files of this mount that did not check out: how many, and the first few.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BadFiles {
    /// How many.
    pub count: u32,
    /// The first [`BAD_NAMED`] of them.
    pub names: Vec<String<FILE_LEN>, BAD_NAMED>,
}

/// An upload in progress: the contract and the file.
struct Uploading {
    id: u32,
    contract: Contract,
    writer: Writer,
}

/// The card's take library.
pub struct Card<D: CardDriver> {
    port: &'static CardPort<D>,
    mode: Mode,
    mounted: Option<Mounted>,
    /// A mount failed on the card that is in (not tried again until it is
    /// pulled out).
    tried: bool,
    looked: Option<Instant>,
    index: Index,
    scan: Option<Scan>,
    upload: Option<Uploading>,
    /// The entry of a dropped upload's file, deleted at the next step.
    discard: Option<u32>,
    /// The live recording's journal.
    recording: Option<Journal>,
    /// A journal being made a take.
    convert: Option<Convert>,
    fault: Option<CardFault>,
    bad: BadFiles,
    next_id: u32,
}

impl<D: CardDriver> Card<D> {
    /// The library of the card in `port` (the box's: written by uploads and
    /// deletes), mounted at the first [`Card::step`] that finds it in.
    pub fn new(port: &'static CardPort<D>) -> Self {
        Self::with_mode(port, Mode::Write)
    }

    /// The library of the card in `port`, mounted for `mode`.
    pub fn with_mode(port: &'static CardPort<D>, mode: Mode) -> Self {
        Card {
            port,
            mode,
            mounted: None,
            tried: false,
            looked: None,
            index: Index::new(),
            scan: None,
            upload: None,
            discard: None,
            recording: None,
            convert: None,
            fault: None,
            bad: BadFiles::default(),
            next_id: 0,
        }
    }

    /// The takes that checked out, in the order found (uploads last).
    pub fn takes(&self) -> &[CardTake] {
        self.index.takes()
    }

    /// Changes whenever a take is listed or unlisted.
    pub fn revision(&self) -> u32 {
        self.index.revision()
    }

    /// What is wrong, for `Status` (the latest).
    pub fn fault(&self) -> Option<&CardFault> {
        self.fault.as_ref()
    }

    /// The files of this mount that did not check out.
    pub fn bad_files(&self) -> &BadFiles {
        &self.bad
    }

    /// Whether a volume is mounted and its scan is not over.
    pub fn scanning(&self) -> bool {
        self.scan.is_some() && self.mounted.is_some()
    }

    /// The slot, when the next [`Card::step`] would ask it whether a card is
    /// in with none mounted (which may initialise a card, up to its
    /// power-up): have it [`CardPort::look`] first, outside whatever lock
    /// holds this card, and the step takes that answer.
    pub fn slot_to_look_at(&self) -> Option<&'static CardPort<D>> {
        let look = self.looked.is_none_or(|at| at.elapsed() >= LOOK_EVERY);
        (look && self.discard.is_none() && self.mounted.is_none()).then_some(self.port)
    }

    /// Whether a volume is mounted.
    pub fn mounted(&self) -> bool {
        self.mounted.is_some()
    }

    /// The header of take `i` of [`Card::takes`] (read from the card).
    pub async fn header(&mut self, i: usize) -> Result<TakeHeader, CardError> {
        let first = self.takes().get(i).map(|t| t.first);
        let (first, vol) = first.zip(self.vol()).ok_or(CardError::NotFound)?;
        let read = read_header(self.port, &vol, first).await;
        read.map_err(|e| self.error(e, None))
    }

    /// The 8.3 name of take `i`'s file in the takes' folder.
    pub async fn file(&mut self, i: usize) -> Result<String<FILE_LEN>, CardError> {
        let entry = self.takes().get(i).map(|t| t.entry);
        let found = match (entry, self.folder(), self.mounted.as_ref()) {
            (Some(index), Ok(dir), Some(m)) => m.entry(self.port, dir, index).await,
            _ => return Err(CardError::NotFound),
        };
        match found.map_err(|e| self.error(e, None))? {
            Some(e) => Ok(crate::names::from_short(&e.short)),
            None => Err(CardError::Damaged),
        }
    }

    /// Where the take `name` is in [`Card::takes`], if it is listed.
    pub async fn find(&mut self, name: &str) -> Result<Option<usize>, CardError> {
        let Some(vol) = self.vol() else {
            return Ok(None);
        };
        let hash = name_hash(name);
        // Names that hash alike are rare: confirmed by the header.
        let mut candidates: Vec<(usize, u32), 4> = Vec::new();
        for i in self.index.with_hash(hash) {
            if let Some(t) = self.index.takes().get(i) {
                let _ = candidates.push((i, t.first));
            }
        }
        for (i, first) in candidates {
            let header = read_header(self.port, &vol, first).await;
            if header.map_err(|e| self.error(e, None))?.name == name {
                return Ok(Some(i));
            }
        }
        Ok(None)
    }

    /// A reader for the card take `name`.
    pub async fn reader(&mut self, name: &str) -> Result<CardReader, CardError> {
        let i = self.find(name).await?.ok_or(CardError::NotFound)?;
        let header = self.header(i).await?;
        let t = self.takes().get(i).ok_or(CardError::NotFound)?;
        Ok(CardReader {
            next: (0, header.packets_offset() as u32),
            header,
            serial: t.serial,
            entries: Chain::new(t.first, t.straight),
            packets: Chain::new(t.first, t.straight),
        })
    }

    /// The background work, a piece at a time: with a card in and none
    /// mounted, mounts it; deletes what a dropped upload left; else scans
    /// the next piece of the folder. Once scanned, the card is read (block
    /// 0) every [`LOOK_EVERY`] to find it gone when nothing plays from it;
    /// a card found gone is dropped.
    pub async fn step(&mut self) -> Scanned {
        if self.discard.is_some() && self.mounted.is_some() {
            if let Err(e) = self.tidy().await {
                let _ = self.error(e, None);
            }
            return Scanned::Reading;
        }
        if self.convert.is_some() && self.mounted.is_some() {
            return self.convert_step().await;
        }
        let look = self.looked.is_none_or(|at| at.elapsed() >= LOOK_EVERY);
        if !self.scanning() && look {
            self.looked = Some(Instant::now());
            let here = if self.mounted.is_some() {
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
        let busy = self.busy();
        let repair = self.mode == Mode::Write;
        let (Some(scan), Some(m)) = (self.scan.as_mut(), self.mounted.as_mut()) else {
            return Scanned::Idle;
        };
        let step = scan
            .step(self.port, m, &mut self.index, &busy, repair)
            .await;
        match step {
            Ok(Step::Reading) => Scanned::Reading,
            Ok(Step::Done) => {
                self.scan = None;
                Scanned::Done
            }
            Ok(Step::Removed { file }) => Scanned::Removed { file },
            Ok(Step::Journal { entry }) => {
                self.convert = Some(Convert::new(entry));
                Scanned::Reading
            }
            Ok(Step::Checked { file, verdict }) => {
                if let Err(fault) = &verdict {
                    self.bad.count += 1;
                    let _ = self.bad.names.push(file.clone());
                    self.fault = Some(fault.clone());
                }
                Scanned::Checked { file, verdict }
            }
            Err(e) => {
                let _ = self.error(e, None);
                Scanned::Idle
            }
        }
    }

    async fn mount(&mut self) {
        self.tried = true;
        let blocks = self.port.blocks().await;
        match Mounted::mount(self.port, blocks).await {
            Ok(m) => {
                self.scan = m.folder.map(Scan::new);
                self.mounted = Some(m);
                self.fault = None;
                self.bad = BadFiles::default();
                self.index.clear();
            }
            Err(MountError::Block(BlockError::Removed)) => self.forget(),
            Err(MountError::Block(BlockError::Failed)) => {
                self.forget();
                self.fault = Some(CardFault::Unreadable);
            }
            Err(MountError::Volume(why)) => {
                self.forget();
                self.fault = Some(CardFault::NoVolume(why));
            }
        }
    }

    /// The entries the scan passes over: the files being written or to be
    /// deleted, the journal being recorded or made a take.
    fn busy(&self) -> [Option<u32>; 4] {
        [
            self.upload.as_ref().map(|u| u.writer.entry),
            self.discard,
            self.recording.as_ref().map(|j| j.entry),
            self.convert.as_ref().map(|c| c.journal.index),
        ]
    }

    /// Deletes the file a dropped upload left.
    async fn tidy(&mut self) -> Result<(), Failure> {
        let Some(index) = self.discard.take() else {
            return Ok(());
        };
        let dir = self.folder()?;
        let Some(m) = self.mounted.as_mut() else {
            return Ok(());
        };
        if let Some(entry) = m.entry(self.port, dir, index).await? {
            m.delete(self.port, dir, &entry).await?;
        }
        Ok(())
    }

    fn vol(&self) -> Option<Volume> {
        self.mounted.as_ref().map(|m| m.vol)
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
        let vol = self.playable(reader, index)?;
        let result = read_frame(self.port, &vol, reader, index, buf).await;
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
        let vol = self.playable(reader, index)?;
        let mut raw = [0u8; ENTRY_LEN];
        let at = TakeHeader::entry_offset(index) as u32;
        let read = read_chain(self.port, &vol, &mut reader.entries, at, &mut raw).await;
        let entry = read.and_then(|()| Ok(FrameEntry::parse(&raw, index)?));
        entry.map_err(|e| {
            let playing = Some(reader.header.name.clone());
            self.error(e, playing)
        })
    }

    /// The volume to read frame `index` of `reader`'s take from, if the
    /// take is still on the card and has that frame.
    fn playable(&mut self, reader: &CardReader, index: u32) -> Result<Volume, CardError> {
        if !self.index.has_serial(reader.serial) {
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
        self.vol().ok_or(CardError::Removed)
    }

    /// Starts an upload of the take `name` (`total_len` bytes, CRC `crc32`)
    /// to a new file; returns its id.
    pub async fn begin_upload(
        &mut self,
        name: &str,
        total_len: u32,
        crc32: u32,
    ) -> Result<u32, CardError> {
        if self.mode == Mode::Read {
            return Err(CardError::ReadOnlyMount);
        }
        if self.upload.is_some() {
            return Err(CardError::Busy);
        }
        let contract = Contract::begin(name, total_len, crc32)?;
        self.tidy().await.map_err(|e| self.error(e, None))?;
        let replaces = self.find(name).await?;
        if let Some(i) = replaces {
            self.writable(i).await?;
        }
        if self.index.is_full() && replaces.is_none() {
            return Err(CardError::Full);
        }
        let begun = self.open_new(name, total_len).await;
        let writer = begun.map_err(|e| self.error(e, None))?;
        self.next_id = self.next_id.wrapping_add(1);
        self.upload = Some(Uploading {
            id: self.next_id,
            contract,
            writer,
        });
        Ok(self.next_id)
    }

    /// The folder (made if the card has none) and a new file in it for `name`.
    async fn open_new(&mut self, name: &str, total_len: u32) -> Result<Writer, Failure> {
        let m = self.mounted.as_mut().ok_or(CardError::NoCard)?;
        if let Some(free) = m.info.free {
            let room = u64::from(free) * u64::from(m.vol.cluster_bytes());
            if u64::from(total_len) > room {
                return Err(Failure::Card(CardError::NoSpace));
            }
        }
        let dir = m.folder_or_make(self.port).await?;
        Writer::begin(self.port, m, dir, name).await
    }

    /// Refuses to change take `i` when its file is read-only.
    async fn writable(&mut self, i: usize) -> Result<(), CardError> {
        let entry = self.takes().get(i).map(|t| t.entry);
        let found = match (entry, self.folder(), self.mounted.as_ref()) {
            (Some(index), Ok(dir), Some(m)) => m.entry(self.port, dir, index).await,
            _ => return Err(CardError::NotFound),
        };
        let entry = found.map_err(|e| self.error(e, None))?;
        match entry {
            Some(e) if e.is_read_only() => Err(CardError::ReadOnly {
                file: crate::names::from_short(&e.short),
            }),
            Some(_) => Ok(()),
            None => Err(CardError::Damaged),
        }
    }

    /// Writes the next chunk of upload `id` at image offset `offset`.
    pub async fn write_chunk(
        &mut self,
        id: u32,
        offset: u32,
        data: &[u8],
    ) -> Result<(), CardError> {
        let dir = self.folder().map_err(|e| self.error(e, None))?;
        let (Some(up), Some(m)) = (
            self.upload.as_mut().filter(|u| u.id == id),
            self.mounted.as_mut(),
        ) else {
            return Err(CardError::NoUpload);
        };
        if let Err(e) = up.contract.chunk(offset, data) {
            if e.is_fatal() {
                self.abort_upload(id);
            }
            return Err(e.into());
        }
        if let Err(e) = up.writer.write(self.port, m, dir, data).await {
            let e = self.error(e, None);
            self.abort_upload(id);
            return Err(e);
        }
        Ok(())
    }

    /// Checks upload `id` and makes it a take (replacing the card take of the
    /// same name); returns its header.
    pub async fn commit_upload(&mut self, id: u32) -> Result<TakeHeader, CardError> {
        let up = self
            .upload
            .as_ref()
            .filter(|u| u.id == id)
            .ok_or(CardError::NoUpload)?;
        if !up.contract.is_complete() {
            return Err(CardError::Upload(UploadError::Incomplete {
                received: up.contract.received(),
                total: up.contract.total(),
            }));
        }
        let Some(Uploading {
            contract,
            mut writer,
            ..
        }) = self.upload.take()
        else {
            return Err(CardError::NoUpload);
        };
        let (entry, file) = (writer.entry, writer.file.clone());
        let header = match contract.finish() {
            Ok(h) => h,
            Err(e) => {
                self.discard = Some(entry);
                return Err(e.into());
            }
        };
        let old = self.find(&header.name).await?;
        let old = old
            .and_then(|i| self.takes().get(i))
            .map(|t| (t.serial, t.entry));
        // The writer stays in this future; publish and the commit borrow it
        // (moved into them, each future would hold a copy of its block).
        let done = self.publish(&mut writer, header, old.map(|o| o.1)).await;
        let committed = match done {
            Ok(c) => c,
            Err(e) => {
                self.discard = Some(entry);
                return Err(self.error(e, None));
            }
        };
        if let Some((serial, _)) = old {
            if let Some(i) = self.takes().iter().position(|t| t.serial == serial) {
                self.index.remove(i);
            }
        }
        let hash = name_hash(&committed.header.name);
        // Room was checked at begin; the index cannot have grown since but by the scan.
        if !self
            .index
            .push(hash, committed.first, committed.straight, committed.entry)
        {
            self.fault = Some(CardFault::TooMany { file });
        }
        Ok(committed.header)
    }

    /// Commits `writer`'s file and deletes the replaced take's (`replaced`, its entry).
    async fn publish(
        &mut self,
        writer: &mut Writer,
        header: TakeHeader,
        replaced: Option<u32>,
    ) -> Result<crate::upload::Committed, Failure> {
        let dir = self.folder()?;
        let m = self.mounted.as_mut().ok_or(CardError::NoCard)?;
        let committed = writer.commit(self.port, m, dir, header).await?;
        if let Some(index) = replaced {
            if let Some(old) = m.entry(self.port, dir, index).await? {
                m.delete(self.port, dir, &old).await?;
                // The take keeps its file name (a cut before this leaves
                // the new file under its own name, as good).
                rename(self.port, &m.vol, dir, committed.entry, &old.short).await?;
            }
        }
        Ok(committed)
    }

    /// Whether upload `id` is in progress.
    pub fn uploading(&self, id: u32) -> bool {
        self.upload.as_ref().is_some_and(|u| u.id == id)
    }

    /// Drops upload `id` if it is in progress; its file is deleted at the
    /// next [`Card::step`].
    pub fn abort_upload(&mut self, id: u32) {
        if !self.uploading(id) {
            return;
        }
        if let Some(up) = self.upload.take() {
            self.discard = Some(up.writer.entry);
        }
    }

    /// Deletes the card take `name`.
    pub async fn delete(&mut self, name: &str) -> Result<(), CardError> {
        if self.mode == Mode::Read {
            return Err(CardError::ReadOnlyMount);
        }
        self.tidy().await.map_err(|e| self.error(e, None))?;
        let i = self.find(name).await?.ok_or(CardError::NotFound)?;
        self.writable(i).await?;
        let index = self.takes().get(i).map(|t| t.entry);
        let dir = self.folder().map_err(|e| self.error(e, None))?;
        let (Some(index), Some(m)) = (index, self.mounted.as_mut()) else {
            return Err(CardError::NotFound);
        };
        let deleted = async {
            let entry = m.entry(self.port, dir, index).await?;
            let entry = entry.ok_or(CardError::Damaged)?;
            m.delete(self.port, dir, &entry).await
        };
        deleted.await.map_err(|e| self.error(e, None))?;
        self.index.remove(i);
        Ok(())
    }

    /// Deletes what a dropped upload left, writes what is pending, and
    /// gives the port back.
    pub async fn close(mut self) -> &'static CardPort<D> {
        if let Some(up) = self.upload.take() {
            self.discard = Some(up.writer.entry);
        }
        let _ = self.end_recording().await;
        let _ = self.tidy().await;
        if let Some(m) = self.mounted.as_mut() {
            let _ = m.settle(self.port).await;
        }
        self.port
    }

    /// Starts recording the live stream to a new journal (made a take when
    /// the recording ends); returns the take's name (`live-0001`, the first
    /// number no journal or take of the card has).
    pub async fn begin_recording(&mut self) -> Result<String<NAME_LEN>, CardError> {
        if self.mode == Mode::Read {
            return Err(CardError::ReadOnlyMount);
        }
        if self.recording.is_some() {
            return Err(CardError::Busy);
        }
        let journal = self.open_journal().await;
        let journal = journal.map_err(|e| self.error(e, None))?;
        let name = journal.name.clone();
        self.recording = Some(journal);
        Ok(name)
    }

    /// A new journal, numbered past every other.
    async fn open_journal(&mut self) -> Result<Journal, Failure> {
        let number = self.free_number().await?;
        let m = self.mounted.as_mut().ok_or(CardError::NoCard)?;
        let dir = m.folder_or_make(self.port).await?;
        Journal::begin(self.port, m, dir, number).await
    }

    /// The first recording number past every journal's in the folder whose
    /// take name no listed take has.
    async fn free_number(&mut self) -> Result<u16, Failure> {
        let mut n = 1u16;
        if let (Ok(dir), Some(m)) = (self.folder(), self.mounted.as_ref()) {
            let mut cursor = Cursor::new(dir);
            while let Some(e) = cursor.next(self.port, &m.vol).await? {
                if let Some(k) = journal_number(&from_short(&e.short)) {
                    n = n.max(k.saturating_add(1));
                }
            }
        }
        while n <= 9999 {
            if self.find(&live_name(n)).await?.is_none() {
                return Ok(n);
            }
            n += 1;
        }
        Err(Failure::Card(CardError::Full))
    }

    /// Appends the next frame to the live recording, its record's two
    /// blocks written by `fill` (as [`crate::journal::record_block`] does);
    /// a frame that starts a new take ends this journal and goes into the
    /// next. `Ok(false)`: not written (not a frame's record).
    pub async fn record(
        &mut self,
        mut fill: impl FnMut(usize, &mut [u8; BLOCK]),
    ) -> Result<bool, CardError> {
        let appended = self.append(&mut fill).await;
        appended.map_err(|e| self.error(e, None))
    }

    async fn append(
        &mut self,
        fill: &mut impl FnMut(usize, &mut [u8; BLOCK]),
    ) -> Result<bool, Failure> {
        let dir = self.folder()?;
        for _ in 0..2 {
            let (Some(journal), Some(m)) = (self.recording.as_mut(), self.mounted.as_mut()) else {
                return Err(Failure::Card(CardError::NotRecording));
            };
            match journal.append(self.port, m, dir, &mut *fill).await? {
                Ok(written) => return Ok(written),
                Err(Split) => {
                    journal.end(self.port, m, dir).await?;
                    self.recording = None;
                    self.rescan();
                    let next = self.open_journal().await?;
                    self.recording = Some(next);
                }
            }
        }
        Ok(false)
    }

    /// Brings the live recording's size on the card up to date when it is
    /// due (the phone may pause: what came before is kept all the same).
    pub async fn sync_recording(&mut self) -> Result<(), CardError> {
        let synced = async {
            let dir = self.folder()?;
            match (self.recording.as_mut(), self.mounted.as_mut()) {
                (Some(journal), Some(m)) => journal.sync_due(self.port, m, dir).await,
                _ => Ok(()),
            }
        };
        synced.await.map_err(|e| self.error(e, None))
    }

    /// The live recording: its take's name, frames and bytes on the card.
    pub fn recording(&self) -> Option<(&str, u32, u32)> {
        let j = self.recording.as_ref()?;
        Some((j.name.as_str(), j.frames(), j.bytes()))
    }

    /// Ends the live recording: its journal's size written, and the card
    /// scanned again, which makes the journal a take.
    pub async fn end_recording(&mut self) -> Result<(), CardError> {
        let Some(mut journal) = self.recording.take() else {
            return Ok(());
        };
        let ended = async {
            let dir = self.folder()?;
            let m = self.mounted.as_mut().ok_or(CardError::NoCard)?;
            journal.end(self.port, m, dir).await
        };
        ended.await.map_err(|e| self.error(e, None))?;
        self.rescan();
        Ok(())
    }

    /// Scans the folder again (what is listed stays; journals are made takes).
    fn rescan(&mut self) {
        if let Ok(dir) = self.folder() {
            self.scan = Some(Scan::new(dir));
            self.bad = BadFiles::default();
        }
    }

    /// One piece of making a journal a take.
    async fn convert_step(&mut self) -> Scanned {
        let Some(mut convert) = self.convert.take() else {
            return Scanned::Idle;
        };
        let file = from_short(&convert.journal.short);
        match self.advance(&mut convert).await {
            Ok(Some(header)) => Scanned::Checked {
                file,
                verdict: Ok(header),
            },
            Ok(None) => {
                self.convert = Some(convert);
                Scanned::Reading
            }
            // An upload of the box's own is in progress: its turn first.
            Err(CardError::Busy) => {
                self.convert = Some(convert);
                Scanned::Idle
            }
            Err(e) => {
                if let Stage::Write { id } = convert.stage {
                    self.abort_upload(id);
                }
                let why = match e {
                    CardError::Full => {
                        self.fault = Some(CardFault::TooMany { file: file.clone() });
                        return Scanned::Reading;
                    }
                    CardError::Image(why) => why,
                    CardError::Upload(UploadError::Image(why)) => why,
                    _ => return Scanned::Reading,
                };
                self.bad.count += 1;
                let _ = self.bad.names.push(file.clone());
                let fault = CardFault::BadTake {
                    file: file.clone(),
                    why,
                };
                self.fault = Some(fault.clone());
                Scanned::Checked {
                    file,
                    verdict: Err(fault),
                }
            }
        }
    }

    /// The next piece of `c`; its take's header once made.
    async fn advance(&mut self, c: &mut Convert) -> Result<Option<TakeHeader>, CardError> {
        let vol = self.vol().ok_or(CardError::NoCard)?;
        let port = self.port;
        let mut out = [0u8; PIECE];
        match c.stage {
            Stage::Open => {
                let opened = c.open(port, &vol).await;
                if !opened.map_err(|e| self.error(e, None))? {
                    return Err(CardError::Image(TakeError::BadMagic));
                }
                c.stage = Stage::Count;
            }
            Stage::Count => {
                let counted = c.count(port, &vol).await;
                if counted.map_err(|e| self.error(e, None))? {
                    c.rewind();
                    c.stage = if c.frames() == 0 {
                        Stage::Delete
                    } else {
                        Stage::Crc
                    };
                }
            }
            Stage::Crc => {
                for _ in 0..PER_STEP {
                    if c.streamed() {
                        break;
                    }
                    let piece = c.piece(port, &vol, &mut out).await;
                    piece.map_err(|e| self.error(e, None))?;
                }
                if c.streamed() {
                    c.finish_crc();
                    self.start_writing(c).await?;
                }
            }
            Stage::Write { id } => {
                for _ in 0..PER_STEP {
                    let piece = c.piece(port, &vol, &mut out).await;
                    let (at, n) = piece.map_err(|e| self.error(e, None))?;
                    let Some(data) = out.get(..n).filter(|d| !d.is_empty()) else {
                        break;
                    };
                    self.write_chunk(id, at, data).await?;
                }
                if c.streamed() {
                    self.commit_upload(id).await?;
                    c.stage = Stage::Delete;
                }
            }
            Stage::Delete => {
                let deleted = async {
                    let dir = self.folder()?;
                    let m = self.mounted.as_mut().ok_or(CardError::NoCard)?;
                    if let Some(e) = m.entry(port, dir, c.journal.index).await? {
                        m.delete(port, dir, &e).await?;
                    }
                    Ok(())
                };
                deleted.await.map_err(|e| self.error(e, None))?;
                return Ok(Some(c.header()));
            }
        }
        Ok(None)
    }

    /// With the CRC streamed: the upload begun, or, when a take of the
    /// name is listed, the journal deleted (the same image: made before a
    /// cut) or its take renamed and its CRC streamed again.
    async fn start_writing(&mut self, c: &mut Convert) -> Result<(), CardError> {
        if let Some(i) = self.find(&c.name).await? {
            let listed = self.header(i).await?;
            if listed.crc32 == c.crc32 && listed.total_len == c.total() {
                c.stage = Stage::Delete;
                return Ok(());
            }
            let n = self.free_number().await.map_err(|e| self.error(e, None))?;
            c.name = live_name(n);
            c.rewind();
            c.stage = Stage::Crc;
            return Ok(());
        }
        let id = self.begin_upload(&c.name, c.total(), c.crc32).await?;
        c.rewind();
        c.stage = Stage::Write { id };
        Ok(())
    }

    /// The takes' folder.
    fn folder(&self) -> Result<Dir, Failure> {
        match &self.mounted {
            Some(Mounted {
                folder: Some(d), ..
            }) => Ok(*d),
            Some(_) => Err(Failure::Card(CardError::NotFound)),
            None => Err(Failure::Card(CardError::NoCard)),
        }
    }

    /// The error of a failed operation; a removal drops the volume.
    fn error(&mut self, e: Failure, playing: Option<String<NAME_LEN>>) -> CardError {
        match e {
            Failure::Card(e) => e,
            Failure::Block(BlockError::Removed) => {
                self.lose(playing);
                CardError::Removed
            }
            Failure::Block(BlockError::Failed) => CardError::Io,
        }
    }

    /// Forgets the volume and all that was open on it.
    fn forget(&mut self) {
        self.mounted = None;
        self.index.clear();
        self.scan = None;
        self.upload = None;
        self.discard = None;
        self.recording = None;
        self.convert = None;
    }

    /// The card is gone: forgets the volume and says so.
    fn lose(&mut self, playing: Option<String<NAME_LEN>>) {
        self.forget();
        self.tried = false;
        self.fault = Some(CardFault::Removed { playing });
    }
}

/// Frame `index` of `reader`'s take: its entry, and its packet in `buf`.
async fn read_frame<D: CardDriver>(
    port: &CardPort<D>,
    vol: &Volume,
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
            read_chain(port, vol, &mut reader.entries, at, piece).await?;
            for chunk in piece.chunks_exact(ENTRY_LEN) {
                offset += u32::from(FrameEntry::parse(chunk, i)?.len);
                i += 1;
            }
        }
        reader.next = (index, offset);
    }
    let mut raw = [0u8; ENTRY_LEN];
    let at = TakeHeader::entry_offset(index) as u32;
    read_chain(port, vol, &mut reader.entries, at, &mut raw).await?;
    let entry = FrameEntry::parse(&raw, index)?;
    let packet = buf.get_mut(..usize::from(entry.len)).ok_or(SHORT)?;
    read_chain(port, vol, &mut reader.packets, reader.next.1, packet).await?;
    reader.next = (index + 1, reader.next.1 + u32::from(entry.len));
    Ok(entry)
}
