//! The QEMU board's own command-line keys, taken out of the line before the
//! rest goes to `llv_box::BoxConfig::apply`:
//!
//! - `flash=PATH`: the host file holding the flash (else the built-in take);
//! - `erase_ms=N`: the modelled time of one block erase of that flash
//!   (default: the STM32H7's 1100 ms; 0 for none);
//! - `factory_reset=on`: clear the stored settings at power-up, keep the
//!   takes (what holding the NUCLEO's USER button does);
//! - `hang_after_ms=N` (feature `test-faults` only): N ms after a boot that
//!   the watchdog did not cause, the executor spins forever with interrupts
//!   enabled, as a task stuck in a loop would.

use embassy_time::Duration;
use heapless::{String, Vec};
use llv_hal_mps2::file_flash::ERASE_TIME;
use llv_hal_mps2::semihosting::CMDLINE_MAX;

/// The board's keys.
pub struct BoardKeys {
    /// `flash=`: the path, NUL-terminated for semihosting.
    pub flash: Option<Vec<u8, CMDLINE_MAX>>,
    /// `erase_ms=`.
    pub erase_time: Duration,
    /// `factory_reset=on`.
    pub factory_reset: bool,
    /// `hang_after_ms=`.
    #[cfg(feature = "test-faults")]
    pub hang_after: Option<Duration>,
}

/// Splits `line` into the board's keys and the other words; a malformed
/// board key is returned as the error.
pub fn split(line: &str) -> Result<(BoardKeys, String<CMDLINE_MAX>), &str> {
    let mut keys = BoardKeys {
        flash: None,
        erase_time: ERASE_TIME,
        factory_reset: false,
        #[cfg(feature = "test-faults")]
        hang_after: None,
    };
    let mut rest = String::new();
    for word in line.split_ascii_whitespace() {
        if let Some(path) = word.strip_prefix("flash=") {
            let mut bytes = Vec::new();
            // The line fits CMDLINE_MAX, so a word and its NUL fit as well.
            let _ = bytes.extend_from_slice(path.as_bytes());
            let _ = bytes.push(0);
            keys.flash = Some(bytes);
            continue;
        }
        if let Some(ms) = word.strip_prefix("erase_ms=") {
            keys.erase_time = millis(ms).ok_or(word)?;
            continue;
        }
        if let Some(value) = word.strip_prefix("factory_reset=") {
            keys.factory_reset = match value {
                "on" => true,
                "off" => false,
                _ => return Err(word),
            };
            continue;
        }
        #[cfg(feature = "test-faults")]
        if let Some(ms) = word.strip_prefix("hang_after_ms=") {
            keys.hang_after = Some(millis(ms).ok_or(word)?);
            continue;
        }
        let _ = rest.push_str(word);
        let _ = rest.push(' ');
    }
    Ok((keys, rest))
}

/// A whole number of milliseconds.
fn millis(text: &str) -> Option<Duration> {
    text.parse().ok().map(Duration::from_millis)
}
