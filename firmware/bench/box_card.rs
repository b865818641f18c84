//! Benchmark: the whole 30-minute card take under QEMU, with 100 ms read
//! stalls every 3 s (as the test `box_card.rs` plays 20 s of it). Prints the
//! frames received and whether every one was byte-identical and in order,
//! the worst lateness against the take's own schedule and the worst gap
//! seen here, the box's own count of late frames and latest frame, and the
//! read-ahead's low-water mark (the fewest frames it held, from `Status`).
//! `cargo bench -p llv-tests --bench box_card` (needs qemu-system-arm and
//! mkfs.fat); `LLV_CARD_BENCH_SECS=N` plays only the first N seconds.
//!
//! `LLV_CARD_BENCH=upload`: the box's own count of frames over 2 ms late
//! while the 30-minute take plays from the card, for as long as an upload of
//! a copy of it (35.4 MB) to the card takes, and for the same span with no
//! upload. `LLV_CARD_BENCH=takes`: a card of 1 000 takes (and one on flash):
//! the time from boot until the box's status says it scanned them all, and
//! the time `llv box list` takes to list the 1 001 a page at a time.

use std::time::{Duration, Instant};

use llv_tests::llv_packets;

use card::*;
use llv_tests::card;
use llv_tests::flash_box;

fn main() {
    match std::env::var("LLV_CARD_BENCH").as_deref() {
        Ok("upload") => return upload(),
        Ok("takes") => return takes(),
        _ => {}
    }
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

/// Plays the long take from its start while `run` runs; the box's count of
/// frames over 2 ms late, the frames sent, and the latest, at its end.
fn late_over(b: &flash_box::QemuBox, target: &str, run: impl FnOnce()) -> (u64, u64, u64) {
    b.llv(&["box", "{box}", "play", "long", "--to", target])
        .success();
    run();
    let s = b.json(&["box", "{box}", "status", "--json"]);
    b.llv(&["box", "{box}", "stop"]).success();
    let p = &s["playing"];
    let n = |k: &str| p[k].as_u64().unwrap();
    (n("late_frames"), n("frame"), n("max_late_us"))
}

fn upload() {
    let dir = tempfile::tempdir().unwrap();
    let (image, long) = show_card(dir.path());
    let copy = dir.path().join("copy.gesichter");
    std::fs::copy(&long, &copy).unwrap();
    let b = boot_on_card(dir.path(), &image, "");
    wait_listed(&b, 3, SCAN_TIMEOUT);
    let (_socket, target) = flash_box::receiver();
    let mut took = Duration::ZERO;
    let (late, frames, worst) = late_over(&b, &target, || {
        let started = Instant::now();
        llv_tests::llv()
            .args([
                "flash",
                copy.to_str().unwrap(),
                "--box",
                &b.addr(),
                "--to",
                "card",
            ])
            .timeout(Duration::from_secs(900))
            .assert()
            .success();
        took = started.elapsed();
    });
    println!(
        "upload of 35.4 MB to the card in {:.1} s while the long card take played: {late} of {frames} frames over 2 ms late, the latest {:.1} ms",
        took.as_secs_f64(),
        worst as f64 / 1e3
    );
    let (late, frames, worst) = late_over(&b, &target, || std::thread::sleep(took));
    println!(
        "the same span with no upload: {late} of {frames} frames over 2 ms late, the latest {:.1} ms",
        worst as f64 / 1e3
    );
}

fn takes() {
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("card.img");
    blank_card(&image);
    let dao = llv_tests::example("dao.gesichter");
    write_cues(&image, 1000, &llv_packets(&dao));
    let booting = Instant::now();
    let b = boot_on_card(dir.path(), &image, "");
    let booted = booting.elapsed();
    wait_scanned(&b, SCAN_TIMEOUT);
    let scanned = booting.elapsed();
    b.llv(&["flash", dao.to_str().unwrap(), "--box", "{box}"])
        .success();
    let started = Instant::now();
    let listed = list(&b).len();
    let listing = started.elapsed();
    println!(
        "the box answered {:.2} s after QEMU started; 1 000 card takes scanned (CRC of each) within {:.2} s of that; {listed} takes listed by `llv box list --json` in {:.2} s ({} pages)",
        booted.as_secs_f64(),
        (scanned - booted).as_secs_f64(),
        listing.as_secs_f64(),
        listed.div_ceil(16)
    );
}
