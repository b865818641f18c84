//! The live relay: face frames from a phone passed on to the targets, either
//! at once or re-clocked on an exact period, covered by an idle take (or the
//! last frame held) when the phone stops, crossfaded both ways. The box,
//! `llv serve` and `llv relay` run this one engine; they bring the sockets,
//! the clock and the idle take.
//!
//! Times are microseconds on any monotonic local clock. The caller hands
//! every datagram to [`Relay::arrive`] with its arrival instant, and sends
//! what [`Relay::poll`] gives whenever [`Relay::next_due`] has come.
//!
//! | module | what it holds |
//! |---|---|
//! | [`clock`] | [`SourceClock`]: the source's average period, jitter and losses; the output tick's [`Slew`] |
//! | [`fade`] | crossfade weights and the mixing of two frames' values |
//! | [`counts`] | [`RelayCounts`] and the log of [`Switch`]es between live and fallback |
//! | [`engine`] | [`Relay`]: the buffer, the states live, fallback and returning, the frames it writes |

pub mod clock;
pub mod counts;
pub mod engine;
pub mod fade;

pub use clock::{Slew, SourceClock};
pub use counts::{RelayCounts, Switch, SwitchKind, SWITCH_LOG};
pub use engine::{Arrived, Relay, RelayState};

use crate::blendshape::COUNT;

/// Most frames of re-clocking buffer (each holds one whole packet).
pub const MAX_BUFFER: u8 = 6;

/// How the relay re-clocks, falls back and returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RelayConfig {
    /// Frames of buffer: 0 passes each frame on at once; N emits on an exact
    /// period, N frames of the source's period after arrival.
    pub buffer: u8,
    /// No live frame for this long (ms) and the output falls back.
    pub timeout_ms: u16,
    /// Length of each crossfade (ms).
    pub fade_ms: u16,
    /// Consecutive live frames it takes to return from the fallback.
    pub return_frames: u8,
    /// Pass datagrams that are not face frames on untouched (else drop them).
    pub pass_other: bool,
}

impl Default for RelayConfig {
    fn default() -> Self {
        RelayConfig {
            buffer: 0,
            timeout_ms: 250,
            fade_ms: 300,
            return_frames: 10,
            pass_other: false,
        }
    }
}

/// The frames that cover for the phone: an idle take, looping.
pub trait Idle {
    /// Writes the next frame's 61 values into `out`; `false` when there is no
    /// idle take (the relay then holds the last frame).
    fn next(&mut self, out: &mut [f32; COUNT]) -> bool;
}

/// No idle take: the relay holds the last live frame.
pub struct NoIdle;

impl Idle for NoIdle {
    fn next(&mut self, _out: &mut [f32; COUNT]) -> bool {
        false
    }
}
