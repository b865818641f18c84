//! End to end: the box under QEMU records the live phone to its card (the
//! black box, `live-record on`). The real phone take (30 Hz numbered at
//! 60 fps, ±8 ms of jitter) goes to the box's forwarded live port, and a
//! datagram that is not a face; `live off` makes the recording the take
//! `live-0001`, whose frames are the face frames that arrived, bit-exact. A second recording is cut by a power cut (QEMU
//! killed) while the phone sends; after the reboot the box makes its journal
//! the take `live-0002`: every frame but those of the last second before the
//! cut, bit-exact. The card, read on the host afterwards, is clean for
//! `fsck.fat -n`. Prints the relay's output interval and latency without and
//! with the recording, the box's own count of late frames, and what the
//! power cut lost.
//!
//! Needs `qemu-system-arm` and the `thumbv7em-none-eabihf` target. Lives in
//! the root `tests` crate.

use std::path::Path;
use std::time::{Duration, Instant};

use llv_card::image::{on_image, ImageFile};
use llv_card::Mode;
use llv_core::packet::MAX_LEN;
use llv_tests::card::{assert_clean, blank_card, list, wait_scanned, write_cues};
use llv_tests::flash_box::{firmware, receiver, QemuBox};
use llv_tests::live::{measure, phone_frames, receive, send_as_phone, Figures};
use llv_tests::{example, recording_packets};
use serde_json::Value;

/// The names of the box's takes.
fn names(b: &QemuBox) -> Vec<String> {
    list(b)
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect()
}

