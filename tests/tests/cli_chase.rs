//! `llv play --chase` against a timecode generator of this test on 127.0.0.1:
//! the real phone take (30 Hz numbered at 60 fps) plays every frame once and
//! in order, at its own timecode and through midnight; a hold keeps sending
//! the held frame; after lock, every frame that arrives is the take's frame
//! for the timecode of that moment (within a timecode frame); a 2 s dropout
//! freewheels and re-locks; a 10 s jump locates; bad packets are counted and
//! ignored. Also `llv tc send`, checked by this test's own receiver.

use std::io::{BufRead, Read};
use std::net::{SocketAddr, UdpSocket};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use llv_core::artnet::{ArtTimeCode, TimecodeKind, LEN};
use llv_core::packet::Packet;
use llv_tests::phone::{phone_take, TakeFrames};
use llv_tests::sync::Master;
use llv_tests::{example, interrupt, llv, llv_packets, llv_path};

/// A running `llv play --chase`, its standard error read as it comes.
struct Chasing {
    child: Child,
    stderr: JoinHandle<String>,
}

impl Chasing {
    /// Starts `llv play TAKE --chase artnet:PORT --to RX ARGS` and waits (at
    /// most 60 s) until it says it waits for timecode: its port is bound then.
    fn start(take: &Path, tc_port: u16, rx: SocketAddr, args: &[&str]) -> Chasing {
        let mut child = Command::new(llv_path())
            .arg("play")
            .arg(take)
            .args(["--chase", &format!("artnet:{tc_port}")])
            .args(["--to", &rx.to_string()])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (ready_tx, ready_rx) = mpsc::channel();
        let stderr = thread::spawn(move || {
            let mut all = String::new();
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                if line == "chase: waiting for timecode" {
                    let _ = ready_tx.send(());
                }
                all.push_str(&line);
                all.push('\n');
            }
            all
        });
        if ready_rx.recv_timeout(Duration::from_secs(60)).is_err() {
            let _ = child.kill();
            panic!("llv never waited for timecode: {}", stderr.join().unwrap());
        }
        Chasing { child, stderr }
    }

    /// Ctrl-C, then its exit status, standard output and standard error.
    fn finish(mut self) -> (ExitStatus, String, String) {
        interrupt(&self.child);
        let status = self.child.wait().unwrap();
        let mut stdout = String::new();
        self.child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut stdout)
            .unwrap();
        (status, stdout, self.stderr.join().unwrap())
    }
}

/// A receiver on 127.0.0.1 and an unused port for the timecode.
fn ports() -> (UdpSocket, SocketAddr, u16) {
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
    (receiver, rx, tc_port)
}

/// 30 fps timecode frames from `label` (`HH:MM:SS`), as the master counts.
fn count_at(h: u8, m: u8, s: u8) -> u32 {
    TimecodeKind::Smpte30.rate().count_of((h, m, s, 0)).unwrap()
}

/// Chases `take` (300 rows of the phone take) from `start` for `frames`
/// master frames; returns what arrived and what llv said.
fn chase_phone(
    take: &Path,
    dir: &Path,
    start: u32,
    frames: u32,
    linger: Duration,
    args: &[&str],
) -> (TakeFrames, Instant, Vec<(Instant, u32)>, String, String) {
    let frames_of = TakeFrames::of(take, dir);
    let (receiver, rx, tc_port) = ports();
    let chasing = Chasing::start(take, tc_port, rx, args);
    let master = Master {
        start,
        frames,
        dropout: None,
        jump: None,
    };
    let (t0, generator) = master.start(vec![tc_port]);
    let end = t0 + Duration::from_micros(TimecodeKind::Smpte30.micros(u64::from(frames))) + linger;
    let got = frames_of.arrivals(&receiver, end);
    generator.join().unwrap();
    let (status, stdout, stderr) = chasing.finish();
    assert!(status.success(), "{stderr}");
    (frames_of, t0, got, stdout, stderr)
}

