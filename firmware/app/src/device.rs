//! The box as the control session sees it ([`Device`]): a player that takes
//! play requests, a stop, the playing position, uptime and address; plus the
//! autoplay at power-up.

use core::cell::RefCell;
use core::net::{Ipv4Addr, SocketAddrV4};

use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::blocking_mutex::Mutex as BlockingMutex;
use embassy_sync::signal::Signal;
use embassy_time::Instant;
use embedded_storage_async::nor_flash::NorFlash;
use heapless::{String, Vec};
use llv_box_store::{Device, TakeReader};
use llv_core::control::{Playing, Settings, Target, MAX_TARGETS, SUBJECT_LEN};

use crate::config::{Loops, MAX_TARGETS as CONFIG_TARGETS};
use crate::fmt::{info, warning};
use crate::player::{play, StopSignal};
use crate::sink::PacketSink;
use crate::stored::{SharedStore, StoreSource};

const _: () = assert!(MAX_TARGETS <= CONFIG_TARGETS);

/// What the player is asked to play.
pub struct PlayRequest {
    reader: TakeReader,
    targets: Vec<SocketAddrV4, MAX_TARGETS>,
    loops: Loops,
}

type Shared<T> = BlockingMutex<CriticalSectionRawMutex, RefCell<T>>;

/// State shared by the control session, the player and autoplay.
pub struct BoxState {
    request: Signal<CriticalSectionRawMutex, PlayRequest>,
    stop: StopSignal,
    playing: Shared<Option<Playing>>,
    subject: Shared<Option<String<SUBJECT_LEN>>>,
    address: Shared<Option<[u8; 4]>>,
}

impl BoxState {
    /// Idle, no subject rename, no address yet.
    pub const fn new() -> Self {
        BoxState {
            request: Signal::new(),
            stop: StopSignal::new(),
            playing: BlockingMutex::new(RefCell::new(None)),
            subject: BlockingMutex::new(RefCell::new(None)),
            address: BlockingMutex::new(RefCell::new(None)),
        }
    }

    /// Takes the stored settings that apply while running (the subject rename).
    pub fn apply_settings(&self, settings: &Settings) {
        self.subject
            .lock(|s| *s.borrow_mut() = settings.subject.clone());
    }

    /// Records the box's address once the network is up.
    pub fn set_address(&self, address: Ipv4Addr) {
        self.address
            .lock(|a| *a.borrow_mut() = Some(address.octets()));
    }

    /// The subject every sent frame gets, if renamed.
    pub fn subject(&self) -> Option<String<SUBJECT_LEN>> {
        self.subject.lock(|s| s.borrow().clone())
    }

    /// Notes that frame `index` is the next one out (a lower index starts a new loop).
    pub fn frame_read(&self, index: u32) {
        self.playing.lock(|p| {
            if let Some(p) = p.borrow_mut().as_mut() {
                if index < p.frame {
                    p.loops_done += 1;
                }
                p.frame = index;
            }
        });
    }

    /// Asks the player for `reader`'s take, replacing what plays.
    pub fn request_play(&self, reader: TakeReader, targets: &[Target], loop_count: u32) {
        let targets = targets
            .iter()
            .take(MAX_TARGETS)
            .map(|t| SocketAddrV4::new(Ipv4Addr::from(t.ip), t.port))
            .collect();
        let loops = match loop_count {
            0 => Loops::Forever,
            n => Loops::Times(n),
        };
        if self.playing.lock(|p| p.borrow().is_some()) {
            self.stop.signal(());
        }
        self.request.signal(PlayRequest {
            reader,
            targets,
            loops,
        });
    }
}

impl Default for BoxState {
    fn default() -> Self {
        Self::new()
    }
}

/// The [`Device`] a control session drives.
pub struct BoxDevice<'a> {
    /// The shared state.
    pub state: &'a BoxState,
}

impl Device for BoxDevice<'_> {
    fn play(&mut self, take: TakeReader, targets: &[Target], loop_count: u32) {
        self.state.request_play(take, targets, loop_count);
    }

    fn stop(&mut self) {
        self.state.stop.signal(());
    }

    fn playing(&self) -> Option<Playing> {
        self.state.playing.lock(|p| p.borrow().clone())
    }

    fn uptime_ms(&self) -> u64 {
        Instant::now().as_millis()
    }

    fn address(&self) -> Option<[u8; 4]> {
        self.state.address.lock(|a| *a.borrow())
    }

    fn settings_changed(&mut self, settings: &Settings) {
        self.state.apply_settings(settings);
    }
}

/// Plays what is requested, one take at a time, forever.
pub async fn run_player<F: NorFlash, K: PacketSink>(
    store: &SharedStore<F>,
    state: &BoxState,
    sink: &mut K,
) -> ! {
    loop {
        let request = state.request.wait().await;
        state.stop.reset();
        let name = request.reader.header().name.clone();
        info!("playing {=str}", name.as_str());
        state.playing.lock(|p| {
            *p.borrow_mut() = Some(Playing {
                take: name,
                frame: 0,
                loops_done: 0,
            })
        });
        let mut source = StoreSource::new(store, request.reader, state);
        match play(
            &mut source,
            sink,
            &request.targets,
            request.loops,
            &state.stop,
        )
        .await
        {
            Ok(report) => info!(
                "played {} frames, {} send errors",
                report.frames, report.send_errors
            ),
            Err(e) => warning!("playback ended: {}", e),
        }
        state.playing.lock(|p| *p.borrow_mut() = None);
    }
}

/// At power-up: plays the autoplay take of the settings, if it exists, to the
/// configured targets.
pub async fn autoplay<F: NorFlash>(store: &SharedStore<F>, state: &BoxState) {
    let store = store.lock().await;
    let settings = store.settings();
    state.apply_settings(settings);
    let Some(auto) = &settings.autoplay else {
        return;
    };
    if settings.targets.is_empty() {
        warning!("autoplay {=str}: no targets configured", auto.take.as_str());
        return;
    }
    match store.reader(&auto.take) {
        Ok(reader) => {
            info!("autoplay {=str}", auto.take.as_str());
            state.request_play(reader, &settings.targets, auto.loop_count);
        }
        Err(_) => warning!("autoplay {=str}: no such take", auto.take.as_str()),
    }
}
