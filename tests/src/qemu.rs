//! QEMU in the tests: the firmware built once per feature set, a box
//! process killed on drop.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Bound for building the firmware.
const BUILD_TIMEOUT: Duration = Duration::from_secs(900);

/// Kills and reaps the child process when dropped, whatever happened.
pub struct KillOnDrop(pub Child);

impl KillOnDrop {
    /// Waits for the process at most `limit`; None if it is still running.
    pub fn wait_for(&mut self, limit: Duration) -> Option<ExitStatus> {
        let end = Instant::now() + limit;
        while Instant::now() < end {
            if let Some(status) = self.0.try_wait().expect("try_wait") {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Boots `elf` on QEMU's MPS2-AN386 with semihosting and user networking
/// (`nic` holds any extra `-nic user` options, e.g. `,hostfwd=...`) and the box
/// command line `append`; the child is killed on drop.
pub fn spawn_box(elf: &Path, nic: &str, append: &str) -> KillOnDrop {
    let child = Command::new("qemu-system-arm")
        .args(["-M", "mps2-an386", "-nographic"])
        .args(["-monitor", "none", "-serial", "none"])
        .args(["-semihosting-config", "enable=on,target=native"])
        .arg("-nic")
        .arg(format!("user,model=lan9118{nic}"))
        .arg("-kernel")
        .arg(elf)
        .arg("-append")
        .arg(append)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start qemu-system-arm (apt-get install qemu-system-arm)");
    KillOnDrop(child)
}

/// Builds the QEMU firmware in release (a no-op when up to date) and returns the ELF.
pub fn build_firmware(root: &Path) -> PathBuf {
    build_firmware_with(root, &[])
}

/// Builds the QEMU firmware in release with cargo `features`, each feature set
/// in a target directory of its own (so tests running at once never see one
/// set's image replaced by another's), and returns the ELF.
pub fn build_firmware_with(root: &Path, features: &[&str]) -> PathBuf {
    let firmware = root.join("firmware");
    let target_dir = match features {
        [] => firmware.join("target"),
        _ => firmware.join("target").join(features.join("+")),
    };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.args(["build", "--release", "-p", "llv-box-qemu"]);
    if !features.is_empty() {
        command.arg("--features").arg(features.join(","));
    }
    let child = command
        .current_dir(&firmware)
        .env("CARGO_TARGET_DIR", &target_dir)
        .stdin(Stdio::null())
        .spawn()
        .expect("run cargo for the firmware");
    let mut build = KillOnDrop(child);
    let status = build
        .wait_for(BUILD_TIMEOUT)
        .expect("firmware build timed out");
    assert!(status.success(), "firmware build failed: {status}");
    let elf = target_dir.join("thumbv7em-none-eabihf/release/llv-box-qemu");
    assert!(elf.is_file(), "no firmware at {}", elf.display());
    elf
}
