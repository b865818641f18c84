//! A [`Device`] for host tests: it records what the session asked of it.

use std::string::{String, ToString};
use std::vec::Vec;

use heapless::Vec as Bounded;
use llv_box_store::TakeReader;
use llv_core::control::{Fault, Playing, MAX_FAULTS};
use llv_core::settings::{Settings, Target};

use crate::session::Device;

/// Remembers the last play request and the last settings applied.
#[derive(Clone, Debug, Default)]
pub struct RecordingDevice {
    /// The take playing: name, targets and loop count.
    pub playing: Option<(String, Vec<Target>, u32)>,
    /// The settings last passed to `settings_changed`.
    pub applied: Option<Settings>,
    /// What `uptime_ms` answers.
    pub uptime_ms: u64,
    /// What `address` answers.
    pub address: Option<[u8; 4]>,
    /// What `faults` answers.
    pub faults: Bounded<Fault, MAX_FAULTS>,
}

impl Device for RecordingDevice {
    fn play(&mut self, take: TakeReader, targets: &[Target], loop_count: u32) {
        self.playing = Some((take.header().name.to_string(), targets.to_vec(), loop_count));
    }

    fn stop(&mut self) {
        self.playing = None;
    }

    fn playing(&self) -> Option<Playing> {
        self.playing.as_ref().map(|(take, _, _)| Playing {
            take: llv_core::control::bounded(take),
            frame: 0,
            loops_done: 0,
            late_frames: 0,
            max_late_us: 0,
            targets: Bounded::new(),
        })
    }

    fn uptime_ms(&self) -> u64 {
        self.uptime_ms
    }

    fn address(&self) -> Option<[u8; 4]> {
        self.address
    }

    fn faults(&self) -> Bounded<Fault, MAX_FAULTS> {
        self.faults.clone()
    }

    fn settings_changed(&mut self, settings: &Settings) {
        self.applied = Some(settings.clone());
    }
}
