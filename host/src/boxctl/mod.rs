//! The playback box from the host: the control protocol client ([`client`]),
//! `llv flash` ([`flash`]) and `llv box` ([`control`]).

pub mod card;
pub mod client;
pub mod control;
pub mod flash;
