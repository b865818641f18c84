//! `llv play --chase` against a timecode generator of this test on 127.0.0.1:
//! after lock, every frame that arrives is the take's frame for the timecode
//! of that moment (within a timecode frame); a 2 s dropout freewheels and
//! re-locks; a 10 s jump locates; bad packets are counted and ignored. Also
//! `llv tc send`, checked by this test's own receiver.

use std::io::Read;
use std::net::UdpSocket;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use llv_core::artnet::{ArtTimeCode, TimecodeKind, LEN};
use llv_core::packet::Packet;
use llv_tests::{example, interrupt, llv, llv_packets, llv_path};

/// One 30 fps timecode frame.
const FRAME: Duration = Duration::from_micros(33_333);
/// The timecode the take's first frame plays at.
const OFFSET: &str = "01:00:00:00";
const OFFSET_US: u64 = 3_600_000_000;

/// What the generator did: its timeline (timecode µs at each instant) in pieces.
struct Timeline {
    /// (instant, timecode µs at that instant): the timecode runs from there at 1x.
    pieces: Vec<(Instant, u64)>,
    /// When timecode was not sent (dropouts) or jumped: arrivals near these are not judged.
    breaks: Vec<(Instant, Instant)>,
}

impl Timeline {
    fn at(&self, t: Instant) -> Option<u64> {
        let (start, tc) = self.pieces.iter().rev().find(|(s, _)| *s <= t)?;
        Some(tc + (t - *start).as_micros() as u64)
    }

    fn near_break(&self, t: Instant) -> bool {
        let margin = Duration::from_millis(300);
        self.breaks
            .iter()
            .any(|(from, to)| t + margin >= *from && t <= *to + margin)
    }
}

/// Sends 30 fps timecode from 01:00:00:00 to `port`: 4 s, a 2 s dropout (the
/// timeline runs on), 3 s, a jump 10 s ahead, 3 s; and three bad packets.
fn generate(port: u16) -> Timeline {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    let target = ("127.0.0.1", port);
    let kind = TimecodeKind::Smpte30;
    let start = ArtTimeCode::parse(&{
        let mut b = [0u8; LEN];
        ArtTimeCode::from_frame_count(108_000, kind, 0)
            .emit(&mut b)
            .unwrap();
        b
    })
    .unwrap();
    assert_eq!(start.to_string(), "01:00:00:00");
    let began = Instant::now();
    let mut timeline = Timeline {
        pieces: vec![(began, OFFSET_US)],
        breaks: Vec::new(),
    };
    // (first frame, frames): frame counts on the timecode's own timeline.
    let send = |from: u64, count: u64, jump: u64| {
        let mut buf = [0u8; LEN];
        for i in from..from + count {
            let due = began + FRAME * i as u32;
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                thread::sleep(wait);
            }
            let tc = ArtTimeCode::from_frame_count((108_000 + i + jump) as u32, kind, 0);
            tc.emit(&mut buf).unwrap();
            socket.send_to(&buf, target).unwrap();
        }
    };
    send(0, 120, 0);
    // Bad packets: not Art-Net, another operation, a frame past the rate.
    let mut buf = [0u8; LEN];
    start.emit(&mut buf).unwrap();
    socket.send_to(b"garbage", target).unwrap();
    let mut other = buf;
    other[9] = 0x50;
    socket.send_to(&other, target).unwrap();
    let mut bad = buf;
    bad[14] = 31;
    socket.send_to(&bad, target).unwrap();
    let dropout = (began + FRAME * 120, began + FRAME * 180);
    timeline.breaks.push(dropout);
    send(180, 90, 0);
    let jump_at = began + FRAME * 270;
    timeline.breaks.push((jump_at, jump_at));
    // From frame 270 on, the timecode is 300 frames (10 s) ahead.
    timeline
        .pieces
        .push((jump_at, OFFSET_US + TimecodeKind::Smpte30.micros(270 + 300)));
    send(270, 90, 300);
    timeline
}