#[test]
fn a_phone_take_plays_every_frame_once_and_in_order() {
    // 300 rows (10 s) from 13:13:04:31.652 at its own timecode; timecode from
    // 13:13:03:00 to 13:13:16:00.
    let dir = tempfile::tempdir().unwrap();
    let take = phone_take(dir.path(), "phone.csv", 300, None);
    let start = count_at(13, 13, 3);
    let (frames, t0, got, stdout, _) = chase_phone(
        &take,
        dir.path(),
        start,
        13 * 30,
        Duration::from_millis(200),
        &[],
    );
    let indexes: Vec<u32> = got.iter().map(|g| g.1).collect();
    assert_eq!(indexes, (0..300).collect::<Vec<_>>(), "{stdout}");
    let kind = TimecodeKind::Smpte30;
    let offset = frames.own_place(kind);
    let mut errors = frames.errors_ms(kind, t0, kind.micros(u64::from(start)), offset, &got);
    errors.sort_by(f64::total_cmp);
    let p = |q: f64| errors[((errors.len() - 1) as f64 * q) as usize];
    eprintln!(
        "phone take chase error, ms: p1 {:.1} p50 {:.1} p99 {:.1}",
        p(0.01),
        p(0.5),
        p(0.99)
    );
    // Within a timecode frame either way (an order of magnitude; the
    // benchmark measures it).
    assert!(p(0.01) > -33.4 && p(0.99) < 33.4, "{errors:?}");
    assert!(stdout.starts_with("chased: 300 frames sent"), "{stdout}");
}

#[test]
fn a_take_through_midnight_is_chased_through_it() {
    // The phone take moved to start at 23:59:55:00; timecode from 23:59:54:00
    // to 00:00:07:00.
    let dir = tempfile::tempdir().unwrap();
    let take = phone_take(dir.path(), "midnight.csv", 300, Some("23:59:55:00"));
    let start = count_at(23, 59, 54);
    let (_, _, got, stdout, stderr) = chase_phone(
        &take,
        dir.path(),
        start,
        13 * 30,
        Duration::from_millis(200),
        &[],
    );
    let indexes: Vec<u32> = got.iter().map(|g| g.1).collect();
    assert_eq!(indexes, (0..300).collect::<Vec<_>>(), "{stdout}");
    // Locked once, through midnight: no locate, no freewheel before the end.
    assert!(stdout.contains(" 0 locates"), "{stdout}");
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
            "freewheel (timecode lost)"
        ],
        "{stderr}"
    );
}

#[test]
fn a_hold_keeps_sending_the_held_frame() {
    // Timecode from 13:13:03:00 for 4 s (2.5 s into the take), then none:
    // half a second of freewheel, then held.
    let dir = tempfile::tempdir().unwrap();
    let take = phone_take(dir.path(), "hold.csv", 300, None);
    let start = count_at(13, 13, 3);
    let args = ["--freewheel", "0.5", "--hold"];
    let (_, t0, got, stdout, stderr) = chase_phone(
        &take,
        dir.path(),
        start,
        4 * 30,
        Duration::from_secs(2),
        &args,
    );
    // Frames in order until the hold, then the last of them again and again.
    let played = got.windows(2).take_while(|w| w[1].1 == w[0].1 + 1).count() + 1;
    assert!(played > 60, "{played} frames before the hold");
    let (last_at, last) = got[played - 1];
    let during = &got[played..];
    assert!(during.iter().all(|(_, i)| *i == last), "{during:?}");
    // Held from about 4.6 s (4 s of timecode, 100 ms to call it lost, 500 ms
    // of freewheel) to the end (6 s): the frame every 33 ms (the take's rate).
    let held_for = got.last().unwrap().0.duration_since(last_at);
    assert!(last_at.duration_since(t0) > Duration::from_millis(4_400));
    assert!(
        held_for > Duration::from_millis(1_000) && (25..=50).contains(&during.len()),
        "{} frames in {held_for:?} held; {stdout}",
        during.len()
    );
    assert!(stderr.contains("chase: held"), "{stderr}");
    assert!(stdout.contains("held frames again"), "{stdout}");
}

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
    let chasing = Chasing::start(&take, tc_port, rx, &["--offset", OFFSET]);
    // The receiver runs until 200 ms after the last timecode (the frames it
    // reached go out by then), at most 40 s.
    let (last_tx, last_rx) = mpsc::channel::<Instant>();
    let receiving = thread::spawn(move || {
        let mut got = Vec::new();
        let mut buf = [0u8; 2048];
        let mut end = Instant::now() + Duration::from_secs(40);
        while Instant::now() < end {
            if let Ok(last) = last_rx.try_recv() {
                end = end.min(last + Duration::from_millis(200));
            }
            if let Ok(n) = receiver.recv(&mut buf) {
                got.push((Instant::now(), buf[..n].to_vec()));
            }
        }
        got
    });
    let timeline = generate(tc_port);
    last_tx.send(Instant::now()).unwrap();
    let got = receiving.join().unwrap();
    let (status, stdout, stderr) = chasing.finish();
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
