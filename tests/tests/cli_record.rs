//! `llv record` against hand-made datagrams: what it keeps, what it counts,
//! and what survives a SIGKILL.

use std::net::UdpSocket;
use std::path::Path;
use std::time::{Duration, Instant};

use llv_core::blendshape::COUNT;
use llv_core::packet::{FaceFrame, Header, MAX_LEN};
use llv_core::time::{FrameRate, FrameTime};
use llv_tests::{llv, native_packets, Recorder};
use predicates::str::contains;

fn time(frame_number: i32) -> FrameTime {
    FrameTime {
        frame_number,
        subframe: 0.25,
        rate: FrameRate::FPS_60,
    }
}

fn face(subject: &str, frame_number: i32) -> Vec<u8> {
    let mut blendshapes = [0.0f32; COUNT];
    blendshapes[17] = frame_number as f32 / 1000.0;
    let frame = FaceFrame {
        version: 6,
        device_id: "5D3C2B1A-0000-4000-8000-00000000ABCD",
        subject,
        time: time(frame_number),
        blendshapes,
    };
    let mut buf = [0u8; MAX_LEN];
    let len = frame.encode(&mut buf).unwrap();
    buf[..len].to_vec()
}

fn no_face(frame_number: i32) -> Vec<u8> {
    let header = Header {
        version: 6,
        device_id: "5D3C2B1A-0000-4000-8000-00000000ABCD",
        subject: "iPhone",
        time: time(frame_number),
    };
    let mut buf = [0u8; MAX_LEN];
    let len = header.encode(&mut buf).unwrap();
    buf[..len].to_vec()
}

/// A MetaHuman Animator datagram: LE u16 version, u16 id length + id, 16 bytes of
/// frame time, u16 count + count * u16, 6 f32.
fn metahuman_animator() -> Vec<u8> {
    let id = b"iPhone";
    let mut p = Vec::new();
    p.extend_from_slice(&1u16.to_le_bytes());
    p.extend_from_slice(&(id.len() as u16).to_le_bytes());
    p.extend_from_slice(id);
    p.extend_from_slice(&[0u8; 16]);
    p.extend_from_slice(&3u16.to_le_bytes());
    for v in [10u16, 20, 30] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    for v in [0.0f32, 0.1, 0.2, 0.3, 0.4, 0.5] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    p
}

fn send_all(to: &str, datagrams: &[Vec<u8>]) {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    for d in datagrams {
        socket.send_to(d, to).unwrap();
    }
}

#[test]
fn non_face_datagrams_are_counted_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("counts.gesichter");
    let recorder = Recorder::start(&out, &["--frames", "3"]);
    let mut wrong_count = face("iPhone", 1);
    let count_at = wrong_count.len() - COUNT * 4 - 1;
    wrong_count[count_at] = 52;
    let datagrams = vec![
        no_face(1),
        metahuman_animator(),
        face("iPhone", 10),
        vec![0xff; 40],
        no_face(2),
        metahuman_animator(),
        wrong_count,
        metahuman_animator(),
        face("iPhone", 11),
        face("iPhone", 14),
    ];
    send_all(&recorder.addr(), &datagrams);
    let ended = recorder.wait(Duration::from_secs(10));
    assert!(ended.status.success(), "{}", ended.stderr);
    assert!(
        ended.stdout.contains("recorded 3 frames"),
        "{}",
        ended.stdout
    );
    assert!(
        ended
            .stdout
            .contains("skipped: 2 no-face, 2 invalid, 3 MetaHuman Animator, 0 other subject"),
        "{}",
        ended.stdout
    );
    assert!(
        ended
            .stdout
            .contains("frame-number gaps: 1 (2 frames missing)"),
        "{}",
        ended.stdout
    );
    assert!(ended
        .stderr
        .contains("switch the Live Link Face app's capture mode to ARKit"));
    assert_eq!(
        native_packets(&out),
        [face("iPhone", 10), face("iPhone", 11), face("iPhone", 14)]
    );
}

#[test]
fn subject_filter_keeps_one_subject() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("subject.gesichter");
    let recorder = Recorder::start(&out, &["--frames", "2", "--subject", "Hero"]);
    send_all(
        &recorder.addr(),
        &[
            face("Extra", 1),
            face("Hero", 2),
            face("Extra", 3),
            face("Hero", 4),
        ],
    );
    let ended = recorder.wait(Duration::from_secs(10));
    assert!(
        ended
            .stdout
            .contains("0 invalid, 0 MetaHuman Animator, 2 other subject"),
        "{}",
        ended.stdout
    );
    assert_eq!(native_packets(&out), [face("Hero", 2), face("Hero", 4)]);
}

fn complete_lines(path: &Path) -> usize {
    std::fs::read(path)
        .map(|bytes| bytes.iter().filter(|b| **b == b'\n').count())
        .unwrap_or(0)
}

