//! For host tests: a [`Device`] that records what the session asked of it, and
//! a scripted byte stream to serve connections over.

use std::string::{String, ToString};
use std::sync::{Arc, Mutex};
use std::vec::Vec;

use heapless::Vec as Bounded;
use llv_core::control::{
    body_len, decode, Fault, Playing, Response, Start, MAX_FAULTS, PREFIX_LEN,
};
use llv_core::settings::{Settings, Target};

use crate::library::Take;
use crate::session::Device;

/// Remembers the last play request and the last settings applied.
#[derive(Clone, Debug, Default)]
pub struct RecordingDevice {
    /// The take playing: name, targets, loop count and start.
    pub playing: Option<(String, Vec<Target>, u32, Start)>,
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
}

impl<T: Take> Device<T> for RecordingDevice {
    fn play(&mut self, take: T, targets: &[Target], loop_count: u32, start: Start) {
        self.playing = Some((
            take.header().name.to_string(),
            targets.to_vec(),
            loop_count,
            start,
        ));
    }

    fn stop(&mut self) {
        self.playing = None;
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

    fn clock_us(&self) -> u64 {
        self.clock_us
    }

    fn address(&self) -> Option<[u8; 4]> {
        self.address
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
}

/// A [`RecordingDevice`] shared between threads (host tests serving several
/// connections): what one connection did is there as soon as its response
/// is sent.
#[derive(Clone, Debug, Default)]
pub struct SharedDevice(pub Arc<Mutex<RecordingDevice>>);

impl SharedDevice {
    /// The recording device, locked.
    pub fn lock(&self) -> std::sync::MutexGuard<'_, RecordingDevice> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl<T: Take> Device<T> for SharedDevice {
    fn play(&mut self, take: T, targets: &[Target], loop_count: u32, start: Start) {
        Device::<T>::play(&mut *self.lock(), take, targets, loop_count, start);
    }

    fn stop(&mut self) {
        Device::<T>::stop(&mut *self.lock());
    }

    fn playing(&self) -> Option<Playing> {
        Device::<T>::playing(&*self.lock())
    }

    fn clock_us(&self) -> u64 {
        self.lock().clock_us
    }

    fn address(&self) -> Option<[u8; 4]> {
        self.lock().address
    }

    fn faults(&self) -> Bounded<Fault, MAX_FAULTS> {
        self.lock().faults.clone()
    }

    fn read_ahead_short(&self) -> bool {
        self.lock().read_ahead_short
    }

    fn settings_changed(&mut self, settings: &Settings) {
        Device::<T>::settings_changed(&mut *self.lock(), settings);
    }
}

/// A connection's byte stream: hands out `input` at most `step` bytes per
/// read, then end of stream, or (with `hold`) nothing ever again; keeps what
/// is written.
pub struct ScriptedStream {
    /// What the peer sends.
    pub input: Vec<u8>,
    /// How much of it was read.
    pub at: usize,
    /// The most one read returns.
    pub step: usize,
    /// After the input, wait forever instead of ending the stream.
    pub hold: bool,
    /// What the box wrote.
    pub output: Vec<u8>,
}

impl ScriptedStream {
    /// A stream of `input`, `step` bytes a read, that ends after it.
    pub fn new(input: Vec<u8>, step: usize) -> Self {
        ScriptedStream {
            input,
            at: 0,
            step,
            hold: false,
            output: Vec::new(),
        }
    }

    /// The responses written, decoded.
    pub fn responses(&self) -> Vec<Response> {
        let mut responses = Vec::new();
        let mut rest = &self.output[..];
        while rest.len() >= PREFIX_LEN {
            let len = body_len([rest[0], rest[1]]);
            let Some(body) = rest.get(PREFIX_LEN..PREFIX_LEN + len) else {
                break;
            };
            match decode(body) {
                Ok(response) => responses.push(response),
                Err(_) => break,
            }
            rest = &rest[PREFIX_LEN + len..];
        }
        responses
    }
}

impl embedded_io_async::ErrorType for ScriptedStream {
    type Error = core::convert::Infallible;
}

impl embedded_io_async::Read for ScriptedStream {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        if self.at == self.input.len() && self.hold {
            core::future::pending::<()>().await;
        }
        let n = buf.len().min(self.step).min(self.input.len() - self.at);
        buf[..n].copy_from_slice(&self.input[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

impl embedded_io_async::Write for ScriptedStream {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        self.output.extend_from_slice(buf);
        Ok(buf.len())
    }

    async fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}
