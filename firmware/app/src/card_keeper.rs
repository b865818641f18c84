//! The card's keeper: mounts a card that comes in and checks its takes a
//! piece at a time ([`llv_card::Card::step`]), letting the player and
//! the doors at the library between pieces; notices a card pulled out;
//! writes the live recording's frames to the card ([`crate::black_box`]);
//! and plays the autoplay take once the first card scan since power-up
//! found it.
//!
//! A card is initialised (which takes up to its 1 s power-up) before the
//! keeper takes the library ([`llv_card::CardPort::look`]), so the doors
//! and the player are not held meanwhile. A card that is in but does not
//! come up (the slot says it stays busy past its power-up deadline, which
//! costs up to a second of the slot's time at every look) is looked at less
//! and less often, down to once every [`BACKOFF_MAX`], and `Status` reports
//! it unusable until it comes up or leaves the slot.

use embassy_futures::select::select;
use embassy_time::{Duration, Timer};
use embedded_storage_async::nor_flash::NorFlash;
use llv_card::{CardDriver, CardFault, Scanned};
use llv_core::settings::Settings;

use crate::black_box::write_queued;
use crate::device::{autoplay, BoxState};
use crate::fmt::{info, warning};
use crate::read_ahead::SharedLibrary;

/// How often the keeper steps the card when there is nothing to scan (the
/// card asks the slot whether it is in at most every
/// [`llv_card::card::LOOK_EVERY`]).
pub const STEP_EVERY: Duration = Duration::from_millis(250);

/// The longest wait between two looks at a card that does not come up.
pub const BACKOFF_MAX: Duration = Duration::from_secs(8);

/// How long the keeper waits before stepping an idle card again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backoff {
    wait: Duration,
}

impl Backoff {
    /// [`STEP_EVERY`].
    pub const fn new() -> Self {
        Backoff { wait: STEP_EVERY }
    }

    /// The wait after a look that found the card `unusable` or not: twice
    /// the last one while it stays unusable, at most [`BACKOFF_MAX`];
    /// [`STEP_EVERY`] otherwise.
    pub fn next(&mut self, unusable: bool) -> Duration {
        self.wait = if unusable {
            (self.wait * 2).min(BACKOFF_MAX)
        } else {
            STEP_EVERY
        };
        self.wait
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Self::new()
    }
}

/// Keeps the card forever (see the module docs).
pub async fn keep_card<F: NorFlash, D: CardDriver>(
    library: &SharedLibrary<F, D>,
    state: &BoxState,
    settings: &Settings,
) -> ! {
    let mut autoplayed = false;
    let mut backoff = Backoff::new();
    loop {
        // The live recording's frames go first: its queue is small.
        if write_queued(library, &state.black_box).await {
            embassy_futures::yield_now().await;
            continue;
        }
        // A card that came in initialises (up to its 1 s power-up) without
        // the library held: the doors and the player's top-up go on.
        let slot = library.lock().await.card.slot_to_look_at();
        if let Some(slot) = slot {
            slot.look().await;
        }
        let (scanned, unusable) = {
            let mut library = library.lock().await;
            let scanned = library.card.step().await;
            let unusable = match library.card.fault() {
                Some(CardFault::Unusable(why)) => Some(*why),
                _ => None,
            };
            (scanned, unusable)
        };
        match scanned {
            Scanned::Reading => embassy_futures::yield_now().await,
            Scanned::Checked { file, verdict } => {
                match verdict {
                    Ok(header) => info!(
                        "card: {=str} is \"{=str}\"",
                        file.as_str(),
                        header.name.as_str()
                    ),
                    Err(_) => warning!("card: {=str} not listed", file.as_str()),
                }
                embassy_futures::yield_now().await;
            }
            Scanned::Removed { file } => {
                info!("card: {=str} removed (an upload cut short)", file.as_str());
                embassy_futures::yield_now().await;
            }
            Scanned::Done => {
                info!("card scanned");
                let on_card = match &settings.autoplay {
                    Some(a) => library.lock().await.card.find(&a.take).await,
                    None => Ok(None),
                };
                let on_card = matches!(on_card, Ok(Some(_)));
                if !autoplayed && on_card && state.playing().is_none() {
                    autoplay(library, state, settings).await;
                }
                autoplayed = true;
            }
            Scanned::Idle => {
                let was_unusable = backoff.wait > STEP_EVERY;
                let wait = backoff.next(unusable.is_some());
                if let (Some(why), false) = (unusable, was_unusable) {
                    warning!(
                        "card: {=str}; looking again at most every {=u64} s",
                        why,
                        BACKOFF_MAX.as_secs()
                    );
                }
                select(Timer::after(wait), state.black_box.wait()).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unusable_card_is_looked_at_less_and_less_often() {
        let mut backoff = Backoff::new();
        let waits: Vec<u64> = (0..7).map(|_| backoff.next(true).as_millis()).collect();
        assert_eq!(waits, [500, 1000, 2000, 4000, 8000, 8000, 8000]);
    }

    #[test]
    fn anything_else_is_looked_at_every_step() {
        let mut backoff = Backoff::new();
        assert_eq!(backoff.next(false), STEP_EVERY);
        backoff.next(true);
        backoff.next(true);
        assert_eq!(backoff.next(false), STEP_EVERY);
        assert_eq!(backoff.next(true).as_millis(), 500);
    }
}
