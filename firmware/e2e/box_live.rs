//! End to end: the box under QEMU relays a live phone. The real phone take
//! (30 Hz, numbered at 60 fps) is sent at its recorded timing with ±8 ms of
//! jitter and dropouts of 0.5 s and 5 s to the box's forwarded live port;
//! a receiver on the host gets every live frame re-clocked (buffer 2), the
//! idle take (dao, in the box's flash) in each dropout within T + F, the
//! phone again after K frames, the phone's subject on every frame; a
//! datagram that is not a face is counted; `live off` and a `play` end the
//! relay. Figures print with --no-capture; bounds here are orders of
//! magnitude (QEMU's clock is the host's, shared with the other tests).
//!
//! Needs `qemu-system-arm` and the `thumbv7em-none-eabihf` target. Lives in
//! the root `tests` crate.

use std::collections::HashSet;
use std::net::UdpSocket;
use std::time::{Duration, Instant};

use llv_core::blendshape::COUNT;
use llv_core::packet::FaceFrame;
use llv_tests::flash_box::{firmware, flash_dao, receiver, QemuBox};
use llv_tests::live::{assert_switches, measure, phone_frames, receive, send_as_phone};
use llv_tests::{example, recording_packets};

const PERIOD: f64 = 1.0 / 30.0;
const T: f64 = 0.250;
const F: f64 = 0.300;
const K: usize = 10;
/// What QEMU's scheduling on a busy host may add to any moment measured.
const SLACK: f64 = 0.250;

fn values(packet: &[u8]) -> [u32; COUNT] {
    FaceFrame::decode(packet)
        .unwrap()
        .blendshapes
        .map(f32::to_bits)
}

#[test]
fn the_box_relays_the_phone_covers_dropouts_with_the_idle_take_and_returns() {
    let dir = tempfile::tempdir().unwrap();
    let b = QemuBox::boot_with(firmware(), &dir.path().join("flash.bin"), "erase_ms=0");
    flash_dao(&b);
    let (socket, target) = receiver();
    b.llv(&["box", "{box}", "config", "targets", &target])
        .success();
    b.llv(&[
        "box",
        "{box}",
        "config",
        "live-idle",
        "dao",
        "live-buffer",
        "2",
    ])
    .success();
    b.llv(&["box", "{box}", "live", "on"]).success();
    let status = b.status_when(Duration::from_secs(10), |s| !s["live"].is_null());
    assert_eq!(
        status["live"]["state"], 0,
        "waiting for the phone: {status}"
    );

    let frames = phone_frames(dir.path(), 12 * 30);
    let got = receive(socket, Duration::from_secs(2), Duration::from_secs(60));
    let dropouts = vec![(3.0, 0.5), (5.0, 5.0)];
    let to = format!("127.0.0.1:{}", b.live);
    let sent = send_as_phone(frames, to.clone(), Instant::now(), 0.008, dropouts.clone());
    let sent = sent.join().unwrap();
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .send_to(b"not a face", &to)
        .unwrap();
    // The buffer holds the phone's last frames for two periods.
    let last = &sent.last().unwrap().1;
    assert!(
        got.wait_for(last, Duration::from_secs(10)),
        "the phone's last frame never went out"
    );
    // The relay reports four times a second.
    let live =
        b.status_when(Duration::from_secs(10), |s| s["live"]["not_face"] == 1)["live"].clone();
    assert_eq!(live["frames_in"], sent.len(), "{live}");
    assert_eq!(live["not_face"], 1, "{live}");
    assert_switches(&live, 2);
    b.llv(&["box", "{box}", "live", "off"]).success();
    let status = b.status_when(Duration::from_secs(10), |s| s["live"].is_null());
    assert!(status["live"].is_null(), "{status}");
    let got = got.join();

    let phone = FaceFrame::decode(&sent[0].1).unwrap();
    for (_, p) in &got {
        let f = FaceFrame::decode(p).expect("every frame out is a face frame");
        assert_eq!((f.subject, f.device_id), (phone.subject, phone.device_id));
    }
    let idle: HashSet<[u32; COUNT]> = recording_packets(&example("dao.gesichter"))
        .iter()
        .map(|p| values(p))
        .collect();
    let is_idle = |p: &[u8]| idle.contains(&values(p));
    let figures = measure(&sent, &got, &dropouts, &is_idle, K, 1.5);
    eprintln!(
        "box, buffer 2: interval p99 deviation in {:.2} ms, out {:.2} ms; \
         {} of {} intervals more than 2 ms off; latency median {:.1} ms, p99 {:.1} ms",
        figures.in_dev * 1e3,
        figures.out_dev * 1e3,
        figures.late.0,
        figures.late.1,
        figures.latency.0 * 1e3,
        figures.latency.1 * 1e3
    );
    assert!(figures.latency.0 < 2.0 * PERIOD + SLACK, "{figures:?}");
    for d in &figures.dropouts {
        eprintln!(
            "box, dropout {} s: first made frame {:.1} ms after the last live one, idle take at \
             {:.1} ms, back {:.1} ms after the {K}th frame, live again {:.1} ms later",
            d.len,
            d.reaction * 1e3,
            d.idle_after * 1e3,
            d.return_after * 1e3,
            d.fade_back * 1e3
        );
        assert!((T - 0.002..=T + SLACK).contains(&d.reaction), "{d:?}");
        assert!(d.idle_after <= T + F + PERIOD + SLACK, "{d:?}");
        assert!(
            (-0.002..=4.0 * PERIOD + SLACK).contains(&d.return_after),
            "{d:?}"
        );
        assert!(d.fade_back <= F + PERIOD + SLACK, "{d:?}");
    }
    // Live again at the end: the phone's last frame went out untouched.
    let arrived: HashSet<&[u8]> = sent.iter().map(|(_, p)| p.as_slice()).collect();
    let last_live = got
        .iter()
        .rev()
        .find(|(_, p)| arrived.contains(p.as_slice()));
    assert_eq!(last_live.map(|(_, p)| p), Some(last));

    // A playback replaces the relay: one stream goes to the targets.
    b.llv(&["box", "{box}", "live", "on"]).success();
    let status = b.status_when(Duration::from_secs(10), |s| !s["live"].is_null());
    assert_eq!(status["live"]["state"], 0, "{status}");
    b.llv(&["box", "{box}", "play", "dao"]).success();
    let status = b.status_when(Duration::from_secs(10), |s| {
        s["live"].is_null() && !s["playing"].is_null()
    });
    assert!(status["live"].is_null(), "{status}");
    assert_eq!(status["playing"]["take"], "dao", "{status}");
}
