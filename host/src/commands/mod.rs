//! The commands that work on takes, one module each; the box's commands are in
//! [`crate::boxctl`].

pub mod convert;
pub mod docs;
pub mod edit;
pub mod import;
pub mod info;
pub mod play;
pub mod plot;
pub mod record;
pub mod remap;
pub mod retarget;
pub mod sequence;
pub mod tc;
