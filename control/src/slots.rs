//! Who gets a TCP connection slot, and who makes room for whom: the one door
//! policy of the box and `llv serve` (`docs/control-protocol.md`,
//! "Connections"), as a table that does no I/O. The box's listener and OSC
//! doors and `llv serve`'s accept loops run it through
//! [`crate::keeper::DoorKeeper`]; its tests move the clock and the source
//! addresses at will.
//!
//! A slot serves one [`Door`] (the box: one socket per slot, listening on
//! one port) or any (`llv serve`: threads, both ports). The rules:
//!
//! 1. A newcomer takes a free slot of its door.
//! 2. One slot of each door is kept free for the next newcomer, so the door
//!    never fills: when a newcomer takes the last free one, another
//!    connection of that door is closed.
//! 3. That victim comes from the source address holding the most
//!    connections (a laptop opening many connections closes its own
//!    first); among that address's connections (or, with one address,
//!    all): first one that has had [`GRACE`] to say `Hello` and has not
//!    (the oldest first); else one that said it and has sent nothing for
//!    [`GRACE`] (the quietest first); else one that has not said `Hello`
//!    yet (the oldest first); else the least recent of the rest (by its
//!    last request). So nobody holds the door, neither with idle sockets
//!    nor by saying `Hello` and asking for the status every few seconds:
//!    an operator always finds a slot, its `Hello` comes within a round
//!    trip, and once answered it outlasts every newcomer that has not
//!    spoken while its own requests keep it recent.
//! 4. A newcomer that finds no free slot (the last one was just taken) is
//!    refused, unless its address holds fewer connections than another
//!    address: then one of that address's connections is closed (as in
//!    rule 3) and the newcomer waits for its slot ([`Admission::Wait`]).
//!    The box cannot make a newcomer wait (no socket listens to accept it:
//!    it is reset); `llv serve` can. So a laptop reconnecting as fast as it
//!    can never keeps another address out of `llv serve`.
//!
//! A connection being closed is not chosen twice and counts as free for
//! rule 2 (its socket listens again in a moment); the newcomer never closes
//! itself. A door of one slot cannot keep one free: there a newcomer waits
//! for the slot.

use core::cmp::Reverse;

use embassy_time::{Duration, Instant};

/// How long a new connection, or one that just made a request, is the last
/// to be closed for room: far longer than any round trip to the box.
pub const GRACE: Duration = Duration::from_secs(1);

/// The door a TCP connection came through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Door {
    /// The binary control protocol (TCP 11113).
    Control,
    /// OSC over TCP.
    Osc,
    /// HTTP: the page and its API.
    Http,
}

/// A connection holding a slot.
#[derive(Clone, Copy, Debug)]
struct Held {
    source: [u8; 4],
    opened: Instant,
    last_request: Instant,
    hello: bool,
    /// Told to close for room.
    closing: bool,
    /// Its slot goes to a newcomer waiting for it (rule 4).
    promised: bool,
}

/// One slot.
#[derive(Clone, Copy, Debug)]
enum Slot {
    Free,
    Held(Held),
    /// Released, and promised to a waiting newcomer.
    Promised,
}

/// What opening a connection gave: its slot, and a connection to close to
/// keep one slot free (rule 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opened {
    /// The newcomer's slot.
    pub slot: usize,
    /// The slot whose connection is to be closed, if any.
    pub close: Option<usize>,
}

/// What a newcomer without a socket of its own gets ([`Slots::open`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// A free slot.
    Opened(Opened),
    /// The connection in `slot` is to be closed; the newcomer waits until it
    /// is released, then [`Slots::claim`]s it (rule 4).
    Wait {
        /// The slot promised to the newcomer.
        slot: usize,
    },
    /// No slot (rule 4).
    Refused,
}

/// The slots of one box: `N` of them, each serving one door or any.
#[derive(Clone, Debug)]
pub struct Slots<const N: usize> {
    doors: [Option<Door>; N],
    slots: [Slot; N],
}

impl<const N: usize> Slots<N> {
    /// Free slots; slot `i` serves `doors[i]` (`None`: any door).
    pub const fn new(doors: [Option<Door>; N]) -> Self {
        Slots {
            doors,
            slots: [Slot::Free; N],
        }
    }

    fn serves(&self, slot: usize, door: Door) -> bool {
        self.doors
            .get(slot)
            .is_some_and(|d| d.is_none_or(|d| d == door))
    }

    fn held(&self, slot: usize) -> Option<&Held> {
        match self.slots.get(slot) {
            Some(Slot::Held(h)) => Some(h),
            _ => None,
        }
    }

    /// Whether slot `slot` is free.
    pub fn is_free(&self, slot: usize) -> bool {
        matches!(self.slots.get(slot), Some(Slot::Free))
    }

