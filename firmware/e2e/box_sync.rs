//! End to end: two boxes under QEMU in step with a show. Both chase one
//! Art-Net timecode master (30 fps, with bad packets, a 2 s dropout and a
//! 2 s jump): after lock every frame arrives within a frame of the moment the
//! master's timecode reached it, the dropout freewheels and re-locks, the
//! jump locates, bad packets are counted; then `llv box A B play --together`
//! starts both at one instant. Frames of the two boxes that arrive at the
//! same moment are at most a frame apart. The figures are the benchmark's
//! (`cargo bench -p llv-tests --bench box_sync`).
//!
//! Needs `qemu-system-arm` and the `thumbv7em-none-eabihf` target. Lives in
//! the root `tests` crate.

use std::thread;
use std::time::{Duration, Instant};

use llv_tests::sync;
use sync::*;

/// One take frame in ms.
const FRAME_MS: f64 = 1000.0 / 60.0;

/// The chase states box `i` went through while `until` had not passed.
fn watch_states(pair: &Pair, i: usize, until: Instant) -> Vec<String> {
    let mut states: Vec<String> = Vec::new();
    while Instant::now() < until {
        let status = pair.status(i);
        if let Some(state) = status["playing"]["chase"]["state"].as_str() {
            if states.last().map(String::as_str) != Some(state) {
                states.push(state.to_string());
            }
        }
        thread::sleep(Duration::from_millis(100));
    }
    states
}

/// Whether `want` appears in `seen` in this order (other states may come between).
fn in_order(seen: &[String], want: &[&str]) -> bool {
    let mut rest = seen.iter();
    want.iter().all(|w| rest.any(|s| s == w))
}

#[test]
fn two_boxes_chase_one_master_and_start_together_in_step() {
    let dir = tempfile::tempdir().unwrap();
    let take = sequence_take(dir.path(), "0.25");
    let pair = Pair::boot(dir.path(), &take);

    // Chase: timecode from 1 s before the take's place, for 10 s; lost from
    // 4 s to 6 s; 2 s ahead from 8 s on.
    pair.llv(&["play", "seq", "--chase", "--offset", OFFSET])
        .success();
    let master = Master {
        start: OFFSET_FRAMES - 30,
        frames: 300,
        dropout: Some((120, 180)),
        jump: Some((240, 60)),
    };
    let (t0, generator) = master.start(vec![pair.boxes[0].artnet, pair.boxes[1].artnet]);
    let end = t0 + Duration::from_millis(10_300);
    let (states, got) = thread::scope(|s| {
        let watching = s.spawn(|| watch_states(&pair, 0, end));
        let got = pair.receive(end.saturating_duration_since(Instant::now()));
        (watching.join().unwrap(), got)
    });
    generator.join().unwrap();
    assert!(
        in_order(&states, &["locked", "freewheel", "locked"]),
        "{states:?}"
    );
    let status = pair.status(0);
    let chase = &status["playing"]["chase"];
    assert!(chase["locates"].as_u64().unwrap() >= 1, "{status}");
    assert_eq!(chase["bad_packets"], 24, "{status}");
    assert_eq!(chase["timecode_frames"], 240, "{status}");
    for (i, frames) in got.iter().enumerate() {
        assert!(frames.len() > 400, "box {i}: {} frames", frames.len());
        // In order but for the one jump ahead.
        let backwards = frames.windows(2).filter(|w| w[1].1 < w[0].1).count();
        let jumps = frames.windows(2).filter(|w| w[1].1 > w[0].1 + 30).count();
        assert_eq!((backwards, jumps), (0, 1), "box {i}");
        let errors = errors_ms(
            &master,
            t0,
            &pair.media_us,
            frames,
            Duration::from_millis(1_200),
            Duration::from_millis(100),
        );
        assert!(
            abs_quantile(&errors, 0.95) <= FRAME_MS,
            "box {i}: p95 error {:.1} ms",
            abs_quantile(&errors, 0.95)
        );
        assert!(
            abs_quantile(&errors, 1.0) <= 6.0 * FRAME_MS,
            "box {i}: worst error {:.1} ms",
            abs_quantile(&errors, 1.0)
        );
    }
    let skews = skews_ms(&got[0], &got[1]);
    assert!(
        abs_quantile(&skews, 0.95) <= FRAME_MS,
        "chase skew {skews:?}"
    );

    // Together: both start at one instant on their own clocks.
    pair.llv(&["stop"]).success();
    pair.drain();
    pair.llv(&["play", "seq", "--together"]).success();
    let got = pair.receive(Duration::from_secs(4));
    for (i, frames) in got.iter().enumerate() {
        let indexes: Vec<u32> = frames.iter().map(|f| f.1).collect();
        assert_eq!(
            indexes,
            (0..indexes.len() as u32).collect::<Vec<_>>(),
            "box {i}: every frame from the first, in order"
        );
        assert!(indexes.len() > 150, "box {i}: {} frames", indexes.len());
    }
    let skews = skews_ms(&got[0], &got[1]);
    assert!(
        abs_quantile(&skews, 0.95) <= FRAME_MS && abs_quantile(&skews, 1.0) <= 3.0 * FRAME_MS,
        "together: skew p95 {:.1} ms, worst {:.1} ms",
        abs_quantile(&skews, 0.95),
        abs_quantile(&skews, 1.0)
    );
    pair.llv(&["stop"]).success();
}
