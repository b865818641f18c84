//! What goes wrong with a card: an operation's error ([`CardError`]), what
//! the card reports for `Status` ([`CardFault`]), why no volume mounts
//! ([`VolumeError`]), and the internal [`Failure`] the file system's steps
//! return.

use core::fmt;

use heapless::String;
use llv_core::take::{TakeError, UploadError, NAME_LEN};

use crate::names::{DIR, FILE_LEN, MAX_CARD_TAKES};
use crate::port::BlockError;

/// Why a card operation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CardError {
    /// No card, or none mounted.
    NoCard,
    /// The card was pulled out.
    Removed,
    /// The card did not read or write a block.
    Io,
    /// No take of that name on the card.
    NotFound,
    /// The card lists as many takes as the box keeps ([`MAX_CARD_TAKES`]).
    Full,
    /// The card has no free cluster left.
    NoSpace,
    /// The takes' folder has no room for another file (FAT16's root is full).
    FolderFull,
    /// Another upload is in progress.
    Busy,
    /// No upload of that id.
    NoUpload,
    /// No live recording on the card.
    NotRecording,
    /// The take's file has the read-only attribute (set on a computer).
    ReadOnly {
        /// Its 8.3 name.
        file: String<FILE_LEN>,
    },
    /// The card's file system is damaged where the operation went (a cluster
    /// chain that ends early, or points outside the volume).
    Damaged,
    /// The card was mounted read-only (a reading command of `llv card`).
    ReadOnlyMount,
    /// The upload breaks the upload contract (order, length, name, CRC, image).
    Upload(UploadError),
    /// A file on the card is not a valid take.
    Image(TakeError),
}

impl fmt::Display for CardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CardError::NoCard => f.write_str("no card in the box"),
            CardError::Removed => f.write_str("the card was pulled out"),
            CardError::Io => f.write_str("card read or write failed"),
            CardError::NotFound => f.write_str("no take of that name on the card"),
            CardError::Full => write!(f, "{} takes on the card already", MAX_CARD_TAKES),
            CardError::NoSpace => f.write_str("the card is full"),
            CardError::FolderFull => write!(f, "no room for another file in {DIR}"),
            CardError::Busy => f.write_str("another upload to the card is in progress"),
            CardError::NoUpload => f.write_str("no upload in progress"),
            CardError::NotRecording => f.write_str("no live recording on the card"),
            CardError::ReadOnly { file } => write!(
                f,
                "{DIR}/{file} has the read-only attribute: clear it on a computer first"
            ),
            CardError::Damaged => {
                f.write_str("the card's file system is damaged (run a FAT check on it)")
            }
            CardError::ReadOnlyMount => f.write_str("the card is open for reading only"),
            CardError::Upload(e) => write!(f, "{e}"),
            CardError::Image(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for CardError {}

impl From<TakeError> for CardError {
    fn from(e: TakeError) -> Self {
        CardError::Image(e)
    }
}

impl From<UploadError> for CardError {
    fn from(e: UploadError) -> Self {
        CardError::Upload(e)
    }
}

/// Why a card holds no volume the box mounts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum VolumeError {
    /// No partition in the MBR and no FAT boot sector in block 0.
    NoPartition,
    /// A GPT partition table (the box reads MBR cards).
    Gpt,
    /// An exFAT volume (as cards over 32 GB come).
    ExFat,
    /// Another file system (NTFS, ...), or a boot sector this reader does not follow.
    NotFat,
    /// A FAT12 volume (cards under 16 MB).
    Fat12,
    /// Sectors of other than 512 bytes.
    SectorSize,
    /// The volume runs past the card's last block.
    PastEnd,
}

impl fmt::Display for VolumeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            VolumeError::NoPartition => "no partition",
            VolumeError::Gpt => "a GPT partition table; the box reads MBR cards",
            VolumeError::ExFat => "exFAT, as cards over 32 GB come; the box reads FAT32",
            VolumeError::NotFat => "not a FAT file system",
            VolumeError::Fat12 => "FAT12, too small a card",
            VolumeError::SectorSize => "sectors of other than 512 bytes",
            VolumeError::PastEnd => "the volume runs past the card's end",
        })
    }
}

/// How to make a card the box mounts, said after a [`VolumeError`].
pub const PREPARE: &str = "format it FAT32 with `llv card format` (erases it)";

/// What the card reports for `Status`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CardFault {
    /// Pulled out; `playing` names the take that stopped, if one did.
    Removed {
        /// The take that played from it.
        playing: Option<String<NAME_LEN>>,
    },
    /// In, but no FAT16/FAT32 volume could be mounted.
    NoVolume(VolumeError),
    /// The card did not answer a read at its mount.
    Unreadable,
    /// In, but it does not come up (the slot's words: a card that stays busy).
    Unusable(&'static str),
    /// A file that did not check out (the last one found).
    BadTake {
        /// Its 8.3 name.
        file: String<FILE_LEN>,
        /// Why.
        why: TakeError,
    },
    /// A take whose name another card take has already.
    Duplicate {
        /// Its 8.3 name.
        file: String<FILE_LEN>,
    },
    /// An upload cut short (a power cut, a pulled card): removed by the box at
    /// its mount, or by `llv card repair`.
    CutUpload {
        /// Its 8.3 name.
        file: String<FILE_LEN>,
    },
    /// A take past the [`MAX_CARD_TAKES`] the box keeps.
    TooMany {
        /// Its 8.3 name.
        file: String<FILE_LEN>,
    },
}

impl fmt::Display for CardFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CardFault::Removed {
                playing: Some(take),
            } => write!(
                f,
                "card pulled out while \"{take}\" played: insert it again"
            ),
            CardFault::Removed { playing: None } => {
                f.write_str("card pulled out: its takes are back when it is in again")
            }
            CardFault::NoVolume(why) => {
                write!(f, "card: no FAT16/FAT32 volume ({why}): {PREPARE}")
            }
            CardFault::Unreadable => f.write_str("card: it does not answer reads"),
            CardFault::Unusable(why) => write!(f, "card: {why}"),
            CardFault::BadTake { file, why } => write!(f, "card: {DIR}/{file} not listed: {why}"),
            CardFault::Duplicate { file } => {
                write!(f, "card: {DIR}/{file} not listed: its name is taken")
            }
            CardFault::CutUpload { file } => write!(
                f,
                "card: {DIR}/{file} is an upload cut short (`llv card repair` removes it)"
            ),
            CardFault::TooMany { file } => write!(
                f,
                "card: {DIR}/{file} not listed: the box keeps {} card takes",
                MAX_CARD_TAKES
            ),
        }
    }
}

/// A failed step: the card's block device, or one of ours.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// A block did not read or write.
    Block(BlockError),
    /// What the card library says.
    Card(CardError),
}

impl From<BlockError> for Failure {
    fn from(e: BlockError) -> Self {
        Failure::Block(e)
    }
}

impl From<CardError> for Failure {
    fn from(e: CardError) -> Self {
        Failure::Card(e)
    }
}

impl From<TakeError> for Failure {
    fn from(e: TakeError) -> Self {
        Failure::Card(CardError::Image(e))
    }
}

/// A file's clusters end before its size says (the image is shorter than its header).
pub const SHORT: Failure = Failure::Card(CardError::Image(TakeError::Inconsistent));

/// A chain or entry that points outside the volume.
pub const DAMAGED: Failure = Failure::Card(CardError::Damaged);
