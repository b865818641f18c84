//! A [`TakeLibrary`] in memory, for the control crate's tests and the host's
//! protocol tests: takes are whole images in RAM, uploads keep the one
//! upload contract ([`llv_core::take::Upload`]), and the things a real
//! library does to a session (no room, a slow erase, a locked box, faults)
//! can be set by the test.

use std::sync::Arc;
use std::vec::Vec;

use heapless::Vec as Bounded;
use llv_core::control::{
    bounded, CardStatus, ErrorCode, Fault, Place, TakeInfo, TakePage, TakeRef, MAX_TAKES,
};
use llv_core::settings::Settings;
use llv_core::take::{image_len, ImageWriter, TakeHeader, TakeImage, Upload};

use crate::library::{
    no_card, not_found, page_of, resolve, upload_refusal, Refusal, Take, TakeLibrary,
};

/// A take held in memory.
#[derive(Clone, Debug)]
pub struct MemoryTake {
    header: TakeHeader,
    /// The whole image.
    pub image: Arc<Vec<u8>>,
}

impl Take for MemoryTake {
    fn header(&self) -> &TakeHeader {
        &self.header
    }
}

/// Takes and settings in memory.
#[derive(Debug)]
pub struct MemoryLibrary {
    takes: Vec<MemoryTake>,
    settings: Settings,
    upload: Option<(u32, Upload, Vec<u8>)>,
    next_id: u32,
    /// Image bytes it holds at most; an upload past them is refused `NoSpace`.
    pub capacity: u32,
    /// Whether a chunk waits for the player's read-ahead before it is written
    /// (as a flash erase does): every chunk at an offset that is a multiple of this.
    pub erase_every: Option<u32>,
    /// The stored settings are unreadable: the box is locked.
    pub locked: bool,
    /// What [`TakeLibrary::faults`] answers.
    pub faults: Bounded<Fault, 2>,
    /// Settings saves so far.
    pub saves: u32,
    /// Takes it holds at most; an upload past them is refused `NoSpace`.
    pub max_takes: usize,
    /// What [`TakeLibrary::card`] answers.
    pub card: Option<CardStatus>,
    /// Changes with every take stored or deleted.
    revision: u32,
}

impl Default for MemoryLibrary {
    fn default() -> Self {
        MemoryLibrary {
            takes: Vec::new(),
            settings: Settings::default(),
            upload: None,
            next_id: 1,
            capacity: 1 << 20,
            erase_every: None,
            locked: false,
            faults: Bounded::new(),
            saves: 0,
            max_takes: MAX_TAKES,
            card: None,
            revision: 0,
        }
    }
}

impl MemoryLibrary {
    /// An empty library with default settings.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores the valid image `image` as a take (replacing one of its name).
    pub fn insert(&mut self, image: Vec<u8>) -> TakeHeader {
        let header = match TakeImage::parse(&image) {
            Ok(parsed) => parsed.header().clone(),
            Err(e) => panic!("MemoryLibrary::insert: not a take image: {e}"),
        };
        self.takes.retain(|t| t.header.name != header.name);
        self.takes.push(MemoryTake {
            header: header.clone(),
            image: Arc::new(image),
        });
        self.revision = self.revision.wrapping_add(1);
        header
    }

    /// The settings, to change behind the session's back.
    pub fn settings_mut(&mut self) -> &mut Settings {
        &mut self.settings
    }

    fn used(&self) -> u32 {
        self.takes.iter().map(|t| t.header.total_len).sum()
    }
}

impl TakeLibrary for MemoryLibrary {
    type Take = MemoryTake;

    async fn list_page(&mut self, start: u32) -> Result<TakePage, Refusal> {
        let takes = self
            .takes
            .iter()
            .map(|t| TakeInfo::of(&t.header, Place::Internal));
        Ok(page_of(takes, start, self.revision))
    }

    async fn open(&mut self, take: TakeRef<'_>) -> Result<(MemoryTake, Place), Refusal> {
        let found = self.takes.iter().find(|t| t.header.name == take.name);
        let place = resolve(take, found.is_some(), false, false)?;
        Ok((found.cloned().ok_or_else(|| not_found(take.name))?, place))
    }

