//! End to end: the box under QEMU driven by show tools. A real OSC client
//! that is not llv's (python-osc) plays, stops and asks the box over UDP and
//! over TCP in both framings (QEMU forwards the OSC port from 127.0.0.1);
//! garbage and floods never stall its playback; `llv discover` finds it by a
//! one-shot mDNS query through the forwarded port 5353 (QEMU's user network
//! carries no multicast: the responder's multicast side is tested on the
//! host, and discovery by multicast between two network namespaces against
//! `llv serve`, which runs the same responder code).
//!
//! Needs `qemu-system-arm`, the `thumbv7em-none-eabihf` target and python-osc
//! (`scripts/test-all` installs them). Lives in the root `tests` crate.

use std::io::Write;
use std::net::{TcpStream, UdpSocket};
use std::time::{Duration, Instant};

use llv_tests::show::{osc_client, replies};
use serde_json::{json, Value};

use flash_box::*;
use llv_tests::flash_box;

/// A box with dao stored, playing to a receiver on the host.
fn show_box() -> (tempfile::TempDir, QemuBox, UdpSocket) {
    let dir = tempfile::tempdir().unwrap();
    let b = QemuBox::boot_with(firmware(), &dir.path().join("flash.bin"), "erase_ms=0");
    flash_dao(&b);
    let (socket, target) = receiver();
    b.llv(&["box", "{box}", "config", "targets", &target])
        .success();
    (dir, b, socket)
}

/// Whether nothing arrives at `socket` for `wait` (after dropping what is queued).
fn quiet(socket: &UdpSocket, wait: Duration) -> bool {
    let mut buf = [0u8; 2048];
    let _ = socket.set_nonblocking(true);
    while socket.recv(&mut buf).is_ok() {}
    let _ = socket.set_nonblocking(false);
    receive(socket, 1, wait).is_empty()
}

#[test]
fn python_osc_drives_the_box_over_udp_and_tcp_in_both_framings() {
    let (_dir, b, socket) = show_box();
    for transport in ["udp", "tcp1.1", "tcp1.0"] {
        let got = osc_client(
            "127.0.0.1",
            b.osc,
            transport,
            &json!([["/llv/takes"], ["/llv/play", "dao", 0], ["/llv/status"]]),
        );
        let r = replies(&got);
        assert_eq!(r.len(), 3, "{transport}: {got:?}");
        assert_eq!(
            r[0]["data"],
            json!([{"name": "dao", "frames": 180, "period_us": 3_118_589, "place": "flash"}])
        );
        assert_eq!(r[1]["status"], "ok", "{transport}");
        assert_eq!(r[2]["data"]["playing"]["take"], "dao");
        assert_eq!(r[2]["data"]["address"], "10.0.2.15");
        assert_eq!(receive(&socket, 20, PLAY_TIMEOUT).len(), 20, "{transport}");
        let got = osc_client("127.0.0.1", b.osc, transport, &json!([["/llv/stop"]]));
        assert_eq!(replies(&got)[0]["status"], "ok");
        assert!(quiet(&socket, Duration::from_millis(500)), "{transport}");
    }
    // One message per connection, closed at once (Companion's TCP mode).
    for transport in ["short1.1", "short1.0"] {
        osc_client(
            "127.0.0.1",
            b.osc,
            transport,
            &json!([["/llv/play", "dao", 0]]),
        );
        assert_eq!(receive(&socket, 10, PLAY_TIMEOUT).len(), 10, "{transport}");
        osc_client("127.0.0.1", b.osc, transport, &json!([["/llv/stop"]]));
        assert!(quiet(&socket, Duration::from_millis(500)), "{transport}");
    }
    // The token applies over OSC as over the control port.
    b.llv(&["box", "{box}", "config", "token", "s3cret"])
        .success();
    let got = osc_client(
        "127.0.0.1",
        b.osc,
        "tcp1.1",
        &json!([
            ["/llv/play", "dao"],
            ["/llv/connect", "s3cret"],
            ["/llv/play", "dao"]
        ]),
    );
    let r = replies(&got);
    assert_eq!(r[0]["status"], "denied", "{got:?}");
    assert_eq!(
        (r[1]["status"].as_str(), r[2]["status"].as_str()),
        (Some("ok"), Some("ok"))
    );
    assert!(!receive(&socket, 5, PLAY_TIMEOUT).is_empty());
}

