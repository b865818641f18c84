//! End to end: the box under QEMU meets the faults of a stage, with no
//! traffic leaving the machine (QEMU's user network and a documentation
//! address, 192.0.2.1, that a box with a static address and no gateway cannot
//! route to).
//!
//! Checks: a dead target holds up no other, its drops are counted in
//! `llv box status`, and a stop ends playback at once; clients that connect
//! and trickle bytes do not lock the operator out; a setting that would brick
//! the box is refused by the box itself; one stored by older firmware is
//! ignored and reported, and the box comes up on the network.
//!
//! Needs `qemu-system-arm` and the `thumbv7em-none-eabihf` target (see
//! `box_qemu.rs`). Lives in the root `tests` crate.

use std::io::Write;
use std::net::{TcpStream, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use llv_core::control::{ErrorCode, Request, Response};
use llv_core::settings::{Setting, StaticAddress};
use llv_tests::{example, llv_packets};

use flash_box::*;
use llv_tests::flash_box;
use llv_tests::qemu;

/// A box with a static address and no gateway: 192.0.2.1 has no route.
const NO_GATEWAY: &str = "dhcp=off static=10.0.2.15/24 gw=none";
/// A target nothing can reach.
const DEAD: &str = "192.0.2.1:11111";

#[test]
fn a_dead_target_holds_up_no_other_and_a_stop_ends_playback_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let b = QemuBox::boot_with(firmware(), &dir.path().join("flash.bin"), NO_GATEWAY);
    flash_dao(&b);
    let expected = llv_packets(&example("dao.gesichter"));

    // Once through: the good target gets every frame, in order, bit-exact, in
    // about the take's 3 s (an order of magnitude, not a rate figure).
    let (socket, good) = receiver();
    let started = Instant::now();
    b.llv(&["box", "{box}", "play", "dao", "--to", &good, "--to", DEAD])
        .success();
    let got = receive(&socket, expected.len(), PLAY_TIMEOUT);
    let took = started.elapsed();
    assert_count(&got, &expected);
    for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
        assert_eq!(g, e, "frame {i}");
    }
    assert!(
        took > Duration::from_secs(2) && took < Duration::from_secs(10),
        "180 frames at 60 fps took {took:?}"
    );

    // Looping: the status counts the dead target's drops while it plays.
    let (socket, good) = receiver();
    b.llv(&[
        "box", "{box}", "play", "dao", "--to", &good, "--to", DEAD, "--loop",
    ])
    .success();
    let got = receive(&socket, 240, PLAY_TIMEOUT);
    assert_eq!(got.len(), 240, "frames into the second loop");
    let status = b.json(&["box", "{box}", "status", "--json"]);
    let targets = &status["playing"]["targets"];
    assert_eq!(
        targets[0]["target"]["port"],
        good.rsplit(':').next().unwrap().parse::<u16>().unwrap(),
        "{status}"
    );
    assert_eq!(targets[0]["dropped"], 0, "{status}");
    assert!(targets[0]["sent"].as_u64().unwrap() >= 240, "{status}");
    assert_eq!(
        targets[1]["target"]["ip"],
        serde_json::json!([192, 0, 2, 1])
    );
    assert!(targets[1]["dropped"].as_u64().unwrap() >= 200, "{status}");

    // Stop: the frames stop at once (what was in flight aside).
    b.llv(&["box", "{box}", "stop"]).success();
    let stopped = Instant::now();
    let after = receive(&socket, 1000, Duration::from_secs(1));
    assert!(after.len() <= 3, "{} frames after the stop", after.len());
    assert!(stopped.elapsed() >= Duration::from_secs(1));
    let status = b.json(&["box", "{box}", "status", "--json"]);
    assert_eq!(status["playing"], serde_json::Value::Null, "{status}");
}

#[test]
fn clients_that_trickle_bytes_do_not_lock_the_operator_out() {
    let dir = tempfile::tempdir().unwrap();
    let b = QemuBox::boot(&dir.path().join("flash.bin"));
    // Six connections that each send the first byte of a frame, then nothing:
    // twice as many as the box has listening sockets.
    let mut tricklers = Vec::new();
    for _ in 0..6 {
        let mut s = TcpStream::connect(("127.0.0.1", b.port)).unwrap();
        s.write_all(&[0x03]).unwrap();
        tricklers.push(s);
        std::thread::sleep(Duration::from_millis(50));
    }
    let asked = Instant::now();
    let status = b.json(&["box", "{box}", "status", "--json"]);
    let took = asked.elapsed();
    assert_eq!(status["firmware"], "llv-box-qemu 0.1.0", "{status}");
    assert!(took < Duration::from_secs(1), "status took {took:?}");
    eprintln!("llv box status beside 6 trickling clients: {took:?}");
}

