//! The store's part of a power-up, the same on every board: mount the take
//! store, apply a factory reset if one was asked for, and decide from the
//! stored settings (only the ones that pass `Settings::check`, see
//! `Settings::usable`) how the network
//! comes up. Whatever is wrong becomes a [`Fault`] that `Status` reports; the
//! box always comes up.

use core::ops::Range;

use embedded_storage_async::nor_flash::NorFlash;
use heapless::Vec;
use llv_box_store::Store;
use llv_control::Paced;
use llv_core::control::{bounded, ClockSource, Fault, FaultCode, MAX_FAULTS};
use llv_core::settings::{Sender, Settings};

use embassy_sync::mutex::Mutex;

use crate::config::NetPolicy;
use crate::fmt::{info, warning};
use crate::library::BoxLibrary;
use crate::net::with_stored_address;
use crate::read_ahead::SharedLibrary;
use llv_card::{Card, CardDriver};

/// What the board knows about this power-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PowerUp {
    /// The factory-reset input was held: clear the settings, keep the takes.
    pub factory_reset: bool,
    /// The last reset came from the hardware watchdog.
    pub watchdog_reset: bool,
    /// What the board's clock runs from (the internal oscillator is a fault:
    /// less exact timing).
    pub clock: ClockSource,
}

/// The store, the network policy and the faults a power-up ends with (a
/// board keeps it in a static: the box's tasks borrow it, so no task's
/// future holds a copy of the store).
pub struct Booted<F, D: CardDriver> {
    /// The take library (the store on flash and the card), shared by the
    /// control session, the show doors, the card's keeper and the player.
    pub store: SharedLibrary<F, D>,
    /// The stored settings the box uses (those that pass the rules).
    pub settings: Settings,
    /// How the network comes up.
    pub net: NetPolicy,
    /// What is wrong, for `Status`.
    pub faults: Vec<Fault, MAX_FAULTS>,
    /// What the board's clock runs from, for `Status`.
    pub clock: ClockSource,
}

/// Mounts the store on `region` of `flash`, applies `power_up`, and returns it
/// beside `card` (mounted later, by the card's keeper) with `policy` changed
/// to the stored static address if it is usable.
pub async fn mount_store<F: NorFlash, D: CardDriver>(
    flash: F,
    region: Range<u32>,
    card: Card<D>,
    policy: NetPolicy,
    power_up: PowerUp,
) -> Booted<F, D> {
    let mut store = Store::mount(flash, region).await;
    let mut faults = Vec::new();
    let mut fault = |code, detail: &str| {
        warning!("{}", detail);
        // At most MAX_FAULTS can arise here.
        let _ = faults.push(Fault {
            code,
            detail: bounded(detail),
        });
    };
    if power_up.watchdog_reset {
        fault(
            FaultCode::WatchdogReset,
            "restarted by the watchdog after a hang",
        );
    }
    if power_up.clock == ClockSource::Internal {
        fault(
            FaultCode::ClockFallback,
            "no 8 MHz clock from the ST-LINK: timing from the internal RC oscillator",
        );
    }
    if power_up.factory_reset {
        match store.reset_settings().await {
            Ok(()) => fault(
                FaultCode::FactoryReset,
                "settings cleared by factory reset at power-up; takes kept",
            ),
            Err(_) => fault(
                FaultCode::FactoryReset,
                "factory reset asked for, but the settings could not be written",
            ),
        }
    }
    let (usable, bad) = store.settings().usable(Sender::Box);
    if let Some(e) = bad {
        let mut text: heapless::String<160> = heapless::String::new();
        // A longer text is cut where the buffer ends.
        let _ = core::fmt::write(&mut text, format_args!("stored {e}: ignored"));
        fault(FaultCode::BadStoredSetting, &text);
    }
    info!(
        "store mounted: {} takes, {} bytes free",
        store.list().len(),
        store.free_bytes()
    );
    Booted {
        net: with_stored_address(policy, usable.address.as_ref()),
        settings: usable,
        store: Mutex::new(Paced::new(BoxLibrary { store, card })),
        faults,
        clock: power_up.clock,
    }
}
