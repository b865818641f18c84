//! Discovery end to end, by multicast, between two network namespaces the
//! test creates and joins with a veth pair: `llv serve` in one (its mDNS
//! responder: the box's code) and `llv discover` and `llv box NAME` in the
//! other. Nothing leaves the machine: the namespaces hold only their
//! loopback and the veth pair (169.254.77.0/24, link-local), and are deleted
//! at the end.
//!
//! Also: `llv serve` says goodbye (its records with a TTL of 0) when it is
//! renamed and when it stops, heard by a listener in the other namespace.
//!
//! Needs root and `ip` (iproute2; `scripts/test-all` installs it); without
//! them it fails, never passes unrun. The same responder is also tested on
//! the host (`control/tests/mdns.rs`) and through QEMU
//! (`firmware/e2e/box_show.rs`).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use llv_tests::show::Serve;
use llv_tests::{example, llv_path};
use serde_json::Value;

/// Two namespaces joined by a veth pair; deleted on drop.
struct Net {
    a: String,
    b: String,
}

fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("ip {}: {e}", args.join(" ")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

impl Net {
    fn new() -> Result<Net, String> {
        let id = std::process::id();
        let net = Net {
            a: format!("llvA{id}"),
            b: format!("llvB{id}"),
        };
        ip(&["netns", "add", &net.a])?;
        ip(&["netns", "add", &net.b])?;
        let (va, vb) = (format!("va{id}"), format!("vb{id}"));
        ip(&[
            "link", "add", &va, "netns", &net.a, "type", "veth", "peer", "name", &vb, "netns",
            &net.b,
        ])?;
        for (ns, dev, addr) in [
            (&net.a, &va, "169.254.77.1/24"),
            (&net.b, &vb, "169.254.77.2/24"),
        ] {
            ip(&["-n", ns, "addr", "add", addr, "dev", dev])?;
            ip(&["-n", ns, "link", "set", "lo", "up"])?;
            ip(&["-n", ns, "link", "set", dev, "up"])?;
            ip(&["-n", ns, "route", "add", "224.0.0.0/4", "dev", dev])?;
        }
        Ok(net)
    }

    /// `llv ARGS` run in namespace `ns`.
    fn llv(ns: &str) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", ns]).arg(llv_path());
        c
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        let _ = ip(&["netns", "del", &self.a]);
        let _ = ip(&["netns", "del", &self.b]);
    }
}

fn json(mut c: Command) -> Value {
    let out = c.stdin(Stdio::null()).output().expect("running llv");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn llv_discover_finds_llv_serve_by_name_across_a_veth_pair() {
    let net = Net::new().unwrap_or_else(|e| {
        panic!("cannot make the test's network namespaces ({e}): needs root and iproute2")
    });
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(example("dao.gesichter"), dir.path().join("dao.gesichter")).unwrap();
    let serve = Serve::start_with(Net::llv(&net.a), dir.path(), &["--name", "stage-left"]);
    assert_eq!(serve.name, "stage-left");

    let mut discover = Net::llv(&net.b);
    discover.args(["discover", "--json", "--wait", "3000"]);
    let found = json(discover);
    let boxes = found.as_array().expect("a list");
    assert_eq!(boxes.len(), 1, "{found}");
    let b = &boxes[0];
    assert_eq!(b["name"], "stage-left");
    assert_eq!(b["address"], "169.254.77.1");
    assert_eq!(b["control_port"], serve.control);
    assert_eq!(b["osc_port"], serve.osc);
    assert_eq!(b["firmware"], "llv-serve 0.1.0");

    // The name is an address for llv box (its own control port comes with it).
    for name in ["stage-left", "stage-left.local"] {
        let mut list = Net::llv(&net.b);
        list.args(["box", name, "list", "--json"]);
        let takes = json(list);
        assert_eq!(takes[0]["name"], "dao", "{name}");
    }
    // A name nobody answers for is an error that says so.
    let out = Net::llv(&net.b)
        .args(["box", "nobody-here", "status"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no box named \"nobody-here\""));

    // The name changed over the control port is the one announced from then on.
    let mut rename = Net::llv(&net.b);
    rename.args(["box", "stage-left", "config", "name", "stage-right"]);
    assert!(rename.stdout(Stdio::null()).status().unwrap().success());
    std::thread::sleep(Duration::from_millis(100));
    let mut discover = Net::llv(&net.b);
    discover.args(["discover", "--json", "--wait", "2000"]);
    let found = json(discover);
    assert_eq!(found[0]["name"], "stage-right", "{found}");
    drop(serve);
    assert!(Path::new(&dir.path().join(".llv-serve.json")).is_file());
}

/// Listens for mDNS multicast in namespace `ns` on `address` (python3, no
/// package needed); returns a receiver of every message heard.
fn mdns_listener(
    ns: &str,
    address: &str,
) -> (std::process::Child, std::sync::mpsc::Receiver<Vec<u8>>) {
    const SCRIPT: &str = r#"
import binascii, socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
s.bind(("", 5353))
group = struct.pack("4s4s", socket.inet_aton("224.0.0.251"), socket.inet_aton(sys.argv[1]))
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, group)
print("ready", flush=True)
while True:
    data, _ = s.recvfrom(9000)
    print(binascii.hexlify(data).decode(), flush=True)
"#;
    let mut child = Command::new("ip")
        .args(["netns", "exec", ns, "python3", "-c", SCRIPT, address])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python3");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if line == "ready" {
                let _ = ready_tx.send(());
                continue;
            }
            let bytes = (0..line.len() / 2)
                .filter_map(|i| u8::from_str_radix(&line[2 * i..2 * i + 2], 16).ok())
                .collect();
            if tx.send(bytes).is_err() {
                return;
            }
        }
    });
    ready_rx
        .recv_timeout(Duration::from_secs(10))
        .expect("the mDNS listener did not start");
    (child, rx)
}