#[test]
fn a_setting_that_would_brick_the_box_is_refused_by_the_box() {
    let dir = tempfile::tempdir().unwrap();
    let flash = dir.path().join("flash.bin");
    let b = QemuBox::boot(&flash);
    // What the review sent: Address 10.0.2.15/33, which smoltcp asserts on.
    let mut s = connect(b.port).unwrap();
    let bad = Request::SetSettings {
        changes: [Setting::Address(Some(StaticAddress {
            ip: [10, 0, 2, 15],
            prefix_len: 33,
            gateway: None,
        }))]
        .into_iter()
        .collect(),
    };
    let r = exchange(&mut s, &framed(&bad)).unwrap();
    let Response::Error { code, detail } = r else {
        panic!("{r:?}")
    };
    assert_eq!(code, ErrorCode::Invalid);
    assert_eq!(
        detail.as_str(),
        "address 10.0.2.15/33: not a usable host address and gateway"
    );
    drop(s);
    drop(b);
    // It was never stored: the box comes back, on DHCP, with no fault.
    let b = QemuBox::boot(&flash);
    let status = b.json(&["box", "{box}", "status", "--json"]);
    assert_eq!(status["address"], serde_json::json!([10, 0, 2, 15]));
    assert_eq!(status["faults"], serde_json::json!([]), "{status}");
}

#[test]
fn a_bad_setting_stored_by_older_firmware_is_ignored_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let flash = dir.path().join("flash.bin");
    // A schema 1 settings record (firmware before this one did not check
    // settings) holding Address 10.0.2.15/33, at the start of the settings log.
    let payload = [0x00, 0x00, 0x00, 0x01, 10, 0, 2, 15, 33, 0x00, 0x00];
    let mut record = b"LLVS".to_vec();
    record.extend(1u32.to_le_bytes());
    record.extend((payload.len() as u16).to_le_bytes());
    record.extend([0xFF, 0xFF]);
    let crc = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC)
        .checksum(&[&record[4..10], &payload[..]].concat());
    record.extend(crc.to_le_bytes());
    record.extend(payload);
    record.resize(32, 0xFF);
    let mut image = vec![0xFF; 4 << 20];
    image[..32].copy_from_slice(&record);
    std::fs::write(&flash, image).unwrap();

    let b = QemuBox::boot(&flash);
    let status = b.json(&["box", "{box}", "status", "--json"]);
    // The bad address is not used: DHCP gave the box its address.
    assert_eq!(status["address"], serde_json::json!([10, 0, 2, 15]));
    let faults = status["faults"].as_array().unwrap();
    assert_eq!(faults.len(), 1, "{status}");
    assert_eq!(faults[0]["code"], "BadStoredSetting");
    assert_eq!(
        faults[0]["detail"],
        "stored address 10.0.2.15/33: not a usable host address and gateway: ignored"
    );
    // The record is kept as it was until someone changes the settings.
    let c = b.json(&["box", "{box}", "config", "--json"]);
    assert_eq!(c["settings"]["address"]["prefix_len"], 33, "{c}");
    b.llv(&["box", "{box}", "config", "address", "dhcp"])
        .success();
    let status = b.json(&["box", "{box}", "status", "--json"]);
    assert_eq!(status["faults"], serde_json::json!([]), "{status}");
}

#[test]
fn a_factory_reset_clears_the_settings_and_keeps_the_takes() {
    let dir = tempfile::tempdir().unwrap();
    let flash = dir.path().join("flash.bin");
    let b = QemuBox::boot(&flash);
    let crc = flash_dao(&b);
    b.llv(&[
        "box", "{box}", "config", "autoplay", "dao", "subject", "Locked", "token", "s3cret",
    ])
    .success();
    drop(b);
    // Nobody knows the token any more: the crew resets the settings at power-up.
    let b = QemuBox::boot_with(firmware(), &flash, "factory_reset=on");
    assert_only_dao(&b, &crc);
    let c = b.json(&["box", "{box}", "config", "--json"]);
    assert_eq!(c["token_set"], false, "{c}");
    assert_eq!(c["settings"]["autoplay"], serde_json::Value::Null, "{c}");
    assert_eq!(c["settings"]["subject"], serde_json::Value::Null, "{c}");
    let status = b.json(&["box", "{box}", "status", "--json"]);
    assert_eq!(status["faults"][0]["code"], "FactoryReset", "{status}");
    assert_plays_dao(&b);
}

