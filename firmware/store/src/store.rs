//! The take store: mount, list, streamed upload, delete, capacity, settings.
//!
//! Safety against power cuts and dropped uploads rests on four rules (layout in
//! `layout.rs` and `docs/take-image.md`): an extent's blocks are erased before
//! anything is written to them; its commit record is written only after the
//! image read back from flash checks out; an image may not hold a begin record
//! at an inner block boundary (so a deleted take's blocks never look like a
//! take); a take is deleted by erasing its first block. At mount, only extents
//! with a valid begin record, the matching commit record and an image whose CRC
//! checks out are takes; every other block is free (and is erased before
//! reuse). A unit that cannot be read (on the STM32H7, a word whose program or
//! erase a power cut tore reads as an ECC error) counts as torn: its block is free.
//!
//! Mount never fails: a region the flash cannot hold gives an empty store that
//! refuses every write, and a newest settings record this firmware cannot read
//! leaves the settings at their defaults and locked until reset. [`Store::fault`]
//! says which.

use core::fmt;

use embedded_storage_async::nor_flash::NorFlash;
use heapless::{String, Vec};
use llv_core::control::{Place, TakeInfo, MAX_TAKES};
use llv_core::settings::Settings;
use llv_core::take::{ImageCheck, TakeError, TakeHeader, UploadError, HEADER_LEN, NAME_LEN};

use crate::layout::{Begin, COMMIT_AT, IMAGE_AT, SETTINGS_BLOCKS, UNIT};
use crate::settings_log::{Log, SaveError, Unreadable, RECORD_MAX};

/// Bytes read per flash read while checking an image.
const READ_CHUNK: usize = 256;
/// While checking an image, let other tasks run after this many bytes.
const YIELD_EVERY: usize = 2 * 1024;

/// Why a store operation failed.
#[derive(Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum StoreError<E> {
    /// The flash failed.
    Flash(E),
    /// The store is unusable (see [`Store::fault`]).
    Unusable,
    /// The stored settings could not be read: they change only by a reset.
    SettingsLocked,
    /// No take of that name.
    NotFound,
    /// [`MAX_TAKES`] takes are stored already.
    Full,
    /// No run of free blocks holds `needed` bytes; the largest holds `largest`.
    NoSpace {
        /// Bytes the extent needs (image plus 64 bytes of records).
        needed: u32,
        /// Bytes of the largest free run.
        largest: u32,
    },
    /// No upload is in progress (on this connection).
    NoUpload,
    /// The upload breaks the upload contract (order, length, name, CRC, image).
    Upload(UploadError),
    /// Another upload is in progress.
    Busy {
        /// The take it uploads.
        name: String<NAME_LEN>,
    },
    /// The image read back from flash is not the valid take that arrived.
    Image(TakeError),
    /// The image holds a take's begin record at byte `offset`, an erase block
    /// boundary of the flash (it would list as a take once this one is deleted).
    InnerRecord {
        /// Offset in the image.
        offset: u32,
    },
    /// The settings do not fit in one record.
    SettingsTooLarge,
}

impl<E: fmt::Debug> fmt::Display for StoreError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Flash(e) => write!(f, "flash error: {e:?}"),
            StoreError::Unusable => f.write_str("the take store is unusable (see status)"),
            StoreError::SettingsLocked => {
                f.write_str("stored settings unreadable: factory reset to change them")
            }
            StoreError::NotFound => f.write_str("no take of that name"),
            StoreError::Full => write!(f, "{MAX_TAKES} takes stored already"),
            StoreError::NoSpace { needed, largest } => {
                write!(f, "needs {needed} bytes, largest free run {largest}")
            }
            StoreError::NoUpload => f.write_str("no upload in progress"),
            StoreError::Busy { name } => {
                write!(
                    f,
                    "another connection is uploading \"{name}\": try again later"
                )
            }
            StoreError::Upload(e) => write!(f, "{e}"),
            StoreError::Image(e) => write!(f, "read back from flash: {e}"),
            StoreError::InnerRecord { offset } => {
                write!(f, "image holds a take record at byte {offset}: refused")
            }
            StoreError::SettingsTooLarge => f.write_str("settings too large"),
        }
    }
}

