//! The llv box's microSD take library: take images (`docs/take-image.md`)
//! in files of a FAT12/16/32 card, listed only once their CRC checked out.
//!
//! - [`card`]: the library ([`Card`]): mount and scan a card that comes in,
//!   read frames for the player, upload through a temporary file, delete,
//!   and what a card pulled out leaves.
//! - [`port`]: the card's blocks for the file system: a board's async
//!   driver ([`Blocks`]) served by [`serve`] through a [`Link`] to the
//!   [`Port`] the file system polls.
//! - [`names`]: the folder and the 8.3 file names of takes.
//! - `image` (feature `std`): a card image in a host file, for `llv card`
//!   and the host tests.
//!
//! The file system is hadris-fat's allocation-free async driver: async, so a
//! card's latency spike waits on the executor instead of stopping it (the
//! player and the network run meanwhile); embedded-sdmmc, the other
//! maintained no-alloc FAT crate, has only a blocking block-device trait.
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod card;
#[cfg(feature = "std")]
pub mod image;
pub mod names;
pub mod port;

pub use card::{Card, CardError, CardFault, CardReader, CardTake, Scanned, Slot};
pub use port::{serve, BlockError, Blocks, Link, Port, BLOCK};

impl card::Slot for Port<'_> {
    fn is_removal(e: &BlockError) -> bool {
        *e == BlockError::Removed
    }
}

/// Mount tokens for the card's volumes: one per insertion since power-up.
pub use hadris_fat::embedded::MountToken;
