//! The llv playback box: everything it does, independent of the board.
//!
//! A board crate brings up its clock, its network interface and an
//! embassy-net [`Stack`](embassy_net::Stack), reads its command line, mounts
//! its take store with [`boot::mount_store`] (factory reset, stored settings
//! checked, faults noted), and then calls either [`session::run_store`]: bring
//! the network up ([`net`]), autoplay, play what the control port
//! ([`listener`], [`device`]), keep the card ([`card`]) and show tools over OSC ([`show`], which also
//! answers mDNS) ask for from the store, read ahead ([`stored`],
//! [`ring`]), at once or following Art-Net timecode ([`timecode`],
//! [`chaser`]), to one socket per target ([`sink`]), and keep the watchdog fed
//! while all is well ([`health`]); or [`session::run`]: play one take (the
//! `builtin` one) to the configured targets ([`config`]).
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod fmt;

pub mod boot;
#[cfg(feature = "builtin")]
pub mod builtin;
pub mod card;
pub mod chaser;
pub mod config;
pub mod device;
pub mod health;
pub mod listener;
pub mod net;
pub mod player;
pub mod ring;
pub mod session;
pub mod show;
pub mod sink;
pub mod source;
pub mod stored;
pub mod timecode;

pub use config::{BoxConfig, ConfigError};

/// Sockets the box's network stack needs: DHCP, one UDP socket per target,
/// the control connections, the show doors (OSC on UDP and TCP, mDNS) and
/// the Art-Net timecode port.
pub const SOCKETS: usize =
    1 + llv_core::settings::MAX_TARGETS + listener::LISTENERS + show::SOCKETS + 1;
pub use player::{play, PlayError, PlayReport};
pub use source::{Frame, FrameSource, ImageSource};
