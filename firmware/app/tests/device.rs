//! The player task as the control session drives it, on embassy-time's mock
//! clock, over a take store on the mock flash: latest-wins commands, stop at
//! once, read-ahead through a held store, and what the watchdog's keeper sees.

mod common;

use common::*;
use embassy_futures::block_on;
use embassy_futures::select::{select, Either};
use embassy_sync::mutex::Mutex;
use embassy_time::{Duration, Instant, Timer};
use embedded_storage_async::nor_flash::{NorFlash, ReadNorFlash};
use llv_box::device::{run_player, BoxDevice, BoxState};
use llv_box::library::{BoxLibrary, BoxTake};
use llv_box::read_ahead::SharedLibrary;
use llv_box::watchdog::STALL_LIMIT;
use llv_box_store::mock::{synthetic_image, MockFlash};
use llv_box_store::Store;
use llv_card::{Card, CardPort, NoCard};
use llv_control::mock::ScriptedStream;
use llv_control::{serve_connection, ConnectionBuffers, Control, Limits, Paced, Penalties, LIMITS};
use llv_core::control::{
    encode, Ended, Request, Response, Start, MAX_FRAME, PREFIX_LEN, PROTOCOL_VERSION,
};
use llv_core::take::{TakeImage, MAX_CHUNK};

type Flash = MockFlash<4, 4096>;

const MS: Duration = Duration::from_millis(1);
const LIMIT: Duration = Duration::from_secs(120);

/// A store holding `frames` frames of synthetic take "t" (16.667 ms apart,
/// 264 to 563 bytes).
/// The library of the tests: a store, and a card slot that stays empty.
type SharedStore<F> = SharedLibrary<F, NoCard>;

static NO_CARD: CardPort<NoCard> = CardPort::new(NoCard);

fn shelf<F: NorFlash>(store: Store<F>) -> SharedStore<F> {
    Mutex::new(Paced::new(BoxLibrary {
        store,
        card: Card::new(&NO_CARD),
    }))
}

fn store_with(frames: u32) -> (SharedStore<Flash>, Vec<u8>) {
    store_of(synthetic_image("t", frames, 5))
}

/// A store holding take "t" of `frames` frames of 320 bytes (what Live Link
/// Face sends), 16.667 ms apart.
fn store_of_usual_frames(frames: u32) -> SharedStore<Flash> {
    let mut image = vec![0u8; llv_core::take::image_len(frames, 320 * frames as usize)];
    let mut w = llv_core::take::ImageWriter::new(&mut image, "t", frames).unwrap();
    for i in 0..frames {
        w.push(i * 16_667, &[i as u8; 320]).unwrap();
    }
    w.finish(frames * 16_667).unwrap();
    store_of(image).0
}

/// A store holding take "t" of `frames` frames of the largest packet a take
/// holds (774 bytes: a long device id and subject), 16.667 ms apart.
fn store_of_largest_frames(frames: u32) -> SharedStore<Flash> {
    let len = llv_core::packet::MAX_LEN;
    let mut image = vec![0u8; llv_core::take::image_len(frames, len * frames as usize)];
    let mut w = llv_core::take::ImageWriter::new(&mut image, "t", frames).unwrap();
    for i in 0..frames {
        w.push(i * 16_667, &vec![i as u8; len]).unwrap();
    }
    w.finish(frames * 16_667).unwrap();
    store_of(image).0
}

fn store_of(image: Vec<u8>) -> (SharedStore<Flash>, Vec<u8>) {
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
    (shelf(store), image)
}

/// Runs the player task beside `script` until the script ends.
fn with_player<F: NorFlash, T>(
    store: &SharedStore<F>,
    state: &BoxState,
    sink: &mut Recorder,
    script: impl std::future::Future<Output = T>,
) -> T {
    match on_mock_clock(select(run_player(store, state, sink), script), MS, LIMIT) {
        Either::First(never) => never,
        Either::Second(out) => out,
    }
}

