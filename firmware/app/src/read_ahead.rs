//! A take in the box's library (flash or card) as a [`FrameSource`], read
//! ahead into a [`FrameRing`]: whenever the library is free the ring is
//! topped up, a few frames at a time and for at most [`TOP_UP_WAIT`], so an
//! erase or a write that holds the library (an upload, a delete, a settings
//! save: a second or more per 128 KiB on the STM32H7) or a card's latency
//! spike never delays a frame the ring holds. Each frame's subject is
//! renamed when the settings ask.

use core::cell::RefCell;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use crate::library::{BoxLibrary, BoxTake};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::blocking_mutex::Mutex as BlockingMutex;
use embassy_sync::mutex::Mutex;
use embassy_time::{with_timeout, Duration};
use embedded_storage_async::nor_flash::NorFlash;
use heapless::String;
use llv_card::CardDriver;
use llv_control::{Paced, Take};
use llv_core::packet::{FaceFrame, MAX_LEN};
use llv_core::settings::SUBJECT_LEN;

use crate::ring::{FrameRing, HEAD};
use crate::source::{Frame, FrameSource};

/// The library (flash store and card, its settings saves paced) shared by
/// the control session, the show doors, the card's keeper and the player.
pub type SharedLibrary<F, D> = Mutex<CriticalSectionRawMutex, Paced<BoxLibrary<F, D>>>;

/// The subject every sent frame gets, if renamed; changed by the settings at any time.
pub type SubjectCell = BlockingMutex<CriticalSectionRawMutex, RefCell<Option<String<SUBJECT_LEN>>>>;

/// Frames the read-ahead holds when full, of the largest possible (774
/// bytes: a long device id and subject): 2.33 s at 60 fps, longer than the
/// STM32H7's worst sector erase (2.2 s; 1.1 s typical).
pub const READ_AHEAD_FRAMES: usize = 140;

/// Bytes of read-ahead: [`READ_AHEAD_FRAMES`] records of the largest packet
/// (106.6 KiB; about 5.6 s of Live Link Face's usual 320-byte frames).
pub const READ_AHEAD: usize = READ_AHEAD_FRAMES * (HEAD + MAX_LEN);

/// Frames read into the ring per frame played at most, once it holds some: a
/// ring drained by an erase refills over the next few frames instead of in one
/// long read (which under QEMU, whose flash file is read through semihosting,
/// holds the virtual CPU for milliseconds).
const TOP_UP: usize = 24;

/// How long a frame's read may spend topping up the ring, waiting for the
/// library and reading (the frame is in hand, and due about a frame period
/// later); a read cut short leaves the frames read so far in the ring.
const TOP_UP_WAIT: Duration = Duration::from_millis(4);

/// Why a stored frame could not be played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum StoredError {
    /// The take is gone (deleted or replaced) or unreadable.
    Read,
    /// The take's card was pulled out.
    CardRemoved,
    /// The renamed packet does not decode or no longer fits a packet.
    Rename,
}

/// Frames of a stored take, through a read-ahead ring.
pub struct StoreSource<'a, F, D: CardDriver, const N: usize> {
    store: &'a SharedLibrary<F, D>,
    reader: BoxTake,
    ring: &'a mut FrameRing<N>,
    /// Index of the frame at the front of the ring.
    front: u32,
    /// Index of the next frame to read into the ring.
    fetch: u32,
    subject: &'a SubjectCell,
    /// How full the ring is, for erases and `Status`.
    gauge: &'a ReadAheadGauge,
    /// Whether the ring filled since the start or the last seek.
    filled: bool,
}

/// How the read-ahead stands, shared with the rest of the box.
pub struct ReadAheadGauge {
    /// Set while the ring could take more frames (erases wait for it).
    pub short: AtomicBool,
    /// The fewest frames the ring held when the player took one, once it had
    /// filled; `u32::MAX` until then.
    pub low: AtomicU32,
}

impl ReadAheadGauge {
    /// Nothing read ahead yet.
    pub const fn new() -> Self {
        ReadAheadGauge {
            short: AtomicBool::new(false),
            low: AtomicU32::new(u32::MAX),
        }
    }
}

impl Default for ReadAheadGauge {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a, F: NorFlash, D: CardDriver, const N: usize> StoreSource<'a, F, D, N> {
    /// Plays `reader`'s take from `store` through `ring`, renamed per
    /// `subject`; `gauge` follows how full the ring is.
    pub fn new(
        store: &'a SharedLibrary<F, D>,
        reader: BoxTake,
        ring: &'a mut FrameRing<N>,
        subject: &'a SubjectCell,
        gauge: &'a ReadAheadGauge,
    ) -> Self {
        ring.clear();
        gauge.short.store(true, Ordering::Relaxed);
        gauge.low.store(u32::MAX, Ordering::Relaxed);
        StoreSource {
            store,
            reader,
            ring,
            front: 0,
            fetch: 0,
            subject,
            gauge,
            filled: false,
        }
    }

