//! Settings saves paced to spare the flash: [`Paced`] wraps a library and
//! decides when its settings are written. The box and `llv serve` both run
//! their library through it, so they follow the same rule:
//!
//! - A save that changes nothing is not written (counted as unchanged).
//! - The first save after a quiet [`SETTINGS_EVERY`] is written at once.
//! - A save within [`SETTINGS_EVERY`] of the last write applies at once (the
//!   box uses it, `GetSettings` shows it) but is held; later saves replace
//!   it (the last value wins; the ones replaced are counted as coalesced),
//!   and it is written [`SETTINGS_EVERY`] after the last write, by whoever
//!   calls [`Paced::flush`] at [`Paced::due`].
//!
//! So the settings are written at most once per [`SETTINGS_EVERY`], however
//! fast a client saves, and a power cut loses at most the saves made since
//! the last write, within the last [`SETTINGS_EVERY`] (`Status` says
//! `settings_pending` while that is so). A lone change is written before
//! its `Ok` is sent.
//!
//! It also keeps an upload whose connection went away without a word (a
//! connection closed for a newcomer ends without closing its session) from
//! holding the library's one upload: an upload that saw nothing for
//! [`UPLOAD_IDLE`] gives way to a new one.

use embassy_time::{Duration, Instant};
use heapless::Vec;
use llv_core::control::{CardStatus, Fault, Place, TakePage, TakeRef, Wear};
use llv_core::settings::Settings;
use llv_core::take::TakeHeader;

use crate::library::{Refusal, TakeLibrary};

/// The least time between two settings writes.
pub const SETTINGS_EVERY: Duration = Duration::from_secs(10);
/// An upload without a chunk or commit for this long gives way to a new one
/// (a live connection is closed after 30 s idle anyway).
pub const UPLOAD_IDLE: Duration = Duration::from_secs(30);

/// A library whose settings saves are paced (see the module).
pub struct Paced<L> {
    /// The library; its `save_settings` writes.
    pub inner: L,
    /// Saved settings not written yet.
    held: Option<Settings>,
    last_write: Option<Instant>,
    writes: u32,
    unchanged: u32,
    coalesced: u32,
    /// The upload in progress and when it was last used.
    upload: Option<(u32, Instant)>,
}

impl<L: TakeLibrary> Paced<L> {
    /// `inner`, nothing written through it yet.
    pub const fn new(inner: L) -> Self {
        Paced {
            inner,
            held: None,
            last_write: None,
            writes: 0,
            unchanged: 0,
            coalesced: 0,
            upload: None,
        }
    }

    /// When the held settings are due to be written, if any are held.
    pub fn due(&self) -> Option<Instant> {
        self.held.as_ref()?;
        Some(self.last_write.map_or(Instant::MIN, |t| t + SETTINGS_EVERY))
    }

    /// Writes the held settings if they are due; a failed write keeps them
    /// held, to be tried again [`SETTINGS_EVERY`] later.
    pub async fn flush(&mut self) -> Result<(), Refusal> {
        if self.due().is_none_or(|due| Instant::now() < due) {
            return Ok(());
        }
        self.write_held().await
    }

    /// Writes the held settings now, due or not (`llv serve` stopping).
    pub async fn write_held(&mut self) -> Result<(), Refusal> {
        let now = Instant::now();
        let Some(settings) = self.held.take() else {
            return Ok(());
        };
        self.last_write = Some(now);
        match self.inner.save_settings(&settings).await {
            Ok(()) => {
                self.writes = self.writes.saturating_add(1);
                Ok(())
            }
            Err(refusal) => {
                self.held = Some(settings);
                Err(refusal)
            }
        }
    }
}

/// The library's own fields and methods (the box's store and card) stay
/// reachable through the wrapper; [`TakeLibrary`]'s methods are the
/// wrapper's.
impl<L> core::ops::Deref for Paced<L> {
    type Target = L;