fn play<F: NorFlash>(store: &SharedStore<F>, state: &BoxState, loops: u32) {
    let reader = BoxTake::Flash(store.try_lock().unwrap().store.reader("t").unwrap());
    state.request_play(reader, &[target(9)], loops, Start::Now);
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
    // The status keeps how it went until the next play.
    assert!(state.playing().is_none());
    let last = state.last().expect("the last playback");
    assert_eq!(
        (last.take.as_str(), last.frames, last.dropped, last.ended),
        ("t", 6, 0, Ended::Stopped)
    );
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
    // Played to its end: done, all 60 frames.
    let last = state.last().expect("the last playback");
    assert_eq!((last.frames, last.ended), (60, Ended::Done));
    let second: Vec<_> = sink.sent[before..].iter().map(|s| &s.bytes).collect();
    // The first play's frames at 0, 16.667 and 33.334 ms, then the second play whole.
    let expected: Vec<_> = packets[..3].iter().chain(&packets).collect();
    assert!(
        second == expected,
        "{} frames, expected 3 + 60",
        second.len()
    );
}

/// Asserts every frame of `sink` left within 1 ms of its deadline from `start`.
fn assert_on_time(sink: &Recorder, start: Instant) {
    for (i, s) in sink.sent.iter().enumerate() {
        let due = u64::from(i as u32 * 16_667);
        let late = (s.at - start).as_micros().saturating_sub(due);
        assert!(late < 1_000, "frame {i} late by {late} us");
    }
}

#[test]
fn frames_stay_on_time_while_an_erase_holds_the_store() {
    let _clock = clock();
    let store = store_of_usual_frames(300);
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
    assert_on_time(&sink, start);
}

