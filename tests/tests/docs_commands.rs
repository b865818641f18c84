//! Every command line of README.md's and host/README.md's code blocks runs
//! as written, in the order the document gives them, in a folder of its own
//! (`examples/` linked in, `~` a home of the test's): the takes it names
//! are the bundled examples under those names, a box is `llv serve` on
//! 127.0.0.1, a stage machine or a receiver is 127.0.0.1. Only addresses and
//! the paths outside the folder change (see `local`). A command that runs
//! until Ctrl-C gets Ctrl-C after a while and must end cleanly. The lines
//! that need hardware, a phone or the network beyond 127.0.0.1 are in
//! [`SKIPPED`] with why; the test fails when one of them leaves the
//! documents, so the list stays true.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use llv_tests::show::Serve;
use llv_tests::{example, fixture, llv, llv_path, repo_root};

/// Lines not run, and why.
const SKIPPED: &[(&str, &str)] = &[
    ("./scripts/test-all", "the test command itself"),
    (
        "llv box 192.168.1.50 check",
        "asks a person to power-cycle the box: run against the QEMU box by box_check, against llv serve by serve_doors",
    ),
    (
        "cargo install --path host --locked",
        "installs into ~/.cargo/bin",
    ),
    (
        "cargo test -p llv",
        "the unit tests: run by the test command",
    ),
    (
        "cargo test -p llv-tests",
        "these tests: run by the test command",
    ),
    (
        "cargo nextest run -p llv-tests --test take_editor",
        "run by the test command",
    ),
    (
        "cargo nextest run -p llv-tests --test cli_memory",
        "run by the test command",
    ),
    (
        "cargo nextest run -p llv-tests --test cli_relay --no-capture",
        "the relay's tests and figures: run by the test command",
    ),
    (
        "cargo nextest run -p llv-core --test relay",
        "the relay engine's tests: run by the test command",
    ),
    ("cargo bench -p llv --bench pacing", "a benchmark (minutes)"),
    (
        "cargo bench -p llv --bench formats",
        "a benchmark (minutes)",
    ),
    ("cargo bench -p llv --bench record", "a benchmark (minutes)"),
    ("cargo bench -p llv --bench editor", "a benchmark (minutes)"),
    (
        "llv discover",
        "mDNS on the network: tests/tests/discovery.rs runs it in a network namespace",
    ),
    (
        "llv discover --json --wait 3000",
        "mDNS on the network: tests/tests/discovery.rs",
    ),
    (
        "llv tc send --to 255.255.255.255 --broadcast",
        "a broadcast to the whole network",
    ),
    (
        "llv serve ~/show/takes",
        "answers mDNS on every interface: tests/tests/discovery.rs",
    ),
    (
        "llv serve ~/show/takes --name stage-left --port 0 --osc-port 0 --json",
        "answers mDNS on every interface: tests/tests/discovery.rs",
    ),
    (
        "llv flash show.gesichter --box 192.168.1.50 --to card",
        "needs a box with a card: firmware/e2e/box_card.rs",
    ),
    (
        "llv box 192.168.1.50 delete card:dao",
        "needs a box with a card: firmware/e2e/box_places.rs",
    ),
];

/// The command lines of `doc`'s code blocks: `llv`, `cargo` and `./` lines,
/// comments dropped, `;`-separated commands split.
fn command_lines(doc: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in doc.lines() {
        if line.starts_with("```") {
            inside = !inside;
            continue;
        }
        let line = line.trim();
        if !inside
            || !(line.starts_with("llv ") || line.starts_with("cargo ") || line.starts_with("./"))
        {
            continue;
        }
        let code = line.split("  #").next().unwrap_or(line).trim_end();
        for part in code.split("; ") {
            out.push(part.trim().to_string());
        }
    }
    out
}

/// A shell line in a process group of its own, interrupted then killed on drop.
struct Running(Child);

impl Running {
    fn signal(&self, signal: i32) {
        let group = i32::try_from(self.0.id()).expect("pid");
        // SAFETY: kill(2) on the process group this test started.
        unsafe {
            libc::kill(-group, signal);
        }
    }

