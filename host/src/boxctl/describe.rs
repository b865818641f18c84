//! What `llv box` says of a box's state in words.

use llv_core::control::ClockSource;

/// What `llv box status` says of the box's clock.
pub fn clock_words(clock: ClockSource) -> &'static str {
    match clock {
        ClockSource::Crystal => "crystal (the board's external clock)",
        ClockSource::Internal => {
            "internal RC oscillator: no external clock came up, frame timing drifts \
             (see the ClockFallback fault)"
        }
        ClockSource::Emulated => "emulated (QEMU's virtual clock, following the host's)",
        ClockSource::Host => "host (the computer's own clock: llv serve)",
    }
}