impl<E> From<TakeError> for StoreError<E> {
    fn from(e: TakeError) -> Self {
        StoreError::Image(e)
    }
}

impl<E> From<UploadError> for StoreError<E> {
    fn from(e: UploadError) -> Self {
        StoreError::Upload(e)
    }
}

/// What mount found that the store works around.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum StoreFault {
    /// No flash, or the region does not suit it (whole erase blocks, at least
    /// three; read size 1; a write size dividing 32): no takes, default
    /// settings, no writes.
    Layout,
    /// The newest settings record cannot be read: defaults apply, and the
    /// settings change only through [`Store::reset_settings`].
    Settings(Unreadable),
}

/// A committed take.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub header: TakeHeader,
    pub begin: Begin,
    pub first_block: u32,
}

/// The upload in progress.
struct Upload {
    /// The contract every library keeps: order, length, name, CRC, image.
    contract: llv_core::take::Upload,
    begin: Begin,
    first_block: u32,
    /// Image bytes received.
    received: u32,
    /// Blocks of the extent erased so far.
    erased: u32,
    /// Received bytes not yet written (less than one write unit).
    tail: [u8; UNIT],
    tail_len: usize,
}

/// A take store over a region of a NOR flash.
pub struct Store<F> {
    flash: F,
    /// Address of take block 0.
    base: u32,
    block: u32,
    blocks: u32,
    takes: Vec<Entry, MAX_TAKES>,
    next_seq: u32,
    upload: Option<Upload>,
    /// Where the search for a new extent starts (spreads erases over the flash).
    next_fit: u32,
    log: Log,
    settings: Settings,
    fault: Option<StoreFault>,
    /// Where a settings record is built.
    record: [u8; RECORD_MAX],
    /// Take blocks erased since mount.
    take_erases: u32,
}

/// The erases of a store since mount: what wears its flash.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Erases {
    /// Erases of the two settings blocks.
    pub settings: u32,
    /// Erases of take blocks (uploads, deletes, replaced and torn takes).
    pub takes: u32,
}

impl<F: NorFlash> Store<F> {
    /// Mounts the store on `region` (whole erase blocks: two for settings, the rest
    /// for takes), discarding unfinished uploads. Reads every stored take once.
    /// Never fails: see [`Store::fault`].
    pub async fn mount(flash: F, region: core::ops::Range<u32>) -> Self {
        let block = u32::try_from(F::ERASE_SIZE).unwrap_or(0);
        let len = region.end.saturating_sub(region.start);
        let usable = F::READ_SIZE == 1
            && UNIT.is_multiple_of(F::WRITE_SIZE)
            && (block as usize).is_multiple_of(UNIT)
            && block as usize >= 4 * UNIT
            && region.start.is_multiple_of(block)
            && len.is_multiple_of(block)
            && len / block > SETTINGS_BLOCKS
            && region.end as usize <= flash.capacity();
        let mut store = Store {
            flash,
            base: region.start.saturating_add(SETTINGS_BLOCKS * block),
            block,
            blocks: 0,
            takes: Vec::new(),
            next_seq: 1,
            upload: None,
            next_fit: 0,
            log: Log {
                base: region.start,
                block,
                active: None,
                cursor: None,
                seq: 0,
                erases: 0,
            },
            settings: Settings::default(),
            fault: Some(StoreFault::Layout),
            record: [0xFF; RECORD_MAX],
            take_erases: 0,
        };
        if !usable {
            return store;
        }
        let (log, settings) = Log::mount(&mut store.flash, region.start, block).await;
        store.log = log;
        store.blocks = len / block - SETTINGS_BLOCKS;
        (store.settings, store.fault) = match settings {
            Ok(settings) => (settings, None),
            Err(why) => (Settings::default(), Some(StoreFault::Settings(why))),
        };
        store.scan().await;
        store
    }

    /// What mount found wrong, if anything.
    pub fn fault(&self) -> Option<StoreFault> {
        self.fault
    }

