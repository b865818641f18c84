//! docs/show-control.md's first example runs as written: `oscdump` on the
//! reply port sees the replies to liblo's `oscsend`, against `llv serve` on
//! 127.0.0.1. Only the ports change: the test's free ones for 11113, 11114
//! and 9001 (and `oscdump -L`, line-buffered into a pipe).

use std::io::BufRead;
use std::net::UdpSocket;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use llv_tests::show::Serve;
use llv_tests::{llv_path, repo_root};

/// The `sh` blocks of the document's section that starts with `heading`.
fn blocks(doc: &str, heading: &str) -> Vec<Vec<String>> {
    let start = doc.find(heading).expect("the section");
    let section = &doc[start + heading.len()..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    let mut out = Vec::new();
    let mut lines = section.lines();
    while let Some(line) = lines.next() {
        if line == "```sh" {
            out.push(
                lines
                    .by_ref()
                    .take_while(|l| *l != "```")
                    .map(str::to_string)
                    .collect(),
            );
        }
    }
    out
}

/// A process killed on drop.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits (at most 10 s) until UDP `port` on 127.0.0.1 is taken.
fn wait_taken(port: u16) {
    let end = Instant::now() + Duration::from_secs(10);
    while UdpSocket::bind(("127.0.0.1", port)).is_ok() {
        assert!(Instant::now() < end, "oscdump did not listen on {port}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn oscdump_shows_the_replies_to_oscsend() {
    let doc = std::fs::read_to_string(repo_root().join("docs/show-control.md")).unwrap();
    let blocks = blocks(&doc, "## First: see a reply");
    let [listen, commands] = &blocks[..] else {
        panic!("two sh blocks, one per terminal: {blocks:?}");
    };
    assert_eq!(listen, &["oscdump 9001"]);
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(repo_root().join("examples"), dir.path().join("examples")).unwrap();
    let reply_port = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut dump = Killed(
        Command::new("oscdump")
            .args(["-L", &reply_port.to_string()])
            .stdout(Stdio::piped())
            .spawn()
            .expect("oscdump (liblo-tools)"),
    );
    let (tx, seen) = mpsc::channel();
    let out = dump.0.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    wait_taken(reply_port);
    let path = format!(
        "{}:{}",
        llv_path().parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut serve = None;
    for line in commands {
        if let Some(rest) = line.strip_prefix("llv serve ") {
            let words: Vec<&str> = rest.split_whitespace().filter(|w| *w != "&").collect();
            assert!(line.ends_with('&'), "{line}: runs beside the commands");
            serve = Some(Serve::start(&dir.path().join(words[0]), &words[1..]));
            continue;
        }
        let line = match &serve {
            Some(s) => line
                .replace("llv box 127.0.0.1 ", &format!("llv box {} ", s.addr()))
                .replace(" 11114 ", &format!(" {} ", s.osc))
                .replace(" 9001", &format!(" {reply_port}")),
            None => line.clone(),
        };
        let ran = Command::new("sh")
            .args(["-c", &line])
            .current_dir(dir.path())
            .env("PATH", &path)
            .output()
            .unwrap();
        assert!(
            ran.status.success(),
            "`{line}`: {}",
            String::from_utf8_lossy(&ran.stderr)
        );
    }
    let end = Instant::now() + Duration::from_secs(10);
    let mut lines: Vec<String> = Vec::new();
    while lines.len() < 2 {
        let left = end.saturating_duration_since(Instant::now());
        match seen.recv_timeout(left) {
            Ok(line) => lines.push(line),
            Err(_) => panic!("oscdump showed only {lines:?}"),
        }
    }
    drop(dump);
    // A timestamp, then what the document shows.
    let shown: Vec<&str> = lines
        .iter()
        .map(|l| l.split_once(' ').map_or("", |(_, rest)| rest))
        .collect();
    assert!(
        shown[0].starts_with(
            r#"/reply/llv/status s "{"address":"/llv/status","status":"ok","data":{"firmware":"llv-serve "#
        ),
        "{lines:?}"
    );
    assert_eq!(
        shown[1],
        r#"/reply/llv/play s "{"address":"/llv/play","status":"ok","data":null}""#
    );
    for shown in shown {
        let documented = shown.split_once("...").map_or(shown, |(head, _)| head);
        assert!(
            doc.contains(&documented[..documented.len().min(60)]),
            "{shown}"
        );
    }
}
