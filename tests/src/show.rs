//! Show control in the end-to-end tests: an OSC client that is not llv's
//! (python-osc, run by `tests/osc/osc_client.py`) and `llv serve`.

use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::cli::llv_path;
use crate::files::repo_root;

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
    /// Its HTTP port (the page and its API).
    pub http: u16,
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
            http: v["http"].as_u64().unwrap() as u16,
            name: v["name"].as_str().unwrap().to_string(),
        }
    }

    /// Its control address on 127.0.0.1.
    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.control)
    }

    /// Stops it as Ctrl-C does and waits (at most 30 s) for it to end.
    pub fn interrupt(&mut self) -> std::process::ExitStatus {
        crate::cli::interrupt(&self.child);
        let end = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().expect("waiting for llv serve") {
                return status;
            }
            assert!(
                std::time::Instant::now() < end,
                "llv serve did not stop on Ctrl-C"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
