//! firmware/README.md's QEMU walk-through runs as written, twice in a row:
//! the box playing its built-in take to a receiver, the box on a flash file
//! driven by `llv` from a second terminal (stopped as Ctrl-C stops it), and
//! the injected hang that the watchdog ends (once). Only paths and ports change: the walk-through's
//! folder becomes the test's, UDP 11111 a free port, the box's control port
//! the one its runner printed.

use std::io::BufRead;
use std::net::UdpSocket;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use llv_tests::{llv_path, native_packets, repo_root};

/// The `sh` blocks of the README's section that starts with `heading`.
fn blocks(doc: &str, heading: &str) -> Vec<String> {
    let start = doc.find(heading).expect("the section");
    let section = &doc[start + heading.len()..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    let mut out = Vec::new();
    let mut lines = section.lines();
    while let Some(line) = lines.next() {
        if line == "```sh" {
            let block: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
            out.push(block.join("\n") + "\n");
        }
    }
    out
}

/// A shell in a process group of its own, interrupted (as Ctrl-C does) and
/// then killed on drop.
struct Shell(Child);

impl Shell {
    fn start(script: &str, dir: &Path, path: &str, stdout: Stdio) -> Shell {
        let child = Command::new("sh")
            .args(["-ec", script])
            .current_dir(dir)
            .env("PATH", path)
            .stdin(Stdio::null())
            .stdout(stdout)
            .process_group(0)
            .spawn()
            .expect("sh");
        Shell(child)
    }

    fn signal(&self, signal: i32) {
        let group = i32::try_from(self.0.id()).expect("pid");
        // SAFETY: kill(2) on the process group this test started.
        unsafe {
            libc::kill(-group, signal);
        }
    }

    /// Waits at most `limit` for the script to end; its status.
    fn wait(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let end = Instant::now() + limit;
        loop {
            if let Some(status) = self.0.try_wait().expect("waiting for sh") {
                return Some(status);
            }
            if Instant::now() >= end {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Shell {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            self.signal(libc::SIGINT);
            if self.wait(Duration::from_secs(10)).is_none() {
                self.signal(libc::SIGKILL);
                let _ = self.0.wait();
            }
        }
    }
}

/// Runs `script` to its end (at most `limit`), which must succeed.
fn run(script: &str, dir: &Path, path: &str, limit: Duration) {
    let mut sh = Shell::start(script, dir, path, Stdio::inherit());
    let status = sh.wait(limit);
    assert!(
        status.is_some_and(|s| s.success()),
        "{status:?} from:\n{script}"
    );
}

#[test]
fn the_qemu_walk_through_runs_clean_twice() {
    let root = repo_root();
    let firmware = root.join("firmware");
    let doc = std::fs::read_to_string(firmware.join("README.md")).unwrap();
    let played = blocks(&doc, "## Run the box under QEMU on a laptop");
    let store = blocks(&doc, "## The box with a store under QEMU");
    let faults = blocks(&doc, "### The watchdog and injected hangs under QEMU");
    assert_eq!((played.len(), store.len()), (1, 2), "{played:?} {store:?}");
    let walk = tempfile::tempdir().unwrap();
    let walk = walk.path().join("llv-walk");
    let receiver = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let local = |s: &str| {
        s.replace("/tmp/llv-walk", walk.to_str().unwrap())
            .replace("11111", &receiver.to_string())
    };
    let path = format!(
        "{}:{}",
        llv_path().parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for round in 1..=2 {
        // One terminal: the receiver, the box with its built-in take.
        run(
            &local(&played[0]),
            &firmware,
            &path,
            Duration::from_secs(600),
        );
        let got = native_packets(&walk.join("played.gesichter-lines"));
        assert_eq!(got.len(), 360, "round {round}");

        // Terminal 1: the box on a flash file, its ports as JSON first.
        let box_line = local(store[0].trim_end()) + " --json";
        let mut boxed = Shell::start(&box_line, &firmware, &path, Stdio::piped());
        let (tx, lines) = mpsc::channel();
        let out = boxed.0.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let first = lines
            .recv_timeout(Duration::from_secs(600))
            .expect("the runner prints its ports");
        let ports: serde_json::Value = serde_json::from_str(&first).expect("--json's line");
        let control = ports["control"].as_u64().expect("control port");
        // Terminal 2, from the repository's root.
        let commands = local(&store[1])
            .replace("--box 127.0.0.1 ", &format!("--box 127.0.0.1:{control} "))
            .replace(
                "llv box 127.0.0.1 ",
                &format!("llv box 127.0.0.1:{control} "),
            );
        run(&commands, &root, &path, Duration::from_secs(120));
        let got = native_packets(&walk.join("from-flash.gesichter-lines"));
        assert_eq!(got.len(), 180, "round {round}");
        // Ctrl-C in terminal 1 stops the box.
        boxed.signal(libc::SIGINT);
        assert!(
            boxed.wait(Duration::from_secs(30)).is_some(),
            "the box did not stop on Ctrl-C"
        );
    }
    // The injected hang: the watchdog resets the box, which boots again
    // and says so; Ctrl-C ends it.
    assert_eq!(faults.len(), 1, "{faults:?}");
    let mut hung = Shell::start(&local(&faults[0]), &firmware, &path, Stdio::piped());
    let out = hung.0.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let end = Instant::now() + Duration::from_secs(120);
    let mut log = Vec::new();
    let mut reset = false;
    while Instant::now() < end {
        let Ok(line) = lines.recv_timeout(end.saturating_duration_since(Instant::now())) else {
            break;
        };
        reset |= line.contains("reset by the watchdog");
        let up_again = reset && line.contains("MAC ");
        log.push(line);
        if up_again {
            break;
        }
    }
    assert!(
        log.last().is_some_and(|l| reset && l.contains("MAC ")),
        "no boot after a watchdog reset in:\n{}",
        log.join("\n")
    );
    hung.signal(libc::SIGINT);
    assert!(
        hung.wait(Duration::from_secs(30)).is_some(),
        "the box did not stop on Ctrl-C"
    );
}
