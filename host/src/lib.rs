//! The `llv` host tool as a library: one module per command over a shared
//! recording reader and writer. `main.rs` only calls [`cli::main`].

pub mod cli;
pub mod console;
pub mod convert;
pub mod info;
pub mod play;
pub mod record;
pub mod recording;
pub mod sequence;
pub mod stop;
pub mod take;
