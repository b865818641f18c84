//! QEMU in the tests: the firmware built, a box booted with its log decoded (`llv_qemu_box`, the runner people use too).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use llv_qemu_box::Boot;
pub use llv_qemu_box::QemuBox;

use crate::files::prebuilt;

/// Bound for building the firmware.
const BUILD_TIMEOUT: Duration = Duration::from_secs(900);

/// Boots `elf` on QEMU's MPS2-AN386 with semihosting and user networking
/// (`nic` holds any extra `-nic user` options, e.g. `,hostfwd=...`) and the box
/// command line `append`. The box is killed on drop; its log is decoded as it
/// comes (`llv_qemu_box`), and a failing test prints its last lines.
pub fn spawn_box(elf: &Path, nic: &str, append: &str) -> QemuBox {
    let boot = Boot {
        append,
        ports: None,
        nic,
    };
    QemuBox::boot(elf, &boot, false).expect("booting the box under QEMU")
}

/// Builds the QEMU firmware in release (a no-op when up to date) and returns
/// the ELF, or the test command's (`LLV_QEMU_ELF`, see [`prebuilt`]).
pub fn build_firmware(root: &Path) -> PathBuf {
    if let Some(elf) = prebuilt("LLV_QEMU_ELF") {
        return elf;
    }
    let firmware = root.join("firmware");
    let target_dir = firmware.join("target");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo)
        .args(["build", "--release", "-p", "llv-box-qemu"])
        .current_dir(&firmware)
        .env("CARGO_TARGET_DIR", &target_dir)
        .stdin(Stdio::null())
        .spawn()
        .expect("run cargo for the firmware");
    let end = Instant::now() + BUILD_TIMEOUT;
    let status = loop {
        if let Some(status) = build.try_wait().expect("waiting for cargo") {
            break status;
        }
        if Instant::now() >= end {
            let _ = build.kill();
            let _ = build.wait();
            panic!("the firmware build took over {BUILD_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success(), "firmware build failed: {status}");
    let elf = target_dir.join("thumbv7em-none-eabihf/release/llv-box-qemu");
    assert!(elf.is_file(), "no firmware at {}", elf.display());
    elf
}
