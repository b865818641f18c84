//! The box's black box: the live frames the relay hands over ([`BlackBox::keep`],
//! which never waits: a full queue loses the frame and counts it), queued in
//! RAM until the card's keeper writes them to the card's journal
//! ([`write_queued`], through [`llv_card::Card::record`]). A slow card never
//! delays the relay; the journal is made a take when the recording ends.

use core::cell::RefCell;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::blocking_mutex::Mutex;
use embassy_sync::signal::Signal;
use embedded_storage_async::nor_flash::NorFlash;
use llv_card::journal::{Head, HEAD};
use llv_card::{CardDriver, CardError, BLOCK};

use crate::fmt::{info, warning};
use crate::read_ahead::SharedLibrary;

/// Bytes of frames the queue holds: six of the phone's usual frames.
pub const QUEUE: usize = 2048;
/// Frames the keeper writes before it lets the card's other work run.
const WRITE_BURST: usize = 4;

/// Records (head, then packet) in a ring of bytes.
struct Ring {
    bytes: [u8; QUEUE],
    /// Where the oldest record starts, and the bytes in use.
    start: usize,
    used: usize,
}

impl Ring {
    fn at(&self, i: usize) -> u8 {
        self.bytes
            .get((self.start + i) % QUEUE)
            .copied()
            .unwrap_or(0)
    }

    /// The oldest record's length (head and packet), if there is one.
    fn front_len(&self) -> Option<usize> {
        if self.used < HEAD {
            return None;
        }
        let len = u16::from_le_bytes([self.at(4), self.at(5)]);
        Some(HEAD + usize::from(len))
    }

    fn push(&mut self, head: &Head, packet: &[u8]) -> bool {
        let len = HEAD + packet.len();
        if QUEUE - self.used < len {
            return false;
        }
        let end = self.start + self.used;
        let head = head.emit();
        for (i, b) in head.iter().chain(packet).enumerate() {
            if let Some(slot) = self.bytes.get_mut((end + i) % QUEUE) {
                *slot = *b;
            }
        }
        self.used += len;
        true
    }

    fn pop(&mut self) {
        if let Some(len) = self.front_len() {
            self.start = (self.start + len) % QUEUE;
            self.used -= len.min(self.used);
        }
    }
}

/// The queue between the relay and the card, and the recording's counts.
pub struct BlackBox {
    ring: Mutex<CriticalSectionRawMutex, RefCell<Ring>>,
    /// Wakes the keeper: the relay sent, or the recording began or ended.
    wake: Signal<CriticalSectionRawMutex, ()>,
    /// The relay just sent: the card may write until its next send.
    clear: AtomicBool,
    /// Whether the relay records.
    on: AtomicBool,
    /// Frames the queue or the card lost since the recording began.
    lost: AtomicU32,
    /// The card refused the recording's journal: its frames are dropped
    /// (counted) until the next recording.
    refused: AtomicBool,
    /// Bytes of the recording on the card.
    bytes: AtomicU32,
}

impl BlackBox {
    /// Off, empty.
    pub const fn new() -> Self {
        BlackBox {
            ring: Mutex::new(RefCell::new(Ring {
                bytes: [0; QUEUE],
                start: 0,
                used: 0,
            })),
            wake: Signal::new(),
            clear: AtomicBool::new(false),
            on: AtomicBool::new(false),
            lost: AtomicU32::new(0),
            refused: AtomicBool::new(false),
            bytes: AtomicU32::new(0),
        }
    }

    /// The relay starts (`true`) or ends a recording.
    pub fn set_on(&self, on: bool) {
        if on {
            self.lost.store(0, Ordering::Relaxed);
            self.bytes.store(0, Ordering::Relaxed);
            self.refused.store(false, Ordering::Relaxed);
        }
        self.on.store(on, Ordering::Relaxed);
        self.wake.signal(());
    }

