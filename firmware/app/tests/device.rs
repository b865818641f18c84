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
    let mut live = ScriptedLive::default();
    match on_mock_clock(
        select(run_player(store, state, sink, &mut live), script),
        MS,
        LIMIT,
    ) {
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

/// The real phone take's first `rows` frames (`alex_rom_3.csv`, 30 Hz
/// numbered at 60 fps): when the phone sent each (µs from the first, from
/// its timecode) and its packet.
fn phone_packets(rows: usize) -> Vec<(u64, Vec<u8>)> {
    use llv_core::blendshape::{COUNT, NAMES};
    use llv_core::packet::{FaceFrame, MAX_LEN, VERSION};
    use llv_core::time::{FrameRate, FrameTime};
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/llf/alex_rom_3.csv"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let index: Vec<usize> = header[2..]
        .iter()
        .map(|name| NAMES.iter().position(|n| n == name).unwrap())
        .collect();
    let mut first = None;
    lines
        .take(rows)
        .map(|line| {
            let cells: Vec<&str> = line.split(',').collect();
            let tc: Vec<f64> = cells[0].split(':').map(|p| p.parse().unwrap()).collect();
            let frames = ((tc[0] * 60.0 + tc[1]) * 60.0 + tc[2]) * 60.0 + tc[3];
            let first = *first.get_or_insert(frames);
            let mut blendshapes = [0.0; COUNT];
            for (cell, &i) in cells[2..].iter().zip(&index) {
                blendshapes[i] = cell.parse().unwrap();
            }
            let frame = FaceFrame {
                version: VERSION,
                device_id: "9E8C4C1B-phone",
                subject: "alex",
                time: FrameTime {
                    frame_number: frames.floor() as i32,
                    subframe: (frames - frames.floor()) as f32,
                    rate: FrameRate::FPS_60,
                },
                blendshapes,
            };
            let mut out = [0u8; MAX_LEN];
            let n = frame.encode(&mut out).unwrap();
            (((frames - first) / 60.0 * 1e6) as u64, out[..n].to_vec())
        })
        .collect()
}

/// Take "t": 60 face frames at 60 Hz, every value 0.25 (a resting face).
fn idle_image() -> Vec<u8> {
    use llv_core::packet::{FaceFrame, MAX_LEN, VERSION};
    let frames = 60u32;
    let mut packets = Vec::new();
    for i in 0..frames {
        let frame = FaceFrame {
            version: VERSION,
            device_id: "idle-device",
            subject: "idle",
            time: llv_core::time::FrameTime {
                frame_number: i as i32,
                subframe: 0.0,
                rate: llv_core::time::FrameRate::FPS_60,
            },
            blendshapes: [0.25; llv_core::blendshape::COUNT],
        };
        let mut out = [0u8; MAX_LEN];
        let n = frame.encode(&mut out).unwrap();
        packets.push((i * 16_667, out[..n].to_vec()));
    }
    let len = packets.iter().map(|(_, p)| p.len()).sum();
    let mut image = vec![0u8; llv_core::take::image_len(frames, len)];
    let mut w = llv_core::take::ImageWriter::new(&mut image, "t", frames).unwrap();
    for (t, p) in &packets {
        w.push(*t, p).unwrap();
    }
    w.finish(frames * 16_667).unwrap();
    image
}

#[test]
fn the_box_relays_a_phone_falls_back_to_the_idle_take_and_returns() {
    use llv_control::Playback;
    use llv_core::packet::FaceFrame;
    let _clock = clock();
    let (store, _) = store_of(idle_image());
    let state = BoxState::new();
    let mut sink = Recorder::default();
    // 8 s of the phone, ±8 ms of jitter, silent from 3.0 s for 0.5 s.
    let start = Instant::now() + Duration::from_millis(100);
    let mut live = ScriptedLive::default();
    let mut seed = 0x5eed_1234_abcd_0001u64;
    let mut arrived = Vec::new();
    for (t, packet) in phone_packets(240) {
        if (3_000_000..3_500_000).contains(&t) {
            continue;
        }
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let jitter = (seed >> 33) % 17_000;
        let at = start + Duration::from_micros(t + jitter);
        live.datagrams.push_back((at, packet.clone()));
        arrived.push((at, packet));
    }
    let mut settings = llv_core::settings::Settings::default();
    settings.targets.push(target(9)).unwrap();
    settings.live.buffer = 2;
    settings.live.idle = Some(heapless::String::try_from("t").unwrap());
    let end = arrived.last().unwrap().0 + Duration::from_millis(200);
    let (during, after) = match on_mock_clock(
        select(run_player(&store, &state, &mut sink, &mut live), async {
            let idle = BoxTake::Flash(store.try_lock().unwrap().store.reader("t").unwrap());
            let mut device = BoxDevice { state: &state };
            device.live(true, &settings, Some(idle)).unwrap();
            Timer::at(end).await;
            let during = device.live_status();
            device.live(false, &settings, None).unwrap();
            Timer::after(Duration::from_millis(100)).await;
            (during, device.live_status())
        }),
        MS,
        LIMIT,
    ) {
        Either::First(never) => never,
        Either::Second(out) => out,
    };
    let during = during.expect("the relay's status while it runs");
    assert_eq!((during.fallbacks, during.returns), (1, 1), "{during:?}");
    assert_eq!(during.frames_in, arrived.len() as u64);
    assert!(after.is_none(), "the relay is off");
    assert_eq!((live.listened.as_slice(), live.open), (&[11111][..], false));
    let sent = &sink.sent;
    let is_live = |p: &[u8]| arrived.iter().any(|(_, a)| a == p);
    // Every frame carries the phone's subject and device id.
    for s in sent {
        let f = FaceFrame::decode(&s.bytes).unwrap();
        assert_eq!((f.subject, f.device_id), ("alex", "9E8C4C1B-phone"));
    }
    // Before the dropout every live frame went out untouched, in order, on
    // the source's period (the buffer's exact tick: ±2 ms on the 1 ms mock clock).
    let before = arrived
        .iter()
        .filter(|(at, _)| *at < start + Duration::from_secs(3))
        .count();
    let untouched: Vec<&Sent> = sent.iter().filter(|s| is_live(&s.bytes)).collect();
    for (s, (_, a)) in untouched.iter().zip(&arrived[..before]) {
        assert_eq!(&s.bytes, a);
    }
    for w in untouched[30..before].windows(2) {
        let gap = (w[1].at - w[0].at).as_micros() as i64;
        assert!((gap - 33_333).abs() <= 2_000, "an interval of {gap} µs");
    }
    // The fallback: the first made frame within the timeout (and a period)
    // of the phone's last frame; on the idle take once the fade is done.
    let last_live = arrived[before - 1].0;
    let first_made = sent
        .iter()
        .find(|s| s.at > last_live && !is_live(&s.bytes))
        .expect("a frame made in the dropout");
    let react = (first_made.at - last_live).as_millis();
    assert!(
        (250..=250 + 70 + 34).contains(&react),
        "fell back {react} ms after the last frame"
    );
    let on_idle = first_made.at + Duration::from_millis(310);
    let idle_frames: Vec<&Sent> = sent
        .iter()
        // The phone is back at 3.5 s; the return begins after its tenth frame.
        .filter(|s| s.at >= on_idle && s.at < start + Duration::from_millis(3_750))
        .collect();
    assert!(!idle_frames.is_empty());
    for s in idle_frames {
        let f = FaceFrame::decode(&s.bytes).unwrap();
        assert!(
            f.blendshapes.iter().all(|v| (v - 0.25).abs() < 1e-6),
            "{:?}",
            f.blendshapes
        );
    }
    // Live again at the end: the phone's last frame went out untouched.
    let last = sent.iter().rev().find(|s| is_live(&s.bytes)).unwrap();
    assert_eq!(&last.bytes, &arrived.last().unwrap().1);
}

#[test]
fn live_at_power_up_relays_when_the_settings_say_so_and_names_a_missing_idle_take() {
    use llv_box::device::live_at_power_up;
    let _clock = clock();
    let (store, _) = store_of(idle_image());
    let mut settings = llv_core::settings::Settings::default();
    settings.targets.push(target(9)).unwrap();
    settings.live.idle = Some(heapless::String::try_from("t").unwrap());
    let phone = phone_packets(30);
    for (enabled, idle, relays) in [
        (false, "t", false),
        (true, "gone", false),
        (true, "t", true),
    ] {
        let start = Instant::now() + Duration::from_millis(100);
        settings.live.enabled = enabled;
        settings.live.idle = Some(heapless::String::try_from(idle).unwrap());
        let state = BoxState::new();
        let mut sink = Recorder::default();
        let mut live = ScriptedLive::default();
        for (t, p) in &phone {
            live.datagrams
                .push_back((start + Duration::from_micros(*t), p.clone()));
        }
        let status = match on_mock_clock(
            select(run_player(&store, &state, &mut sink, &mut live), async {
                live_at_power_up(&store, &state, &settings).await;
                Timer::at(start + Duration::from_secs(2)).await;
                state.live_status()
            }),
            MS,
            LIMIT,
        ) {
            Either::First(never) => never,
            Either::Second(status) => status,
        };
        assert_eq!(status.is_some(), relays, "live {enabled}, idle {idle}");
        // Relaying at once (buffer 0): every phone frame out untouched.
        // Then the phone stops: the fallback's frames follow its last.
        assert_eq!(
            sink.sent.len() >= phone.len(),
            relays,
            "live {enabled}, idle {idle}: {} sent",
            sink.sent.len()
        );
        assert!(relays || sink.sent.is_empty());
        assert!(
            sink.sent
                .iter()
                .zip(&phone)
                .all(|(s, (_, p))| &s.bytes == p),
            "untouched and in order"
        );
    }
}
