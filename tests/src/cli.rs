//! The `llv` command line in the tests: the binary, a run with its peak
//! memory, a running recorder, Ctrl-C.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::files::{prebuilt, repo_root};

/// The `llv` binary, built once per test process (up to date with the
/// sources), or the test command's (`LLV_BIN`, see [`prebuilt`]).
pub fn llv_path() -> &'static Path {
    static PATH: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        if let Some(bin) = prebuilt("LLV_BIN") {
            return bin;
        }
        escargot::CargoBuild::new()
            .manifest_path(repo_root().join("Cargo.toml"))
            .package("llv")
            .bin("llv")
            .current_release()
            .run()
            .unwrap_or_else(|e| panic!("building llv: {e}"))
            .path()
            .to_path_buf()
    })
}

/// An `llv` command ready for arguments.
pub fn llv() -> assert_cmd::Command {
    assert_cmd::Command::new(llv_path())
}

/// What a measured run of `llv` gave: exit code, standard error, peak memory.
pub struct Measured {
    /// The exit code (`None` when killed by a signal).
    pub code: Option<i32>,
    /// Everything it printed to standard error.
    pub stderr: String,
    /// Its peak resident memory in KiB, from the kernel (`wait4`'s `ru_maxrss` of that one process).
    pub peak_kib: i64,
}

/// Runs `llv ARGS` alone (standard output discarded) and reads its peak memory from the kernel.
#[allow(
    clippy::zombie_processes,
    reason = "reaped by wait4 below, which also gives its rusage"
)]
pub fn llv_measured<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Measured {
    use std::process::{Command, Stdio};
    let mut child = Command::new(llv_path())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting llv");
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("piped stderr")
        .read_to_string(&mut stderr)
        .expect("reading stderr");
    let pid = i32::try_from(child.id()).expect("pid");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own unreaped child; `status` and `usage` are valid for writes.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid, "wait4: {}", std::io::Error::last_os_error());
    Measured {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        stderr,
        peak_kib: usage.ru_maxrss,
    }
}

/// A running `llv record` on 127.0.0.1, with its standard output and error collected.
pub struct Recorder {
    child: std::process::Child,
    /// The port it listens on.
    pub port: u16,
    stderr: std::thread::JoinHandle<String>,
}

/// How a recorder ended: exit status, standard output and standard error.
pub struct Ended {
    /// Exit status.
    pub status: std::process::ExitStatus,
    /// Everything it printed to standard output.
    pub stdout: String,
    /// Everything it printed to standard error.
    pub stderr: String,
}

impl Recorder {
    /// Starts `llv record --bind 127.0.0.1 --port 0 -o output ARGS` and waits (at most 30 s)
    /// until it says which port it listens on.
    pub fn start(output: &Path, args: &[&str]) -> Recorder {
        use std::io::BufRead;
        use std::process::{Command, Stdio};
        let mut child = Command::new(llv_path())
            .args(["record", "--bind", "127.0.0.1", "--port", "0", "-o"])
            .arg(output)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starting llv record");
        let stderr = child.stderr.take().expect("piped stderr");
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let stderr = std::thread::spawn(move || {
            let mut all = String::new();
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                // "listening on 127.0.0.1:PORT (receive buffer ...".
                let port = line
                    .strip_prefix("listening on 127.0.0.1:")
                    .and_then(|rest| rest.split(' ').next())
                    .and_then(|p| p.parse::<u16>().ok());
                if let Some(port) = port {
                    let _ = ready_tx.send(port);
                }
                all.push_str(&line);
                all.push('\n');
            }
            all
        });
        match ready_rx.recv_timeout(std::time::Duration::from_secs(30)) {
            Ok(port) => Recorder {
                child,
                port,
                stderr,
            },
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "llv record did not start: {}",
                    stderr.join().unwrap_or_default()
                );
            }
        }
    }

    /// The address to send frames to.
    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Waits (at most `limit`) for it to exit by itself; kills it and panics past that.
    pub fn wait(mut self, limit: std::time::Duration) -> Ended {
        let start = std::time::Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("waiting for llv record") {
                return self.ended(status);
            }
            if start.elapsed() > limit {
                let _ = self.child.kill();
                let status = self.child.wait().expect("waiting for llv record");
                let ended = self.ended(status);
                panic!("llv record did not stop within {limit:?}: {}", ended.stderr);
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Sends it SIGINT, as Ctrl-C does.
    pub fn interrupt(&self) {
        interrupt(&self.child);
    }

    /// Kills it with SIGKILL and collects what it printed.
    pub fn kill(mut self) -> Ended {
        self.child.kill().expect("killing llv record");
        let status = self.child.wait().expect("waiting for llv record");
        self.ended(status)
    }

    fn ended(mut self, status: std::process::ExitStatus) -> Ended {
        let mut stdout = String::new();
        if let Some(mut out) = self.child.stdout.take() {
            let _ = out.read_to_string(&mut stdout);
        }
        Ended {
            status,
            stdout,
            stderr: self.stderr.join().unwrap_or_default(),
        }
    }
}

/// Sends SIGINT (Ctrl-C) to `child` with the system's `kill` command.
pub fn interrupt(child: &std::process::Child) {
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("running kill");
    assert!(status.success(), "kill -INT failed");
}
