//! The box's take library: the flash store (small, always there) and the
//! card (hours of takes, may be pulled out) as one [`TakeLibrary`].
//!
//! - The list is the flash takes, then the card's (each with its
//!   [`Place`]), a page at a time; a card take's name, length and CRC are
//!   read from its header on the card as its page is asked for.
//! - A name means the flash take first, then the card's: `Play`, `Delete`
//!   and autoplay work the same for both. An upload is refused when the
//!   name lives at the other place (one name, one take, through the box's
//!   own doors; a card written elsewhere may shadow a name, and then the
//!   flash take wins).
//! - Settings, the flash's bytes, its erases and the lock are the store's;
//!   faults come from both. The box runs it through `llv_control::Paced`,
//!   which decides when settings are written.
//!
//! | module | what it holds |
//! |---|---|
//! | [`flash`] | the flash store's errors and faults in the protocol's terms |
//! | [`card`] | the card's errors and faults in the protocol's terms |

pub mod card;
pub mod flash;

/// What the box's doors share: its library (paced saves), with every
/// request's library work run by one worker ([`llv_control::Worker`]).
pub type BoxControl<'a, F, D> = llv_control::Control<
    'a,
    embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex,
    llv_control::Paced<BoxLibrary<F, D>>,
    &'a llv_control::Worker<embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex>,
>;

use embedded_storage_async::nor_flash::NorFlash;
use heapless::Vec;
use llv_box_store::{Store, StoreFault, TakeReader};
use llv_card::{Card, CardDriver, CardReader};
use llv_control::library::{missing, resolve, Refusal, Take, TakeLibrary};
use llv_core::control::{
    CardStatus, ErrorCode, Fault, Place, TakeInfo, TakePage, TakeRef, Wear, PAGE_TAKES,
};
use llv_core::settings::Settings;
use llv_core::take::TakeHeader;

use card::{card_error, card_fault};
use flash::{store_error, store_fault, take_error};

/// Upload ids of the card have this bit set (the store's never reach it).
const CARD_UPLOAD: u32 = 1 << 31;

/// The flash store and the card.
pub struct BoxLibrary<F, D: CardDriver> {
    /// The take store on flash (and the settings).
    pub store: Store<F>,
    /// The card's takes.
    pub card: Card<D>,
}

/// A take opened for the player, from flash or from the card.
#[derive(Clone, Debug)]
pub enum BoxTake {
    /// On flash.
    Flash(TakeReader),
    /// On the card.
    Card(CardReader),
}

impl Take for BoxTake {
    fn header(&self) -> &TakeHeader {
        match self {
            BoxTake::Flash(t) => t.header(),
            BoxTake::Card(t) => t.header(),
        }
    }
}

impl<F: NorFlash, D: CardDriver> BoxLibrary<F, D> {
    async fn on_card(&mut self, name: &str) -> Result<bool, Refusal> {
        let found = self.card.find(name).await;
        found.map(|i| i.is_some()).map_err(|e| card_error(&e, name))
    }

    fn on_flash(&self, name: &str) -> bool {
        self.store.reader(name).is_ok()
    }
}

impl<F: NorFlash, D: CardDriver> TakeLibrary for BoxLibrary<F, D> {
    type Take = BoxTake;

    async fn list_page(&mut self, start: u32) -> Result<TakePage, Refusal> {
        let flash = self.store.list();
        let on_card = self.card.takes().len();
        let total = flash.len() + on_card;
        // The flash's takes change the revision through their names and CRCs.
        let revision = flash.iter().fold(self.card.revision(), |r, t| {
            let named = t
                .name
                .bytes()
                .fold(r, |r, b| r.rotate_left(5) ^ u32::from(b));
            named.rotate_left(7) ^ t.crc32
        });
        let mut page = TakePage {
            start,
            total: total as u32,
            revision,
            takes: Vec::new(),
        };
        let from = start as usize;
        for i in from..total.min(from.saturating_add(PAGE_TAKES)) {
            let info = match flash.get(i) {
                Some(t) => t.clone(),
                None => {
                    let header = self.card.header(i - flash.len()).await;
                    let h = header.map_err(|e| card_error(&e, ""))?;
                    TakeInfo::of(&h, Place::Card)
                }
            };
            // The page holds PAGE_TAKES: cannot overflow.
            let _ = page.takes.push(info);
        }
        Ok(page)
    }

