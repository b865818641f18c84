//! The box as the control session sees it ([`BoxDevice`]): a player that
//! takes commands, the playing position, its clock and address; the player
//! task ([`run_player`]: at once, at a time on the box's clock, or following
//! Art-Net timecode) and the autoplay at power-up.
//!
//! Play and Stop are commands in one signal, the latest winning: a Stop that
//! comes right after a Play (before the player took it) cancels it, and one
//! that comes during playback cancels the playback at whatever it waits for.

use core::cell::RefCell;
use core::net::{IpAddr, Ipv4Addr};
use core::sync::atomic::{AtomicU16, Ordering};

use crate::library::BoxTake;
use embassy_futures::select::{select, Either};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::blocking_mutex::Mutex as BlockingMutex;
use embassy_sync::signal::Signal;
use embassy_time::{Duration, Instant};
use embedded_storage_async::nor_flash::NorFlash;
use heapless::String;
use heapless::Vec;
use llv_card::CardDriver;
use llv_control::library::Refusal;
use llv_control::Playback;
use llv_control::{Take, TakeLibrary};
use llv_core::control::{
    ClockSource, Ended, Fault, FaultCode, LiveStatus, Played, Playing, Start, TakeRef, MAX_FAULTS,
};
use llv_core::relay::Relay;
use llv_core::settings::{LiveSpec, Loops, Sender, Settings, Target, BOX_NAME_LEN, MAX_TARGETS};

use crate::black_box::BlackBox;
use crate::chase_feed::ChaseFeed;
use crate::chaser::chase;
use crate::fmt::{info, warning};
use crate::live::{relay, LiveInput};
use crate::player::{play, PlayReport};
use crate::read_ahead::{ReadAheadGauge, SharedLibrary, StoreSource, SubjectCell, READ_AHEAD};
use crate::ring::FrameRing;
use crate::sink::PacketSink;

/// What the player is told to do; a newer command replaces one not yet taken.
enum Command {
    /// Play a stored take, replacing what plays.
    Play {
        reader: BoxTake,
        targets: Vec<Target, MAX_TARGETS>,
        loops: Loops,
        start: Start,
    },
    /// Relay the live phone (`settings.live`), replacing what plays.
    Live {
        spec: LiveSpec,
        targets: Vec<Target, MAX_TARGETS>,
        idle: Option<BoxTake>,
    },
    /// Stop playing or relaying.
    Stop,
}

type Shared<T> = BlockingMutex<CriticalSectionRawMutex, RefCell<T>>;

/// When the player last showed life: the time, and the deadline of the frame in hand.
#[derive(Clone, Copy)]
struct Life {
    at: Instant,
    due: Instant,
}

/// State shared by the control session, the player, autoplay and the watchdog's keeper.
pub struct BoxState {
    commands: Signal<CriticalSectionRawMutex, Command>,
    playing: Shared<Option<Playing>>,
    /// How the last playback went, from its end until the next starts.
    last: Shared<Option<Played>>,
    life: Shared<Option<Life>>,
    subject: SubjectCell,
    read_ahead: ReadAheadGauge,
    address: Shared<Option<[u8; 4]>>,
    /// The OSC port served since power-up.
    osc_port: AtomicU16,
    faults: Shared<Vec<Fault, MAX_FAULTS>>,
    /// What the box's clock runs from.
    clock: Shared<ClockSource>,
    /// The box's name as the settings give it.
    name: Shared<Option<String<BOX_NAME_LEN>>>,
    /// The timecode a chasing playback follows.
    pub timecode: ChaseFeed,
    /// How the live relay stands, while it runs.
    live: Shared<Option<LiveStatus>>,
    /// The live recording's queue to the card.
    pub black_box: BlackBox,
}

