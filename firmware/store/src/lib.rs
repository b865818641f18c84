//! The llv box's take store, generic over any `embedded_storage_async` NOR
//! flash and free of the network stack.
//!
//! - [`store`]: takes in whole erase blocks with a commit record written last,
//!   so a power cut or a dropped upload never leaves a half take visible and
//!   never harms a committed one; plus the settings record.
//! - [`reader`]: the header, entries and packets of a stored take, for the player.
//! - [`maybe`]: a flash the board may not have (its driver failed to start).
//! - `mock` (feature `mock`): a NOR flash in RAM that cuts power on demand.
//!
//! The control session that drives it over the network is `llv-control`, through the box's library (`llv-box`'s `library`).
//!
//! # Wiring it into the firmware
//!
//! - Boot: `Store::mount(flash, region).await` on a region of whole erase blocks
//!   (two for settings, the rest for takes), then autoplay:
//!   `store.settings().autoplay` names the take, `store.reader(name)` opens it,
//!   `store.settings().targets` says where to send it.
//! - Playback: a [`TakeReader`]'s `packet(store, i, buf)` gives frame `i`'s entry
//!   (time in µs from frame 0) and packet; loop after `header().period_us`. Share
//!   the store between the control task and the player behind a mutex. Reads
//!   after the take was deleted or replaced fail with `NotFound`.
//! - Flash: any `embedded_storage_async` NOR flash with read size 1 and a write
//!   size dividing 32 (STM32H7: 32-byte words, 128 KiB sectors).
//!   An erase holds the store for its whole duration (about a second per 128 KiB
//!   sector on the H7), so a player sharing the store stalls during uploads
//!   unless it reads ahead.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(any(test, feature = "mock"))]
extern crate std;

mod layout;
pub mod maybe;
#[cfg(any(test, feature = "mock"))]
pub mod mock;
pub mod reader;
mod settings_log;
pub mod store;

pub use maybe::MaybeFlash;
pub use reader::TakeReader;
pub use settings_log::{Unreadable, SCHEMA};
pub use store::{Store, StoreError, StoreFault};
