//! Where a session's takes and settings live: a [`TakeLibrary`].
//!
//! The session (every front door: the binary protocol and OSC) asks the
//! library to list, open, upload and delete takes and to read and store the
//! settings; the player plays what it opens ([`Take`]). The box's take store
//! on NOR flash is one library ([`Store`], below); `llv serve`'s folder of
//! recordings is another; the box's microSD card will be a third.
//!
//! A library answers refusals in the protocol's terms ([`Refusal`]: an
//! [`ErrorCode`] and a detail for people), so every library is refused alike
//! over every door.

use core::fmt::Write;

use embedded_storage_async::nor_flash::NorFlash;
use heapless::{String, Vec};
use llv_box_store::{Store, StoreError, StoreFault, TakeReader, Unreadable};
use llv_core::control::{
    bounded, ErrorCode, Fault, FaultCode, Place, TakeInfo, DETAIL_LEN, MAX_TAKES,
};
use llv_core::settings::Settings;
use llv_core::take::TakeHeader;

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

impl Take for TakeReader {
    fn header(&self) -> &TakeHeader {
        TakeReader::header(self)
    }
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

    /// The stored takes.
    fn list(&self) -> Vec<TakeInfo, MAX_TAKES>;
    /// Opens the take named `name` (`NotFound` naming it if there is none).
    fn open(&self, name: &str) -> Result<Self::Take, Refusal>;
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
    /// Deletes the take named `name`.
    async fn delete(&mut self, name: &str) -> Result<(), Refusal>;
    /// The settings in force.
    fn settings(&self) -> &Settings;
    /// Stores `settings` (already checked by the session).
    async fn save_settings(&mut self, settings: &Settings) -> Result<(), Refusal>;
    /// Bytes holding takes.
    fn used_bytes(&self) -> u32;
    /// Bytes free for takes.
    fn free_bytes(&self) -> u32;
    /// What is wrong with the library, for `Status`, most important first.
    fn faults(&self) -> Vec<Fault, 2>;
    /// Whether the stored settings are unreadable: the token is unknown and
    /// the box answers only `Status`, `List` and `GetSettings`.
    fn locked(&self) -> bool;
}

impl<F: NorFlash> TakeLibrary for Store<F> {
    type Take = TakeReader;

    fn list(&self) -> Vec<TakeInfo, MAX_TAKES> {
        Store::list(self)
    }

    fn open(&self, name: &str) -> Result<TakeReader, Refusal> {
        self.reader(name).map_err(|e| take_error(e, name))
    }

    async fn begin_upload(
        &mut self,
        name: &str,
        total_len: u32,
        crc32: u32,
        place: Place,
    ) -> Result<u32, Refusal> {
        if place == Place::Card {
            return Err(no_card());
        }
        Store::begin_upload(self, name, total_len, crc32)
            .await
            .map_err(store_error)
    }

    async fn write_chunk(&mut self, id: u32, offset: u32, data: &[u8]) -> Result<(), Refusal> {
        Store::write_chunk(self, id, offset, data)
            .await
            .map_err(store_error)
    }

    fn chunk_waits(&self, id: u32, offset: u32, len: usize) -> bool {
        self.chunk_erases(id, offset, len)
    }

    async fn commit_upload(&mut self, id: u32) -> Result<TakeHeader, Refusal> {
        Store::commit_upload(self, id).await.map_err(store_error)
    }

    fn uploading(&self, id: u32) -> bool {
        self.upload_id() == Some(id)
    }

    fn abort_upload(&mut self, id: u32) {
        Store::abort_upload(self, id);
    }

    async fn delete(&mut self, name: &str) -> Result<(), Refusal> {
        Store::delete(self, name)
            .await
            .map_err(|e| take_error(e, name))
    }

    fn settings(&self) -> &Settings {
        Store::settings(self)
    }

    async fn save_settings(&mut self, settings: &Settings) -> Result<(), Refusal> {
        Store::save_settings(self, settings)
            .await
            .map_err(store_error)
    }

    fn used_bytes(&self) -> u32 {
        Store::used_bytes(self)
    }

    fn free_bytes(&self) -> u32 {
        Store::free_bytes(self)
    }

    fn faults(&self) -> Vec<Fault, 2> {
        Store::fault(self).map(store_fault).into_iter().collect()
    }

    fn locked(&self) -> bool {
        matches!(Store::fault(self), Some(StoreFault::Settings(_)))
    }
}

/// The refusal of an upload to a card where there is none.
pub fn no_card() -> Refusal {
    Refusal::new(ErrorCode::Invalid, "no card here: upload to flash")
}

/// What Status says of a store fault.
pub fn store_fault(fault: StoreFault) -> Fault {
    let (code, detail) = match fault {
        StoreFault::Layout => (
            FaultCode::StoreUnusable,
            bounded("no usable flash for the take store (see the log): no takes, default settings"),
        ),
        StoreFault::Settings(Unreadable::Newer(v)) => (
            FaultCode::SettingsUnreadable,
            detail(format_args!(
                "settings schema {v} newer than firmware: locked; upgrade or factory reset"
            )),
        ),
        StoreFault::Settings(Unreadable::Damaged(v)) => (
            FaultCode::SettingsUnreadable,
            detail(format_args!(
                "settings record (schema {v}) damaged: locked; factory reset"
            )),
        ),
    };
    Fault { code, detail }
}

/// A store error in the protocol's terms.
pub fn store_error<E: core::fmt::Debug>(e: StoreError<E>) -> Refusal {
    let code = match e {
        StoreError::Flash(_) => ErrorCode::Flash,
        StoreError::NotFound => ErrorCode::NotFound,
        StoreError::Full | StoreError::NoSpace { .. } => ErrorCode::NoSpace,
        StoreError::NoUpload
        | StoreError::Busy { .. }
        | StoreError::Order { .. }
        | StoreError::TooLong
        | StoreError::Incomplete { .. } => ErrorCode::UploadOrder,
        StoreError::Image(llv_core::take::TakeError::Crc { .. }) => ErrorCode::Crc,
        StoreError::Image(_) | StoreError::NameMismatch => ErrorCode::BadImage,
        StoreError::BadName | StoreError::SettingsTooLarge => ErrorCode::Invalid,
        StoreError::InnerRecord { .. } => ErrorCode::BadImage,
        StoreError::SettingsLocked => ErrorCode::Unauthorized,
        StoreError::Unusable => ErrorCode::Flash,
    };
    Refusal::fmt(code, format_args!("{e}"))
}

/// Like [`store_error`], naming the take when it is missing.
pub fn take_error<E: core::fmt::Debug>(e: StoreError<E>, name: &str) -> Refusal {
    match e {
        StoreError::NotFound => not_found(name),
        other => store_error(other),
    }
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