    fn wait(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let end = Instant::now() + limit;
        loop {
            if let Some(status) = self.0.try_wait().expect("waiting") {
                return Some(status);
            }
            if Instant::now() >= end {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            self.signal(libc::SIGKILL);
            let _ = self.0.wait();
        }
    }
}

/// Whether the line runs until Ctrl-C.
fn until_ctrl_c(line: &str) -> bool {
    let looping = line.contains("--loop")
        && !line
            .split("--loop ")
            .nth(1)
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
    (line.starts_with("llv record") && !line.contains("--frames"))
        || (line.starts_with("llv tc send") && !line.contains("--frames"))
        || (line.starts_with("llv play") && (looping || line.contains("--chase")))
        || line.starts_with("llv serve")
        || (line.starts_with("llv relay") && !line.contains("--duration"))
}

/// The test's folder, home and boxes.
struct Bench {
    dir: PathBuf,
    home: PathBuf,
    path: String,
    boxes: [Serve; 2],
}

impl Bench {
    fn new(dir: &Path) -> Bench {
        let home = dir.join("home");
        for d in [
            ".config/llv",
            ".local/share/bash-completion/completions",
            ".zfunc",
            ".config/fish/completions",
            "show/takes",
        ] {
            std::fs::create_dir_all(home.join(d)).unwrap();
        }
        std::fs::write(home.join(".config/llv/box-token"), "secret\n").unwrap();
        std::fs::copy(
            example("dao.gesichter"),
            home.join("show/takes/dao.gesichter"),
        )
        .unwrap();
        std::os::unix::fs::symlink(repo_root().join("examples"), dir.join("examples")).unwrap();
        for d in ["SDCARD", "man1", "takes"] {
            std::fs::create_dir_all(dir.join(d)).unwrap();
        }
        let dao = example("dao.gesichter");
        for name in ["a", "b", "c", "intro", "idle"] {
            std::fs::copy(&dao, dir.join(format!("{name}.gesichter"))).unwrap();
        }
        std::fs::copy(example("take.csv"), dir.join("take.csv")).unwrap();
        std::fs::copy(example("take.csv"), dir.join("takes/take.csv")).unwrap();
        std::fs::copy(example("cc4.json"), dir.join("rig.json")).unwrap();
        std::fs::copy(
            fixture("mapping/mh_arkit_mapping_pose.T3D"),
            dir.join("mh_arkit_mapping_pose.T3D"),
        )
        .unwrap();
        let table =
            "JawOpen,Mouth_Open,1\nEyeBlinkLeft,Eye_Blink_L,1\nEyeBlinkRight,Eye_Blink_R,1\n";
        std::fs::write(dir.join("rig.csv"), table).unwrap();
        std::fs::write(dir.join("daz.csv"), table).unwrap();
        std::fs::write(
            dir.join("take.fbx.json"),
            r#"{"shapes": [{"target": "Mouth_Open", "curves": [{"values": [0, 1, 0], "start_time": 0, "end_time": 1}]}]}"#,
        )
        .unwrap();
        write_gltf(&example("face.glb"), &dir.join("face.gltf"));
        let run = |args: &[&str]| {
            llv().current_dir(dir).args(args).assert().success();
        };
        // The phone's take as llv record writes it.
        run(&["convert", "examples/take.csv", "recording.gesichter-lines"]);
        std::fs::File::create(dir.join("card.img"))
            .unwrap()
            .set_len(256 << 20)
            .unwrap();
        run(&["card", "format", "card.img"]);
        let boxes = [0, 1].map(|i| {
            let folder = dir.join(format!("box{i}"));
            std::fs::create_dir_all(&folder).unwrap();
            for take in ["dao", "take1"] {
                std::fs::copy(&dao, folder.join(format!("{take}.gesichter"))).unwrap();
            }
            let serve = Serve::start(&folder, &["--bind", "127.0.0.1", "--no-discovery"]);
            run(&["box", &serve.addr(), "config", "token", "secret"]);
            serve
        });
        let path = format!(
            "{}:{}",
            llv_path().parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        Bench {
            dir: dir.to_path_buf(),
            home,
            path,
            boxes,
        }
    }

    /// The line with its addresses and outside paths made local.
    fn local(&self, line: &str) -> String {
        let (a, b) = (self.boxes[0].addr(), self.boxes[1].addr());
        line.replace("192.168.1.50", &a)
            .replace("stage-left", &a)
            .replace("stage-right", &b)
            .replace("192.168.1.20", "127.0.0.1")
            .replace("10.0.0.69", "127.0.0.1")
            .replace("10.0.0.70", "127.0.0.1")
            .replace("10.0.0.20", "127.0.0.1")
            .replace("/media/SDCARD", "SDCARD")
            .replace("/usr/local/share/man/man1", "man1")
    }

    fn shell(&self, line: &str, cwd: &Path, stdout: Stdio) -> Running {
        let child = Command::new("sh")
            .args(["-c", line])
            .current_dir(cwd)
            .env("PATH", &self.path)
            .env("HOME", &self.home)
            .env("PROFILE", self.home.join("profile.ps1"))
            .env("LLV_BOX_TOKEN", "secret")
            .env("MANPAGER", "cat")
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .expect("sh");
        Running(child)
    }

    /// Runs one line; `Err` says how it failed.
    fn run(&self, line: &str) -> Result<(), String> {
        let local = self.local(line);
        let cwd = if local.starts_with("cargo run") {
            repo_root()
        } else {
            self.dir.clone()
        };
        // Ctrl-C goes to llv itself, as in a terminal.
        let script = if until_ctrl_c(&local) {
            format!("exec {local}")
        } else {
            local.clone()
        };
        let mut sh = self.shell(&script, &cwd, Stdio::null());
        let stderr = sh.0.stderr.take().unwrap();
        let (tx, said) = mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(l);
            }
        });
        let mut heard = Vec::new();
        if local.starts_with("llv record") {
            // The phone: dao played to the recorder once it listens.
            let end = Instant::now() + Duration::from_secs(30);
            while !heard.iter().any(|l: &String| l.starts_with("listening on")) {
                match said.recv_timeout(end.saturating_duration_since(Instant::now())) {
                    Ok(l) => heard.push(l),
                    Err(_) => return Err(format!("never listened: {heard:?}")),
                }
            }
            let port = local
                .split("--port ")
                .nth(1)
                .map_or("11111", |p| p.split(' ').next().unwrap_or("11111"));
            llv()
                .args([
                    "play",
                    "examples/dao.gesichter",
                    "--loop",
                    "4",
                    "--fps",
                    "600",
                ])
                .args(["--to", &format!("127.0.0.1:{port}")])
                .current_dir(&self.dir)
                .assert()
                .success();
        }
        let limit = if until_ctrl_c(&local) {
            Duration::from_secs(3)
        } else if local.starts_with("cargo run") {
            // A `cargo run` line may have to build first, and wait for
            // cargo's lock while the test command's checks lint beside the
            // tests.
            Duration::from_secs(1200)
        } else {
            Duration::from_secs(120)
        };
        let mut status = sh.wait(limit);
        if status.is_none() && until_ctrl_c(&local) {
            sh.signal(libc::SIGINT);
            status = sh.wait(Duration::from_secs(30));
        }
        heard.extend(said.try_iter());
        match status {
            Some(s) if s.success() => Ok(()),
            other => Err(format!("{other:?}: {}", heard.join("\n"))),
        }
    }
}

