//! The `llv` host tool as a library: one module per command over a shared
//! recording reader and writer. `main.rs` only calls [`cli::main`].

pub mod box_client;
pub mod boxctl;
pub mod cli;
pub mod console;
pub mod convert;
pub mod csv_take;
pub mod flash;
pub mod info;
pub mod parallel;
pub mod play;
pub mod pose_asset;
pub mod record;
pub mod recording;
pub mod retarget;
pub mod sequence;
pub mod stop;
pub mod t3d;
pub mod take;
