//! End to end: the bench check a board owner runs (`llv box ADDR check`),
//! run against the box under QEMU so it cannot rot. When the check asks for
//! the power cycle, the test stops QEMU and boots it again on the same flash
//! file and host ports (a box power-cycled on a bench comes back at its
//! address).
//!
//! Checks: every item passes (QEMU's noise allowed for by `--late-ms`), the
//! report names the clock as emulated, and the box is left as found (the
//! check's take deleted, no autoplay).
//!
//! Needs `qemu-system-arm` and the `thumbv7em-none-eabihf` target. Lives in
//! the root `tests` crate.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use llv_tests::flash_box::*;
use llv_tests::{example, llv_path};

/// How long the whole check may take (a few playbacks of 5 s, an upload, a
/// power cycle).
const CHECK_TIMEOUT: Duration = Duration::from_secs(180);

#[test]
fn the_bench_check_passes_against_the_box_and_its_power_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let flash = dir.path().join("flash.bin");
    let b = QemuBox::boot_with(firmware(), &flash, "");
    let udp = free_udp_port();
    let mut check = Command::new(llv_path())
        .args(["box", &b.addr(), "check", "--take"])
        .arg(example("dao.gesichter"))
        .args(["--to", &format!("10.0.2.2:{udp}")])
        .args(["--listen", &format!("127.0.0.1:{udp}")])
        // Under QEMU on a machine with both cores busy frames come tens of
        // ms late, and hundreds at a load of 6 (measured), upload or not; a
        // frame an erase held would be 1.1 s late.
        .args(["--seconds", "5", "--late-ms", "500", "--reboot-wait", "60"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("llv runs");
    let (lines, said) = mpsc::channel();
    let stderr = check.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            eprintln!("llv: {line}");
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let mut stdout = check.stdout.take().unwrap();
    let report = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });

    let end = Instant::now() + CHECK_TIMEOUT;
    loop {
        let line = said
            .recv_timeout(end.saturating_duration_since(Instant::now()))
            .expect("the check asks for a power cycle");
        if line.contains("power-cycle the box now") {
            break;
        }
    }
    let b = b.power_cycle(firmware(), &flash, "");
    let status = loop {
        if let Some(status) = check.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > end {
            let _ = check.kill();
            panic!("the check did not end within {CHECK_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let report = report.join().unwrap();
    eprintln!("{report}");
    assert!(status.success(), "the check failed:\n{report}");
    for row in [
        "| box found | pass | llv-box-qemu",
        "| playback rate | pass |",
        "| playback lateness | pass |",
        "| upload while playing | pass |",
        "| power cycle and autoplay | pass |",
        "| clock source | pass | emulated",
        "| faults | pass | none |",
    ] {
        assert!(report.contains(row), "{row} in:\n{report}");
    }
    // Left as found.
    let takes = b.json(&["box", "{box}", "list", "--json"]);
    assert_eq!(takes, serde_json::json!([]), "{takes}");
    let settings = b.json(&["box", "{box}", "config", "--json"]);
    assert_eq!(
        settings["settings"]["autoplay"],
        serde_json::Value::Null,
        "{settings}"
    );
}
