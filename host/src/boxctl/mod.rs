//! The playback box from the host: the control protocol client ([`client`]),
//! `llv flash` ([`flash`]), `llv card` ([`card`]), `llv box` ([`control`]),
//! starting several boxes together ([`together`]), the bench check of a
//! box ([`check`]) and a box's state in words ([`describe`]).

pub mod card;
pub mod check;
pub mod client;
pub mod control;
pub mod describe;
pub mod flash;
pub mod together;
