//! The llv box's microSD take library: take images (`docs/take-image.md`)
//! in files of a FAT16/FAT32 card, listed only once their CRC checked out.
//!
//! - [`card`]: the library ([`Card`]): mount and scan a card that comes in,
//!   read frames for the player, upload, delete, and what a card pulled out
//!   leaves.
//! - [`port`]: the card slot ([`CardPort`]): a board's async driver
//!   ([`Blocks`]) and the one block buffer the player's reads and the file
//!   system share.
//! - [`names`]: the folder and the 8.3 file names of takes.
//! - `image` (feature `std`): a card image in a host file, for `llv card`
//!   and the host tests.
//!
//! The file system is embedded-sdmmc (blocking, no alloc, one block cache):
//! it lists the folder and writes uploads, running the driver in place; the
//! player's and the scan's reads follow a take's clusters here and await
//! each block, so a slow card never stops the executor for them.
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod card;
#[cfg(feature = "std")]
pub mod image;
pub mod names;
pub mod port;

pub use card::{Card, CardError, CardFault, CardReader, CardTake, Scanned};
pub use port::{BlockBuf, BlockError, Blocks, CardPort, NoCard, Slot, BLOCK};
