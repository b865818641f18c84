//! End to end: the playback box firmware, booted under QEMU (`mps2-an386`,
//! LAN9118 on QEMU's user network), streams its built-in take
//! (`examples/dao.gesichter`) to a UDP socket of this test on 127.0.0.1.
//!
//! Checks: every frame arrives, in order, byte-identical to the take decoded
//! here independently; the arrival rate is within 10 % of 60 fps; QEMU exits
//! by itself with status 0. Also: two targets with two loops, `loop=forever`
//! (still playing after two passes; then killed), and a bad command line
//! (exit status 2, nothing sent). QEMU is killed if anything takes too long:
//! every wait is bounded in time and count, and a guard kills it on drop.
//!
//! Needs `qemu-system-arm` and the `thumbv7em-none-eabihf` target; builds the
//! firmware (`firmware/`, its own cargo workspace) in release if needed.
//! Lives in the root `tests` crate (dev-dependencies: llv-core, flate2).

use std::net::UdpSocket;
use std::path::Path;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use llv_core::packet::Packet;

use llv_tests::qemu;
use llv_tests::repo_root;
use qemu::{build_firmware, spawn_box};

/// Nominal frame rate of the example take (its frame times are at 60 fps).
const FPS: f64 = 60.0;
/// Allowed rate error: an order-of-magnitude check that holds with both cores
/// of the host busy (QEMU's vCPU is then scheduled late now and then); the
/// rate's real figures come from `firmware/bench/run.sh`.
const RATE_TOLERANCE: f64 = 0.10;
/// Whole-run bound for QEMU (boot, 3.1 s of playback, exit).
const QEMU_TIMEOUT: Duration = Duration::from_secs(60);

/// Seconds of frame `packet` at its own frame rate (frame number + subframe).
fn frame_seconds(packet: &[u8]) -> f64 {
    let time = Packet::new_checked(packet)
        .expect("valid face packet")
        .time();
    (f64::from(time.frame_number) + f64::from(time.subframe)) * f64::from(time.rate.denominator)
        / f64::from(time.rate.numerator)
}

/// Slope of the least-squares line through `points`.
fn least_squares_slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let (mx, my) = points
        .iter()
        .fold((0.0, 0.0), |(sx, sy), (x, y)| (sx + x / n, sy + y / n));
    let sxy: f64 = points.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = points.iter().map(|(x, _)| (x - mx) * (x - mx)).sum();
    sxy / sxx
}

/// Boots the firmware with `append` as its command line and collects what
/// arrives on `socket` until QEMU has exited and the socket is quiet.
fn run_box(
    elf: &Path,
    append: &str,
    socket: &UdpSocket,
    max_packets: usize,
) -> (Vec<(Instant, Vec<u8>)>, ExitStatus) {
    let mut qemu = spawn_box(elf, "", append);
    socket
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let end = Instant::now() + QEMU_TIMEOUT;
    let mut received = Vec::new();
    let mut buf = [0u8; 2048];
    let mut exited: Option<(ExitStatus, Instant)> = None;
    while Instant::now() < end && received.len() < max_packets {
        match socket.recv(&mut buf) {
            Ok(n) => received.push((Instant::now(), buf[..n].to_vec())),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => panic!("recv: {e}"),
        }
        if exited.is_none() {
            if let Some(status) = qemu.child().try_wait().expect("try_wait") {
                exited = Some((status, Instant::now()));
            }
        }
        // After QEMU is gone, drain for half a second more.
        if let Some((_, at)) = exited {
            if at.elapsed() > Duration::from_millis(500) {
                break;
            }
        }
    }
    let status = match exited {
        Some((status, _)) => status,
        None => qemu.wait_for(Duration::from_secs(5)).unwrap_or_else(|| {
            panic!(
                "QEMU did not exit within {QEMU_TIMEOUT:?} ({} packets received)",
                received.len()
            )
        }),
    };
    (received, status)
}

#[test]
fn box_loops_forever_until_stopped() {
    let root = repo_root();
    let expected = llv_tests::llv_packets(&root.join("examples/dao.gesichter"));
    let elf = build_firmware(&root);
    let socket = UdpSocket::bind("127.0.0.1:0").expect("bind a local UDP port");
    let port = socket.local_addr().unwrap().port();
    let mut qemu = spawn_box(&elf, "", &format!("targets=10.0.2.2:{port} loop=forever"));
    socket
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    // Two passes and a bit: the third pass starts with frame 0 again.
    let want = 2 * expected.len() + 20;
    let mut received = Vec::new();
    let mut buf = [0u8; 2048];
    let end = Instant::now() + QEMU_TIMEOUT;
    while Instant::now() < end && received.len() < want {
        if let Ok(n) = socket.recv(&mut buf) {
            received.push(buf[..n].to_vec());
        }
    }
    assert_eq!(received.len(), want, "frames before the time limit");
    assert!(
        qemu.child().try_wait().expect("try_wait").is_none(),
        "a box with loop=forever is still playing"
    );
    for (i, got) in received.iter().enumerate() {
        assert!(got == &expected[i % expected.len()], "frame {i} differs");
    }
    // Dropping the guard kills QEMU.
}

