//! Ctrl-C as a flag that long-running commands poll.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use anyhow::{Context, Result};

static STOP: AtomicBool = AtomicBool::new(false);
static INSTALLED: OnceLock<()> = OnceLock::new();

/// Installs the Ctrl-C handler (once) and returns the flag it sets.
pub fn on_ctrl_c() -> Result<&'static AtomicBool> {
    if INSTALLED.get().is_none() {
        ctrlc::set_handler(|| STOP.store(true, Ordering::SeqCst))
            .context("installing the Ctrl-C handler")?;
        let _ = INSTALLED.set(());
    }
    Ok(&STOP)
}