    /// Reads up to `most` frames into the ring, while it can take the
    /// largest packet.
    async fn fill(
        &mut self,
        library: &mut BoxLibrary<F, D>,
        most: usize,
    ) -> Result<(), StoredError> {
        let mut raw = [0u8; MAX_LEN];
        let count = self.reader.header().frame_count;
        for _ in 0..most {
            if !self.ring.fits(MAX_LEN) {
                break;
            }
            let (time_us, len) = match &mut self.reader {
                BoxTake::Flash(reader) => reader
                    .packet(&mut library.store, self.fetch, &mut raw)
                    .await
                    .map(|(entry, packet)| (entry.time_us, packet.len()))
                    .map_err(|_| StoredError::Read)?,
                BoxTake::Card(reader) => library
                    .card
                    .packet(reader, self.fetch, &mut raw)
                    .await
                    .map(|entry| (entry.time_us, usize::from(entry.len)))
                    .map_err(|e| match e {
                        llv_card::CardError::Removed => StoredError::CardRemoved,
                        _ => StoredError::Read,
                    })?,
            };
            self.ring.push(time_us, &raw[..len]);
            self.fetch = next(self.fetch, count);
        }
        Ok(())
    }
}

impl<F: NorFlash, D: CardDriver, const N: usize> FrameSource for StoreSource<'_, F, D, N> {
    type Error = StoredError;

    fn frame_count(&self) -> u32 {
        self.reader.header().frame_count
    }

    fn period_us(&self) -> u32 {
        self.reader.header().period_us
    }

    async fn read_frame(
        &mut self,
        index: u32,
        buf: &mut [u8; MAX_LEN],
    ) -> Result<Frame, StoredError> {
        let seek = index != self.front;
        if seek {
            self.ring.clear();
            self.front = index;
            self.fetch = index;
            self.filled = false;
        }
        // Dry (a start, a seek, or an erase outlasted the ring): wait for the
        // store. A start fills the ring before its first frame, [`TOP_UP`]
        // frames at a time with the rest of the box let in between (a full
        // ring is up to 140 largest frames: a few milliseconds of flash
        // reads on the STM32H7, far more through QEMU's semihosting); a seek
        // (a chase's locate, due now) reads one such batch and the ring
        // fills as it plays.
        if self.ring.is_empty() {
            let mut store = self.store.lock().await;
            loop {
                self.fill(&mut store, TOP_UP).await?;
                if seek || !self.ring.fits(MAX_LEN) {
                    break;
                }
                embassy_futures::yield_now().await;
            }
        }
        if self.filled {
            let held = u32::try_from(self.ring.len()).unwrap_or(u32::MAX);
            self.gauge.low.fetch_min(held, Ordering::Relaxed);
        }
        // Straight into the caller's buffer: a copy of the frame held across
        // the top-up's wait would be one more frame's bytes in every future
        // that plays.
        let (time_us, len) = self.ring.pop(buf).ok_or(StoredError::Read)?;
        // Top up, for a moment at most: a library busy with a short write
        // (an upload's chunk) lets it in; an erase or a card's stall outlasts
        // it and the ring plays on.
        let top_up = async {
            let mut library = self.store.lock().await;
            self.fill(&mut library, TOP_UP).await
        };
        if let Ok(filled) = with_timeout(TOP_UP_WAIT, top_up).await {
            filled?;
        }
        let short = self.ring.fits(MAX_LEN);
        self.gauge.short.store(short, Ordering::Relaxed);
        // Filled: as full as the largest packet lets it be.
        self.filled |= !short;
        self.front = next(index, self.frame_count());
        let len = match self.subject.lock(|s| s.borrow().clone()) {
            Some(subject) => {
                let mut raw = [0u8; MAX_LEN];
                raw[..len].copy_from_slice(&buf[..len]);
                let mut frame = FaceFrame::decode(&raw[..len]).map_err(|_| StoredError::Rename)?;
                frame.subject = subject.as_str();
                frame.encode(buf).map_err(|_| StoredError::Rename)?
            }
            None => len,
        };
        Ok(Frame { time_us, len })
    }

    async fn frame_time(&mut self, index: u32) -> Result<u32, StoredError> {
        if index == self.front {
            if let Some(time) = self.ring.peek_time() {
                return Ok(time);
            }
        }
        let mut library = self.store.lock().await;
        let entry = match &mut self.reader {
            BoxTake::Flash(reader) => reader
                .entry(&mut library.store, index)
                .await
                .map_err(|_| StoredError::Read)?,
            BoxTake::Card(reader) => library
                .card
                .entry(reader, index)
                .await
                .map_err(|_| StoredError::Read)?,
        };
        Ok(entry.time_us)
    }
}

/// The frame after `index` in a take of `count` frames (0 after the last).
fn next(index: u32, count: u32) -> u32 {
    if index.saturating_add(1) >= count {
        0
    } else {
        index + 1
    }
}