    fn deref(&self) -> &L {
        &self.inner
    }
}

impl<L> core::ops::DerefMut for Paced<L> {
    fn deref_mut(&mut self) -> &mut L {
        &mut self.inner
    }
}

impl<L: TakeLibrary> TakeLibrary for Paced<L> {
    type Take = L::Take;

    async fn list_page(&mut self, start: u32) -> Result<TakePage, Refusal> {
        self.inner.list_page(start).await
    }

    async fn open(&mut self, take: TakeRef<'_>) -> Result<(L::Take, Place), Refusal> {
        self.inner.open(take).await
    }

    async fn begin_upload(
        &mut self,
        name: &str,
        total_len: u32,
        crc32: u32,
        place: Place,
    ) -> Result<u32, Refusal> {
        if let Some((id, used)) = self.upload {
            if self.inner.uploading(id) && used.elapsed() >= UPLOAD_IDLE {
                self.inner.abort_upload(id);
            }
        }
        let begun = self.inner.begin_upload(name, total_len, crc32, place).await;
        if let Ok(id) = begun {
            self.upload = Some((id, Instant::now()));
        }
        begun
    }

    async fn write_chunk(&mut self, id: u32, offset: u32, data: &[u8]) -> Result<(), Refusal> {
        if let Some((current, used)) = &mut self.upload {
            if *current == id {
                *used = Instant::now();
            }
        }
        self.inner.write_chunk(id, offset, data).await
    }

    fn chunk_waits(&self, id: u32, offset: u32, len: usize) -> bool {
        self.inner.chunk_waits(id, offset, len)
    }

    async fn commit_upload(&mut self, id: u32) -> Result<TakeHeader, Refusal> {
        self.inner.commit_upload(id).await
    }

    fn uploading(&self, id: u32) -> bool {
        self.inner.uploading(id)
    }

    fn abort_upload(&mut self, id: u32) {
        self.inner.abort_upload(id);
    }

    async fn delete(&mut self, take: TakeRef<'_>) -> Result<Place, Refusal> {
        self.inner.delete(take).await
    }

    /// The settings in force: the held ones, else the written ones.
    fn settings(&self) -> &Settings {
        self.held.as_ref().unwrap_or_else(|| self.inner.settings())
    }

    async fn save_settings(&mut self, settings: &Settings) -> Result<(), Refusal> {
        if self.inner.locked() {
            // The library refuses; nothing is held for it.
            return self.inner.save_settings(settings).await;
        }
        if settings == self.settings() {
            self.unchanged = self.unchanged.saturating_add(1);
            return Ok(());
        }
        if self.held.is_some() {
            self.coalesced = self.coalesced.saturating_add(1);
        }
        if settings == self.inner.settings() {
            // Back to what is written: nothing left to write.
            self.held = None;
            return Ok(());
        }
        let now = Instant::now();
        if self.last_write.is_some_and(|t| now < t + SETTINGS_EVERY) {
            self.held = Some(settings.clone());
            return Ok(());
        }
        self.inner.save_settings(settings).await?;
        self.held = None;
        self.last_write = Some(now);
        self.writes = self.writes.saturating_add(1);
        Ok(())
    }

    fn used_bytes(&self) -> u64 {
        self.inner.used_bytes()
    }

    fn free_bytes(&self) -> u64 {
        self.inner.free_bytes()
    }

    fn faults(&self) -> Vec<Fault, 2> {
        self.inner.faults()
    }

    fn card(&self) -> Option<CardStatus> {
        self.inner.card()
    }

    fn locked(&self) -> bool {
        self.inner.locked()
    }

    fn wear(&self) -> Wear {
        Wear {
            settings_writes: self.writes,
            settings_unchanged: self.unchanged,
            settings_coalesced: self.coalesced,
            settings_pending: self.held.is_some(),
            ..self.inner.wear()
        }
    }
}
