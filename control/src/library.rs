//! Where a session's takes and settings live: a [`TakeLibrary`].
//!
//! The session (every front door: the binary protocol and OSC) asks the
//! library to list, open, upload and delete takes and to read and store the
//! settings; the player plays what it opens ([`Take`]). The box's flash store
//! and card are one library (in the firmware), `llv serve`'s folder of
//! recordings another, [`crate::mock`]'s takes in memory a third for tests.
//! Uploads follow [`llv_core::take::Upload`], the one upload contract.
//!
//! A library answers refusals in the protocol's terms ([`Refusal`]: an
//! [`ErrorCode`] and a detail for people), so every library is refused alike
//! over every door.

use core::fmt::Write;

use heapless::{String, Vec};
use llv_core::control::{
    bounded, CardStatus, ErrorCode, Fault, Place, TakeInfo, TakePage, TakeRef, Wear, Which,
    DETAIL_LEN, PAGE_TAKES,
};
use llv_core::settings::Settings;
use llv_core::take::{TakeError, TakeHeader, UploadError};

/// Why a library refused: the protocol's error code and a detail for people.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The error code the protocol sends.
    pub code: ErrorCode,
    /// What happened, for people.
    pub detail: String<DETAIL_LEN>,
}

impl Refusal {
    /// A refusal with `detail` (cut to [`DETAIL_LEN`] bytes).
    pub fn new(code: ErrorCode, detail: &str) -> Self {
        Refusal {
            code,
            detail: bounded(detail),
        }
    }

    /// A refusal whose detail is formatted (and cut to [`DETAIL_LEN`] bytes).
    pub fn fmt(code: ErrorCode, args: core::fmt::Arguments<'_>) -> Self {
        Refusal {
            code,
            detail: detail(args),
        }
    }
}

/// A take a library opened for the player.
pub trait Take {
    /// Its header: name, frame count, period, CRC.
    fn header(&self) -> &TakeHeader;
}

/// Takes and settings, as the control session uses them.
///
/// One upload at a time per library: [`TakeLibrary::begin_upload`] returns
/// its id, which the other upload calls name; a second begin is refused
/// (`UploadOrder`) until the first commits or is aborted.
#[allow(
    async_fn_in_trait,
    reason = "the firmware's executor is single-threaded"
)]
pub trait TakeLibrary {
    /// A stored take, opened for playing.
    type Take: Take;

