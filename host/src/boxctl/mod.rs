//! The playback box from the host: the control protocol client ([`client`]),
//! `llv flash` ([`flash`]), `llv card` ([`card`]), `llv box` ([`control`]) and
//! starting several boxes together ([`together`]).

pub mod card;
pub mod client;
pub mod control;
pub mod flash;
pub mod together;
