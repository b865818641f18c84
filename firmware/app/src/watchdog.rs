//! The hardware watchdog's keeper: it feeds the watchdog while the box is
//! well, so a hung box restarts (and autoplays again).
//!
//! Well means the executor runs (a task stuck in a loop starves this one) and
//! the player, while it plays, is not stuck: it has a frame in hand whose
//! deadline is not long past, or it sent one lately. A read that waits longer
//! than [`STALL_LIMIT`] for the store (a flash operation that never ends)
//! counts as a hang. Frames between which a take itself pauses do not.
//!
//! Before the box runs (the store's mount, the network's set-up) a board
//! that starts its watchdog early feeds it through a [`Handover`]: its boot
//! side feeds while the executor runs, for at most [`BOOT_LIMIT`], and stops
//! once the box's keeper has fed it the first time.

use core::sync::atomic::{AtomicBool, Ordering};

use embassy_time::{Duration, Instant, Timer};

use crate::device::BoxState;

/// How often the watchdog is fed.
pub const FEED_EVERY: Duration = Duration::from_millis(250);

/// How long the player may show no life while it plays: longer than the
/// STM32H7's worst sector erase (2.2 s) that an empty read-ahead may wait for.
pub const STALL_LIMIT: Duration = Duration::from_secs(5);

/// A hardware watchdog that must be fed before it runs out.
pub trait Watchdog {
    /// Restarts the watchdog's countdown.
    fn feed(&mut self);
}

/// Feeds `watchdog` every [`FEED_EVERY`] as long as the box is well; never returns.
pub async fn keep<W: Watchdog>(watchdog: &mut W, state: &BoxState) -> ! {
    loop {
        if !state.player_stalled(Instant::now(), STALL_LIMIT) {
            watchdog.feed();
        }
        Timer::after(FEED_EVERY).await;
    }
}

/// How long a power-up may take before the box's keeper feeds the watchdog:
/// past it the boot side stops feeding and the watchdog restarts the box.
/// Far above the slowest mount (the store's recovery erases, 2.2 s each at
/// worst on the STM32H7) and the network's set-up.
pub const BOOT_LIMIT: Duration = Duration::from_secs(30);

/// The watchdog's hand-over from the power-up to the box's keeper.
pub struct Handover {
    taken: AtomicBool,
}

impl Handover {
    /// Not yet taken over.
    pub const fn new() -> Self {
        Handover {
            taken: AtomicBool::new(false),
        }
    }

    /// Feeds `watchdog` every [`FEED_EVERY`] until the keeper's first feed
    /// (through [`Handover::keeper`]) or [`BOOT_LIMIT`] after the call,
    /// whichever comes first; returns whether the keeper took over.
    pub async fn boot<W: Watchdog>(&self, mut watchdog: W) -> bool {
        let until = Instant::now() + BOOT_LIMIT;
        while !self.taken.load(Ordering::Acquire) {
            if Instant::now() >= until {
                return false;
            }
            watchdog.feed();
            Timer::after(FEED_EVERY).await;
        }
        true
    }

    /// `watchdog` for the box's keeper: its first feed ends the boot side's.
    pub fn keeper<W: Watchdog>(&self, watchdog: W) -> Keeper<'_, W> {
        Keeper {
            handover: self,
            watchdog,
        }
    }
}

impl Default for Handover {
    fn default() -> Self {
        Self::new()
    }
}

/// The box keeper's watchdog (see [`Handover::keeper`]).
pub struct Keeper<'a, W> {
    handover: &'a Handover,
    watchdog: W,
}

impl<W: Watchdog> Watchdog for Keeper<'_, W> {
    fn feed(&mut self) {
        self.handover.taken.store(true, Ordering::Release);
        self.watchdog.feed();
    }
}