impl BoxState {
    /// Idle, no subject rename, no address yet, no faults, a crystal clock.
    pub const fn new() -> Self {
        BoxState {
            commands: Signal::new(),
            playing: BlockingMutex::new(RefCell::new(None)),
            last: BlockingMutex::new(RefCell::new(None)),
            life: BlockingMutex::new(RefCell::new(None)),
            subject: BlockingMutex::new(RefCell::new(None)),
            read_ahead: ReadAheadGauge::new(),
            address: BlockingMutex::new(RefCell::new(None)),
            osc_port: AtomicU16::new(0),
            faults: BlockingMutex::new(RefCell::new(Vec::new())),
            clock: BlockingMutex::new(RefCell::new(ClockSource::Crystal)),
            name: BlockingMutex::new(RefCell::new(None)),
            timecode: ChaseFeed::new(),
            live: BlockingMutex::new(RefCell::new(None)),
            black_box: BlackBox::new(),
        }
    }

    /// Sets the OSC port `Status` reports (bound at power-up).
    pub fn set_osc_port(&self, port: u16) {
        self.osc_port.store(port, Ordering::Relaxed);
    }

    /// Sets the faults `Status` reports (found at power-up).
    pub fn set_faults(&self, faults: &[Fault]) {
        self.faults.lock(|f| {
            let mut f = f.borrow_mut();
            f.clear();
            // At most MAX_FAULTS are taken.
            let _ = f.extend_from_slice(&faults[..faults.len().min(MAX_FAULTS)]);
        });
    }

    /// Sets what the box's clock runs from, as `Status` reports it.
    pub fn set_clock(&self, clock: ClockSource) {
        self.clock.lock(|c| *c.borrow_mut() = clock);
    }

    /// Whether the player plays but has shown no life for `limit`: no frame
    /// sent and none due within it.
    pub fn player_stalled(&self, now: Instant, limit: Duration) -> bool {
        self.life.lock(|l| {
            l.borrow()
                .is_some_and(|l| now.saturating_duration_since(l.at.max(l.due)) > limit)
        })
    }

    /// Takes the stored settings that apply while running (the subject rename).
    pub fn apply_settings(&self, settings: &Settings) {
        self.subject
            .lock(|s| *s.borrow_mut() = settings.subject.clone());
        self.name.lock(|n| *n.borrow_mut() = settings.name.clone());
    }

    /// The box's name as the settings give it (`None`: the board's default).
    pub fn name(&self) -> Option<String<BOX_NAME_LEN>> {
        self.name.lock(|n| n.borrow().clone())
    }

    /// Records the box's address once the network is up.
    pub fn set_address(&self, address: Ipv4Addr) {
        self.address
            .lock(|a| *a.borrow_mut() = Some(address.octets()));
    }

    /// The box's address, once the network is up.
    pub fn address(&self) -> Option<[u8; 4]> {
        self.address.lock(|a| *a.borrow())
    }

    /// Tells the player to play `reader`'s take from `start`, replacing what plays.
    pub fn request_play(&self, reader: BoxTake, targets: &[Target], loop_count: u32, start: Start) {
        self.commands.signal(Command::Play {
            reader,
            targets: targets.iter().take(MAX_TARGETS).copied().collect(),
            loops: Loops::from_count(loop_count),
            start,
        });
    }

    /// Tells the player to relay the live phone as `settings` say, to
    /// their targets, `idle` covering a dropout; replaces what plays.
    pub fn request_live(&self, settings: &Settings, idle: Option<BoxTake>) {
        self.commands.signal(Command::Live {
            spec: settings.live.clone(),
            targets: settings.targets.clone(),
            idle,
        });
    }

    /// How the live relay stands, while it runs.
    pub fn live_status(&self) -> Option<LiveStatus> {
        self.live.lock(|l| l.borrow().clone())
    }

    /// Tells the player to stop.
    pub fn request_stop(&self) {
        self.commands.signal(Command::Stop);
    }

    /// What is playing, if anything.
    pub fn playing(&self) -> Option<Playing> {
        self.playing.lock(|p| p.borrow().clone())
    }