#[test]
fn garbage_osc_gets_an_error_or_nothing_and_never_stalls_playback() {
    let (_dir, b, socket) = show_box();
    osc_client("127.0.0.1", b.osc, "udp", &json!([["/llv/play", "dao", 0]]));
    assert_eq!(receive(&socket, 5, PLAY_TIMEOUT).len(), 5);
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let osc = ("127.0.0.1", b.osc);
    let garbage: Vec<Vec<u8>> = vec![
        vec![0xFF; 7],
        b"/llv/play\0\0\0,s\0\0dao".to_vec(),
        b"/llv/play\0\0\0,s\0\0dao\0\x01".to_vec(),
        b"/llv/play\0\0\0,i\0\0".to_vec(),
        b"#bundle\0\0\0\0\0\0\0\0\x01\x7f\xff\xff\xff".to_vec(),
        vec![b'/'; 1400],
    ];
    let start = Instant::now();
    let mut answered = 0;
    let mut buf = [0u8; 2048];
    while start.elapsed() < Duration::from_secs(2) {
        for g in &garbage {
            let _ = udp.send_to(g, osc);
        }
        for bytes in [
            &b"GET / HTTP/1.1\r\n\r\n"[..],
            &[0xC0, b'/', 0xDB, 0x01, 0xC0][..],
            &[0x00, 0x10, 0x00, 0x00, 1, 2, 3][..],
        ] {
            if let Ok(mut s) = TcpStream::connect(osc) {
                let _ = s.write_all(bytes);
            }
        }
        while let Ok(n) = udp.recv(&mut buf) {
            assert!(buf[..n].starts_with(b"/llv/error") || buf[..n].starts_with(b"/reply"));
            answered += 1;
        }
    }
    assert!(answered > 0);
    // The take plays on at its rate: 60 frames in about a second (10 s bound under load).
    let begin = Instant::now();
    assert_eq!(receive(&socket, 60, Duration::from_secs(10)).len(), 60);
    assert!(begin.elapsed() < Duration::from_secs(10));
    let got = osc_client("127.0.0.1", b.osc, "udp", &json!([["/llv/status"]]));
    assert_eq!(replies(&got)[0]["data"]["playing"]["take"], "dao");
}

/// `llv discover --unicast` through the forwarded mDNS port.
fn discover(b: &QemuBox) -> Vec<Value> {
    let v = b.json(&[
        "discover",
        "--unicast",
        &format!("127.0.0.1:{}", b.mdns),
        "--wait",
        "3000",
        "--json",
    ]);
    v.as_array().expect("a list").clone()
}

#[test]
fn llv_discover_finds_the_box_and_its_name_is_a_setting() {
    let (_dir, b, _socket) = show_box();
    let found = discover(&b);
    assert_eq!(found.len(), 1, "{found:?}");
    let f = &found[0];
    // QEMU's NIC has the MAC 52:54:00:12:34:56.
    assert_eq!(f["name"], "llv-123456");
    assert_eq!(f["address"], "10.0.2.15");
    assert_eq!(f["control_port"], 11113);
    assert_eq!(f["osc_port"], 11114);
    assert_eq!(f["protocol"], llv_core::control::PROTOCOL_VERSION);
    assert!(f["firmware"].as_str().unwrap().starts_with("llv-box-qemu"));
    assert_eq!(f["playing"], Value::Null);
    b.llv(&["box", "{box}", "config", "name", "stage-left"])
        .success();
    osc_client("127.0.0.1", b.osc, "udp", &json!([["/llv/play", "dao", 0]]));
    let found = discover(&b);
    assert_eq!(found[0]["name"], "stage-left");
    assert_eq!(found[0]["playing"], "dao");
    b.llv(&["box", "{box}", "config", "name", "bad name"])
        .failure();
}