    /// The blocks erased since mount.
    pub fn erases(&self) -> Erases {
        Erases {
            settings: self.log.erases,
            takes: self.take_erases,
        }
    }

    /// Lists every extent whose records and image check out; anything else,
    /// unreadable units included, is free space.
    async fn scan(&mut self) {
        let mut b = 0;
        while b < self.blocks {
            let at = self.block_addr(b);
            let mut unit = [0u8; UNIT];
            let begin = match self.read(at, &mut unit).await {
                Ok(()) => Begin::parse(&unit),
                Err(_) => None,
            };
            let Some(begin) = begin else {
                b += 1;
                continue;
            };
            self.next_seq = self.next_seq.max(begin.seq.wrapping_add(1));
            let n = begin.blocks(self.block);
            if n > self.blocks - b || !self.is_live(at, &begin).await {
                b += 1;
                continue;
            }
            let Ok(header) = self.check_image(at + IMAGE_AT, &begin).await else {
                b += 1;
                continue;
            };
            // A replacement cut short by power keeps two takes of one name: the newer wins.
            if let Some(i) = self.takes.iter().position(|e| e.header.name == header.name) {
                let current_is_newer = self.takes[i].begin.seq < begin.seq;
                let older = if current_is_newer {
                    self.takes[i].first_block
                } else {
                    b
                };
                // Unlisted either way; a failed erase only leaves it for the next mount.
                let _ = self.erase_block(self.block_addr(older)).await;
                if !current_is_newer {
                    b += 1;
                    continue;
                }
                self.takes.swap_remove(i);
            }
            let entry = Entry {
                header,
                begin,
                first_block: b,
            };
            if self.takes.push(entry).is_err() {
                b += 1;
                continue;
            }
            b += n;
        }
        self.takes.sort_unstable_by_key(|e| e.first_block);
    }

    async fn is_live(&mut self, at: u32, begin: &Begin) -> bool {
        let mut unit = [0u8; UNIT];
        self.read(at + COMMIT_AT, &mut unit).await.is_ok() && unit == begin.commit()
    }

    /// Reads the image at `at` once: header, entries, lengths and CRC must match `begin`.
    async fn check_image(
        &mut self,
        at: u32,
        begin: &Begin,
    ) -> Result<TakeHeader, StoreError<F::Error>> {
        let mut head = [0u8; HEADER_LEN];
        if begin.total_len < HEADER_LEN as u32 {
            return Err(TakeError::Inconsistent.into());
        }
        self.read(at, &mut head).await?;
        let header = TakeHeader::parse(&head)?;
        if header.total_len != begin.total_len {
            return Err(TakeError::LengthMismatch {
                expected: header.total_len,
                actual: begin.total_len,
            }
            .into());
        }
        if header.crc32 != begin.crc32 {
            return Err(TakeError::Crc {
                expected: begin.crc32,
                actual: header.crc32,
            }
            .into());
        }
        let mut check = ImageCheck::default();
        let mut buf = [0u8; READ_CHUNK];
        let mut offset = 0usize;
        let total = begin.total_len as usize;
        while offset < total {
            let n = READ_CHUNK.min(total - offset);
            self.read(at + offset as u32, &mut buf[..n]).await?;
            if offset % YIELD_EVERY < READ_CHUNK {
                // Reads that never wait (memory-mapped or semihosted flash)
                // would otherwise hold the executor through a whole image.
                embassy_futures::yield_now().await;
            }
            check.update(&buf[..n])?;
            offset += n;
        }
        let header = check.finish()?;
        // A begin record inside the image would list as a take once this one is deleted.
        let extent = at - IMAGE_AT;
        for k in 1..begin.blocks(self.block) {
            let mut unit = [0u8; UNIT];
            self.read(extent + k * self.block, &mut unit).await?;
            if Begin::parse(&unit).is_some() {
                return Err(StoreError::InnerRecord {
                    offset: k * self.block - IMAGE_AT,
                });
            }
        }
        Ok(header)
    }

