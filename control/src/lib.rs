//! The llv box's control protocol, box side (docs/control-protocol.md).
//!
//! - [`session`]: one connection's [`Session`] (protocol version, token,
//!   upload ownership, the locked box) and the [`Device`] trait through which
//!   it plays, stops and reports.
//! - [`library`]: the [`TakeLibrary`] the session lists, opens, uploads and
//!   deletes takes in and keeps the settings in: the box's [`llv_box_store::Store`]
//!   on flash, `llv serve`'s folder of recordings.
//! - [`connection`]: [`serve_connection`], the frame loop with its deadlines
//!   over any `embedded_io_async` stream: the firmware's TCP sockets and the
//!   host tests' `std` streams alike.
//! - [`osc`]: the OSC front door (UDP and TCP in both framings): each
//!   message becomes a request through the same session, each response a
//!   JSON reply; subscriptions to the state.
//! - [`json`]: the JSON writer of the OSC replies.
//! - [`mdns`]: the mDNS/DNS-SD responder's records and answers (the box is
//!   found as `NAME.local`, `_llv._tcp`, `_osc._udp`).
//! - [`shelf`]: the box's library, flash and card as one ([`Shelf`]).
//! - [`penalty`]: the growing delay for wrong tokens, per source.
//! - `mock` (feature `mock`): a [`Device`] that records what it was asked.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "mock")]
extern crate std;

pub mod connection;
pub mod json;
pub mod library;
pub mod mdns;
#[cfg(feature = "mock")]
pub mod mock;
pub mod osc;
pub mod penalty;
pub mod session;
pub mod shelf;

pub use connection::{serve_connection, ConnectionBuffers, Control, Ended, Limits, LIMITS};
pub use library::{Refusal, Take, TakeLibrary};
pub use penalty::Penalties;
pub use session::{Device, Session};
pub use shelf::{Shelf, ShelfTake};
