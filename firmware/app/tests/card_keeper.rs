//! The card's keeper with a card that is in but never comes up: it is looked
//! at less and less often, reported unusable, and forgotten once it leaves.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use common::{clock, on_mock_clock};
use embassy_futures::block_on;
use embassy_futures::select::select;
use embassy_sync::mutex::Mutex;
use embassy_time::{Duration, Instant, Timer};
use llv_box::card_keeper::{keep_card, BACKOFF_MAX};
use llv_box::device::BoxState;
use llv_box::library::BoxLibrary;
use llv_box_store::mock::MockFlash;
use llv_box_store::Store;
use llv_card::{BlockBuf, BlockError, Blocks, Card, CardFault, CardPort};
use llv_core::settings::Settings;

/// How long the slot's initialisation of a card that stays busy takes (the
/// NUCLEO's deadline).
const DEADLINE: Duration = Duration::from_secs(1);

/// A slot holding a card that answers but stays busy, until `GONE`.
struct BusyCard;

static LOOKS: AtomicU32 = AtomicU32::new(0);
static GONE: AtomicBool = AtomicBool::new(false);

impl Blocks for BusyCard {
    async fn present(&mut self) -> Option<u64> {
        LOOKS.fetch_add(1, Ordering::Relaxed);
        if !GONE.load(Ordering::Relaxed) {
            Timer::after(DEADLINE).await;
        }
        None
    }

    async fn read(&mut self, _: u64, _: &mut BlockBuf) -> Result<(), BlockError> {
        Err(BlockError::Removed)
    }

    async fn write(&mut self, _: u64, _: &BlockBuf) -> Result<(), BlockError> {
        Err(BlockError::Removed)
    }

    fn unusable(&self) -> Option<&'static str> {
        (!GONE.load(Ordering::Relaxed)).then_some("it stays busy")
    }
}

static PORT: CardPort<BusyCard> = CardPort::new(BusyCard);

#[test]
fn a_card_that_stays_busy_is_looked_at_less_often_and_reported_until_it_leaves() {
    let _clock = clock();
    let store = block_on(Store::mount(
        MockFlash::<4, 4096>::new(64 * 4096),
        0..64 * 4096,
    ));
    let shelf = Mutex::new(BoxLibrary {
        store,
        card: Card::new(&PORT),
    });
    let state = BoxState::new();
    let settings = Settings::default();
    let fault = || shelf.try_lock().ok().and_then(|s| s.card.fault().cloned());

    // A minute with the busy card in: without backing off (a look every
    // 250 ms after each 1 s initialisation) that would be 48 looks.
    on_mock_clock(
        select(
            keep_card(&shelf, &state, &settings),
            Timer::after(Duration::from_secs(60)),
        ),
        Duration::from_millis(10),
        Duration::from_secs(70),
    );
    let looks = LOOKS.swap(0, Ordering::Relaxed);
    assert!((6..=12).contains(&looks), "{looks} looks in a minute");
    assert_eq!(fault(), Some(CardFault::Unusable("it stays busy")));
    assert_eq!(
        fault().map(|f| f.to_string()),
        Some("card: it stays busy".to_string())
    );

    // Pulled out: within one backoff the keeper finds the slot empty, drops
    // the fault, and looks every step again.
    GONE.store(true, Ordering::Relaxed);
    let pulled = Instant::now();
    on_mock_clock(
        select(keep_card(&shelf, &state, &settings), async {
            while fault().is_some() {
                Timer::after(Duration::from_millis(10)).await;
            }
        }),
        Duration::from_millis(10),
        BACKOFF_MAX * 2,
    );
    assert!(Instant::now() - pulled <= BACKOFF_MAX + DEADLINE);
    LOOKS.store(0, Ordering::Relaxed);
    on_mock_clock(
        select(
            keep_card(&shelf, &state, &settings),
            Timer::after(Duration::from_secs(10)),
        ),
        Duration::from_millis(10),
        Duration::from_secs(20),
    );
    let looks = LOOKS.load(Ordering::Relaxed);
    assert!(
        (30..=41).contains(&looks),
        "{looks} looks in 10 s of an empty slot"
    );
}