#[test]
fn box_streams_the_builtin_take_under_qemu() {
    let root = repo_root();
    let expected = llv_tests::llv_packets(&root.join("examples/dao.gesichter"));
    let elf = build_firmware(&root);

    let socket = UdpSocket::bind("127.0.0.1:0").expect("bind a local UDP port");
    let port = socket.local_addr().unwrap().port();
    let (received, status) = run_box(
        &elf,
        &format!("targets=10.0.2.2:{port}"),
        &socket,
        expected.len() + 10,
    );

    assert!(status.success(), "firmware exit status {status}");
    assert_eq!(received.len(), expected.len(), "frame count");
    for (i, ((_, got), want)) in received.iter().zip(&expected).enumerate() {
        assert!(
            got == want,
            "frame {i} differs ({} vs {} bytes)",
            got.len(),
            want.len()
        );
    }

    // Rate over consecutive frames (frame numbers one apart: the take has
    // one gap where the phone skipped frames).
    let mut sum = 0.0;
    let mut n = 0u32;
    for (i, pair) in received.windows(2).enumerate() {
        let step = frame_seconds(&expected[i + 1]) - frame_seconds(&expected[i]);
        if (step * FPS - 1.0).abs() < 0.1 {
            sum += pair[1].0.duration_since(pair[0].0).as_secs_f64();
            n += 1;
        }
    }
    assert!(n > 100, "too few consecutive frames: {n}");
    let rate = f64::from(n) / sum;
    assert!(
        (rate / FPS - 1.0).abs() < RATE_TOLERANCE,
        "arrival rate {rate:.3} fps, want 60 within 10 %"
    );

    // And over the whole take against the take's own schedule: the
    // least-squares slope of arrival over scheduled time (one late frame
    // barely moves it; a drifting clock would).
    let t0 = received[0].0;
    let points: Vec<(f64, f64)> = received
        .iter()
        .zip(&expected)
        .map(|((at, _), packet)| {
            (
                frame_seconds(packet) - frame_seconds(&expected[0]),
                at.duration_since(t0).as_secs_f64(),
            )
        })
        .collect();
    let slope = least_squares_slope(&points);
    assert!(
        (slope - 1.0).abs() < RATE_TOLERANCE,
        "arrival time / scheduled time = {slope:.5}"
    );
}

#[test]
fn box_sends_to_two_targets_and_loops() {
    let root = repo_root();
    let expected = llv_tests::llv_packets(&root.join("examples/dao.gesichter"));
    let elf = build_firmware(&root);
    let a = UdpSocket::bind("127.0.0.1:0").expect("bind a local UDP port");
    let b = UdpSocket::bind("127.0.0.1:0").expect("bind a local UDP port");
    let (port_a, port_b) = (
        a.local_addr().unwrap().port(),
        b.local_addr().unwrap().port(),
    );
    let frames = 2 * expected.len();
    // The second target is read on its own thread, bounded in count and time.
    let second = std::thread::spawn(move || {
        b.set_read_timeout(Some(Duration::from_millis(100)))
            .unwrap();
        let mut received = Vec::new();
        let mut buf = [0u8; 2048];
        let end = Instant::now() + QEMU_TIMEOUT;
        while Instant::now() < end && received.len() < frames {
            if let Ok(n) = b.recv(&mut buf) {
                received.push(buf[..n].to_vec());
            }
        }
        received
    });
    let append = format!("targets=10.0.2.2:{port_a},10.0.2.2:{port_b} loop=2");
    let (received_a, status) = run_box(&elf, &append, &a, frames);
    assert!(status.success(), "firmware exit status {status}");
    let received_b = second.join().expect("second receiver");

    let want: Vec<&Vec<u8>> = expected.iter().chain(&expected).collect();
    assert_eq!(received_a.len(), want.len(), "frames at the first target");
    assert_eq!(received_b.len(), want.len(), "frames at the second target");
    for (i, want) in want.iter().enumerate() {
        assert!(&&received_a[i].1 == want, "first target, frame {i} differs");
        assert!(&&received_b[i] == want, "second target, frame {i} differs");
    }
    // The second pass starts one loop period after the first: the take's span
    // plus one frame.
    let n = expected.len();
    let period = frame_seconds(&expected[n - 1]) - frame_seconds(&expected[0]) + 1.0 / FPS;
    let second_pass = received_a[n]
        .0
        .duration_since(received_a[0].0)
        .as_secs_f64();
    assert!(
        (second_pass / period - 1.0).abs() < RATE_TOLERANCE,
        "second pass after {second_pass:.3} s, period {period:.3} s"
    );
}

#[test]
fn box_refuses_a_bad_command_line() {
    let root = repo_root();
    let elf = build_firmware(&root);
    let socket = UdpSocket::bind("127.0.0.1:0").expect("bind a local UDP port");
    let (received, status) = run_box(&elf, "targets=10.0.2.2 loop=2", &socket, 1);
    assert!(received.is_empty(), "nothing is sent");
    assert_eq!(
        status.code(),
        Some(2),
        "exit status 2 for a bad command line"
    );
}
