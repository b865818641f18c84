//! `llv relay` end to end on loopback, with the real phone take sent at its
//! recorded timing, ±8 ms of jitter and dropouts of 0.5 s and 5 s: the
//! exact output period with a buffer, the fallback to the idle take within
//! T + F, the return after K frames, the black box bit-exact and surviving a
//! SIGKILL with at most a second lost. Figures print with --no-capture.

use std::collections::{HashMap, HashSet};
use std::net::UdpSocket;
use std::time::{Duration, Instant};

use llv_core::blendshape::COUNT;
use llv_core::packet::FaceFrame;
use llv_tests::live::{phone_frames, receive, send_as_phone, Relaying};
use llv_tests::show::Serve;
use llv_tests::{example, llv, native_packets, recording_packets};

const PERIOD: f64 = 1.0 / 30.0;
const T: f64 = 0.250;
const F: f64 = 0.300;
const K: usize = 10;
/// What a machine with both cores busy may add to any moment measured.
const SLACK: f64 = 0.060;

fn secs(a: Instant, b: Instant) -> f64 {
    if b >= a {
        (b - a).as_secs_f64()
    } else {
        -(a - b).as_secs_f64()
    }
}

fn percentile(mut xs: Vec<f64>, p: usize) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[(xs.len() * p / 100).min(xs.len() - 1)]
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
    let got = got.join().unwrap();
    eprintln!("{summary}");

    let index: HashMap<&[u8], usize> = sent
        .iter()
        .enumerate()
        .map(|(i, (_, p))| (p.as_slice(), i))
        .collect();
    let times: HashMap<(i32, u32), usize> = sent
        .iter()
        .enumerate()
        .map(|(i, (_, p))| {
            let t = FaceFrame::decode(p).unwrap().time;
            ((t.frame_number, t.subframe.to_bits()), i)
        })
        .collect();
    let based_on = |p: &[u8]| {
        let t = FaceFrame::decode(p).unwrap().time;
        times.get(&(t.frame_number, t.subframe.to_bits())).copied()
    };
    let phone = FaceFrame::decode(&sent[0].1).unwrap();
    for (_, p) in &got {
        let f = FaceFrame::decode(p).expect("every frame out is a face frame");
        assert_eq!((f.subject, f.device_id), (phone.subject, phone.device_id));
    }

    // The exact period: intervals between consecutive live frames out, once
    // the output has settled (its first second slews faster).
    let mut out_gaps = Vec::new();
    let mut latency = Vec::new();
    for w in got.windows(2) {
        if let (Some(&a), Some(&b)) = (index.get(w[0].1.as_slice()), index.get(w[1].1.as_slice())) {
            if b == a + 1 && secs(sent[0].0, w[0].0) > 1.5 {
                out_gaps.push(secs(w[0].0, w[1].0));
            }
        }
    }
    for (at, p) in &got {
        if let Some(&i) = index.get(p.as_slice()) {
            latency.push(secs(sent[i].0, *at));
        }
    }
    let in_gaps: Vec<f64> = sent
        .windows(2)
        .map(|w| secs(w[0].0, w[1].0))
        .filter(|g| *g < 2.0 * PERIOD)
        .collect();
    let dev = |gaps: &[f64]| {
        let median = percentile(gaps.to_vec(), 50);
        percentile(gaps.iter().map(|g| (g - median).abs()).collect(), 99)
    };
    eprintln!(
        "buffer 3: interval p99 deviation in {:.2} ms, out {:.2} ms; latency median {:.1} ms, p99 {:.1} ms",
        dev(&in_gaps) * 1e3,
        dev(&out_gaps) * 1e3,
        percentile(latency.clone(), 50) * 1e3,
        percentile(latency.clone(), 99) * 1e3
    );
    let median = percentile(out_gaps.clone(), 50);
    let late = out_gaps
        .iter()
        .filter(|g| (*g - median).abs() > 0.002)
        .count();
    eprintln!(
        "buffer 3 while recording: {late} of {} live intervals more than 2 ms off the period",
        out_gaps.len()
    );
    assert!(dev(&in_gaps) > 0.006, "the input jitters");
    // Quiet, the p99 is under 1 ms; a machine busy with other builds
    // delays a few sends by some ms: the test asks for the order of
    // magnitude (re-clocked, the jitter is less than half the input's; the
    // figure is the benchmark's, docs/measurements.md).
    let typical = percentile(out_gaps.iter().map(|g| (g - median).abs()).collect(), 50);
    assert!(typical < 0.0005, "out median deviation {typical}");
    assert!(
        dev(&out_gaps) < dev(&in_gaps) / 2.0,
        "out p99 {} against the input's {}",
        dev(&out_gaps),
        dev(&in_gaps)
    );
    assert!(percentile(latency, 50) < 3.5 * PERIOD);

    // Each dropout: the fallback, the idle take, the return after K frames.
    let idle_values: HashSet<[u32; COUNT]> = recording_packets(&idle)
        .iter()
        .map(|p| values(p).map(f32::to_bits))
        .collect();
    let is_idle = |p: &[u8]| idle_values.contains(&values(p).map(f32::to_bits));
    for (start, len) in &dropouts {
        let first = sent[0].0;
        let last = sent
            .iter()
            .rposition(|(at, _)| secs(first, *at) < start + 0.05)
            .unwrap();
        let back = last + 1;
        let t_last = sent[last].0;
        let made = got
            .iter()
            .find(|(at, p)| *at > t_last && !index.contains_key(p.as_slice()))
            .unwrap();
        let reaction = secs(t_last, made.0);
        let on_idle = got
            .iter()
            .find(|(at, p)| *at > t_last && is_idle(p))
            .unwrap();
        let idle_after = secs(t_last, on_idle.0);
        let returned = got
            .iter()
            .find(|(_, p)| based_on(p).is_some_and(|i| i >= back))
            .unwrap();
        let kth = sent[back + K - 1].0;
        let return_after = secs(kth, returned.0);
        let live_again = got
            .iter()
            .find(|(at, p)| *at > returned.0 && index.contains_key(p.as_slice()))
            .unwrap();
        let fade_back = secs(returned.0, live_again.0);
        eprintln!(
            "dropout {len} s: first made frame {:.1} ms after the last live one, idle take at {:.1} ms, \
             back {:.1} ms after the {K}th frame, live again {:.1} ms later",
            reaction * 1e3,
            idle_after * 1e3,
            return_after * 1e3,
            fade_back * 1e3
        );
        assert!(
            (T - 0.002..=T + SLACK).contains(&reaction),
            "reaction {reaction}"
        );
        assert!(
            idle_after <= T + F + PERIOD + SLACK,
            "idle after {idle_after}"
        );
        assert!(
            return_after >= -0.002,
            "returned before the {K}th frame: {return_after}"
        );
        assert!(
            return_after <= 4.0 * PERIOD + SLACK,
            "return {return_after}"
        );
        assert!(fade_back <= F + PERIOD + SLACK, "fade back {fade_back}");
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
    let got = got.join().unwrap();
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
    assert_eq!(
        (live["fallbacks"].as_u64(), live["returns"].as_u64()),
        (Some(1), Some(1)),
        "{live}"
    );
    llv()
        .args(["box", &serve.addr(), "live", "off"])
        .timeout(Duration::from_secs(20))
        .assert()
        .success();
    assert!(status_json(&serve)["live"].is_null());
    let got = got.join().unwrap();
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
