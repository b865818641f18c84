//! `llv play` into `llv record` over loopback, with real sockets and the real binary.

use std::net::UdpSocket;
use std::time::{Duration, Instant};

use llv_tests::{example, interrupt, llv, llv_packets, llv_path, native_packets, Recorder};

#[test]
fn dao_plays_and_records_identically() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dao.gesichter");
    let recorder = Recorder::start(&out, &["--frames", "180"]);
    llv()
        .arg("play")
        .arg(example("dao.gesichter"))
        .args(["--to", &recorder.addr()])
        .timeout(Duration::from_secs(30))
        .assert()
        .success();
    let ended = recorder.wait(Duration::from_secs(10));
    assert!(ended.status.success(), "{}", ended.stderr);
    assert!(
        ended.stdout.contains("recorded 180 frames"),
        "{}",
        ended.stdout
    );
    assert!(
        ended
            .stdout
            .contains("frame-number gaps: 1 (7 frames missing)"),
        "{}",
        ended.stdout
    );
    assert_eq!(native_packets(&out), llv_packets(&example("dao.gesichter")));
}

#[test]
fn all_blendshapes_at_high_rate_records_identically() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("all.gesichter");
    let recorder = Recorder::start(&out, &["--frames", "3660"]);
    llv()
        .arg("play")
        .arg(example("debug-all-blendshapes.gesichter"))
        .args(["--fps", "1000", "--to", &recorder.addr()])
        .timeout(Duration::from_secs(60))
        .assert()
        .success();
    let ended = recorder.wait(Duration::from_secs(10));
    assert!(ended.status.success(), "{}", ended.stderr);
    assert_eq!(
        native_packets(&out),
        llv_packets(&example("debug-all-blendshapes.gesichter"))
    );
}

#[test]
fn every_target_receives_every_frame() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (
        dir.path().join("a.gesichter"),
        dir.path().join("b.gesichter"),
    );
    let first = Recorder::start(&a, &["--frames", "66"]);
    let second = Recorder::start(&b, &["--frames", "66"]);
    llv()
        .arg("play")
        .arg(example("debug-jawopen.gesichter"))
        .args([
            "--fps",
            "240",
            "--to",
            &first.addr(),
            "--to",
            &second.addr(),
        ])
        .timeout(Duration::from_secs(30))
        .assert()
        .success();
    let expected = llv_packets(&example("debug-jawopen.gesichter"));
    for (recorder, path) in [(first, &a), (second, &b)] {
        let ended = recorder.wait(Duration::from_secs(10));
        assert!(ended.status.success(), "{}", ended.stderr);
        assert_eq!(native_packets(path), expected);
    }
}

/// What this can prove on a loaded machine: every frame arrives, and the
/// player never runs ahead of 60 fps (its last deadline is 65/60 s after its
/// first, and it cannot finish before it). How close it keeps to 60 fps is
/// measured by `cargo bench -p llv --bench pacing`, not here.
#[test]
fn llv_spelling_sends_every_frame_no_faster_than_sixty_fps() {
    let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = receiver.local_addr().unwrap().port().to_string();
    // LLV's spelling: --host H --port P, 66 frames at 60 fps.
    let mut play = llv();
    play.arg("play")
        .args(["--host", "127.0.0.1", "--port", &port, "--fps", "60"])
        .arg(example("debug-jawopen.gesichter"))
        .timeout(Duration::from_secs(30));
    let start = Instant::now();
    play.assert().success();
    let took = start.elapsed().as_secs_f64();
    // Never faster than 65 intervals of 1/60 s; slower only by a loaded machine (an order of magnitude at most).
    assert!((65.0 / 60.0..10.0).contains(&took), "took {took} s");
    receiver
        .set_read_timeout(Some(Duration::from_secs(1)))
        .unwrap();
    let mut buf = [0u8; 2048];
    let expected = llv_packets(&example("debug-jawopen.gesichter"));
    for (i, packet) in expected.iter().enumerate() {
        let n = receiver.recv(&mut buf).expect("a frame");
        assert_eq!(&buf[..n], &packet[..], "frame {i}");
    }
}

#[test]
fn looped_restamped_play_keeps_time_increasing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("loop.gesichter");
    let recorder = Recorder::start(&out, &["--frames", "132"]);
    llv()
        .arg("play")
        .arg(example("debug-jawopen.gesichter"))
        .args([
            "--fps",
            "500",
            "--loop",
            "2",
            "--restamp",
            "--rename",
            "Loop",
        ])
        .args(["--to", &recorder.addr()])
        .timeout(Duration::from_secs(30))
        .assert()
        .success();
    let ended = recorder.wait(Duration::from_secs(10));
    assert!(ended.status.success(), "{}", ended.stderr);
    assert!(
        ended.stdout.contains("subject \"Loop\": 132 frames"),
        "{}",
        ended.stdout
    );
    assert!(
        ended.stdout.contains("frame-number gaps: 0"),
        "{}",
        ended.stdout
    );
    let info = llv()
        .args(["info", "--json"])
        .arg(&out)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let info = String::from_utf8(info).unwrap();
    assert!(info.contains("\"backward_jumps\":0"), "{info}");
    assert!(info.contains("\"last\":{\"frame_number\":1468"), "{info}");
}

#[test]
fn endless_loop_stops_on_ctrl_c() {
    let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
    let target = receiver.local_addr().unwrap().to_string();
    let mut player = std::process::Command::new(llv_path())
        .arg("play")
        .arg(example("debug-jawopen.gesichter"))
        .args(["--loop", "--to", &target])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    receiver
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut buf = [0u8; 2048];
    // More than one pass of 66 frames arrives, then Ctrl-C.
    for _ in 0..70 {
        receiver.recv(&mut buf).expect("a frame");
    }
    interrupt(&player);
    let start = Instant::now();
    let status = loop {
        if let Some(status) = player.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(10) {
            let _ = player.kill();
            panic!("llv play did not stop on SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut player.stdout.take().unwrap(), &mut stdout).unwrap();
    assert!(stdout.starts_with("stopped after"), "{stdout}");
}