    /// The stored takes from the `start`th on, as many as a page holds
    /// (none past the end), with how many there are in all.
    async fn list_page(&mut self, start: u32) -> Result<TakePage, Refusal>;
    /// Opens the take `take` names ([`TakeRef::which`]: `NotFound` naming
    /// it if there is none) and says where it was.
    async fn open(&mut self, take: TakeRef<'_>) -> Result<(Self::Take, Place), Refusal>;
    /// Starts receiving a take image (`docs/take-image.md`) of `total_len`
    /// bytes whose CRC is `crc32` for `place`; returns the upload's id.
    async fn begin_upload(
        &mut self,
        name: &str,
        total_len: u32,
        crc32: u32,
        place: Place,
    ) -> Result<u32, Refusal>;
    /// The image's bytes at `offset` (chunks in order).
    async fn write_chunk(&mut self, id: u32, offset: u32, data: &[u8]) -> Result<(), Refusal>;
    /// Whether writing this chunk will hold the library for long (a flash
    /// erase): the connection first lets the player's read-ahead fill.
    fn chunk_waits(&self, id: u32, offset: u32, len: usize) -> bool;
    /// Checks the whole image and makes the take visible (replacing one of
    /// the same name); returns its header.
    async fn commit_upload(&mut self, id: u32) -> Result<TakeHeader, Refusal>;
    /// Whether upload `id` is still in progress (a commit refused before the
    /// last byte leaves it open).
    fn uploading(&self, id: u32) -> bool;
    /// Drops upload `id` if it is in progress.
    fn abort_upload(&mut self, id: u32);
    /// Deletes the take `take` names ([`TakeRef::which`]: an unqualified
    /// name in both places is refused, naming both) and says where it was.
    async fn delete(&mut self, take: TakeRef<'_>) -> Result<Place, Refusal>;
    /// The settings in force.
    fn settings(&self) -> &Settings;
    /// Stores `settings` (already checked by the session).
    async fn save_settings(&mut self, settings: &Settings) -> Result<(), Refusal>;
    /// Bytes holding takes.
    fn used_bytes(&self) -> u64;
    /// Bytes free for takes (a folder's: its file system's free space).
    fn free_bytes(&self) -> u64;
    /// What is wrong with the library, for `Status`, most important first.
    fn faults(&self) -> Vec<Fault, 2>;
    /// How the card stands, for a library with a card slot.
    fn card(&self) -> Option<CardStatus>;
    /// Whether the stored settings are unreadable: the token is unknown and
    /// the box answers only `Status`, `List` and `GetSettings`.
    fn locked(&self) -> bool;
    /// What its storage went through since power-up (erases, settings
    /// writes), for `Status`; nothing by default (storage that does not wear).
    fn wear(&self) -> Wear {
        Wear::default()
    }
}

/// The refusal of an upload that breaks the upload contract.
pub fn upload_refusal(e: &UploadError) -> Refusal {
    let code = match e {
        UploadError::BadName | UploadError::ChunkTooLarge { .. } => ErrorCode::Invalid,
        UploadError::TooShort { .. } | UploadError::NameMismatch => ErrorCode::BadImage,
        UploadError::Order { .. }
        | UploadError::TooLong { .. }
        | UploadError::Incomplete { .. } => ErrorCode::UploadOrder,
        UploadError::Image(TakeError::Crc { .. }) | UploadError::CrcMismatch { .. } => {
            ErrorCode::Crc
        }
        UploadError::Image(_) => ErrorCode::BadImage,
    };
    Refusal::fmt(code, format_args!("{e}"))
}

/// The page from `start` on of `takes` (a library's, in list order).
pub fn page_of(
    takes: impl ExactSizeIterator<Item = TakeInfo>,
    start: u32,
    revision: u32,
) -> TakePage {
    let total = u32::try_from(takes.len()).unwrap_or(u32::MAX);
    TakePage {
        start,
        total,
        revision,
        takes: takes.skip(start as usize).take(PAGE_TAKES).collect(),
    }
}

/// The refusal of an upload to a card where there is none.
pub fn no_card() -> Refusal {
    Refusal::new(ErrorCode::Invalid, "no card here: upload to flash")
}

/// Where the take `take` names is, from whether one of its name is on the
/// flash and on the card: the one rule of every library.
pub fn resolve(
    take: TakeRef<'_>,
    on_flash: bool,
    on_card: bool,
    deleting: bool,
) -> Result<Place, Refusal> {
    match take.which(on_flash, on_card, deleting) {
        Which::At(place) => Ok(place),
        Which::Missing => Err(missing(take)),
        Which::Both => Err(Refusal::fmt(
            ErrorCode::Invalid,
            format_args!(
                "\"{n}\" is on the flash and on the card: name one, flash:{n} or card:{n}",
                n = take.name
            ),
        )),
    }
}

/// The refusal of a take that is not where `take` says, naming it as given.
pub fn missing(take: TakeRef<'_>) -> Refusal {
    Refusal::fmt(
        ErrorCode::NotFound,
        format_args!("no take named \"{take}\""),
    )
}

/// The refusal of a take that is not there, naming it.
pub fn not_found(name: &str) -> Refusal {
    Refusal::fmt(
        ErrorCode::NotFound,
        format_args!("no take named \"{name}\""),
    )
}

/// Formats a detail, cut to [`DETAIL_LEN`] bytes.
pub fn detail(args: core::fmt::Arguments<'_>) -> String<DETAIL_LEN> {
    let mut long: String<{ 2 * DETAIL_LEN }> = String::new();
    // A too-long text is cut where the buffer ends.
    let _ = long.write_fmt(args);
    bounded(&long)
}