    /// Connections from `source`, not counting those being closed.
    fn count(&self, source: [u8; 4]) -> usize {
        (0..N)
            .filter_map(|i| self.held(i))
            .filter(|h| !h.closing && h.source == source)
            .count()
    }

    /// Whether a newcomer of `door` would find a slot, or will in a moment
    /// (a connection of its door is being closed and nobody waits for it).
    fn room_for(&self, door: Door) -> bool {
        (0..N).any(|i| {
            self.serves(i, door)
                && match self.slots.get(i) {
                    Some(Slot::Free) => true,
                    Some(Slot::Held(h)) => h.closing && !h.promised,
                    _ => false,
                }
        })
    }

    /// A connection from `source` came through `door` at `now` (`llv
    /// serve`: accepted, without a slot yet): a free slot, a slot to wait
    /// for, or none (rules 1 and 4).
    pub fn open(&mut self, door: Door, source: [u8; 4], now: Instant) -> Admission {
        if let Some(slot) = (0..N).find(|&i| self.serves(i, door) && self.is_free(i)) {
            return Admission::Opened(self.open_at(slot, door, source, now));
        }
        let mine = self.count(source);
        let busiest = (0..N)
            .filter(|&i| self.serves(i, door))
            .filter_map(|i| self.held(i))
            .filter(|h| !h.closing)
            .map(|h| self.count(h.source))
            .max()
            .unwrap_or(0);
        if busiest <= mine {
            return Admission::Refused;
        }
        match self.choose(door, None, now, busiest) {
            Some(slot) => {
                if let Some(Slot::Held(h)) = self.slots.get_mut(slot) {
                    h.promised = true;
                }
                Admission::Wait { slot }
            }
            None => Admission::Refused,
        }
    }

    /// A connection from `source` came through `door` at `now` on the
    /// socket of slot `slot` (free and listening, or promised to it).
    pub fn open_at(&mut self, slot: usize, door: Door, source: [u8; 4], now: Instant) -> Opened {
        if let Some(s) = self.slots.get_mut(slot) {
            *s = Slot::Held(Held {
                source,
                opened: now,
                last_request: now,
                hello: false,
                closing: false,
                promised: false,
            });
        }
        let close = if self.room_for(door) {
            None
        } else {
            self.choose(door, Some(slot), now, 0)
        };
        Opened { slot, close }
    }

    /// The newcomer that waited for `slot` takes it, now released (see
    /// [`Admission::Wait`]); `None` if it is not released yet.
    pub fn claim(
        &mut self,
        slot: usize,
        door: Door,
        source: [u8; 4],
        now: Instant,
    ) -> Option<Opened> {
        match self.slots.get(slot) {
            Some(Slot::Promised) => Some(self.open_at(slot, door, source, now)),
            _ => None,
        }
    }

    /// The newcomer that waited for `slot` gave up: the slot is free again
    /// once released.
    pub fn forsake(&mut self, slot: usize) {
        match self.slots.get_mut(slot) {
            Some(s @ Slot::Promised) => *s = Slot::Free,
            Some(Slot::Held(h)) => h.promised = false,
            _ => {}
        }
    }

    /// The connection in `slot` made a request at `now`; `hello`: whether it
    /// holds an accepted `Hello` now.
    pub fn request(&mut self, slot: usize, hello: bool, now: Instant) {
        if let Some(Slot::Held(held)) = self.slots.get_mut(slot) {
            held.last_request = now;
            held.hello = hello;
        }
    }

    /// The connection in `slot` ended: the slot is free, or goes to the
    /// newcomer waiting for it.
    pub fn release(&mut self, slot: usize) {
        if let Some(s) = self.slots.get_mut(slot) {
            *s = match s {
                Slot::Held(h) if h.promised => Slot::Promised,
                _ => Slot::Free,
            };
        }
    }

    /// Picks the connection of `door` to close for room at `now`, other
    /// than `asking`'s (and from a source holding at least `least`
    /// connections), and marks it closing (rule 3).
    fn choose(
        &mut self,
        door: Door,
        asking: Option<usize>,
        now: Instant,
        least: usize,
    ) -> Option<usize> {
        let victim = (0..N)
            .filter(|&i| Some(i) != asking && self.serves(i, door))
            .filter_map(|i| Some((i, *self.held(i)?)))
            .filter(|(_, h)| !h.closing && self.count(h.source) >= least)
            .min_by_key(|(_, h)| {
                let since = if h.hello { h.last_request } else { h.opened };
                let young = now.saturating_duration_since(since) < GRACE;
                let tier = match (young, h.hello) {
                    (false, false) => 0,
                    (false, true) => 1,
                    (true, false) => 2,
                    (true, true) => 3,
                };
                (Reverse(self.count(h.source)), tier, since)
            })
            .map(|(i, _)| i)?;
        if let Some(Slot::Held(h)) = self.slots.get_mut(victim) {
            h.closing = true;
        }
        Some(victim)
    }
}
