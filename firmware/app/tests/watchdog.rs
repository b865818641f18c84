//! The watchdog's hand-over from the power-up to the box's keeper.

mod common;

use std::cell::Cell;

use embassy_futures::join::join;
use embassy_time::{Duration, Instant, Timer};
use llv_box::watchdog::{Handover, Watchdog, BOOT_LIMIT, FEED_EVERY};

use common::{clock, on_mock_clock};

/// A watchdog that notes when it was fed.
struct Fed<'a>(&'a Cell<Vec<Instant>>);

impl Watchdog for Fed<'_> {
    fn feed(&mut self) {
        let mut fed = self.0.take();
        fed.push(Instant::now());
        self.0.set(fed);
    }
}

#[test]
fn the_boot_side_feeds_until_the_keeper_feeds_then_stops() {
    let _clock = clock();
    let booting = Cell::new(Vec::new());
    let keeping = Cell::new(Vec::new());
    let handover = Handover::new();
    let start = Instant::now();
    let (took_over, ()) = on_mock_clock(
        join(handover.boot(Fed(&booting)), async {
            // A power-up of 2 s, then the keeper feeds a few times.
            Timer::after(Duration::from_secs(2)).await;
            let mut keeper = handover.keeper(Fed(&keeping));
            for _ in 0..8 {
                keeper.feed();
                Timer::after(FEED_EVERY).await;
            }
        }),
        Duration::from_millis(10),
        Duration::from_secs(60),
    );
    assert!(took_over);
    let booting = booting.take();
    // Fed at once, then every FEED_EVERY through the 2 s power-up ...
    assert_eq!(booting.first().copied(), Some(start));
    assert!(booting.windows(2).all(|w| w[1] - w[0] == FEED_EVERY));
    // ... and not past the keeper's first feed.
    let handed_at = start + Duration::from_secs(2);
    assert!(booting.iter().all(|&t| t <= handed_at), "{booting:?}");
    assert_eq!(keeping.take().len(), 8);
}

#[test]
fn a_power_up_that_never_hands_over_stops_being_fed() {
    let _clock = clock();
    let booting = Cell::new(Vec::new());
    let handover = Handover::new();
    let start = Instant::now();
    let took_over = on_mock_clock(
        handover.boot(Fed(&booting)),
        Duration::from_millis(10),
        BOOT_LIMIT * 2,
    );
    assert!(!took_over);
    let booting = booting.take();
    let last = *booting.last().unwrap();
    assert!(last < start + BOOT_LIMIT, "fed at {last:?}");
    assert!(last + FEED_EVERY >= start + BOOT_LIMIT);
    // Past the limit nothing feeds: the watchdog restarts the box.
    assert!(Instant::now() >= start + BOOT_LIMIT);
}