#[test]
fn the_watchdog_restarts_a_hung_box_which_plays_again() {
    let elf = qemu::build_firmware_with(&llv_tests::repo_root(), &["test-faults"]);
    let dir = tempfile::tempdir().unwrap();
    let flash = dir.path().join("flash.bin");
    let (socket, target) = receiver();
    let b = QemuBox::boot_with(&elf, &flash, "");
    flash_dao(&b);
    b.llv(&[
        "box",
        "{box}",
        "config",
        "targets",
        &target,
        "autoplay",
        "dao",
        "autoplay-loops",
        "0",
    ])
    .success();
    drop(b);

    // Receive while the box autoplays, hangs 5 s after power-up, and restarts,
    // until 400 frames after the longest gap (at most 30 s).
    let receiving = std::thread::spawn(move || {
        let mut got: Vec<(Instant, Vec<u8>)> = Vec::new();
        let mut buf = [0u8; 2048];
        let end = Instant::now() + Duration::from_secs(30);
        let mut since_gap = 0;
        while Instant::now() < end && since_gap < 400 {
            if let Ok(n) = socket.recv(&mut buf) {
                let now = Instant::now();
                let gap = got
                    .last()
                    .is_some_and(|(at, _)| now - *at > Duration::from_secs(2));
                since_gap = if gap {
                    1
                } else if since_gap > 0 {
                    since_gap + 1
                } else {
                    0
                };
                got.push((now, buf[..n].to_vec()));
            }
        }
        got
    });
    let b = QemuBox::boot_with(&elf, &flash, "hang_after_ms=5000");
    let got = receiving.join().unwrap();
    let (gap_at, gap) = got
        .windows(2)
        .map(|w| (w[0].0, w[1].0 - w[0].0))
        .max_by_key(|(_, gap)| *gap)
        .expect("frames");
    let after: Vec<_> = got.iter().filter(|(at, _)| *at > gap_at).collect();
    eprintln!(
        "hang -> frames again: {gap:?}; {} frames before, {} after",
        got.len() - after.len(),
        after.len()
    );
    // The watchdog resets 4 s after the last feed; the box boots and autoplays.
    assert!(
        gap > Duration::from_secs(3) && gap < Duration::from_secs(10),
        "longest gap {gap:?}"
    );
    assert!(
        after.len() > 300,
        "{} frames after the restart",
        after.len()
    );
    let expected = llv_packets(&example("dao.gesichter"));
    assert_eq!(
        after[0].1, expected[0],
        "the autoplay starts again at frame 0"
    );
    let status = b.json(&["box", "{box}", "status", "--json"]);
    assert_eq!(status["faults"][0]["code"], "WatchdogReset", "{status}");
    assert_eq!(status["playing"]["take"], "dao", "{status}");
}

#[test]
fn an_upload_while_a_take_plays_makes_no_frame_wait_for_an_erase() {
    let dir = tempfile::tempdir().unwrap();
    let b = QemuBox::boot(&dir.path().join("flash.bin"));
    flash_dao(&b);
    let (socket, target) = receiver();
    b.llv(&["box", "{box}", "play", "dao", "--to", &target, "--loop"])
        .success();
    let done = Arc::new(AtomicBool::new(false));
    let receiving = {
        let done = done.clone();
        std::thread::spawn(move || receive_until(&socket, &done, Duration::from_secs(60)))
    };
    // 1.2 MB: ten 128 KiB blocks, each erase 1.1 s while the store is held.
    let big = example("debug-all-blendshapes.gesichter")
        .display()
        .to_string();
    let started = Instant::now();
    b.llv(&["flash", &big, "--box", "{box}"]).success();
    let upload = started.elapsed();
    let status = b.json(&["box", "{box}", "status", "--json"]);
    let playing = &status["playing"];
    let (late, max_late) = (
        playing["late_frames"].as_u64().unwrap(),
        playing["max_late_us"].as_u64().unwrap(),
    );
    eprintln!(
        "upload of 1.2 MB while playing: {upload:?}; {late} frames late, latest by {max_late} us"
    );
    b.llv(&["box", "{box}", "stop"]).success();
    done.store(true, Ordering::Relaxed);
    let got = receiving.join().unwrap();
    assert!(
        upload > Duration::from_secs(11),
        "ten erases take 11 s: {upload:?}"
    );
    // Without the read-ahead every erase would hold a frame for 1.1 s; what
    // is left is the host's scheduling of QEMU.
    assert!(
        max_late < 100_000,
        "a frame was {max_late} us late: {status}"
    );
    let expected = 60.0 * upload.as_secs_f64();
    assert!(
        got.len() as f64 > 0.9 * expected,
        "{} frames during {upload:?}",
        got.len()
    );
}

/// Datagrams until `done` is set and the socket has been quiet for 200 ms, at most `limit`.
fn receive_until(socket: &UdpSocket, done: &AtomicBool, limit: Duration) -> Vec<Vec<u8>> {
    let end = Instant::now() + limit;
    let mut got = Vec::new();
    let mut buf = [0u8; 2048];
    let mut quiet_since = Instant::now();
    while Instant::now() < end {
        match socket.recv(&mut buf) {
            Ok(n) => {
                got.push(buf[..n].to_vec());
                quiet_since = Instant::now();
            }
            Err(_)
                if done.load(Ordering::Relaxed)
                    && quiet_since.elapsed() > Duration::from_millis(200) =>
            {
                break
            }
            Err(_) => {}
        }
    }
    got
}
