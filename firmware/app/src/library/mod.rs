//! The box's take library: the flash store (small, always there) and the
//! card (hours of takes, may be pulled out) as one [`TakeLibrary`].
//!
//! - `List` shows the flash takes, then the card's (each with its
//!   [`Place`]), at most [`MAX_TAKES`] in all.
//! - A name means the flash take first, then the card's: `Play`, `Delete`
//!   and autoplay work the same for both. An upload is refused when the
//!   name lives at the other place (one name, one take, through the box's
//!   own doors; a card written elsewhere may shadow a name, and then the
//!   flash take wins).
//! - Settings, the flash's bytes and the lock are the store's; faults come
//!   from both.

use embedded_storage_async::nor_flash::NorFlash;
use heapless::Vec;
use llv_box_card::{Card, CardError, CardReader, Slot};
use llv_box_store::{Store, TakeReader};
use llv_core::control::{ErrorCode, Fault, FaultCode, Place, TakeInfo, MAX_TAKES};
use llv_core::settings::Settings;
use llv_core::take::TakeHeader;

use crate::library::{detail, not_found, Refusal, Take, TakeLibrary};

/// Upload ids of the card have this bit set (the store's never reach it).
const CARD_UPLOAD: u32 = 1 << 31;

/// The flash store and the card.
pub struct Shelf<F, D: Slot> {
    /// The take store on flash (and the settings).
    pub store: Store<F>,
    /// The card's takes.
    pub card: Card<D>,
}

/// A take opened for the player, from flash or from the card.
#[derive(Clone, Debug)]
pub enum ShelfTake {
    /// On flash.
    Flash(TakeReader),
    /// On the card.
    Card(CardReader),
}

impl Take for ShelfTake {
    fn header(&self) -> &TakeHeader {
        match self {
            ShelfTake::Flash(t) => t.header(),
            ShelfTake::Card(t) => t.header(),
        }
    }
}

/// A card error in the protocol's terms.
pub fn card_error(e: &CardError, name: &str) -> Refusal {
    let code = match e {
        CardError::NotFound => return not_found(name),
        CardError::NoCard | CardError::Removed | CardError::Io(_) => ErrorCode::Flash,
        CardError::Full | CardError::NoSpace => ErrorCode::NoSpace,
        CardError::Busy
        | CardError::NoUpload
        | CardError::Order { .. }
        | CardError::TooLong
        | CardError::Incomplete { .. } => ErrorCode::UploadOrder,
        CardError::Image(llv_core::take::TakeError::Crc { .. }) => ErrorCode::Crc,
        CardError::Image(_) | CardError::NameMismatch => ErrorCode::BadImage,
        CardError::BadName => ErrorCode::Invalid,
    };
    Refusal::fmt(code, format_args!("card: {e}"))
}

impl<F: NorFlash, D: Slot> Shelf<F, D> {
    fn on_card(&self, name: &str) -> bool {
        self.card.takes().iter().any(|t| t.header.name == name)
    }

    fn on_flash(&self, name: &str) -> bool {
        self.store.reader(name).is_ok()
    }
}

impl<F: NorFlash, D: Slot> TakeLibrary for Shelf<F, D> {
    type Take = ShelfTake;

    fn list(&self) -> Vec<TakeInfo, MAX_TAKES> {
        let mut takes = TakeLibrary::list(&self.store);
        for t in self.card.takes() {
            let info = TakeInfo {
                name: t.header.name.clone(),
                frame_count: t.header.frame_count,
                total_len: t.header.total_len,
                crc32: t.header.crc32,
                place: Place::Card,
            };
            if takes.push(info).is_err() {
                break;
            }
        }
        takes
    }

    fn open(&self, name: &str) -> Result<ShelfTake, Refusal> {
        if let Ok(t) = TakeLibrary::open(&self.store, name) {
            return Ok(ShelfTake::Flash(t));
        }
        self.card
            .reader(name)
            .map(ShelfTake::Card)
            .ok_or_else(|| not_found(name))
    }

    async fn begin_upload(
        &mut self,
        name: &str,
        total_len: u32,
        crc32: u32,
        place: Place,
    ) -> Result<u32, Refusal> {
        let elsewhere = match place {
            Place::Internal => self.on_card(name),
            Place::Card => self.on_flash(name),
        };
        if elsewhere {
            let other = if place == Place::Card {
                "flash"
            } else {
                "card"
            };
            return Err(Refusal::fmt(
                ErrorCode::Invalid,
                format_args!("a take named \"{name}\" is on the {other}: delete it first"),
            ));
        }
        match place {
            Place::Internal => {
                TakeLibrary::begin_upload(&mut self.store, name, total_len, crc32, place).await
            }
            Place::Card => {
                let begun = self.card.begin_upload(name, total_len, crc32);
                begun
                    .map(|id| id | CARD_UPLOAD)
                    .map_err(|e| card_error(&e, name))
            }
        }
    }

    async fn write_chunk(&mut self, id: u32, offset: u32, data: &[u8]) -> Result<(), Refusal> {
        if id & CARD_UPLOAD == 0 {
            return TakeLibrary::write_chunk(&mut self.store, id, offset, data).await;
        }
        let written = self.card.write_chunk(id & !CARD_UPLOAD, offset, data);
        written.map_err(|e| card_error(&e, ""))
    }

    fn chunk_waits(&self, id: u32, offset: u32, len: usize) -> bool {
        id & CARD_UPLOAD == 0 && self.store.chunk_waits(id, offset, len)
    }

    async fn commit_upload(&mut self, id: u32) -> Result<TakeHeader, Refusal> {
        if id & CARD_UPLOAD == 0 {
            return TakeLibrary::commit_upload(&mut self.store, id).await;
        }
        let committed = self.card.commit_upload(id & !CARD_UPLOAD).await;
        committed.map_err(|e| card_error(&e, ""))
    }

    fn uploading(&self, id: u32) -> bool {
        if id & CARD_UPLOAD == 0 {
            TakeLibrary::uploading(&self.store, id)
        } else {
            self.card.uploading(id & !CARD_UPLOAD)
        }
    }

    fn abort_upload(&mut self, id: u32) {
        if id & CARD_UPLOAD == 0 {
            TakeLibrary::abort_upload(&mut self.store, id);
        } else {
            self.card.abort_upload(id & !CARD_UPLOAD);
        }
    }

    async fn delete(&mut self, name: &str) -> Result<(), Refusal> {
        if self.on_flash(name) {
            return TakeLibrary::delete(&mut self.store, name).await;
        }
        let deleted = self.card.delete(name);
        deleted.map_err(|e| card_error(&e, name))
    }

    fn settings(&self) -> &Settings {
        TakeLibrary::settings(&self.store)
    }

    async fn save_settings(&mut self, settings: &Settings) -> Result<(), Refusal> {
        TakeLibrary::save_settings(&mut self.store, settings).await
    }

    fn used_bytes(&self) -> u32 {
        TakeLibrary::used_bytes(&self.store)
    }

    fn free_bytes(&self) -> u32 {
        TakeLibrary::free_bytes(&self.store)
    }

    fn faults(&self) -> Vec<Fault, 2> {
        let mut faults = TakeLibrary::faults(&self.store);
        if let Some(f) = self.card.fault() {
            let code = match f {
                llv_box_card::CardFault::Removed { .. } => FaultCode::CardRemoved,
                _ => FaultCode::CardUnusable,
            };
            let _ = faults.push(Fault {
                code,
                detail: detail(format_args!("{f}")),
            });
        }
        faults
    }

    fn locked(&self) -> bool {
        TakeLibrary::locked(&self.store)
    }
}