#[test]
fn play_follows_timecode_through_a_dropout_and_a_jump() {
    let take = example("debug-all-blendshapes.gesichter");
    let packets = llv_packets(&take);
    let first = Packet::new_checked(&packets[0]).unwrap().time();
    // The generator's port, then the receiver's.
    let tc_port = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
    receiver
        .set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    let rx = receiver.local_addr().unwrap();
    let mut child = Command::new(llv_path())
        .arg("play")
        .arg(&take)
        .args(["--chase", &format!("artnet:{tc_port}"), "--offset", OFFSET])
        .args(["--to", &rx.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let receiving = {
        let done = done.clone();
        thread::spawn(move || {
            let mut got = Vec::new();
            let mut buf = [0u8; 2048];
            let end = Instant::now() + Duration::from_secs(40);
            while !done.load(Ordering::Relaxed) && Instant::now() < end {
                if let Ok(n) = receiver.recv(&mut buf) {
                    got.push((Instant::now(), buf[..n].to_vec()));
                }
            }
            got
        })
    };
    // Let llv bind its port first.
    thread::sleep(Duration::from_millis(500));
    let timeline = generate(tc_port);
    thread::sleep(Duration::from_millis(200));
    interrupt(&child);
    done.store(true, Ordering::Relaxed);
    let got = receiving.join().unwrap();
    let status = child.wait().unwrap();
    let (mut stdout, mut stderr) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(status.success(), "{stderr}");

    // Every frame, judged where the timeline has no break: its take time
    // placed at 01:00:00:00 is the timecode of its arrival, within a frame.
    let mut errors = Vec::new();
    for (at, packet) in &got {
        let Some(tc) = timeline.at(*at) else { continue };
        if timeline.near_break(*at) {
            continue;
        }
        let take_us = Packet::new_checked(packet)
            .unwrap()
            .time()
            .seconds_since(&first)
            .unwrap()
            * 1e6;
        let error_ms = (take_us - (tc - OFFSET_US) as f64) / 1e3;
        errors.push(error_ms);
    }
    assert!(
        errors.len() > 400,
        "{} frames judged of {}",
        errors.len(),
        got.len()
    );
    errors.sort_by(f64::total_cmp);
    let p = |q: f64| errors[((errors.len() - 1) as f64 * q) as usize];
    eprintln!(
        "chase error (take time - timecode), ms: p1 {:.1} p50 {:.1} p99 {:.1}, {} frames",
        p(0.01),
        p(0.5),
        p(0.99),
        errors.len()
    );
    // A frame is sent when its time comes: it may be up to one take frame
    // (16.7 ms) behind the timecode, never ahead; one timecode frame either way.
    let frame_ms = FRAME.as_secs_f64() * 1e3;
    assert!(p(0.01) > -frame_ms && p(0.99) < frame_ms, "{errors:?}");

    // Frames went on through the dropout: some arrived inside it.
    let (from, to) = timeline.breaks[0];
    let inside = got
        .iter()
        .filter(|(at, _)| *at > from + Duration::from_millis(300) && *at < to)
        .count();
    assert!(inside > 60, "{inside} frames during the 2 s dropout");
    // The states, in order, and the summary.
    let states: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("chase: "))
        .collect();
    assert_eq!(
        states,
        [
            "waiting for timecode",
            "locking",
            "locked",
            "freewheel (timecode lost)",
            "locked",
            "freewheel (timecode lost)"
        ],
        "{stderr}"
    );
    assert!(stdout.contains("1 locates"), "{stdout}");
    assert!(stdout.contains("2 bad packets"), "{stdout}");
    assert!(stdout.contains("1 other Art-Net packets"), "{stdout}");
    assert!(stdout.contains("300 timecode frames received"), "{stdout}");
}

#[test]
fn tc_send_sends_timecode_at_its_rate() {
    let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = receiver.local_addr().unwrap().port();
    receiver
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let sending = thread::spawn(move || {
        llv()
            .args(["tc", "send", "--start", "00:59:59;28", "--rate", "29.97"])
            .args(["--to", &format!("127.0.0.1:{port}"), "--frames", "60"])
            .timeout(Duration::from_secs(30))
            .assert()
            .success()
    });
    let mut buf = [0u8; 64];
    let mut got = Vec::new();
    let start = Instant::now();
    while got.len() < 60 {
        let n = receiver.recv(&mut buf).expect("timecode within 5 s");
        got.push(ArtTimeCode::parse(&buf[..n]).unwrap());
    }
    let took = start.elapsed();
    sending.join().unwrap();
    assert!(got.iter().all(|t| t.kind == TimecodeKind::DropFrame2997));
    // Drop-frame: after 00:59:59;29 comes 01:00:00;00 (a tenth minute keeps ;00 and ;01)...
    assert_eq!(got[1].to_string(), "00:59:59;29");
    assert_eq!(got[2].to_string(), "01:00:00;00");
    // ...and each frame is the one after the last.
    for pair in got.windows(2) {
        assert_eq!(
            pair[1].frame_count(),
            pair[0].frame_count() + 1,
            "{} {}",
            pair[0],
            pair[1]
        );
    }
    // 59 frames at 29.97 fps: about 2 s (an order of magnitude, not a rate figure).
    assert!(
        took > Duration::from_millis(1500) && took < Duration::from_secs(10),
        "{took:?}"
    );
    // A broadcast address needs asking for.
    llv()
        .args(["tc", "send", "--to", "255.255.255.255", "--frames", "1"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("add --broadcast"));
}
