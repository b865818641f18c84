//! `llv serve` says what it uses: the OSC port it serves on (not the
//! setting's 11114), the address it listens on (it keeps no address of its
//! own), the free space of its folder's file system; from the session's one
//! Status, in `llv box status`, `llv box config` and OSC's `/llv/status`.

use std::process::Command;

use llv_tests::show::Serve;
use llv_tests::{example, llv};

fn stdout(args: &[&str]) -> String {
    let out = llv().args(args).assert().success();
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

/// The free bytes of the file system holding `dir`, as `df` reads them.
fn df_free(dir: &std::path::Path) -> u64 {
    let out = Command::new("df")
        .args(["-B1", "--output=avail"])
        .arg(dir)
        .output()
        .expect("df");
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().nth(1).unwrap().trim().parse().unwrap()
}

#[test]
fn serve_reports_its_own_port_address_and_free_space() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(example("dao.gesichter"), dir.path().join("dao.gesichter")).unwrap();
    let serve = Serve::start(dir.path(), &["--bind", "127.0.0.1", "--no-discovery"]);
    assert_ne!(
        serve.osc, 11114,
        "a free port, so the setting and the port differ"
    );
    let addr = serve.addr();

    let config = stdout(&["box", &addr, "config"]);
    assert!(
        config.contains("osc-port  11114 (UDP and TCP, the default)"),
        "{config}"
    );
    assert!(
        config.contains(&format!(
            "(in use now: {}; llv serve --osc-port says)",
            serve.osc
        )),
        "{config}"
    );
    assert!(
        config.contains("(llv serve keeps no address of its own: it listens on 127.0.0.1)"),
        "{config}"
    );
    assert!(
        config.contains("http-port 80 (the page and HTTP API, the default"),
        "{config}"
    );
    stdout(&["box", &addr, "config", "http-port", "8080"]);
    let config = stdout(&["box", &addr, "config"]);
    assert!(
        config.contains("http-port 8080 (the page and HTTP API, from the next power-up)"),
        "{config}"
    );

    let status = stdout(&["box", &addr, "status"]);
    assert!(status.contains("address  127.0.0.1\n"), "{status}");
    assert!(
        status.contains(&format!("osc      port {} (UDP and TCP)", serve.osc)),
        "{status}"
    );
    let json = stdout(&["box", &addr, "status", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["osc_port"], u64::from(serve.osc));
    assert_eq!(json["used_bytes"], 36154, "dao.gesichter's bytes");
    let free = json["free_bytes"].as_u64().unwrap();
    let df = df_free(dir.path());
    assert!(
        free.abs_diff(df) < 256 << 20,
        "free {free} bytes, df says {df}"
    );
    assert!(
        status.contains("folder    36154 bytes (35.3 KiB) used, "),
        "{status}"
    );
}
