//! `llv relay` end to end on loopback, with the real phone take sent at its
//! recorded timing, ±8 ms of jitter and dropouts of 0.5 s and 5 s: the
//! exact output period with a buffer, the fallback to the idle take within
//! T + F, the return after K frames, the black box bit-exact and surviving a
//! SIGKILL with at most a second lost. Figures print with --no-capture.

use std::collections::HashSet;
use std::net::UdpSocket;
use std::time::{Duration, Instant};

use llv_core::blendshape::COUNT;
use llv_core::packet::FaceFrame;
use llv_tests::live::{
    assert_switches, measure, percentile, phone_frames, receive, secs, send_as_phone, Dropout,
    Relaying,
};
use llv_tests::show::Serve;
use llv_tests::{example, llv, native_packets, recording_packets};

const PERIOD: f64 = 1.0 / 30.0;
const T: f64 = 0.250;
const F: f64 = 0.300;
const K: usize = 10;
/// What a machine with both cores busy may add to any moment measured.
const SLACK: f64 = 0.060;

/// Prints a dropout's figures.
fn print_dropout(d: &Dropout) {
    eprintln!(
        "dropout {} s: first made frame {:.1} ms after the last live one, idle take at {:.1} ms, \
         back {:.1} ms after the {K}th frame, live again {:.1} ms later",
        d.len,
        d.reaction * 1e3,
        d.idle_after * 1e3,
        d.return_after * 1e3,
        d.fade_back * 1e3
    );
}

fn values(packet: &[u8]) -> [f32; COUNT] {
    FaceFrame::decode(packet).unwrap().blendshapes
}

fn the_one_file(dir: &std::path::Path) -> std::path::PathBuf {
    let files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0].file_name().unwrap().to_string_lossy().to_string();
    assert!(
        name.starts_with("live-20") && name.ends_with(".gesichter-lines"),
        "{name}"
    );
    files[0].clone()
}

#[test]
fn relay_reclocks_falls_back_returns_and_records() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("black-box");
    let frames = phone_frames(dir.path(), 16 * 30);
    let idle = example("dao.gesichter");
    let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
    let to = receiver.local_addr().unwrap().to_string();
    let relay = Relaying::start(&[
        "--to",
        &to,
        "--buffer",
        "3",
        "--idle",
        idle.to_str().unwrap(),
        "--record",
        records.to_str().unwrap(),
        "--duration",
        "18",
    ]);
    let got = receive(receiver, Duration::from_secs(2), Duration::from_secs(40));
    let dropouts = vec![(4.0, 0.5), (8.0, 5.0)];
    let sent = send_as_phone(
        frames,
        relay.addr(),
        Instant::now(),
        0.008,
        dropouts.clone(),
    );
    let sent = sent.join().unwrap();
    let summary = relay.wait(Duration::from_secs(30));
    let got = got.join();
    eprintln!("{summary}");

    let phone = FaceFrame::decode(&sent[0].1).unwrap();
    for (_, p) in &got {
        let f = FaceFrame::decode(p).expect("every frame out is a face frame");
        assert_eq!((f.subject, f.device_id), (phone.subject, phone.device_id));
    }
    let idle_values: HashSet<[u32; COUNT]> = recording_packets(&idle)
        .iter()
        .map(|p| values(p).map(f32::to_bits))
        .collect();
    let is_idle = |p: &[u8]| idle_values.contains(&values(p).map(f32::to_bits));
    // Intervals once the output has settled (its first second slews faster).
    let figures = measure(&sent, &got, &dropouts, &is_idle, K, 1.5);
    eprintln!(
        "buffer 3: interval p99 deviation in {:.2} ms, out {:.2} ms; latency median {:.1} ms, p99 {:.1} ms",
        figures.in_dev * 1e3,
        figures.out_dev * 1e3,
        figures.latency.0 * 1e3,
        figures.latency.1 * 1e3
    );
    eprintln!(
        "buffer 3 while recording: {} of {} live intervals more than 2 ms off the period",
        figures.late.0, figures.late.1
    );
    assert!(figures.in_dev > 0.006, "the input jitters");
    // Re-clocked, the typical interval is the period to half a millisecond
    // (the input's is several ms off). Quiet, the p99 is under 1 ms too; a
    // machine busy with other builds delays some sends by a period or more,
    // so the p99 is the benchmark's figure (docs/measurements.md), printed
    // above, not asserted.
    assert!(
        figures.out_typical < 0.0005,
        "out median deviation {}",
        figures.out_typical
    );
    assert!(figures.latency.0 < 3.5 * PERIOD);

    // Each dropout: the fallback, the idle take, the return after K frames.
    for d in &figures.dropouts {
        print_dropout(d);
        assert!(
            (T - 0.002..=T + SLACK).contains(&d.reaction),
            "reaction {}",
            d.reaction
        );
        assert!(
            d.idle_after <= T + F + PERIOD + SLACK,
            "idle after {}",
            d.idle_after
        );
        assert!(
            d.return_after >= -0.002,
            "returned before the {K}th frame: {}",
            d.return_after
        );
        assert!(
            d.return_after <= 4.0 * PERIOD + SLACK,
            "return {}",
            d.return_after
        );
        assert!(
            d.fade_back <= F + PERIOD + SLACK,
            "fade back {}",
            d.fade_back
        );
    }
    assert!(summary.contains("fallbacks 3, returns 2"), "{summary}");

    // The black box: every frame that arrived, bit-exact, in order.
    let take = the_one_file(&records);
    let kept = native_packets(&take);
    let arrived: Vec<Vec<u8>> = sent.into_iter().map(|(_, p)| p).collect();
    assert_eq!(kept.len(), arrived.len());
    assert!(kept == arrived, "the recording differs from what arrived");
    llv().arg("info").arg(&take).assert().success();
}

