//! `llv-tests`: what the end-to-end tests (`tests/tests/`, and the box's
//! under QEMU in `firmware/e2e/` and `firmware/bench/`) share.
//!
//! | module | what it holds |
//! |---|---|
//! | [`files`] | the repository, the bundled examples and fixtures, the packets a recording holds |
//! | [`cli`] | the `llv` binary, a run with its peak memory, a running recorder, Ctrl-C |
//! | [`show`] | an OSC client that is not llv's (python-osc) and a running `llv serve` |
//! | [`doors`] | the door rules end to end: a crowd of clients, the operator, OSC over UDP, push latency |
//! | [`qemu`] | QEMU: the firmware build, a box process killed on drop |
//! | [`flash_box`] | a box with a flash file under QEMU: its ports, requests, what it plays |
//! | [`card`] | card images (MBR, `mkfs.fat`), a box booted on one, arrival times and lateness |
//! | [`sync`] | two boxes and an Art-Net timecode master: chase errors, skew |
//! | [`webdriver`] | a headless Chromium driven over WebDriver, its screenshots in `target/browser/` |
//! | [`live`] | the live relay end to end: the phone take sent as the phone would, a running `llv relay`, a receiver |
//! | [`phone`] | the real phone take cut and moved for chases, which frame arrived, chase errors |

pub mod card;
pub mod cli;
pub mod doors;
pub mod files;
pub mod flash_box;
pub mod live;
pub mod phone;
pub mod qemu;
pub mod show;
pub mod sync;
pub mod webdriver;

pub use cli::{interrupt, llv, llv_measured, llv_path, Ended, Measured, Recorder};
pub use files::{example, fixture, llv_packets, native_packets, recording_packets, repo_root};
