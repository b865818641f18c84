//! Time as takes and shows carry it: frame rates, frame times, timecode
//! labels (`HH:MM:SS:FF.fff`, drop-frame at 29.97 and 59.94), and the one
//! model of time of day every part uses.
//!
//! The model: a frame time is a time of day, its label wrapping at 24 hours
//! (a frame count that runs past a day wraps too). A take is anchored at its
//! first frame's time of day; every other frame's place is its take time,
//! the time from the first frame, which runs on through midnight (a take is
//! shorter than 24 hours, so each step between frames is taken the short way
//! round a day). A take placed on a show's timecode is found again by the
//! same rule ([`day::place`]).
//!
//! | module | what it holds |
//! |---|---|
//! | [`rate`] | [`FrameRate`], and the labels of a day at a rate |
//! | [`frame_time`] | [`FrameTime`], a packet's frame time as a time of day |
//! | [`timecode`] | [`Timecode`], the written label with its fraction of a frame |
//! | [`take_time`] | [`TakeTime`], each frame's time from the first, through midnight |
//! | [`day`] | differences and places on a clock that wraps at midnight |

pub mod day;
pub mod frame_time;
pub mod rate;
pub mod take_time;
pub mod timecode;

pub use frame_time::FrameTime;
pub use rate::FrameRate;
pub use take_time::TakeTime;
pub use timecode::{Timecode, TimecodeError};