#[test]
fn relay_without_a_buffer_passes_each_frame_at_once_and_other_datagrams_if_asked() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("black-box");
    let frames = phone_frames(dir.path(), 3 * 30);
    let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
    let to = receiver.local_addr().unwrap().to_string();
    let relay = Relaying::start(&[
        "--to",
        &to,
        "--pass-other",
        "--record",
        records.to_str().unwrap(),
        "--duration",
        "5",
    ]);
    let got = receive(receiver, Duration::from_secs(1), Duration::from_secs(20));
    let sent = send_as_phone(frames, relay.addr(), Instant::now(), 0.008, vec![]);
    let sent = sent.join().unwrap();
    let phone = UdpSocket::bind("127.0.0.1:0").unwrap();
    let garbage: &[u8] = b"not a face";
    phone.send_to(garbage, relay.addr()).unwrap();
    let summary = relay.wait(Duration::from_secs(20));
    let got = got.join();
    let live: Vec<&(Instant, Vec<u8>)> = got.iter().take(sent.len()).collect();
    assert!(
        live.iter().zip(&sent).all(|(g, s)| g.1 == s.1),
        "untouched, in order"
    );
    let latency: Vec<f64> = live
        .iter()
        .zip(&sent)
        .map(|(g, s)| secs(s.0, g.0))
        .collect();
    eprintln!(
        "buffer 0: added latency median {:.3} ms, p99 {:.3} ms",
        percentile(latency.clone(), 50) * 1e3,
        percentile(latency.clone(), 99) * 1e3
    );
    assert!(percentile(latency, 50) < 0.005);
    assert!(got.iter().any(|(_, p)| p == garbage), "passed on untouched");
    assert!(summary.contains("not face 1 (1 passed on)"), "{summary}");
    let kept = native_packets(&the_one_file(&records));
    assert_eq!(kept.len(), sent.len(), "faces only, never the garbage");
}

#[test]
fn relay_black_box_keeps_all_but_the_last_second_after_a_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("black-box");
    let frames = phone_frames(dir.path(), 6 * 30);
    let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
    let to = receiver.local_addr().unwrap().to_string();
    let relay = Relaying::start(&["--to", &to, "--record", records.to_str().unwrap()]);
    let started = Instant::now();
    let sender = send_as_phone(frames, relay.addr(), started, 0.008, vec![]);
    while started.elapsed() < Duration::from_secs(4) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let killed = Instant::now();
    relay.kill();
    let sent = sender.join().unwrap();
    let before: Vec<&Vec<u8>> = sent
        .iter()
        .filter(|(at, _)| *at < killed)
        .map(|(_, p)| p)
        .collect();
    let last_second = sent
        .iter()
        .filter(|(at, _)| *at < killed && killed.duration_since(*at) <= Duration::from_secs(1))
        .count();
    let take = the_one_file(&records);
    let kept = native_packets(&take);
    eprintln!(
        "SIGKILL: {} of {} frames sent before it kept",
        kept.len(),
        before.len()
    );
    assert!(
        kept.len() + last_second >= before.len(),
        "more than the last second lost"
    );
    assert!(
        kept.iter().zip(&before).all(|(k, s)| k == *s),
        "a prefix of what arrived"
    );
    llv().arg("info").arg(&take).assert().success();
}

fn status_json(serve: &Serve) -> serde_json::Value {
    let out = llv()
        .args(["box", &serve.addr(), "status", "--json"])
        .timeout(Duration::from_secs(20))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).unwrap()
}

