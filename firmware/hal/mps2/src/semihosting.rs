//! The two semihosting calls the QEMU board needs: the command line given
//! with `-append` (SYS_GET_CMDLINE) and the exit code (SYS_EXIT_EXTENDED).
//! Semihosting traps into the debugger: keep it on the QEMU board only.

use core::mem::MaybeUninit;

use semihosting::sys::arm_compat::sys_get_cmdline_uninit;

/// Maximum command line length read from the host.
pub const CMDLINE_MAX: usize = 512;

/// The command line QEMU passes: the kernel file name, a space, then the
/// `-append` text. Only the `-append` part is returned (it may be empty).
pub fn cmdline(buf: &mut [MaybeUninit<u8>; CMDLINE_MAX]) -> &str {
    let Ok(bytes) = sys_get_cmdline_uninit(buf) else {
        return "";
    };
    let text = core::str::from_utf8(bytes).unwrap_or("");
    append_part(text)
}

/// Drop the leading program name (a word without `=`).
fn append_part(text: &str) -> &str {
    let text = text.trim_start();
    match text.split_once(char::is_whitespace) {
        Some((first, rest)) if !first.contains('=') => rest.trim(),
        None if !text.contains('=') => "",
        _ => text.trim(),
    }
}

/// End the QEMU process with `code` as its exit status.
pub fn exit(code: i32) -> ! {
    semihosting::process::exit(code)
}
