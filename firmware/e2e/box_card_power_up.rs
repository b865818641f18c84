//! End to end: the box under QEMU meets a microSD card that is slow to come
//! up (`card_power_up_ms=N`: the card stays busy N ms at each
//! initialisation, as a real card's power-up loop does on the NUCLEO), and
//! one that never comes up (busy past the 1 s the slot gives a card).
//!
//! Checks: a card put in while a flash take plays comes up after its
//! power-up, with no frame held by it (none later than QEMU's own noise,
//! by the box's count and at the laptop), and the control port answers all
//! along, none of its answers waiting for the power-up; a
//! card that stays busy leaves the box booting and serving, with the fault in
//! words in its status, and no restart by the watchdog (its uptime only
//! grows).
//!
//! Needs `qemu-system-arm`, `mkfs.fat` (dosfstools) and the
//! `thumbv7em-none-eabihf` target. Lives in the root `tests` crate.

use std::path::Path;
use std::time::{Duration, Instant};

use llv_tests::card::*;
use llv_tests::flash_box::*;
use llv_tests::{example, llv_packets};
use serde_json::Value;

/// How long the slow card stays busy at its power-up (under the slot's 1 s).
const SLOW_MS: u64 = 900;

/// A card image in `dir` holding two short takes of the phone's frames.
fn small_card(dir: &Path) -> std::path::PathBuf {
    let card = dir.join("card.img");
    blank_card(&card);
    write_cues(&card, 2, &llv_packets(&example("dao.gesichter")));
    card
}

/// The card's removal file: the slot is empty while it exists.
fn out_file(card: &Path) -> std::path::PathBuf {
    card.with_extension("img.out")
}

/// `llv box status --json`, and how long the box took to answer it.
fn timed_status(b: &QemuBox) -> (Value, Duration) {
    let asked = Instant::now();
    let status = b.json(&["box", "{box}", "status", "--json"]);
    (status, asked.elapsed())
}

