//! The box's TCP connection slots, one per socket: [`CONTROL_SLOTS`] on the
//! control port, then [`OSC_SLOTS`] on the OSC port, then [`HTTP_SLOTS`] on the HTTP port, kept by one
//! `llv_control::DoorKeeper` (the door policy `llv serve` runs too: one
//! slot of each door kept free, see `llv_control::slots`).

use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use llv_control::{Door, DoorKeeper};

/// Control connections at once (slots `0..CONTROL_SLOTS`).
pub const CONTROL_SLOTS: usize = 3;
/// OSC over TCP connections at once (the slots after the control ones).
pub const OSC_SLOTS: usize = 2;
/// HTTP connections at once (the slots after the OSC ones): the page's
/// event stream and its requests (none without the `http` feature).
pub const HTTP_SLOTS: usize = if cfg!(feature = "http") { 2 } else { 0 };
/// Every TCP slot.
pub const SLOTS: usize = CONTROL_SLOTS + OSC_SLOTS + HTTP_SLOTS;

/// The keeper of the box's slots.
pub type BoxKeeper = DoorKeeper<CriticalSectionRawMutex, SLOTS>;

/// Every slot free, each serving its door.
pub const fn keeper() -> BoxKeeper {
    let mut doors = [Some(Door::Control); SLOTS];
    let mut i = CONTROL_SLOTS;
    while i < CONTROL_SLOTS + OSC_SLOTS {
        doors[i] = Some(Door::Osc);
        i += 1;
    }
    while i < SLOTS {
        doors[i] = Some(Door::Http);
        i += 1;
    }
    DoorKeeper::new(doors)
}