    /// How the last playback went, while none plays.
    pub fn last(&self) -> Option<Played> {
        self.last.lock(|l| l.borrow().clone())
    }

    /// Ends the playback in progress: its summary, ended so, becomes the last.
    fn end_playback(&self, ended: Ended) {
        let played = self.playing.lock(|p| p.borrow_mut().take());
        let summary = played.map(|p| Played {
            take: p.take,
            // Every frame is offered to every target: one target's counts say how many.
            frames: p.targets.first().map_or(0, |t| t.sent + t.dropped),
            late_frames: p.late_frames,
            dropped: p.targets.iter().map(|t| t.dropped).sum(),
            ended,
        });
        self.last.lock(|l| *l.borrow_mut() = summary);
    }

    fn progress(&self, report: &PlayReport) {
        let life = Life {
            at: Instant::now(),
            due: Instant::from_micros(report.due_us),
        };
        self.life.lock(|l| *l.borrow_mut() = Some(life));
        self.playing.lock(|p| {
            if let Some(p) = p.borrow_mut().as_mut() {
                p.frame = report.frame;
                p.loops_done = report.loops_done;
                p.late_frames = report.late_frames;
                p.max_late_us = u32::try_from(report.max_late_us).unwrap_or(u32::MAX);
                p.read_ahead_low = self.read_ahead.low.load(Ordering::Relaxed);
                p.targets.clone_from(&report.targets);
                p.chase = self.timecode.status();
            }
        });
    }
}

impl Default for BoxState {
    fn default() -> Self {
        Self::new()
    }
}

/// The [`Playback`] a control session drives.
pub struct BoxDevice<'a> {
    /// The shared state.
    pub state: &'a BoxState,
}

impl Playback<BoxTake> for BoxDevice<'_> {
    fn play(&mut self, take: BoxTake, targets: &[Target], loop_count: u32, start: Start) {
        self.state.request_play(take, targets, loop_count, start);
    }

    fn stop(&mut self) {
        self.state.request_stop();
    }

    fn playing(&self) -> Option<Playing> {
        self.state.playing()
    }

    fn last(&self) -> Option<Played> {
        self.state.last()
    }

    fn clock_us(&self) -> u64 {
        Instant::now().as_micros()
    }

    fn clock_source(&self) -> ClockSource {
        self.state.clock.lock(|c| *c.borrow())
    }

    fn address(&self) -> Option<[u8; 4]> {
        self.state.address()
    }

    fn osc_port(&self) -> u16 {
        self.state.osc_port.load(Ordering::Relaxed)
    }

    fn faults(&self) -> Vec<Fault, MAX_FAULTS> {
        self.state.faults.lock(|f| f.borrow().clone())
    }

    fn read_ahead_short(&self) -> bool {
        self.state.read_ahead.short.load(Ordering::Relaxed)
    }

    fn settings_changed(&mut self, settings: &Settings) {
        self.state.apply_settings(settings);
        // Stored now are settings that passed the rules.
        self.state.faults.lock(|f| {
            f.borrow_mut()
                .retain(|f| f.code != FaultCode::BadStoredSetting)
        });
    }

    fn sender(&self) -> Sender {
        Sender::Box
    }

    fn live(
        &mut self,
        on: bool,
        settings: &Settings,
        idle: Option<BoxTake>,
    ) -> Result<(), Refusal> {
        if on {
            self.state.request_live(settings, idle);
        } else if self.state.live_status().is_some() {
            self.state.request_stop();
        }
        Ok(())
    }

    fn live_status(&self) -> Option<LiveStatus> {
        self.state.live_status()
    }
}