    /// The stored takes, in flash order.
    pub fn list(&self) -> Vec<TakeInfo, MAX_TAKES> {
        self.takes
            .iter()
            .map(|e| TakeInfo::of(&e.header, Place::Internal))
            .collect()
    }

    /// Bytes of flash holding takes (whole blocks).
    pub fn used_bytes(&self) -> u32 {
        self.takes
            .iter()
            .map(|e| e.begin.blocks(self.block))
            .sum::<u32>()
            * self.block
    }

    /// Bytes of flash free for takes (whole blocks, not necessarily contiguous).
    pub fn free_bytes(&self) -> u32 {
        self.blocks * self.block - self.used_bytes()
    }

    /// The current settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Stores `settings` (power-cut safe: the old ones stay until the new record is whole).
    /// Refused while the stored settings are unreadable ([`StoreError::SettingsLocked`]).
    pub async fn save_settings(&mut self, settings: &Settings) -> Result<(), StoreError<F::Error>> {
        match self.fault {
            Some(StoreFault::Layout) => Err(StoreError::Unusable),
            Some(StoreFault::Settings(_)) => Err(StoreError::SettingsLocked),
            None => self.write_settings(settings).await,
        }
    }

    /// Stores the default settings, readable or not what was there (a factory
    /// reset); the takes stay.
    pub async fn reset_settings(&mut self) -> Result<(), StoreError<F::Error>> {
        if self.fault == Some(StoreFault::Layout) {
            return Err(StoreError::Unusable);
        }
        self.write_settings(&Settings::default()).await?;
        self.fault = None;
        Ok(())
    }

    async fn write_settings(&mut self, settings: &Settings) -> Result<(), StoreError<F::Error>> {
        self.log
            .save(&mut self.flash, settings, &mut self.record)
            .await
            .map_err(|e| match e {
                SaveError::Flash(e) => StoreError::Flash(e),
                SaveError::TooLarge => StoreError::SettingsTooLarge,
            })?;
        self.settings.clone_from(settings);
        Ok(())
    }

    /// Starts uploading an image of `total_len` bytes with CRC `crc32` named
    /// `name`. Returns the upload's id. One upload at a time: while another is
    /// in progress ([`Store::abort_upload`] ends it) this one is refused.
    /// Nothing is erased or written until the first bytes arrive, so a begin
    /// that is never followed costs the flash nothing.
    pub async fn begin_upload(
        &mut self,
        name: &str,
        total_len: u32,
        crc32: u32,
    ) -> Result<u32, StoreError<F::Error>> {
        if let Some(other) = &self.upload {
            return Err(StoreError::Busy {
                name: llv_core::control::bounded(other.contract.name()),
            });
        }
        if self.fault == Some(StoreFault::Layout) {
            return Err(StoreError::Unusable);
        }
        let contract = llv_core::take::Upload::begin(name, total_len, crc32)?;
        let replaces = self.takes.iter().any(|e| e.header.name == name);
        if self.takes.is_full() && !replaces {
            return Err(StoreError::Full);
        }
        let begin = Begin {
            seq: self.next_seq,
            total_len,
            crc32,
        };
        let needed = begin.blocks(self.block);
        let (largest, first_block) = self.largest_run(needed);
        let Some(first_block) = first_block else {
            return Err(StoreError::NoSpace {
                needed: IMAGE_AT.saturating_add(total_len),
                largest: largest * self.block,
            });
        };
        self.next_seq = self.next_seq.wrapping_add(1);
        self.next_fit = (first_block + needed) % self.blocks;
        self.upload = Some(Upload {
            contract,
            begin,
            first_block,
            received: 0,
            erased: 0,
            tail: [0xFF; UNIT],
            tail_len: 0,
        });
        Ok(begin.seq)
    }

