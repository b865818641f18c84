//! Wrong tokens cost time: each source (IPv4 address) that sends one waits
//! longer before its refusal, so guessing a token over the network is slow.
//! The delay doubles with each wrong token from the same source, up to
//! [`MAX_DELAY`], and is forgotten after [`FORGET_AFTER`] without one.

use core::cell::RefCell;

use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::blocking_mutex::Mutex;
use embassy_time::{Duration, Instant};

/// The delay after a source's first wrong token.
pub const FIRST_DELAY: Duration = Duration::from_millis(500);
/// The longest delay.
pub const MAX_DELAY: Duration = Duration::from_secs(16);
/// A source without a wrong token for this long starts again from [`FIRST_DELAY`].
pub const FORGET_AFTER: Duration = Duration::from_secs(300);
/// Sources remembered at once; the least recent is forgotten first.
const SOURCES: usize = 8;

#[derive(Clone, Copy)]
struct Entry {
    source: [u8; 4],
    wrong: u32,
    last: Instant,
}

/// Recent wrong tokens per source, shared by every connection of one box.
pub struct Penalties {
    entries: Mutex<CriticalSectionRawMutex, RefCell<[Option<Entry>; SOURCES]>>,
}

impl Penalties {
    /// Nobody penalized.
    pub const fn new() -> Self {
        Penalties {
            entries: Mutex::new(RefCell::new([None; SOURCES])),
        }
    }

    /// Counts a wrong token from `source` now; returns how long its refusal waits.
    pub fn wrong_token(&self, source: [u8; 4]) -> Duration {
        let now = Instant::now();
        self.entries.lock(|entries| {
            let mut entries = entries.borrow_mut();
            let fresh = |e: &Entry| now.saturating_duration_since(e.last) < FORGET_AFTER;
            let slot = match entries
                .iter()
                .position(|e| e.is_some_and(|e| e.source == source))
            {
                Some(i) => i,
                None => entries
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, e)| e.map(|e| e.last))
                    .map_or(0, |(i, _)| i),
            };
            let wrong = match entries[slot] {
                Some(e) if e.source == source && fresh(&e) => e.wrong.saturating_add(1),
                _ => 1,
            };
            entries[slot] = Some(Entry {
                source,
                wrong,
                last: now,
            });
            delay(wrong)
        })
    }

    /// How long `source` must still wait after its last wrong token (the
    /// delay that token earned), if at all. A door that cannot hold one
    /// client back without holding up the others (OSC over UDP) refuses a
    /// source's tokens unread while this runs.
    pub fn lockout(&self, source: [u8; 4]) -> Option<Duration> {
        let now = Instant::now();
        self.entries.lock(|entries| {
            let entries = entries.borrow();
            let e = entries.iter().flatten().find(|e| e.source == source)?;
            let until = e.last + delay(e.wrong);
            (until > now).then(|| until - now)
        })
    }
}

/// The delay after the `wrong`-th wrong token in a row (from 1).
fn delay(wrong: u32) -> Duration {
    // 2^5 doublings reach MAX_DELAY; more would only overflow.
    let doubled = FIRST_DELAY.as_ticks() << (wrong.max(1) - 1).min(5);
    Duration::from_ticks(doubled.min(MAX_DELAY.as_ticks()))
}

impl Default for Penalties {
    fn default() -> Self {
        Self::new()
    }
}
