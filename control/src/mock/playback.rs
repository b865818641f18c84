//! A [`Playback`] that records what the session asked of it.

use std::string::{String, ToString};
use std::sync::{Arc, Mutex};
use std::vec::Vec;

use heapless::Vec as Bounded;
use llv_core::control::{
    ClockSource, Ended, Fault, LiveStatus, Played, Playing, Start, MAX_FAULTS,
};
use llv_core::settings::{Sender, Settings, Target};

use crate::library::{Refusal, Take};
use crate::session::Playback;

/// Remembers the last play request and the last settings applied.
#[derive(Clone, Debug, Default)]
pub struct RecordingPlayback {
    /// The take playing: name, targets, loop count and start.
    pub playing: Option<(String, Vec<Target>, u32, Start)>,
    /// The playback a stop ended, until the next play.
    pub last: Option<Played>,
    /// The settings last passed to `settings_changed`.
    pub applied: Option<Settings>,
    /// What `clock_us` answers.
    pub clock_us: u64,
    /// What `address` answers.
    pub address: Option<[u8; 4]>,
    /// What `faults` answers.
    pub faults: Bounded<Fault, MAX_FAULTS>,
    /// What `read_ahead_short` answers.
    pub read_ahead_short: bool,
    /// Plays as a laptop (`llv serve`: its loopback is a target) rather than as the box.
    pub laptop: bool,
    /// The live relay as the session last set it: on or off, and the
    /// settings' port it was to listen on.
    pub live: Option<(bool, u16)>,
    /// The idle take the live relay was last turned on with.
    pub live_idle: Option<String>,
}

impl<T: Take> Playback<T> for RecordingPlayback {
    fn play(&mut self, take: T, targets: &[Target], loop_count: u32, start: Start) {
        self.last = None;
        self.playing = Some((
            take.header().name.to_string(),
            targets.to_vec(),
            loop_count,
            start,
        ));
    }

    fn stop(&mut self) {
        if let Some((take, ..)) = self.playing.take() {
            self.last = Some(Played {
                take: llv_core::control::bounded(&take),
                frames: 0,
                late_frames: 0,
                dropped: 0,
                ended: Ended::Stopped,
            });
        }
    }

    fn playing(&self) -> Option<Playing> {
        self.playing.as_ref().map(|(take, ..)| Playing {
            take: llv_core::control::bounded(take),
            frame: 0,
            loops_done: 0,
            late_frames: 0,
            max_late_us: 0,
            read_ahead_low: u32::MAX,
            targets: Bounded::new(),
            chase: None,
        })
    }

    fn last(&self) -> Option<Played> {
        self.last.clone()
    }

    fn clock_us(&self) -> u64 {
        self.clock_us
    }

    fn clock_source(&self) -> ClockSource {
        ClockSource::Host
    }

    fn address(&self) -> Option<[u8; 4]> {
        self.address
    }

    fn osc_port(&self) -> u16 {
        llv_core::settings::OSC_PORT
    }

    fn faults(&self) -> Bounded<Fault, MAX_FAULTS> {
        self.faults.clone()
    }

    fn read_ahead_short(&self) -> bool {
        self.read_ahead_short
    }

    fn settings_changed(&mut self, settings: &Settings) {
        self.applied = Some(settings.clone());
    }

    fn sender(&self) -> Sender {
        if self.laptop {
            Sender::Laptop
        } else {
            Sender::Box
        }
    }

    fn live(&mut self, on: bool, settings: &Settings, idle: Option<T>) -> Result<(), Refusal> {
        self.live = Some((on, settings.live.port));
        self.live_idle = idle.map(|t| t.header().name.to_string());
        Ok(())
    }

    fn live_status(&self) -> Option<LiveStatus> {
        self.live
            .filter(|(on, _)| *on)
            .map(|_| LiveStatus::default())
    }
}

/// A [`RecordingPlayback`] shared between threads (host tests serving several
/// connections): what one connection did is there as soon as its response
/// is sent.
#[derive(Clone, Debug, Default)]
pub struct SharedPlayback(pub Arc<Mutex<RecordingPlayback>>);

impl SharedPlayback {
    /// The recording device, locked.
    pub fn lock(&self) -> std::sync::MutexGuard<'_, RecordingPlayback> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl<T: Take> Playback<T> for SharedPlayback {
    fn play(&mut self, take: T, targets: &[Target], loop_count: u32, start: Start) {
        Playback::<T>::play(&mut *self.lock(), take, targets, loop_count, start);
    }

    fn stop(&mut self) {
        Playback::<T>::stop(&mut *self.lock());
    }

    fn playing(&self) -> Option<Playing> {
        Playback::<T>::playing(&*self.lock())
    }

    fn last(&self) -> Option<Played> {
        self.lock().last.clone()
    }

    fn clock_us(&self) -> u64 {
        self.lock().clock_us
    }

    fn clock_source(&self) -> ClockSource {
        ClockSource::Host
    }

    fn address(&self) -> Option<[u8; 4]> {
        self.lock().address
    }

    fn osc_port(&self) -> u16 {
        llv_core::settings::OSC_PORT
    }

    fn faults(&self) -> Bounded<Fault, MAX_FAULTS> {
        self.lock().faults.clone()
    }

    fn read_ahead_short(&self) -> bool {
        self.lock().read_ahead_short
    }

    fn settings_changed(&mut self, settings: &Settings) {
        Playback::<T>::settings_changed(&mut *self.lock(), settings);
    }

    fn sender(&self) -> Sender {
        Playback::<T>::sender(&*self.lock())
    }

    fn live(&mut self, on: bool, settings: &Settings, idle: Option<T>) -> Result<(), Refusal> {
        Playback::<T>::live(&mut *self.lock(), on, settings, idle)
    }

    fn live_status(&self) -> Option<LiveStatus> {
        Playback::<T>::live_status(&*self.lock())
    }
}
