//! `llv-control`: the session every front door of the llv box and of `llv
//! serve` runs (`docs/control-protocol.md`, `docs/show-control.md`). It knows
//! nothing of how takes are stored or how bytes travel: storage is a
//! [`TakeLibrary`], playback a [`Playback`], the network any
//! `embedded_io_async` stream or datagram sink. `no_std`, no `alloc`.
//!
//! | module | what it holds |
//! |---|---|
//! | [`worker`] | where a request's library work runs: in the door's future, or one task for every door |
//! | [`session`] | one connection's [`Session`]: protocol version, token, upload ownership, the locked box; the [`Playback`] trait it plays through |
//! | [`library`] | the [`TakeLibrary`] trait (list, open, upload, delete, settings) and [`Refusal`], the protocol's refusals |
//! | [`door`] | what every door shares: [`Control`], [`Limits`], [`Ended`], [`Seat`] |
//! | [`slots`] | the door policy: who gets a TCP connection slot, who makes room for whom |
//! | [`keeper`] | the slots shared by every connection of a box, and telling one to close |
//! | [`pace`] | settings saves paced to spare the flash: [`Paced`] |
//! | [`connection`] | the binary protocol's door: [`serve_connection`] over any async stream |
//! | [`osc`] | the OSC door over UDP and TCP, its replies and subscriptions |
//! | [`http`] | the HTTP door: the page and the JSON API, Server-Sent Events |
//! | [`render`] | responses as JSON, for the doors that speak it |
//! | [`json`] | the bounded JSON writer |
//! | [`mdns`] | the mDNS/DNS-SD records and answers (`NAME.local`, `_llv._tcp`, `_osc._udp`) |
//! | [`penalty`] | the growing delay for wrong tokens, per source |
//! | `mock` | (feature `mock`) a [`Playback`] that records what it was asked, a scripted stream |
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "mock")]
extern crate std;

pub mod connection;
pub mod door;
pub mod http;
pub mod json;
pub mod keeper;
pub mod library;
pub mod mdns;
#[cfg(feature = "mock")]
pub mod mock;
pub mod osc;
pub mod pace;
pub mod penalty;
pub mod render;
pub mod session;
pub mod slots;
pub mod worker;

pub use connection::{serve_connection, ConnectionBuffers};
pub use door::{Control, Ended, Limits, Seat, LIMITS};
pub use keeper::{DoorKeeper, KeptSeat};
pub use library::{Refusal, Take, TakeLibrary};
pub use pace::Paced;
pub use penalty::Penalties;
pub use session::{live_on, Playback, Session};
pub use slots::{Admission, Door, Slots};
pub use worker::{Finish, InPlace, Worker};
