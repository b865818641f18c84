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
//! 1. A newcomer takes a free slot of its door; without one it is refused
//!    (the box has no socket listening; `llv serve` closes it at once).
//! 2. One slot of each door is kept free for the next newcomer, so the door
//!    never fills: when a newcomer takes the last free one, another
//!    connection of that door is closed. First one that has had [`GRACE`]
//!    to say `Hello` and has not (the oldest first); else one that said it
//!    and has sent nothing for [`GRACE`] (the quietest first); else the
//!    least recent of the rest (by when it opened, or its last request).
//!    So nobody holds the door, neither with idle sockets nor by saying
//!    `Hello` and asking for the status every few seconds: an operator
//!    always finds a slot, its `Hello` comes within a round trip, and its
//!    own requests keep it the most recent.
//! 3. Within each of those, the victim comes from the source address
//!    holding the most connections: a laptop opening many connections
//!    closes its own first.
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
}

/// A connection holding a slot.
#[derive(Clone, Copy, Debug)]
struct Held {
    source: [u8; 4],
    opened: Instant,
    last_request: Instant,
    hello: bool,
    closing: bool,
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

/// The slots of one box: `N` of them, each serving one door or any.
#[derive(Clone, Debug)]
pub struct Slots<const N: usize> {
    doors: [Option<Door>; N],
    held: [Option<Held>; N],
}

impl<const N: usize> Slots<N> {
    /// Free slots; slot `i` serves `doors[i]` (`None`: any door).
    pub const fn new(doors: [Option<Door>; N]) -> Self {
        Slots {
            doors,
            held: [None; N],
        }
    }

    fn serves(&self, slot: usize, door: Door) -> bool {
        self.doors
            .get(slot)
            .is_some_and(|d| d.is_none_or(|d| d == door))
    }

    /// Whether slot `slot` is free.
    pub fn is_free(&self, slot: usize) -> bool {
        self.held.get(slot).is_some_and(Option::is_none)
    }

    /// Whether a newcomer of `door` would find a slot (rule 1), or will in a
    /// moment (a connection of its door is being closed).
    fn room_for(&self, door: Door) -> bool {
        (0..N).any(|i| {
            self.serves(i, door)
                && self
                    .held
                    .get(i)
                    .is_some_and(|h| h.is_none_or(|h| h.closing))
        })
    }

    /// A connection from `source` came through `door` at `now`: the free
    /// slot it takes, or `None` if it is refused (rule 1).
    pub fn open(&mut self, door: Door, source: [u8; 4], now: Instant) -> Option<Opened> {
        let slot = (0..N).find(|&i| self.serves(i, door) && self.is_free(i))?;
        Some(self.open_at(slot, door, source, now))
    }

    /// A connection from `source` came through `door` at `now` on the
    /// socket of slot `slot` (which was free and listening).
    pub fn open_at(&mut self, slot: usize, door: Door, source: [u8; 4], now: Instant) -> Opened {
        if let Some(held) = self.held.get_mut(slot) {
            *held = Some(Held {
                source,
                opened: now,
                last_request: now,
                hello: false,
                closing: false,
            });
        }
        let close = if self.room_for(door) {
            None
        } else {
            self.choose(door, slot, now)
        };
        Opened { slot, close }
    }

    /// The connection in `slot` made a request at `now`; `hello`: whether it
    /// holds an accepted `Hello` now.
    pub fn request(&mut self, slot: usize, hello: bool, now: Instant) {
        if let Some(Some(held)) = self.held.get_mut(slot) {
            held.last_request = now;
            held.hello = hello;
        }
    }

    /// The connection in `slot` ended: the slot is free.
    pub fn release(&mut self, slot: usize) {
        if let Some(held) = self.held.get_mut(slot) {
            *held = None;
        }
    }

    /// Picks the connection of `door` to close for room at `now`, other
    /// than `asking`'s, and marks it closing (rules 2 and 3).
    fn choose(&mut self, door: Door, asking: usize, now: Instant) -> Option<usize> {
        let held = &self.held;
        let count = |source: [u8; 4]| {
            held.iter()
                .flatten()
                .filter(|h| !h.closing && h.source == source)
                .count()
        };
        let victim = (0..N)
            .filter(|&i| i != asking && self.serves(i, door))
            .filter_map(|i| Some((i, (*held.get(i)?)?)))
            .filter(|(_, h)| !h.closing)
            .min_by_key(|(_, h)| {
                let since = if h.hello { h.last_request } else { h.opened };
                let young = now.saturating_duration_since(since) < GRACE;
                let tier = match (young, h.hello) {
                    (false, false) => 0,
                    (false, true) => 1,
                    (true, _) => 2,
                };
                (tier, Reverse(count(h.source)), since)
            })
            .map(|(i, _)| i)?;
        if let Some(Some(h)) = self.held.get_mut(victim) {
            h.closing = true;
        }
        Some(victim)
    }
}