/// Plays what is commanded, one take at a time, or relays the live phone
/// from `input`, forever. A new command cancels the playback or the relay
/// in progress wherever it waits.
pub async fn run_player<F: NorFlash, D: CardDriver, K: PacketSink, L: LiveInput>(
    store: &SharedLibrary<F, D>,
    state: &BoxState,
    sink: &mut K,
    input: &mut L,
) -> ! {
    let mut ring = FrameRing::<READ_AHEAD>::new();
    let mut command = state.commands.wait().await;
    loop {
        command = match command {
            Command::Stop => state.commands.wait().await,
            Command::Live {
                spec,
                targets,
                idle,
            } => run_live(store, state, sink, input, &mut ring, &spec, &targets, idle).await,
            Command::Play {
                reader,
                targets,
                loops,
                start,
            } => {
                run_play(
                    store, state, sink, &mut ring, reader, &targets, loops, start,
                )
                .await
            }
        };
    }
}

/// Plays `reader`'s take; returns the command that ended it or came after.
#[allow(
    clippy::too_many_arguments,
    reason = "the player's parts, lent for one playback"
)]
async fn run_play<F: NorFlash, D: CardDriver, K: PacketSink>(
    store: &SharedLibrary<F, D>,
    state: &BoxState,
    sink: &mut K,
    ring: &mut FrameRing<READ_AHEAD>,
    reader: BoxTake,
    targets: &[Target],
    loops: Loops,
    start: Start,
) -> Command {
    let name = reader.header().name.clone();
    info!("playing {=str}", name.as_str());
    state.last.lock(|l| *l.borrow_mut() = None);
    state.playing.lock(|p| {
        *p.borrow_mut() = Some(Playing {
            take: name,
            frame: 0,
            loops_done: 0,
            late_frames: 0,
            max_late_us: 0,
            read_ahead_low: u32::MAX,
            targets: Vec::new(),
            chase: None,
        })
    });
    match &start {
        Start::Chase(spec) => state.timecode.begin(spec),
        Start::Now | Start::At(_) => state.timecode.end(),
    }
    let now = Instant::now();
    state
        .life
        .lock(|l| *l.borrow_mut() = Some(Life { at: now, due: now }));
    let mut source = StoreSource::new(store, reader, ring, &state.subject, &state.read_ahead);
    let progress = |r: &PlayReport| state.progress(r);
    let playback = async {
        match start {
            Start::Now => play(&mut source, sink, targets, loops, None, progress).await,
            Start::At(us) => {
                let at = Some(Instant::from_micros(us));
                play(&mut source, sink, targets, loops, at, progress).await
            }
            Start::Chase(spec) => {
                chase(
                    &mut source,
                    sink,
                    targets,
                    &state.timecode,
                    spec.offset,
                    progress,
                )
                .await
            }
        }
    };
    let outcome = select(playback, state.commands.wait()).await;
    state.timecode.end();
    state.end_playback(match &outcome {
        Either::First(Ok(_)) => Ended::Done,
        Either::First(Err(_)) => Ended::Failed,
        Either::Second(_) => Ended::Stopped,
    });
    state.life.lock(|l| *l.borrow_mut() = None);
    state.read_ahead.short.store(false, Ordering::Relaxed);
    match outcome {
        Either::First(result) => {
            match result {
                Ok(report) => info!(
                    "played {} frames, {} dropped, {} late",
                    report.frames,
                    report.dropped(),
                    report.late_frames
                ),
                Err(e) => warning!("playback ended: {}", e),
            }
            state.commands.wait().await
        }
        Either::Second(next) => next,
    }
}

