//! [`Relay`]: live face frames in, frames out at once or on the re-clocked
//! tick; the fallback when the source falls silent and the return when it
//! is back.
//!
//! States: **waiting** until the first face frame (its subject becomes the
//! source's; with a subject filter, only that subject's); **live**: the
//! source's frames go out untouched; **fallback**: no live frame for the
//! timeout, so frames made on the source's period crossfade from the last
//! frame sent to the idle take (or hold it); **returning**: the source sent
//! the return count of frames without a gap longer than the timeout, so its
//! frames go out crossfaded from the fallback back to themselves, then live.
//! Made frames carry the last live frame's device id and subject, and its
//! frame time run on by the time since.

use core::net::IpAddr;

use heapless::Deque;

use super::clock::{Slew, SourceClock};
use super::counts::{RelayCounts, SwitchKind};
use super::fade::{mix, weight};
use super::{Idle, RelayConfig, MAX_BUFFER};
use crate::blendshape::COUNT;
use crate::packet::{classify, Datagram, FaceFrame, Packet, MAX_LEN};
use crate::time::FrameTime;

/// Frames the buffer holds: the most a setting asks for and one for the
/// source running a frame ahead (the box's RAM budget keeps it at that).
const QUEUE: usize = MAX_BUFFER as usize + 1;
/// A late poll more than this many periods behind its tick restarts the tick at once.
const CATCH_UP: u64 = 4;
/// Most lost frames whose ticks the buffered output leaves empty.
const MAX_HOLE: u64 = 4;

/// What the caller does with a datagram it handed to [`Relay::arrive`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Arrived {
    /// A face frame of the live source: record it.
    Face,
    /// Not a face frame, and the setting passes such datagrams on: send it untouched.
    PassOn,
    /// Counted and not sent (another source, or not a face frame).
    Skipped,
}

/// Where the relay is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RelayState {
    /// No live frame yet.
    Waiting,
    /// The live frames go out.
    Live,
    /// The source is silent: crossfading to, or on, the idle take (or the hold).
    Fallback,
    /// The source is back: crossfading from the fallback to it.
    Returning,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Waiting,
    Live,
    Fallback { since: u64 },
    Returning { since: u64, fallback_since: u64 },
}

/// One face packet as it arrived.
#[derive(Clone)]
struct Held {
    at: u64,
    /// Ticks left empty before it: frames lost just before it, which keeps
    /// the output's timing (a few at most; more is a gap for the fallback).
    hole: u8,
    len: usize,
    bytes: [u8; MAX_LEN],
}

impl Held {
    const EMPTY: Held = Held {
        at: 0,
        hole: 0,
        len: 0,
        bytes: [0; MAX_LEN],
    };

    fn new(at: u64, packet: &[u8]) -> Option<Held> {
        let mut held = Held::EMPTY;
        held.bytes.get_mut(..packet.len())?.copy_from_slice(packet);
        held.len = packet.len();
        held.at = at;
        Some(held)
    }

    fn bytes(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or_default()
    }
}

/// The relay engine: see the module's documentation for its states.
pub struct Relay {
    config: RelayConfig,
    subject_filter: Option<u32>,
    from_filter: Option<IpAddr>,
    source: Option<u32>,
    clock: SourceClock,
    queue: Deque<Held, QUEUE>,
    mode: Mode,
    next_tick: Option<u64>,
    slew: Slew,
    /// The live frame whose header made frames carry, and when it went out.
    last_live: Held,
    last_live_out: u64,
    last_out: [f32; COUNT],
    fade_from: [f32; COUNT],
    idle_now: [f32; COUNT],
    counts: RelayCounts,
}