#[test]
fn serve_relays_live_when_told_covers_a_dropout_and_records_into_its_folder() {
    let work = tempfile::tempdir().unwrap();
    let served = tempfile::tempdir().unwrap();
    std::fs::copy(
        example("dao.gesichter"),
        served.path().join("idle.gesichter"),
    )
    .unwrap();
    let frames = phone_frames(work.path(), 4 * 30);
    let serve = Serve::start(served.path(), &["--bind", "127.0.0.1", "--no-discovery"]);
    let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
    let to = receiver.local_addr().unwrap().to_string();
    let live_port = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let port = live_port.to_string();
    llv()
        .args([
            "box",
            &serve.addr(),
            "config",
            "targets",
            &to,
            "live-port",
            &port,
        ])
        .args(["live-idle", "idle", "live-record", "on", "live-buffer", "2"])
        .timeout(Duration::from_secs(20))
        .assert()
        .success();
    llv()
        .args(["box", &serve.addr(), "live", "on"])
        .timeout(Duration::from_secs(20))
        .assert()
        .success();
    // 0: waiting for the phone.
    assert_eq!(status_json(&serve)["live"]["state"], 0);
    let got = receive(receiver, Duration::from_secs(1), Duration::from_secs(30));
    let sent = send_as_phone(
        frames,
        format!("127.0.0.1:{live_port}"),
        Instant::now(),
        0.008,
        vec![(1.5, 0.6)],
    );
    let sent = sent.join().unwrap();
    // The relay reports four times a second: wait (bounded) for the last frame.
    let started = Instant::now();
    let live = loop {
        let live = status_json(&serve)["live"].clone();
        if live["frames_in"] == sent.len() || started.elapsed() > Duration::from_secs(10) {
            break live;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(live["frames_in"], sent.len(), "{live}");
    assert_switches(&live, 1);
    // The buffer holds the phone's last frames for two periods: `live off`
    // once the last one is out (on a busy machine that can be after the
    // status shows it arrived).
    let last = &sent.last().unwrap().1;
    assert!(
        got.wait_for(last, Duration::from_secs(10)),
        "the phone's last frame never went out"
    );
    llv()
        .args(["box", &serve.addr(), "live", "off"])
        .timeout(Duration::from_secs(20))
        .assert()
        .success();
    assert!(status_json(&serve)["live"].is_null());
    let got = got.join();
    let phone = FaceFrame::decode(&sent[0].1).unwrap();
    let arrived: Vec<Vec<u8>> = sent.iter().map(|(_, p)| p.clone()).collect();
    let made = got.iter().filter(|(_, p)| !arrived.contains(p)).count();
    assert!(made > 0, "the dropout was covered");
    for (_, p) in &got {
        let f = FaceFrame::decode(p).unwrap();
        assert_eq!((f.subject, f.device_id), (phone.subject, phone.device_id));
    }
    // Live again at the end: the phone's last frame went out untouched
    // (frames made after it are the next fallback, when `live off` comes
    // later than the timeout after the phone stopped).
    assert_eq!(
        got.iter()
            .rev()
            .map(|(_, p)| p)
            .find(|p| arrived.contains(p)),
        arrived.last(),
        "live again at the end"
    );
    // The black box is a take of the folder, listed like any other.
    let take = std::fs::read_dir(served.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("live-")
        })
        .expect("the recording");
    assert!(
        native_packets(&take) == arrived,
        "the recording differs from what arrived"
    );
    let name = take.file_stem().unwrap().to_string_lossy().to_string();
    llv()
        .args(["box", &serve.addr(), "list"])
        .timeout(Duration::from_secs(20))
        .assert()
        .success()
        .stdout(predicates::str::contains(name));
}

#[test]
fn serve_reads_a_settings_file_written_before_the_live_relay() {
    let served = tempfile::tempdir().unwrap();
    // `.llv-serve.json` as llv serve wrote it before the live relay existed.
    std::fs::write(
        served.path().join(".llv-serve.json"),
        r#"{"targets":[{"ip":[127,0,0,1],"port":11111}],"autoplay":null,"subject":null,"address":null,"token":null,"name":null,"osc_port":null,"reply_port":null,"chase":null}"#,
    )
    .unwrap();
    let serve = Serve::start(served.path(), &["--bind", "127.0.0.1", "--no-discovery"]);
    llv()
        .args(["box", &serve.addr(), "config"])
        .timeout(Duration::from_secs(20))
        .assert()
        .success()
        .stdout(predicates::str::contains("live      off on UDP 11111"));
}
