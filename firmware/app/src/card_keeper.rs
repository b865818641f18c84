//! The card's keeper: mounts a card that comes in and checks its takes a
//! piece at a time ([`llv_card::Card::step`]), letting the player and
//! the doors at the library between pieces; notices a card pulled out; and
//! plays the autoplay take once the first card scan since power-up found it.

use embassy_time::{Duration, Timer};
use embedded_storage_async::nor_flash::NorFlash;
use llv_card::{Scanned, Slot};
use llv_core::settings::Settings;

use crate::device::{autoplay, BoxState};
use crate::fmt::{info, warning};
use crate::read_ahead::SharedLibrary;

/// How often the keeper steps the card when there is nothing to scan (the
/// card asks the slot whether it is in at most every
/// [`llv_card::card::LOOK_EVERY`]).
pub const STEP_EVERY: Duration = Duration::from_millis(250);

/// Keeps the card forever (see the module docs).
pub async fn keep_card<F: NorFlash, D: Slot>(
    library: &SharedLibrary<F, D>,
    state: &BoxState,
    settings: &Settings,
) -> ! {
    let mut autoplayed = false;
    loop {
        let scanned = library.lock().await.card.step().await;
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
            Scanned::Idle => Timer::after(STEP_EVERY).await,
        }
    }
}
