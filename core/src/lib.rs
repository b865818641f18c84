//! `llv-core`: everything about Live Link Face frames that must mean the same on
//! the playback box and on the host. `no_std`, no `alloc`, no panics on input.
//!
//! - [`packet`]: the v6 ARKit packet (zero-copy view, parsed frame, encoder) and
//!   the classification of any datagram that arrives on port 11111.
//! - [`blendshape`]: the 61 blendshape names in packet order.
//! - [`time`]: frame times, rates, `HH:MM:SS:FF.fff` timecodes (drop-frame at
//!   29.97 and 59.94) and the one model of time of day (labels wrap at 24 h,
//!   a take's time runs on through midnight).
//! - [`line`]: the native recording line (base64 of one packet).
//! - [`llv_file`]: the frames of an LLV 1.1+ recording's (gunzipped) body.
//! - [`pacing`]: deadlines of frame `n`, exact over hours.
//! - [`take`]: the take image the box stores and plays, and its one builder.
//! - [`settings`]: the box's settings, as stored, configured and sent.
//! - [`control`]: the box's control messages (postcard over TCP).
//! - [`artnet`]: Art-Net timecode packets and timecode frame arithmetic.
//! - [`chase`]: following a show's timecode on a local clock, and the one
//!   engine that plays a take to it (the box, `llv play --chase`, `llv serve`).
//! - [`osc`]: Open Sound Control messages, bundles and stream framings, for show tools.
//! - [`relay`]: the live relay: re-clocking, the fallback to an idle take and
//!   the return (the box, `llv serve` and `llv relay`).
//! - [`ports`]: the ports llv's parts meet on.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod artnet;
pub mod blendshape;
pub mod chase;
pub mod control;
pub mod line;
pub mod llv_file;
pub mod osc;
pub mod pacing;
pub mod packet;
pub mod ports;
pub mod relay;
pub mod settings;
pub mod take;
pub mod time;
