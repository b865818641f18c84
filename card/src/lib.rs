//! The llv box's microSD take library: take images (`docs/take-image.md`)
//! in files of a FAT16/FAT32 card, listed only once their CRC checked out.
//! The same code runs on the box and in `llv card` (over an image file).
//!
//! Every block the card reads or writes is awaited, the file system's too:
//! a slow card or a 30 MB upload holds no one but the task that asked, and
//! the player plays on. The FAT code is this crate's own for that reason
//! (the FAT crates of the field block, or need an allocator).
//!
//! | module | what it holds |
//! |---|---|
//! | [`card`] | the library ([`Card`]): mount, scan, play, upload, delete, a card pulled out |
//! | [`scan`] | the scan of a card that came in: each take file checked once, litter passed over |
//! | [`upload`] | an upload's file, written a block at a time, the magic last |
//! | [`journal`] | the live recording: frames appended to a journal file, its size kept up to date every second |
//! | [`convert`] | a journal made a take, a piece at a time, through the upload contract |
//! | [`grow`] | a file growing a block at a time: its clusters allocated and chained |
//! | [`index`] | the bounded index of a card's takes in RAM, headers read from the card |
//! | [`mount`] | a mounted volume: allocation, deletes and the free count kept right |
//! | [`dir`] | directory entries: read with their long names' place, made, deleted |
//! | [`fat`] | the volume's layout, cluster chains and the FAT |
//! | [`format`] | a card made ready: an MBR and FAT32 as the SD specification lays them out |
//! | [`error`] | [`CardError`], [`CardFault`], [`VolumeError`] |
//! | [`port`] | the card slot ([`CardPort`]): a board's async driver ([`Blocks`]) and one block buffer |
//! | [`names`] | the folder, 8.3 file names, what laptops leave |
//! | `image` | (feature `std`) a card image in a host file, for `llv card` and the host tests |
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod card;
pub mod convert;
pub mod dir;
pub mod error;
pub mod fat;
pub mod format;
pub mod grow;
#[cfg(feature = "std")]
pub mod image;
pub mod index;
pub mod journal;
pub mod mount;
pub mod names;
pub mod port;
pub mod scan;
pub mod upload;

pub use card::{BadFiles, Card, CardReader, Mode, Scanned};
pub use error::{CardError, CardFault, VolumeError};
pub use index::CardTake;
pub use names::MAX_CARD_TAKES;
pub use port::{
    BlockBuf, BlockError, Blocks, CardDriver, CardPort, NoCard, BLOCK, POWER_UP_LIMIT, STAYS_BUSY,
};
