//! The `llv` host tool as a library. `main.rs` only calls [`cli::main`], which
//! parses the command line and hands each command to its module.
//!
//! | module | what it holds |
//! |---|---|
//! | [`cli`] | the command line: parsing and dispatch to the modules below |
//! | [`commands`] | one module per take command: its arguments, what it prints, calls into the modules that do the work |
//! | [`args`] | the clap argument groups several commands share (rates, ports, edits, chase, token) |
//! | [`address`] | addresses as users type them, resolved; a box's name looked up by mDNS |
//! | [`mdns_query`] | the one-shot mDNS query that [`address`] and [`discover`] send |
//! | [`discover`] | `llv discover`: the boxes on the network |
//! | [`playback`] | the player: paced or chased sending of a take, the pacer, the Art-Net timecode receiver and generator |
//! | [`live`] | the live relay (`llv relay`): a socket through the core's relay engine to the targets, the black box |
//! | [`capture`] | the recorder: Live Link Face datagrams from a socket to native lines, counted |
//! | [`recording`] | every recording format, CSV takes included: one reader that detects the format, one writer per format |
//! | [`take`] | a take in memory, and the edits every command shares |
//! | [`edit`] | the edits of `llv edit` as stream stages (join, trim, retime, mirror, smooth, values) |
//! | [`timing`] | a take's cadence and its gaps |
//! | [`metahuman`] | the MetaHuman mapping (T3D, pose asset) and the retarget math |
//! | [`rig`] | maps between the ARKit shapes and any rig's curves (`llv remap`, `llv import`) |
//! | [`import`] | a rig's keyframed animation (glTF, LLV's FBX JSON) read as curves |
//! | [`plot`] | a take's curves drawn over time (PNG, SVG) |
//! | [`boxctl`] | the playback box: its control client, `llv flash`, `llv card` and `llv box` |
//! | [`serve`] | `llv serve`: a laptop as a box (the box's protocol code over a folder) |
//! | [`output`] | writing a named file: no overwrite unless forced, atomic |
//! | [`console`] | printing to standard output without panicking when it is closed |
//! | [`progress`] | progress of long work on standard error |
//! | [`parallel`] | work spread over the cores, results in order |
//! | [`stop`] | Ctrl-C as a flag that long-running work polls |

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
pub mod live;
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
