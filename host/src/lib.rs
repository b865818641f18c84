//! The `llv` host tool as a library. `main.rs` only calls [`cli::main`].
//!
//! - [`commands`]: one thin module per command that works on takes
//!   (record, play, unpack/pack/convert, info, sequence, retarget).
//! - [`recording`]: every recording format, CSV takes included, behind one
//!   reader that detects the format and one writer per format.
//! - [`metahuman`]: the MetaHuman mapping (T3D, pose asset) and the retarget math.
//! - [`boxctl`]: the playback box: its control client, `llv flash` and `llv box`.
//! - [`serve`]: `llv serve`, a laptop as a box (the box's protocol code over a folder).
//! - [`discover`]: `llv discover`.
//! - [`args`]: what commands share (rates, addresses, ports, edits).
//! - [`output`]: writing a named file: no overwrite unless forced, atomic.
//! - [`take`]: a take in memory.

#![deny(unsafe_code)]

pub mod address;
pub mod args;
pub mod boxctl;
pub mod capture;
pub mod cli;
pub mod commands;
pub mod console;
pub mod discover;
pub mod edit;
pub mod import;
pub mod mdns_query;
pub mod metahuman;
pub mod output;
pub mod parallel;
pub mod playback;
pub mod plot;
pub mod progress;
pub mod recording;
pub mod rig;
pub mod serve;
pub mod stop;
pub mod take;
pub mod timing;
