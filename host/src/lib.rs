//! The `llv` host tool as a library: one module per command over a shared
//! recording reader and writer. `main.rs` only calls [`cli::main`].

pub mod box_client;
pub mod boxctl;
pub mod cli;
pub mod flash;
