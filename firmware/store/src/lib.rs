//! The llv box's take store and control session, generic over any
//! `embedded_storage_async` NOR flash and free of the network stack.
//!
//! - [`store`]: takes in whole erase blocks with a commit record written last,
//!   so a power cut or a dropped upload never leaves a half take visible and
//!   never harms a committed one; plus the settings record.
//! - [`reader`]: the header, entries and packets of a stored take, for the player.
//! - [`server`]: one control connection's [`server::Session`]: decoded request in,
//!   response out; playback goes out through the [`server::Device`] trait.
//! - `mock` (feature `mock`): a NOR flash in RAM that cuts power on demand.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(any(test, feature = "mock"))]
extern crate std;

mod layout;
#[cfg(any(test, feature = "mock"))]
pub mod mock;
pub mod reader;
pub mod server;
mod settings_log;
pub mod store;

pub use reader::TakeReader;
pub use server::{Device, Session};
pub use store::{Store, StoreError};