/// FNV-1a of a subject name: which source a frame is from, in four bytes.
fn subject_key(subject: &str) -> u32 {
    subject.bytes().fold(0x811c_9dc5, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

impl Relay {
    /// A relay with `config`; with `subject`, only that subject's frames are
    /// live (else the first subject seen); with `from`, only that address's.
    pub fn new(config: RelayConfig, subject: Option<&str>, from: Option<IpAddr>) -> Relay {
        let buffer = config.buffer.min(MAX_BUFFER);
        Relay {
            config: RelayConfig { buffer, ..config },
            subject_filter: subject.map(subject_key),
            from_filter: from,
            source: None,
            clock: SourceClock::new(u64::from(config.timeout_ms) * 1000),
            queue: Deque::new(),
            mode: Mode::Waiting,
            next_tick: None,
            slew: Slew::default(),
            last_live: Held::EMPTY,
            last_live_out: 0,
            last_out: [0.0; COUNT],
            fade_from: [0.0; COUNT],
            idle_now: [0.0; COUNT],
            counts: RelayCounts::default(),
        }
    }

    /// What it counted.
    pub fn counts(&self) -> &RelayCounts {
        &self.counts
    }

    /// The live source's timing.
    pub fn source_clock(&self) -> &SourceClock {
        &self.clock
    }

    /// Where it is.
    pub fn state(&self) -> RelayState {
        match self.mode {
            Mode::Waiting => RelayState::Waiting,
            Mode::Live => RelayState::Live,
            Mode::Fallback { .. } => RelayState::Fallback,
            Mode::Returning { .. } => RelayState::Returning,
        }
    }

    fn timeout_us(&self) -> u64 {
        u64::from(self.config.timeout_ms) * 1000
    }

    fn fade_us(&self) -> u64 {
        u64::from(self.config.fade_ms) * 1000
    }

    /// Takes a datagram that arrived at `at_us` from `from`; says whether to
    /// record it, pass it on untouched, or leave it.
    pub fn arrive(&mut self, at_us: u64, bytes: &[u8], from: IpAddr) -> Arrived {
        let packet = match classify(bytes) {
            Datagram::Face(packet) => packet,
            _ => {
                self.counts.not_face += 1;
                if self.config.pass_other {
                    self.counts.passed += 1;
                    return Arrived::PassOn;
                }
                return Arrived::Skipped;
            }
        };
        if !self.is_source(&packet, from) {
            self.counts.other_source += 1;
            return Arrived::Skipped;
        }
        let Some(mut held) = Held::new(at_us, bytes) else {
            return Arrived::Skipped;
        };
        self.counts.frames_in += 1;
        let lost = self.clock.arrive(at_us, packet.time());
        self.counts.lost += lost;
        if self.mode == Mode::Live && lost <= MAX_HOLE {
            held.hole = lost as u8;
        }
        let buffer = usize::from(self.config.buffer);
        let keep = match self.mode {
            Mode::Fallback { .. } => buffer.max(1),
            _ if buffer == 0 => QUEUE,
            _ => (2 * buffer + 2).min(QUEUE),
        };
        while self.queue.len() >= keep {
            self.queue.pop_front();
            if !matches!(self.mode, Mode::Fallback { .. }) {
                self.counts.dropped += 1;
            }
        }
        let _ = self.queue.push_back(held);
        match self.mode {
            Mode::Waiting => self.mode = Mode::Live,
            Mode::Fallback { since }
                if self.clock.run() >= u32::from(self.config.return_frames) =>
            {
                self.mode = Mode::Returning {
                    since: at_us,
                    fallback_since: since,
                };
                self.counts.switch(SwitchKind::Return, at_us);
                if buffer == 0 {
                    self.next_tick = None;
                }
            }
            _ => {}
        }
        if buffer > 0 && self.next_tick.is_none() && self.queue.len() >= buffer {
            if let (Some(period), Some(first)) = (self.clock.period_us(), self.queue.front()) {
                self.next_tick = Some(first.at + buffer as u64 * period);
                self.slew.restart();
            }
        }
        Arrived::Face
    }

    /// Whether `packet` from `from` is the live source's; the first face
    /// frame that passes the filters names the source.
    fn is_source(&mut self, packet: &Packet<'_>, from: IpAddr) -> bool {
        if self.from_filter.is_some_and(|f| f != from) {
            return false;
        }
        let key = subject_key(packet.subject());
        if self.subject_filter.is_some_and(|s| s != key) {
            return false;
        }
        *self.source.get_or_insert(key) == key
    }

    /// When [`Relay::poll`] next has something to do (`None`: only after
    /// the next arrival).
    pub fn next_due(&self) -> Option<u64> {
        let live = matches!(self.mode, Mode::Live | Mode::Returning { .. });
        if live && self.config.buffer == 0 && !self.queue.is_empty() {
            return Some(0);
        }
        let timeout = match (live && self.queue.is_empty(), self.clock.last_at()) {
            (true, Some(last)) => Some(last + self.timeout_us()),
            _ => None,
        };
        match (self.next_tick, timeout) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The next frame due at `now_us`, written into `out` (its length
    /// returned); call again until `None`. `idle` gives the fallback's frames.
    pub fn poll(&mut self, now_us: u64, idle: &mut dyn Idle, out: &mut [u8]) -> Option<usize> {
        self.check_silence(now_us);
        let buffered = self.config.buffer > 0;
        let tick = match self.mode {
            Mode::Waiting => return None,
            Mode::Live | Mode::Returning { .. } if !buffered => {
                let held = self.queue.pop_front()?;
                return self.send_live(held, now_us, now_us, idle, out);
            }
            _ => self.due_tick(now_us)?,
        };
        let period = self.clock.period_us().unwrap_or(33_333);
        match self.mode {
            Mode::Fallback { since } => {
                self.next_tick = Some(tick + period);
                self.fallback_values(tick, since, idle);
                self.counts.sent_at(tick, now_us);
                self.send_made(tick, out)
            }
            _ => {
                if let Some(front) = self.queue.front_mut().filter(|f| f.hole > 0) {
                    front.hole -= 1;
                    self.next_tick = Some(tick + period);
                    return None;
                }
                let Some(held) = self.queue.pop_front() else {
                    // An empty tick while the source is silent is the
                    // silence, not the buffer running dry.
                    let latency = u64::from(self.config.buffer) * period + period;
                    if self
                        .clock
                        .last_at()
                        .is_some_and(|last| tick <= last + latency)
                    {
                        self.counts.underruns += 1;
                    }
                    self.next_tick = Some(tick + period);
                    return None;
                };
                let target = held.at + u64::from(self.config.buffer) * period;
                self.next_tick = Some(self.slew.next_tick(tick, period, target));
                self.counts.sent_at(tick, now_us);
                self.send_live(held, tick, tick, idle, out)
            }
        }
    }

    /// The tick due at `now_us`, if one is; a tick far behind restarts at `now_us`.
    fn due_tick(&mut self, now_us: u64) -> Option<u64> {
        let tick = self.next_tick.filter(|t| *t <= now_us)?;
        let period = self.clock.period_us().unwrap_or(33_333);
        Some(if now_us - tick > CATCH_UP * period {
            now_us
        } else {
            tick
        })
    }

    /// Falls back when the source has been silent for the timeout and
    /// nothing it sent is still waiting to go out.
    fn check_silence(&mut self, now_us: u64) {
        if !matches!(self.mode, Mode::Live | Mode::Returning { .. }) {
            return;
        }
        let Some(last) = self.clock.last_at() else {
            return;
        };
        if now_us < last + self.timeout_us() {
            return;
        }
        if !self.queue.is_empty() {
            if self.next_tick.is_some() {
                return;
            }
            self.counts.dropped += self.queue.len() as u64;
            self.queue.clear();
        }
        self.fade_from = self.last_out;
        self.mode = Mode::Fallback { since: now_us };
        self.next_tick = Some(self.next_tick.unwrap_or(now_us).max(now_us));
        self.counts.switch(SwitchKind::Fallback, now_us);
    }

    /// The fallback's values at `t` into `last_out`: the crossfade from the
    /// frame sent last before it toward the idle take's next frame (or that
    /// frame held).
    fn fallback_values(&mut self, t: u64, since: u64, idle: &mut dyn Idle) {
        if !idle.next(&mut self.idle_now) {
            self.idle_now = self.fade_from;
        }
        let w = weight(t.saturating_sub(since), self.fade_us());
        let mut values = [0.0; COUNT];
        mix(&self.fade_from, &self.idle_now, w, &mut values);
        self.last_out = values;
    }

    /// Sends a live frame at `at` (untouched when live, mixed when returning).
    fn send_live(
        &mut self,
        held: Held,
        at: u64,
        t: u64,
        idle: &mut dyn Idle,
        out: &mut [u8],
    ) -> Option<usize> {
        let frame = FaceFrame::decode(held.bytes()).ok()?;
        let mut made = None;
        if let Mode::Returning {
            since,
            fallback_since,
        } = self.mode
        {
            let w = weight(t.saturating_sub(since), self.fade_us());
            if w < 1.0 {
                self.fallback_values(t, fallback_since, idle);
                let mut values = [0.0; COUNT];
                mix(&self.last_out, &frame.blendshapes, w, &mut values);
                made = Some(values);
            } else {
                self.mode = Mode::Live;
            }
        }
        self.last_live_out = at;
        let sent = match made {
            Some(values) => {
                self.last_out = values;
                let len = FaceFrame {
                    blendshapes: values,
                    ..frame
                }
                .encode(out)
                .ok()?;
                self.counts.made += 1;
                len
            }
            None => {
                self.last_out = frame.blendshapes;
                let dst = out.get_mut(..held.len)?;
                dst.copy_from_slice(held.bytes());
                held.len
            }
        };
        self.last_live = held;
        self.counts.frames_out += 1;
        Some(sent)
    }

    /// Sends `last_out` as a made frame at `at`, in the last live frame's
    /// header with its time run on.
    fn send_made(&mut self, at: u64, out: &mut [u8]) -> Option<usize> {
        let live = FaceFrame::decode(self.last_live.bytes()).ok()?;
        let time = run_on(live.time, at.saturating_sub(self.last_live_out));
        let len = FaceFrame {
            time,
            blendshapes: self.last_out,
            ..live
        }
        .encode(out)
        .ok()?;
        self.counts.made += 1;
        self.counts.frames_out += 1;
        Some(len)
    }
}

/// `time` run on by `elapsed_us` at its rate (unchanged for an invalid rate).
fn run_on(time: FrameTime, elapsed_us: u64) -> FrameTime {
    if !time.rate.is_valid() {
        return time;
    }
    let frames = elapsed_us as f64 * f64::from(time.rate.numerator)
        / (f64::from(time.rate.denominator) * 1e6);
    let whole = frames as i64;
    let sub = f64::from(time.subframe) + (frames - whole as f64);
    let (carry, sub) = if sub >= 1.0 { (1, sub - 1.0) } else { (0, sub) };
    let number = i64::from(time.frame_number) + whole + carry;
    FrameTime {
        frame_number: i32::try_from(number).unwrap_or(i32::MAX),
        subframe: sub as f32,
        ..time
    }
}