/// Waits until the box lists `name` (its journal made a take).
fn wait_listed(b: &QemuBox, name: &str, limit: Duration) {
    let end = Instant::now() + limit;
    while !names(b).iter().any(|n| n == name) {
        assert!(
            Instant::now() < end,
            "{name} not listed within {limit:?}: {:?}",
            names(b)
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// The frames of the take `name` on the card image `card`, read on the host.
fn card_frames(card: &Path, name: &str) -> Vec<Vec<u8>> {
    let file = std::fs::OpenOptions::new().read(true).open(card).unwrap();
    on_image(
        ImageFile::new(file).unwrap(),
        Mode::Read,
        |_| {},
        async |c| {
            let mut reader = c.reader(name).await.unwrap();
            let mut buf = [0u8; MAX_LEN];
            let mut out = Vec::new();
            for i in 0..reader.header().frame_count {
                let e = c.packet(&mut reader, i, &mut buf).await.unwrap();
                out.push(buf[..usize::from(e.len)].to_vec());
            }
            out
        },
    )
}

/// Relays `frames` sent as the phone sends them to `to` through the box
/// (`live on`, then `live off` once every frame went out): what was sent,
/// the figures of what came out at `socket`, and the relay's last status.
fn relay_once(
    b: &QemuBox,
    socket: &std::net::UdpSocket,
    frames: &[(f64, Vec<u8>)],
    to: &str,
) -> (Vec<(Instant, Vec<u8>)>, Figures, Value) {
    b.llv(&["box", "{box}", "live", "on"]).success();
    b.status_when(Duration::from_secs(10), |s| !s["live"].is_null());
    let socket = socket.try_clone().unwrap();
    let got = receive(socket, Duration::from_secs(2), Duration::from_secs(60));
    let sent = send_as_phone(
        frames.to_vec(),
        to.to_string(),
        Instant::now(),
        0.008,
        vec![],
    )
    .join()
    .unwrap();
    // Not a face: counted, never recorded.
    std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .send_to(b"not a face", to)
        .unwrap();
    let last = &sent.last().unwrap().1;
    assert!(
        got.wait_for(last, Duration::from_secs(10)),
        "the phone's last frame never went out"
    );
    let live = b.status_when(Duration::from_secs(5), |s| {
        s["live"]["frames_in"] == sent.len() && s["live"]["not_face"] == 1
    })["live"]
        .clone();
    assert_eq!(live["frames_in"], sent.len(), "{live}");
    assert_eq!(live["not_face"], 1, "{live}");
    b.llv(&["box", "{box}", "live", "off"]).success();
    b.status_when(Duration::from_secs(10), |s| s["live"].is_null());
    let got = got.join();
    let figures = measure(&sent, &got, &[], &|_| false, 10, 1.5);
    (sent, figures, live)
}

/// The box's own count at the end of relay `n` (from 1): frames more than
/// 2 ms late and the latest, in µs (its log line "live relay off: ...").
fn box_late(b: &QemuBox, n: usize) -> (u64, u64) {
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let lines: Vec<String> = b
            .qemu
            .log()
            .into_iter()
            .filter(|l| l.contains("live relay off"))
            .collect();
        if let Some(line) = lines.get(n - 1) {
            let number_before = |word: &str| -> u64 {
                let at = line.find(word).unwrap_or_else(|| panic!("{line}"));
                let head = line[..at].trim_end();
                let digits = head.rsplit(|c: char| !c.is_ascii_digit()).next().unwrap();
                digits.parse().unwrap_or_else(|_| panic!("{line}"))
            };
            return (number_before(" more than 2 ms late"), number_before(" us)"));
        }
        assert!(
            Instant::now() < end,
            "no line {n} of the relay's end: {lines:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_box_records_the_phone_to_its_card_and_a_power_cut_keeps_all_but_the_last_second() {
    let dir = tempfile::tempdir().unwrap();
    let card = dir.path().join("card.img");
    blank_card(&card);
    // A take already on the card: it stays.
    write_cues(&card, 1, &recording_packets(&example("dao.gesichter")));
    let flash = dir.path().join("flash.bin");
    let words = format!("card={} erase_ms=0", card.display());
    let b = QemuBox::boot_with(firmware(), &flash, &words);
    let (socket, target) = receiver();
    b.llv(&["box", "{box}", "config", "targets", &target])
        .success();
    b.llv(&["box", "{box}", "config", "live-buffer", "2"])
        .success();
    wait_scanned(&b, Duration::from_secs(30));

    // The phone relayed without a recording, then with one that `live off` ends.
    let frames = phone_frames(dir.path(), 10 * 30);
    let to = format!("127.0.0.1:{}", b.live);
    let (_, without, live) = relay_once(&b, &socket, &frames, &to);
    assert_eq!(live["recorded_bytes"], 0, "{live}");
    b.llv(&["box", "{box}", "config", "live-record", "on"])
        .success();
    let (sent, with, live) = relay_once(&b, &socket, &frames, &to);
    // 1 KiB a frame, and block 0.
    assert!(live["recorded_bytes"].as_u64() > Some(512), "{live}");
    wait_listed(&b, "live-0001", Duration::from_secs(60));
    let late = [box_late(&b, 1), box_late(&b, 2)];
    for (what, late) in [("without", late[0]), ("with", late[1])] {
        eprintln!(
            "box, buffer 2, {what} the recording, the box's count: {} frames more than 2 ms late, \
             the latest {:.1} ms",
            late.0,
            late.1 as f64 / 1e3
        );
    }
    for (what, f) in [("without", &without), ("with", &with)] {
        eprintln!(
            "box, buffer 2, {what} the recording: interval p99 deviation in {:.2} ms, out {:.2} ms; \
             {} of {} intervals more than 2 ms off; latency median {:.1} ms, p99 {:.1} ms",
            f.in_dev * 1e3,
            f.out_dev * 1e3,
            f.late.0,
            f.late.1,
            f.latency.0 * 1e3,
            f.latency.1 * 1e3
        );
    }

    // A recording cut by a power cut six seconds in.
    b.llv(&["box", "{box}", "live", "on"]).success();
    b.status_when(Duration::from_secs(10), |s| !s["live"].is_null());
    let start = Instant::now();
    let sending = send_as_phone(frames, to.clone(), start, 0.008, vec![]);
    let cut_at = start + Duration::from_secs(6);
    std::thread::sleep(cut_at.saturating_duration_since(Instant::now()));
    let (b, cut) = b.power_cycle_timed(firmware(), &flash, &words);
    let second = sending.join().unwrap();
    wait_listed(&b, "live-0002", Duration::from_secs(60));
    let mut listed = names(&b);
    listed.sort();
    assert_eq!(listed, ["cue 0000", "live-0001", "live-0002"]);
    drop(b);

    // The card, read on the host.
    assert_clean(&card);
    let first = card_frames(&card, "live-0001");
    let arrived: Vec<Vec<u8>> = sent.iter().map(|(_, p)| p.clone()).collect();
    assert!(
        first == arrived,
        "live-0001 holds {} frames, not the {} that arrived",
        first.len(),
        arrived.len()
    );
    let kept = card_frames(&card, "live-0002");
    let before_cut: Vec<&Vec<u8>> = second
        .iter()
        .filter(|(at, _)| *at < cut)
        .map(|(_, p)| p)
        .collect();
    assert!(
        kept.iter().zip(&before_cut).all(|(k, s)| k == *s) && kept.len() <= before_cut.len(),
        "live-0002's {} frames are not the first of the {} sent before the cut",
        kept.len(),
        before_cut.len()
    );
    let last_kept = second[kept.len().saturating_sub(1)].0;
    let lost = cut.saturating_duration_since(last_kept);
    eprintln!(
        "power cut: kept {} of {} frames sent before it; the last kept was sent {:.0} ms before the cut",
        kept.len(),
        before_cut.len(),
        lost.as_secs_f64() * 1e3
    );
    // At most the last second (and what QEMU's scheduling on a busy host adds).
    assert!(lost < Duration::from_millis(1250), "lost {lost:?}");
}