#[test]
fn a_card_coming_up_while_a_flash_take_plays_holds_no_frame_and_the_box_answers() {
    let dir = tempfile::tempdir().unwrap();
    let card = small_card(dir.path());
    std::fs::write(out_file(&card), b"").unwrap();
    let b = QemuBox::boot_with(
        firmware(),
        &dir.path().join("flash.bin"),
        &format!("card={} card_power_up_ms={SLOW_MS}", card.display()),
    );
    flash_dao(&b);
    let (socket, target) = receiver();
    b.llv(&["box", "{box}", "play", "dao", "--loop", "--to", &target])
        .success();
    let receiving = std::thread::spawn(move || arrivals(&socket, Instant::now() + STRETCH));
    // The same Status every 100 ms for 3 s before the card goes in: what
    // the host's scheduling of QEMU alone costs.
    let quiet = Instant::now();
    let mut before = Value::Null;
    let mut slowest_before = Duration::ZERO;
    while quiet.elapsed() < Duration::from_secs(3) {
        let took;
        (before, took) = timed_status(&b);
        slowest_before = slowest_before.max(took);
        std::thread::sleep(Duration::from_millis(100));
    }
    let late_before = before["playing"]["late_frames"].as_u64().unwrap();

    // In goes the card; the box answers Status all through its power-up.
    std::fs::remove_file(out_file(&card)).unwrap();
    let inserted = Instant::now();
    let mut slowest = Duration::ZERO;
    let came_up = loop {
        let (status, took) = timed_status(&b);
        slowest = slowest.max(took);
        if status["card"]["takes"].as_u64() == Some(2) && status["card"]["scanning"] == false {
            break inserted.elapsed();
        }
        assert!(
            inserted.elapsed() < Duration::from_secs(20),
            "the card did not come up: {status}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let got = receiving.join().unwrap();
    let (status, _) = timed_status(&b);
    let playing = &status["playing"];
    let late = playing["late_frames"].as_u64().unwrap();
    let worst_us = playing["max_late_us"].as_u64().unwrap();
    let laptop = worst_lateness_ms(&got);
    eprintln!(
        "card up {came_up:?} after it went in; Status answered within {slowest:?} \
         ({slowest_before:?} before); \
         box: {late} frames late ({late_before} of them in the 3 s before the card went in), \
         latest {worst_us} µs; laptop: {} frames, the latest {laptop:.1} ms late",
        got.len()
    );
    assert!(
        came_up >= Duration::from_millis(SLOW_MS),
        "the card came up in {came_up:?}, before its power-up was over"
    );
    // A frame held by the card's power-up would be SLOW_MS late, by the
    // box's count and at the laptop.
    assert!(
        worst_us < LATE_US,
        "a frame {worst_us} µs late by the box's count: {status}"
    );
    assert!(
        laptop < LATE_US as f64 / 1000.0,
        "a frame {laptop:.1} ms late at the laptop"
    );
    // The card initialises without the library held: Status waits for
    // none of its power-up.
    assert!(
        slowest < Duration::from_millis(SLOW_MS / 2),
        "Status took {slowest:?} during the card's power-up ({slowest_before:?} before)"
    );
}

/// How long the flash take plays in the first test.
const STRETCH: Duration = Duration::from_secs(10);

/// The latest a frame may be, in µs: a sixth of the card's power-up. What
/// QEMU on a machine with both cores busy makes late comes with or without a
/// card (frames more than 2 ms late, some by tens of ms: the test prints how
/// many came in the 3 s before the card went in).
const LATE_US: u64 = 150_000;

/// The latest frame at the laptop, in ms, against the take's own schedule,
/// each pass through the looping take on its own.
fn worst_lateness_ms(got: &[Arrival]) -> f64 {
    let mut worst = 0.0f64;
    let mut pass_start = 0;
    for i in 1..=got.len() {
        let wrapped = i == got.len() || media_us(&got[i].bytes) < media_us(&got[i - 1].bytes);
        if wrapped {
            let late = lateness_ms(&got[pass_start..i]);
            worst = late.iter().copied().fold(worst, f64::max);
            pass_start = i;
        }
    }
    worst
}

#[test]
fn a_card_that_stays_busy_is_reported_and_the_box_serves_on_without_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let card = small_card(dir.path());
    let b = QemuBox::boot_with(
        firmware(),
        &dir.path().join("flash.bin"),
        &format!("card={} card_power_up_ms=3600000", card.display()),
    );
    flash_dao(&b);
    // Looks at the card back off to one every 8 s, each a second long: 20 s
    // hold several, and far more than the watchdog's 2 s.
    let start = Instant::now();
    let mut uptime = 0;
    let mut reported = None;
    while start.elapsed() < Duration::from_secs(20) {
        let (status, _) = timed_status(&b);
        let now = status["uptime_ms"].as_u64().unwrap();
        assert!(
            now > uptime,
            "uptime went from {uptime} to {now} ms: the box restarted"
        );
        uptime = now;
        let faults = status["faults"].as_array().unwrap();
        assert!(
            faults.iter().all(|f| f["code"] != "WatchdogReset"),
            "{status}"
        );
        if let Some(f) = faults.iter().find(|f| f["code"] == "CardUnusable") {
            reported = Some(f["detail"].as_str().unwrap().to_string());
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    let detail = reported.expect("the card's fault in the status");
    assert!(detail.contains("stays busy"), "{detail}");
    let text = b.llv(&["box", "{box}", "status"]).success();
    let text = String::from_utf8_lossy(&text.get_output().stdout).to_string();
    assert!(text.contains("stays busy past its 1 s power-up"), "{text}");
    assert!(text.contains("\nclock    emulated"), "{text}");
    assert!(uptime >= 19_000, "up {uptime} ms");
    assert_plays_dao(&b);
}