/// Relays the live phone as `spec` says to `targets`, `idle` (read through
/// `ring`) covering a dropout, until a command comes: returns it.
#[allow(
    clippy::too_many_arguments,
    reason = "the player's parts, lent for one relay"
)]
async fn run_live<F: NorFlash, D: CardDriver, K: PacketSink, L: LiveInput>(
    store: &SharedLibrary<F, D>,
    state: &BoxState,
    sink: &mut K,
    input: &mut L,
    ring: &mut FrameRing<READ_AHEAD>,
    spec: &LiveSpec,
    targets: &[Target],
    idle: Option<BoxTake>,
) -> Command {
    state.last.lock(|l| *l.borrow_mut() = None);
    if !input.listen(spec.port) {
        warning!("live relay: cannot listen on UDP {}", spec.port);
        return state.commands.wait().await;
    }
    info!("live relay on UDP {}", spec.port);
    sink.open(targets);
    let from = spec.from.map(|ip| IpAddr::V4(Ipv4Addr::from(ip)));
    let mut engine = Relay::new(spec.config(), spec.subject.as_deref(), from);
    let started_ms = Instant::now().as_millis();
    let black_box = spec.record.then_some(&state.black_box);
    if let Some(b) = black_box {
        b.set_on(true);
    }
    let mut report = |relay: &Relay| {
        let recorded = black_box.map_or(0, |b| u64::from(b.bytes()));
        let status = LiveStatus::of(relay, started_ms, recorded);
        state.live.lock(|l| *l.borrow_mut() = Some(status));
    };
    report(&engine);
    let outcome = match idle {
        Some(reader) => {
            let mut source =
                StoreSource::new(store, reader, ring, &state.subject, &state.read_ahead);
            let relaying = relay(
                &mut engine,
                input,
                sink,
                targets,
                Some(&mut source),
                black_box,
                &mut report,
            );
            select(relaying, state.commands.wait()).await
        }
        None => {
            let relaying = relay::<StoreSource<'_, F, D, READ_AHEAD>, _, _>(
                &mut engine,
                input,
                sink,
                targets,
                None,
                black_box,
                &mut report,
            );
            select(relaying, state.commands.wait()).await
        }
    };
    input.close();
    if let Some(b) = black_box {
        b.set_on(false);
    }
    state.live.lock(|l| *l.borrow_mut() = None);
    state.read_ahead.short.store(false, Ordering::Relaxed);
    let counts = engine.counts();
    info!(
        "live relay off: {} frames in, {} out, {} fallbacks, {} more than 2 ms late (latest {} us)",
        counts.frames_in, counts.frames_out, counts.fallbacks, counts.late, counts.worst_late_us
    );
    match outcome {
        Either::First(never) => never,
        Either::Second(next) => next,
    }
}

/// At power-up: plays the autoplay take of `settings` (the stored ones the box
/// uses), if it exists, to their targets: at once, or following timecode
/// when the settings chase.
pub async fn autoplay<F: NorFlash, D: CardDriver>(
    store: &SharedLibrary<F, D>,
    state: &BoxState,
    settings: &Settings,
) {
    let mut store = store.lock().await;
    state.apply_settings(settings);
    let Some(auto) = &settings.autoplay else {
        return;
    };
    if settings.targets.is_empty() {
        warning!("autoplay {=str}: no targets configured", auto.take.as_str());
        return;
    }
    let start = match settings.chase {
        Some(spec) => Start::Chase(spec),
        None => Start::Now,
    };
    match store.open(TakeRef::parse(&auto.take)).await {
        Ok((reader, _)) => {
            info!("autoplay {=str}", auto.take.as_str());
            state.request_play(reader, &settings.targets, auto.loop_count, start);
        }
        Err(_) => warning!("autoplay {=str}: no such take", auto.take.as_str()),
    }
}

/// At power-up: turns the live relay on when `settings` (the stored ones the
/// box uses) say so, as a `Live` request would (replacing the autoplay).
pub async fn live_at_power_up<F: NorFlash, D: CardDriver>(
    store: &SharedLibrary<F, D>,
    state: &BoxState,
    settings: &Settings,
) {
    if !settings.live.enabled {
        return;
    }
    let mut library = store.lock().await;
    let mut device = BoxDevice { state };
    match llv_control::live_on(&mut *library, &mut device, settings).await {
        Ok(()) => info!("live relay at power-up"),
        Err(e) => warning!("live relay at power-up: {=str}", e.detail.as_str()),
    }
}