#[test]
fn the_largest_frames_stay_on_time_through_the_worst_erase() {
    let _clock = clock();
    let store = store_of_largest_frames(400);
    let state = BoxState::new();
    let mut sink = Recorder::default();
    let start = Instant::now();
    with_player(&store, &state, &mut sink, async {
        play(&store, &state, 1);
        Timer::after(Duration::from_millis(500)).await;
        // The ring is full (a start fills it, as an erase waits for it to
        // be); then an H7 sector erase at its worst: 2.2 s with the store held.
        let held = store.lock().await;
        Timer::after(Duration::from_millis(2200)).await;
        drop(held);
        Timer::after(Duration::from_secs(5)).await;
    });
    assert_eq!(sink.sent.len(), 400);
    assert_on_time(&sink, start);
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

/// The mock flash with the STM32H7's geometry and its erase time.
struct H7Like(MockFlash<32, { 128 * 1024 }>);

impl embedded_storage_async::nor_flash::ErrorType for H7Like {
    type Error = llv_box_store::mock::MockError;
}

impl ReadNorFlash for H7Like {
    const READ_SIZE: usize = 1;
    async fn read(&mut self, offset: u32, bytes: &mut [u8]) -> Result<(), Self::Error> {
        self.0.read(offset, bytes).await
    }
    fn capacity(&self) -> usize {
        self.0.capacity()
    }
}

impl NorFlash for H7Like {
    const WRITE_SIZE: usize = 32;
    const ERASE_SIZE: usize = 128 * 1024;
    async fn erase(&mut self, from: u32, to: u32) -> Result<(), Self::Error> {
        for _ in (from..to).step_by(Self::ERASE_SIZE) {
            Timer::after(Duration::from_millis(1100)).await;
        }
        self.0.erase(from, to).await
    }
    async fn write(&mut self, offset: u32, bytes: &[u8]) -> Result<(), Self::Error> {
        self.0.write(offset, bytes).await
    }
}

/// Plays 1200 usual frames while a 1.2 MB upload (ten 1.1 s erases) comes
/// in over the control port with `limits`; returns what was sent, when the
/// playback started, and how long the upload took.
fn upload_while_playing(limits: Limits) -> (Recorder, Instant, Duration) {
    // A flash like the H7's bank 2 (16 sectors here), holding a take of usual frames.
    let region = 0..16 * 128 * 1024;
    let mut store = block_on(Store::mount(
        H7Like(MockFlash::new(region.end as usize)),
        region,
    ));
    let frames = 1200;
    let mut take = vec![0u8; llv_core::take::image_len(frames, 320 * frames as usize)];
    let mut w = llv_core::take::ImageWriter::new(&mut take, "t", frames).unwrap();
    for i in 0..frames {
        w.push(i * 16_667, &[i as u8; 320]).unwrap();
    }
    w.finish(frames * 16_667).unwrap();
    let h = TakeImage::parse(&take).unwrap().header().clone();
    // Its erases wait on the (mock) clock.
    on_mock_clock(
        async {
            let id = store.begin_upload("t", h.total_len, h.crc32).await.unwrap();
            for (i, chunk) in take.chunks(MAX_CHUNK).enumerate() {
                let at = (i * MAX_CHUNK) as u32;
                store.write_chunk(id, at, chunk).await.unwrap();
            }
            store.commit_upload(id).await.unwrap();
        },
        MS,
        LIMIT,
    );
    let store = shelf(store);
    // The host's side: an upload of 1.2 MB (ten sectors) in 1 KiB chunks.
    let big = synthetic_image("big", 3000, 7);
    let big_header = TakeImage::parse(&big).unwrap().header().clone();
    let mut input = Vec::new();
    let mut push = |r: &Request<'_>| {
        let mut buf = vec![0u8; PREFIX_LEN + MAX_FRAME];
        input.extend_from_slice(encode(r, &mut buf).unwrap());
    };
    push(&Request::Hello {
        protocol: PROTOCOL_VERSION,
        token: None,
    });
    push(&Request::UploadBegin {
        name: "big",
        total_len: big_header.total_len,
        crc32: big_header.crc32,
        place: llv_core::control::Place::Internal,
    });
    for (i, chunk) in big.chunks(1024).enumerate() {
        push(&Request::UploadChunk {
            offset: (i * 1024) as u32,
            data: chunk,
        });
    }
    push(&Request::UploadCommit);
    let mut io = ScriptedStream::new(input, 4096);

    let state = BoxState::new();
    let mut sink = Recorder::default();
    let penalties = Penalties::new();
    let control = Control {
        firmware: "test",
        library: &store,
        penalties: &penalties,
        limits,
        finish: llv_control::InPlace,
    };
    let start = Instant::now();
    let uploaded = with_player(&store, &state, &mut sink, async {
        play(&store, &state, 1);
        Timer::after(Duration::from_millis(100)).await;
        let mut buffers = ConnectionBuffers::new();
        let mut device = BoxDevice { state: &state };
        let began = Instant::now();
        serve_connection(
            &mut io,
            [10, 0, 2, 2],
            &control,
            &mut device,
            &mut buffers,
            &(),
        )
        .await;
        let took = Instant::now() - began;
        Timer::after(Duration::from_secs(25)).await;
        took
    });
    let responses = io.responses();
    assert!(
        responses
            .iter()
            .all(|r| *r == Response::Ok || matches!(r, Response::Hello { .. })),
        "{:?}",
        responses.last()
    );
    assert_eq!(responses.len(), big.len().div_ceil(1024) + 3);
    assert!(store
        .try_lock()
        .unwrap()
        .store
        .list()
        .iter()
        .any(|t| t.name == "big"));
    (sink, start, uploaded)
}

#[test]
fn an_upload_through_the_control_port_makes_no_frame_late() {
    let _clock = clock();
    let (sink, start, uploaded) = upload_while_playing(LIMITS);
    assert!(
        uploaded > Duration::from_secs(11),
        "ten 1.1 s erases: {uploaded:?}"
    );
    assert_eq!(sink.sent.len(), 1200);
    assert_on_time(&sink, start);
    // Without the erases' wait for the read-ahead, back-to-back erases starve it.
    let (sink, start, _) = upload_while_playing(Limits {
        read_ahead: Duration::from_ticks(0),
        ..LIMITS
    });
    let latest = sink
        .sent
        .iter()
        .enumerate()
        .map(|(i, s)| (s.at - start).as_micros().saturating_sub(i as u64 * 16_667))
        .max();
    assert!(latest > Some(100_000), "latest frame {latest:?} us late");
}
