//! Benchmark: two boxes under QEMU in step with a show. Prints the lock time
//! (first timecode to first frame), each frame's arrival against the moment
//! the master's timecode reached it (p50 / p99, ms), and the skew between the
//! two boxes chasing and started `--together` (p50 / p99 / worst, ms).
//! `cargo bench -p llv-tests --bench box_sync` (needs qemu-system-arm).

use std::time::Duration;

use llv_tests::sync;
use sync::*;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let take = sequence_take(dir.path(), "1.0");
    let pair = Pair::boot(dir.path(), &take);

    // 60 s of timecode starting right at the take's first frame.
    pair.llv(&["play", "seq", "--chase", "--offset", OFFSET])
        .success();
    let master = Master {
        start: OFFSET_FRAMES,
        frames: 1800,
        dropout: None,
        jump: None,
    };
    let (t0, generator) = master.start(vec![pair.boxes[0].artnet, pair.boxes[1].artnet]);
    let got = pair.receive(Duration::from_secs(61));
    generator.join().unwrap();
    for (i, frames) in got.iter().enumerate() {
        let (first_at, _) = frames[0];
        let errors = errors_ms(
            &master,
            t0,
            &pair.media_us,
            frames,
            Duration::from_secs(1),
            Duration::ZERO,
        );
        println!(
            "chase, box {i}: lock {:.0} ms (first timecode to first frame); {} frames; error vs the master p50 {:+.2} ms, p99 {:+.2} ms (|p99| {:.2} ms)",
            first_at.duration_since(t0).as_secs_f64() * 1e3,
            frames.len(),
            quantile(&errors, 0.5),
            quantile(&errors, 0.99),
            abs_quantile(&errors, 0.99),
        );
    }
    report("chase", &skews_ms(&got[0], &got[1]));

    pair.llv(&["stop"]).success();
    pair.llv(&["play", "seq", "--together"]).success();
    let got = pair.receive(Duration::from_secs(30));
    report("together", &skews_ms(&got[0], &got[1]));
    pair.llv(&["stop"]).success();
}

fn report(what: &str, skews: &[f64]) {
    println!(
        "{what}: skew between the boxes over {} frames p50 {:+.2} ms, |p99| {:.2} ms, worst {:.2} ms",
        skews.len(),
        quantile(skews, 0.5),
        abs_quantile(skews, 0.99),
        abs_quantile(skews, 1.0),
    );
}