#[test]
fn a_killed_recording_keeps_every_frame_received() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("killed.gesichter");
    let recorder = Recorder::start(&out, &[]);
    let frames: Vec<Vec<u8>> = (0..200).map(|n| face("iPhone", 1000 + n)).collect();
    for chunk in frames.chunks(20) {
        send_all(&recorder.addr(), chunk);
        std::thread::sleep(Duration::from_millis(5));
    }
    // Everything received is flushed once the socket is drained: wait for it, bounded.
    let start = Instant::now();
    while complete_lines(&out) < 200 && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let ended = recorder.kill();
    assert!(!ended.status.success());
    assert_eq!(native_packets(&out), frames);
    // A line cut by a kill mid-write reads back as a warning, not an error.
    let mut bytes = std::fs::read(&out).unwrap();
    let half = bytes[..200].to_vec();
    bytes.extend_from_slice(&half);
    std::fs::write(&out, bytes).unwrap();
    llv()
        .args(["info", "--json"])
        .arg(&out)
        .assert()
        .success()
        .stdout(contains("\"frames\":200"))
        .stderr(contains(
            "line 201: partial last line (200 characters, no line end) skipped",
        ));
}

#[test]
fn recording_stops_after_its_duration() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("timed.gesichter");
    let start = Instant::now();
    let recorder = Recorder::start(&out, &["--duration", "0.5"]);
    send_all(&recorder.addr(), &[face("iPhone", 1)]);
    let ended = recorder.wait(Duration::from_secs(10));
    assert!(ended.status.success(), "{}", ended.stderr);
    assert!(start.elapsed() >= Duration::from_millis(500));
    assert_eq!(native_packets(&out), [face("iPhone", 1)]);
}

#[test]
fn an_existing_file_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("keep.gesichter");
    std::fs::write(&out, "precious\n").unwrap();
    llv()
        .args([
            "record",
            "--bind",
            "127.0.0.1",
            "--port",
            "0",
            "--frames",
            "1",
            "-o",
        ])
        .arg(&out)
        .timeout(Duration::from_secs(10))
        .assert()
        .failure()
        .stderr(contains("cannot create (it is never overwritten)"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious\n");
}

#[test]
fn ctrl_c_ends_a_recording_cleanly_with_its_summary() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ctrl-c.gesichter");
    let recorder = Recorder::start(&out, &[]);
    let frames: Vec<Vec<u8>> = (0..5).map(|n| face("iPhone", 100 + n)).collect();
    send_all(&recorder.addr(), &frames);
    let start = Instant::now();
    while complete_lines(&out) < 5 && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(10));
    }
    recorder.interrupt();
    let ended = recorder.wait(Duration::from_secs(10));
    assert!(ended.status.success(), "{}", ended.stderr);
    assert!(
        ended.stdout.contains("recorded 5 frames"),
        "{}",
        ended.stdout
    );
    assert_eq!(native_packets(&out), frames);
}

#[test]
fn a_flood_of_invented_subjects_stops_on_time_with_a_bounded_summary() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("flood.gesichter");
    let started = Instant::now();
    let recorder = Recorder::start(&out, &["--duration", "0.5"]);
    let addr = recorder.addr();
    let done = Arc::new(AtomicBool::new(false));
    let flooding = Arc::clone(&done);
    let sender = std::thread::spawn(move || {
        let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut packet = face("subject-00000000", 1);
        let at = packet
            .windows(16)
            .position(|w| w == b"subject-00000000")
            .unwrap()
            + 8;
        // An invented subject per datagram, as fast as loopback takes them;
        // bounded in time (30 s) and count (20 million).
        let mut state = 0x9E37_79B9_u32;
        let mut sent = 0u64;
        let flood_start = Instant::now();
        while !flooding.load(Ordering::Relaxed)
            && flood_start.elapsed() < Duration::from_secs(30)
            && sent < 20_000_000
        {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            packet[at..at + 8].copy_from_slice(format!("{state:08x}").as_bytes());
            let _ = socket.send_to(&packet, &addr);
            sent += 1;
        }
        sent
    });
    let ended = recorder.wait(Duration::from_secs(20));
    let took = started.elapsed();
    done.store(true, Ordering::Relaxed);
    let sent = sender.join().unwrap();
    assert!(ended.status.success(), "{}", ended.stderr);
    // It stopped under the flood: within an order of magnitude of its 0.5 s
    // (startup included), not when the flood ended.
    assert!(took < Duration::from_secs(10), "took {took:?}");
    let named = ended.stdout.matches("\nsubject \"").count();
    assert!(
        (1..=16).contains(&named),
        "{named} subjects named:\n{}",
        ended.stdout
    );
    let recorded: u64 = ended
        .stdout
        .strip_prefix("recorded ")
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{}", ended.stdout));
    assert!(recorded > 16 && recorded <= sent, "{recorded} of {sent}");
    assert!(
        ended.stdout.contains(&format!(
            "subjects after the first 16: {} frames",
            recorded - 16
        )),
        "{}",
        ended.stdout
    );
}
