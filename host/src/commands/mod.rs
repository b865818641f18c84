//! The commands that work on takes, one module each: the command's
//! arguments, what it prints, and calls into the modules that do the work,
//! which other callers share ([`crate::playback`], [`crate::capture`],
//! [`crate::recording`], [`crate::edit`], [`crate::metahuman`], [`crate::rig`],
//! [`crate::import`], [`crate::plot`]). Work only one command does stays in
//! its module: `info`'s statistics, `retarget`'s timelines and batch (which
//! `remap` runs too), `sequence`'s debug take.
//!
//! `llv relay` is [`relay`], over [`crate::live`].
//!
//! The box's commands (`llv flash`, `llv card`, `llv box`) are in
//! [`crate::boxctl`]; `llv serve` and `llv discover` are [`crate::serve`] and
//! [`crate::discover`].

pub mod convert;
pub mod docs;
pub mod edit;
pub mod import;
pub mod info;
pub mod play;
pub mod plot;
pub mod record;
pub mod relay;
pub mod remap;
pub mod retarget;
pub mod sequence;
pub mod tc;