    async fn open(&mut self, take: TakeRef<'_>) -> Result<(BoxTake, Place), Refusal> {
        let name = take.name;
        if take.place != Some(Place::Card) {
            if let Ok(t) = self.store.reader(name) {
                return Ok((BoxTake::Flash(t), Place::Internal));
            }
        }
        if take.place == Some(Place::Internal) {
            return Err(missing(take));
        }
        match self.card.reader(name).await {
            Ok(reader) => Ok((BoxTake::Card(reader), Place::Card)),
            Err(e) => Err(card_error(&e, name)),
        }
    }

    async fn begin_upload(
        &mut self,
        name: &str,
        total_len: u32,
        crc32: u32,
        place: Place,
    ) -> Result<u32, Refusal> {
        let elsewhere = match place {
            Place::Internal => self.on_card(name).await?,
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
            Place::Internal => self
                .store
                .begin_upload(name, total_len, crc32)
                .await
                .map_err(store_error),
            Place::Card => {
                let begun = self.card.begin_upload(name, total_len, crc32).await;
                begun
                    .map(|id| id | CARD_UPLOAD)
                    .map_err(|e| card_error(&e, name))
            }
        }
    }

    async fn write_chunk(&mut self, id: u32, offset: u32, data: &[u8]) -> Result<(), Refusal> {
        if id & CARD_UPLOAD == 0 {
            return self
                .store
                .write_chunk(id, offset, data)
                .await
                .map_err(store_error);
        }
        let written = self.card.write_chunk(id & !CARD_UPLOAD, offset, data).await;
        written.map_err(|e| card_error(&e, ""))
    }

    fn chunk_waits(&self, id: u32, offset: u32, len: usize) -> bool {
        id & CARD_UPLOAD == 0 && self.store.chunk_erases(id, offset, len)
    }

    async fn commit_upload(&mut self, id: u32) -> Result<TakeHeader, Refusal> {
        if id & CARD_UPLOAD == 0 {
            return self.store.commit_upload(id).await.map_err(store_error);
        }
        let committed = self.card.commit_upload(id & !CARD_UPLOAD).await;
        committed.map_err(|e| card_error(&e, ""))
    }

    fn uploading(&self, id: u32) -> bool {
        if id & CARD_UPLOAD == 0 {
            self.store.upload_id() == Some(id)
        } else {
            self.card.uploading(id & !CARD_UPLOAD)
        }
    }

    fn abort_upload(&mut self, id: u32) {
        if id & CARD_UPLOAD == 0 {
            self.store.abort_upload(id);
        } else {
            self.card.abort_upload(id & !CARD_UPLOAD);
        }
    }

    async fn delete(&mut self, take: TakeRef<'_>) -> Result<Place, Refusal> {
        let name = take.name;
        let on_flash = self.on_flash(name);
        let on_card = take.place != Some(Place::Internal) && self.on_card(name).await?;
        let place = resolve(take, on_flash, on_card, true)?;
        match place {
            Place::Internal => {
                let deleted = self.store.delete(name).await;
                deleted.map_err(|e| take_error(e, name))?;
            }
            Place::Card => {
                let deleted = self.card.delete(name).await;
                deleted.map_err(|e| card_error(&e, name))?;
            }
        }
        Ok(place)
    }

    fn settings(&self) -> &Settings {
        self.store.settings()
    }

    async fn save_settings(&mut self, settings: &Settings) -> Result<(), Refusal> {
        let saved = self.store.save_settings(settings).await;
        saved.map_err(store_error)
    }

    fn used_bytes(&self) -> u64 {
        self.store.used_bytes().into()
    }

    fn free_bytes(&self) -> u64 {
        self.store.free_bytes().into()
    }

    fn faults(&self) -> Vec<Fault, 2> {
        let mut faults: Vec<Fault, 2> = self.store.fault().map(store_fault).into_iter().collect();
        if let Some(f) = self.card.fault() {
            let _ = faults.push(card_fault(f));
        }
        faults
    }

    fn card(&self) -> Option<CardStatus> {
        let bad = self.card.bad_files();
        Some(CardStatus {
            scanning: self.card.scanning(),
            takes: self.card.takes().len() as u32,
            bad_files: bad.count,
            bad: bad.names.clone(),
        })
    }

    fn wear(&self) -> Wear {
        let erases = self.store.erases();
        Wear {
            settings_erases: erases.settings,
            take_erases: erases.takes,
            ..Wear::default()
        }
    }

    fn locked(&self) -> bool {
        matches!(self.store.fault(), Some(StoreFault::Settings(_)))
    }
}
