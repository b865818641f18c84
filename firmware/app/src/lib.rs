//! The llv playback box: everything it does, independent of the board.
//!
//! A board crate brings up its clock, its network interface and an
//! embassy-net [`Stack`](embassy_net::Stack), reads its command line, and then
//! calls either [`session::run_store`] with its take store on NOR flash: bring
//! the network up ([`net`]), autoplay, then play what the control server
//! ([`control`], [`device`]) asks for from the store ([`stored`]); or
//! [`session::run`]: play one take (the `builtin` one) to the configured
//! targets ([`config`]).
#![cfg_attr(not(test), no_std)]

mod fmt;

#[cfg(feature = "builtin")]
pub mod builtin;
pub mod config;
pub mod control;
pub mod device;
pub mod net;
pub mod player;
pub mod session;
pub mod sink;
pub mod source;
pub mod stored;

pub use config::{BoxConfig, ConfigError, Loops};
pub use player::{play, PlayError, PlayReport, StopSignal};
pub use source::{Frame, FrameSource, ImageSource, MAX_PACKET};