    /// Writes the next chunk of upload `id` at image offset `offset`.
    pub async fn write_chunk(
        &mut self,
        id: u32,
        offset: u32,
        data: &[u8],
    ) -> Result<(), StoreError<F::Error>> {
        let w = F::WRITE_SIZE;
        let up = self.upload_mut(id)?;
        if let Err(e) = up.contract.chunk(offset, data) {
            if e.is_fatal() {
                self.upload = None;
            }
            return Err(e.into());
        }
        let mut data = data;
        // Complete the pending partial unit first.
        if up.tail_len > 0 {
            let take = (w - up.tail_len).min(data.len());
            let (tail_len, received) = (up.tail_len, up.received);
            up.tail[tail_len..tail_len + take].copy_from_slice(&data[..take]);
            up.tail_len += take;
            up.received += take as u32;
            data = &data[take..];
            if up.tail_len == w {
                let tail = up.tail;
                let at = received - tail_len as u32;
                self.write_image(at, &tail[..w]).await?;
                let up = self.upload_mut(id)?;
                up.tail_len = 0;
            }
        }
        let whole = data.len() / w * w;
        if whole > 0 {
            let at = self.upload_mut(id)?.received;
            self.write_image(at, &data[..whole]).await?;
            self.upload_mut(id)?.received += whole as u32;
        }
        let rest = &data[whole..];
        if !rest.is_empty() {
            let up = self.upload_mut(id)?;
            up.tail = [0xFF; UNIT];
            up.tail[..rest.len()].copy_from_slice(rest);
            up.tail_len = rest.len();
            up.received += rest.len() as u32;
        }
        Ok(())
    }

    /// Whether writing `len` bytes at image offset `offset` of upload `id` would
    /// erase a block first (a second or more on the STM32H7, with the store held).
    pub fn chunk_erases(&self, id: u32, offset: u32, len: usize) -> bool {
        self.upload.as_ref().is_some_and(|up| {
            let end = u64::from(IMAGE_AT) + u64::from(offset) + len as u64;
            up.begin.seq == id && end.div_ceil(u64::from(self.block)) > u64::from(up.erased)
        })
    }

    /// Checks upload `id` read back from flash and commits it; a take of the same name
    /// is replaced. Returns the new take's header.
    pub async fn commit_upload(&mut self, id: u32) -> Result<TakeHeader, StoreError<F::Error>> {
        let w = F::WRITE_SIZE;
        let up = self.upload_mut(id)?;
        if !up.contract.is_complete() {
            return Err(StoreError::Upload(UploadError::Incomplete {
                received: up.contract.received(),
                total: up.contract.total(),
            }));
        }
        if up.tail_len > 0 {
            let (tail, tail_len) = (up.tail, up.tail_len);
            let at = up.received - tail_len as u32;
            self.write_image(at, &tail[..w]).await?;
            self.upload_mut(id)?.tail_len = 0;
        }
        let Some(up) = self.upload.take() else {
            return Err(StoreError::NoUpload);
        };
        let arrived = up.contract.finish()?;
        let at = self.block_addr(up.first_block);
        let header = self.check_image(at + IMAGE_AT, &up.begin).await?;
        if header != arrived {
            return Err(StoreError::Image(TakeError::Inconsistent));
        }
        self.write(at + COMMIT_AT, &up.begin.commit()).await?;
        if let Some(i) = self.takes.iter().position(|e| e.header.name == header.name) {
            let old = self.block_addr(self.takes[i].first_block);
            self.erase_block(old).await?;
            self.takes.remove(i);
        }
        let entry = Entry {
            header: header.clone(),
            begin: up.begin,
            first_block: up.first_block,
        };
        // Room was checked at begin; the list cannot have grown since.
        let _ = self.takes.push(entry);
        self.takes.sort_unstable_by_key(|e| e.first_block);
        Ok(header)
    }

    /// The id of the upload in progress, if any.
    pub fn upload_id(&self) -> Option<u32> {
        self.upload.as_ref().map(|u| u.begin.seq)
    }

    /// Drops upload `id` if it is the one in progress (its blocks become free).
    pub fn abort_upload(&mut self, id: u32) {
        if self.upload.as_ref().is_some_and(|u| u.begin.seq == id) {
            self.upload = None;
        }
    }