    async fn begin_upload(
        &mut self,
        name: &str,
        total_len: u32,
        crc32: u32,
        place: Place,
    ) -> Result<u32, Refusal> {
        if place == Place::Card {
            return Err(no_card());
        }
        if let Some((_, other, _)) = &self.upload {
            return Err(Refusal::fmt(
                ErrorCode::UploadOrder,
                format_args!("another connection is uploading \"{}\"", other.name()),
            ));
        }
        let upload = Upload::begin(name, total_len, crc32).map_err(|e| upload_refusal(&e))?;
        let replaced = self
            .takes
            .iter()
            .find(|t| t.header.name == name)
            .map_or(0, |t| t.header.total_len);
        let free = self.capacity.saturating_sub(self.used()) + replaced;
        if total_len > free {
            return Err(Refusal::fmt(
                ErrorCode::NoSpace,
                format_args!("needs {total_len} bytes, {free} free"),
            ));
        }
        let full = self.takes.len() >= self.max_takes && replaced == 0;
        if full {
            return Err(Refusal::fmt(
                ErrorCode::NoSpace,
                format_args!("{} takes stored already", self.max_takes),
            ));
        }
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1).max(1);
        self.upload = Some((id, upload, Vec::with_capacity(total_len as usize)));
        Ok(id)
    }

    async fn write_chunk(&mut self, id: u32, offset: u32, data: &[u8]) -> Result<(), Refusal> {
        let Some((_, upload, bytes)) = self.upload.as_mut().filter(|u| u.0 == id) else {
            return Err(Refusal::new(
                ErrorCode::UploadOrder,
                "no upload in progress",
            ));
        };
        if let Err(e) = upload.chunk(offset, data) {
            if e.is_fatal() {
                self.upload = None;
            }
            return Err(upload_refusal(&e));
        }
        bytes.extend_from_slice(data);
        Ok(())
    }

    fn chunk_waits(&self, id: u32, offset: u32, _len: usize) -> bool {
        let uploading = self.upload.as_ref().is_some_and(|u| u.0 == id);
        uploading
            && self
                .erase_every
                .is_some_and(|e| e > 0 && offset.is_multiple_of(e))
    }

    async fn commit_upload(&mut self, id: u32) -> Result<TakeHeader, Refusal> {
        match &self.upload {
            Some((current, upload, _)) if *current == id => {
                if !upload.is_complete() {
                    return Err(upload_refusal(&llv_core::take::UploadError::Incomplete {
                        received: upload.received(),
                        total: upload.total(),
                    }));
                }
            }
            _ => {
                return Err(Refusal::new(
                    ErrorCode::UploadOrder,
                    "no upload in progress",
                ))
            }
        }
        let Some((_, upload, bytes)) = self.upload.take() else {
            return Err(Refusal::new(
                ErrorCode::UploadOrder,
                "no upload in progress",
            ));
        };
        upload.finish().map_err(|e| upload_refusal(&e))?;
        Ok(self.insert(bytes))
    }

    fn uploading(&self, id: u32) -> bool {
        self.upload.as_ref().is_some_and(|u| u.0 == id)
    }

    fn abort_upload(&mut self, id: u32) {
        if self.uploading(id) {
            self.upload = None;
        }
    }

    async fn delete(&mut self, take: TakeRef<'_>) -> Result<Place, Refusal> {
        let here = self.takes.iter().any(|t| t.header.name == take.name);
        let place = resolve(take, here, false, true)?;
        self.takes.retain(|t| t.header.name != take.name);
        self.revision = self.revision.wrapping_add(1);
        Ok(place)
    }

    fn settings(&self) -> &Settings {
        &self.settings
    }

    async fn save_settings(&mut self, settings: &Settings) -> Result<(), Refusal> {
        if self.locked {
            return Err(Refusal::new(
                ErrorCode::Unauthorized,
                "stored settings unreadable: factory reset to change them",
            ));
        }
        self.saves += 1;
        self.settings.clone_from(settings);
        Ok(())
    }

    fn used_bytes(&self) -> u64 {
        self.used().into()
    }

    fn free_bytes(&self) -> u64 {
        self.capacity.saturating_sub(self.used()).into()
    }

    fn faults(&self) -> Bounded<Fault, 2> {
        self.faults.clone()
    }

    fn card(&self) -> Option<CardStatus> {
        self.card.clone()
    }

    fn locked(&self) -> bool {
        self.locked
    }
}

/// A take image of `frames` frames, 16.667 ms apart, of varying lengths
/// (264 to 563 bytes) whose bytes depend on `seed`. The packets are not face
/// frames: a library never decodes them.
pub fn synthetic_image(name: &str, frames: u32, seed: u8) -> Vec<u8> {
    let lens: Vec<usize> = (0..frames as usize)
        .map(|i| 264 + (i * 37 + seed as usize) % 300)
        .collect();
    let mut buf = std::vec![0u8; image_len(frames, lens.iter().sum())];
    let Ok(mut w) = ImageWriter::new(&mut buf, name, frames) else {
        panic!("synthetic_image: a name of 1..=32 bytes");
    };
    for (i, len) in lens.iter().enumerate() {
        let packet: Vec<u8> = (0..*len)
            .map(|j| (j as u8).wrapping_mul(seed).wrapping_add(i as u8))
            .collect();
        if let Err(e) = w.push(i as u32 * 16_667, &packet) {
            panic!("synthetic_image: {e}");
        }
    }
    match w.finish(frames * 16_667) {
        Ok(n) if n == buf.len() => buf,
        other => panic!("synthetic_image: {other:?}"),
    }
}

/// A fault for [`MemoryLibrary::faults`].
pub fn fault(code: llv_core::control::FaultCode, detail: &str) -> Fault {
    Fault {
        code,
        detail: bounded(detail),
    }
}
