//! Helpers shared by the end-to-end tests in `tests/tests/`.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The repository's root folder.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A bundled example take, e.g. `example("dao.gesichter")`.
pub fn example(name: &str) -> PathBuf {
    repo_root().join("examples").join(name)
}

/// A fixture of this crate, e.g. `fixture("llf/alex_rom_3.csv")`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// The `llv` binary, built once per test process (up to date with the sources).
pub fn llv_path() -> &'static Path {
    static PATH: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
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

/// The raw packets of an LLV 1.1+ file (gzip: u8 version, u32 BE count, u32 BE length + packet),
/// read independently of the code under test.
pub fn llv_packets(path: &Path) -> Vec<Vec<u8>> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(file)
        .read_to_end(&mut raw)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let word = |at: usize| u32::from_be_bytes([raw[at], raw[at + 1], raw[at + 2], raw[at + 3]]);
    let count = word(1) as usize;
    let mut at = 5;
    let mut packets = Vec::with_capacity(count);
    for _ in 0..count {
        let len = word(at) as usize;
        packets.push(raw[at + 4..at + 4 + len].to_vec());
        at += 4 + len;
    }
    assert_eq!(at, raw.len(), "{}: trailing bytes", path.display());
    packets
}

/// The raw packets of a native recording (base64 lines), read independently of the code under
/// test; panics on any line that is not complete base64.
pub fn native_packets(path: &Path) -> Vec<Vec<u8>> {
    use base64::Engine;
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            base64::engine::general_purpose::STANDARD
                .decode(l)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        })
        .collect()
}

/// The raw packets of a recording in either of the formats `llv` writes under
/// a recording name: LLV's gzip (gzip magic) or native base64 lines.
pub fn recording_packets(path: &Path) -> Vec<Vec<u8>> {
    let head = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if head.starts_with(&[0x1f, 0x8b]) {
        llv_packets(path)
    } else {
        native_packets(path)
    }
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

/// Show control in the end-to-end tests: an OSC client that is not llv's
/// (python-osc, run by `tests/osc/osc_client.py`) and `llv serve`.
pub mod show {
    use std::io::BufRead;
    use std::path::Path;
    use std::process::{Child, Command, Stdio};
    use std::time::Duration;

    use serde_json::Value;

    use super::{llv_path, repo_root};

    /// Runs python-osc against `host`:`port` over `transport` (`udp`,
    /// `tcp1.1`, `tcp1.0`, `short1.1`, `short1.0`) with `steps` (see the
    /// script); returns every message it received, in order.
    pub fn osc_client(host: &str, port: u16, transport: &str, steps: &Value) -> Vec<Value> {
        let script = repo_root().join("tests/osc/osc_client.py");
        let out = Command::new("python3")
            .arg(&script)
            .args([host, &port.to_string(), transport, &steps.to_string()])
            .stdin(Stdio::null())
            .output()
            .expect("running python3 (scripts/test-all installs python-osc)");
        assert!(
            out.status.success(),
            "{} {transport} {steps}: {}\n(python-osc missing? scripts/test-all installs it: \
             python3 -m pip install python-osc)",
            script.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).expect("the client prints JSON lines"))
            .collect()
    }

    /// The replies among `messages` (their JSON), in order.
    pub fn replies(messages: &[Value]) -> Vec<Value> {
        messages
            .iter()
            .filter(|m| {
                m["address"]
                    .as_str()
                    .is_some_and(|a| a.starts_with("/reply/"))
            })
            .map(|m| m["json"].clone())
            .collect()
    }

    /// A running `llv serve`, killed on drop.
    pub struct Serve {
        child: Child,
        /// Its control port.
        pub control: u16,
        /// Its OSC port (UDP and TCP).
        pub osc: u16,
        /// Its name.
        pub name: String,
    }

    impl Serve {
        /// Starts `llv serve DIR --port 0 --osc-port 0 --json ARGS` and waits
        /// (at most 30 s) for its ports. Without `--no-discovery` in `args`,
        /// run it only in a network namespace of the test's own: its mDNS
        /// responder announces on every interface.
        pub fn start(dir: &Path, args: &[&str]) -> Serve {
            Self::start_with(Command::new(llv_path()), dir, args)
        }

        /// As [`Serve::start`], with `command` running `llv` (e.g. through `ip netns exec`).
        pub fn start_with(mut command: Command, dir: &Path, args: &[&str]) -> Serve {
            let mut child = command
                .arg("serve")
                .arg(dir)
                .args(["--port", "0", "--osc-port", "0", "--json"])
                .args(args)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .expect("starting llv serve");
            let stdout = child.stdout.take().expect("piped stdout");
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let mut line = String::new();
                let _ = std::io::BufReader::new(stdout).read_line(&mut line);
                let _ = tx.send(line);
            });
            let line = match rx.recv_timeout(Duration::from_secs(30)) {
                Ok(line) if !line.is_empty() => line,
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!("llv serve did not start");
                }
            };
            let v: Value = serde_json::from_str(&line).expect("llv serve --json's first line");
            Serve {
                child,
                control: v["control"].as_u64().unwrap() as u16,
                osc: v["osc"].as_u64().unwrap() as u16,
                name: v["name"].as_str().unwrap().to_string(),
            }
        }

        /// Its control address on 127.0.0.1.
        pub fn addr(&self) -> String {
            format!("127.0.0.1:{}", self.control)
        }
    }

    impl Drop for Serve {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
