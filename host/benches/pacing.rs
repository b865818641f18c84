//! Playback pacing to a loopback receiver: `cargo bench -p llv --bench pacing`.
//! Plays 661 frames (11 s) at 60 fps, once timed by the take's own frame times
//! and once with `--fps 60`, and prints the rate error in ppm and the p50 / p99 /
//! max interval between arrivals. Goal: <= 50 ppm, p99 within 0.3 ms of 16.667 ms.

mod common;

use std::net::UdpSocket;
use std::sync::atomic::AtomicBool;
use std::thread;
use std::time::{Duration, Instant};

use indicatif::ProgressBar;
use llv::commands::play::{play, Options};
use llv_core::time::FrameRate;

const FRAMES: usize = 661;

fn main() {
    let take = common::take(FRAMES);
    for (label, fps) in [
        ("frame times (default)", None),
        ("--fps 60", Some(FrameRate::FPS_60)),
    ] {
        let receiver = UdpSocket::bind("127.0.0.1:0").expect("bind receiver");
        let target = receiver.local_addr().expect("receiver address");
        receiver
            .set_read_timeout(Some(Duration::from_secs(2)))
            .expect("timeout");
        let listener = thread::spawn(move || {
            let mut arrivals = Vec::with_capacity(FRAMES);
            let mut buf = [0u8; 2048];
            while arrivals.len() < FRAMES && receiver.recv(&mut buf).is_ok() {
                arrivals.push(Instant::now());
            }
            arrivals
        });
        let options = Options {
            fps,
            repeat: Some(1),
            restamp: false,
        };
        let stop = AtomicBool::new(false);
        let played = play(&take, &[target], &options, &stop, &ProgressBar::hidden()).expect("play");
        let arrivals = listener.join().expect("listener");
        report(label, &arrivals);
        println!(
            "  sender: latest send {:.4} ms after its deadline, {} of {} sends more than 1 ms late",
            played.max_late.as_secs_f64() * 1e3,
            played.late_over_1ms,
            played.frames
        );
    }
}

fn report(label: &str, arrivals: &[Instant]) {
    let nominal = 1.0 / 60.0;
    let mut intervals: Vec<f64> = arrivals
        .windows(2)
        .map(|w| (w[1] - w[0]).as_secs_f64())
        .collect();
    let total = (arrivals[arrivals.len() - 1] - arrivals[0]).as_secs_f64();
    let mean = total / intervals.len() as f64;
    // Least-squares period: robust to one late first or last arrival.
    let times: Vec<f64> = arrivals
        .iter()
        .map(|a| (*a - arrivals[0]).as_secs_f64())
        .collect();
    let n = times.len() as f64;
    let (mean_i, mean_t) = ((n - 1.0) / 2.0, times.iter().sum::<f64>() / n);
    let (mut num, mut den) = (0.0, 0.0);
    for (i, t) in times.iter().enumerate() {
        num += (i as f64 - mean_i) * (t - mean_t);
        den += (i as f64 - mean_i).powi(2);
    }
    let fitted = num / den;
    intervals.sort_by(f64::total_cmp);
    let ms = |s: f64| s * 1e3;
    println!(
        "pacing {label}: {} frames over {:.3} s; rate error {:+.1} ppm first-to-last, {:+.1} ppm fitted; interval p50 {:.4} ms, p99 {:.4} ms, max {:.4} ms, min {:.4} ms (nominal {:.4} ms)",
        arrivals.len(),
        total,
        (mean - nominal) / nominal * 1e6,
        (fitted - nominal) / nominal * 1e6,
        ms(quantile(&intervals, 0.5)),
        ms(quantile(&intervals, 0.99)),
        ms(intervals[intervals.len() - 1]),
        ms(intervals[0]),
        ms(nominal),
    );
}

/// The value at quantile `q` (0..=1) of sorted `values`.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}
