//! `llv serve` as a box: `llv flash` and `llv box` against a folder, and a
//! real OSC client (python-osc) playing, stopping and asking it over UDP
//! and over TCP in both framings, with the token rules, garbage that never
//! stalls playback, and a subscription. Everything on 127.0.0.1; the mDNS
//! responder is off (`--no-discovery`: discovery has its own test, in
//! network namespaces).

use std::io::Write;
use std::net::{TcpStream, UdpSocket};
use std::time::{Duration, Instant};

use llv_tests::show::{osc_client, replies, Serve};
use llv_tests::{example, llv};
use serde_json::{json, Value};

const TIMEOUT: Duration = Duration::from_secs(30);

/// A UDP receiver on 127.0.0.1 standing in for Unreal.
struct Receiver(UdpSocket);

impl Receiver {
    fn new() -> Receiver {
        let s = UdpSocket::bind("127.0.0.1:0").unwrap();
        s.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
        Receiver(s)
    }

    fn target(&self) -> String {
        self.0.local_addr().unwrap().to_string()
    }

    /// Arrival times of the frames received within `limit` (at most `count`).
    fn frames(&self, count: usize, limit: Duration) -> Vec<Instant> {
        let end = Instant::now() + limit;
        let mut times = Vec::new();
        let mut buf = [0u8; 2048];
        while times.len() < count && Instant::now() < end {
            if self.0.recv(&mut buf).is_ok() {
                times.push(Instant::now());
            }
        }
        times
    }

    /// Drops what is queued, then says whether frames still arrive within `wait`.
    fn quiet_for(&self, wait: Duration) -> bool {
        let mut buf = [0u8; 2048];
        while self.0.recv(&mut buf).is_ok() {}
        self.frames(1, wait).is_empty()
    }
}

/// A served folder holding dao (flashed through the control port) and a receiver as its target.
fn served() -> (tempfile::TempDir, Serve, Receiver) {
    let dir = tempfile::tempdir().unwrap();
    let serve = Serve::start(dir.path(), &["--bind", "127.0.0.1", "--no-discovery"]);
    let receiver = Receiver::new();
    let dao = example("dao.gesichter");
    llv()
        .args(["flash", dao.to_str().unwrap(), "--box", &serve.addr()])
        .timeout(TIMEOUT)
        .assert()
        .success();
    assert!(
        dir.path().join("dao.gesichter").is_file(),
        "the upload landed in the folder"
    );
    llv()
        .args([
            "box",
            &serve.addr(),
            "config",
            "targets",
            &receiver.target(),
        ])
        .timeout(TIMEOUT)
        .assert()
        .success();
    (dir, serve, receiver)
}

#[test]
fn python_osc_plays_stops_and_asks_over_udp_and_tcp_in_both_framings() {
    let (_dir, serve, receiver) = served();
    for transport in ["udp", "tcp1.1", "tcp1.0"] {
        let got = osc_client(
            "127.0.0.1",
            serve.osc,
            transport,
            &json!([["/llv/takes"], ["/llv/play", "dao", 0], ["/llv/status"]]),
        );
        let r = replies(&got);
        assert_eq!(r.len(), 3, "{transport}: {got:?}");
        assert_eq!(r[0]["address"], "/llv/takes");
        assert_eq!(
            r[0]["data"],
            json!([{"name": "dao", "frames": 180, "period_us": 3_118_589, "place": "flash"}])
        );
        assert_eq!(
            r[1],
            json!({"address": "/llv/play", "status": "ok", "data": null})
        );
        assert_eq!(r[2]["data"]["playing"]["take"], "dao");
        assert_eq!(r[2]["data"]["firmware"], "llv-serve 0.1.0");
        // The frames arrive, about 60 a second.
        let frames = receiver.frames(30, TIMEOUT);
        assert_eq!(frames.len(), 30, "{transport}");
        let got = osc_client("127.0.0.1", serve.osc, transport, &json!([["/llv/stop"]]));
        assert_eq!(replies(&got)[0]["status"], "ok", "{transport}");
        assert!(
            receiver.quiet_for(Duration::from_millis(500)),
            "{transport}: still playing"
        );
    }
    // One message per connection, closed at once (Companion's TCP mode).
    for transport in ["short1.1", "short1.0"] {
        osc_client(
            "127.0.0.1",
            serve.osc,
            transport,
            &json!([["/llv/play", "dao", 0]]),
        );
        assert_eq!(receiver.frames(10, TIMEOUT).len(), 10, "{transport}");
        osc_client("127.0.0.1", serve.osc, transport, &json!([["/llv/stop"]]));
        assert!(
            receiver.quiet_for(Duration::from_millis(500)),
            "{transport}"
        );
    }
}

