//! Discovery end to end, by multicast, between two network namespaces the
//! test creates and joins with a veth pair: `llv serve` in one (its mDNS
//! responder: the box's code) and `llv discover` and `llv box NAME` in the
//! other. Nothing leaves the machine: the namespaces hold only their
//! loopback and the veth pair (169.254.77.0/24, link-local), and are deleted
//! at the end.
//!
//! Needs root and `ip` (iproute2; `scripts/test-all` installs it); without
//! them it fails, never passes unrun. The same responder is also tested on
//! the host (`firmware/control/tests/mdns.rs`) and through QEMU
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