    /// Deletes the take named `name`.
    pub async fn delete(&mut self, name: &str) -> Result<(), StoreError<F::Error>> {
        let i = self
            .takes
            .iter()
            .position(|e| e.header.name == name)
            .ok_or(StoreError::NotFound)?;
        let at = self.block_addr(self.takes[i].first_block);
        self.erase_block(at).await?;
        self.takes.remove(i);
        Ok(())
    }

    /// Gives the flash back (e.g. to remount it).
    pub fn into_flash(self) -> F {
        self.flash
    }

    pub(crate) fn find(&self, name: &str) -> Option<&Entry> {
        self.takes.iter().find(|e| e.header.name == name)
    }

    pub(crate) fn is_current(&self, seq: u32) -> bool {
        self.takes.iter().any(|e| e.begin.seq == seq)
    }

    pub(crate) fn block_addr(&self, b: u32) -> u32 {
        self.base + b * self.block
    }

    pub(crate) async fn read(
        &mut self,
        at: u32,
        buf: &mut [u8],
    ) -> Result<(), StoreError<F::Error>> {
        self.flash.read(at, buf).await.map_err(StoreError::Flash)
    }

    async fn write(&mut self, at: u32, bytes: &[u8]) -> Result<(), StoreError<F::Error>> {
        self.flash.write(at, bytes).await.map_err(StoreError::Flash)
    }

    /// Writes image bytes of the upload at image offset `offset`, erasing blocks on the way.
    async fn write_image(&mut self, offset: u32, bytes: &[u8]) -> Result<(), StoreError<F::Error>> {
        let Some(up) = self.upload.as_ref() else {
            return Err(StoreError::NoUpload);
        };
        let start = self.block_addr(up.first_block);
        let begin = up.begin;
        let end_block = (IMAGE_AT + offset + bytes.len() as u32).div_ceil(self.block);
        for b in up.erased..end_block {
            let at = start + b * self.block;
            let mut done = self.erase_block(at).await;
            if b == 0 && done.is_ok() {
                done = self.write(at, &begin.emit()).await;
            }
            if done.is_err() {
                // Start over: the block may hold a unit cut in the middle.
                self.upload = None;
                return done;
            }
            if let Some(up) = self.upload.as_mut() {
                up.erased = b + 1;
            }
        }
        let written = self.write(start + IMAGE_AT + offset, bytes).await;
        if written.is_err() {
            // Those units must not be written again: the upload starts over.
            self.upload = None;
        }
        written
    }

    /// Erases the block at `at`, blank or not: a cut write can leave a unit that
    /// reads blank but must not be written again.
    async fn erase_block(&mut self, at: u32) -> Result<(), StoreError<F::Error>> {
        self.take_erases = self.take_erases.saturating_add(1);
        self.flash
            .erase(at, at + self.block)
            .await
            .map_err(StoreError::Flash)
    }

    fn upload_mut(&mut self, id: u32) -> Result<&mut Upload, StoreError<F::Error>> {
        self.upload
            .as_mut()
            .filter(|u| u.begin.seq == id)
            .ok_or(StoreError::NoUpload)
    }

    /// The longest run of free blocks, and where an extent of `needed` blocks
    /// goes: the first place at or after `next_fit` (so repeated uploads spread
    /// their erases over the flash), else the first place from block 0.
    fn largest_run(&self, needed: u32) -> (u32, Option<u32>) {
        let (mut largest, mut after, mut wrapped, mut start) = (0, None, None, 0);
        // Takes are sorted by first block: the gaps between them are the free runs.
        let taken = self
            .takes
            .iter()
            .map(|e| (e.first_block, e.first_block + e.begin.blocks(self.block)));
        for (first, next) in taken.chain(core::iter::once((self.blocks, self.blocks))) {
            largest = largest.max(first - start);
            let from = start.max(self.next_fit);
            if after.is_none() && from < first && first - from >= needed {
                after = Some(from);
            }
            if wrapped.is_none() && first - start >= needed {
                wrapped = Some(start);
            }
            start = next;
        }
        (largest, after.or(wrapped))
    }
}
