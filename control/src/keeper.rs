//! The door keeper: one table of connection slots ([`Slots`], the door
//! policy) shared by every connection of a box over both TCP doors, and a
//! way to tell a connection to close. The box's listener and OSC doors use
//! [`DoorKeeper::open_at`] (each socket is a slot), `llv serve`'s accept
//! loops [`DoorKeeper::open`] (which may wait for a slot being freed for
//! it); each connection reports its requests through its [`KeptSeat`] and
//! runs until it ends or [`DoorKeeper::closing`] fires.

use core::cell::RefCell;

use embassy_sync::blocking_mutex::raw::RawMutex;
use embassy_sync::blocking_mutex::Mutex;
use embassy_sync::signal::Signal;
use embassy_time::{with_timeout, Duration, Instant};

use crate::door::Seat;
use crate::slots::{Admission, Door, Slots};

/// The longest a newcomer waits for a slot being freed for it: a
/// connection told to close ends within a round trip.
pub const CLAIM_WAIT: Duration = Duration::from_secs(1);

/// The slots of one box and a close signal per slot.
pub struct DoorKeeper<M: RawMutex, const N: usize> {
    slots: Mutex<M, RefCell<Slots<N>>>,
    close: [Signal<M, ()>; N],
    released: [Signal<M, ()>; N],
}

impl<M: RawMutex, const N: usize> DoorKeeper<M, N> {
    /// Free slots; slot `i` serves `doors[i]` (`None`: any door).
    pub const fn new(doors: [Option<Door>; N]) -> Self {
        DoorKeeper {
            slots: Mutex::new(RefCell::new(Slots::new(doors))),
            close: [const { Signal::new() }; N],
            released: [const { Signal::new() }; N],
        }
    }

    fn tell(&self, close: Option<usize>) {
        if let Some(signal) = close.and_then(|i| self.close.get(i)) {
            signal.signal(());
        }
    }

    fn reset(&self, slot: usize) {
        if let Some(signal) = self.close.get(slot) {
            signal.reset();
        }
    }

    /// A connection from `source` came through `door`: its slot, or `None`
    /// when it is refused (close it at once). Another connection may be told
    /// to close, to keep a slot free or to free one for this newcomer (it
    /// then waits, at most [`CLAIM_WAIT`], for that slot).
    pub async fn open(&self, door: Door, source: [u8; 4]) -> Option<usize> {
        let admission = self
            .slots
            .lock(|s| s.borrow_mut().open(door, source, Instant::now()));
        let opened = match admission {
            Admission::Opened(opened) => opened,
            Admission::Refused => return None,
            Admission::Wait { slot } => {
                let released = self.released.get(slot)?;
                released.reset();
                self.tell(Some(slot));
                // Released or not, the slot is claimed if it can be.
                let _ = with_timeout(CLAIM_WAIT, released.wait()).await;
                let claimed = self.slots.lock(|s| {
                    let mut s = s.borrow_mut();
                    let claimed = s.claim(slot, door, source, Instant::now());
                    if claimed.is_none() {
                        s.forsake(slot);
                    }
                    claimed
                });
                claimed?
            }
        };
        self.reset(opened.slot);
        self.tell(opened.close);
        Some(opened.slot)
    }

    /// A connection from `source` came through `door` on slot `slot`'s
    /// socket. Another connection may be told to close to keep a slot free.
    pub fn open_at(&self, slot: usize, door: Door, source: [u8; 4]) {
        let opened = self
            .slots
            .lock(|s| s.borrow_mut().open_at(slot, door, source, Instant::now()));
        self.reset(slot);
        self.tell(opened.close);
    }

    /// What the connection in `slot` reports through.
    pub fn seat(&self, slot: usize) -> KeptSeat<'_, M, N> {
        KeptSeat { keeper: self, slot }
    }

    /// Waits until the connection in `slot` is told to close (to make room).
    pub async fn closing(&self, slot: usize) {
        match self.close.get(slot) {
            Some(signal) => signal.wait().await,
            None => core::future::pending().await,
        }
    }

    /// The connection in `slot` ended: its slot is free (or goes to the
    /// newcomer waiting for it).
    pub fn release(&self, slot: usize) {
        self.slots.lock(|s| s.borrow_mut().release(slot));
        if let Some(released) = self.released.get(slot) {
            released.signal(());
        }
    }
}

/// A connection's seat: where it reports its requests.
pub struct KeptSeat<'k, M: RawMutex, const N: usize> {
    keeper: &'k DoorKeeper<M, N>,
    slot: usize,
}

impl<M: RawMutex, const N: usize> Seat for KeptSeat<'_, M, N> {
    fn request(&self, authenticated: bool) {
        self.keeper.slots.lock(|s| {
            s.borrow_mut()
                .request(self.slot, authenticated, Instant::now())
        });
    }
}
