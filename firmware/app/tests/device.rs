//! The player task as the control session drives it, on embassy-time's mock
//! clock, over a take store on the mock flash: latest-wins commands, stop at
//! once, read-ahead through a held store, and what the watchdog's keeper sees.

mod common;

use common::*;
use embassy_futures::block_on;
use embassy_futures::select::{select, Either};
use embassy_sync::mutex::Mutex;
use embassy_time::{Duration, Instant, Timer};
use llv_box::device::{run_player, BoxState};
use llv_box::health::STALL_LIMIT;
use llv_box::stored::SharedStore;
use llv_box_store::mock::{synthetic_image, MockFlash};
use llv_box_store::Store;
use llv_core::take::TakeImage;

type Flash = MockFlash<4, 4096>;

const MS: Duration = Duration::from_millis(1);
const LIMIT: Duration = Duration::from_secs(120);

/// A store holding `frames` frames of synthetic take "t" (16.667 ms apart).
fn store_with(frames: u32) -> (SharedStore<Flash>, Vec<u8>) {
    let image = synthetic_image("t", frames, 5);
    let h = TakeImage::parse(&image).unwrap().header().clone();
    let mut store = block_on(Store::mount(Flash::new(256 * 4096), 0..256 * 4096));
    block_on(async {
        let id = store.begin_upload("t", h.total_len, h.crc32).await.unwrap();
        for (i, part) in image.chunks(1024).enumerate() {
            store
                .write_chunk(id, (i * 1024) as u32, part)
                .await
                .unwrap();
        }
        store.commit_upload(id).await.unwrap();
    });
    (Mutex::new(store), image)
}

/// Runs the player task beside `script` until the script ends.
fn with_player<T>(
    store: &SharedStore<Flash>,
    state: &BoxState,
    sink: &mut Recorder,
    script: impl std::future::Future<Output = T>,
) -> T {
    match on_mock_clock(select(run_player(store, state, sink), script), MS, LIMIT) {
        Either::First(never) => never,
        Either::Second(out) => out,
    }
}

fn play(store: &SharedStore<Flash>, state: &BoxState, loops: u32) {
    let reader = store.try_lock().unwrap().reader("t").unwrap();
    state.request_play(reader, &[target(9)], loops);
}

#[test]
fn a_stop_right_after_a_play_wins() {
    let _clock = clock();
    let (store, _) = store_with(10);
    let state = BoxState::new();
    let mut sink = Recorder::default();
    with_player(&store, &state, &mut sink, async {
        play(&store, &state, 1);
        state.request_stop();
        Timer::after(Duration::from_secs(1)).await;
    });
    assert!(sink.sent.is_empty(), "{} frames sent", sink.sent.len());
    assert!(state.playing().is_none());
}

#[test]
fn a_stop_during_playback_ends_it_at_once_and_a_play_replaces_it() {
    let _clock = clock();
    let (store, image) = store_with(60);
    let packets: Vec<Vec<u8>> = TakeImage::parse(&image)
        .unwrap()
        .frames()
        .map(|(_, p)| p.to_vec())
        .collect();
    let state = BoxState::new();
    let mut sink = Recorder::default();
    let stopped_at = with_player(&store, &state, &mut sink, async {
        play(&store, &state, 0);
        Timer::after(Duration::from_millis(100)).await;
        let playing = state.playing().unwrap();
        assert_eq!(playing.take.as_str(), "t");
        assert!(playing.frame >= 5, "{playing:?}");
        state.request_stop();
        let at = Instant::now();
        Timer::after(Duration::from_millis(500)).await;
        at
    });
    assert!(
        sink.sent.iter().all(|s| s.at <= stopped_at),
        "nothing after the stop"
    );
    let before = sink.sent.len();
    // Frames due at 0, 16.667, ..., 83.335 ms; the next, at 100.002 ms, was stopped.
    assert_eq!(before, 6);
    for (i, s) in sink.sent.iter().enumerate() {
        assert_eq!(s.bytes, packets[i], "frame {i}");
    }
    // A new play starts from frame 0 and replaces nothing left over.
    with_player(&store, &state, &mut sink, async {
        play(&store, &state, 1);
        Timer::after(Duration::from_millis(50)).await;
        play(&store, &state, 1);
        Timer::after(Duration::from_secs(2)).await;
    });
    let second: Vec<_> = sink.sent[before..].iter().map(|s| &s.bytes).collect();
    // The first play's frames at 0, 16.667 and 33.334 ms, then the second play whole.
    let expected: Vec<_> = packets[..3].iter().chain(&packets).collect();
    assert!(
        second == expected,
        "{} frames, expected 3 + 60",
        second.len()
    );
}

#[test]
fn frames_stay_on_time_while_an_erase_holds_the_store() {
    let _clock = clock();
    let (store, _) = store_with(300);
    let state = BoxState::new();
    let mut sink = Recorder::default();
    let start = Instant::now();
    with_player(&store, &state, &mut sink, async {
        play(&store, &state, 1);
        Timer::after(Duration::from_millis(500)).await;
        // An H7 sector erase at its worst: 2.2 s with the store held.
        let held = store.lock().await;
        Timer::after(Duration::from_millis(2200)).await;
        drop(held);
        Timer::after(Duration::from_secs(3)).await;
    });
    assert_eq!(sink.sent.len(), 300);
    for (i, s) in sink.sent.iter().enumerate() {
        let due = u64::from(i as u32 * 16_667);
        let late = (s.at - start).as_micros().saturating_sub(due);
        assert!(late < 1_000, "frame {i} late by {late} us");
    }
}

#[test]
fn the_keeper_sees_a_player_stuck_on_a_store_that_never_frees() {
    let _clock = clock();
    let (store, _) = store_with(1000);
    let state = BoxState::new();
    let mut sink = Recorder::default();
    let stalled_after = with_player(&store, &state, &mut sink, async {
        assert!(!state.player_stalled(Instant::now(), STALL_LIMIT));
        play(&store, &state, 0);
        Timer::after(Duration::from_millis(100)).await;
        let _held = store.lock().await;
        let held_at = Instant::now();
        // The read-ahead plays on for a few seconds, then the player waits.
        while !state.player_stalled(Instant::now(), STALL_LIMIT) {
            Timer::after(Duration::from_millis(100)).await;
            assert!(
                Instant::now() - held_at < Duration::from_secs(60),
                "no stall seen"
            );
        }
        Instant::now() - held_at
    });
    // The frames the ring held went out on time; the stall counts from the last one.
    let last = sink.sent.last().unwrap().at;
    assert!(
        sink.sent.len() > 100,
        "{} frames from the ring",
        sink.sent.len()
    );
    assert!(stalled_after > STALL_LIMIT, "{stalled_after:?}");
    let stalled_at = Instant::now();
    assert!(stalled_at - last > STALL_LIMIT);
    assert!(stalled_at - last <= STALL_LIMIT + Duration::from_millis(200));
}