/// The first message heard within 10 s whose answers all carry `ttl` and
/// name `name` among them.
fn heard(rx: &std::sync::mpsc::Receiver<Vec<u8>>, name: &str, ttl: u32) -> Vec<(String, u32)> {
    let end = std::time::Instant::now() + Duration::from_secs(10);
    while let Some(left) = end.checked_duration_since(std::time::Instant::now()) {
        let Ok(bytes) = rx.recv_timeout(left) else {
            break;
        };
        let Ok(p) = simple_dns::Packet::parse(&bytes) else {
            continue;
        };
        let records: Vec<(String, u32)> = p
            .answers
            .iter()
            .map(|r| (r.name.to_string(), r.ttl))
            .collect();
        if !records.is_empty()
            && records.iter().all(|(_, t)| *t == ttl)
            && records.iter().any(|(n, _)| n.starts_with(name))
        {
            return records;
        }
    }
    panic!("no message with {name}'s records at TTL {ttl} within 10 s");
}

#[test]
fn llv_serve_says_goodbye_on_a_rename_and_when_it_stops() {
    let net = Net::new().unwrap_or_else(|e| {
        panic!("cannot make the test's network namespaces ({e}): needs root and iproute2")
    });
    let (mut listener, heard_in_b) = mdns_listener(&net.b, "169.254.77.2");
    let dir = tempfile::tempdir().unwrap();
    let mut serve = Serve::start_with(Net::llv(&net.a), dir.path(), &["--name", "stage-left"]);
    let announced = heard(&heard_in_b, "stage-left", 120);
    assert!(
        announced.iter().any(|(n, _)| n == "stage-left.local"),
        "{announced:?}"
    );
    // A rename: the old records go with a TTL of 0, then the new ones come.
    let status = Net::llv(&net.b)
        .args([
            "box",
            &format!("169.254.77.1:{}", serve.control),
            "config",
            "name",
            "stage-right",
        ])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let goodbye = heard(&heard_in_b, "stage-left", 0);
    assert!(
        goodbye
            .iter()
            .any(|(n, _)| n == "stage-left._llv._tcp.local"),
        "{goodbye:?}"
    );
    heard(&heard_in_b, "stage-right", 120);
    // Ctrl-C: the records go.
    let stopped = serve.interrupt();
    assert!(stopped.success(), "{stopped}");
    heard(&heard_in_b, "stage-right", 0);
    let _ = listener.kill();
    let _ = listener.wait();
}