/// `glb` written as a `.gltf` (its JSON, the binary chunk as a data URI).
fn write_gltf(glb: &Path, gltf: &Path) {
    use base64::Engine;
    let bytes = std::fs::read(glb).unwrap();
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut json: serde_json::Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    let bin = &bytes[20 + json_len + 8..];
    json["buffers"][0]["uri"] = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bin)
    )
    .into();
    std::fs::write(gltf, serde_json::to_string(&json).unwrap()).unwrap();
}

fn runs_as_written(doc: &str) {
    let text = std::fs::read_to_string(repo_root().join(doc)).unwrap();
    let lines = command_lines(&text);
    let dir = tempfile::tempdir().unwrap();
    let bench = Bench::new(dir.path());
    let mut failed = Vec::new();
    for line in &lines {
        if SKIPPED.iter().any(|(skip, _)| skip == line) {
            continue;
        }
        if let Err(why) = bench.run(line) {
            failed.push(format!("{doc}: `{line}`: {why}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

/// One after the other: both record on UDP 11111 as written.
#[test]
fn the_readmes_commands_run_as_written() {
    runs_as_written("README.md");
    runs_as_written("host/README.md");
}

#[test]
fn every_skipped_line_is_still_in_the_documents() {
    let mut all = Vec::new();
    for doc in ["README.md", "host/README.md"] {
        all.extend(command_lines(
            &std::fs::read_to_string(repo_root().join(doc)).unwrap(),
        ));
    }
    for (line, why) in SKIPPED {
        assert!(
            all.iter().any(|l| l == line),
            "skipped ({why}) but in no document: {line}"
        );
    }
}
