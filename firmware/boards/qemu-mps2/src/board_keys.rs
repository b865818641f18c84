//! The QEMU board's own command-line keys, taken out of the line before the
//! rest goes to `llv_box::BoxConfig::apply`:
//!
//! - `flash=PATH`: the host file holding the flash (else the built-in take);
//! - `erase_ms=N`: the modelled time of one block erase of that flash
//!   (default: the STM32H7's 1100 ms; 0 for none);
//! - `card=PATH`: a FAT image in a host file, the box's microSD card (the
//!   slot is empty while `PATH.out` exists); `card_stall_ms=N` and
//!   `card_stall_every_ms=M` make every card read in the first N ms of each
//!   M ms wait until then; `card_parts=N`: the image is N files of 1 GiB,
//!   `PATH.0` to `PATH.N-1` (the last may be shorter), for cards of 2 GiB
//!   and more (`llv_hal_mps2::file_card` says why); `card_power_up_ms=N`:
//!   the card stays busy N ms at each initialisation (over 1000: it never
//!   comes up, and the box reports it unusable);
//! - `factory_reset=on`: clear the stored settings at power-up, keep the
//!   takes (what holding the NUCLEO's USER button does);
//! - `hang_after_ms=N`: N ms after a boot that the watchdog did not cause,
//!   the executor spins forever with interrupts enabled, as a task stuck in
//!   a loop would (the watchdog's test; only this emulated board has it).

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
    /// `card=`: the image's path and its removal file's, NUL-terminated.
    pub card: Option<(Vec<u8, CMDLINE_MAX>, Vec<u8, CMDLINE_MAX>)>,
    /// `card_stall_ms=`.
    pub card_stall: Duration,
    /// `card_stall_every_ms=`.
    pub card_stall_every: Duration,
    /// `card_power_up_ms=`.
    pub card_power_up: Option<Duration>,
    /// `card_parts=` (0: one file).
    pub card_parts: u32,
    /// `factory_reset=on`.
    pub factory_reset: bool,
    /// `hang_after_ms=`.
    pub hang_after: Option<Duration>,
}

/// Splits `line` into the board's keys and the other words; a malformed
/// board key is returned as the error.
pub fn split(line: &str) -> Result<(BoardKeys, String<CMDLINE_MAX>), &str> {
    let mut keys = BoardKeys {
        flash: None,
        erase_time: ERASE_TIME,
        card: None,
        card_stall: Duration::from_ticks(0),
        card_stall_every: Duration::from_secs(3),
        card_power_up: None,
        card_parts: 0,
        factory_reset: false,
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
        if let Some(path) = word.strip_prefix("card=") {
            let mut image = Vec::new();
            let mut out = Vec::new();
            // The line fits CMDLINE_MAX; a word, ".out" and a NUL may not.
            image.extend_from_slice(path.as_bytes()).map_err(|_| word)?;
            image.push(0).map_err(|_| word)?;
            out.extend_from_slice(path.as_bytes()).map_err(|_| word)?;
            out.extend_from_slice(b".out\0").map_err(|_| word)?;
            keys.card = Some((image, out));
            continue;
        }
        if let Some(ms) = word.strip_prefix("card_stall_ms=") {
            keys.card_stall = millis(ms).ok_or(word)?;
            continue;
        }
        if let Some(ms) = word.strip_prefix("card_stall_every_ms=") {
            keys.card_stall_every = millis(ms).filter(|d| d.as_ticks() > 0).ok_or(word)?;
            continue;
        }
        if let Some(ms) = word.strip_prefix("card_power_up_ms=") {
            keys.card_power_up = Some(millis(ms).ok_or(word)?);
            continue;
        }
        if let Some(n) = word.strip_prefix("card_parts=") {
            keys.card_parts = n.parse().map_err(|_| word)?;
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
