//! The llv playback box: everything it does, independent of the board.
//!
//! A board crate brings up its clock, its network interface and an
//! embassy-net [`Stack`](embassy_net::Stack), reads its command line, mounts
//! its take store ([`boot::mount_store`]), and then calls either
//! [`power_up::run_store`] (the box with its store: control port, show doors,
//! autoplay, the card) or [`power_up::run`] (the `builtin` take played to the
//! command line's targets).
//!
//! | module | what it holds |
//! |---|---|
//! | [`config`] | the box's command line |
//! | [`boot`] | the store's part of a power-up: factory reset, stored settings checked, faults noted |
//! | [`power_up`] | one power-up of the box, with its store or with the built-in take |
//! | [`net`] | network bring-up: DHCP or the static address |
//! | [`library`] | flash and card as one take library ([`library::BoxLibrary`]) |
//! | [`card_keeper`] | the card: scans at insertion, notices a pull, autoplays from it, writes the black box |
//! | [`black_box`] | the live recording: frames queued by the relay for the card's journal |
//! | [`device`] | the box as the control session sees it: its player task and autoplay |
//! | [`door_slots`] | the box's TCP slots (control and OSC), kept by the one door policy |
//! | [`listener`] | the TCP control port |
//! | [`doors`] | OSC on UDP and TCP and the mDNS responder |
//! | `web` | (feature `http`) the page and its HTTP API on TCP 80 |
//! | [`player`] | plays frames at their deadlines ([`play`]) |
//! | [`live`] | the live relay: the phone's frames re-clocked to the targets, an idle take covering a dropout |
//! | [`chaser`] | plays frames following Art-Net timecode |
//! | [`chase_feed`] | the Art-Net timecode listener that feeds a chase |
//! | [`sink`] | one UDP socket per target, dropping rather than waiting |
//! | [`source`] | where frames come from ([`FrameSource`]) |
//! | [`read_ahead`] | stored takes read ahead through a RAM [`ring`] |
//! | [`ring`] | the read-ahead ring of frames |
//! | [`watchdog`] | the watchdog's keeper: fed while all is well |
//! | `builtin` | (feature `builtin`) the take built into the image |
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod fmt;

pub mod black_box;
pub mod boot;
#[cfg(feature = "builtin")]
pub mod builtin;
pub mod card_keeper;
pub mod chase_feed;
pub mod chaser;
pub mod config;
pub mod device;
pub mod door_slots;
pub mod doors;
pub mod library;
pub mod listener;
pub mod live;
pub mod net;
pub mod player;
pub mod power_up;
pub mod read_ahead;
pub mod ring;
pub mod sink;
pub mod source;
pub mod watchdog;
#[cfg(feature = "http")]
pub mod web;

pub use config::{BoxConfig, ConfigError};

/// Sockets the box's network stack needs: DHCP, one UDP socket per target,
/// the control connections, the show doors (OSC on UDP and TCP, mDNS) and
/// the Art-Net timecode port and the live relay's port.
pub const SOCKETS: usize =
    1 + llv_core::settings::MAX_TARGETS + door_slots::CONTROL_SLOTS + doors::SOCKETS + 1 + 1;
pub use player::{play, PlayError, PlayReport};
pub use source::{Frame, FrameSource, ImageSource};
