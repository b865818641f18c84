//! The llv box under QEMU, as a person and the tests run it: every port the
//! box serves forwarded to 127.0.0.1 ([`ports`]), and its defmt log read as
//! lines of text ([`log`]).
//!
//! | module | what it holds |
//! |---|---|
//! | [`ports`] | the host ports each service of the box is forwarded to |
//! | [`log`] | the box's defmt log decoded into lines |
//!
//! [`QemuBox`] boots an image with them; the `llv-qemu-box` binary is the
//! QEMU board's cargo runner (`cargo run --release -p llv-box-qemu` in `firmware/`).

pub mod log;
pub mod ports;

use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

pub use ports::Ports;

/// How a box is booted.
#[derive(Clone, Debug, Default)]
pub struct Boot<'a> {
    /// The box's command line (`-append`).
    pub append: &'a str,
    /// The host ports to forward; `None` for no forwarding.
    pub ports: Option<&'a Ports>,
    /// More `-nic user` options (each starting with `,`).
    pub nic: &'a str,
}

/// A box running under QEMU, killed on drop; its log lines kept as they come.
pub struct QemuBox {
    child: Child,
    log: Arc<(Mutex<Vec<String>>, Condvar)>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl QemuBox {
    /// Boots `elf` on QEMU's MPS2-AN386 with semihosting and user networking;
    /// `echo` also prints each log line as it comes.
    pub fn boot(elf: &Path, boot: &Boot<'_>, echo: bool) -> std::io::Result<QemuBox> {
        let image = std::fs::read(elf)?;
        let forwards = boot.ports.map(Ports::hostfwd).unwrap_or_default();
        let mut child = Command::new("qemu-system-arm")
            .args(["-M", "mps2-an386", "-nographic"])
            .args(["-monitor", "none", "-serial", "none"])
            .args(["-semihosting-config", "enable=on,target=native"])
            .arg("-nic")
            .arg(format!("user,model=lan9118{forwards}{}", boot.nic))
            .arg("-kernel")
            .arg(elf)
            .arg("-append")
            .arg(boot.append)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    format!("starting qemu-system-arm (apt-get install qemu-system-arm): {e}"),
                )
            })?;
        let log = Arc::new((Mutex::new(Vec::new()), Condvar::new()));
        let stdout = child.stdout.take();
        let kept = log.clone();
        let reader = std::thread::spawn(move || {
            let Some(stdout) = stdout else { return };
            log::decode(&image, stdout, |line| {
                if echo {
                    println!("{line}");
                }
                let (lines, arrived) = &*kept;
                lines
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .push(line);
                arrived.notify_all();
            });
        });
        Ok(QemuBox {
            child,
            log,
            reader: Some(reader),
        })
    }

    /// The log lines so far.
    pub fn log(&self) -> Vec<String> {
        self.lines().clone()
    }

    /// Waits at most `limit` for a log line that `matches`; returns it.
    pub fn wait_for_line(&self, limit: Duration, matches: impl Fn(&str) -> bool) -> Option<String> {
        let end = Instant::now() + limit;
        let (_, arrived) = &*self.log;
        let mut lines = self.lines();
        loop {
            if let Some(l) = lines.iter().find(|l| matches(l)) {
                return Some(l.clone());
            }
            let left = end.checked_duration_since(Instant::now())?;
            lines = arrived
                .wait_timeout(lines, left)
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0;
        }
    }

    /// Waits at most `limit` for QEMU to exit; `None` if it still runs.
    pub fn wait_for(&mut self, limit: Duration) -> Option<ExitStatus> {
        let end = Instant::now() + limit;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                if let Some(reader) = self.reader.take() {
                    let _ = reader.join();
                }
                return Some(status);
            }
            if Instant::now() >= end {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The QEMU process.
    pub fn child(&mut self) -> &mut Child {
        &mut self.child
    }

    fn lines(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        self.log
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Drop for QemuBox {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            let lines = self.lines();
            let from = lines.len().saturating_sub(40);
            eprintln!("--- the box's last {} log lines ---", lines.len() - from);
            for l in &lines[from..] {
                eprintln!("{l}");
            }
        }
    }
}
