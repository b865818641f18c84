//! For host tests (feature `mock`, std): the parts of a box a test needs
//! around the session.
//!
//! | module | what it holds |
//! |---|---|
//! | [`playback`] | [`RecordingPlayback`]: a [`crate::Playback`] that records what it was asked; [`SharedPlayback`] |
//! | [`library`] | [`MemoryLibrary`]: takes and settings in memory, uploads by the one contract |
//! | [`stream`] | [`ScriptedStream`]: a connection's bytes, scripted |

pub mod library;
pub mod playback;
pub mod stream;

pub use library::{synthetic_image, MemoryLibrary, MemoryTake};
pub use playback::{RecordingPlayback, SharedPlayback};
pub use stream::ScriptedStream;
