//! The llv playback box: everything it does, independent of the board.
//!
//! A board crate brings up its clock, its network interface and an
//! embassy-net [`Stack`](embassy_net::Stack), reads its command line, and then
//! calls [`session::run`]: bring the network up ([`net`]), then play the stored take
//! ([`player`]) to the configured targets ([`config`]).
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