#[test]
fn a_token_is_needed_over_osc_as_over_the_control_port() {
    let (_dir, serve, receiver) = served();
    llv()
        .args(["box", &serve.addr(), "config", "token", "s3cret"])
        .timeout(TIMEOUT)
        .assert()
        .success();
    let got = osc_client(
        "127.0.0.1",
        serve.osc,
        "udp",
        &json!([
            ["/llv/play", "dao"],
            ["/llv/connect", "guess"],
            ["/llv/connect", "s3cret"]
        ]),
    );
    let r = replies(&got);
    assert_eq!(r[0]["status"], "denied");
    assert_eq!(r[1]["status"], "denied");
    // Locked out for the wrong token's delay.
    assert_eq!(r[2]["status"], "denied");
    assert!(receiver.quiet_for(Duration::from_millis(300)));
    std::thread::sleep(Duration::from_millis(700));
    let got = osc_client(
        "127.0.0.1",
        serve.osc,
        "tcp1.1",
        &json!([
            ["/llv/connect", "s3cret"],
            ["/llv/play", "dao"],
            ["/llv/stop"]
        ]),
    );
    let r = replies(&got);
    assert_eq!(
        (r[0]["status"].as_str(), r[1]["status"].as_str()),
        (Some("ok"), Some("ok")),
        "{got:?}"
    );
    // Over TCP a wrong token waits its delay and closes, as over the control port.
    let start = Instant::now();
    let got = osc_client(
        "127.0.0.1",
        serve.osc,
        "tcp1.0",
        &json!([["/llv/connect", "wrong"]]),
    );
    assert_eq!(replies(&got)[0]["status"], "denied");
    assert!(
        start.elapsed() >= Duration::from_millis(400),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn garbage_gets_an_error_or_nothing_and_never_stalls_playback() {
    let (_dir, serve, receiver) = served();
    osc_client(
        "127.0.0.1",
        serve.osc,
        "udp",
        &json!([["/llv/play", "dao", 0]]),
    );
    assert_eq!(receiver.frames(5, TIMEOUT).len(), 5);
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let osc = ("127.0.0.1", serve.osc);
    let mut huge = b"#bundle\0\0\0\0\0\0\0\0\x01".to_vec();
    for _ in 0..2000 {
        huge.extend_from_slice(&[0, 0, 0, 16]);
        huge.extend_from_slice(b"/llv/status\0,\0\0\0");
    }
    let garbage: Vec<Vec<u8>> = vec![
        vec![],
        vec![0xFF; 7],
        b"/llv/play\0\0\0,s\0\0dao".to_vec(),
        b"/llv/play\0\0\0,s\0\0dao\0\x01".to_vec(),
        b"/llv/play\0\0\0,i\0\0".to_vec(),
        b"#bundle\0\0\0\0\0\0\0\0\x01\x7f\xff\xff\xff".to_vec(),
        huge[..1400].to_vec(),
    ];
    let flood_end = Instant::now() + Duration::from_secs(2);
    let mut sent = 0;
    let mut answered = 0;
    while Instant::now() < flood_end {
        for g in &garbage {
            let _ = udp.send_to(g, osc);
            sent += 1;
        }
        // TCP: garbage framings, an endless SLIP frame, a huge size prefix.
        for bytes in [
            &b"GET / HTTP/1.1\r\n\r\n"[..],
            &[0xC0, b'/', 0xDB, 0x01, 0xC0][..],
            &[0x00, 0x10, 0x00, 0x00, 1, 2, 3][..],
        ] {
            if let Ok(mut s) = TcpStream::connect(osc) {
                let _ = s.write_all(bytes);
            }
        }
        let mut buf = [0u8; 2048];
        while let Ok(n) = udp.recv(&mut buf) {
            assert!(buf[..n].starts_with(b"/llv/error") || buf[..n].starts_with(b"/reply"));
            answered += 1;
        }
    }
    assert!(sent > 0 && answered > 0, "{sent} sent, {answered} answered");
    // Playback went on at its rate meanwhile, and goes on.
    let frames = receiver.frames(60, Duration::from_secs(5));
    assert_eq!(frames.len(), 60);
    let gaps = frames.windows(2).map(|w| w[1] - w[0]).max().unwrap();
    assert!(gaps < Duration::from_millis(500), "a gap of {gaps:?}");
    let got = osc_client("127.0.0.1", serve.osc, "udp", &json!([["/llv/status"]]));
    assert_eq!(replies(&got)[0]["data"]["playing"]["take"], "dao");
}

#[test]
fn a_subscriber_gets_the_state_as_it_changes() {
    let (_dir, serve, _receiver) = served();
    let got = osc_client(
        "127.0.0.1",
        serve.osc,
        "udp",
        &json!([
            ["/llv/subscribe", 30],
            ["/llv/play", "dao", 0],
            ["wait", 3.0],
            ["/llv/stop"],
            ["wait", 0.5]
        ]),
    );
    let states: Vec<&Value> = got
        .iter()
        .filter(|m| m["address"] == "/llv/state")
        .collect();
    assert_eq!(
        states[0]["args"],
        json!([0, "", 0, 0, "off", ""]),
        "{got:?}"
    );
    assert!(
        states
            .iter()
            .any(|s| s["args"][0] == 1 && s["args"][1] == "dao"),
        "{got:?}"
    );
    assert_eq!(states.last().unwrap()["args"][0], 0, "{got:?}");
    // At least one heartbeat while playing, with the frame moving on.
    let playing: Vec<_> = states.iter().filter(|s| s["args"][0] == 1).collect();
    assert!(playing.len() >= 2, "{got:?}");
    assert!(playing.last().unwrap()["args"][2].as_i64().unwrap() > 0);
}

#[test]
fn llv_box_works_unchanged_and_a_deleted_take_leaves_the_folder() {
    let (dir, serve, _receiver) = served();
    let out = llv()
        .args(["box", &serve.addr(), "status", "--json"])
        .timeout(TIMEOUT)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let status: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(status["firmware"], "llv-serve 0.1.0");
    llv()
        .args(["box", &serve.addr(), "delete", "dao"])
        .timeout(TIMEOUT)
        .assert()
        .success();
    assert!(!dir.path().join("dao.gesichter").exists());
    // A recording dropped into the folder becomes a take.
    std::fs::copy(
        example("debug-jawopen.gesichter"),
        dir.path().join("jaw.gesichter"),
    )
    .unwrap();
    let end = Instant::now() + TIMEOUT;
    loop {
        let got = osc_client("127.0.0.1", serve.osc, "udp", &json!([["/llv/takes"]]));
        if replies(&got)[0]["data"]
            == json!([{"name": "jaw", "frames": 66, "period_us": 1_100_664, "place": "flash"}])
        {
            break;
        }
        assert!(Instant::now() < end, "{got:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_take_chases_timecode_over_osc_and_subscribers_see_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let artnet = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let serve = Serve::start(
        dir.path(),
        &[
            "--bind",
            "127.0.0.1",
            "--no-discovery",
            "--artnet-port",
            &artnet.to_string(),
        ],
    );
    let receiver = Receiver::new();
    let dao = example("dao.gesichter");
    llv()
        .args(["flash", dao.to_str().unwrap(), "--box", &serve.addr()])
        .timeout(TIMEOUT)
        .assert()
        .success();
    let addr = serve.addr();
    llv()
        .args(["box", &addr, "config", "targets", &receiver.target()])
        .timeout(TIMEOUT)
        .assert()
        .success();
    // Timecode from 00:00:00:00 for 5 s; the take's first frame at 00:00:01:00.
    let mut tc = std::process::Command::new(llv_tests::llv_path())
        .args([
            "tc",
            "send",
            "--to",
            &format!("127.0.0.1:{artnet}"),
            "--frames",
            "150",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let got = osc_client(
        "127.0.0.1",
        serve.osc,
        "udp",
        &json!([
            ["/llv/subscribe", 30],
            ["/llv/chase", "dao", "00:00:01:00"],
            ["wait", 3.5],
            ["/llv/status"],
            ["/llv/stop"],
        ]),
    );
    assert!(tc.wait().unwrap().success());
    let states: Vec<&Value> = got
        .iter()
        .filter(|m| m["address"] == "/llv/state")
        .collect();
    let chase: Vec<&str> = states
        .iter()
        .filter_map(|s| s["args"][4].as_str())
        .collect();
    let locked = chase.iter().position(|s| *s == "locked");
    assert!(
        locked.is_some_and(|i| chase[..i].contains(&"locking")),
        "{chase:?}"
    );
    // Once locked, the pushed state carries the timecode chased.
    let timecode = states[locked.unwrap_or(0)]["args"][5]
        .as_str()
        .unwrap_or("");
    assert!(timecode.starts_with("00:00:0"), "{states:?}");
    let r = replies(&got);
    let status = &r.iter().find(|r| r["address"] == "/llv/status").unwrap()["data"];
    assert_eq!(status["playing"]["chase"], "locked", "{status}");
    assert!(status["playing"]["timecode"]
        .as_str()
        .unwrap()
        .starts_with("00:00:0"));
    assert!(receiver.frames(1, Duration::from_millis(100)).len() <= 1);
    let frames_seen = states
        .iter()
        .filter_map(|s| s["args"][2].as_i64())
        .max()
        .unwrap();
    assert!(frames_seen > 60, "{states:?}");
}
