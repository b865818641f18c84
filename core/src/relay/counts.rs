//! What the relay counts, and the log of its switches between the live
//! source and the fallback, each with its instant.

use heapless::Deque;

/// A re-clocked frame sent this long after its tick is late, µs (the
/// box's rule for a playback's frames).
pub const LATE_US: u64 = 2_000;

/// Switches the log keeps (the latest; the counts keep every one).
pub const SWITCH_LOG: usize = 8;

/// A switch between live and fallback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SwitchKind {
    /// No live frame for the timeout: the crossfade to the fallback began.
    Fallback,
    /// The live source was back for the return count: the crossfade back began.
    Return,
}

/// One switch and when it happened (µs on the relay's clock).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Switch {
    /// Which way.
    pub kind: SwitchKind,
    /// When, on the clock the caller feeds the relay.
    pub at_us: u64,
}

/// The relay's counts since it started.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RelayCounts {
    /// Face frames from the live source.
    pub frames_in: u64,
    /// Frames sent (live, mixed, idle or held).
    pub frames_out: u64,
    /// Of those, frames the relay made (crossfades, idle, hold).
    pub made: u64,
    /// Live frames missing by their frame numbers.
    pub lost: u64,
    /// Datagrams that are not face frames (no-face, MetaHuman Animator, garbage).
    pub not_face: u64,
    /// Of those, passed on untouched.
    pub passed: u64,
    /// Face frames of another subject or address (the filter's or the first source's).
    pub other_source: u64,
    /// Live frames dropped from a full buffer (the source ran ahead) or left
    /// in it when the fallback began.
    pub dropped: u64,
    /// Output ticks that found the buffer empty though the source was not
    /// silent (a frame later than the buffer allows).
    pub underruns: u64,
    /// Frames sent more than [`LATE_US`] after their tick (re-clocked
    /// output only: without a buffer a frame goes when it arrives).
    pub late: u64,
    /// The latest a frame was sent after its tick, µs.
    pub worst_late_us: u64,
    /// Switches to the fallback.
    pub fallbacks: u32,
    /// Returns to the live source.
    pub returns: u32,
    /// The latest switches, oldest first.
    pub switches: Deque<Switch, SWITCH_LOG>,
}

impl RelayCounts {
    /// Counts a frame of the tick `tick` sent at `now_us`.
    pub(crate) fn sent_at(&mut self, tick: u64, now_us: u64) {
        let late = now_us.saturating_sub(tick);
        if late > LATE_US {
            self.late += 1;
        }
        self.worst_late_us = self.worst_late_us.max(late);
    }

    /// Counts a switch and logs it, forgetting the oldest when the log is full.
    pub(crate) fn switch(&mut self, kind: SwitchKind, at_us: u64) {
        match kind {
            SwitchKind::Fallback => self.fallbacks = self.fallbacks.saturating_add(1),
            SwitchKind::Return => self.returns = self.returns.saturating_add(1),
        }
        if self.switches.is_full() {
            self.switches.pop_front();
        }
        let _ = self.switches.push_back(Switch { kind, at_us });
    }
}
