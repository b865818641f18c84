//! The hardware watchdog's keeper: it feeds the watchdog while the box is
//! well, so a hung box restarts (and autoplays again).
//!
//! Well means the executor runs (a task stuck in a loop starves this one) and
//! the player, while it plays, is not stuck: it has a frame in hand whose
//! deadline is not long past, or it sent one lately. A read that waits longer
//! than [`STALL_LIMIT`] for the store (a flash operation that never ends)
//! counts as a hang. Frames between which a take itself pauses do not.

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
