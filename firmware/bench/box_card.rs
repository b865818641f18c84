//! Benchmark: the whole 30-minute card take under QEMU, with 100 ms read
//! stalls every 3 s (as the test `box_card.rs` plays 20 s of it). Prints the
//! frames received and whether every one was byte-identical and in order,
//! the worst lateness against the take's own schedule and the worst gap
//! seen here, the box's own count of late frames and latest frame, and the
//! read-ahead's low-water mark (the fewest frames it held, from `Status`).
//! `cargo bench -p llv-tests --bench box_card` (needs qemu-system-arm and
//! mkfs.fat); `LLV_CARD_BENCH_SECS=N` plays only the first N seconds.

use std::time::{Duration, Instant};

use llv_tests::llv_packets;

use card::*;
use llv_tests::card;
use llv_tests::flash_box;

fn main() {
    let seconds: u64 = std::env::var("LLV_CARD_BENCH_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1800);
    let dir = tempfile::tempdir().unwrap();
    let (image, long) = show_card(dir.path());
    let b = boot_on_card(dir.path(), &image, "");
    let scan_from = Instant::now();
    let takes = wait_listed(&b, 3, SCAN_TIMEOUT);
    println!(
        "card scanned (CRC of every take, the long one {} bytes) within {:.1} s of boot",
        takes[0]["total_len"],
        scan_from.elapsed().as_secs_f64()
    );
    let expected = llv_packets(&long);
    let frames = ((seconds * 60) as usize).min(expected.len());

    let (socket, target) = flash_box::receiver();
    b.llv(&["box", "{box}", "play", "long", "--to", &target])
        .success();
    let end = Instant::now() + Duration::from_secs(seconds) + Duration::from_secs(5);
    let mut low = u64::MAX;
    let mut box_late = (0, 0);
    // Frames are received on their own thread (arrival times untouched by
    // the polls of the box's status here).
    let got = std::thread::scope(|scope| {
        let receiving = scope.spawn(|| {
            let mut got = Vec::with_capacity(frames);
            let mut buf = [0u8; 2048];
            while got.len() < frames && Instant::now() < end {
                if let Ok(n) = socket.recv(&mut buf) {
                    got.push(Arrival {
                        at: Instant::now(),
                        bytes: buf[..n].to_vec(),
                    });
                }
            }
            got
        });
        while !receiving.is_finished() {
            std::thread::sleep(Duration::from_secs(1));
            let status = b.json(&["box", "{box}", "status", "--json"]);
            let p = &status["playing"];
            if let Some(l) = p["read_ahead_low"].as_u64() {
                low = low.min(l);
            }
            if let (Some(n), Some(us)) = (p["late_frames"].as_u64(), p["max_late_us"].as_u64()) {
                box_late = (n, us);
            }
        }
        receiving.join().unwrap()
    });
    b.llv(&["box", "{box}", "stop"]).success();
    let exact = got.len() == frames && got.iter().zip(&expected).all(|(g, e)| g.bytes == *e);
    let late = lateness_ms(&got);
    let worst = late.iter().copied().fold(0.0, f64::max);
    let mut sorted = late.clone();
    sorted.sort_by(f64::total_cmp);
    let p99 = sorted.get(sorted.len() * 99 / 100).copied().unwrap_or(0.0);
    println!(
        "{} of {frames} frames ({:.0} s) under {STALL_MS} ms stalls every {STALL_EVERY_MS} ms: {}",
        got.len(),
        frames as f64 / 60.0,
        if exact {
            "every one byte-identical and in order"
        } else {
            "NOT all byte-identical and in order"
        }
    );
    println!(
        "lateness against the take's schedule: p99 {p99:.1} ms, worst {worst:.1} ms; worst gap between frames {:.1} ms",
        worst_gap_ms(&got)
    );
    println!(
        "box: {} frames late by more than 2 ms, latest {:.1} ms",
        box_late.0,
        box_late.1 as f64 / 1e3
    );
    if low == u64::MAX {
        println!("read-ahead low-water mark: not reported");
    } else {
        println!(
            "read-ahead low-water mark: {low} frames ({:.2} s at 60 fps)",
            low as f64 / 60.0
        );
    }
}
