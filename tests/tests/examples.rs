//! The bundled examples: the derived ones are what `examples/make-examples.py`
//! writes, and the docs' commands that use them run as written.

use std::process::Command;

use llv_tests::{example, llv, llv_packets, repo_root};

#[test]
fn make_examples_writes_the_bundled_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let made = Command::new("python3")
        .arg(example("make-examples.py"))
        .arg(dir.path())
        .output()
        .expect("python3");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    for name in ["face.glb", "dao-legacy.gesichter", "take.csv"] {
        assert!(
            std::fs::read(dir.path().join(name)).unwrap() == std::fs::read(example(name)).unwrap(),
            "examples/{name} is not what make-examples.py writes"
        );
    }
}

/// The docs' lines that use the examples, in an order where each input
/// exists: (document, line as written there, what it prints).
const COMMANDS: [(&str, &str, &str); 6] = [
    (
        "README.md",
        "llv convert examples/take.csv take.gesichter",
        "wrote 150 frames",
    ),
    (
        "README.md",
        "llv remap examples/take.csv --map examples/cc4.json -o take.cc4.csv",
        "150 frames, 32 curves",
    ),
    (
        "README.md",
        "llv import examples/face.glb --map examples/cc4.json -o face.gesichter",
        "wrote 121 frames at 60 fps",
    ),
    (
        "host/README.md",
        "llv import examples/face.glb --map examples/cc4.json -o face.gesichter",
        "5 shapes driven: JawOpen <- Mouth_Open",
    ),
    (
        "host/README.md",
        "llv edit take.gesichter mod.gesichter --modifiers examples/modifiers.json --offset BrowInnerUp=-0.05",
        "modifier JawOpen x0.8",
    ),
    (
        "host/README.md",
        "llv convert examples/dao-legacy.gesichter new.gesichter --anonymize",
        "wrote 15 frames",
    ),
];

#[test]
fn the_docs_commands_on_the_examples_run_as_written() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(repo_root().join("examples"), dir.path().join("examples")).unwrap();
    for (doc, line, says) in COMMANDS {
        let text = std::fs::read_to_string(repo_root().join(doc)).unwrap();
        assert!(
            text.lines().any(|l| l.starts_with(line)),
            "{doc} no longer shows `{line}`"
        );
        for out in ["face.gesichter", "take.cc4.csv"] {
            let _ = std::fs::remove_file(dir.path().join(out));
        }
        let words: Vec<&str> = line.split_whitespace().skip(1).collect();
        let run = llv()
            .current_dir(dir.path())
            .args(&words)
            .assert()
            .success();
        let output = run.get_output();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(said.contains(says), "`{line}` said: {said}");
    }
    // The legacy lines are dao's first frames, packet for packet.
    llv()
        .current_dir(dir.path())
        .args([
            "convert",
            "examples/dao-legacy.gesichter",
            "plain.gesichter",
        ])
        .assert()
        .success();
    let legacy = llv_packets(&dir.path().join("plain.gesichter"));
    let dao = llv_packets(&example("dao.gesichter"));
    assert_eq!(legacy, dao[..15]);
}

#[test]
fn playing_dao_says_its_cadence_and_the_gap_it_keeps() {
    let receiver = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let to = receiver.local_addr().unwrap().to_string();
    let out = llv()
        .args([
            "play",
            example("dao.gesichter").to_str().unwrap(),
            "--to",
            &to,
        ])
        .assert()
        .success();
    let said = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        said.contains(
            "timed by the take's frame times: cadence 59.963 Hz, its gap of 7 frames kept"
        ),
        "{said}"
    );
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    assert!(readme.contains("captured at 59.96 Hz with one gap of 7 frames"));
}
