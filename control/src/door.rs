//! What every front door shares: the box's [`Control`] (firmware, library,
//! penalties, limits), how long a connection may take ([`Limits`]), why
//! one ended ([`Ended`]) and what a connection tells the door keeper about
//! itself ([`Seat`]).

use embassy_sync::blocking_mutex::raw::RawMutex;
use embassy_sync::mutex::Mutex;
use embassy_time::Duration;
use embedded_io_async::ReadExactError;

use crate::penalty::Penalties;
use crate::worker::InPlace;

/// How long a connection may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// From opening to an accepted `Hello`.
    pub hello: Duration,
    /// From a frame's first byte to its last.
    pub frame: Duration,
    /// Between frames, once authenticated.
    pub idle: Duration,
    /// The longest an erasing upload chunk waits for the player's read-ahead.
    pub read_ahead: Duration,
    /// How often the OSC doors look for a change of state to push: a
    /// subscriber hears of a change within this (and the time to send).
    pub push_poll: Duration,
}

/// How often an erasing chunk looks at the player's read-ahead while it waits.
pub(crate) const READ_AHEAD_POLL: Duration = Duration::from_millis(5);

/// The box's limits: 5 s to say Hello, 5 s per frame, 30 s idle, an erase
/// waits at most 1 s for the read-ahead (which refills in a few frames), and
/// a change of state is pushed within 20 ms (the box promises 50 ms).
pub const LIMITS: Limits = Limits {
    hello: Duration::from_secs(5),
    frame: Duration::from_secs(5),
    idle: Duration::from_secs(30),
    read_ahead: Duration::from_secs(1),
    push_poll: Duration::from_millis(20),
};

/// What a connection tells whoever keeps the door's slots
/// ([`crate::keeper::DoorKeeper`]) about itself.
pub trait Seat {
    /// The connection made a request; `authenticated`: whether it holds an
    /// accepted `Hello` now (over OSC: whether its session has rights).
    fn request(&self, authenticated: bool);
}

/// A connection nobody keeps a slot for (tests of one connection alone).
impl Seat for () {
    fn request(&self, _authenticated: bool) {}
}

/// What every connection of one box shares (over every front door); `W`
/// says where a request's library work runs ([`crate::worker`]).
pub struct Control<'a, M: RawMutex, L, W = InPlace> {
    /// Firmware name and version, as `Hello` and `Status` report it.
    pub firmware: &'static str,
    /// The take library (the box's store on flash, `llv serve`'s folder).
    pub library: &'a Mutex<M, L>,
    /// Recent wrong tokens per source.
    pub penalties: &'a Penalties,
    /// How long a connection may take.
    pub limits: Limits,
    /// Where a request's library work runs: [`InPlace`], or a [`crate::worker::Worker`].
    pub finish: W,
}

/// Why a connection ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Ended {
    /// The peer closed the stream (between frames or within one).
    Closed,
    /// Reading or writing failed.
    Failed,
    /// No accepted `Hello` in time, a frame too slow, or idle too long.
    TimedOut,
    /// A `Hello` was refused.
    Refused,
}

impl<E> From<ReadExactError<E>> for Ended {
    fn from(e: ReadExactError<E>) -> Self {
        match e {
            ReadExactError::UnexpectedEof => Ended::Closed,
            ReadExactError::Other(_) => Ended::Failed,
        }
    }
}