    /// Queues a live frame with its head; never waits (a full queue loses
    /// it). The card hears of it at [`BlackBox::sent`].
    pub fn keep(&self, head: &Head, packet: &[u8]) {
        let kept = self.ring.lock(|r| r.borrow_mut().push(head, packet));
        if !kept {
            self.lost.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The relay sent what was due: the card may write what is queued (and
    /// the journal's size) now, a period away from the next send (a card
    /// that holds the processor while it writes, as QEMU's does, then
    /// delays no frame).
    pub fn sent(&self) {
        self.clear.store(true, Ordering::Relaxed);
        self.wake.signal(());
    }

    /// Whether the queue is over half full (written then even between
    /// sends: a lost frame is worse than a late one).
    fn filling(&self) -> bool {
        self.ring.lock(|r| r.borrow().used > QUEUE / 2)
    }

    /// Bytes of the recording on the card.
    pub fn bytes(&self) -> u32 {
        self.bytes.load(Ordering::Relaxed)
    }

    /// Frames lost since the recording began.
    pub fn lost(&self) -> u32 {
        self.lost.load(Ordering::Relaxed)
    }

    /// Whether a frame is queued.
    fn pending(&self) -> bool {
        self.ring.lock(|r| r.borrow().front_len().is_some())
    }

    /// Copies block `k` of the oldest record (as laid out in the journal)
    /// into `out`, which is zeros.
    fn front_block(&self, k: usize, out: &mut [u8; BLOCK]) {
        self.ring.lock(|r| {
            let r = r.borrow();
            let len = r.front_len().unwrap_or(0);
            for (i, o) in out.iter_mut().enumerate() {
                let at = k * BLOCK + i;
                if at < len {
                    *o = r.at(at);
                }
            }
        });
    }

    fn pop(&self) {
        self.ring.lock(|r| r.borrow_mut().pop());
    }

    /// Waits until there is something for the card: frames, or the end.
    pub async fn wait(&self) {
        self.wake.wait().await;
    }
}

impl Default for BlackBox {
    fn default() -> Self {
        Self::new()
    }
}

/// Writes what the relay queued to the card's journal (a few frames at a
/// time): the journal is begun as soon as the relay records (before its
/// first frame, so its making delays none), and ended (which makes it a
/// take) once the relay stopped recording and the queue is empty. `true`
/// while frames are left.
pub async fn write_queued<F: NorFlash, D: CardDriver>(
    library: &SharedLibrary<F, D>,
    black_box: &BlackBox,
) -> bool {
    let on = black_box.on.load(Ordering::Relaxed);
    if on && !black_box.refused.load(Ordering::Relaxed) {
        let mut library = library.lock().await;
        if library.card.recording().is_none() {
            match library.card.begin_recording().await {
                Ok(name) => info!("black box: recording {=str}", name.as_str()),
                Err(e) => {
                    // No card, or none that takes it: tried once a
                    // recording, its frames lost (and counted).
                    let why = match e {
                        CardError::NoCard | CardError::Removed => "no card",
                        CardError::FolderFull | CardError::NoSpace => "the card is full",
                        _ => "the card refused its journal",
                    };
                    warning!("black box: no recording: {=str}", why);
                    black_box.refused.store(true, Ordering::Relaxed);
                }
            }
        }
    }
    // Frames go to the card just after the relay sent (the next send a
    // period away), when the queue fills, or once the relay stopped.
    let clear = black_box.clear.swap(false, Ordering::Relaxed) || !on || black_box.filling();
    for _ in 0..WRITE_BURST {
        if !clear || !black_box.pending() {
            break;
        }
        let mut library = library.lock().await;
        let card = &mut library.card;
        let written = match card.recording() {
            Some(_) => card.record(|k, b| black_box.front_block(k, b)).await,
            None => Ok(false),
        };
        black_box.pop();
        if !matches!(written, Ok(true)) {
            black_box.lost.fetch_add(1, Ordering::Relaxed);
        }
        if let Some((_, _, bytes)) = card.recording() {
            black_box.bytes.store(bytes, Ordering::Relaxed);
        }
    }
    if clear && black_box.pending() {
        return true;
    }
    let mut library = library.lock().await;
    if on {
        if !clear {
            return false;
        }
        if library.card.recording().is_some() && library.card.sync_recording().await.is_err() {
            warning!("black box: the card did not take the recording's size");
        }
    } else if let Some((_, frames, _)) = library.card.recording() {
        let lost = black_box.lost();
        match library.card.end_recording().await {
            Ok(()) => info!(
                "black box: ended with {=u32} frames, {=u32} lost",
                frames, lost
            ),
            Err(_) => warning!("black box: the card did not take the recording's end"),
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use llv_card::journal::record_block;

    fn head(len: usize) -> Head {
        Head {
            arrival_us: 7,
            len: len as u16,
            starts: false,
            time_us: 1000,
            period_us: 2000,
        }
    }

    #[test]
    fn the_queue_hands_out_records_as_the_journal_lays_them_out_through_its_wrap() {
        let b = BlackBox::new();
        for round in 0..20u8 {
            let packet: Vec<u8> = (0..300 + usize::from(round) * 20)
                .map(|i| (i as u8) ^ round)
                .collect();
            b.keep(&head(packet.len()), &packet);
            assert!(b.pending());
            for k in 0..2 {
                let (mut got, mut want) = ([0u8; BLOCK], [0u8; BLOCK]);
                b.front_block(k, &mut got);
                record_block(&head(packet.len()), &packet, k, &mut want);
                assert_eq!(got, want, "round {round}, block {k}");
            }
            b.pop();
            assert!(!b.pending());
        }
        assert_eq!(b.lost(), 0);
    }

    #[test]
    fn a_full_queue_loses_the_frame_and_counts_it() {
        let b = BlackBox::new();
        let packet = [1u8; 700];
        let fits = QUEUE / (HEAD + packet.len());
        for _ in 0..fits + 2 {
            b.keep(&head(packet.len()), &packet);
        }
        assert_eq!(b.lost(), 2);
        for _ in 0..fits {
            assert!(b.pending());
            b.pop();
        }
        assert!(!b.pending());
    }
}
